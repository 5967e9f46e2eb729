"""Tabular Q-learning on N BurgerBots stepping together, measured per env-step and per second.

`compare_num_envs` trains with N environments stepping together in a `BurgerBotVectorEnv`,
one batched update per ``step()`` call. Its learning curves are measured both against
env-steps (sample efficiency) and against wall-clock seconds (throughput), so both sides
of batching show. (PPO's rollout buffer is in `burgerbot.buffers`.)
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from burgerbot import checks, world
from burgerbot.experiments import Progress
from burgerbot.vector import BurgerBotVectorEnv

__all__ = [
    "QLearningConfig",
    "TrainingRun",
    "compare_num_envs",
    "curves_frame",
    "greedy_episode",
    "reliable_point",
    "runs_frame",
    "state_indices",
    "summarise_runs",
    "train_q_learning",
]

_ROW, _COL, _HEADING = 0, 1, 2
_STATE_STRIDE = (world.GRID_SIZE * world.NUM_HEADINGS, world.NUM_HEADINGS, 1)


@dataclass(frozen=True)
class QLearningConfig:
    """Settings of one tabular Q-learning run (the same for every NUM_ENVS compared)."""

    env_steps: int = 5_000
    """Transitions to collect in total (``num_envs`` per ``step()`` call)."""
    learning_rate: float = 0.5
    """How far each update moves Q towards its target (the world is deterministic)."""
    gamma: float = 0.95
    """Discount: the goal's +50 must beat circling forever for +1 per move."""
    epsilon: float = 0.1
    """Each env takes a uniformly random action with this probability."""
    eval_every: int = 100
    """Env-steps between two looks at the greedy policy (the curves' resolution)."""
    max_steps: int = 150
    """Time limit of an episode (BurgerBot's default)."""
    seed: int = 0
    """Seeds exploration and tie-breaking: the same seed gives the same curve."""

    def __post_init__(self) -> None:
        checks.positive_int("env_steps", self.env_steps)
        checks.positive_int("eval_every", self.eval_every)
        checks.positive_int("max_steps", self.max_steps)
        checks.seed(self.seed)
        for name, low, high in (
            ("learning_rate", 0.0, 1.0),
            ("gamma", 0.0, 1.0),
            ("epsilon", 0.0, 1.0),
        ):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not low <= value <= high:
                raise ValueError(f"`{name}` must be a number in [{low}, {high}], got {value!r}")


@dataclass
class TrainingRun:
    """One Q-learning run: its learning curve and the Q table it ended with."""

    num_envs: int
    seed: int
    curve: pd.DataFrame
    q_table: np.ndarray = field(repr=False)


def state_indices(observations: np.ndarray) -> np.ndarray:
    """The (row, col, heading) state number 0..195 of each observation ``[row, col, heading, _]``.

    Example:
        >>> state_indices(np.array([[0, 0, 1, 1], [6, 5, 1, 0]])).tolist()
        [1, 189]
    """
    obs = np.asarray(observations)
    return (
        obs[..., _ROW] * _STATE_STRIDE[0] + obs[..., _COL] * _STATE_STRIDE[1] + obs[..., _HEADING]
    )


def greedy_episode(q_table: np.ndarray, max_steps: int = 150) -> tuple[float, bool, int]:
    """Follow the greedy policy of ``q_table`` from the start: (return, reached goal, steps).

    The world is deterministic, so one episode says everything about a greedy policy.
    Ties go to the lowest action number.

    Example:
        >>> greedy_episode(np.zeros((world.NUM_STATES, world.NUM_ACTIONS)))  # forward into (0, 3)
        (-8.0, False, 3)
    """
    tables = world.TABLES
    best = np.argmax(q_table, axis=1).tolist()
    state, total = world.START_STATE, 0.0
    for step in range(1, max_steps + 1):
        key = state * world.NUM_ACTIONS + best[state]
        total += float(tables.reward[key])
        if tables.terminated[key]:
            return total, bool(tables.reward[key] == world.GOAL_REWARD), step
        state = int(tables.next_state[key])
    return total, False, max_steps


