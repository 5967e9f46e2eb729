"""The "Batch shapes" page's Streamlit-free logic: its settings, its live run, the tables,
predictions and Markdown view of each call, the pictures and the charts."""

from __future__ import annotations

import base64
import html
import io
import math
import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple, cast

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium.envs.classic_control.cartpole import CartPoleEnv
from gymnasium.envs.toy_text.frozen_lake import MAPS
from gymnasium.spaces import Space
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv

from burgerbot import world
from burgerbot.app.caps import CAPS
from burgerbot.app.markdown import markdown_rows
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.settings import ChoiceSetting, IntSetting, clamp_num_envs
from burgerbot.checks import MAX_SEED
from burgerbot.factories import ASYNC_START_METHOD, BACKENDS, make_vector_env

__all__ = [
    "BATCHED",
    "CARTPOLE_LIMITS",
    "DTYPE_OPTIONS",
    "ENVS",
    "ENV_NAMES",
    "HISTORY_LENGTH",
    "MAX_PICTURES",
    "MAX_TABLE_ROWS",
    "PICTURE_WIDTH",
    "PLAY_INTERVAL_SECONDS",
    "POLE_ANGLE_LIMIT",
    "SCROLL_ROWS",
    "SHAPE_OPTIONS",
    "SINGLE",
    "SPECS",
    "TABLE_SUMMARY",
    "BatchCall",
    "BatchRun",
    "BatchSettings",
    "CartPoleLimits",
    "EnvChoice",
    "InfoCast",
    "InfoRecorder",
    "array_summary",
    "backend_option",
    "build_vector_env",
    "burgerbot_cell_counts",
    "cell_count_grid",
    "count_colour",
    "dtype_explanation",
    "ended_envs",
    "frozenlake_cell_counts",
    "heading",
    "history_rows",
    "history_table",
    "info_cast_sentence",
    "info_casts",
    "infos_table",
    "number_text",
    "observation_table",
    "pictures_html",
    "pole_angle_svg",
    "pole_angles",
    "prediction_ids",
    "resolve_settings",
    "reveal_id",
    "robot_picture",
    "run_calls",
    "scrolling",
    "shape_explanation",
    "shape_truth",
    "side_by_side",
    "small",
    "spaces_table",
    "step_table",
    "table_block",
    "takeaways",
]


# --- Settings: which env, how many copies, which backend, which seed ------------------------------
# The "Batch shapes" page's settings: which env, how many copies, which backend, which seed.

PLAY_INTERVAL_SECONDS = 0.5
"""Time between two automatic steps while playing."""


@dataclass(frozen=True)
class EnvChoice:
    """One environment the page offers, with the names of its observation components."""

    name: str
    columns: tuple[str, ...]
    """One name per observation component; a single name for a scalar observation."""
    scalar_observation: bool
    native_class: str | None
    """The natively batched vector env the page builds for "native" (None: there is none)."""
    about: str
    infos_about: str = ""
    """What the env's own info keys mean (empty when it reports none)."""

    @property
    def has_native(self) -> bool:
        return self.native_class is not None


ENVS: dict[str, EnvChoice] = {
    "BurgerBot": EnvChoice(
        "BurgerBot",
        world.OBSERVATION_FIELDS,
        scalar_observation=False,
        native_class="BurgerBotVectorEnv",
        about=(
            "One observation: row, col, heading (0 north, 1 east, 2 south, 3 west) and "
            "sensor (0 near, 1 medium, 2 far)."
        ),
    ),
    "CartPole-v1": EnvChoice(
        "CartPole-v1",
        ("cart position", "cart velocity", "pole angle", "pole angular velocity"),
        scalar_observation=False,
        native_class="CartPoleVectorEnv",
        about=(
            "The lesson's cart balancing a pole. One observation: cart position and velocity, "
            "pole angle and angular velocity. Actions: 0 push left, 1 push right."
        ),
    ),
    "FrozenLake-v1": EnvChoice(
        "FrozenLake-v1",
        ("state",),
        scalar_observation=True,
        native_class=None,
        about=(
            "A walk on slippery ice over a 4x4 map. One observation: the tile the walker "
            "stands on (row x 4 + col). Actions: 0 left, 1 down, 2 right, 3 up."
        ),
        infos_about=(
            "`prob`: the chance of the move that really happened (on slippery ice, 1 in 3; "
            "a reset reports the int 1)."
        ),
    ),
}
ENV_NAMES = tuple(ENVS)

SPECS = (
    ChoiceSetting("env", "Environment", "BurgerBot", ENV_NAMES),
    IntSetting("n", "NUM_ENVS", 4, 1, CAPS.max_envs),
    ChoiceSetting("backend", "Backend", "sync", BACKENDS),
    IntSetting("seed", "Seed", 0, 0, MAX_SEED),
)


def backend_option(env: str, backend: str) -> str:
    """How the backend radio names ``backend`` for ``env``: whose class "native" builds.

    Async and CartPoleVectorEnv are first named here on the lesson path: each option says
    what it is in one clause.

    Example:
        >>> backend_option("BurgerBot", "native")
        "native: BurgerBotVectorEnv (this project's)"
        >>> backend_option("CartPole-v1", "native"), backend_option("CartPole-v1", "async")
        ("native: CartPoleVectorEnv (Gymnasium's, all carts in arrays)", 'Async: AsyncVectorEnv (each env in its own worker process)')
    """  # noqa: E501
    if backend == "sync":
        return "Sync: SyncVectorEnv"
    if backend == "async":
        return "Async: AsyncVectorEnv (each env in its own worker process)"
    native = ENVS[env].native_class
    if native is None:
        return f"native (none for {env}: uses Sync)"
    if native == "BurgerBotVectorEnv":
        return f"native: {native} (this project's)"
    return f"native: {native} (Gymnasium's, all carts in arrays)"


@dataclass(frozen=True)
class BatchSettings:
    """What the page runs: which env, how many copies, which vector env class, which seed."""

    env: str
    num_envs: int
    backend: str
    seed: int

    @property
    def key(self) -> tuple[str, int, str, int]:
        """The settings that need a new vector env when they change."""
        return (self.env, self.num_envs, self.backend, self.seed)

    @property
    def workers(self) -> int:
        """Worker processes the env starts (Async only)."""
        return self.num_envs if self.backend == "async" else 0


