"""The "Goal scaling" page's script: exercise 1 answered, the lesson's run once and then
thousands of times."""

from __future__ import annotations

from burgerbot.app.logic.goal_scaling import DEFAULT_RUNS
from burgerbot.app.scripts import LESSON_MAKE_ENV

__all__ = ["exercise_answer_script", "lesson_run_script"]


def lesson_run_script(seed: int = 0) -> str:
    """The lesson's experiment as the page runs it live: 4 random BurgerBots for 500
    ``step()`` calls in a `SyncVectorEnv`, then 8; it prints the page's goals for the same
    seed (the actions are drawn as `burgerbot.experiments.random_actions` does).
    """
    return f'''"""The lesson's experiment with 4 envs, then 8."""

import numpy as np
from gymnasium.vector import SyncVectorEnv

from burgerbot.env import BurgerBotEnv

STEPS = 500  # step() calls, as in the lesson
SEED = {seed}


{LESSON_MAKE_ENV}

for num_envs in (4, 8):
    envs = SyncVectorEnv([make_env(i) for i in range(num_envs)])
    envs.reset(seed=SEED)
    actions = np.random.default_rng(SEED).integers(0, 4, size=(STEPS, num_envs))
    goals = 0
    for step_actions in actions:
        _, rewards, _, _, _ = envs.step(step_actions)
        goals += int(np.count_nonzero(rewards == 50.0))  # 50.0: reached the goal
    envs.close()
    print(f"{{num_envs}} envs x {{STEPS}} steps: {{goals}} goals")
'''


def exercise_answer_script(runs: int = DEFAULT_RUNS, seed: int = 0) -> str:
    """The answer to the lesson's exercise 1, as a whole script.

    It runs the lesson's experiment once (4 envs, then 8, 500 steps: almost always 0 goals
    either way), then ``runs`` times at once in one big native env (each run its own group
    of 4 or 8 robots) and compares the mean goals per run with their 95% intervals. With the
    page's runs and seed it prints the page's figures (`logic.goal_scaling.repeat_lesson`).
    """
    return f'''"""Exercise 1: set NUM_ENVS to 8, run 500 steps. Do goal reaches roughly double?"""

import numpy as np

from burgerbot import BurgerBotVectorEnv  # this project's native vector env (not Gymnasium's)
from burgerbot.statistics import poisson_interval

STEPS = 500  # step() calls per run, as in the lesson
RUNS = {runs:_}  # how many times part 2 repeats the lesson's experiment
SEED = {seed}
GOAL_REWARD = 50.0  # a reward of exactly 50 means "reached the goal"


def goals_per_robot(num_robots, steps, seed):
    """Goals each of num_robots random BurgerBots reaches in `steps` step() calls."""
    envs = BurgerBotVectorEnv(num_robots)
    try:
        envs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        goals = np.zeros(num_robots, dtype=np.int64)
        for _ in range(steps):
            actions = rng.integers(0, 4, size=num_robots)  # one action per robot
            _, rewards, _, _, _ = envs.step(actions)
            goals += rewards == GOAL_REWARD
        return goals
    finally:
        envs.close()


# 1. The lesson's experiment, once: far too few env-steps for a goal to be likely.
print(f"1. One run each, seed {{SEED}}:")
for num_envs in (4, 8):
    goals = int(goals_per_robot(num_envs, STEPS, SEED).sum())
    env_steps = num_envs * STEPS
    print(f"   {{num_envs}} envs x {{STEPS}} steps = {{env_steps:,}} env-steps: {{goals}} goals")

# 2. The same experiment RUNS times. Robots are independent, so one native env of
#    RUNS * num_envs robots is RUNS runs at once: group its robots num_envs by num_envs.
print(f"2. {{RUNS:,}} runs each (one big native env, robots grouped into runs):")
means, zeros = {{}}, {{}}
for num_envs in (4, 8):
    per_run = goals_per_robot(RUNS * num_envs, STEPS, SEED).reshape(RUNS, num_envs).sum(axis=1)
    total = int(per_run.sum())
    low, high = (bound / RUNS for bound in poisson_interval(total))  # exact Poisson interval
    means[num_envs] = (total / RUNS, low, high)
    zeros[num_envs] = np.mean(per_run == 0)
    print(
        f"   {{num_envs}} envs: {{total / RUNS:.4f}} goals per run "
        f"(95% interval {{low:.4f}} to {{high:.4f}}); {{zeros[num_envs]:.1%}} of runs saw 0"
    )

(mean_4, _, high_4), (mean_8, low_8, _) = means[4], means[8]
print(f"8 envs reach {{mean_8 / mean_4:.2f}}x the goals of 4 envs on average.")
if high_4 < low_8:
    print("The intervals are apart: roughly double, yes, on average over many runs.")
else:
    print("The intervals overlap: even these runs cannot tell. Raise RUNS.")
print(
    f"Yet one run of {{STEPS}} steps showed 0 goals {{zeros[4]:.0%}} of the time with 4 envs and "
    f"{{zeros[8]:.0%}} with 8: a single run mostly compares 0 with 0 and cannot show the doubling."
)
'''
