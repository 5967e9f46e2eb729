"""Gymnasium's vector wrappers read `BurgerBotVectorEnv`'s auto-reset mode from its metadata.

Each wrapper a learner would reach for, in each mode it accepts, gives on `BurgerBotVectorEnv`
exactly what it gives on `SyncVectorEnv` over `BurgerBotEnv` (same actions): the same
observations, rewards, flags and infos; and each one that refuses a mode refuses it on both.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers import vector as wrappers

from burgerbot.factories import burgerbot_factory
from burgerbot.vector import BurgerBotVectorEnv

NUM_ENVS, CALLS = 3, 120

WRAPPERS: dict[str, Callable[[Any], Any]] = {
    "RecordEpisodeStatistics": wrappers.RecordEpisodeStatistics,
    "NormalizeObservation": wrappers.NormalizeObservation,
    "NormalizeReward": wrappers.NormalizeReward,
    "ClipReward": lambda env: wrappers.ClipReward(env, min_reward=-1.0, max_reward=1.0),
    "TransformObservation": lambda env: wrappers.TransformObservation(env, lambda obs: obs * 2),
    "DictInfoToList": wrappers.DictInfoToList,
}


def _without_times(infos: Any) -> Any:
    """``infos`` without RecordEpisodeStatistics' wall-clock times (they differ run to run)."""
    if isinstance(infos, dict):
        return {k: _without_times(v) for k, v in infos.items() if k not in ("t", "_t")}
    if isinstance(infos, list):
        return [_without_times(v) for v in infos]
    return infos


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray) and a.dtype == object:
        return a.shape == b.shape and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if a is None or b is None:
        return a is b
    return np.array_equal(a, b)


def _run(envs, mode: AutoresetMode) -> list[tuple]:
    """Every result of ``CALLS`` seeded random calls (DISABLED: ended envs reset by mask)."""
    actions = np.random.default_rng(7).integers(0, 4, size=(CALLS, NUM_ENVS))
    results = [envs.reset(seed=0)]
    for row in actions:
        obs, rewards, terminated, truncated, infos = envs.step(row)
        # A copy: RecordEpisodeStatistics hands out its own `dones` array as infos["_episode"]
        # and clears it in place on a masked reset.
        results.append((obs, rewards, terminated, truncated, copy.deepcopy(_without_times(infos))))
        ended = terminated | truncated
        if mode == AutoresetMode.DISABLED and ended.any():
            results.append(envs.reset(options={"reset_mask": ended}))
    envs.close()
    return results


def _logged(results: list[tuple]) -> list[tuple[int, float, int]]:
    """(env, return, length) of each episode the wrapper reported, in order."""
    found = []
    for result in results:
        if len(result) == 5 and "_episode" in result[4]:
            stats = result[4]["episode"]
            for env in np.flatnonzero(result[4]["_episode"]):
                found.append((int(env), round(float(stats["r"][env]), 6), int(stats["l"][env])))
    return found


def _episodes_from_rows(results: list[tuple]) -> list[tuple[int, float, int]]:
    """(env, return, length) of each episode, summed from the rows (DISABLED: all are real)."""
    returns, lengths, found = np.zeros(NUM_ENVS), np.zeros(NUM_ENVS, dtype=int), []
    for result in results:
        if len(result) != 5:
            continue
        _, rewards, terminated, truncated, _ = result
        returns += rewards
        lengths += 1
        for env in np.flatnonzero(terminated | truncated):
            found.append((int(env), round(float(returns[env]), 6), int(lengths[env])))
            returns[env], lengths[env] = 0.0, 0
    return found


def _wrapped(name: str, backend: str, mode: AutoresetMode):
    if backend == "native":
        inner = BurgerBotVectorEnv(NUM_ENVS, autoreset_mode=mode)
    else:
        inner = SyncVectorEnv([burgerbot_factory() for _ in range(NUM_ENVS)], autoreset_mode=mode)
    try:
        return WRAPPERS[name](inner)
    except Exception:
        inner.close()
        raise


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_the_native_env_declares_its_mode_as_sync_does(mode):
    native = BurgerBotVectorEnv(NUM_ENVS, autoreset_mode=mode)
    sync = SyncVectorEnv([burgerbot_factory() for _ in range(NUM_ENVS)], autoreset_mode=mode)
    assert native.metadata["autoreset_mode"] is mode is sync.metadata["autoreset_mode"]
    native.close()
    sync.close()


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
@pytest.mark.parametrize("name", list(WRAPPERS))
def test_each_wrapper_gives_the_native_env_the_sync_result_or_refuses_both(name, mode):
    outcomes = {}
    for backend in ("sync", "native"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                outcomes[backend] = ("ran", _run(_wrapped(name, backend, mode), mode))
            except Exception as error:  # the wrapper refused this mode (or a reset_mask)
                outcomes[backend] = ("refused", f"{type(error).__name__}: {error}".split(",")[0])
        # Declared metadata: no wrapper has to guess the mode.
        assert not [w for w in caught if "autoreset_mode" in str(w.message)], name
    (sync_kind, sync_result), (native_kind, native_result) = outcomes.values()
    assert sync_kind == native_kind, outcomes
    if sync_kind == "refused":
        assert sync_result == native_result
        return
    if (name, mode) == ("RecordEpisodeStatistics", AutoresetMode.DISABLED):
        # SyncVectorEnv pops "reset_mask" out of the caller's options, so the wrapper above it
        # sees a full reset and restarts every env's return: the one known difference, and
        # the native env is the one that gets the episodes right (checked below).
        assert _logged(native_result) == _episodes_from_rows(native_result)
        assert _logged(sync_result) != _episodes_from_rows(sync_result)
        return
    assert len(sync_result) == len(native_result)
    for sync_row, native_row in zip(sync_result, native_result, strict=True):
        assert all(map(_same, sync_row, native_row)), (sync_row, native_row)


def test_without_the_metadata_entry_the_wrappers_warn_and_assume_next_step():
    # What item 6 prevents: a vector env that does not declare its mode.
    envs = BurgerBotVectorEnv(NUM_ENVS, autoreset_mode=AutoresetMode.SAME_STEP)
    envs.metadata = {k: v for k, v in envs.metadata.items() if k != "autoreset_mode"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wrapped = wrappers.RecordEpisodeStatistics(envs)
    assert any("assuming" in str(w.message) for w in caught)
    assert wrapped._autoreset_mode is AutoresetMode.NEXT_STEP
    wrapped.close()
