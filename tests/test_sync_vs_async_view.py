"""The "Sync vs Async" logic, charts and script (`burgerbot.app.logic.sync_vs_async` & co)."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from child_processes import worker_pids

from burgerbot.app.caps import Caps
from burgerbot.app.logic import sync_vs_async as timing_logic
from burgerbot.app.logic.sync_vs_async import (
    BACKEND_COLOURS,
    LESSON,
    ROUNDS,
    SPECS,
    CallCost,
    TimingSettings,
    above_ceiling,
    call_costs,
    check_budget,
    core_counts,
    plan,
    predicted_crossover,
    resolve_settings,
    run_timing,
    speedup_chart,
    speedups,
    throughput_chart,
    timing_table,
    usable_cores,
)
from burgerbot.app.palette import BACKEND_COLOURS as PALETTE
from burgerbot.app.palette import OKABE_ITO, SHAPES
from burgerbot.app.scripts import sync_vs_async as timing_snippets
from burgerbot.app.scripts.sync_vs_async import snippet_for
from burgerbot.app.slots import BudgetExceeded, WorkerBudget

ROOT = Path(__file__).resolve().parent.parent


def fake_frame(rows: list[tuple[str, int, float]], steps: int = 100) -> pd.DataFrame:
    """A time_backends-like frame from (backend, num_envs, step_s)."""
    return pd.DataFrame(
        [
            {
                "backend": backend,
                "num_envs": n,
                "steps": steps,
                "work_seconds": 0.0,
                "create_s": 0.01 * (100 if backend == "async" else 1),
                "reset_s": 0.001,
                "step_s": step_s,
                "close_s": 0.001 * (50 if backend == "async" else 1),
                "env_steps": n * steps,
                "env_steps_per_s": n * steps / step_s,
            }
            for backend, n, step_s in rows
        ]
    )


# --- Settings, plan and caps ---------------------------------------------------------------


def test_defaults_and_the_lessons_comparison():
    settings, notes = resolve_settings({spec.key: spec.default for spec in SPECS})
    assert notes == [] and settings == TimingSettings((1, 2, 4, 8, 64, 256), 1_000, 0, "busy")
    assert check_budget(settings) is None
    assert TimingSettings((4,), 1_000) == LESSON
    assert plan(LESSON)[0] == {"sync": (4,), "async": (4,), "native": (4,)}


def test_resolve_settings_notes_an_empty_list():
    values = {spec.key: spec.default for spec in SPECS} | {"n": [], "kind": "spin"}
    settings, notes = resolve_settings(values)
    assert settings.num_envs == SPECS[0].default and settings.work_kind == "busy"
    assert "at least one" in notes[0]
    assert TimingSettings((2,), 10, 1500, "sleep").describe() == (
        "NUM_ENVS 2; 10 step() calls each; +1,500 µs sleep per env-step"
    )


def test_plan_limits_async_and_drops_native_with_a_step_cost():
    caps = Caps(max_async_envs=4)
    runs, notes = plan(TimingSettings((1, 4, 16, 64)), caps)
    assert runs == {"sync": (1, 4, 16, 64), "async": (1, 4), "native": (1, 4, 16, 64)}
    assert "up to NUM_ENVS = 4" in notes[0] and "skips 16, 64" in notes[0]
    assert "BURGERBOT_MAX_ASYNC_ENVS" in notes[0]
    runs, notes = plan(TimingSettings((1, 4, 16), work_us=100), caps)
    assert runs == {"sync": (1, 4), "async": (1, 4)}
    assert "native is left out" in notes[1]
    runs, notes = plan(TimingSettings((16, 64)), caps)
    assert runs == {"sync": (16, 64), "native": (16, 64)}


def test_oversized_sweeps_are_refused_with_steps_that_fit():
    caps = Caps(max_async_envs=8, max_sync_sweep_env_steps=10_000, max_sweep_env_steps=50_000)
    settings = TimingSettings((1, 2, 64), steps=1_000)  # Sync 67k + Async 3k env-steps
    message = check_budget(settings, caps)
    assert "70,000 env-steps" in message and "BURGERBOT_MAX_SYNC_SWEEP_ENV_STEPS" in message
    assert "native would take 67,000" in message and "BURGERBOT_MAX_SWEEP_ENV_STEPS" in message
    assert "to 142 or fewer" in message  # 10,000 // 70
    assert check_budget(TimingSettings((1, 2, 64), steps=142), caps) is None
    assert check_budget(TimingSettings((1, 2, 64), steps=143), caps) is not None

    heavy = TimingSettings((1, 2, 4, 8), steps=1_000, work_us=5_000)  # 30,000 env-steps x 5 ms
    message = check_budget(heavy, Caps())
    assert f"limit of {Caps().max_timing_work_seconds} s" in message
    assert "lower the extra cost per step" in message
    fit = Caps().max_timing_work_seconds * 1_000_000 // (30 * 5_000)
    assert f"to {fit:,} or fewer" in message
    assert check_budget(TimingSettings((1, 2, 4, 8), fit, 5_000), Caps()) is None


def test_the_work_limit_comes_from_the_caps_passed_in():
    # 4 envs x 1,000 calls x 1 ms = 4 s of extra work (Sync and Async each: 8 s in all).
    settings = TimingSettings((4,), steps=1_000, work_us=1_000)
    assert check_budget(settings, Caps(max_timing_work_seconds=60)) is None
    message = check_budget(settings, Caps(max_timing_work_seconds=1))
    assert message is not None and "limit of 1 s" in message
    assert "to 125 or fewer" in message  # 1 s / (8 envs x 1 ms)


# --- Running -------------------------------------------------------------------------------


def test_run_timing_times_every_backend_of_the_plan(no_leftover_workers):
    budget = WorkerBudget(limit=4)
    reports = []
    frame = run_timing(
        TimingSettings((1, 2, 16), steps=30),
        progress=lambda f, m: reports.append(f),
        budget=budget,
    )
    assert list(zip(frame["backend"], frame["num_envs"], strict=True)) == [
        ("sync", 1),
        ("sync", 2),
        ("sync", 16),
        ("async", 1),
        ("async", 2),
        ("native", 1),
        ("native", 2),
        ("native", 16),
    ]
    assert (frame["steps"] == 30).all() and (frame["step_s"] > 0).all()
    # every (backend, N) timed in ROUNDS rounds taken in turns; the row holds their median
    assert (frame["step_s_rounds"].map(len) == ROUNDS).all()
    assert frame["step_s"].tolist() == [float(np.median(r)) for r in frame["step_s_rounds"]]
    assert reports == sorted(reports) and reports[-1] == 1.0
    assert budget.in_use == 0


def test_run_timing_with_a_step_cost(no_leftover_workers):
    frame = run_timing(TimingSettings((1, 2, 32), steps=20, work_us=300, work_kind="sleep"))
    assert frame["backend"].tolist() == ["sync", "sync", "async", "async"]
    assert (frame["work_seconds"] == 0.0003).all()
    assert (frame["step_s"] >= 20 * 0.0003).all()  # every call waits at least once


def test_run_timing_refuses_before_starting_workers_over_the_budget(no_leftover_workers):
    budget = WorkerBudget(limit=1)
    with pytest.raises(BudgetExceeded):
        run_timing(TimingSettings((2,), steps=10), budget=budget)
    assert budget.in_use == 0


class Interrupted(Exception):
    """Stands for the page being stopped from its progress bar."""


def test_an_interrupted_async_timing_leaves_no_process(no_leftover_workers):
    budget = WorkerBudget(limit=8)
    seen = []
    others = worker_pids()  # children that are not this run's (a browser test's driver, say)

    def progress(fraction: float, message: str) -> None:
        if message.startswith("async"):
            seen.append(len(worker_pids() - others))
            if len(seen) == 2:
                raise Interrupted(message)

    with pytest.raises(Interrupted):
        run_timing(TimingSettings((3,), steps=3_000), progress=progress, budget=budget)
    assert seen[-1] == 3  # the workers were running when it was stopped
    assert budget.in_use == 0


# --- Tables, ratios and the model ------------------------------------------------------------


def test_timing_table_divides_by_syncs_time_at_the_same_n():
    frame = fake_frame(
        [("sync", 1, 0.1), ("async", 1, 0.8), ("native", 1, 0.05), ("native", 64, 0.2)]
    )
    table = timing_table(frame)
    assert table["backend"].tolist() == ["sync", "async", "native", "native"]
    assert table["step_vs_sync"].tolist()[:3] == pytest.approx([1.0, 8.0, 0.5])
    assert table["create_vs_sync"].tolist()[:2] == pytest.approx([1.0, 100.0])
    assert table["close_vs_sync"].tolist()[:2] == pytest.approx([1.0, 50.0])
    assert pd.isna(table["step_vs_sync"].iloc[3])  # Sync did not run N = 64


def test_call_costs_are_per_step_call():
    frame = fake_frame([("sync", 4, 0.1), ("async", 4, 0.9), ("native", 4, 0.02), ("sync", 8, 1)])
    (cost,) = call_costs(frame)
    assert cost.num_envs == 4
    assert (cost.sync_s, cost.async_s, cost.native_s) == pytest.approx((1e-3, 9e-3, 2e-4))
    assert cost.extra_s == pytest.approx(8e-3) and cost.extra_per_env_s == pytest.approx(2e-3)
    assert cost.sync_per_env_step_s == pytest.approx(2.5e-4)


def test_predicted_crossover_follows_the_core_limited_model():
    cost = CallCost(4, sync_s=100e-6, async_s=900e-6, native_s=None)
    assert predicted_crossover(cost, cores=2, kind="busy") == pytest.approx(400e-6)
    assert predicted_crossover(cost, cores=4, kind="busy") == pytest.approx(800e-6 / 3)
    assert predicted_crossover(cost, cores=2, kind="sleep") == pytest.approx(800e-6 / 3)
    assert predicted_crossover(cost, cores=1, kind="busy") is None
    assert predicted_crossover(CallCost(1, 1e-4, 9e-4, None), cores=8, kind="sleep") is None
    assert predicted_crossover(CallCost(4, 9e-4, 1e-4, None), cores=2, kind="busy") == 0.0


def test_speedups_and_their_ceilings():
    frame = fake_frame([("sync", 1, 1.0), ("async", 1, 2.0), ("sync", 4, 4.0), ("async", 4, 1.6)])
    busy = speedups(frame, cores=2, kind="busy")
    assert busy["speedup"].tolist() == pytest.approx([0.5, 2.5])
    assert busy["ceiling"].tolist() == [1.0, 2.0]
    assert speedups(frame, cores=2, kind="sleep")["ceiling"].tolist() == [1.0, 4.0]
    assert speedups(fake_frame([("sync", 2, 1.0)]), 2, "busy").empty


def test_speedups_above_their_ceiling_are_flagged_as_noise():
    ups = pd.DataFrame({"num_envs": [1, 2, 4], "speedup": [2.0, 2.1, 1.5], "ceiling": [1.0, 2, 2]})
    assert above_ceiling(ups) == [1]
    assert above_ceiling(ups, tolerance=1.0) == [1, 2]


def test_core_counts_are_the_os_numbers():
    total, usable = core_counts()
    assert total == os.cpu_count()
    assert usable == len(os.sched_getaffinity(0))
    assert usable_cores() == usable


# --- Charts --------------------------------------------------------------------------------


def test_throughput_chart_is_log_log_with_one_colour_per_backend():
    frame = fake_frame([("sync", 1, 0.1), ("async", 1, 0.8), ("native", 64, 0.2)])
    spec = throughput_chart(frame).to_dict()
    line, points = spec["layer"]
    encoding = line["encoding"] if "encoding" in line else spec["encoding"]
    assert encoding["x"]["scale"]["type"] == "log" and encoding["x"]["scale"]["base"] == 2
    assert encoding["x"]["axis"]["values"] == [1, 64]
    assert encoding["y"]["field"] == "env_steps_per_s" and encoding["y"]["scale"]["type"] == "log"
    assert encoding["color"]["scale"]["domain"] == list(BACKEND_COLOURS)
    only_two = throughput_chart(frame[frame["backend"] != "native"]).to_dict()
    first = only_two["layer"][0]
    two = first["encoding"] if "encoding" in first else only_two["encoding"]
    assert two["color"]["scale"]["domain"] == ["Sync", "Async"]
    (data,) = spec["datasets"].values()
    assert [row["backend"] for row in data] == ["Sync", "Async", "native"]
    assert line["mark"]["type"] == "line" and points["mark"]["type"] == "point"
    # Okabe-Ito colours, and a marker shape per backend: colour is not the only cue.
    assert encoding["color"]["scale"]["range"] == [PALETTE[name] for name in BACKEND_COLOURS]
    shapes = points["encoding"]["shape"]["scale"]["range"]
    assert len(set(shapes)) == 3 and set(shapes) <= set(SHAPES)
    assert "this project's, not Gymnasium's" in encoding["color"]["legend"]["labelExpr"]


def test_speedup_chart_shows_measured_ceiling_and_break_even():
    ups = pd.DataFrame({"num_envs": [1, 4], "speedup": [0.5, 1.7], "ceiling": [1.0, 2.0]})
    spec = speedup_chart(ups, "busy").to_dict()
    lines, even = spec["layer"]
    assert lines["encoding"]["color"]["scale"]["domain"] == [
        "measured speed-up",
        "ceiling: min(N, cores)",
    ]
    data = spec["datasets"][lines["data"]["name"]]
    assert [(r["what"][:4], r["value"]) for r in data] == [
        ("meas", 0.5),
        ("meas", 1.7),
        ("ceil", 1.0),
        ("ceil", 2.0),
    ]
    assert spec["datasets"][even["data"]["name"]] == [{"y": 1.0}]
    assert lines["encoding"]["strokeDash"]["scale"]["range"] == [[1, 0], [6, 4]]  # ceiling dashed
    assert set(lines["encoding"]["color"]["scale"]["range"]) <= set(OKABE_ITO)
    assert len(set(lines["encoding"]["shape"]["scale"]["range"])) == 2
    assert "ceiling: N" in str(speedup_chart(ups, "sleep").to_dict())


# --- Script --------------------------------------------------------------------------------


def run_script(code: str) -> list[tuple[str, int]]:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    header, *lines = done.stdout.strip().splitlines()
    assert header.split() == [
        "backend",
        "NUM_ENVS",
        "create",
        "s",
        "step",
        "s",
        "close",
        "s",
        "env-steps/s",
    ]
    rows = []
    for line in lines:
        backend, n, create, step, close, per_s = line.split()
        assert float(step) >= 0 and float(per_s.replace(",", "")) > 0
        rows.append((backend, int(n)))
    return rows


@pytest.mark.parametrize(
    "settings",
    [TimingSettings((1, 2, 16), steps=20), TimingSettings((2, 64), 20, 200, "sleep")],
    ids=["plain", "sleep-cost"],
)
def test_script_prints_one_row_per_planned_run(settings, no_leftover_workers):
    runs, _ = plan(settings)
    expected = [(backend, n) for backend, sizes in runs.items() for n in sizes]
    assert run_script(snippet_for(settings)) == expected


def test_script_mentions_the_step_cost_only_when_there_is_one():
    assert "WORK_SECONDS" not in snippet_for(TimingSettings((1,)))
    code = snippet_for(TimingSettings((1,), work_us=250, work_kind="busy"))
    assert "WORK_SECONDS = 0.00025" in code and 'WORK_KIND = "busy"' in code


@pytest.mark.parametrize("module", [timing_logic, timing_snippets])
def test_docstring_examples_run(module):
    assert doctest.testmod(module).failed == 0
