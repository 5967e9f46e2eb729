"""The server's memory budget (issue 24, item 1): heavy-run slots and byte-bounded caches."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from page_apptest import open_app_page

from burgerbot.app import slots
from burgerbot.app.caps import Caps, load_caps
from burgerbot.app.logic.goal_statistics import ScalingSettings
from burgerbot.app.result_cache import ResultCache, approx_bytes
from burgerbot.app.slots import BudgetExceeded, HeavyRuns, ServerBusy
from burgerbot.app.timing import TimingSettings, sweep_size


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_caps_are_read_from_their_variables():
    caps, notes = load_caps(
        {
            "BURGERBOT_MAX_HEAVY_RUNS": "3",
            "BURGERBOT_HEAVY_RUN_ENV_STEPS": "10",
            "BURGERBOT_MAX_PAGE_CACHE_MB": "7",
        }
    )
    assert (caps.max_heavy_runs, caps.heavy_run_env_steps, caps.max_page_cache_mb) == (3, 10, 7)
    assert not notes


def test_heavy_runs_take_slots_and_refuse_at_once_past_them():
    runs = HeavyRuns(Caps(max_heavy_runs=2, heavy_run_env_steps=100))
    with runs.hold(env_steps=100), runs.hold(step_calls=500):
        assert runs.in_use == 2
        with runs.hold(env_steps=99, step_calls=99):  # small: passes without a slot
            assert runs.in_use == 2
        with pytest.raises(ServerBusy) as busy, runs.hold(env_steps=100):
            pytest.fail("a third heavy run must not start")
        assert isinstance(busy.value, BudgetExceeded)  # pages that show a budget's warning
        assert "BURGERBOT_" not in str(busy.value)
    assert runs.in_use == 0
    with runs.hold(env_steps=100):
        assert runs.in_use == 1


def test_a_failing_heavy_run_gives_its_slot_back():
    runs = HeavyRuns(Caps(max_heavy_runs=1, heavy_run_env_steps=1))
    with pytest.raises(ValueError), runs.hold(env_steps=5):
        raise ValueError("the run failed")
    with runs.hold(env_steps=5):
        assert runs.in_use == 1


def test_the_wait_comes_from_recent_runs_and_the_oldest_running_one():
    clock = Clock()
    runs = HeavyRuns(Caps(max_heavy_runs=1, heavy_run_env_steps=1), clock=clock)
    for seconds in (4.0, 6.0, 8.0):  # median 6 s
        with runs.hold(env_steps=1):
            clock.now += seconds
    with runs.hold(env_steps=1):
        clock.now += 2.0
        with pytest.raises(ServerBusy) as busy, runs.hold(env_steps=1):
            pass
        assert busy.value.wait_seconds == 4  # 6 s typical, 2 s gone
        assert "4 s" in str(busy.value)
        clock.now += 30.0  # running longer than usual: any moment now
        assert runs.wait_seconds() == 1
    fresh = HeavyRuns(Caps(max_heavy_runs=1, heavy_run_env_steps=1), clock=clock)
    with fresh.hold(env_steps=1):
        assert fresh.wait_seconds() == 20  # nothing finished yet: DEFAULT_SECONDS


def test_timing_sweep_size_counts_every_backend():
    # Sync 1+4+64, Async 1+4 (up to 8 envs), native 1+4+64; 3 + 2 + 3 runs of 10 calls.
    assert sweep_size(TimingSettings((1, 4, 64), steps=10)) == (1430, 80)


def test_result_cache_is_bounded_by_bytes():
    frame = pd.DataFrame({"x": np.zeros(10_000)})  # 80 kB of data
    size = approx_bytes(frame)
    assert 80_000 <= size < 90_000
    cache = ResultCache(max_entries=10, max_bytes=int(2.5 * size))
    for key in "abc":
        cache.get_or_compute(key, frame.copy)
    assert "a" not in cache and "b" in cache and "c" in cache  # two fit, by bytes
    assert cache.nbytes <= cache.max_bytes
    cache.get_or_compute("b", frame.copy)  # used again: "c" is now the oldest
    cache.get_or_compute("d", frame.copy)
    assert "c" not in cache and "b" in cache and "d" in cache
    big = pd.DataFrame({"x": np.zeros(100_000)})
    assert cache.get_or_compute("big", lambda: big) is big  # returned, not kept
    assert "big" not in cache and "b" in cache and "d" in cache


def test_approx_bytes_counts_containers_and_shared_objects_once():
    array = np.zeros(1000)
    assert approx_bytes([array, array]) < approx_bytes([array, np.zeros(1000)])
    assert approx_bytes({"k": "x" * 10_000}) >= 10_000


@pytest.fixture
def one_busy_slot(monkeypatch) -> HeavyRuns:
    """The server's heavy-run slots, one in all, taken by another visitor's run."""
    runs = HeavyRuns(Caps(max_heavy_runs=1, heavy_run_env_steps=1_000))
    monkeypatch.setattr(slots, "HEAVY_RUNS", runs)
    with runs.hold(env_steps=1_000):
        yield runs


def test_autoreset_page_says_the_wait_when_the_slots_are_taken(one_busy_slot):
    # A seed no other test uses: the page's shared cache cannot hold this run.
    app = open_app_page("app_pages/autoreset.py", {"n": "64", "steps": "200", "seed": "91357"}, 120)
    app.button(key="autoreset_next_step_skip").click().run()  # the run starts on the reveal
    warnings = [warning.value for warning in app.warning]
    # The wait: 20 s before any heavy run has finished in this process, else from their times.
    assert any(re.search(r"\b\d+ s\b", text) for text in warnings), warnings
    assert not app.exception
    assert one_busy_slot.in_use == 1


def test_goal_scaling_repeated_runs_say_the_wait_when_the_slots_are_taken(one_busy_slot):
    # A seed no other test uses: the page's shared cache cannot hold this run.
    app = open_app_page("app_pages/goal_scaling.py", {"runs": "10", "seed": "9137"}, 120)
    app.button(key="goal_scaling_goals_skip").click().run()
    assert not app.exception
    warnings = [warning.value for warning in app.warning]
    assert any("20 s" in text for text in warnings), warnings
    assert one_busy_slot.in_use == 1


def test_goal_statistics_page_says_the_wait_when_the_slots_are_taken(one_busy_slot):
    query = {"n": "4,8", "steps": "400", "seeds": "1", "backend": "native"}
    assert ScalingSettings((4, 8), steps_per_env=400, seeds=1).planned_env_steps >= 1_000
    app = open_app_page("app_pages/goal_statistics.py", query, 120)
    app.button(key="goal_statistics_run").click().run()
    assert not app.exception
    warnings = [warning.value for warning in app.warning]
    assert any("20 s" in text for text in warnings), warnings
