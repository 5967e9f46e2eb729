"""The "Goal scaling" page as a script: the same sweep, the same random actions, the same counts."""

from __future__ import annotations

from burgerbot.app.logic.goal_scaling import ScalingSettings

__all__ = ["EXERCISE_RUNS", "exercise_answer_script", "snippet_for"]


def snippet_for(settings: ScalingSettings) -> str:
    """A self-contained script that runs the page's sweep and prints one line per (N, seed).

    Its actions are drawn exactly as ``experiments.random_actions`` draws them
    (``np.random.default_rng(seed).integers(0, 4, ...)``, 1,000 steps at a time), so it
    prints the same goals, hits and episodes as the page's table.
    """
    sizes = ", ".join(str(n) for n in settings.num_envs)
    if settings.budget == "total":
        budget = f"TOTAL_ENV_STEPS = {settings.total_env_steps}  # the same for every NUM_ENVS\n"
        steps_line = "    steps = TOTAL_ENV_STEPS // num_envs  # step() calls per env"
    else:
        budget = f"STEPS_PER_ENV = {settings.steps_per_env}  # step() calls per run\n"
        steps_line = "    steps = STEPS_PER_ENV"
    if settings.backend == "native":
        imports = "import numpy as np\n\nfrom burgerbot import BurgerBotVectorEnv\n"
        build = (
            "    # native: all robots in one set of numpy arrays, no Python loop over envs.\n"
            "    envs = BurgerBotVectorEnv(num_envs)"
        )
    else:
        imports = (
            "import gymnasium as gym\nimport numpy as np\n\n"
            "from burgerbot.factories import make_env\n"
        )
        build = (
            "    # make_env() returns a zero-argument function that builds one BurgerBot.\n"
            "    envs = gym.vector.SyncVectorEnv([make_env() for _ in range(num_envs)])"
        )
    return f'''"""Goal scaling: a random BurgerBot agent, NUM_ENVS copies, goals per seed."""

{imports}
NUM_ENVS_LIST = [{sizes}]
{budget}SEEDS = range({settings.seeds})
GOAL_REWARD = 50.0  # a reward of exactly 50 means "reached the goal"
HIT_REWARD = -10.0  # bumped into a wall or an obstacle
CHUNK = 1_000  # draw actions 1,000 steps at a time (same numbers as drawing them all at once)

print("NUM_ENVS  seed  env-steps  goals  hits  episodes")
for num_envs in NUM_ENVS_LIST:
{steps_line}
{build}
    try:
        for seed in SEEDS:
            envs.reset(seed=seed)
            rng = np.random.default_rng(seed)  # the actions depend only on the seed
            goals = hits = episodes = 0
            for start in range(0, steps, CHUNK):
                chunk = rng.integers(0, 4, size=(min(CHUNK, steps - start), num_envs))
                for actions in chunk:  # one action per env: shape (num_envs,)
                    _, rewards, terminated, truncated, _ = envs.step(actions)
                    goals += int(np.sum(rewards == GOAL_REWARD))
                    hits += int(np.sum(rewards == HIT_REWARD))
                    episodes += int(np.sum(terminated | truncated))
            print(f"{{num_envs:8d}}  {{seed:4d}}  {{num_envs * steps:9d}}  {{goals:5d}}  "
                  f"{{hits:4d}}  {{episodes:8d}}")
    finally:
        envs.close()
'''


EXERCISE_RUNS = 1_000
"""Runs of the lesson's experiment the exercise's answer makes at once, for each NUM_ENVS."""


def exercise_answer_script(runs: int = EXERCISE_RUNS) -> str:
    """The answer to the lesson's exercise 1, as a whole script.

    It runs the lesson's experiment once (4 envs, then 8, 500 steps: almost always 0 goals
    either way), then ``runs`` times at once in one big native env (each run its own group
    of 4 or 8 robots) and compares the mean goals per run with their 95% intervals.
    """
    return f'''"""Exercise 1: set NUM_ENVS to 8, run 500 steps. Do goal reaches roughly double?"""

import numpy as np

from burgerbot import BurgerBotVectorEnv  # this project's native vector env (not Gymnasium's)
from burgerbot.statistics import poisson_interval

STEPS = 500  # step() calls per run, as in the lesson
RUNS = {runs:_}  # how many times part 2 repeats the lesson's experiment
GOAL_REWARD = 50.0  # a reward of exactly 50 means "reached the goal"


def goals_per_robot(num_robots, steps, seed):
    """Goals each of num_robots random BurgerBots reaches in `steps` step() calls."""
    envs = BurgerBotVectorEnv(num_robots)
    try:
        envs.reset(seed=seed)
        actions = np.random.default_rng(seed).integers(0, 4, size=(steps, num_robots))
        goals = np.zeros(num_robots, dtype=np.int64)
        for row in actions:
            _, rewards, _, _, _ = envs.step(row)
            goals += rewards == GOAL_REWARD
        return goals
    finally:
        envs.close()


# 1. The lesson's experiment, once: far too few env-steps for a goal to be likely.
print("1. One run each, seed 0:")
for num_envs in (4, 8):
    goals = int(goals_per_robot(num_envs, STEPS, seed=0).sum())
    env_steps = num_envs * STEPS
    print(f"   {{num_envs}} envs x {{STEPS}} steps = {{env_steps:,}} env-steps: {{goals}} goals")

# 2. The same experiment RUNS times. Robots are independent, so one native env of
#    RUNS * num_envs robots is RUNS runs at once: group its robots num_envs by num_envs.
print(f"2. {{RUNS:,}} runs each (one big native env, robots grouped into runs):")
means, zeros = {{}}, {{}}
for num_envs in (4, 8):
    per_run = goals_per_robot(RUNS * num_envs, STEPS, seed=1).reshape(RUNS, num_envs).sum(axis=1)
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
