"""The scripts the "Common mistakes" page shows and runs, as they run: the lesson's two common
issues, each with its mistake and its fix.

Every function returns a whole script (gymnasium, numpy and burgerbot only); one that stops
with an error on purpose names it on its first line (`fails_header`). ``burgerbot.app.logic.
mistakes`` executes exactly these strings to capture what the installed libraries do, and the
tests run each of them from a file, as a learner would.
"""

from __future__ import annotations

from burgerbot.app.scripts import fails_header

__all__ = ["factory_fixed", "factory_wrong", "scalar_obs_fixed", "scalar_obs_wrong"]


def _with_n(template: str, num_envs: int) -> str:
    # Templates hold Python dict literals, so str.format's braces would get in the way.
    return template.strip("\n").replace("__N__", str(int(num_envs))) + "\n"


# --- Common issue 1: the factory instead of the function it returns ---------------------------

_FACTORY = """
from gymnasium.vector import SyncVectorEnv

from burgerbot import BurgerBotEnv

N = __N__


def make_env(seed):
    def thunk():  # what make_env returns: a function with no arguments
        env = BurgerBotEnv()
        env.reset(seed=seed)
        return env

    return thunk


__LIST__
obs, infos = envs.reset(seed=0)
print("obs shape:", obs.shape)
envs.close()
"""


def factory_wrong(num_envs: int) -> str:
    """Give SyncVectorEnv the factory itself: it calls it with no arguments."""
    line = "envs = SyncVectorEnv([make_env for _ in range(N)])  # the factory itself"
    return fails_header("TypeError") + _with_n(_FACTORY.replace("__LIST__", line), num_envs)


def factory_fixed(num_envs: int) -> str:
    """Call the factory once per env and give SyncVectorEnv what it returns."""
    line = "envs = SyncVectorEnv([make_env(seed) for seed in range(N)])  # what it returns"
    return _with_n(_FACTORY.replace("__LIST__", line), num_envs)


# --- Common issue 2: a scalar observation ----------------------------------------------

_SCALAR = """
import gymnasium as gym
from gymnasium.vector import SyncVectorEnv

N = __N__
envs = SyncVectorEnv([lambda: gym.make("FrozenLake-v1") for _ in range(N)])
obs, infos = envs.reset(seed=0)  # one int per env: its cell
__FIX__print("obs shape:", obs.shape)
cells = obs[:, 0]  # code written for batches of shape (N, k)
print("cells:", cells)
envs.close()
"""

_SCALAR_FIX = "obs = obs.reshape(N, 1)  # one column: shape (N, 1)\n"


def scalar_obs_wrong(num_envs: int) -> str:
    """An env whose observation is one int: the batch is (N,) and (N, k) code breaks."""
    return fails_header("IndexError") + _with_n(_SCALAR.replace("__FIX__", ""), num_envs)


def scalar_obs_fixed(num_envs: int) -> str:
    """The same batch reshaped to (N, 1) first: the (N, k) code runs."""
    return _with_n(_SCALAR.replace("__FIX__", _SCALAR_FIX), num_envs)
