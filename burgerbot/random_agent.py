"""Exact goal figures for a uniformly random agent, from the world's rules (no simulation).

The world is small and deterministic, and a random agent picks each of the 4 actions with
chance 1/4: one episode from the start is a Markov chain over the 196 (row, col, heading)
states, run for at most ``max_steps`` steps. From it follow, exactly, the chance that the
episode reaches the goal at each step and the chance that it ends at each step. Episodes
follow one another (a renewal process): in NEXT_STEP mode one auto-reset row separates them,
in SAME_STEP mode none. That gives the expected goals, and the chance of none, of any number
of ``step()`` calls. Sub-environments are independent: with N of them the expected count is N
times one env's, and the chance of none is one env's to the power N.

Counts are per row a vector env returns (env-steps): in NEXT_STEP mode the reset row that
follows each episode's end is a row, though not a transition.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

from burgerbot.world import GOAL_REWARD, NUM_ACTIONS, NUM_STATES, START_STATE, TABLES

__all__ = [
    "DEFAULT_MAX_STEPS",
    "MODES",
    "EpisodeOdds",
    "GoalOdds",
    "episode_odds",
    "goal_odds",
    "long_run_goal_rate",
]

MODES = ("NEXT_STEP", "SAME_STEP")
"""The auto-reset modes these figures cover (DISABLED never resets by itself)."""
DEFAULT_MAX_STEPS = 150
"""BurgerBot's time limit, as `BurgerBotEnv` and ``BurgerBot-v0`` use it."""
_EXACT_CALLS = 20_000
"""Calls worked out term by term; past them the renewal terms have settled (see `goal_odds`)."""


@dataclass(frozen=True)
class EpisodeOdds:
    """One random episode from the start, step by step (index k: the episode's k-th step)."""

    goal_at: np.ndarray  # chance that step k reaches the goal (index 0 unused)
    ends_at: np.ndarray  # chance that the episode ends at step k, goal or not
    reset_rows: int  # rows between one episode's last step and the next one's first (0 or 1)

    @property
    def goal_chance(self) -> float:
        """The chance that an episode reaches the goal (about 1 in 3,700)."""
        return float(self.goal_at.sum())

    @property
    def mean_length(self) -> float:
        """Steps in an episode, on average (about 10)."""
        return float(np.arange(len(self.ends_at)) @ self.ends_at)

    @property
    def mean_rows(self) -> float:
        """Rows an episode takes in a vector env: its steps and, in NEXT_STEP, its reset row."""
        return self.mean_length + self.reset_rows

    @property
    def goal_rate(self) -> float:
        """Goals per env-step (row) in the long run."""
        return self.goal_chance / self.mean_rows


@dataclass(frozen=True)
class GoalOdds:
    """Goals a random agent collects in ``calls`` ``step()`` calls on ``num_envs`` envs."""

    calls: int
    num_envs: int
    mode: str
    expected_goals: float
    chance_of_none: float

    @property
    def env_steps(self) -> int:
        """Rows the vector env returns over the run (calls x envs)."""
        return self.calls * self.num_envs

    @property
    def chance_of_some(self) -> float:
        """The chance of seeing at least one goal."""
        return 1.0 - self.chance_of_none

    def describe(self) -> str:
        """The two figures in words, as every page of the app gives them.

        Example:
            >>> goal_odds(500, 4).describe()
            '0.0453 goals expected, none in 95.6% of runs'
        """
        return (
            f"{self.expected_goals:.4f} goals expected, none in {self.chance_of_none:.1%} of runs"
        )


def _check_mode(mode: str, max_steps: int) -> None:
    if mode not in MODES:
        raise ValueError(f"`mode` must be one of {MODES}, got {mode!r}")
    if max_steps < 1:
        raise ValueError(f"`max_steps` must be at least 1, got {max_steps!r}")


@cache
def episode_odds(mode: str = "NEXT_STEP", max_steps: int = DEFAULT_MAX_STEPS) -> EpisodeOdds:
    """One random episode, worked out step by step from the world's tables.

    Example:
        >>> odds = episode_odds()
        >>> round(1 / odds.goal_chance, -2), round(odds.mean_length, 1), odds.mean_rows > 10.9
        (3700.0, 9.9, True)
    """
    _check_mode(mode, max_steps)
    keys = np.arange(NUM_STATES)[:, None] * NUM_ACTIONS + np.arange(NUM_ACTIONS)
    goal = (TABLES.reward[keys] == GOAL_REWARD).sum(axis=1) / NUM_ACTIONS
    ends = TABLES.terminated[keys].sum(axis=1) / NUM_ACTIONS
    goes_on = ~TABLES.terminated[keys]
    goal_at, ends_at = np.zeros(max_steps + 1), np.zeros(max_steps + 1)
    alive: np.ndarray = np.zeros(NUM_STATES)  # where the robot is, over episodes still going
    alive[START_STATE] = 1.0
    for step in range(1, max_steps + 1):
        goal_at[step] = alive @ goal
        if step == max_steps:  # truncation ends every episode still going
            ends_at[step] = alive.sum()
            break
        ends_at[step] = alive @ ends
        alive = np.bincount(
            TABLES.next_state[keys][goes_on],
            weights=np.repeat(alive, NUM_ACTIONS)[goes_on.ravel()] / NUM_ACTIONS,
            minlength=NUM_STATES,
        )
    return EpisodeOdds(goal_at, ends_at, 1 if mode == "NEXT_STEP" else 0)


