"""The "Why batches help" app parts: settings and caps, the buffer picture, its script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from burgerbot.app.caps import Caps
from burgerbot.app.logic import why_batches as why_view
from burgerbot.app.logic.why_batches import (
    EVENT_COLOURS,
    EVENT_LABELS,
    EVENT_SHAPES,
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    buffer_cells,
    buffer_drawing,
    buffer_heatmap,
    buffer_plot_size,
    drawn_text,
    resolve_settings,
)
from burgerbot.app.scripts.why_batches import buffer_script
from burgerbot.buffers import buffer_layout, rollout_buffer

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = {spec.key: spec.default for spec in why_view.SPECS}


def run_script(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- Settings and caps ---------------------------------------------------------------------


def test_resolve_settings_uses_the_caps_it_is_given():
    values = {**DEFAULTS, "n": 200}
    buffer, notes = resolve_settings(values, Caps(max_envs=100))
    assert buffer.num_envs == 100 and len(notes) == 1 and "100" in notes[0]
    assert resolve_settings(DEFAULTS) == (why_view.BufferSettings(4, 2048, "NEXT_STEP", 0), [])


# --- The buffer picture ---------------------------------------------------------------------


def test_buffer_drawing_caps_the_drawing_not_the_batch():
    wide = buffer_layout(16384, 256)
    drawn = buffer_drawing(wide)
    assert (wide.step_calls, drawn.drawn_envs, drawn.drawn_steps) == (64, MAX_DRAWN_ENVS, 16)
    tall = buffer_drawing(buffer_layout(2048, 1))
    assert (tall.drawn_envs, tall.drawn_steps, tall.clipped) == (1, MAX_DRAWN_STEPS, True)
    assert not buffer_drawing(buffer_layout(96, 8)).clipped  # 12 calls x 8 envs: all drawn


@pytest.mark.parametrize(
    ("batch", "n", "text"),
    [
        (2048, 8, "the first 16 of 256 step() calls, all 8 envs"),
        (96, 8, "all 12 step() calls, all 8 envs"),
        (1000, 256, "all 4 step() calls, the first 12 of 256 envs"),
        (256, 256, "the single step() call, the first 12 of 256 envs"),
        (16, 1, "all 16 step() calls, the single env"),
    ],
)
def test_drawn_text_says_what_the_picture_shows(batch, n, text):
    layout = buffer_layout(batch, n)
    assert drawn_text(layout, buffer_drawing(layout)) == text


# --- Charts ----------------------------------------------------------------------------------


def test_buffer_picture_draws_one_marker_per_row_told_apart_by_shape_and_colour():
    frame = rollout_buffer(batch_size=2048, num_envs=4, seed=0)
    cells = buffer_cells(frame, drawn_envs=4, drawn_steps=MAX_DRAWN_STEPS)
    assert len(cells) == 4 * MAX_DRAWN_STEPS and cells["step"].max() == MAX_DRAWN_STEPS
    assert set(cells["what happened"]) <= set(EVENT_LABELS.values())
    spec = buffer_heatmap(frame, 4, MAX_DRAWN_STEPS).to_dict()
    assert spec["mark"]["type"] == "point"
    colour, shape = spec["encoding"]["color"], spec["encoding"]["shape"]
    labels = list(EVENT_LABELS.values())
    assert colour["scale"]["domain"] == shape["scale"]["domain"] == labels
    # no two events share a colour, nor a shape: neither alone has to carry the meaning
    assert len(set(colour["scale"]["range"])) == len(set(shape["scale"]["range"])) == len(labels)
    assert colour["scale"]["range"] == [EVENT_COLOURS[e] for e in EVENT_LABELS]
    assert shape["scale"]["range"] == [EVENT_SHAPES[e] for e in EVENT_LABELS]
    assert spec["encoding"]["y"]["scale"]["domain"][0] == 1  # step() call 1 at the top
    data = next(iter(spec["datasets"].values()))
    assert len(data) == 4 * MAX_DRAWN_STEPS
    # cells wide enough to read: at least 20 px per env and per call
    assert spec["width"] >= 20 * 4 and spec["height"] >= 20 * MAX_DRAWN_STEPS
    # Streamlit fits axes and legend into the chart's size: room beyond the plot area
    plot_width, plot_height = buffer_plot_size(4, MAX_DRAWN_STEPS)
    assert spec["width"] > plot_width and spec["height"] > plot_height


def test_buffer_heatmap_keeps_only_the_drawn_envs():
    frame = rollout_buffer(batch_size=256, num_envs=128, seed=0)
    cells = buffer_cells(frame, drawn_envs=64, drawn_steps=2)
    assert cells["env"].max() == 63 and len(cells) == 128
    assert buffer_drawing(buffer_layout(256, 128)).drawn_envs == MAX_DRAWN_ENVS


# --- Scripts ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("batch", "n", "seed", "mode"),
    [(2048, 4, 0, "NEXT_STEP"), (1000, 16, 3, "NEXT_STEP"), (512, 1, 7, "SAME_STEP")],
)
def test_buffer_script_prints_what_the_page_shows(batch, n, seed, mode):
    out = run_script(buffer_script(batch, n, seed, mode))
    frame = rollout_buffer(batch, n, seed, mode)
    layout = buffer_layout(batch, n)
    events = frame["event"].value_counts()
    assert f"step() calls: {layout.step_calls} | buffer shape: ({layout.step_calls}, {n})\n" in out
    assert "goal" not in out  # Goal scaling, later on the path, asks about goal counts
    if mode == "NEXT_STEP":
        transitions = layout.collected - events["reset"]
        assert f"reset rows to mask out: {events['reset']} | transitions: {transitions}\n" in out
    else:
        assert "reset rows" not in out
