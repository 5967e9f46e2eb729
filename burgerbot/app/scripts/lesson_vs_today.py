"""The scripts "The lesson vs today's libraries" runs, one per claim of the lesson, as shown.

Each is a whole script that prints what it checks as ``name: value`` lines; the page runs it
as shown and judges the claim from what it printed (`burgerbot.app.logic.lesson_vs_today`).
The SB3 ones need stable-baselines3; the tests run every one from a file.
"""

from __future__ import annotations

__all__ = ["SCRIPTS"]

FACTORY_PATTERN = """
import gymnasium as gym


def make_env(seed):
    def thunk():  # the zero-argument function SyncVectorEnv calls
        env = gym.make("CartPole-v1")
        env.reset(seed=seed)
        return env

    return thunk


envs = gym.vector.SyncVectorEnv([make_env(seed) for seed in range(4)])
obs, infos = envs.reset(seed=0)
actions = envs.action_space.sample()
obs, rewards, terminated, truncated, infos = envs.step(actions)
envs.close()
print("observations shape:", obs.shape)
print("sampled actions shape:", actions.shape)
print("rewards shape:", rewards.shape)
print("terminated shape:", terminated.shape)
"""

AUTORESET_TIMING = """
import gymnasium as gym
import numpy as np

from burgerbot.factories import burgerbot_factory

# The default auto-reset mode:
envs = gym.vector.SyncVectorEnv([burgerbot_factory() for _ in range(2)])
obs, infos = envs.reset(seed=0)
print("first observation after a reset:", obs[0].tolist())
envs.step(np.array([1, 3]))  # env 0 turns left to face north; env 1 stops
obs, rewards, terminated, truncated, infos = envs.step(np.array([0, 3]))  # env 0: into the wall
print("ending call, env 0 terminated:", bool(terminated[0]))
print("ending call, env 0 obs:", obs[0].tolist())
print("ending call, env 0 reward:", float(rewards[0]))
obs, rewards, terminated, truncated, infos = envs.step(np.array([0, 3]))
print("next call, env 0 obs:", obs[0].tolist())
print("next call, env 0 reward:", float(rewards[0]))
envs.close()
"""

FINAL_OBSERVATION_KEY = """
import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from burgerbot.factories import burgerbot_factory

for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
    envs = gym.vector.SyncVectorEnv([burgerbot_factory() for _ in range(2)], autoreset_mode=mode)
    envs.reset(seed=0)
    envs.step(np.array([1, 3]))  # env 0 turns to face north
    *_, infos = envs.step(np.array([0, 3]))  # env 0 drives into the wall: its episode ends
    envs.close()
    print(f"{mode.name} infos keys on the ending call:", sorted(infos))
"""

GOAL_COUNTS = """
import numpy as np

from burgerbot.vector import BurgerBotVectorEnv  # this project's batched env, not Gymnasium's

LEARNERS, STEPS = 5_000, 500  # 5,000 learners each run the lesson's experiment once
totals = {}
for num_envs in (4, 8):
    envs = BurgerBotVectorEnv(LEARNERS * num_envs)  # learner r owns envs r*num_envs, ...
    envs.reset(seed=0)
    rng = np.random.default_rng(num_envs)
    goals = np.zeros(LEARNERS * num_envs, dtype=np.int64)
    for _ in range(STEPS):  # random actions, as in the lesson
        _, rewards, _, _, _ = envs.step(rng.integers(0, 4, LEARNERS * num_envs))
        goals += rewards == 50.0
    envs.close()
    per_learner = goals.reshape(LEARNERS, num_envs).sum(axis=1)
    totals[num_envs] = max(int(per_learner.sum()), 1)
    print(f"N={num_envs} mean goals per learner:", per_learner.mean())
    print(f"N={num_envs} share of learners who saw 0 goals:", (per_learner == 0).mean())

ratio = totals[8] / totals[4]
spread = 1.96 * np.sqrt(1 / totals[4] + 1 / totals[8])  # goal counts are Poisson: log scale
print("ratio of the averages, 8 envs / 4 envs:", round(ratio, 3))
print("95% interval low:", round(ratio * np.exp(-spread), 3))
print("95% interval high:", round(ratio * np.exp(spread), 3))
"""

