"""Wrapping a vector env: where a wrapper goes, logging returns right, which wrapper works where.

Everything here runs the installed gymnasium live on BurgerBot: the ``infos`` each placement of
``RecordEpisodeStatistics`` gives, three logging loops checked against returns summed from the
raw rows, each vector wrapper tried in each auto-reset mode, and ``NormalizeObservation``'s
statistics during evaluation, frozen or not. Nothing here imports streamlit.
"""

from __future__ import annotations

import copy
import re
import warnings
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import altair as alt
import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv
from gymnasium.wrappers import vector as vector_wrappers
from gymnasium.wrappers.utils import RunningMeanStd

from burgerbot import world
from burgerbot.app.labels import counted
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.settings import ChoiceSetting, IntSetting, parse_values
from burgerbot.checks import MAX_SEED
from burgerbot.factories import burgerbot_factory
from burgerbot.vector import BurgerBotVectorEnv

__all__ = [
    "BACKEND_CHOICES",
    "EVAL_CALLS",
    "LOG_MODES",
    "LOOPS",
    "OPTIONS",
    "PREDICTED_MODE",
    "PREDICTED_WRAPPER",
    "SPECS",
    "START_OBS",
    "TABLE_CALLS",
    "TABLE_MODES",
    "UNDECLARED",
    "WRAPPERS",
    "Calls",
    "EndInfos",
    "EvaluationDrift",
    "LoopCheck",
    "VectorWrapperSettings",
    "WrapperCheck",
    "check_loop",
    "check_wrapper",
    "drift_chart",
    "episodes_from_rows",
    "evaluation_drift",
    "every_loop_check",
    "infos_at_first_end",
    "loop_sentence",
    "make_vector",
    "prediction_truth",
    "question",
    "random_actions",
    "record",
    "resolve_settings",
    "run_loop",
    "sync_takes_the_reset_mask",
    "takeaway_bullets",
    "widget_values",
    "wrapper_table",
]

MODES = ("NEXT_STEP", "SAME_STEP", "DISABLED")
LOG_MODES = ("NEXT_STEP", "SAME_STEP")
"""The modes that restart by themselves: the logging sections offer these."""
UNDECLARED = "SAME_STEP, undeclared"
"""A SAME_STEP vector env whose metadata does not say so (the wrappers must guess)."""
TABLE_MODES = (*MODES, UNDECLARED)
BACKEND_CHOICES = ("sync", "native")
START_OBS = world.START_OBSERVATION
"""Every BurgerBot's first observation."""
EVAL_CALLS = 60
"""The evaluation run's length in section 4."""
TABLE_CALLS = 150
"""At most this many calls per run in the table (24 wrapped runs: the page stays quick)."""

SPECS = (
    IntSetting("n", "NUM_ENVS", 4, 1, 8),
    IntSetting("steps", "step() calls", 300, 20, 600),
    IntSetting("seed", "Seed", 0, 0, MAX_SEED),
    ChoiceSetting("backend", "Backend", "sync", BACKEND_CHOICES),
    ChoiceSetting("mode", "Auto-reset mode", "NEXT_STEP", LOG_MODES),
)


@dataclass(frozen=True)
class VectorWrapperSettings:
    """What the page runs: NUM_ENVS robots, ``steps`` seeded random calls, on ``backend``."""

    num_envs: int
    steps: int
    seed: int
    backend: str
    mode: str


def resolve_settings(values: Mapping[str, Any]) -> tuple[VectorWrapperSettings, list[str]]:
    """The page's settings from its widgets' (or URL's) values, with a note for each change.

    Example:
        >>> resolve_settings({"n": 9, "steps": 300, "seed": 0, "backend": "sync",
        ...                   "mode": "SAME_STEP"})
        (VectorWrapperSettings(num_envs=8, steps=300, seed=0, backend='sync', mode='SAME_STEP'), ['`n=9` is outside 1..8: using 8.'])
    """  # noqa: E501
    picked, notes = parse_values(SPECS, values)
    return (
        VectorWrapperSettings(
            picked["n"], picked["steps"], picked["seed"], picked["backend"], picked["mode"]
        ),
        notes,
    )


def widget_values(settings: VectorWrapperSettings) -> dict[str, Any]:
    """The settings by URL key, so that each widget shows the value really used."""
    return {
        "n": settings.num_envs,
        "steps": settings.steps,
        "seed": settings.seed,
        "backend": settings.backend,
        "mode": settings.mode,
    }


# --- Building and recording runs ----------------------------------------------------------


def _real_mode(mode: str) -> AutoresetMode:
    return AutoresetMode.SAME_STEP if mode == UNDECLARED else AutoresetMode[mode]


