"""The "Cost sweeps" page as a script: time each backend for the page's NUM_ENVS values."""

from __future__ import annotations

from burgerbot.app.timing import TimingSettings, plan

__all__ = ["snippet_for"]


def snippet_for(settings: TimingSettings) -> str:
    """A self-contained script that times the page's sweep and prints env-steps/s per run.

    It prints one line per (backend, NUM_ENVS) the page runs, in the page's order. The
    numbers differ from run to run (and from the page): they are timings.
    """
    runs, _ = plan(settings)
    runs_text = "".join(
        f'    ("{backend}", [{", ".join(str(n) for n in sizes)}]),\n'
        for backend, sizes in runs.items()
    )
    cost = ""
    cost_args = ""
    if settings.work_us:
        cost = (
            f"WORK_SECONDS = {settings.work_seconds!r}  # extra cost of every env-step\n"
            f'WORK_KIND = "{settings.work_kind}"  # "busy" burns CPU, "sleep" just waits\n'
        )
        cost_args = "work_seconds=WORK_SECONDS, work_kind=WORK_KIND"
    return f'''"""Sync vs Async vs native: env-steps per second of a random BurgerBot agent."""

import time

import gymnasium as gym
import numpy as np

from burgerbot import BurgerBotVectorEnv
from burgerbot.factories import burgerbot_factory

STEPS = {settings.steps}  # step() calls per run
{cost}RUNS = [  # (backend, NUM_ENVS values)
{runs_text}]


def build(backend, num_envs):
    if backend == "native":  # one object, all robots in numpy arrays
        return BurgerBotVectorEnv(num_envs)
    env_fns = [burgerbot_factory({cost_args}) for _ in range(num_envs)]
    if backend == "sync":  # all envs in this process, stepped one after another
        return gym.vector.SyncVectorEnv(env_fns)
    # One worker process per env, started fresh ("spawn"). In every call the actions go
    # out, and rewards, flags and infos come back, pickled through pipes; observations
    # come back through shared memory (shared_memory=True, the default).
    return gym.vector.AsyncVectorEnv(env_fns, context="spawn")


def main():
    print(f"{{'backend':8}} {{'NUM_ENVS':>8}} {{'create s':>9}} {{'step s':>9}} "
          f"{{'close s':>9}} {{'env-steps/s':>12}}")
    for backend, sizes in RUNS:
        for num_envs in sizes:
            actions = np.random.default_rng(0).integers(0, 4, size=(STEPS, num_envs))
            start = time.perf_counter()
            envs = build(backend, num_envs)
            created = time.perf_counter()
            try:
                envs.reset(seed=0)
                stepping = time.perf_counter()
                for step_actions in actions:
                    envs.step(step_actions)
                stepped = time.perf_counter()
            finally:
                envs.close()  # always: Async workers must not outlive the run
            closed = time.perf_counter()
            step_s = stepped - stepping
            print(f"{{backend:8}} {{num_envs:8d}} {{created - start:9.3f}} {{step_s:9.3f}} "
                  f"{{closed - stepped:9.3f}} {{num_envs * STEPS / step_s:12,.0f}}")


if __name__ == "__main__":  # needed by "spawn": workers re-import this file
    main()
'''