def resolve_settings(values: Mapping[str, Any]) -> tuple[BatchSettings, list[str]]:
    """Turn the page's values into runnable settings, with a note for each change made.

    FrozenLake has no native vector env, so "native" falls back to Sync; NUM_ENVS is
    clamped per backend (Async starts one process per env).

    Example:
        >>> settings, notes = resolve_settings(
        ...     {"env": "FrozenLake-v1", "n": 4, "backend": "native", "seed": 0}
        ... )
        >>> settings.backend, len(notes)
        ('sync', 1)
    """
    env = values["env"] if values["env"] in ENVS else ENV_NAMES[0]
    backend = values["backend"] if values["backend"] in BACKENDS else "sync"
    notes: list[str] = []
    if backend == "native" and not ENVS[env].has_native:
        backend = "sync"
        notes.append(
            f"{env} has no native (natively batched) vector env in gymnasium, so this page "
            "uses Sync for it instead."
        )
    num_envs, note = clamp_num_envs(backend, int(values["n"]))
    if note:
        notes.append(note)
    return BatchSettings(env, num_envs, backend, int(values["seed"])), notes


class InfoRecorder(gym.Wrapper):
    """Keeps its env's latest ``info`` as the env returned it, before a vector env batches it.

    It changes nothing the env does: the page reads ``latest_info`` (`BatchRun`) only to tell
    what the batched ``infos`` changed (`info_casts`).
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.latest_info: dict[str, Any] = {}

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(**kwargs)
        self.latest_info = dict(info)
        return observation, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.latest_info = dict(info)
        return observation, reward, terminated, truncated, info


def build_vector_env(settings: BatchSettings) -> VectorEnv:
    """The vector env for ``settings`` (the caller closes it)."""
    n = settings.num_envs
    if settings.env == "BurgerBot":
        return make_vector_env(settings.backend, n)
    env_id = settings.env
    if settings.backend == "native":
        return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    env_fns = [lambda: InfoRecorder(gym.make(env_id)) for _ in range(n)]
    if settings.backend == "async":
        return AsyncVectorEnv(env_fns, context=ASYNC_START_METHOD)
    return SyncVectorEnv(env_fns)


# --- The live run: reset and step a vector env, keep each call's batches --------------------------
# The "Batch shapes" page's live run: reset and step a vector env, keep each call's batches.

HISTORY_LENGTH = 50
"""Calls kept in a run's history (older ones are dropped)."""


@dataclass
class BatchCall:
    """What one ``reset`` or ``step`` call of a vector env returned (copies, not views)."""

    number: int
    """0 for the reset, then 1, 2, ... for each step since it."""
    observations: np.ndarray
    infos: dict[str, Any]
    actions: np.ndarray | None = None
    rewards: np.ndarray | None = None
    terminated: np.ndarray | None = None
    truncated: np.ndarray | None = None
    autoreset_envs: tuple[int, ...] = ()
    """The envs this call reset by itself (NEXT_STEP: those whose episode ended the call
    before; their info is the reset's)."""
    own_infos: tuple[dict[str, Any], ...] | None = None
    """Each env's own ``info`` before batching, kept when an info array could have cut a
    value (an integer or bool array: `info_casts`); None otherwise."""

    @property
    def kind(self) -> str:
        return "reset" if self.number == 0 else "step"


@dataclass
class BatchRun:
    """A vector env's calls since its last reset, with seeded random actions.

    The action space is seeded with the reset seed, so a script that does the same
    (``reset(seed=s)``, ``action_space.seed(s)``, then ``sample()`` before each step)
    sees exactly the same batches.

    Example:
        >>> from burgerbot import BurgerBotVectorEnv
        >>> run = BatchRun(BurgerBotVectorEnv(3), seed=0)
        >>> run.reset().observations.shape
        (3, 4)
        >>> run.step(2).number, len(run.history)
        (2, 3)
        >>> run.envs.close()
    """

    envs: VectorEnv
    seed: int
    history_length: int = HISTORY_LENGTH
    steps: int = 0
    history: deque[BatchCall] = field(init=False)
    ahead: deque[BatchCall] = field(init=False)
    """Calls taken but not shown yet: the stepper holds them in the browser (`take_ahead`)."""

    def __post_init__(self) -> None:
        self.history = deque(maxlen=self.history_length)
        self.ahead = deque()

    @property
    def latest(self) -> BatchCall | None:
        return self.history[-1] if self.history else None

    def reset(self) -> BatchCall:
        """``reset(seed=seed)`` and re-seed the action space: the run starts over."""
        observations, infos = self.envs.reset(seed=self.seed)
        self.envs.action_space.seed(self.seed)
        self.steps = 0
        self.ahead.clear()
        self.history.clear()
        call = BatchCall(0, np.array(observations), _copy_infos(infos))
        call.own_infos = _own_infos(self.envs, infos)
        self.history.append(call)
        return call

    def step(self, times: int = 1) -> BatchCall:
        """Step ``times`` times with random actions; returns the last call."""
        if self.latest is None:
            self.reset()
        times = max(1, min(int(times), CAPS.max_steps_per_run))
        for _ in range(times):
            call = self.ahead.popleft() if self.ahead else self._take_step()
            self.steps = call.number
            self.history.append(call)
        return self.history[-1]

    def advance_to(self, number: int) -> BatchCall:
        """Show calls up to ``number`` (a call the learner reached in the browser); a number
        already shown changes nothing. Returns the latest call."""
        if self.latest is None:
            self.reset()
        if number > self.steps:
            self.step(number - self.steps)
        return cast(BatchCall, self.latest)  # `reset` or `step` has just shown a call

    def take_ahead(self, count: int) -> list[BatchCall]:
        """Take steps now, without showing them, until ``count`` calls wait ahead: the calls
        the next `step` calls return, in order.

        The page hands them to the browser ahead of the clicks that show them, so that
        Step once shows each at once. The env and its seeded actions go on exactly as if
        each step waited for its click: the learner sees the same calls in the same order.
        """
        if self.latest is None:
            self.reset()
        while len(self.ahead) < count:
            number = self.ahead[-1].number if self.ahead else self.steps
            self.ahead.append(self._take_step(number))
        return list(self.ahead)

    def _take_step(self, number: int | None = None) -> BatchCall:
        """One step after call ``number`` (the latest shown by default)."""
        number = self.steps if number is None else number
        before = self.ahead[-1] if self.ahead else self.latest  # the call before this one
        resetting = (
            ()
            if before is None or before.terminated is None
            else np.flatnonzero(before.terminated | before.truncated).tolist()
        )
        actions = self.envs.action_space.sample()
        observations, rewards, terminated, truncated, infos = self.envs.step(actions)
        return BatchCall(
            number + 1,
            np.array(observations),
            _copy_infos(infos),
            np.array(actions),
            np.array(rewards),
            np.array(terminated),
            np.array(truncated),
            tuple(resetting),
            _own_infos(self.envs, infos),
        )


