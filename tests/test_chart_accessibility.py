"""Every chart names what it shows (a description: Vega's ARIA label) and tells its series
apart by more than colour: shape, dash or a text label (issue 38, item 3)."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest
from test_cost_sweeps_view import fake_frame
from test_speed_breakdown_view import like_this_server, make_speeds
from test_training_data_view import hand_run

from burgerbot.app.logic import autoreset as ar
from burgerbot.app.logic import cost_sweeps as cs
from burgerbot.app.logic import counting_episodes as ce
from burgerbot.app.logic import goal_scaling as gsc
from burgerbot.app.logic import goal_statistics as gst
from burgerbot.app.logic import learning_speed as ls
from burgerbot.app.logic import speed_breakdown as sb
from burgerbot.app.logic import training_data as td
from burgerbot.app.logic import vector_wrappers as vw
from burgerbot.app.logic import why_batches as wb
from burgerbot.buffers import rollout_buffer
from burgerbot.experiments import goal_scaling, rollout
from burgerbot.training import QLearningConfig, compare_num_envs, curves_frame

LOGIC = Path(__file__).resolve().parent.parent / "burgerbot" / "app" / "logic"


def timeline(mode: str):
    frame = rollout("native", 3, 30, 0, ar.mode_of(mode))
    return ar.episode_timeline(*ar.timeline_cells(frame, mode), (1, 2, 4))


def scaling(metric: str):
    frame = goal_scaling([1, 4], 300, seeds=[0, 1], backend="native")
    return gst.scaling_panel(*gst.chart_data(frame, gst.summarise(frame)), metric)


def curves(x: str, y: str):
    runs = compare_num_envs([1, 4], seeds=[0], config=QLearningConfig(env_steps=500))
    return ls.learning_curve(curves_frame(runs), x, y)


SWEEP = [("sync", 1, 0.1), ("async", 1, 0.8), ("native", 4, 0.2)]
UPS = pd.DataFrame({"num_envs": [1, 4], "speedup": [0.5, 1.7], "ceiling": [1.0, 2.0]})

# (module, the function holding `alt.Chart`): the charts it builds, as the pages call them.
CHARTS = {
    ("autoreset", "episode_timeline"): lambda: [timeline(m) for m in ar.MODES],
    ("cost_sweeps", "throughput_chart"): lambda: [cs.throughput_chart(fake_frame(SWEEP))],
    ("cost_sweeps", "speedup_chart"): lambda: [cs.speedup_chart(UPS, k) for k in ("busy", "sleep")],
    ("counting_episodes", "finished_episodes_chart"): lambda: [
        ce.finished_episodes_chart(ce.count_finished_by_mode("native", 2, 50, 0))
    ],
    ("goal_scaling", "repeat_chart"): lambda: [
        gsc.repeat_chart(gsc.repeat_summary(gsc.repeat_lesson(3, seed=5)))
    ],
    ("goal_statistics", "_panel"): lambda: [scaling("goals"), scaling("episodes")],
    ("learning_speed", "learning_curve"): lambda: [
        curves("env_steps", "reaches_goal"),
        curves("seconds", "goal_rate"),
    ],
    ("speed_breakdown", "speed_chart"): lambda: [
        sb.speed_chart(sb.chart_frame(make_speeds(like_this_server)))
    ],
    ("speed_breakdown", "forward_chart"): lambda: [
        sb.forward_chart(sb.forward_frame(make_speeds(like_this_server).forwards))
    ],
    ("training_data", "targets_chart"): lambda: [
        td.targets_chart(td.target_counts(td.target_points(hand_run("NEXT_STEP"))))
    ],
    ("vector_wrappers", "drift_chart"): lambda: [
        vw.drift_chart(vw.evaluation_drift(2, 30, 0).drift)
    ],
    ("why_batches", "buffer_heatmap"): lambda: [
        wb.buffer_heatmap(rollout_buffer(batch_size=256, num_envs=4, seed=0), 4, 16)
    ],
}


def test_every_chart_builder_is_in_the_table():
    found = set()
    for path in LOGIC.glob("*.py"):
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            is_def = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if is_def and "alt.Chart" in (ast.get_source_segment(source, node) or ""):
                found.add((path.stem, node.name))
    assert found == set(CHARTS)  # a new chart goes into the table, and so gets checked


def views(spec: dict, inherited: dict | None = None):
    """Every single view of ``spec`` with its encoding (a layer inherits its parent's)."""
    encoding = {**(inherited or {}), **spec.get("encoding", {})}
    if "mark" in spec:
        yield spec, encoding
    for key in ("layer", "vconcat", "hconcat", "concat"):
        for child in spec.get(key, []):
            yield from views(child, encoding if key == "layer" else None)
    if "spec" in spec:  # a facet's (or repeat's) inner chart
        yield from views(spec["spec"], encoding)


def mark_type(view: dict) -> str:
    return view["mark"] if isinstance(view["mark"], str) else view["mark"]["type"]


@pytest.mark.parametrize("key", list(CHARTS), ids="/".join)
def test_charts_are_described_and_not_told_apart_by_colour_alone(key):
    for chart in CHARTS[key]():
        spec = chart.to_dict()
        description = spec.get("description", "")
        assert len(description.split()) >= 8, (key, description)
        all_views = list(views(spec))
        labels = {
            e["text"].get("field")
            for v, e in all_views
            if mark_type(v) == "text" and isinstance(e.get("text"), dict)
        }
        for view, encoding in all_views:
            for channel in ("color", "fill"):
                colour = encoding.get(channel, {})
                field = colour.get("field")
                if field is None or colour.get("type") not in ("nominal", "ordinal"):
                    continue
                seconds = {encoding.get(c, {}).get("field") for c in ("shape", "strokeDash")}
                assert field in seconds | labels, (key, mark_type(view), channel, field)