def make_vector(backend: str, mode: str, num_envs: int, *, stats_inside: bool = False) -> VectorEnv:
    """BurgerBots in a vector env of ``backend`` ("sync" or "native") in ``mode``.

    Args:
        backend: "sync" (SyncVectorEnv over the factory) or "native" (BurgerBotVectorEnv).
        mode: One of `TABLE_MODES`; `UNDECLARED` is SAME_STEP with the metadata entry removed.
        num_envs: How many robots.
        stats_inside: Wrap each sub-env in ``gymnasium.wrappers.RecordEpisodeStatistics``
            inside the factory (Sync only: the native env has no sub-envs).
    """
    if backend == "native":
        if stats_inside:
            raise ValueError("BurgerBotVectorEnv has no sub-env factory to wrap")
        envs: VectorEnv = BurgerBotVectorEnv(num_envs, autoreset_mode=_real_mode(mode))
    else:
        factory = burgerbot_factory()

        def with_stats() -> gym.Env:
            return gym.wrappers.RecordEpisodeStatistics(factory())

        thunk = with_stats if stats_inside else factory
        envs = SyncVectorEnv([thunk] * num_envs, autoreset_mode=_real_mode(mode))
    if mode == UNDECLARED:
        envs.metadata = {k: v for k, v in envs.metadata.items() if k != "autoreset_mode"}
    return envs


def random_actions(num_envs: int, steps: int, seed: int) -> np.ndarray:
    """The page's actions: ``np.random.default_rng(seed).integers(0, 4, (steps, num_envs))``."""
    return np.random.default_rng(seed).integers(0, 4, size=(steps, num_envs))


@dataclass
class Calls:
    """Everything a run returned: the reset, then one entry per ``step()`` call.

    ``resets[t]`` is the observation batch of the masked reset made after call ``t``
    (DISABLED only), or None.
    """

    first_obs: np.ndarray
    obs: list[np.ndarray] = field(default_factory=list)
    rewards: list[np.ndarray] = field(default_factory=list)
    terminated: list[np.ndarray] = field(default_factory=list)
    truncated: list[np.ndarray] = field(default_factory=list)
    infos: list[Any] = field(default_factory=list)
    resets: list[np.ndarray | None] = field(default_factory=list)


def record(
    envs: VectorEnv,
    actions: np.ndarray,
    mode: str,
    seed: int = 0,
    on_call: Callable[[int, Any], None] | None = None,
) -> Calls:
    """Reset ``envs``, step them through ``actions``, keep every result, close them.

    In DISABLED mode the envs that ended are reset with a mask after each call. Each
    ``infos`` is deep-copied: RecordEpisodeStatistics hands out its own ``dones`` array as
    ``infos["_episode"]`` and clears it in place on a masked reset.
    """
    try:
        obs, _ = envs.reset(seed=seed)
        calls = Calls(first_obs=np.array(obs))
        for t, row in enumerate(actions, start=1):
            obs, rewards, terminated, truncated, infos = envs.step(row)
            calls.obs.append(np.array(obs))
            calls.rewards.append(np.array(rewards))
            calls.terminated.append(np.array(terminated))
            calls.truncated.append(np.array(truncated))
            calls.infos.append(copy.deepcopy(infos))
            if on_call is not None:
                on_call(t, infos)
            ended = np.logical_or(terminated, truncated)
            if mode == "DISABLED" and ended.any():
                calls.resets.append(np.array(envs.reset(options={"reset_mask": ended})[0]))
            else:
                calls.resets.append(None)
        return calls
    finally:
        envs.close()


def episodes_from_rows(calls: Calls, mode: str) -> pd.DataFrame:
    """Each finished episode summed from the raw rows: env, the call it ended on, return, length.

    In NEXT_STEP mode the call after an episode's end is the reset row (reward 0, not a
    transition): it belongs to no episode. In the other modes every row is a transition.
    """
    num_envs = len(calls.first_obs)
    returns = np.zeros(num_envs)
    lengths = np.zeros(num_envs, dtype=int)
    reset_row = np.zeros(num_envs, dtype=bool)
    next_step = _real_mode(mode) == AutoresetMode.NEXT_STEP
    rows = []
    for t, (rewards, terminated, truncated) in enumerate(
        zip(calls.rewards, calls.terminated, calls.truncated, strict=True), start=1
    ):
        real = ~reset_row
        returns[real] += rewards[real]
        lengths[real] += 1
        ended = (terminated | truncated) & real
        for env in np.flatnonzero(ended):
            rows.append((int(env), t, round(float(returns[env]), 6), int(lengths[env])))
        returns[ended], lengths[ended] = 0.0, 0
        reset_row = ended if next_step else np.zeros(num_envs, dtype=bool)
    return pd.DataFrame(rows, columns=["env", "call", "return", "length"])