def _own_infos(envs: VectorEnv, infos: Mapping[str, Any]) -> tuple[dict[str, Any], ...] | None:
    """Each env's own info (from `InfoRecorder`) when an integer or bool info array may have
    cut another env's value; None when no array could have, or the envs keep no record."""
    if not any(_may_cut(key, value) for key, value in infos.items()):
        return None
    try:
        get_attr = envs.get_attr  # type: ignore[attr-defined]  # Sync and Async envs only
        return tuple(dict(info) for info in get_attr("latest_info"))
    except AttributeError:  # not built by `build_vector_env` with an InfoRecorder
        return None


def _may_cut(key: str, value: Any) -> bool:
    return not key.startswith("_") and isinstance(value, np.ndarray) and value.dtype.kind in "biu"


def _copy_infos(infos: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: np.array(value) if isinstance(value, np.ndarray) else value
        for key, value in infos.items()
    }


def run_calls(settings: BatchSettings, steps: int) -> BatchCall:
    """Build the env, reset it with the seed, take ``steps`` random steps, close it.

    This is what the page shows after that many steps, and what the page's script prints.
    """
    envs = build_vector_env(settings)
    try:
        run = BatchRun(envs, settings.seed)
        call = run.reset()
        for _ in range(steps):
            call = run.step(1)
        return call
    finally:
        envs.close()


# --- Tables: each array a call returned, one row per env, and the spaces --------------------------
# The "Batch shapes" page's tables: each array a call returned, one row per env, and spaces.

MAX_TABLE_ROWS = 64
"""Rows shown per table; the rest are counted, not shown."""


def _head(frame: pd.DataFrame, max_rows: int) -> tuple[pd.DataFrame, int]:
    return frame.head(max_rows), max(0, len(frame) - max_rows)


def observation_table(
    call: BatchCall, env: str, max_rows: int = MAX_TABLE_ROWS
) -> tuple[pd.DataFrame, int]:
    """The observation batch, one row per env, one named column per component.

    Returns the first ``max_rows`` rows and how many were left out.
    """
    obs = call.observations
    data = obs.reshape(len(obs), -1)
    frame = pd.DataFrame(data, columns=list(ENVS[env].columns))
    frame.index.name = "env"
    return _head(frame, max_rows)


def step_table(call: BatchCall, max_rows: int = MAX_TABLE_ROWS) -> tuple[pd.DataFrame, int]:
    """Actions, rewards, terminated and truncated side by side, one row per env."""
    if call.actions is None:
        raise ValueError("`call` is a reset: it has no actions, rewards or flags")
    frame = pd.DataFrame(
        {
            "action": call.actions,
            "reward": call.rewards,
            "terminated": call.terminated,
            "truncated": call.truncated,
        }
    )
    frame.index.name = "env"
    return _head(frame, max_rows)


def infos_table(
    infos: Mapping[str, Any], num_envs: int, max_rows: int = MAX_TABLE_ROWS
) -> tuple[pd.DataFrame | None, int, list[str]]:
    """Per-env info values and their ``_key`` masks as columns, one row per env.

    Returns ``(table or None when infos is empty, rows left out, keys not per-env)``.
    """
    if not infos:
        return None, 0, []
    columns: dict[str, Any] = {}
    other: list[str] = []
    for key, value in infos.items():
        if isinstance(value, np.ndarray) and value.shape[:1] == (num_envs,):
            if value.dtype == object or value.ndim > 1:
                columns[key] = [repr(v) for v in value]
            else:
                columns[key] = value
        else:
            other.append(key)
    frame = pd.DataFrame(columns, index=pd.RangeIndex(num_envs, name="env"))
    table, hidden = _head(frame, max_rows)
    return table, hidden, other


@dataclass(frozen=True)
class InfoCast:
    """An info key whose batched array changed some env's own value: the array took the type
    of the first value the vector env met in that call (gymnasium's `VectorEnv._add_info`)."""

    key: str
    dtype: str
    """The batched array's dtype."""
    first_env: int
    first_value: Any
    """The value the array's type came from, and its env."""
    envs: tuple[int, ...]
    """The envs whose values the array changed."""
    own: tuple[Any, ...]
    stored: tuple[Any, ...]
    """Those envs' own values, and what the array holds for them."""


def info_casts(
    infos: Mapping[str, Any], own_infos: Sequence[Mapping[str, Any]] | None
) -> list[InfoCast]:
    """The info keys whose batched array does not hold every env's own value.

    Example:
        >>> infos = {"prob": np.array([1, 0, 0]), "_prob": np.array([True, True, True])}
        >>> [cast] = info_casts(infos, [{"prob": 1}, {"prob": 1 / 3}, {"prob": 1 / 3}])
        >>> cast.dtype, cast.first_env, cast.envs, cast.stored
        ('int64', 0, (1, 2), (0, 0))
        >>> info_casts(infos, [{"prob": 1}, {"prob": 0}, {"prob": 0}])
        []
    """
    if not own_infos:
        return []
    casts = []
    for key, array in infos.items():
        if key.startswith("_") or not isinstance(array, np.ndarray) or array.ndim != 1:
            continue
        if array.dtype == object:
            continue
        reported = [i for i, own in enumerate(own_infos) if key in own and np.ndim(own[key]) == 0]
        changed = [i for i in reported if array[i].item() != own_infos[i][key]]
        if changed:
            first = reported[0]
            casts.append(
                InfoCast(
                    key,
                    str(array.dtype),
                    first,
                    own_infos[first][key],
                    tuple(changed),
                    tuple(own_infos[i][key] for i in changed),
                    tuple(array[i].item() for i in changed),
                )
            )
    return casts


def _envs_text(envs: Sequence[int]) -> str:
    """Envs by number, in words.

    >>> _envs_text([2]), _envs_text([1, 2, 3])
    ('env 2', 'envs 1, 2 and 3')
    """
    names = [str(i) for i in envs]
    if len(names) == 1:
        return f"env {names[0]}"
    return f"envs {', '.join(names[:-1])} and {names[-1]}"


