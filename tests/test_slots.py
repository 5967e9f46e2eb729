"""EnvSlot closes what it replaces, and the Async worker budget is enforced."""

from __future__ import annotations

import gc
import os
import signal

import pytest
from child_processes import worker_pids
from gymnasium.vector import AsyncVectorEnv

from burgerbot import BurgerBotVectorEnv
from burgerbot.app.slots import (
    BudgetExceeded,
    EnvSlot,
    WorkerBudget,
    close_abandoned_slots,
    close_broken_slots,
    close_idle_slots,
    dead_workers,
    reaper_paused,
)
from burgerbot.factories import make_vector_env


@pytest.fixture(autouse=True)
def _no_reaper_meanwhile():
    """The app's reaper thread (started by any slot with workers) acts on every slot of this
    process: these tests call its parts themselves."""
    with reaper_paused():
        yield


def test_same_key_reuses_and_new_key_closes_the_old_env():
    slot = EnvSlot(WorkerBudget(4))
    first = slot.get(("native", 2), lambda: BurgerBotVectorEnv(2))
    slot.state["history"] = [1, 2]
    assert slot.get(("native", 2), lambda: BurgerBotVectorEnv(2)) is first
    second = slot.get(("native", 3), lambda: BurgerBotVectorEnv(3))
    assert first.closed and not second.closed and slot.state == {}
    slot.close()
    assert second.closed and slot.env is None


def test_dropping_the_slot_closes_its_env_and_frees_the_budget():
    budget = WorkerBudget(4)
    slot = EnvSlot(budget)
    env = slot.get("k", lambda: BurgerBotVectorEnv(2), workers=3)
    assert budget.in_use == 3
    del slot
    gc.collect()
    assert env.closed and budget.in_use == 0


def test_budget_refuses_before_building():
    budget = WorkerBudget(4)
    slot = EnvSlot(budget)
    slot.get("a", lambda: BurgerBotVectorEnv(1), workers=3)
    other = EnvSlot(budget)
    built = []
    with pytest.raises(BudgetExceeded, match="limit 4"):
        other.get("b", lambda: built.append(1), workers=2)
    assert built == [] and budget.in_use == 3


def test_a_failing_build_releases_its_budget():
    budget = WorkerBudget(4)

    def broken():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        EnvSlot(budget).get("a", broken, workers=2)
    assert budget.in_use == 0


def test_idle_async_slots_are_closed_and_told_why():
    budget = WorkerBudget(8)
    busy, idle, native = EnvSlot(budget), EnvSlot(budget), EnvSlot(budget)
    busy_env = busy.get("a", lambda: BurgerBotVectorEnv(1), workers=2)
    idle_env = idle.get("b", lambda: BurgerBotVectorEnv(1), workers=2)
    native_env = native.get("c", lambda: BurgerBotVectorEnv(1))
    idle.last_used -= 1_000
    native.last_used -= 1_000
    assert close_idle_slots(500) == 1
    assert idle_env.closed and not busy_env.closed and not native_env.closed
    assert "closed after 500 s" in idle.idle_note and budget.in_use == 2
    again = idle.get("b", lambda: BurgerBotVectorEnv(1), workers=2)
    assert not again.closed and idle.idle_note is None
    for slot in (busy, idle, native):
        slot.close()


def test_an_env_that_took_long_to_start_is_not_idle_when_it_arrives(monkeypatch):
    # Starting Async workers can take longer than the idle limit on a busy server: the
    # env counts as used from the moment it is ready, not from when it was asked for.
    times = [100.0, 100.0]  # the slot is made and asked for at t=100; then the build ends

    def clock() -> float:
        return times.pop(0) if times else 500.0

    monkeypatch.setattr("burgerbot.app.slots.time.monotonic", clock)
    slot = EnvSlot(WorkerBudget(4))
    env = slot.get(("native", 2), lambda: BurgerBotVectorEnv(2), workers=1)
    assert slot.last_used == 500.0
    assert close_idle_slots(300, now=500.0) == 0 and not env.closed
    slot.close()


