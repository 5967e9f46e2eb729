"""The scripts the "Stable-Baselines3" page shows; the lesson's calls are run exactly as shown.

Each function returns a whole script (stable-baselines3, gymnasium, numpy and burgerbot) that
runs when saved to a file and run with ``python file.py``; the two that fail on purpose say so
on their first line (`burgerbot.app.scripts.fails_header`). ``burgerbot.app.logic.sb3`` runs
the lesson's calls to capture what the installed SB3 really does; the tests run every script
as a separate Python process from a file.
"""

from __future__ import annotations

from burgerbot.app.scripts import fails_header

__all__ = [
    "GYMNASIUM_VECTOR_ERROR",
    "gymnasium_vector_wrong",
    "make_vec_env_script",
    "n_envs_wrong",
    "ppo_fixed",
    "side_by_side_script",
]

GYMNASIUM_VECTOR_ERROR = "ValueError"
"""What stable-baselines3 2.x raises for a Gymnasium vector env (the tests check it)."""


def _fill(template: str, **values: object) -> str:
    # Templates hold dict and f-string braces, so str.format would get in the way.
    text = template.strip("\n")
    for name, value in values.items():
        text = text.replace(f"__{name.upper()}__", repr(value))
    return text + "\n"


_N_ENVS_WRONG = """
from stable_baselines3 import PPO

from burgerbot.env import BurgerBotEnv

# The lesson's call: PPO has no `n_envs` argument (no SB3 release had one).
model = PPO("MlpPolicy", BurgerBotEnv(), n_envs=__NUM_ENVS__)
"""

_GYMNASIUM_VECTOR_WRONG = """
from gymnasium.vector import SyncVectorEnv
from stable_baselines3 import PPO

from burgerbot.factories import burgerbot_factory

# A Gymnasium vector env is not an SB3 VecEnv.
envs = SyncVectorEnv([burgerbot_factory() for _ in range(__NUM_ENVS__)])
try:
    model = PPO("MlpPolicy", envs)
finally:
    envs.close()
"""

_PPO_FIXED = """
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

from burgerbot.factories import burgerbot_factory

# make_vec_env builds the copies (a DummyVecEnv unless vec_env_cls=SubprocVecEnv).
vec_env = make_vec_env(burgerbot_factory(), n_envs=__NUM_ENVS__, seed=0)
try:
    model = PPO("MlpPolicy", vec_env, device="cpu")  # PPO's default n_steps
    print("env given to PPO:", type(model.get_env()).__name__)
    print("n_envs:", model.n_envs)
    print("n_steps (step() calls per env per update):", model.n_steps)
    # The rollout buffer holds (steps, envs, observation) for one update.
    print("rollout buffer:", model.rollout_buffer.observations.shape)
    print("transitions per update:", model.n_steps * model.n_envs)
finally:
    vec_env.close()
"""


def n_envs_wrong(num_envs: int = 4) -> str:
    """The lesson's ``PPO("MlpPolicy", env, n_envs=...)`` call: fails with a TypeError."""
    return fails_header("TypeError") + _fill(_N_ENVS_WRONG, num_envs=int(num_envs))


def gymnasium_vector_wrong(num_envs: int = 4) -> str:
    """A Gymnasium ``SyncVectorEnv`` handed to PPO: fails with `GYMNASIUM_VECTOR_ERROR`."""
    code = _fill(_GYMNASIUM_VECTOR_WRONG, num_envs=int(num_envs))
    return fails_header(GYMNASIUM_VECTOR_ERROR) + code


def ppo_fixed(num_envs: int = 4) -> str:
    """The working version: ``make_vec_env(..., n_envs=N)``, then PPO (default ``n_steps``)."""
    return _fill(_PPO_FIXED, num_envs=int(num_envs))


_MAKE_VEC_ENV = """
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

from burgerbot.factories import burgerbot_factory

# The guard matters once you use SubprocVecEnv: each worker process starts by importing
# this file again, and without the guard it would build workers of its own.
if __name__ == "__main__":
    # __N__ copies in this process (a DummyVecEnv):
    vec_env = make_vec_env(burgerbot_factory(), n_envs=__N__)
    # or __N__ worker processes:
    __SUBPROC__vec_env = make_vec_env(burgerbot_factory(), n_envs=__N__, vec_env_cls=SubprocVecEnv)
    model = PPO("MlpPolicy", vec_env, device="cpu")
    print(type(vec_env).__name__, "with", vec_env.num_envs, "envs; PPO sees", model.n_envs)
    vec_env.close()
"""


def make_vec_env_script(num_envs: int = 4, subprocess: bool = False) -> str:
    """``make_vec_env`` with a DummyVecEnv (or, with ``subprocess``, a SubprocVecEnv), then PPO."""
    code = _fill(_MAKE_VEC_ENV, n=int(num_envs))
    return code.replace("__SUBPROC__", "" if subprocess else "# ")


_SIDE_BY_SIDE = """
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from stable_baselines3.common.env_util import make_vec_env

from burgerbot.experiments import random_actions
from burgerbot.factories import burgerbot_factory

N, STEPS, SEED = __NUM_ENVS__, __STEPS__, __SEED__
actions = np.concatenate(list(random_actions(SEED, N, STEPS)))  # shape (STEPS, N)

sb3_envs = make_vec_env(burgerbot_factory(), n_envs=N, seed=SEED)  # SB3's DummyVecEnv
modes = [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP]
gym_envs = {
    mode: SyncVectorEnv([burgerbot_factory() for _ in range(N)], autoreset_mode=mode)
    for mode in modes
}
agree = {mode: 0 for mode in modes}  # (step, env) pairs where everything matches SB3
first_difference = {mode: None for mode in modes}
episodes_ended = 0
try:
    sb3_obs = sb3_envs.reset()  # SB3: observations only
    for envs in gym_envs.values():
        envs.reset(seed=SEED)  # Gymnasium: (observations, infos)
    for t, step_actions in enumerate(actions, start=1):
        sb3_obs, sb3_rewards, dones, infos = sb3_envs.step(step_actions)  # 4 values
        for i in np.flatnonzero(dones):
            episodes_ended += 1
            if episodes_ended <= 3:
                last = infos[i]["terminal_observation"].tolist()
                print(f"step {t}, env {i}: episode over, terminal_observation {last}, "
                      f"returned obs {sb3_obs[i].tolist()} (already the next start)")
        for mode, envs in gym_envs.items():
            obs, rewards, terminated, truncated, gym_infos = envs.step(step_actions)  # 5 values
            # SB3 keeps rewards as float32, so compare at that precision.
            same = (obs == sb3_obs).all(axis=1) & (rewards.astype(np.float32) == sb3_rewards)
            same &= (terminated | truncated) == dones
            agree[mode] += int(same.sum())
            if first_difference[mode] is None and not same.all():
                first_difference[mode] = (t, int(np.flatnonzero(~same)[0]))
finally:
    sb3_envs.close()
    for envs in gym_envs.values():
        envs.close()

print("episodes ended (SB3):", episodes_ended)
for mode in modes:
    print(f"{mode.name}: same as SB3 on {agree[mode]} of {N * STEPS} (step, env) pairs;",
          "first difference (step, env):", first_difference[mode])
"""


def side_by_side_script(num_envs: int = 4, steps: int = 30, seed: int = 0) -> str:
    """SB3's DummyVecEnv next to SyncVectorEnv (SAME_STEP and NEXT_STEP) on the same actions."""
    return _fill(_SIDE_BY_SIDE, num_envs=int(num_envs), steps=int(steps), seed=int(seed))