def _values_text(values: Sequence[Any], each: str = " each") -> str:
    """Values as the view quotes them: one value once (``each`` after it if several).

    >>> _values_text([1 / 3, 1 / 3]), _values_text([0, 0], each=""), _values_text([0.5, 2])
    ('0.333 each', '0', '0.5, 2')
    """
    shown = sorted({f"{v:.3g}" if isinstance(v, float) else repr(v) for v in values})
    if len(shown) > 1:
        return ", ".join(shown)
    return shown[0] + (each if len(values) > 1 else "")


def info_cast_sentence(cast: InfoCast, reset_envs: Sequence[int] = ()) -> str:
    """What a batched info array changed, and why, for the call's view (Markdown).

    ``reset_envs``: the envs this call auto-reset (their info is the reset's).

    Example:
        >>> cast = InfoCast("prob", "int64", 0, 1, (1, 2, 3), (1 / 3,) * 3, (0, 0, 0))
        >>> print(info_cast_sentence(cast, reset_envs=[0]))  # doctest: +ELLIPSIS
        **`infos["prob"]` is an int64 array here, wrong for envs 1, 2 and 3**: their own values, ...
        >>> "0.333 each, are stored as 0." in info_cast_sentence(cast)
        True
        >>> "env 0's `1`, an int (from its auto-reset)" in info_cast_sentence(cast, [0])
        True
    """
    origin = " (from its auto-reset)" if cast.first_env in reset_envs else ""
    first_type = type(cast.first_value).__name__
    article = "an" if first_type[0] in "aeiou" else "a"
    stored = _values_text(cast.stored, each="")
    return (
        f'**`infos["{cast.key}"]` is an {cast.dtype} array here, wrong for '
        f"{_envs_text(cast.envs)}**: their own values, {_values_text(cast.own)}, are stored as "
        f"{stored}. The array takes the type of the call's first value: env "
        f"{cast.first_env}'s `{cast.first_value!r}`, {article} {first_type}{origin}. The fix: "
        f'"Code: the `{cast.key}` dtype pitfall" below.'
    )


SINGLE, BATCHED = "one env: single_…_space", "the batch: …_space"
"""The spaces table's two columns (its rows: observation and action)."""


def _space_text(space: Space) -> str:
    return f"{type(space).__name__}, {space.shape}, {space.dtype}"


def spaces_table(envs: VectorEnv) -> pd.DataFrame:
    """One env's spaces beside the batch's: type, shape and dtype of each, a row per space
    (three narrow columns: it fits a phone).

    Example:
        >>> from burgerbot import BurgerBotVectorEnv
        >>> table = spaces_table(BurgerBotVectorEnv(3)).set_index("space")
        >>> table.loc["observation", BATCHED], table.loc["action", SINGLE]
        ('Box, (3, 4), int64', 'Discrete, (), int64')
    """
    return pd.DataFrame(
        [
            {
                "space": what,
                SINGLE: _space_text(getattr(envs, f"single_{what}_space")),
                BATCHED: _space_text(getattr(envs, f"{what}_space")),
            }
            for what in ("observation", "action")
        ]
    )


def array_summary(call: BatchCall) -> pd.DataFrame:
    """Shape, dtype and what each axis holds for every array the call returned (narrow
    enough for a phone: the axes are named, not explained)."""
    observation_axes = "env" if call.observations.ndim == 1 else "env, number"
    arrays = [("observations", call.observations, observation_axes)]
    if call.actions is not None:  # a step call: its rewards and flags are arrays too
        arrays += [
            ("actions (sent)", call.actions, "env"),
            ("rewards", cast(np.ndarray, call.rewards), "env"),
            ("terminated", cast(np.ndarray, call.terminated), "env"),
            ("truncated", cast(np.ndarray, call.truncated), "env"),
        ]
    return pd.DataFrame(
        [
            {"array": name, "shape": str(array.shape), "dtype": str(array.dtype), "axes": axes}
            for name, array, axes in arrays
        ]
    )


def history_rows(run: BatchRun) -> list[dict[str, Any]]:
    """One dict per remembered call (newest first): what it was and a few totals.

    A reset has no rewards or flags: its dict leaves those keys out.
    """
    rows = []
    for call in reversed(run.history):
        row: dict[str, Any] = {
            "call": "reset(seed=...)" if call.kind == "reset" else f"step #{call.number}",
            "observations shape": str(call.observations.shape),
        }
        if call.rewards is not None:  # a step call: its flags are arrays too
            row["reward total"] = float(np.sum(call.rewards))
            row["terminated"] = int(np.sum(cast(np.ndarray, call.terminated)))
            row["truncated"] = int(np.sum(cast(np.ndarray, call.truncated)))
        rows.append(row)
    return rows


def history_table(run: BatchRun) -> pd.DataFrame:
    """`history_rows` as a table (a reset's missing totals are NaN)."""
    return pd.DataFrame(history_rows(run))


# --- Predictions (the batch's shape and dtype) and takeaways --------------------------------------
# The "Batch shapes" page's predictions (the batch's shape and dtype, and why) and takeaways.
#
# Each is a multiple-choice question (`learning.prediction`), checked against the live batch: the
# true option is read off the batch the page's vector env just returned, never typed in.

ROWS, COLUMNS, FLAT, ONE_COLUMN = "(NUM_ENVS, k)", "(k, NUM_ENVS)", "(NUM_ENVS,)", "(NUM_ENVS, 1)"
SHAPE_OPTIONS = (ROWS, COLUMNS, FLAT, ONE_COLUMN)
"""The shapes a learner picks from; k is how many numbers one env's observation holds."""

DTYPE_OPTIONS = ("int64", "int32", "float32", "float64")
"""The dtypes a learner picks from (every env the page offers gives one of them)."""


def prediction_ids(env: str) -> tuple[str, str]:
    """The shape and dtype questions' ids: one pair per environment (a new env, a new question).

    >>> prediction_ids("CartPole-v1")
    ('batch_shapes_shape_cartpole_v1', 'batch_shapes_dtype_cartpole_v1')
    """
    slug = re.sub(r"[^a-z0-9]+", "_", env.lower()).strip("_")
    return f"batch_shapes_shape_{slug}", f"batch_shapes_dtype_{slug}"


