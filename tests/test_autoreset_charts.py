"""The "Auto-reset" charts: the episode timeline and the finished-episode bars."""

from __future__ import annotations

import pandas as pd
import pytest

from burgerbot.app.charts.autoreset import (
    END_MARKERS,
    SEGMENT_COLOURS,
    episode_timeline,
    finished_episodes_chart,
    timeline_pixel_height,
)
from burgerbot.app.views.autoreset import MODES, mode_of
from burgerbot.app.views.autoreset_counting import count_finished_by_mode
from burgerbot.app.views.autoreset_timeline import RESET_MARKERS, timeline_cells
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
    assert rects["encoding"]["x"]["scale"]["domain"] == [0.5, 40.5]
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


def test_episode_timeline_highlight_and_height():
    frame = run("NEXT_STEP", num_envs=2, steps=20)
    cells, shown = timeline_cells(frame, "NEXT_STEP")
    spec = episode_timeline(cells, shown, highlight=(1, 5, 6)).to_dict()
    assert len(spec["layer"]) == 3
    assert layer_data(spec, 2) == [{"env": 1, "start": 4.5, "stop": 6.5}]
    assert timeline_pixel_height(2) < timeline_pixel_height(16) <= timeline_pixel_height(64)


def test_finished_episodes_chart_groups_the_modes_per_env():
    counts = count_finished_by_mode("native", 2, 50, 0)
    spec = finished_episodes_chart(counts).to_dict()
    encoding = spec["encoding"]
    assert encoding["x"]["field"] == "env" and encoding["xOffset"]["field"] == "mode"
    assert encoding["y"]["field"] == "finished episodes"
    assert encoding["color"]["scale"]["domain"] == list(MODES)
    data = next(iter(spec["datasets"].values()))
    assert len(data) == 6
    assert [row["finished episodes"] for row in data] == counts["finished episodes"].tolist()
