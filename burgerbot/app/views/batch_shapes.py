"""The "Batch shapes" page's logic: build a vector env, reset and step it, lay out every batch."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium import spaces
from gymnasium.envs.toy_text.frozen_lake import MAPS
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv

from burgerbot import world
from burgerbot.app.caps import CAPS
from burgerbot.app.settings import ChoiceSetting, IntSetting, clamp_num_envs
from burgerbot.checks import MAX_SEED
from burgerbot.factories import ASYNC_START_METHOD, BACKENDS, make_vector_env

__all__ = [
    "BACKEND_LABELS",
    "DTYPE_CHOICES",
    "ENVS",
    "ENV_NAMES",
    "HISTORY_LENGTH",
    "MAX_PICTURES",
    "MAX_SEED",
    "MAX_TABLE_ROWS",
    "PLAY_INTERVAL_SECONDS",
    "SPECS",
    "BatchCall",
    "BatchRun",
    "BatchSettings",
    "EnvChoice",
    "GuessResult",
    "array_summary",
    "build_vector_env",
    "burgerbot_cell_counts",
    "check_guess",
    "frozenlake_cell_counts",
    "history_table",
    "infos_table",
    "observation_table",
    "parse_shape",
    "pole_angles",
    "resolve_settings",
    "run_calls",
    "space_type_notes",
    "spaces_table",
    "step_table",
]

HISTORY_LENGTH = 50
"""Calls kept in a run's history (older ones are dropped)."""

MAX_TABLE_ROWS = 64
"""Rows shown per table; the rest are counted, not shown."""

MAX_PICTURES = 16
"""Up to this many robots are drawn one by one; beyond it, a heatmap of all of them."""

PLAY_INTERVAL_SECONDS = 0.5
"""Time between two automatic steps while playing."""


DTYPE_CHOICES = ("int64", "int32", "float32", "float64", "bool", "object")
BACKEND_LABELS = {"sync": "Sync", "async": "Async", "native": "native"}


@dataclass(frozen=True)
class EnvChoice:
    """One environment the page offers, with the names of its observation components."""

    name: str
    columns: tuple[str, ...]
    """One name per observation component; a single name for a scalar observation."""
    scalar_observation: bool
    has_native: bool
    about: str
    infos_about: str = ""
    """What the env's own info keys mean (empty when it reports none)."""