def reveal_id(env: str) -> str:
    """The id of "Skip, show me" for ``env``'s two questions: one skip shows the batch.

    >>> reveal_id("FrozenLake-v1")
    'batch_shapes_batch_frozenlake_v1'
    """
    return prediction_ids(env)[0].replace("_shape_", "_batch_", 1)


def shape_truth(shape: tuple[int, ...], num_envs: int) -> str | None:
    """Which of `SHAPE_OPTIONS` a batch of ``shape`` from ``num_envs`` envs has (None: none).

    >>> shape_truth((4, 4), 4), shape_truth((5,), 5), shape_truth((3, 1), 3)
    ('(NUM_ENVS, k)', '(NUM_ENVS,)', '(NUM_ENVS, 1)')
    >>> shape_truth((4, 8), 8), shape_truth((2, 3, 4), 2)
    ('(k, NUM_ENVS)', None)
    """
    if shape == (num_envs,):
        return FLAT
    if shape == (num_envs, 1):
        return ONE_COLUMN
    if len(shape) == 2 and shape[0] == num_envs:
        return ROWS
    if len(shape) == 2 and shape[1] == num_envs:
        return COLUMNS
    return None


def _count(n: int, noun: str) -> str:
    """``n`` and the ``noun`` it counts, plural unless ``n`` is 1.

    >>> _count(4, "observation"), _count(1, "env")
    ('4 observations', '1 env')
    """
    return f"{n} {noun}{'s' * (n != 1)}"


def shape_explanation(
    observations: np.ndarray, single: Space, env: str, natively_batched: bool = False
) -> str:
    """Why the batch has its shape: axis 0 is the env, then one env's observation shape.

    ``natively_batched``: the vector env holds no envs to stack (BurgerBotVectorEnv,
    CartPoleVectorEnv): it computes the whole batch as arrays, in the shape stacking gives.

    Example:
        >>> from gymnasium.spaces import Discrete
        >>> shape_explanation(np.zeros(3, np.int64), Discrete(16), "FrozenLake-v1")
        '`(3,)`: one FrozenLake-v1 observation is a single number (shape `()`), so 3 observations stack to one value per env, with no axis 1.'
    """  # noqa: E501
    n = len(observations)
    if single.shape == ():
        return (
            f"`{observations.shape}`: one {env} observation is a single number (shape `()`), "
            f"so {_count(n, 'observation')} stack to one value per env, with no axis 1."
        )
    how = (
        f"this native env computes {_count(n, 'observation')} as one array"
        if natively_batched
        else f"the vector env stacks {_count(n, 'observation')} of shape `{single.shape}`"
    )
    return f"`{observations.shape}`: {how}, one row per env."


def dtype_explanation(observations: np.ndarray, single: Space) -> str:
    """Why the batch has its dtype: the single observation space's dtype, kept by batching."""
    return f"`{observations.dtype}`: batching keeps one env's dtype (`{single.dtype}`)."


def takeaways(env: str, observations: np.ndarray, single: Space, batched: Space) -> list[str]:
    """The page's "Key takeaways", with this run's shapes and dtype in them.

    Only the env on screen is described: another env's shape or dtype would answer its own
    questions before they are asked.

    Example:
        >>> from gymnasium.spaces import Box, Discrete
        >>> bullets = takeaways("FrozenLake-v1", np.zeros(3, np.int64), Discrete(16), Box(0, 15, (3,)))
        >>> bullets[0]
        'Axis 0 of every batch is the env: with 3 envs, `observations` has shape `(3,)`, and `rewards`, `terminated`, `truncated` have shape `(3,)`.'
        >>> bullets[2]
        'A scalar observation stacks to `(N,)`, not `(N, 1)`.'
    """  # noqa: E501
    n = len(observations)
    bullets = [
        f"Axis 0 of every batch is the env: with {_count(n, 'env')}, `observations` has shape "
        f"`{observations.shape}`, and `rewards`, `terminated`, `truncated` have shape `({n},)`.",
        f"`single_observation_space` is one env's (shape `{single.shape}`), "
        f"`observation_space` the batch's (`{batched.shape}`).",
    ]
    if single.shape == ():
        bullets.append("A scalar observation stacks to `(N,)`, not `(N, 1)`.")
    other = "" if env == "CartPole-v1" else " Pick CartPole-v1 above for its second part."
    bullets += [
        f"Exercise 3: batching keeps the dtype: {env} gives `{observations.dtype}`.{other}",
        "`SyncVectorEnv` takes a list of zero-argument functions: "
        "`[make_env(i) for i in range(N)]`.",
    ]
    return bullets


# --- A call's view as one Markdown body: arrays, infos and robots ---------------------------------
# The "Batch shapes" live view as one Markdown body: the latest call's arrays, infos and robots.
#
# The call's line, its shape summary, the arrays, the infos and the robots' pictures are one
# Markdown text with a little HTML for the layout. The page turns it into HTML
# (`burgerbot.app.markdown.markdown_html`) and shows it with `burgerbot.app.call_stepper`,
# which holds the views of the calls taken ahead and pages through them in the browser.
# Every value in it comes from this module's code and the env's arrays, never from what a
# visitor typed.

SCROLL_ROWS = 12
"""Tables longer than this scroll inside a box instead of stretching the page."""

_SCROLL_STYLE = "max-height: 24rem; overflow: auto; margin-bottom: 1rem;"
_COLUMNS_STYLE = "display: flex; flex-wrap: wrap; gap: 0 2rem; align-items: flex-start;"
# A column is never narrower than its table (min-content), so two that do not fit side by
# side wrap to one under the other instead of one's table running under the other's text.
_COLUMN_STYLE = "flex: 1 1 18rem; min-width: min-content;"
_FIGURES_STYLE = "display: flex; flex-wrap: wrap; gap: 0.75rem;"
_FIGURE_STYLE = "margin: 0; text-align: center;"


def heading(text: str) -> str:
    """A level-2 heading, the size of ``st.header`` (the page's first section, under its h1).

    Example:
        >>> heading("Latest call: reset")
        '## Latest call: reset'
    """
    return f"## {text}"


def small(text: str) -> str:
    """Text in the smaller type of a caption (Markdown still works inside).

    Example:
        >>> small("Showing the first 64 envs.")
        '<small>Showing the first 64 envs.</small>'
    """
    return f"<small>{text}</small>"


