"""Home's map: the lesson's code that no longer works as written, and a path through the pages."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from burgerbot.statistics import poisson_zero_chance
from burgerbot.world import GOAL_REWARD, NUM_ACTIONS, NUM_STATES, START_STATE, TABLES

__all__ = [
    "LESSON_FIXES",
    "PATH",
    "EpisodeFacts",
    "LessonFix",
    "Stop",
    "episode_facts",
    "lesson_goal_fix",
]

TARGET_GOALS = 20
"""Goals expected per setting before a doubling stands out from the noise."""


@dataclass(frozen=True)
class EpisodeFacts:
    """A uniformly random BurgerBot's episodes, computed exactly from the world's rules."""

    goal_chance: float
    """Probability that an episode ends at the goal."""
    mean_length: float
    """Expected env-steps per episode (time limit included)."""

    @property
    def goals_per_env_step(self) -> float:
        """Long-run goals per env-step (renewal: goals per episode over steps per episode)."""
        return self.goal_chance / self.mean_length

    def expected_goals(self, step_calls: int, num_envs: int) -> float:
        """Expected goals in ``step_calls`` calls of a NEXT_STEP vector env.

        Each episode also uses one reset call that is not a transition, hence the + 1.
        """
        return step_calls * num_envs * self.goal_chance / (self.mean_length + 1)


@cache
def episode_facts(max_steps: int = 150) -> EpisodeFacts:
    """Follow the probability of every state through one episode of uniformly random actions.

    >>> facts = episode_facts()
    >>> round(1 / facts.goal_chance, -2), round(facts.mean_length, 1)
    (3700.0, 9.9)
    """
    alive = np.zeros(NUM_STATES)
    alive[START_STATE] = 1.0
    is_goal = TABLES.reward == GOAL_REWARD
    goes_on = ~TABLES.terminated
    goal_chance = mean_length = 0.0
    for _ in range(max_steps):
        mean_length += alive.sum()  # the episode takes this step if it has not ended yet
        by_action = np.repeat(alive / NUM_ACTIONS, NUM_ACTIONS)  # index state * 4 + action
        goal_chance += by_action[is_goal].sum()
        alive = np.bincount(
            TABLES.next_state[goes_on], weights=by_action[goes_on], minlength=NUM_STATES
        )
    return EpisodeFacts(float(goal_chance), float(mean_length))


@dataclass(frozen=True)
class LessonFix:
    """One place where the lesson's code does not work as written today, and the fix."""

    kind: str
    """A key of `burgerbot.app.labels.VERDICTS`."""
    problem: str
    fix: str
    page: str
    """The file in app_pages/ that runs it."""
    link: str
    detail: str = ""
    """More on it, for a tooltip."""


def lesson_goal_fix(facts: EpisodeFacts | None = None) -> LessonFix:
    """The goal experiment's line, its expected counts computed from the world's rules."""
    facts = facts or episode_facts()
    four, eight = facts.expected_goals(500, 4), facts.expected_goals(500, 8)
    needed = float(f"{TARGET_GOALS / facts.goals_per_env_step:.2g}")
    return LessonFix(
        "not_visible",
        "500 steps with 4 envs, then 8: the goal count roughly doubles",
        f"true on average, but {four:.2f} and {eight:.2f} goals are expected: "
        f"{poisson_zero_chance(four):.0%} and {poisson_zero_chance(eight):.0%} of runs show none",
        "goal_scaling.py",
        "Goal scaling",
        f"A random BurgerBot reaches the goal in 1 episode of {1 / facts.goal_chance:,.0f}, "
        f"episodes last {facts.mean_length:.1f} steps on average (both computed exactly from "
        f"the world's rules). Seeing the doubling takes about {needed:,.0f} env-steps per "
        f"setting ({TARGET_GOALS} goals expected), or many seeds.",
    )


LESSON_FIXES = (
    LessonFix(
        "changed",
        "the call that ends an episode returns the next episode's first observation",
        "it returns the final one; the *next* call resets that env (NEXT_STEP)",
        "autoreset.py",
        "Auto-reset",
        "Since gymnasium 1.0 the default is `AutoresetMode.NEXT_STEP`: the reset call ignores "
        "that env's action and returns reward 0 with both flags False.",
    ),
    LessonFix(
        "changed",
        '`infos["final_observation"]`',
        'gone: `obs` of the ending call (NEXT_STEP), or `infos["final_obs"]` (SAME_STEP)',
        "autoreset.py",
        "Auto-reset",
        "`gym.vector.SyncVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP)` behaves as the "
        "lesson says, with the keys `final_obs` and `final_info` (and masks `_final_obs`, "
        "`_final_info`).",
    ),
    LessonFix(
        "never_valid",
        '`PPO("MlpPolicy", env, n_envs=4)`',
        "`make_vec_env(make_env, n_envs=4)`, then pass that to PPO",
        "sb3.py",
        "Stable-Baselines3",
        "No Stable-Baselines3 release had an `n_envs` argument on PPO: a mistake in the "
        "lesson's text, not a change in the library.",
    ),
    LessonFix(
        "never_valid",
        "a Gymnasium `SyncVectorEnv` given to PPO",
        "SB3's own VecEnv (`make_vec_env` builds a `DummyVecEnv`)",
        "sb3.py",
        "Stable-Baselines3",
        "No Stable-Baselines3 release ever trained on a Gymnasium vector env as N envs (older "
        "releases took it for one env with a batched observation and failed in training); "
        "SB3's own VecEnvs reset on the same step and keep the last observation in "
        '`infos[i]["terminal_observation"]`.',
    ),
)
"""The lines whose wording is fixed; `lesson_goal_fix` gives the goal experiment's line."""


@dataclass(frozen=True)
class Stop:
    """One stop on the suggested path: a page and what to do there."""

    page: str
    title: str
    what: str


PATH = (
    Stop("batch_shapes.py", "Batch shapes", "every array one call returns"),
    Stop("autoreset.py", "Auto-reset", "episodes ending and restarting"),
    Stop("training_data.py", "From batches to training data", "which rows are transitions"),
    Stop("why_batches.py", "Why batches help", "calls per PPO batch"),
    Stop("sb3.py", "Stable-Baselines3", "`make_vec_env` and SB3's VecEnv"),
    Stop("goal_scaling.py", "Goal scaling", "exercise 1: goals with 8 envs"),
    Stop("sync_vs_async.py", "Sync vs Async", "exercise 2: one process or many"),
    Stop("mistakes.py", "Shapes, dtypes and mistakes", "exercise 3, common errors"),
    Stop("lesson_vs_today.py", "The lesson vs today", "every disagreement, run live"),
)
"""The suggested order through the pages (the Glossary is there whenever a word is new)."""