# --- 1. Where a wrapper goes ---------------------------------------------------------------


def _text(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return str(value.tolist())
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, float | np.floating):
        return f"{float(value):g}"
    return str(value)


# The wall-clock time and the per-field masks: left out of the tables (noise, and repeats
# of `_episode`).
_LEFT_OUT = {"t", "_t", "_r", "_l"}


def _flat(infos: Mapping[str, Any], prefix: str = "infos") -> dict[str, Any]:
    """``{'infos["episode"]["r"]': array, ...}``: each array in ``infos``, by its access path."""
    flat: dict[str, Any] = {}
    for key, value in infos.items():
        if key in _LEFT_OUT:
            continue
        path = f'{prefix}["{key}"]'
        if isinstance(value, Mapping):
            inner = _flat(value, path)
            flat.update(inner if inner else {path: "{}"})
        else:
            flat[path] = value
    return flat


def _per_env(infos: Mapping[str, Any], num_envs: int) -> pd.DataFrame:
    """One row per array in ``infos``, one column per env (its element, as text); no rows for
    an empty ``infos``."""
    rows = []
    for path, value in _flat(infos).items():
        cells = (
            [_text(value[i]) for i in range(num_envs)]
            if isinstance(value, np.ndarray) and len(value) == num_envs
            else [_text(value)] * num_envs
        )
        rows.append([path, *cells])
    return pd.DataFrame(rows, columns=["key", *[f"env {i}" for i in range(num_envs)]])


@dataclass(frozen=True)
class EndInfos:
    """What ``infos`` held on the first call that ended an episode and was followed by a call
    that ended none, and on that next call."""

    call: int
    ended: tuple[int, ...]
    ending: pd.DataFrame
    after: pd.DataFrame

    @property
    def stats_at(self) -> str | None:
        """Where the ending call put the episode's statistics, e.g. ``infos["episode"]``."""
        for key in self.ending["key"]:
            if key.endswith('["episode"]["r"]'):
                return key.removesuffix('["r"]')
        return None


def infos_at_first_end(
    backend: str, mode: str, placement: str, num_envs: int, steps: int, seed: int
) -> EndInfos | None:
    """Run with RecordEpisodeStatistics ``placement`` ("factory" or "vector"); None if no end.

    Raises:
        ValueError: ``placement="factory"`` on the native backend (it has no factory).
    """
    envs = make_vector(backend, mode, num_envs, stats_inside=placement == "factory")
    if placement == "vector":
        envs = vector_wrappers.RecordEpisodeStatistics(envs)
    calls = record(envs, random_actions(num_envs, steps, seed), mode, seed)
    for t in range(len(calls.infos) - 1):
        ended = calls.terminated[t] | calls.truncated[t]
        ends_next = (calls.terminated[t + 1] | calls.truncated[t + 1]).any()
        if ended.any() and not ends_next:
            return EndInfos(
                call=t + 1,
                ended=tuple(int(i) for i in np.flatnonzero(ended)),
                ending=_per_env(calls.infos[t], num_envs),
                after=_per_env(calls.infos[t + 1], num_envs),
            )
    return None


# --- 2. Logging returns right ----------------------------------------------------------------

LOOPS = {
    "right": "the vector wrapper, read by its `_episode` mask",
    "final_info": 'the factory wrapper, read from `infos["final_info"]` (CleanRL style)',
    "both": "the wrapper in both places, read from both keys",
}
"""The logging loops section 2 runs, by name."""


def _log_vector(infos: Mapping[str, Any], call: int, found: list) -> None:
    if "_episode" in infos:
        stats = infos["episode"]
        for env in np.flatnonzero(infos["_episode"]):
            found.append((int(env), call, round(float(stats["r"][env]), 6), int(stats["l"][env])))


def _log_final_info(infos: Mapping[str, Any], call: int, found: list) -> None:
    if "final_info" in infos and "_episode" in infos["final_info"]:
        _log_vector(infos["final_info"], call, found)