def scrolling(block: str) -> str:
    """``block`` (Markdown) in a box that scrolls once it is taller than about 12 rows.

    The blank lines let the Markdown inside an HTML block be read as Markdown.
    """
    return f'<div style="{_SCROLL_STYLE}">\n\n{block}\n\n</div>'


def table_block(frame: pd.DataFrame, hidden: int, what: str) -> str:
    """``frame`` as a Markdown table with its index as the first column, and how many rows
    were left out. A long table scrolls in its own box.

    Example:
        >>> frame = pd.DataFrame({"reward": [0.0, 1.0]}, index=pd.RangeIndex(2, name="env"))
        >>> print(table_block(frame, 3, "envs"))
        | env | reward |
        |---|---|
        | 0 | 0.0 |
        | 1 | 1.0 |
        <BLANKLINE>
        <small>Showing the first 2 envs; 3 more are hidden.</small>
    """
    header = [frame.index.name, *frame.columns]
    columns = [[str(i) for i in frame.index.tolist()], *_column_texts(frame)]
    table = markdown_rows(header, zip(*columns, strict=True))
    if len(frame) > SCROLL_ROWS:
        table = small(f"Scroll the table to see all {len(frame)} rows.") + "\n\n" + scrolling(table)
    if hidden:
        table += "\n\n" + small(f"Showing the first {len(frame)} {what}; {hidden} more are hidden.")
    return table


def number_text(value: float) -> str:
    """A float with 4 significant digits that still reads as a float.

    Example:
        >>> [number_text(v) for v in (0.0, -0.1, 1.0, 0.0123456, 12345.6)]
        ['0.0', '-0.1', '1.0', '0.01235', '1.235e+04']
    """
    text = f"{value:.4g}"
    return text if any(c in text for c in ".enN") else text + ".0"


def _column_texts(frame: pd.DataFrame) -> list[list[str]]:
    """Each column's cells as text: floats by `number_text`, the rest as they print."""
    texts = []
    for i, dtype in enumerate(frame.dtypes):
        values = frame.iloc[:, i].to_numpy().tolist()
        texts.append([number_text(v) if dtype.kind == "f" else str(v) for v in values])
    return texts