def test_the_reaper_collects_a_dropped_session_caught_in_a_cycle_while_it_holds_workers():
    # Streamlit's own collection after each run is off (.streamlit/config.toml): a dropped
    # session whose slot sits in a reference cycle is freed by the reaper's collection.
    from burgerbot.app.slots import collect_dropped_slots

    budget = WorkerBudget(4)
    session = {"slot": EnvSlot(budget)}
    session["self"] = session  # a cycle, as Streamlit's session objects have
    env = session["slot"].get("k", lambda: BurgerBotVectorEnv(2), workers=2)
    gc.disable()
    try:
        del session
        assert not env.closed and budget.in_use == 2, "refcounting alone cannot free a cycle"
        assert collect_dropped_slots() is True
        assert env.closed and budget.in_use == 0
        assert collect_dropped_slots() is False, "no workers left: no collection"
    finally:
        gc.enable()


def test_the_app_turns_off_streamlits_collection_after_every_run():
    import tomllib
    from pathlib import Path

    config = tomllib.loads((Path(__file__).parent.parent / ".streamlit/config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False


def test_every_pages_cached_results_together_are_bounded_by_bytes():
    """`server.maxCacheDataSize` bounds all st.cache_data entries together (issue 24, item 1)."""
    import tomllib
    from pathlib import Path

    from streamlit.byte_util import config_max_cache_data_size_to_bytes

    config = tomllib.loads((Path(__file__).parent.parent / ".streamlit/config.toml").read_text())
    budget = config_max_cache_data_size_to_bytes(config["server"].get("maxCacheDataSize"))
    assert budget is not None and 0 < budget <= 128 * 2**20


# --- An Async worker that dies ---------------------------------------------------------------


def _async_slot(
    budget: WorkerBudget, n: int = 3, step_seconds: float = 0.0
) -> tuple[EnvSlot, AsyncVectorEnv]:
    """A slot holding ``n`` BurgerBots in an Async env, each step sleeping ``step_seconds``."""
    slot = EnvSlot(budget)
    env = slot.get(
        ("async", n),
        lambda: make_vector_env("async", n, work_seconds=step_seconds, work_kind="sleep"),
        workers=n,
    )
    env.reset(seed=0)
    return slot, env


def _alive(env: AsyncVectorEnv) -> int:
    return sum(p.is_alive() for p in env.processes)


def _kill(process) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.join(10)


@pytest.mark.parametrize("when", ["mid-step", "between steps"])
def test_a_killed_worker_is_named_and_every_other_worker_ends(when):
    budget = WorkerBudget(8)
    before = worker_pids()
    # Each step sleeps 0.5 s in the workers: the kill lands while worker 1 is inside step().
    slot, env = _async_slot(budget, step_seconds=0.5 if when == "mid-step" else 0.0)
    assert budget.in_use == _alive(env) == 3
    actions = env.action_space.sample()
    if when == "mid-step":
        env.step_async(actions)
        _kill(env.processes[1])
        with pytest.raises((EOFError, OSError)) as failure:
            env.step_wait()
    else:
        _kill(env.processes[1])
        with pytest.raises((EOFError, OSError)) as failure:
            env.step(actions)
    assert budget.in_use == _alive(env) == 2, "a dead worker stops counting at once"
    assert dead_workers(env) == [1]
    message = slot.failure_message("step()", failure.value)
    assert "env 1" in message and "Errno" not in message
    slot.close()  # what the page does: must neither raise nor hang on the broken pipe
    assert env.closed and _alive(env) == 0
    assert budget.in_use == 0 and worker_pids() - before == set()


def test_a_stuck_worker_is_terminated():
    budget = WorkerBudget(8)
    slot, env = _async_slot(budget, n=2, step_seconds=0.5)
    env.processes[0].terminate = lambda: None  # ignores the polite request: killed instead
    env.step_async(env.action_space.sample())
    _kill(env.processes[1])
    with pytest.raises((EOFError, OSError)):
        env.step_wait()
    slot.close()
    assert _alive(env) == 0 and budget.in_use == 0


def test_a_healthy_async_env_is_closed_politely():
    budget = WorkerBudget(8)
    slot, env = _async_slot(budget, n=2)
    env.step(env.action_space.sample())
    processes = list(env.processes)
    slot.close()
    assert env.closed and [p.exitcode for p in processes] == [0, 0]  # not terminated
    assert budget.in_use == 0


def test_the_reaper_closes_an_env_whose_worker_died_and_leaves_a_note():
    budget = WorkerBudget(8)
    broken, _ = _async_slot(budget, n=2)
    healthy, healthy_env = _async_slot(budget, n=2)
    _kill(broken.env.processes[0])
    assert close_broken_slots() == 1
    assert broken.env is None and "env 0" in broken.idle_note
    assert healthy.env is healthy_env and healthy.idle_note is None
    assert budget.in_use == _alive(healthy_env) == 2
    healthy.close()
    assert budget.in_use == 0


# --- An abandoned Async env ----------------------------------------------------------------------


class Tab:
    """A browser tab as the reaper sees it: connected or not."""

    def __init__(self) -> None:
        self.open = True

    def __call__(self) -> bool:
        return self.open


def test_an_async_env_whose_tab_is_gone_is_closed_after_the_grace_time():
    budget = WorkerBudget(8)
    gone_tab, open_tab = Tab(), Tab()
    gone = EnvSlot(budget, connected=gone_tab)
    kept = EnvSlot(budget, connected=open_tab)
    unknown = EnvSlot(budget)  # no server to ask (AppTest): never taken for abandoned
    gone_env = gone.get("a", lambda: BurgerBotVectorEnv(1), workers=2)
    kept_env = kept.get("b", lambda: BurgerBotVectorEnv(1), workers=2)
    unknown_env = unknown.get("c", lambda: BurgerBotVectorEnv(1), workers=2)
    gone_tab.open = False
    assert close_abandoned_slots(60, now=1_000.0) == 0  # first seen gone: the clock starts
    assert close_abandoned_slots(60, now=1_059.0) == 0 and not gone_env.closed
    assert close_abandoned_slots(60, now=1_060.0) == 1
    assert gone_env.closed and "60 s after this page lost its connection" in gone.idle_note
    assert not (kept_env.closed or unknown_env.closed)
    assert budget.in_use == 4
    for slot in (kept, unknown):
        slot.close()


def test_a_tab_that_reconnects_in_time_keeps_its_env():
    budget = WorkerBudget(8)
    tab = Tab()
    slot = EnvSlot(budget, connected=tab)
    env = slot.get("a", lambda: BurgerBotVectorEnv(1), workers=2)
    tab.open = False
    close_abandoned_slots(60, now=1_000.0)
    tab.open = True  # a reconnect within the session TTL
    assert close_abandoned_slots(60, now=1_030.0) == 0
    tab.open = False  # gone again: the grace time starts over
    assert close_abandoned_slots(60, now=1_070.0) == 0 and not env.closed
    assert close_abandoned_slots(60, now=1_130.0) == 1 and env.closed
    assert budget.in_use == 0


def test_the_grace_time_is_the_servers_session_ttl():
    import tomllib
    from pathlib import Path

    from burgerbot.app.slots import session_ttl_seconds

    config = tomllib.loads((Path(__file__).parent.parent / ".streamlit/config.toml").read_text())
    assert session_ttl_seconds() == config["server"]["disconnectedSessionTTL"] == 60


def test_a_gone_sessions_sync_env_is_closed_and_its_sub_environments_freed():
    # The page's last run may still hold the vector env itself (its variables live on in the
    # session): its thousands of sub-environments must go all the same.
    import weakref

    import gymnasium as gym
    from gymnasium.vector import SyncVectorEnv

    tab = Tab()
    slot = EnvSlot(WorkerBudget(8), connected=tab)
    env = slot.get("sync", lambda: SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 3))
    sub_envs = [weakref.ref(e) for e in env.envs]
    tab.open = False
    assert close_abandoned_slots(60, now=0.0) == 0
    assert close_abandoned_slots(60, now=60.0) == 1
    assert env.closed and slot.env is None and slot.idle_note is None  # nobody to tell
    gc.collect()
    assert all(ref() is None for ref in sub_envs)
    assert close_abandoned_slots(60, now=120.0) == 0, "closed once"


def test_the_reaper_collects_after_freeing_and_on_a_timer_while_gone_sessions_linger():
    from burgerbot.app import slots

    gc.collect()  # nothing else of this process lingers as a gone session
    assert slots.collect_dropped_slots(now=1_000.0) is False, "nothing gone: no collection"
    assert slots.collect_dropped_slots(freed=True, now=1_100.0) is True
    tab = Tab()
    lingering = EnvSlot(WorkerBudget(8), connected=tab)
    lingering.get("k", lambda: BurgerBotVectorEnv(1))
    tab.open = False
    close_abandoned_slots(60, now=1_100.0)
    assert slots.collect_dropped_slots(now=1_100.0 + slots.GC_SECONDS - 1) is False
    assert slots.collect_dropped_slots(now=1_100.0 + slots.GC_SECONDS) is True
    lingering.close()


def test_the_reaper_collects_on_its_timer_after_activity_and_gives_memory_back(monkeypatch):
    # A page without an env slot (Auto-reset's runs) leaves cycles too: after the server has
    # been busy, the timer collects them and hands the freed heap back; an idle server is
    # left alone.
    from burgerbot.app import slots

    given_back: list[bool] = []
    monkeypatch.setattr(slots, "give_memory_back", lambda: given_back.append(True) or True)
    monkeypatch.setattr(slots, "_last_collection", 1_000.0)
    gc.collect()  # nothing lingers, no activity since
    assert slots.collect_dropped_slots(now=2_000.0) is False, "idle: no collection"
    monkeypatch.setattr(slots, "_last_collection", 2_000.0)
    gc.collect(1)  # the younger generations were collected: long-lived objects were made
    assert slots.collect_dropped_slots(now=2_000.0 + slots.GC_SECONDS - 1) is False
    assert slots.collect_dropped_slots(now=2_000.0 + slots.GC_SECONDS) is True
    assert given_back == [True]
    assert gc.get_count()[2] == 0


def test_memory_is_given_back_where_glibc_is():
    import platform

    from burgerbot.app.slots import give_memory_back

    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert give_memory_back() is glibc


def test_sessions_past_their_ttl_are_removed_and_shut_down(monkeypatch):
    """Streamlit only hides an expired session; the reaper removes it and shuts it down."""
    import threading
    from types import SimpleNamespace

    import streamlit.runtime
    from streamlit.runtime.caching.ttl_cache import TTLCache

    from burgerbot.app import slots

    clock = [0.0]
    storage = TTLCache(maxsize=128, ttl=10, timer=lambda: clock[0])
    shut = []

    def stored(name: str) -> SimpleNamespace:
        return SimpleNamespace(session=SimpleNamespace(shutdown=lambda: shut.append(name)))

    storage["old"] = stored("old")
    clock[0] = 6.0
    storage["new"] = stored("new")
    loop = SimpleNamespace(call_soon_threadsafe=lambda f: f())  # runs it at once
    manager = SimpleNamespace(
        _storage_lock=threading.Lock(), _session_storage=SimpleNamespace(_cache=storage)
    )
    runtime = SimpleNamespace(
        _session_mgr=manager, _get_async_objs=lambda: SimpleNamespace(eventloop=loop)
    )
    fake = SimpleNamespace(exists=lambda: True, instance=lambda: runtime)
    monkeypatch.setattr(streamlit.runtime, "Runtime", fake)

    assert slots.shut_down_expired_sessions() == 0, "nothing past its TTL yet"
    clock[0] = 12.0  # "old" expired (saved at 0), "new" (saved at 6) still waits
    assert slots.shut_down_expired_sessions() == 1
    assert shut == ["old"]
    assert list(storage._data) == ["new"]
    clock[0] = 30.0
    assert slots.shut_down_expired_sessions() == 1
    assert shut == ["old", "new"] and not storage._data


def test_sync_envs_past_the_server_wide_limit_are_refused_and_closing_frees_them():
    from gymnasium.vector import SyncVectorEnv

    from burgerbot.app.slots import SyncEnvBudget
    from burgerbot.factories import burgerbot_factory

    budget = SyncEnvBudget(limit=5)
    first, second = EnvSlot(sync_budget=budget), EnvSlot(sync_budget=budget)
    env = first.get(
        ("sync", 3), lambda: SyncVectorEnv([burgerbot_factory() for _ in range(3)]), 0, 3
    )
    assert budget.in_use == 3
    built = []
    with pytest.raises(BudgetExceeded):
        second.get(("sync", 3), lambda: built.append(1), 0, 3)
    assert not built, "refused before building"
    assert budget.in_use == 3
    assert second.get(
        ("sync", 2), lambda: SyncVectorEnv([burgerbot_factory(), burgerbot_factory()]), 0, 2
    )
    assert budget.in_use == 5
    first.close()
    assert budget.in_use == 2 and env.closed and env.envs == []
    assert first.get(("native", 64), lambda: BurgerBotVectorEnv(64)) is not None  # not counted
    assert budget.in_use == 2
    second.close()
    assert budget.in_use == 0
    first.close()