def run_loop(loop: str, backend: str, mode: str, num_envs: int, steps: int, seed: int):
    """Run the logging loop ``loop`` (a key of `LOOPS`); returns (logged episodes, error).

    "right" runs on ``backend``; the other two need a factory, so they run on Sync.
    """
    found: list[tuple] = []
    envs: VectorEnv
    if loop == "right":
        envs = vector_wrappers.RecordEpisodeStatistics(make_vector(backend, mode, num_envs))
        read: Callable = _log_vector
    elif loop == "final_info":
        envs = make_vector("sync", mode, num_envs, stats_inside=True)
        read = _log_final_info
    else:
        inner = make_vector("sync", mode, num_envs, stats_inside=True)
        envs = vector_wrappers.RecordEpisodeStatistics(inner)

        def read(infos: Mapping[str, Any], call: int, found: list) -> None:
            _log_vector(infos, call, found)
            _log_final_info(infos, call, found)

    error = None
    try:
        record(
            envs,
            random_actions(num_envs, steps, seed),
            mode,
            seed,
            on_call=lambda t, infos: read(infos, t, found),
        )
    except Exception as exc:  # a loop that stops is one of the results shown
        error = f"{type(exc).__name__}: {exc}"
    logged = pd.DataFrame(found, columns=["env", "call", "return", "length"])
    return logged, error


@dataclass(frozen=True)
class LoopCheck:
    """One logging loop's episodes against the episodes summed from the raw rows."""

    loop: str
    mode: str
    finished: int
    logged: int
    missed: pd.DataFrame
    extra: pd.DataFrame
    twice: int
    error: str | None

    @property
    def right(self) -> bool:
        return self.error is None and self.missed.empty and self.extra.empty


def _rows(frame: pd.DataFrame) -> Counter:
    return Counter(map(tuple, frame[["env", "call", "return", "length"]].itertuples(index=False)))


def check_loop(loop: str, mode: str, logged: pd.DataFrame, truth: pd.DataFrame, error=None):
    """Compare, episode by episode: which real episodes were missed, which logged extra."""
    got, want = _rows(logged), _rows(truth)
    missed = pd.DataFrame(list((want - got).elements()), columns=list(truth.columns))
    extra_rows = list((got - want).elements())
    twice = sum(1 for row in extra_rows if row in want)
    return LoopCheck(
        loop,
        mode,
        finished=len(truth),
        logged=len(logged),
        missed=missed.sort_values(["call", "env"]).reset_index(drop=True),
        extra=pd.DataFrame(extra_rows, columns=list(truth.columns)),
        twice=twice,
        error=error,
    )


def every_loop_check(backend: str, num_envs: int, steps: int, seed: int) -> list[LoopCheck]:
    """`check_loop` for every loop in `LOOPS` in both `LOG_MODES`, with the same actions; the
    wrong loops need a factory, so they and their truth run on SyncVectorEnv."""
    checks = []
    actions = random_actions(num_envs, steps, seed)
    for mode in LOG_MODES:
        for loop in LOOPS:
            truth_backend = backend if loop == "right" else "sync"
            raw = record(make_vector(truth_backend, mode, num_envs), actions, mode, seed)
            logged, error = run_loop(loop, backend, mode, num_envs, steps, seed)
            checks.append(check_loop(loop, mode, logged, episodes_from_rows(raw, mode), error))
    return checks


def loop_sentence(check: LoopCheck) -> str:
    """What the loop did, with the evidence (computed from ``check``)."""
    if check.error is not None:
        return (
            f"It stopped on the first episode end with `{check.error.split(': ')[0]}` "
            f"({check.logged} logged before that, of {check.finished} finished)."
        )
    if check.right:
        return (
            f"Right: {check.logged} episodes logged, the same {check.finished} that the raw rows "
            "give, each with the same return and length."
        )
    parts = [f"Wrong: {check.logged} episodes logged for {check.finished} finished"]
    if len(check.missed):
        first = check.missed.iloc[0]
        parts.append(
            f"{len(check.missed)} missed (the first: env {int(first['env'])}, ending on call "
            f"{int(first['call'])}, return {float(first['return']):g}, length "
            f"{int(first['length'])})"
        )
    if check.twice:
        parts.append(f"{check.twice} counted twice")
    others = len(check.extra) - check.twice
    if others:
        parts.append(f"{others} logged that never happened as logged")
    return "; ".join(parts) + "."


# --- 3. Which wrapper works in which mode ----------------------------------------------------

PREDICTED_WRAPPER, PREDICTED_MODE = "NormalizeObservation", "SAME_STEP"
OPTIONS = ("It works as in NEXT_STEP", "It warns and carries on", "It refuses with an error")
_VERDICT_OPTION = {"accepted": OPTIONS[0], "warned": OPTIONS[1], "refused": OPTIONS[2]}


def question() -> str:
    return (
        f"You wrap a {PREDICTED_MODE} vector env in "
        f"`gymnasium.wrappers.vector.{PREDICTED_WRAPPER}`. What does the installed gymnasium do?"
    )


def _transform(obs: np.ndarray) -> np.ndarray:
    return obs * 2


