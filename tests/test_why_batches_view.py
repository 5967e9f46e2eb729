"""The "Why batches help" app parts: settings and caps, the buffer picture, its script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from burgerbot.app.caps import Caps
from burgerbot.app.logic import why_batches as why_view
from burgerbot.app.logic.why_batches import (
    EVENT_LABELS,
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    buffer_cells,
    buffer_chart_size,
    buffer_drawing,
    buffer_heatmap,
    drawn_text,
    resolve_settings,
)
from burgerbot.app.palette import OKABE_ITO
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
    assert (wide.step_calls, drawn.drawn_envs, drawn.drawn_steps) == (64, MAX_DRAWN_ENVS, 64)
    tall = buffer_drawing(buffer_layout(2048, 1))
    assert (tall.drawn_envs, tall.drawn_steps, tall.clipped) == (1, MAX_DRAWN_STEPS, True)
    assert not buffer_drawing(buffer_layout(1024, 16)).clipped  # 64 calls x 16 envs: all drawn


@pytest.mark.parametrize(
    ("batch", "n", "text"),
    [
        (2048, 16, "Drawn: the first 64 of 128 step() calls for all 16 envs."),
        (1024, 16, "All 64 step() calls for all 16 envs."),
        (1000, 256, "All 4 step() calls for the first 64 of 256 envs."),
        (64, 1, "All 64 step() calls for the single env."),
    ],
)
def test_drawn_text_says_what_the_picture_shows(batch, n, text):
    layout = buffer_layout(batch, n)
    assert drawn_text(layout, buffer_drawing(layout)) == text


# --- Charts ----------------------------------------------------------------------------------


def test_buffer_heatmap_draws_the_capped_cells_and_the_episode_ends():
    frame = rollout_buffer(batch_size=2048, num_envs=4, seed=0)
    cells = buffer_cells(frame, drawn_envs=4, drawn_steps=MAX_DRAWN_STEPS)
    assert len(cells) == 4 * MAX_DRAWN_STEPS and cells["step"].max() == MAX_DRAWN_STEPS
    assert set(cells["what happened"]) <= set(EVENT_LABELS.values())
    spec = buffer_heatmap(frame, 4, MAX_DRAWN_STEPS).to_dict()
    rects, ends = spec["layer"]
    assert rects["mark"]["type"] == "rect" and ends["mark"]["type"] == "rule"
    assert rects["encoding"]["x"]["field"] == "x0" and rects["encoding"]["x2"]["field"] == "x1"
    assert ends["encoding"]["y"]["field"] == "y1"  # the line runs under the ending cell
    assert rects["encoding"]["y"]["scale"]["reverse"] is True  # step() call 1 at the top
    assert rects["encoding"]["color"]["scale"]["domain"] == list(EVENT_LABELS.values())
    assert set(rects["encoding"]["color"]["scale"]["range"]) <= set(OKABE_ITO)
    assert ends["transform"] == [{"filter": "datum.ends_episode"}]
    data = next(iter(spec["datasets"].values()))
    assert len(data) == 4 * MAX_DRAWN_STEPS and sum(row["ends_episode"] for row in data) == int(
        cells["ends_episode"].sum()
    )
    width, height = buffer_chart_size(4, MAX_DRAWN_STEPS)
    assert width > spec["width"] and height > spec["height"]  # room for axes and legend


def test_buffer_heatmap_keeps_only_the_drawn_envs():
    frame = rollout_buffer(batch_size=256, num_envs=128, seed=0)
    cells = buffer_cells(frame, drawn_envs=64, drawn_steps=2)
    assert cells["env"].max() == 63 and len(cells) == 128


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
    assert f"step() calls: {layout.step_calls}\n" in out
    assert f"buffer shape: ({layout.step_calls}, {n}) = {layout.collected} rows (env-steps)" in out
    assert f"episodes ended: {int(frame['ends_episode'].sum())}\n" in out
    assert f"goals: {events.get('goal', 0)} | hits: {events.get('hit', 0)}\n" in out
    if mode == "NEXT_STEP":
        transitions = layout.collected - events["reset"]
        assert f"reset rows: {events['reset']} | transitions: {transitions}\n" in out
    else:
        assert "reset rows" not in out
        assert f"transitions: {layout.collected} (SAME_STEP" in out