ENVS: dict[str, EnvChoice] = {
    "BurgerBot": EnvChoice(
        "BurgerBot",
        ("row", "col", "heading", "sensor"),
        scalar_observation=False,
        has_native=True,
        about=(
            "The 7x7 grid robot. Each observation is 4 whole numbers: row, col, heading "
            "(0 north, 1 east, 2 south, 3 west) and sensor (0 near, 1 medium, 2 far)."
        ),
    ),
    "CartPole-v1": EnvChoice(
        "CartPole-v1",
        ("cart position", "cart velocity", "pole angle", "pole angular velocity"),
        scalar_observation=False,
        has_native=True,
        about=(
            "A cart balancing a pole, the lesson's first example. Each observation is 4 "
            "decimal numbers (float32). Actions: 0 push left, 1 push right."
        ),
    ),
    "FrozenLake-v1": EnvChoice(
        "FrozenLake-v1",
        ("state",),
        scalar_observation=True,
        has_native=False,
        about=(
            "A walk on slippery ice over a 4x4 map. Each observation is ONE whole number: "
            "the tile the walker stands on (row x 4 + col, 0..15). Actions: 0 left, 1 down, "
            "2 right, 3 up."
        ),
        infos_about=(
            "`prob` is the probability of the move that really happened: the ice is slippery, "
            "so the walker goes the intended way only 1 time in 3 (reset reports 1)."
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


def build_vector_env(settings: BatchSettings) -> VectorEnv:
    """The vector env for ``settings`` (the caller closes it)."""
    n = settings.num_envs
    if settings.env == "BurgerBot":
        return make_vector_env(settings.backend, n)
    env_id = settings.env
    if settings.backend == "native":
        return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    env_fns = [lambda: gym.make(env_id) for _ in range(n)]
    if settings.backend == "async":
        return AsyncVectorEnv(env_fns, context=ASYNC_START_METHOD)
    return SyncVectorEnv(env_fns)


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

    def __post_init__(self) -> None:
        self.history = deque(maxlen=self.history_length)

    @property
    def latest(self) -> BatchCall | None:
        return self.history[-1] if self.history else None

    def reset(self) -> BatchCall:
        """``reset(seed=seed)`` and re-seed the action space: the run starts over."""
        observations, infos = self.envs.reset(seed=self.seed)
        self.envs.action_space.seed(self.seed)
        self.steps = 0
        self.history.clear()
        call = BatchCall(0, np.array(observations), _copy_infos(infos))
        self.history.append(call)
        return call

    def step(self, times: int = 1) -> BatchCall:
        """Step ``times`` times with random actions; returns the last call."""
        if self.latest is None:
            self.reset()
        times = max(1, min(int(times), CAPS.max_steps_per_run))
        for _ in range(times):
            actions = self.envs.action_space.sample()
            observations, rewards, terminated, truncated, infos = self.envs.step(actions)
            self.steps += 1
            self.history.append(
                BatchCall(
                    self.steps,
                    np.array(observations),
                    _copy_infos(infos),
                    np.array(actions),
                    np.array(rewards),
                    np.array(terminated),
                    np.array(truncated),
                )
            )
        return self.history[-1]


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


# --- Tables -------------------------------------------------------------------------------


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


_SPACE_REPR_LIMIT = 70


def _short_repr(space: spaces.Space) -> str:
    text = " ".join(repr(space).split())
    if len(text) > _SPACE_REPR_LIMIT:
        text = text[: _SPACE_REPR_LIMIT - 1] + "…"
    return text


def spaces_table(envs: VectorEnv) -> pd.DataFrame:
    """The batched and single spaces: how a vector env describes one env and all of them."""
    rows = []
    for name in (
        "observation_space",
        "single_observation_space",
        "action_space",
        "single_action_space",
    ):
        space = getattr(envs, name)
        rows.append(
            {
                "attribute": f"envs.{name}",
                "repr": _short_repr(space),
                "shape": str(space.shape),
                "dtype": str(space.dtype),
            }
        )
    return pd.DataFrame(rows)


def space_type_notes(envs: VectorEnv) -> list[str]:
    """Sentences for batched spaces whose type differs from the single env's space."""
    notes = []
    for what in ("observation", "action"):
        single = type(getattr(envs, f"single_{what}_space")).__name__
        batched = type(getattr(envs, f"{what}_space")).__name__
        if single != batched:
            notes.append(
                f"Batching changed the {what} space's type: one env's `{single}` becomes a "
                f"`{batched}` with NUM_ENVS on axis 0 (same bounds and dtype for each env)."
            )
    return notes


def _axis_text(env: str, num_envs: int) -> str:
    choice = ENVS[env]
    if choice.scalar_observation:
        return (
            f"axis 0: env ({num_envs}). No axis 1: each observation is one number "
            f"({choice.columns[0]})"
        )
    return f"axis 0: env ({num_envs}), axis 1: {', '.join(choice.columns)} ({len(choice.columns)})"


def array_summary(call: BatchCall, env: str) -> pd.DataFrame:
    """Shape, dtype and the meaning of each axis for every array the call returned."""
    n = len(call.observations)
    arrays = [("observations", call.observations, _axis_text(env, n))]
    if call.actions is not None:
        arrays += [
            ("actions (sent in)", call.actions, f"axis 0: env ({n}), one action each"),
            ("rewards", call.rewards, f"axis 0: env ({n}), one reward each"),
            ("terminated", call.terminated, f"axis 0: env ({n}), did its episode end?"),
            ("truncated", call.truncated, f"axis 0: env ({n}), was its episode cut off?"),
        ]
    return pd.DataFrame(
        [
            {"array": name, "shape": str(array.shape), "dtype": str(array.dtype), "axes": axes}
            for name, array, axes in arrays
        ]
    )


def history_table(run: BatchRun) -> pd.DataFrame:
    """One row per remembered call (newest first): what it was and a few totals."""
    rows = []
    for call in reversed(run.history):
        row: dict[str, Any] = {
            "call": "reset(seed=...)" if call.kind == "reset" else f"step #{call.number}",
            "observations shape": str(call.observations.shape),
        }
        if call.rewards is not None:
            row["reward total"] = float(np.sum(call.rewards))
            row["terminated"] = int(np.sum(call.terminated))
            row["truncated"] = int(np.sum(call.truncated))
        rows.append(row)
    return pd.DataFrame(rows)


# --- Guess the shape -------------------------------------------------------------------------

_SHAPE_TEXT = re.compile(r"\s*[\(\[]?\s*([0-9]+(?:\s*[,x×]\s*[0-9]+)*)?\s*,?\s*[\)\]]?\s*")


def parse_shape(text: str) -> tuple[int, ...] | None:
    """Read a shape a learner typed: ``(4, 4)``, ``4,4``, ``4x4``, ``(8,)``; None if unreadable.

    Example:
        >>> parse_shape("(8,)"), parse_shape(" 4 x 4 "), parse_shape("four")
        ((8,), (4, 4), None)
    """
    if len(text) > 100:
        return None
    match = _SHAPE_TEXT.fullmatch(text)
    if match is None or match.group(1) is None:
        return None
    return tuple(int(part) for part in re.split(r"\s*[,x×]\s*", match.group(1).strip()))


@dataclass(frozen=True)
class GuessResult:
    """Whether a guess of the observation batch's shape and dtype was right, and why."""

    shape_right: bool
    dtype_right: bool
    explanation: str


def check_guess(
    shape_text: str, dtype_text: str, call: BatchCall, envs: VectorEnv, env: str
) -> GuessResult:
    """Compare a guess with the real observation batch and explain the real shape and dtype."""
    obs = call.observations
    n = len(obs)
    guessed = parse_shape(shape_text)
    shape_right = guessed == obs.shape
    dtype_right = dtype_text.strip() == str(obs.dtype)
    single = envs.single_observation_space
    if ENVS[env].scalar_observation:
        why_shape = (
            f"The shape is `{obs.shape}`: {n} envs on axis 0 and nothing more, because each "
            f"{env} observation is one single number (`single_observation_space` is "
            f"`{_short_repr(single)}`, shape `{single.shape}`). Stacking N single numbers "
            "gives a flat batch of shape (N,)."
        )
    else:
        k = obs.shape[1]
        why_shape = (
            f"The shape is `{obs.shape}`: {n} envs on axis 0 (one row per env) and {k} "
            f"observation components on axis 1 ({', '.join(ENVS[env].columns)}). The vector "
            f"env stacks each env's `{single.shape}` observation into one array."
        )
    why_dtype = (
        f"The dtype is `{obs.dtype}`: the single observation space has dtype "
        f"`{single.dtype}`, and batching keeps it."
    )
    if guessed is None:
        verdict = f"I could not read `{shape_text[:40]}` as a shape; try something like `(4, 4)`."
    elif shape_right:
        verdict = "Your shape is right."
    else:
        verdict = f"Your shape `{guessed}` is not it."
    if dtype_right:
        verdict += " Your dtype is right."
    elif not dtype_text.strip():
        verdict += " You did not pick a dtype."
    else:
        verdict += f" Your dtype `{dtype_text}` is not it."
    return GuessResult(shape_right, dtype_right, f"{verdict}\n\n{why_shape}\n\n{why_dtype}")


# --- Picture data ---------------------------------------------------------------------------


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
    """CartPole's pole angle (radians) per env for the first ``max_rows`` envs, long form."""
    angles = call.observations[:max_rows, 2].astype(np.float64)
    return pd.DataFrame({"env": np.arange(len(angles)), "pole angle": angles})