WRAPPERS: dict[str, Callable[[VectorEnv], VectorEnv]] = {
    "RecordEpisodeStatistics": vector_wrappers.RecordEpisodeStatistics,
    "NormalizeObservation": vector_wrappers.NormalizeObservation,
    "NormalizeReward": vector_wrappers.NormalizeReward,
    "ClipReward": lambda env: vector_wrappers.ClipReward(env, min_reward=-1.0, max_reward=1.0),
    "TransformObservation": lambda env: vector_wrappers.TransformObservation(env, _transform),
    "DictInfoToList": vector_wrappers.DictInfoToList,
}
"""Each wrapper as the table builds it (TransformObservation doubles the observation)."""

RIGHT_MEANS = {
    "RecordEpisodeStatistics": "each episode's return and length equal those summed from the "
    "raw rows",
    "NormalizeObservation": "its running mean and variance equal those of every observation "
    "the unwrapped env returned",
    "NormalizeReward": "its return statistics equal those of each env's running discounted "
    "return over its transitions (reset rows left out), restarting at 0 at every episode "
    "start (gymnasium's single-env NormalizeReward carries it into the next episode instead, "
    "a quirk it keeps for backward compatibility)",
    "ClipReward": "every reward equals the raw reward clipped to [-1, 1]",
    "TransformObservation": "every observation, and every final observation in infos, is the "
    "raw one doubled",
    "DictInfoToList": "each env's dict holds exactly the infos entries its masks mark, with the "
    "same values",
}


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _clean(text: str) -> str:
    return _ANSI.sub("", text).replace("WARN: ", "").strip()


@dataclass(frozen=True)
class WrapperCheck:
    """One wrapper in one mode: accepted, warned or refused; and whether its result is right."""

    wrapper: str
    mode: str
    verdict: str
    right: bool | None
    detail: str
    said: str = ""
    """Gymnasium's own words: the error it raised or the warnings it gave ("" if none)."""


def _episodes_logged(calls: Calls) -> pd.DataFrame:
    found: list[tuple] = []
    for t, infos in enumerate(calls.infos, start=1):
        _log_vector(infos, t, found)
    return pd.DataFrame(found, columns=["env", "call", "return", "length"])


def _all_obs(calls: Calls) -> np.ndarray:
    parts = [calls.first_obs, *calls.obs, *[r for r in calls.resets if r is not None]]
    return np.concatenate(parts).astype(np.float64)


def _check_stats(wrapped: Any, calls: Calls, raw: Calls, mode: str) -> tuple[bool, str]:
    logged, truth = _episodes_logged(calls), episodes_from_rows(raw, mode)
    check = check_loop("table", mode, logged, truth)
    if check.right:
        everything = "" if check.finished == 1 else "all "
        return True, f"{everything}{counted(check.finished, 'episode')} right"
    return False, loop_sentence(check).removeprefix("Wrong: ")


def _check_obs_stats(wrapped: Any, calls: Calls, raw: Calls, mode: str) -> tuple[bool, str]:
    obs = _all_obs(raw)
    mean, var = obs.mean(axis=0), obs.var(axis=0)
    got_mean, got_var = wrapped.obs_rms.mean, wrapped.obs_rms.var
    right = bool(np.allclose(got_mean, mean, atol=1e-3) and np.allclose(got_var, var, atol=1e-3))
    shown = f"mean {np.round(got_mean, 3).tolist()}"
    if right:
        return True, f"{shown}, as the {len(obs):,} raw observations give"
    return False, f"{shown}, the raw observations give {np.round(mean, 3).tolist()}"


def _reference_return_stats(raw: Calls, mode: str, gamma: float) -> RunningMeanStd:
    """The return statistics NormalizeReward should keep: each env's running discounted return
    (gymnasium's own update, ``return * gamma * (1 - terminated) + reward``) over its
    transitions, call by call, restarting at 0 at every episode start. Gymnasium's single-env
    NormalizeReward instead carries it into the next episode (kept "for backward
    compatibility", its source says); the vector one restarts it in SAME_STEP on purpose."""
    num_envs = len(raw.first_obs)
    rms = RunningMeanStd(shape=())
    accumulated = np.zeros(num_envs)
    starting = np.ones(num_envs, dtype=bool)
    reset_row = np.zeros(num_envs, dtype=bool)
    next_step = _real_mode(mode) == AutoresetMode.NEXT_STEP
    for rewards, terminated, truncated in zip(
        raw.rewards, raw.terminated, raw.truncated, strict=True
    ):
        real = ~reset_row
        carried = np.where(starting, 0.0, accumulated * gamma * (1 - terminated))
        accumulated[real] = carried[real] + rewards[real]
        if real.any():
            rms.update(accumulated[real])
        ended = (terminated | truncated) & real
        starting = np.where(real, ended, starting)
        reset_row = ended if next_step else np.zeros(num_envs, dtype=bool)
    return rms