def _starts(lengths: np.ndarray, gap: int, calls: int) -> np.ndarray:
    """``starts[n]``: the chance that an episode starts at call n (1-based; index 0 unused).

    The first starts at call 1; one that ends after k steps is followed, ``gap`` reset rows
    later, by the next: ``starts[n] = sum_k starts[n - k - gap] * lengths[k]``. With
    ``lengths`` the chances of ending without a goal, it is the chance of starting at n with
    no goal before.
    """
    longest = len(lengths) - 1
    reach = longest + gap
    padded = np.zeros(calls + 1 + reach)  # `reach` zeros, then calls 0..calls
    padded[reach + 1] = 1.0
    # starts[n] = padded[reach + n]; the kernel holds lengths[k] at the offset k + gap.
    kernel = np.zeros(reach + 1)
    kernel[gap:] = lengths
    backwards = kernel[::-1][:-1]  # offsets reach .. 1
    for n in range(2, calls + 1):
        padded[reach + n] = padded[n : n + reach] @ backwards
    return padded[reach:]


def _within(odds: EpisodeOdds, starts: np.ndarray, calls: int, tail: float, ratio: float) -> float:
    """Goals expected by call ``calls`` from episodes starting at 1..calls (``starts``).

    An episode that starts at call n has ``calls - n + 1`` calls left: its goal chance up to
    that step counts. Calls past the exact part use ``tail * ratio ** (n - exact)``.
    """
    cumulative = np.cumsum(odds.goal_at)
    longest = len(odds.goal_at) - 1
    exact = len(starts) - 1
    full_until = calls - longest  # episodes starting by here have all their steps left
    total = 0.0
    # Starts with every step left: their whole goal chance counts.
    exact_full = min(full_until, exact)
    if exact_full >= 1:
        total += odds.goal_chance * float(starts[1 : exact_full + 1].sum())
    if full_until > exact:
        count = full_until - exact
        tail_sum = count * tail if ratio == 1.0 else tail * ratio * (1 - ratio**count) / (1 - ratio)
        total += odds.goal_chance * tail_sum
    # The last episodes, cut short by the end of the run.
    for n in range(max(1, full_until + 1), calls + 1):
        start = starts[n] if n <= exact else tail * ratio ** (n - exact)
        total += start * cumulative[calls - n + 1]
    return total


@lru_cache(maxsize=1024)  # pages ask for the same runs on every rerun; up to 0.3 s each
def goal_odds(
    calls: int, num_envs: int = 1, mode: str = "NEXT_STEP", max_steps: int = DEFAULT_MAX_STEPS
) -> GoalOdds:
    """Expected goals, and the chance of none, in ``calls`` random ``step()`` calls after a reset.

    Up to 20,000 calls every term is worked out; past them the chance that an episode starts
    at a call has settled to 1 / mean rows, and the no-goal chance shrinks by a fixed ratio per
    call, both to machine precision (the tests check it against the term-by-term sums).

    Example:
        >>> odds = goal_odds(500, num_envs=4)
        >>> round(odds.expected_goals, 4), round(odds.chance_of_none, 3)
        (0.0453, 0.956)
    """
    _check_mode(mode, max_steps)
    if calls < 0:
        raise ValueError(f"`calls` must be 0 or more, got {calls!r}")
    if num_envs < 1:
        raise ValueError(f"`num_envs` must be 1 or more, got {num_envs!r}")
    odds = episode_odds(mode, max_steps)
    exact = min(calls, _EXACT_CALLS)
    if exact == 0:
        return GoalOdds(calls, num_envs, mode, 0.0, 1.0)
    starts = _starts(odds.ends_at, odds.reset_rows, exact)
    clean = _starts(odds.ends_at - odds.goal_at, odds.reset_rows, exact)
    # Past the exact part (only when calls > 20,000): the settled renewal terms.
    settled = float(clean[-1] / clean[-2]) if calls > exact else 1.0
    expected = _within(odds, starts, calls, 1.0 / odds.mean_rows, 1.0)
    first_goal = _within(odds, clean, calls, float(clean[-1]), settled)
    return GoalOdds(
        calls, num_envs, mode, float(num_envs * expected), float((1.0 - first_goal) ** num_envs)
    )


def long_run_goal_rate(mode: str = "NEXT_STEP", max_steps: int = DEFAULT_MAX_STEPS) -> float:
    """Goals per env-step (row) over a long run: a goal about every 1 / rate rows.

    Example:
        >>> round(1 / long_run_goal_rate(), -2)
        40200.0
    """
    return episode_odds(mode, max_steps).goal_rate