def _formatted(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each column as text (`_column_texts`)."""
    return pd.DataFrame(dict(zip(frame.columns, _column_texts(frame), strict=True)))


def side_by_side(left: str, right: str) -> str:
    """Two Markdown blocks in two columns that wrap to one on a narrow screen."""
    columns = "\n\n".join(
        f'<div style="{_COLUMN_STYLE}">\n\n{block}\n\n</div>' for block in (left, right)
    )
    return f'<div class="bb-columns" style="{_COLUMNS_STYLE}">\n\n{columns}\n\n</div>'


def pictures_html(pictures: Sequence[str], captions: Sequence[str], width: int) -> str:
    """Pictures (``data:`` URLs) side by side, each with its caption below.

    Example:
        >>> block = pictures_html(["data:image/png;base64,AA=="], ["env 0"], 112)
        >>> block.count("<figure"), 'src="data:image/png;base64,AA=="' in block
        (1, True)
    """
    if len(pictures) != len(captions):
        raise ValueError(f"{len(pictures)} pictures but {len(captions)} captions")
    figures = "".join(
        f'<figure style="{_FIGURE_STYLE}"><img src="{html.escape(url, quote=True)}" '
        f'width="{int(width)}" alt="{html.escape(caption, quote=True)}">'
        f"<figcaption>{small(html.escape(caption))}</figcaption></figure>"
        for url, caption in zip(pictures, captions, strict=True)
    )
    return f'<div style="{_FIGURES_STYLE}">{figures}</div>'


def ended_envs(terminated: np.ndarray, truncated: np.ndarray, limit: int = 10) -> str | None:
    """The envs whose episode ended in a step, listed up to ``limit`` (None if none ended).

    Example:
        >>> ended_envs(np.array([False, True, False]), np.array([False, False, True]))
        '1, 2'
        >>> ended_envs(np.zeros(3, bool), np.zeros(3, bool)) is None
        True
    """
    ended = np.flatnonzero(terminated | truncated)
    if not len(ended):
        return None
    return ", ".join(str(i) for i in ended[:limit]) + (" …" if len(ended) > limit else "")


# --- Picture data: where the agents stand, and CartPole's poles -----------------------------------
# The "Batch shapes" page's picture data: where the N agents stand, and CartPole's poles.

MAX_PICTURES = 16
"""Up to this many robots are drawn one by one; beyond it, a heatmap of all of them."""

PICTURE_WIDTH = 112
"""Pixels across one robot's picture on the page."""


class CartPoleLimits(NamedTuple):
    """When a CartPole episode ends, as the installed gymnasium defines it."""

    pole_angle: float
    """Radians: beyond ± this the pole has fallen (terminated)."""
    cart_position: float
    """Beyond ± this the cart has left the track (terminated)."""
    max_episode_steps: int | None
    """``CartPole-v1``'s time limit (truncated), from its registered spec."""

    @property
    def pole_degrees(self) -> float:
        return math.degrees(self.pole_angle)


def _cartpole_limits() -> CartPoleLimits:
    env = CartPoleEnv()
    try:
        return CartPoleLimits(
            float(env.theta_threshold_radians),
            float(env.x_threshold),
            gym.spec("CartPole-v1").max_episode_steps,
        )
    finally:
        env.close()


CARTPOLE_LIMITS = _cartpole_limits()
"""Read from the installed gymnasium's CartPole (its thresholds) and its registered spec."""


@lru_cache(maxsize=world.GRID_SIZE * world.GRID_SIZE * 4)
def robot_picture(row: int, col: int, heading: int) -> str:
    """One robot's picture as a PNG ``data:`` URL, made once per pose and server.

    There are only 7 x 7 x 4 poses. Handing the page a finished URL saves re-encoding
    each robot's picture on every step (tens of milliseconds per click).

    Example:
        >>> robot_picture(0, 0, 1).startswith("data:image/png;base64,")
        True
    """
    from PIL import Image  # Pillow comes with Streamlit; the library itself does not need it

    image = Image.fromarray(world.render_rgb(row, col, heading))
    image = image.resize((PICTURE_WIDTH, PICTURE_WIDTH), resample=Image.Resampling.BILINEAR)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def burgerbot_cell_counts(observations: np.ndarray) -> pd.DataFrame:
    """How many robots stand on each of the 49 cells, long form, with obstacles and goal marked.

    Columns: row, col, count, kind ("free", "obstacle", "goal", "start"), label.
    """
    counts = np.zeros((world.GRID_SIZE, world.GRID_SIZE), dtype=np.int64)
    np.add.at(counts, (observations[:, 0], observations[:, 1]), 1)
    rows = []
    for r in range(world.GRID_SIZE):
        for c in range(world.GRID_SIZE):
            if (r, c) in world.OBSTACLES:
                kind, mark = "obstacle", "O"
            elif (r, c) == world.GOAL:
                kind, mark = "goal", "G"
            elif (r, c) == world.START:
                kind, mark = "start", "S"
            else:
                kind, mark = "free", ""
            rows.append(_cell(r, c, int(counts[r, c]), kind, mark))
    return pd.DataFrame(rows)


def frozenlake_cell_counts(observations: np.ndarray) -> pd.DataFrame:
    """How many walkers stand on each tile of FrozenLake's 4x4 map, long form.

    Columns as :func:`burgerbot_cell_counts`; kinds "start", "frozen", "hole", "goal".
    """
    lake = MAPS["4x4"]
    size = len(lake)
    counts = np.bincount(observations.astype(np.int64), minlength=size * size)
    kinds = {"S": "start", "F": "frozen", "H": "hole", "G": "goal"}
    rows = []
    for r in range(size):
        for c in range(size):
            letter = lake[r][c]
            mark = "" if letter == "F" else letter
            rows.append(_cell(r, c, int(counts[r * size + c]), kinds[letter], mark))
    return pd.DataFrame(rows)


def _cell(row: int, col: int, count: int, kind: str, mark: str) -> dict[str, Any]:
    label = " ".join(part for part in (mark, str(count) if count else "") if part)
    return {"row": row, "col": col, "count": count, "kind": kind, "label": label}


def pole_angles(call: BatchCall, max_rows: int = MAX_TABLE_ROWS) -> pd.DataFrame:
    """CartPole's pole angle (radians) and cart position per env, first ``max_rows`` envs."""
    shown = call.observations[:max_rows].astype(np.float64)
    return pd.DataFrame(
        {"env": np.arange(len(shown)), "pole angle": shown[:, 2], "cart position": shown[:, 0]}
    )


# --- Charts: the robots' cells as a grid, and CartPole's pole angles ------------------------------
# Charts for the "Batch shapes" page: where the N robots stand, and CartPole's pole angles.
#
# Each chart is plain HTML (a CSS grid of cells, or an inline SVG) built from the call's numbers,
# with its data as a table under "Data as a table": part of the call's view, so the stepper
# pages through charted calls in the browser like any other. No script runs in them: a bar's
# or a cell's details show as the browser's own tooltip (``title``). Everything in them is
# numbers and this module's own words, escaped.

POLE_ANGLE_LIMIT = CARTPOLE_LIMITS.pole_angle
"""CartPole's pole-angle end condition (radians), read from the installed gymnasium."""

TABLE_SUMMARY = "Data as a table"
"""The label of the fold under each chart that holds its data as a table."""

# Cells nobody can stand on are drawn in one dark colour instead of a count colour.
_BLOCKED_KINDS = ("obstacle", "hole")
_BLOCKED_COLOUR = OKABE_ITO[7]  # black
_FLOOR_COLOUR = "#eceff1"  # neutral: cells nobody stands on, as in world.render_rgb
_COUNT_RANGE = ("#FFFFFF", OKABE_ITO[0])  # white to Okabe-Ito orange
_BAR_COLOUR, _LIMIT_COLOUR = OKABE_ITO[3], OKABE_ITO[4]  # blue bars, vermillion limits
_CELL_PIXELS = 44
_POLE_AXIS = 0.25
"""The pole chart's y axis runs from -this to +this radians; longer bars are cut at the edge."""


def count_colour(count: int, most: int) -> str:
    """The colour of a cell holding ``count`` agents when the fullest holds ``most``: white
    for none to Okabe-Ito orange for the fullest.

    Example:
        >>> count_colour(0, 4), count_colour(4, 4), count_colour(2, 4)
        ('#ffffff', '#e69f00', '#f2cf80')
    """
    share = 0.0 if most <= 0 else min(1.0, max(0.0, count / most))
    low, high = ([int(colour[i : i + 2], 16) for i in (1, 3, 5)] for colour in _COUNT_RANGE)
    mixed = [round(a + (b - a) * share) for a, b in zip(low, high, strict=True)]
    return "#" + "".join(f"{v:02x}" for v in mixed)


def _html_table(frame: pd.DataFrame) -> str:
    """``frame`` (already text) as an HTML table, every cell escaped."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
        for row in frame.to_numpy()
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _data_fold(frame: pd.DataFrame, name: str) -> str:
    """A chart's data as a table inside a fold (``<details>``), scrolling when long.

    ``name`` tells the stepper which fold this is, so an open one stays open on the next call.
    """
    table = _html_table(_formatted(frame))
    if len(frame) > SCROLL_ROWS:
        table = f'<div style="{_SCROLL_STYLE}">{table}</div>'
    return (
        f'<details data-name="{html.escape(name, quote=True)}" style="margin-bottom: 1rem;">'
        f"<summary>{TABLE_SUMMARY}</summary>{table}</details>"
    )


def cell_count_grid(cells: pd.DataFrame, title: str, name: str) -> str:
    """A grid of cells coloured by how many envs' agents stand there; blocked cells are dark.
    Its data (the cells with agents on them, and the marked ones) as a table in a fold below.

    ``cells`` is long form with columns row, col, count, kind and label (one row per cell),
    as made by ``burgerbot_cell_counts`` (above). One HTML block without blank lines, so
    Markdown around it leaves it as it is.

    Example:
        >>> grid = cell_count_grid(frozenlake_cell_counts(np.array([0, 0, 5])), "Lake", "lake")
        >>> grid.count('class="bb-cell"'), ">S 2<" in grid, ">H 1<" in grid
        (16, True, True)
    """
    size = int(cells["col"].max()) + 1
    most = int(cells["count"].max())
    base = (
        f"width: {_CELL_PIXELS}px; height: {_CELL_PIXELS}px; display: flex; "
        "align-items: center; justify-content: center; font-size: 12px;"
    )
    # The corner above the row numbers names the two axes.
    parts = [f'<div style="{base} font-size: 10px;">row\\col</div>']
    parts += [f'<div style="{base}">{c}</div>' for c in range(size)]
    for r in range(size):
        parts.append(f'<div style="{base}">{r}</div>')
        cell: Any  # a row from itertuples: its fields are the columns (`cell.count` too)
        for cell in cells[cells["row"] == r].sort_values("col").itertuples(index=False):
            count, kind = int(cell.count), str(cell.kind)
            if kind in _BLOCKED_KINDS:
                colour, text = _BLOCKED_COLOUR, "white"
            else:
                colour = count_colour(count, most) if count else _FLOOR_COLOUR
                text = "black"
            tip = f"row {r}, col {int(cell.col)}: {kind}, {count} env{'s' * (count != 1)} here"
            parts.append(
                f'<div class="bb-cell" title="{html.escape(tip, quote=True)}" '
                f'style="{base} background: {colour}; color: {text}; font-weight: bold; '
                f'border: 1px solid white;">{html.escape(str(cell.label))}</div>'
            )
    grid = (
        f'<div role="img" aria-label="{html.escape(title, quote=True)}" style="display: grid; '
        f'grid-template-columns: repeat({size + 1}, {_CELL_PIXELS}px); width: max-content;">'
        + "".join(parts)
        + "</div>"
    )
    legend = (
        '<div style="display: flex; align-items: center; gap: 0.5rem; margin: 0.5rem 0;">'
        "<small>envs on a cell: 0</small>"
        f'<span style="display: inline-block; width: 8rem; height: 0.75rem; '
        f"border: 1px solid {_FLOOR_COLOUR}; background: linear-gradient(to right, "
        f'{_COUNT_RANGE[0]}, {_COUNT_RANGE[1]});"></span>'
        f"<small>{most}</small></div>"
    )
    shown = cells[(cells["count"] > 0) | (cells["label"] != "")]
    data = shown[["row", "col", "kind", "count"]].rename(columns={"count": "envs here"})
    return (
        f'<div style="margin-bottom: 1rem;"><p><strong>{html.escape(title)}</strong></p>'
        f"{grid}{legend}{_data_fold(data.reset_index(drop=True), name)}</div>"
    )


def pole_angle_svg(angles: pd.DataFrame, name: str = "poles") -> str:
    """One bar per env: how far its pole leans (radians), with CartPole's angle limit marked
    by dashed lines; its data as a table in a fold below.

    ``angles`` has columns env, "pole angle" and "cart position" (one row per env), as
    ``pole_angles`` makes. An inline SVG that scales to the width it is given; each bar's
    numbers show as its tooltip.

    Example:
        >>> frame = pd.DataFrame({"env": [0, 1], "pole angle": [0.1, -0.3],
        ...                       "cart position": [0.0, 0.5]})
        >>> chart = pole_angle_svg(frame)
        >>> chart.count("<rect class="), "pole angle -0.3" in chart
        (2, True)
    """
    n = len(angles)
    left, right, top, bottom, height = 48, 36, 8, 36, 220
    bar_step = max(8.0, min(64.0, 640.0 / max(1, n)))
    width = left + right + bar_step * n
    plot = height - top - bottom

    def y(value: float) -> float:
        clamped = max(-_POLE_AXIS, min(_POLE_AXIS, value))
        return top + plot * (_POLE_AXIS - clamped) / (2 * _POLE_AXIS)

    parts = []
    for tick in (-0.2, -0.1, 0.0, 0.1, 0.2):
        parts.append(
            f'<line x1="{left}" x2="{width - right:g}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            f'stroke="{"#888" if tick == 0 else "#ddd"}" stroke-width="1"/>'
            f'<text x="{left - 4}" y="{y(tick) + 4:.1f}" text-anchor="end" '
            f'font-size="11">{tick:g}</text>'
        )
    label_every = max(1, math.ceil(n / 16))
    for i, (env, angle, position) in enumerate(
        angles[["env", "pole angle", "cart position"]].itertuples(index=False)
    ):
        x = left + bar_step * i + bar_step * 0.1
        top_y, bottom_y = sorted((y(float(angle)), y(0.0)))
        tip = f"env {int(env)}: pole angle {number_text(float(angle))} rad, cart position " + (
            number_text(float(position))
        )
        parts.append(
            f'<rect class="bar" x="{x:.1f}" y="{top_y:.1f}" width="{bar_step * 0.8:.1f}" '
            f'height="{max(0.5, bottom_y - top_y):.1f}" fill="{_BAR_COLOUR}">'
            f"<title>{html.escape(tip)}</title></rect>"
        )
        if i % label_every == 0:
            parts.append(
                f'<text x="{x + bar_step * 0.4:.1f}" y="{height - bottom + 14}" '
                f'text-anchor="middle" font-size="11">{int(env)}</text>'
            )
    for limit in (-POLE_ANGLE_LIMIT, POLE_ANGLE_LIMIT):
        parts.append(
            f'<line class="limit" x1="{left}" x2="{width - right:g}" y1="{y(limit):.1f}" '
            f'y2="{y(limit):.1f}" stroke="{_LIMIT_COLOUR}" stroke-width="1.5" '
            f'stroke-dasharray="4 3"><title>limit ±{POLE_ANGLE_LIMIT:.4f} rad</title></line>'
            f'<text x="{width - right + 3:g}" y="{y(limit) + 4:.1f}" font-size="11" '
            f'fill="{_LIMIT_COLOUR}">{math.degrees(limit):+g}°</text>'
        )
    parts.append(
        f'<text x="{left + (width - left - right) / 2:.1f}" y="{height - 4}" '
        'text-anchor="middle" font-size="12">env index (axis 0 of the batch)</text>'
        f'<text transform="translate(12 {top + plot / 2:.1f}) rotate(-90)" '
        'text-anchor="middle" font-size="12">pole angle (radians)</text>'
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height}" '
        f'width="{width:g}" height="{height}" role="img" '
        f'aria-label="Pole angle per env, with the limits at ±{POLE_ANGLE_LIMIT:.4f} radians" '
        'style="max-width: 100%; height: auto; font-family: sans-serif;">'
        + "".join(parts)
        + "</svg>"
    )
    return f'<div style="margin-bottom: 0.5rem;">{svg}{_data_fold(angles, name)}</div>'
