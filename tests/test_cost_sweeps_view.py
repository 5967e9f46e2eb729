"""The "Cost sweeps" logic, charts and script, and the shared timing (`burgerbot.app.timing`)."""

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
from sentence_facts import numbers, quotes

from burgerbot.app import timing as timing_module
from burgerbot.app.caps import Caps
from burgerbot.app.logic import cost_sweeps as cost_logic
from burgerbot.app.logic.cost_sweeps import (
    PREDICTION,
    SPECS,
    above_ceiling,
    check_budget,
    model_cost,
    predicted_crossover,
    prediction_truth,
    resolve_settings,
    speedup_chart,
    speedups,
    takeaways,
    throughput_chart,
)
from burgerbot.app.palette import BACKEND_COLOURS, OKABE_ITO, SHAPES
from burgerbot.app.palette import BACKEND_COLOURS as PALETTE
from burgerbot.app.scripts import cost_sweeps as cost_snippets
from burgerbot.app.scripts.cost_sweeps import snippet_for
from burgerbot.app.slots import BudgetExceeded, WorkerBudget
from burgerbot.app.timing import (
    ROUNDS,
    CallCost,
    TimingSettings,
    call_costs,
    core_counts,
    plan,
    run_timing,
    timing_table,
    usable_cores,
)

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


def test_the_defaults_answer_the_prediction_and_fit_the_caps():
    settings, notes = resolve_settings({spec.key: spec.default for spec in SPECS})
    assert notes == [] and settings == TimingSettings((1, 4, 8), 100, 1_000, "sleep")
    assert check_budget(settings) is None
    (n,) = PREDICTION.num_envs
    assert n in plan(settings)[0]["async"] and n in plan(settings)[0]["sync"]
    assert (settings.work_kind, settings.work_us) == (PREDICTION.work_kind, PREDICTION.work_us)


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
    assert "BURGERBOT" not in notes[0]  # the learner's text names no variable
    runs, notes = plan(TimingSettings((1, 4, 16), work_us=100), caps)
    assert runs == {"sync": (1, 4), "async": (1, 4)}
    assert "native is left out" in notes[1]
    runs, notes = plan(TimingSettings((16, 64)), caps)
    assert runs == {"sync": (16, 64), "native": (16, 64)}


def test_oversized_sweeps_are_refused_with_steps_that_fit():
    caps = Caps(max_async_envs=8, max_sync_sweep_env_steps=10_000, max_sweep_env_steps=50_000)
    settings = TimingSettings((1, 2, 64), steps=1_000)  # Sync 67k + Async 3k env-steps
    message = check_budget(settings, caps)
    # Sync and Async's 70,000 env-steps against 10,000; native's 67,000 against 50,000; and
    # the steps that would fit, 10,000 // 70 = 142
    assert quotes(message, 70_000, 10_000, 67_000, 50_000, 142)
    assert "BURGERBOT" not in message  # the learner's text names no variable
    assert check_budget(TimingSettings((1, 2, 64), steps=142), caps) is None
    assert check_budget(TimingSettings((1, 2, 64), steps=143), caps) is not None

    heavy = TimingSettings((1, 2, 4, 8), steps=1_000, work_us=5_000)  # 30,000 env-steps x 5 ms
    message = check_budget(heavy, Caps())
    fit = Caps().max_timing_work_seconds * 1_000_000 // (30 * 5_000)
    assert quotes(message, Caps().max_timing_work_seconds, fit)  # the limit; the steps that fit
    assert message.endswith("lower the extra cost per step.")  # the family's one wording check

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
    # Creating and closing are not divided: Sync's take microseconds, the quotient means nothing.
    assert not {"create_vs_sync", "close_vs_sync"} & set(table.columns)
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


@pytest.mark.parametrize("module", [timing_module, cost_logic, cost_snippets])
def test_docstring_examples_run(module):
    assert doctest.testmod(module).failed == 0


# --- The prediction, the model's starting point and the takeaways -----------------------------


def with_rounds(rows: list[tuple[str, int, float]], spread: float = 0.05) -> pd.DataFrame:
    """fake_frame with three rounds per row: step_s times 1 - spread, 1 and 1 + spread."""
    frame = fake_frame(rows)
    frame["step_s_rounds"] = [[s * (1 - spread), s, s * (1 + spread)] for s in frame["step_s"]]
    return frame


SLEPT = TimingSettings((1, 8), 100, 1_000, "sleep")


def test_the_prediction_follows_the_rounds_at_its_num_envs_either_way():
    async_won = with_rounds([("sync", 8, 1.0), ("async", 8, 0.25), ("sync", 1, 0.1)])
    truth, why = prediction_truth(async_won, SLEPT)
    assert truth == "AsyncVectorEnv" and quotes(why, 4.0)
    verdict = why.split(". ", 1)[1]  # after the figures: the faster one named first
    assert verdict.index("Async") < verdict.index("Sync")
    sync_won = with_rounds([("sync", 8, 0.25), ("async", 8, 1.0)])
    truth, why = prediction_truth(sync_won, SLEPT)
    verdict = why.split(". ", 1)[1]
    assert truth == "SyncVectorEnv" and quotes(why, 4.0)
    assert verdict.index("Sync") < verdict.index("Async")
    overlap = with_rounds([("sync", 8, 0.5), ("async", 8, 0.45)], spread=0.2)
    truth, why = prediction_truth(overlap, SLEPT)
    assert truth is None and "ratio" not in why  # not decided, no ratio claimed


def test_only_a_sweep_of_the_predictions_cost_and_num_envs_answers_it():
    sweep = with_rounds([("sync", 8, 1.0), ("async", 8, 0.25)])
    assert prediction_truth(sweep, TimingSettings((8,), 100, 1_000, "busy")) is None
    assert prediction_truth(sweep, TimingSettings((8,), 100, 500, "sleep")) is None
    assert prediction_truth(with_rounds([("sync", 4, 1.0), ("async", 4, 0.3)]), SLEPT) is None


def test_the_model_starts_from_a_sweep_without_extra_cost_at_four_envs_if_it_can():
    plain = TimingSettings((1, 4, 8), 100)
    sweep = fake_frame([(b, n, t) for n in (1, 4, 8) for b, t in (("sync", n), ("async", 9))])
    assert model_cost(sweep, plain).num_envs == 4
    no_four = fake_frame([("sync", 2, 0.1), ("async", 2, 0.9), ("sync", 8, 1), ("async", 8, 2)])
    assert model_cost(no_four, plain).num_envs == 8
    assert model_cost(sweep, SLEPT) is None  # a step cost would count as Async's overhead
    assert model_cost(fake_frame([("sync", 4, 0.1)]), plain) is None


def test_takeaways_follow_the_last_sweep_or_invite_one():
    assert not numbers(takeaways(None, None, 2)[0])  # an invitation, no figures
    sweep = with_rounds([("sync", 1, 0.1), ("async", 1, 0.2), ("sync", 8, 1.0), ("async", 8, 0.2)])
    won = takeaways(sweep, SLEPT, 2)[0]
    assert won == (
        "Here, with 1,000 µs of sleep per env-step, Async beat Sync in every round at NUM_ENVS 8."
    )
    lost = takeaways(with_rounds([("sync", 8, 0.2), ("async", 8, 1.0)]), SLEPT, 2)[0]
    assert lost != won and not quotes(lost, 8)  # no NUM_ENVS where Async won
    assert "add a cost" in takeaways(sweep, TimingSettings((1, 8), 100), 2)[0]
    assert "3 cores here" in takeaways(None, None, 3)[2]
    assert "1 core here" in takeaways(None, None, 1)[2]