def _check_return_stats(wrapped: Any, calls: Calls, raw: Calls, mode: str) -> tuple[bool, str]:
    expected = _reference_return_stats(raw, mode, wrapped.gamma)
    got = wrapped.return_rms
    right = bool(np.isclose(got.var, expected.var, rtol=1e-6) and got.count == expected.count)
    shown = f"return variance {float(got.var):.4g} over {int(got.count):,} updates"
    if right:
        return True, shown + ", as expected"
    return False, f"{shown}; expected {float(expected.var):.4g} over {int(expected.count):,}"


def _check_clip(wrapped: Any, calls: Calls, raw: Calls, mode: str) -> tuple[bool, str]:
    wrong = sum(
        not np.array_equal(got, np.clip(want, -1.0, 1.0))
        for got, want in zip(calls.rewards, raw.rewards, strict=True)
    )
    if not wrong:
        return True, f"all {len(calls.rewards) * len(calls.first_obs):,} rewards clipped"
    return False, f"{wrong} calls with rewards other than the clipped raw ones"


def _final_obs(infos: Mapping[str, Any]) -> list[tuple[int, np.ndarray]]:
    if "_final_obs" not in infos:
        return []
    return [(int(i), infos["final_obs"][i]) for i in np.flatnonzero(infos["_final_obs"])]


def _check_transform(wrapped: Any, calls: Calls, raw: Calls, mode: str) -> tuple[bool, str]:
    pairs = zip(calls.obs, raw.obs, strict=True)
    wrong_obs = sum(not np.array_equal(got, _transform(want)) for got, want in pairs)
    finals = [
        (got[1], want[1])
        for got_infos, raw_infos in zip(calls.infos, raw.infos, strict=True)
        for got, want in zip(_final_obs(got_infos), _final_obs(raw_infos), strict=True)
    ]
    wrong_finals = sum(not np.array_equal(got, _transform(want)) for got, want in finals)
    if not wrong_obs and not wrong_finals:
        extra = f" and {len(finals)} final observations" if finals else ""
        return True, f"every observation{extra} doubled"
    if not wrong_finals:
        return False, f"{wrong_obs} calls' observations not doubled"
    # An all-zero observation reads the same doubled or not: it shows neither way, so it is
    # not counted as doubled (BurgerBot ends many episodes at [0, 0, 0, 0]).
    either = sum(
        np.array_equal(got, want) and np.array_equal(want, _transform(want)) for got, want in finals
    )
    said = f"{wrong_finals} of {len(finals)} final observations in infos left as they were"
    if either:
        which = "the other" if wrong_finals + either == len(finals) else "and"
        said += f"; {which} {either} are all zeros, the same doubled or not"
    return False, said


def _masked_entries(infos: Mapping[str, Any], num_envs: int) -> list[dict[str, Any]]:
    """What each env's dict should hold: the entries whose ``_key`` mask is True for it."""
    entries: list[dict[str, Any]] = [{} for _ in range(num_envs)]
    for key, value in infos.items():
        if key.startswith("_"):
            continue
        mask = infos.get(f"_{key}", np.zeros(num_envs, dtype=bool))
        for env in np.flatnonzero(mask):
            entries[env][key] = (
                _masked_entries(value, num_envs)[env] if isinstance(value, Mapping) else value[env]
            )
    return entries


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping):
        return isinstance(b, Mapping) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(np.array_equal(a, b))


def _check_list(wrapped: Any, calls: Calls, raw: Calls, mode: str) -> tuple[bool, str]:
    num_envs = len(raw.first_obs)
    wrong = sum(
        not all(map(_same, got, _masked_entries(want, num_envs)))
        for got, want in zip(calls.infos, raw.infos, strict=True)
    )
    filled = sum(bool(entry) for infos in calls.infos for entry in infos)
    if not wrong:
        return True, f"{filled} non-empty env dicts, each as the masks say"
    return False, f"{wrong} calls whose lists differ from the masked infos"


_CHECKS = {
    "RecordEpisodeStatistics": _check_stats,
    "NormalizeObservation": _check_obs_stats,
    "NormalizeReward": _check_return_stats,
    "ClipReward": _check_clip,
    "TransformObservation": _check_transform,
    "DictInfoToList": _check_list,
}