def train_q_learning(
    num_envs: int,
    config: QLearningConfig | None = None,
    progress: Progress | None = None,
) -> TrainingRun:
    """Tabular Q-learning with ``num_envs`` BurgerBots stepping together.

    Every ``step()`` call gives ``num_envs`` transitions and one batched update: each
    distinct (state, action) in the batch moves towards the *mean* of its targets (with
    ``np.add.at``), so N copies of the same transition count as one update, never N.
    The env runs in gymnasium's default NEXT_STEP auto-reset mode: the transition after
    an episode ends is a reset (its action is ignored) and is left out of the update.

    The curve has one row per look at the greedy policy (about every ``eval_every``
    env-steps): ``num_envs``, ``env_steps``, ``step_calls``, ``episodes`` (finished so
    far), ``seconds`` (training time so far, without the looks), ``greedy_return``,
    ``greedy_reaches_goal``, ``greedy_steps`` and ``goal_rate`` (share of the last 100
    finished training episodes, exploration included, that reached the goal).

    Example:
        >>> run = train_q_learning(4, QLearningConfig(env_steps=2_000, seed=0))
        >>> int(run.curve["env_steps"].iloc[-1]), run.q_table.shape
        (2000, (196, 4))
    """
    num_envs = checks.positive_int("num_envs", num_envs)
    config = config or QLearningConfig()
    calls = math.ceil(config.env_steps / num_envs)
    rng = np.random.default_rng(config.seed)
    q = np.zeros((world.NUM_STATES, world.NUM_ACTIONS), dtype=np.float64)
    sums = np.zeros(q.size, dtype=np.float64)
    counts = np.zeros(q.size, dtype=np.float64)
    every_env = np.arange(num_envs)
    recent_goals: list[bool] = []
    rows: list[dict[str, Any]] = []
    episodes = 0
    seconds = 0.0

    def look(call: int) -> None:
        total, reached, length = greedy_episode(q, config.max_steps)
        window = recent_goals[-100:]
        rows.append(
            {
                "num_envs": num_envs,
                "env_steps": call * num_envs,
                "step_calls": call,
                "episodes": episodes,
                "seconds": seconds,
                "greedy_return": total,
                "greedy_reaches_goal": reached,
                "greedy_steps": length,
                "goal_rate": float(np.mean(window)) if window else 0.0,
            }
        )

    envs = BurgerBotVectorEnv(num_envs, max_steps=config.max_steps)
    try:
        start = time.perf_counter()
        obs, _ = envs.reset(seed=config.seed)
        states = state_indices(obs)
        resetting = np.zeros(num_envs, dtype=np.bool_)
        look_every = max(1, round(config.eval_every / num_envs))
        report_every = max(1, calls // 50)
        for call in range(1, calls + 1):
            # Epsilon-greedy, ties broken at random so untried actions get tried.
            values = q[states]
            best = values == values.max(axis=1, keepdims=True)
            greedy = np.argmax(np.where(best, rng.random(values.shape), -1.0), axis=1)
            explore = rng.random(num_envs) < config.epsilon
            actions = np.where(explore, rng.integers(0, world.NUM_ACTIONS, num_envs), greedy)

            obs, rewards, terminated, truncated, _ = envs.step(actions)
            next_states = state_indices(obs)

            learn = ~resetting
            if learn.all():
                targets = rewards + config.gamma * q[next_states].max(axis=1) * ~terminated
                keys = states * world.NUM_ACTIONS + actions
            else:
                keep = every_env[learn]
                targets = (
                    rewards[keep]
                    + config.gamma * q[next_states[keep]].max(axis=1) * ~terminated[keep]
                )
                keys = states[keep] * world.NUM_ACTIONS + actions[keep]
            if keys.size:
                # Duplicate keys read the same sums and counts, so they write the same value.
                flat = q.reshape(-1)
                np.add.at(sums, keys, targets - flat[keys])
                np.add.at(counts, keys, 1.0)
                flat[keys] += config.learning_rate * sums[keys] / counts[keys]
                sums[keys] = 0.0
                counts[keys] = 0.0

            ended = (terminated | truncated) & learn
            if ended.any():
                episodes += int(ended.sum())
                recent_goals.extend((rewards[ended] == world.GOAL_REWARD).tolist())
                del recent_goals[:-100]
            resetting = terminated | truncated
            states = next_states

            looking = call % look_every == 0 or call == calls
            reporting = progress is not None and (call % report_every == 0 or call == calls)
            if looking or reporting:
                seconds += time.perf_counter() - start
                if looking:
                    look(call)
                if reporting and progress is not None:
                    progress(call / calls, f"NUM_ENVS={num_envs}: {call * num_envs:,} env-steps")
                start = time.perf_counter()
    finally:
        envs.close()
    return TrainingRun(num_envs=num_envs, seed=config.seed, curve=pd.DataFrame(rows), q_table=q)


def reliable_point(curve: pd.DataFrame) -> pd.Series | None:
    """The first look from which the greedy policy reaches the goal at every later look too.

    Returns that row of one run's ``curve`` (so its ``env_steps``, ``episodes``,
    ``seconds``), or ``None`` when the last look still misses the goal.
    """
    reaches = curve["greedy_reaches_goal"].to_numpy(dtype=bool)
    if reaches.size == 0 or not reaches[-1]:
        return None
    misses = np.flatnonzero(~reaches)
    first = 0 if misses.size == 0 else int(misses[-1]) + 1
    return curve.iloc[first]


def runs_frame(runs: Sequence[TrainingRun]) -> pd.DataFrame:
    """One row per run: where its greedy policy started reaching the goal for good.

    Columns: ``num_envs``, ``seed``, ``reached`` (bool), ``env_steps``, ``step_calls``,
    ``episodes``, ``seconds`` (missing when not reached), ``env_steps_per_s`` (over the
    whole run) and ``final_greedy_return``.
    """
    rows = []
    for run in runs:
        point = reliable_point(run.curve)
        last = run.curve.iloc[-1]
        rows.append(
            {
                "num_envs": run.num_envs,
                "seed": run.seed,
                "reached": point is not None,
                "env_steps": None if point is None else int(point["env_steps"]),
                "step_calls": None if point is None else int(point["step_calls"]),
                "episodes": None if point is None else int(point["episodes"]),
                "seconds": None if point is None else float(point["seconds"]),
                "env_steps_per_s": (
                    float(last["env_steps"] / last["seconds"]) if last["seconds"] > 0 else math.inf
                ),
                "final_greedy_return": float(last["greedy_return"]),
            }
        )
    frame = pd.DataFrame(rows)
    for column in ("env_steps", "step_calls", "episodes"):
        frame[column] = frame[column].astype("Int64")
    frame["seconds"] = frame["seconds"].astype("Float64")
    return frame


def summarise_runs(runs: Sequence[TrainingRun]) -> pd.DataFrame:
    """One row per NUM_ENVS: medians over its seeds of when the goal was reached reliably.

    Columns: ``num_envs``, ``seeds`` (runs), ``reached`` (runs whose greedy policy reaches
    the goal reliably by the end), ``env_steps``, ``step_calls``, ``episodes``,
    ``seconds`` (medians over the runs that reached it; missing if none did) and
    ``env_steps_per_s`` (median throughput over all runs).
    """
    per_run = runs_frame(runs)
    rows = []
    for _, group in per_run.groupby("num_envs", sort=False):
        reached = group[group["reached"]]
        n = int(group["num_envs"].iloc[0])
        row: dict[str, Any] = {"num_envs": n, "seeds": len(group), "reached": len(reached)}
        for column in ("env_steps", "step_calls", "episodes", "seconds"):
            row[column] = float(reached[column].median()) if len(reached) else None
        row["env_steps_per_s"] = float(group["env_steps_per_s"].median())
        rows.append(row)
    frame = pd.DataFrame(rows)
    for column in ("env_steps", "step_calls", "episodes", "seconds"):
        frame[column] = frame[column].astype("Float64")
    return frame


def curves_frame(runs: Sequence[TrainingRun]) -> pd.DataFrame:
    """Long form for the charts: one row per (NUM_ENVS, look), averaged over the seeds.

    Runs with the same NUM_ENVS look at the same env-step counts. Columns: ``num_envs``,
    ``env_steps``, ``step_calls``, ``seconds`` (mean training time to get there),
    ``reaches_goal`` (share of seeds whose greedy policy reaches the goal, 0..1),
    ``greedy_return`` and ``goal_rate`` (means).
    """
    if not runs:
        raise ValueError("`runs` must hold at least one training run")
    curves = pd.concat([run.curve for run in runs], ignore_index=True)
    curves["reaches_goal"] = curves["greedy_reaches_goal"].astype(float)
    return (
        curves.groupby(["num_envs", "env_steps", "step_calls"], sort=True)
        .agg(
            seconds=("seconds", "mean"),
            reaches_goal=("reaches_goal", "mean"),
            greedy_return=("greedy_return", "mean"),
            goal_rate=("goal_rate", "mean"),
        )
        .reset_index()
    )


def compare_num_envs(
    num_envs_list: Sequence[int],
    seeds: Sequence[int] = (0,),
    config: QLearningConfig | None = None,
    progress: Progress | None = None,
) -> list[TrainingRun]:
    """Train once per (NUM_ENVS, seed) with otherwise the same settings.

    The runs are made seed by seed, every NUM_ENVS in turn (interleaved), so a moment when
    the machine is busy slows runs of several NUM_ENVS rather than every run of one, and
    their timings can be compared (`burgerbot.bench.compare_timings`). They are returned
    by NUM_ENVS, then seed.

    Example:
        >>> runs = compare_num_envs([1, 4], seeds=[0, 1], config=QLearningConfig(env_steps=400))
        >>> [(run.num_envs, run.seed) for run in runs]
        [(1, 0), (1, 1), (4, 0), (4, 1)]
    """
    sizes = [checks.positive_int("num_envs", n) for n in num_envs_list]
    seed_list = [checks.seed(s) for s in seeds]
    if not sizes or not seed_list:
        raise ValueError(
            f"give at least one NUM_ENVS and one seed, got {num_envs_list!r} and {seeds!r}"
        )
    config = config or QLearningConfig()
    combos = [(n, s) for s in seed_list for n in sizes]
    runs = {}
    for index, (n, s) in enumerate(combos):

        def report(fraction: float, message: str, index: int = index, s: int = s) -> None:
            if progress is not None:
                progress((index + fraction) / len(combos), f"{message} (seed {s})")

        runs[n, s] = train_q_learning(n, replace(config, seed=s), report)
    return [runs[n, s] for n in sizes for s in seed_list]
