"""The "Auto-reset" charts: the episode timeline and the finished-episode bars."""

from __future__ import annotations

import pandas as pd
import pytest

from burgerbot.app.logic.autoreset import (
    END_MARKERS,
    RESET_MARKERS,
    SEGMENT_COLOURS,
    episode_timeline,
    mode_of,
    timeline_cells,
)
from burgerbot.app.palette import OKABE_ITO, SHAPES
from burgerbot.experiments import rollout


def run(mode: str, num_envs: int = 3, steps: int = 30, seed: int = 0) -> pd.DataFrame:
    return rollout("native", num_envs, steps, seed, mode_of(mode))


def datasets(spec: dict) -> dict[str, list]:
    return spec["datasets"]


def layer_data(spec: dict, layer: int) -> list[dict]:
    return datasets(spec)[spec["layer"][layer]["data"]["name"]]


@pytest.mark.parametrize(
    ("mode", "offset"), [("NEXT_STEP", 0.0), ("SAME_STEP", 0.32), ("DISABLED", 0.5)]
)
def test_episode_timeline_encodes_cells_markers_and_tooltips(mode, offset):
    frame = run(mode, num_envs=4, steps=40)
    cells, shown = timeline_cells(frame, mode)
    spec = episode_timeline(cells, shown).to_dict()
    assert len(spec["layer"]) == 2
    rects, points = spec["layer"]
    assert rects["mark"]["type"] == "rect" and rects["encoding"]["y"]["field"] == "env"
    # A marker on the first or last step fits inside the chart, even on a phone's 300 px
    # plot: the steps axis goes at least its radius further than the cells at each end.
    low, high = rects["encoding"]["x"]["scale"]["domain"]
    assert points["encoding"]["x"]["scale"]["domain"] == [low, high]
    radius_in_steps = points["mark"]["size"] ** 0.5 / 2 * 40 / 300  # 40 steps in 300 px
    assert 0.5 - low == pytest.approx(high - 40.5) and 0.5 - low >= radius_in_steps > 0.2
    fill = rects["encoding"]["fill"]
    assert fill["field"] == "segment"
    assert fill["scale"]["range"] == [SEGMENT_COLOURS[s] for s in fill["scale"]["domain"]]
    tooltip = {t["field"] for t in rects["encoding"]["tooltip"]}
    assert {"step", "env", "action", "obs", "reward", "terminated", "truncated"} <= tooltip
    assert len(layer_data(spec, 0)) == 160
    assert points["encoding"]["shape"]["field"] == points["encoding"]["color"]["field"] == "marker"
    markers = layer_data(spec, 1)
    ended = int((frame["terminated"] | frame["truncated"]).sum())
    resets = [m for m in markers if m["marker"] == RESET_MARKERS[mode]]
    assert len(markers) - len(resets) == ended
    assert all(m["x"] == pytest.approx(m["step"] + offset) for m in resets)
    domain = points["encoding"]["shape"]["scale"]["domain"]
    assert RESET_MARKERS[mode] in domain and "hit" in domain
    assert set(domain) <= set(END_MARKERS) | {RESET_MARKERS[mode]}
    # Every marker differs by its shape as well as by its colour, in Okabe-Ito colours.
    shapes = points["encoding"]["shape"]["scale"]["range"]
    colours = points["encoding"]["color"]["scale"]["range"]
    assert len(set(shapes)) == len(domain)
    assert set(colours) <= set(OKABE_ITO)
    ends = [m for m in domain if m in END_MARKERS]
    assert len({colours[domain.index(m)] for m in ends}) == len(ends)
    assert all(shapes[domain.index(m)] in SHAPES for m in ends)


def test_episode_timeline_highlight_and_row_heights():
    frame = run("NEXT_STEP", num_envs=2, steps=20)
    cells, shown = timeline_cells(frame, "NEXT_STEP")
    spec = episode_timeline(cells, shown, highlight=(1, 5, 6)).to_dict()
    assert len(spec["layer"]) == 3
    assert layer_data(spec, 2) == [{"env": 1, "start": 4.5, "stop": 6.5}]
    # The rows keep their height: Streamlit fits only the width, legends and axis come on top.
    assert spec["autosize"]["type"] == "fit-x"
    heights = []
    for num_envs in (2, 16, 64):
        frame = run("NEXT_STEP", num_envs=num_envs, steps=10)
        cells, shown = timeline_cells(frame, "NEXT_STEP")
        heights.append(episode_timeline(cells, shown).to_dict()["height"])
    assert heights[0] < heights[1] < heights[2]
    assert heights[2] // 64 >= 10  # rows never thinner than 10 px


def test_timeline_cell_colours_are_okabe_ito_and_the_reset_cell_is_blank():
    assert set(SEGMENT_COLOURS.values()) - {"#ffffff"} <= set(OKABE_ITO)
    assert SEGMENT_COLOURS["reset step"] == "#ffffff"
    assert len(set(SEGMENT_COLOURS.values())) == len(SEGMENT_COLOURS)
