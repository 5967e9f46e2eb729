"""The "Sync vs Async" page's script: the lesson's exercise 2, Sync against Async, timed."""

from __future__ import annotations

from burgerbot.app.scripts import LESSON_MAKE_ENV

__all__ = ["EXERCISE_ANSWER"]

EXERCISE_ANSWER = (
    '''"""Exercise 2: time 4 BurgerBots x 1,000 step() calls, Sync against Async."""

import time
from statistics import median

import gymnasium as gym

from burgerbot.env import BurgerBotEnv

NUM_ENVS = 4
STEPS = 1_000
ROUNDS = 3


'''
    + LESSON_MAKE_ENV
    + '''

def time_steps(vector_env_class, **options):
    """Seconds that STEPS step() calls take in a ``vector_env_class`` of NUM_ENVS BurgerBots."""
    envs = vector_env_class([make_env(i) for i in range(NUM_ENVS)], **options)
    try:
        envs.reset(seed=0)
        envs.action_space.seed(0)
        actions = [envs.action_space.sample() for _ in range(STEPS)]  # drawn before timing
        start = time.perf_counter()
        for step_actions in actions:
            envs.step(step_actions)
        return time.perf_counter() - start
    finally:
        envs.close()  # stops Async's worker processes


def main():
    times = {"SyncVectorEnv": [], "AsyncVectorEnv": []}
    for _ in range(ROUNDS):  # rounds taken in turns: a busy moment slows both alike
        times["SyncVectorEnv"].append(time_steps(gym.vector.SyncVectorEnv))
        # The swap: same factories, one worker process per env ("spawn" starts each afresh).
        # Every call then pickles the actions out and rewards, flags and infos back through
        # pipes (observations come back through shared memory): Sync needs none of that.
        times["AsyncVectorEnv"].append(time_steps(gym.vector.AsyncVectorEnv, context="spawn"))
    for name, seconds in times.items():
        low, high = min(seconds), max(seconds)
        print(f"{name:15} {median(seconds):7.3f} s (rounds {low:.3f} to {high:.3f})")
    sync_s, async_s = times["SyncVectorEnv"], times["AsyncVectorEnv"]
    ratio = median(async_s) / median(sync_s)
    if max(sync_s) < min(async_s):  # Sync's slowest round beat Async's fastest
        print(f"Sync was faster in every round: ratio of medians {ratio:.1f}x")
    elif max(async_s) < min(sync_s):
        print(f"Async was faster in every round: ratio of medians {1 / ratio:.1f}x")
    else:
        print("The rounds overlap: Sync and Async could not be told apart here")


# Needed by "spawn": each worker imports this file, and must not run main() again.
if __name__ == "__main__":
    main()
'''
)
"""The answer to the lesson's exercise 2, a whole script (the page hides it behind a toggle)."""
