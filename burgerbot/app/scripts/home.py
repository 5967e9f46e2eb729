"""Home's script: per 1,000 transitions, the step() calls and forward passes of a plain loop
over one BurgerBot and of a SyncVectorEnv of 16 envs, and their CPU time."""

from __future__ import annotations

__all__ = ["speed_script"]


def speed_script(num_envs: int = 16, repeats: int = 5) -> str:
    """A whole script measuring what Home's table shows, at ``num_envs`` envs."""
    return f'''"""Per 1,000 transitions: a plain loop, then SyncVectorEnv."""

import time
import timeit

import gymnasium as gym
import numpy as np

from burgerbot.env import BurgerBotEnv

N = {int(num_envs)!r}
rng = np.random.default_rng(0)
env = BurgerBotEnv()
env.reset(seed=0)
envs = gym.vector.SyncVectorEnv([BurgerBotEnv for _ in range(N)])
envs.reset(seed=0)
calls, transitions, ended = 0, 0, np.zeros(N, dtype=bool)
while transitions < 1000:  # a row after an episode ended is no transition
    _, _, terminated, truncated, _ = envs.step(rng.integers(0, 4, size=N))
    transitions += N - int(ended.sum())
    ended, calls = terminated | truncated, calls + 1


W1, W2, W3 = rng.normal(size=(4, 64)), rng.normal(size=(64, 64)), rng.normal(size=(64, 4))


def policy(obs):  # one forward pass: one action per observation
    return np.argmax(np.tanh(np.tanh(obs @ W1) @ W2) @ W3, axis=1)


def plain_steps():
    for action in rng.integers(0, 4, size=1000).tolist():
        if any(env.step(action)[2:4]):  # terminated or truncated
            env.reset()


def sync_steps():
    for actions in rng.integers(0, 4, size=(calls, N)):
        envs.step(actions)


def cpu_ms(work):  # median of {int(repeats)} runs
    runs = timeit.repeat(work, number=1, repeat={int(repeats)}, timer=time.thread_time)
    return round(1000 * np.median(runs), 2)


one, batch = np.zeros((1, 4)), np.zeros((N, 4))
print("step() calls and forward passes:", 1000, calls)
print("stepping, CPU ms:", cpu_ms(plain_steps), cpu_ms(sync_steps))
print("forward passes, CPU ms:", cpu_ms(lambda: [policy(one) for _ in range(1000)]),
      cpu_ms(lambda: [policy(batch) for _ in range(calls)]))
'''
