"""Speed breakdown's script: transitions per second of a plain loop, Sync and native, then
with a policy network, and one forward pass of the policy against the batch size."""

from __future__ import annotations

__all__ = ["speed_script"]


def speed_script(sizes: tuple[int, ...] = (1, 4, 16, 64), seconds: float = 0.05) -> str:
    """A whole script measuring what Speed breakdown shows: ``sizes`` envs, ``seconds`` a row."""
    return f'''"""Transitions per second: a plain loop over one BurgerBot, SyncVectorEnv
(Gymnasium's) and BurgerBotVectorEnv (the burgerbot library's own class), first with random
actions, then with a small numpy policy network choosing every action."""

import itertools
import time

import gymnasium as gym
import numpy as np

from burgerbot.env import BurgerBotEnv
from burgerbot.factories import burgerbot_factory
from burgerbot.vector import BurgerBotVectorEnv

SIZES = {tuple(sizes)!r}
SECONDS = {seconds!r}  # timing budget per measurement
rng = np.random.default_rng(0)

# A 4 -> 64 -> 64 -> 4 network with random weights: it costs what a trained one costs.
SHAPES = [(4, 64), (64, 64), (64, 4)]
WEIGHTS = [rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32) for a, b in SHAPES]
SCALE = np.array([6, 6, 3, 2], dtype=np.float32)  # observations [row, col, heading, sensor]


def policy(obs):
    """One forward pass for a batch of observations (N, 4); one sampled action per row."""
    x = obs.astype(np.float32) / SCALE
    x = np.tanh(x @ WEIGHTS[0])
    x = np.tanh(x @ WEIGHTS[1])
    logits = x @ WEIGHTS[2]
    # argmax(logits + Gumbel noise) samples from softmax(logits), for every row at once
    return np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)


def per_second(run):
    """Call run() (it returns the transitions it collected) for SECONDS: transitions/s."""
    run()  # warm up
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < SECONDS:
        done += run()
    return done / elapsed


def plain_loop(with_policy):
    env = BurgerBotEnv()
    obs, info = env.reset(seed=0)
    actions = itertools.cycle(rng.integers(0, 4, size=1024).tolist())

    def run(steps=64):
        nonlocal obs
        for _ in range(steps):
            action = int(policy(obs[None])[0]) if with_policy else next(actions)
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                obs, info = env.reset()
        return steps

    return per_second(run)


def vector(envs, with_policy):
    obs, infos = envs.reset(seed=0)
    actions = itertools.cycle(list(rng.integers(0, 4, size=(256, envs.num_envs))))
    ended = np.zeros(envs.num_envs, dtype=bool)

    def run():
        nonlocal obs, ended
        # auto-reset: an env whose episode ended resets on the next call by itself
        obs, rewards, terminated, truncated, infos = envs.step(
            policy(obs) if with_policy else next(actions)
        )
        # N rows (env-steps), but the row of an env being reset is no transition
        transitions = envs.num_envs - int(np.count_nonzero(ended))
        ended = terminated | truncated
        return transitions

    rate = per_second(run)
    envs.close()
    return rate


for with_policy in (False, True):
    print("with the policy picking actions" if with_policy else "with random actions")
    print(f"  plain loop  N=1     {{plain_loop(with_policy):>12,.0f}} transitions/s")
    for n in SIZES:
        sync_env = gym.vector.SyncVectorEnv([burgerbot_factory() for _ in range(n)])
        sync = vector(sync_env, with_policy)
        native = vector(BurgerBotVectorEnv(n), with_policy)
        print(f"  sync        N={{n:<5d}} {{sync:>12,.0f}} transitions/s")
        print(f"  native      N={{n:<5d}} {{native:>12,.0f}} transitions/s")

print("one forward pass of the policy")
for n in SIZES:
    batch = rng.integers(0, 3, size=(n, 4))

    def forward_pass():
        policy(batch)
        return 1  # count calls, not observations

    print(f"  batch       N={{n:<5d}} {{1e6 / per_second(forward_pass):>12,.1f}} µs per call")
'''