def check_wrapper(
    name: str,
    backend: str,
    mode: str,
    num_envs: int,
    steps: int,
    seed: int,
    raw: Calls | None = None,
) -> WrapperCheck:
    """Wrap a fresh vector env in ``name`` in ``mode`` and run it; compare with the raw run.

    Refused: wrapping it, or a call during the run, raised (the real error is ``said``).
    Warned: it ran, with a warning (its text is ``said``). Either way a run is checked against
    the same actions on the unwrapped env (`RIGHT_MEANS` says what "right" is for each wrapper);
    ``raw`` is that unwrapped run, when already made.
    """
    actions = random_actions(num_envs, steps, seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        envs = make_vector(backend, mode, num_envs)
        try:
            wrapped = WRAPPERS[name](envs)
        except Exception as exc:
            envs.close()
            return WrapperCheck(name, mode, "refused", None, "", f"{type(exc).__name__}: {exc}")
        run_mode = "DISABLED" if mode == "DISABLED" else "other"
        try:
            calls = record(wrapped, actions, run_mode, seed)
        except Exception as exc:
            return WrapperCheck(
                name, mode, "refused", None, "while running", f"{type(exc).__name__}: {exc}"
            )
    if raw is None:
        raw = record(make_vector(backend, mode, num_envs), actions, run_mode, seed)
    right, detail = _CHECKS[name](wrapped, calls, raw, mode)
    texts = list(dict.fromkeys(_clean(str(w.message)) for w in caught))
    if texts:
        return WrapperCheck(name, mode, "warned", right, detail, " / ".join(texts))
    return WrapperCheck(name, mode, "accepted", right, detail)


def wrapper_table(
    backend: str, num_envs: int, steps: int, seed: int, progress: Callable | None = None
) -> pd.DataFrame:
    """`check_wrapper` for every wrapper in `WRAPPERS` and every mode in `TABLE_MODES`."""
    rows = []
    actions = random_actions(num_envs, steps, seed)
    raw_runs = {  # one unwrapped run per mode, shared by the wrappers
        mode: record(make_vector(backend, mode, num_envs), actions, mode, seed)
        for mode in TABLE_MODES
    }
    pairs = [(name, mode) for name in WRAPPERS for mode in TABLE_MODES]
    for index, (name, mode) in enumerate(pairs):
        if progress is not None:
            progress(index / len(pairs), f"{name} in {mode}")
        check = check_wrapper(name, backend, mode, num_envs, steps, seed, raw_runs[mode])
        rows.append(
            {
                "wrapper": name,
                "mode": mode,
                "verdict": check.verdict,
                "right": {None: "—", True: "yes", False: "no"}[check.right],
                "said": check.said,
                "detail": check.detail,
            }
        )
    return pd.DataFrame(rows)


def sync_takes_the_reset_mask() -> bool:
    """Whether ``SyncVectorEnv.reset`` removes ``reset_mask`` from the options dict it is
    given (checked live): a wrapper around it then sees a full reset."""
    envs = make_vector("sync", "DISABLED", 2)
    try:
        envs.reset(seed=0)
        options = {"reset_mask": np.array([True, False])}
        envs.reset(options=options)
        return "reset_mask" not in options
    finally:
        envs.close()


def prediction_truth(table: pd.DataFrame) -> str:
    """The option the live table makes true for the page's prediction."""
    row = table[(table["wrapper"] == PREDICTED_WRAPPER) & (table["mode"] == PREDICTED_MODE)]
    return _VERDICT_OPTION[row["verdict"].iloc[0]]


# --- 4. Normalisation and evaluation -----------------------------------------------------------


@dataclass(frozen=True)
class EvaluationDrift:
    """How the start observation's normalised value moves during evaluation, frozen or not.

    ``drift`` has one row per evaluation call and setting: the largest change of any of the
    start observation's four normalised numbers since the end of training.
    """

    train_count: int
    start_after_training: tuple[float, ...]
    drift: pd.DataFrame

    def largest(self, setting: str) -> float:
        return float(self.drift.loc[self.drift["statistics"] == setting, "change"].max())


def _normalised_start(rms: RunningMeanStd, epsilon: float) -> np.ndarray:
    return (np.array(START_OBS) - rms.mean) / np.sqrt(rms.var + epsilon)


def evaluation_drift(num_envs: int, train_calls: int, seed: int) -> EvaluationDrift:
    """Train-time statistics from random actions, then `EVAL_CALLS` calls of another policy
    (always forward) with the statistics still updating, and with them frozen."""
    train = vector_wrappers.NormalizeObservation(BurgerBotVectorEnv(num_envs))
    record(train, random_actions(num_envs, train_calls, seed), "NEXT_STEP", seed)
    before = _normalised_start(train.obs_rms, train.epsilon)
    rows = []
    for setting, update in (("keep updating", True), ("frozen", False)):
        evaluate = vector_wrappers.NormalizeObservation(BurgerBotVectorEnv(num_envs))
        evaluate.obs_rms = copy.deepcopy(train.obs_rms)
        evaluate.update_running_mean = update
        try:
            evaluate.reset(seed=seed)
            forward = np.zeros(num_envs, dtype=np.int64)
            for t in range(1, EVAL_CALLS + 1):
                evaluate.step(forward)
                now = _normalised_start(evaluate.obs_rms, evaluate.epsilon)
                rows.append((setting, t, round(float(np.abs(now - before).max()), 6)))
        finally:
            evaluate.close()
    return EvaluationDrift(
        train_count=int(train.obs_rms.count),
        start_after_training=tuple(round(float(x), 3) for x in before),
        drift=pd.DataFrame(rows, columns=["statistics", "call", "change"]),
    )


# --- Key takeaways -------------------------------------------------------------------------------


def takeaway_bullets(table: pd.DataFrame, checks: list[LoopCheck], drift: EvaluationDrift) -> list:
    """The page's key takeaways, each stating what this run found."""

    def verdict(name: str, mode: str) -> str:
        row = table[(table["wrapper"] == name) & (table["mode"] == mode)].iloc[0]
        return row["verdict"]

    refused = sorted(  # the wrappers' names: strings
        cast(set[str], {row.wrapper for row in table.itertuples() if row.mode == "SAME_STEP"})
        & {row.wrapper for row in table.itertuples() if row.verdict == "refused"}
    )
    wrong = table[(table["right"] == "no")]
    right_loop = [c for c in checks if c.loop == "right"]
    bullets = [
        "Log returns from `gymnasium.wrappers.vector.RecordEpisodeStatistics` around the vector "
        'env, reading `infos["episode"]` where `infos["_episode"]` is True: '
        + (
            "here it logged every episode exactly once in "
            + " and ".join(c.mode for c in right_loop)
            + "."
            if right_loop and all(c.right for c in right_loop)
            else "here it did not match the raw rows in every mode: see section 2."
        ),
        "Declare `metadata['autoreset_mode']` in your own vector env: without it the wrappers "
        f"assume NEXT_STEP ({verdict('RecordEpisodeStatistics', UNDECLARED)} here for "
        "RecordEpisodeStatistics on an undeclared SAME_STEP env).",
    ]
    if refused:
        bullets.append(
            f"In SAME_STEP mode gymnasium {gym.__version__} refuses " + ", ".join(refused) + "."
        )
    if not wrong.empty:
        pairs = ", ".join(f"{r.wrapper} in {r.mode}" for r in wrong.itertuples())
        bullets.append(
            f"Accepted is not the same as right: {pairs} gave a result other than its "
            "reference here (section 3 says what each one is compared with)."
        )
    frozen = drift.largest("frozen")
    updating = drift.largest("keep updating")
    bullets.append(
        "Freeze NormalizeObservation's statistics for evaluation (`update_running_mean = "
        f"False`): left updating, the same observation's normalised value moved by up to "
        f"{updating:.3g} in {EVAL_CALLS} evaluation calls; frozen, by {frozen:.3g}."
    )
    return bullets


DRIFT_STYLES = {
    "keep updating": (OKABE_ITO[4], "circle", [1, 0]),
    "frozen": (OKABE_ITO[3], "square", [6, 4]),
}
"""Each drift line's (colour, marker shape, dash): the two differ by more than colour."""


def drift_chart(drift: pd.DataFrame) -> alt.Chart:
    """Section 4's chart: the start observation's change per evaluation call, one line each
    (solid with circles: statistics kept updating; dashed with squares: frozen)."""
    settings = list(DRIFT_STYLES)
    legend = alt.Legend(orient="top", symbolStrokeWidth=2)

    def scale(part: int) -> alt.Scale:
        return alt.Scale(domain=settings, range=[DRIFT_STYLES[s][part] for s in settings])

    return (
        alt.Chart(drift)
        .mark_line(point=alt.OverlayMarkDef(filled=True, size=45))
        .encode(
            x=alt.X("call:Q", title="evaluation step() call"),
            y=alt.Y("change:Q", title="change of the normalised start"),
            color=alt.Color("statistics:N", title="statistics", scale=scale(0), legend=legend),
            shape=alt.Shape("statistics:N", title="statistics", scale=scale(1), legend=legend),
            strokeDash=alt.StrokeDash(
                "statistics:N", title="statistics", scale=scale(2), legend=legend
            ),
            tooltip=["statistics", "call", "change"],
        )
        .properties(
            height=260,
            description=(
                "Change of the normalised start observation (y) at each evaluation step() "
                "call (x): solid line with circles, statistics kept updating; dashed line "
                "with squares, statistics frozen."
            ),
        )
    )
