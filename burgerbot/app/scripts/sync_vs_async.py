"""The "Sync vs Async" page's script: the lesson's exercise 2, Sync against Async, timed."""

from __future__ import annotations

__all__ = ["COMPARISON", "EXERCISE_ANSWER"]

EXERCISE_ANSWER = '''"""Exercise 2: time 4 BurgerBots x 1,000 step() calls, Sync against Async."""

import time

import gymnasium as gym

from burgerbot.factories import burgerbot_factory

NUM_ENVS = 4
STEPS = 1_000


def time_steps(vector_env_class, **options):
    """Seconds that STEPS step() calls take in a ``vector_env_class`` of NUM_ENVS BurgerBots."""
    envs = vector_env_class([burgerbot_factory() for _ in range(NUM_ENVS)], **options)
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
    sync_s = time_steps(gym.vector.SyncVectorEnv)
    # The swap: same factories, one worker process per env ("spawn" starts each afresh).
    # Every call then pickles the actions out and rewards, flags and infos back through
    # pipes (observations come back through shared memory): Sync needs none of that.
    async_s = time_steps(gym.vector.AsyncVectorEnv, context="spawn")
    for name, seconds in (("SyncVectorEnv", sync_s), ("AsyncVectorEnv", async_s)):
        print(f"{name:15} {seconds:7.3f} s {NUM_ENVS * STEPS / seconds:12,.0f} env-steps/s")
    if sync_s <= async_s:
        print(f"Sync was {async_s / sync_s:.1f}x as fast as Async")
    else:
        print(f"Async was {sync_s / async_s:.1f}x as fast as Sync")


# Needed by "spawn": each worker imports this file, and must not run main() again.
if __name__ == "__main__":
    main()
'''
"""The answer to the lesson's exercise 2, a whole script (the page hides it behind a toggle)."""

COMPARISON = '''"""The lesson's comparison: Sync, Async, native; 4 BurgerBots x 1,000 calls."""

import time

import gymnasium as gym
import numpy as np

from burgerbot import BurgerBotVectorEnv
from burgerbot.factories import burgerbot_factory

NUM_ENVS = 4
STEPS = 1_000  # step() calls per run


def build(backend):
    if backend == "native":  # one object, all robots in numpy arrays
        return BurgerBotVectorEnv(NUM_ENVS)
    env_fns = [burgerbot_factory() for _ in range(NUM_ENVS)]
    if backend == "sync":  # all envs in this process, called one after another
        return gym.vector.SyncVectorEnv(env_fns)
    # One worker process per env, started fresh ("spawn"). In every call the actions go
    # out, and rewards, flags and infos come back, pickled through pipes; observations
    # come back through shared memory (shared_memory=True, the default).
    return gym.vector.AsyncVectorEnv(env_fns, context="spawn")


def time_steps(backend):
    """Seconds per step() call of STEPS calls with random actions."""
    actions = np.random.default_rng(0).integers(0, 4, size=(STEPS, NUM_ENVS))
    envs = build(backend)
    try:
        envs.reset(seed=0)
        start = time.perf_counter()
        for step_actions in actions:
            envs.step(step_actions)
        return (time.perf_counter() - start) / STEPS
    finally:
        envs.close()  # always: Async's workers must not outlive the run


def main():
    per_call = {backend: time_steps(backend) for backend in ("sync", "async", "native")}
    for backend, seconds in per_call.items():
        rate = NUM_ENVS / seconds
        print(f"{backend:7} {seconds * 1e6:9,.1f} us per call {rate:12,.0f} env-steps/s")
    extra = per_call["async"] - per_call["sync"]
    per_env = extra / NUM_ENVS
    print(f"Async's extra time per call: {extra * 1e6:,.1f} us ({per_env * 1e6:,.1f} per env)")


if __name__ == "__main__":  # needed by "spawn": each worker imports this file again
    main()
'''
"""The lesson's comparison as a whole script, timed once (the page times it in 3 rounds)."""
