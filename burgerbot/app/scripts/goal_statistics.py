"""The "Goal statistics" page as a script: the same sweep, the same random actions, the same
counts."""

from __future__ import annotations

from burgerbot.app.logic.goal_statistics import ScalingSettings

__all__ = ["snippet_for"]


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
            "from burgerbot.factories import burgerbot_factory\n"
        )
        build = (
            "    # burgerbot_factory() returns a zero-argument function building one BurgerBot.\n"
            "    envs = gym.vector.SyncVectorEnv([burgerbot_factory() for _ in range(num_envs)])"
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