SPEED = """
import statistics
import time

import numpy as np

from burgerbot.baseline import StraightforwardBurgerBot  # written as a learner first would
from burgerbot.env import BurgerBotEnv
from burgerbot.vector import BurgerBotVectorEnv  # this project's batched env, not Gymnasium's

ROUNDS = 5  # the three take turns, round after round: a busy moment slows all of them alike


def steps_per_second(env, actions):
    start = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return len(actions) / (time.perf_counter() - start)


def env_steps_per_second(envs, batch):
    start = time.perf_counter()
    for step_actions in batch:
        envs.step(step_actions)
    return batch.size / (time.perf_counter() - start)


actions = np.random.default_rng(0).integers(0, 4, 20_000).tolist()
batch = np.random.default_rng(0).integers(0, 4, (40, 4096))
straightforward, table = StraightforwardBurgerBot(), BurgerBotEnv()
envs = BurgerBotVectorEnv(4096)
for env in (straightforward, table, envs):
    env.reset(seed=0)
rates = {"straightforward": [], "table": [], "native": []}
for _ in range(ROUNDS):
    rates["straightforward"].append(steps_per_second(straightforward, actions))
    rates["table"].append(steps_per_second(table, actions))
    rates["native"].append(env_steps_per_second(envs, batch))
envs.close()

median = {name: round(statistics.median(values)) for name, values in rates.items()}
print("straightforward BurgerBot, steps/s:", median["straightforward"])
print("BurgerBotEnv (table look-ups), steps/s:", median["table"])
print("BurgerBotVectorEnv with 4096 envs, env-steps/s:", median["native"])
each = " ".join(str(round(rate)) for rate in rates["straightforward"])
print("straightforward BurgerBot, steps/s in each round:", each)
"""

SB3_N_ENVS = """
import inspect

from stable_baselines3 import PPO

from burgerbot.env import BurgerBotEnv

print("PPO has an n_envs parameter:", "n_envs" in inspect.signature(PPO).parameters)
try:
    PPO("MlpPolicy", BurgerBotEnv(), n_envs=4, device="cpu")
    print("PPO(..., n_envs=4): accepted")
except TypeError as error:
    print("PPO(..., n_envs=4): TypeError:", error)
"""

SB3_GYMNASIUM_VECTOR = """
from gymnasium.vector import SyncVectorEnv
from stable_baselines3 import PPO

from burgerbot.factories import burgerbot_factory

envs = SyncVectorEnv([burgerbot_factory() for _ in range(4)])
try:
    model = PPO("MlpPolicy", envs, device="cpu")
    print("PPO(..., SyncVectorEnv): accepted as n_envs =", model.n_envs)
except Exception as error:  # today's SB3 refuses it: print how
    print(f"PPO(..., SyncVectorEnv): {type(error).__name__}: {error}")
finally:
    envs.close()
"""

SB3_N_STEPS = """
import inspect

from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

from burgerbot.factories import burgerbot_factory

print("PPO's default n_steps:", inspect.signature(PPO).parameters["n_steps"].default)
vec_env = make_vec_env(burgerbot_factory(), n_envs=4, seed=0)
for n_steps in (2048, 512):  # the default, then the lesson's 2048 / 4
    model = PPO("MlpPolicy", vec_env, n_steps=n_steps, device="cpu")
    calls, envs = model.rollout_buffer.observations.shape[:2]  # (steps, envs, observation)
    print(f"n_steps={n_steps}, step() calls per update:", calls)
    print(f"n_steps={n_steps}, transitions per update:", calls * envs)
vec_env.close()
"""

SCRIPTS = {
    "factory_pattern": FACTORY_PATTERN,
    "autoreset_timing": AUTORESET_TIMING,
    "final_observation_key": FINAL_OBSERVATION_KEY,
    "goal_counts": GOAL_COUNTS,
    "speed": SPEED,
    "sb3_n_envs": SB3_N_ENVS,
    "sb3_gymnasium_vector": SB3_GYMNASIUM_VECTOR,
    "sb3_n_steps": SB3_N_STEPS,
}
"""Claim -> its whole script (leading newline stripped)."""
SCRIPTS = {name: code.lstrip("\n") for name, code in SCRIPTS.items()}
