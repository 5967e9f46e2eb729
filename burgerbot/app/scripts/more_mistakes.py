"""The scripts the "More mistakes" page shows and runs, as they run.

Every function returns a whole script (gymnasium, numpy and burgerbot only); one that stops
with an error on purpose names it on its first line (`fails_header`). ``burgerbot.app.logic.
more_mistakes`` executes exactly these strings to capture what the installed libraries do, and
the tests run each of them from a file, as a learner would. The AsyncVectorEnv scripts come
last.
"""

from __future__ import annotations

from burgerbot.app.scripts import fails_header

__all__ = [
    "ASYNC_NUM_ENVS",
    "MAIN_GUARD_NUM_ENVS",
    "action_shape_fixed",
    "action_shape_other_envs",
    "action_shape_wrong",
    "async_fixed_closing",
    "async_fixed_finally",
    "async_with_statement",
    "async_wrong",
    "dtype_exercise",
    "factory_with_defaults_wrong",
    "final_obs_fixed_next_step",
    "final_obs_fixed_same_step",
    "final_obs_wrong",
    "main_guard_fixed",
    "main_guard_wrong",
    "spaces_script",
]


def _with_n(template: str, num_envs: int) -> str:
    # Templates hold Python dict literals, so str.format's braces would get in the way.
    return template.strip("\n").replace("__N__", str(int(num_envs))) + "\n"


# --- Batched spaces ----------------------------------------------------------------------

_SPACES = """
import gymnasium as gym
from gymnasium.vector import SyncVectorEnv
from gymnasium.vector.utils import batch_space

from burgerbot import BurgerBotVectorEnv
from burgerbot.factories import burgerbot_factory
from burgerbot.wrappers import BurgerBotDictObservation

N = __N__


def describe(name, envs):
    \"\"\"Reset, take one step with sampled actions, print the batches' shapes and dtypes.\"\"\"
    try:
        expected = batch_space(envs.single_observation_space, N)
        obs, infos = envs.reset(seed=0)
        envs.action_space.seed(0)
        obs, rewards, terminated, truncated, infos = envs.step(envs.action_space.sample())
        if isinstance(obs, dict):
            shape = {key: value.shape for key, value in obs.items()}
            dtype = {key: str(value.dtype) for key, value in obs.items()}
        else:
            shape, dtype = obs.shape, str(obs.dtype)
        print(f"{name} in {type(envs).__name__}")
        print("  obs:", shape, dtype, "| same as batch_space:", envs.observation_space == expected)
        print("  rewards:", rewards.shape, rewards.dtype, "| terminated:", terminated.dtype)
    finally:
        envs.close()


makers = {
    "BurgerBot": burgerbot_factory(),
    "CartPole-v1": lambda: gym.make("CartPole-v1"),
    "FrozenLake-v1": lambda: gym.make("FrozenLake-v1"),
    "BurgerBot, Dict observation": BurgerBotDictObservation,
}
for name, make_one in makers.items():
    describe(name, SyncVectorEnv([make_one for _ in range(N)]))

# Natively batched: Gymnasium's own CartPoleVectorEnv, and this project's BurgerBotVectorEnv
# (not part of Gymnasium).
describe("CartPole-v1", gym.make_vec("CartPole-v1", N, vectorization_mode="vector_entry_point"))
describe("BurgerBot", BurgerBotVectorEnv(N))
"""


def spaces_script(num_envs: int) -> str:
    """Print each env's batched observation shape and dtypes at ``num_envs``."""
    return _with_n(_SPACES, num_envs)


_DTYPE_EXERCISE = """
import gymnasium as gym
from gymnasium.vector import SyncVectorEnv

from burgerbot.factories import burgerbot_factory

N = __N__
burgerbots = SyncVectorEnv([burgerbot_factory() for _ in range(N)])
cartpoles = SyncVectorEnv([lambda: gym.make("CartPole-v1") for _ in range(N)])
try:
    burgerbot_obs, _ = burgerbots.reset(seed=0)
    cartpole_obs, _ = cartpoles.reset(seed=0)
    print("BurgerBot:", burgerbot_obs.shape, burgerbot_obs.dtype)
    print("CartPole: ", cartpole_obs.shape, cartpole_obs.dtype)
finally:
    burgerbots.close()
    cartpoles.close()
"""


def dtype_exercise(num_envs: int) -> str:
    """The lesson's exercise 3: the batched observation's dtype, BurgerBot vs CartPole."""
    return _with_n(_DTYPE_EXERCISE, num_envs)


# --- burgerbot_factory itself in the list ---------------------------------------------

_FACTORY_WITH_DEFAULTS = """
from gymnasium.vector import SyncVectorEnv

from burgerbot.factories import burgerbot_factory  # every argument has a default

N = __N__
envs = SyncVectorEnv([burgerbot_factory for _ in range(N)])  # the factory itself, again
"""


def factory_with_defaults_wrong(num_envs: int) -> str:
    """The same slip with a factory whose arguments all have defaults."""
    return fails_header("AttributeError") + _with_n(_FACTORY_WITH_DEFAULTS, num_envs)


# --- Actions of shape (N, 1) -----------------------------------------------------------

_ACTIONS = """
import numpy as np
from gymnasium.vector import SyncVectorEnv

from burgerbot.factories import burgerbot_factory

N = __N__
envs = SyncVectorEnv([burgerbot_factory() for _ in range(N)])
try:
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 4, size=(N, 1))  # like a policy output with one column
__FIX__    print("actions shape:", actions.shape)
    print("fits envs.action_space:", envs.action_space.contains(actions))
    obs, rewards, terminated, truncated, infos = envs.step(actions)
    print("rewards shape:", rewards.shape)
finally:
    envs.close()
"""

_ACTION_FIX = "    actions = actions.reshape(N)  # one action per env: shape (N,)\n"


def action_shape_wrong(num_envs: int) -> str:
    """Step a SyncVectorEnv of BurgerBots with actions of shape (N, 1)."""
    return fails_header("TypeError") + _with_n(_ACTIONS.replace("__FIX__", ""), num_envs)


def action_shape_fixed(num_envs: int) -> str:
    """Reshape the actions to (N,) first."""
    return _with_n(_ACTIONS.replace("__FIX__", _ACTION_FIX), num_envs)


_ACTIONS_ELSEWHERE = """
import gymnasium as gym
import numpy as np
from gymnasium.vector import SyncVectorEnv

from burgerbot import BurgerBotVectorEnv

N = __N__
actions = np.zeros((N, 1), dtype=np.int64)  # shape (N, 1) again
builders = {
    "SyncVectorEnv of CartPoles": lambda: SyncVectorEnv(
        [lambda: gym.make("CartPole-v1") for _ in range(N)]
    ),
    "BurgerBotVectorEnv (native)": lambda: BurgerBotVectorEnv(N),
}
outcomes = {}
for name, build in builders.items():
    envs = build()
    try:
        envs.reset(seed=0)
        envs.step(actions)
        outcomes[name] = None
        print(f"{name}: no error")
    except Exception as error:
        outcomes[name] = error
        print(f"{name}: {type(error).__name__}: {error}")
    finally:
        envs.close()
"""


def action_shape_other_envs(num_envs: int) -> str:
    """The same (N, 1) actions given to CartPoles and to the native BurgerBotVectorEnv."""
    return _with_n(_ACTIONS_ELSEWHERE, num_envs)


# --- infos["final_observation"] ---------------------------------------------------------

_FINAL_OBS = """
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot.factories import burgerbot_factory

N = __N__
forward = np.zeros(N, dtype=np.int64)  # all robots drive east: step 3 hits the obstacle at (0, 3)
envs = SyncVectorEnv(
    [burgerbot_factory() for _ in range(N)], autoreset_mode=AutoresetMode.__MODE__
)
try:
    obs, infos = envs.reset(seed=0)
    for step in range(1, __STEPS__):
        obs, rewards, terminated, truncated, infos = envs.step(forward)
__BODY__finally:
    envs.close()
"""

_FINAL_OBS_WRONG_BODY = """\
        if terminated.any():
            print(f"step {step}: an episode ended; infos keys: {sorted(infos)}")
            final = infos["final_observation"]  # the key of gymnasium 0.29
"""

_FINAL_OBS_SAME_STEP_BODY = """\
        if "_final_obs" in infos:  # the key appears on steps where an episode ended
            ended = infos["_final_obs"]  # mask: True for the envs that just ended
            final = np.stack(infos["final_obs"][ended])  # their last observations
            print(f"step {step}: env 0 ended with obs {final[0]}, reward {rewards[0]}")
            print(f"         obs returned for env 0 (already reset): {obs[0]}")
"""

_FINAL_OBS_NEXT_STEP_BODY = """\
        ended = terminated | truncated
        if ended.any():
            final = obs[ended]  # the ending step returns the last observation itself
            print(f"step {step}: env 0 ended with obs {final[0]}, reward {rewards[0]}")
        elif step == 4:
            print(f"step {step}: env 0 was reset: obs {obs[0]}, reward {rewards[0]}")
"""


def final_obs_wrong(num_envs: int, mode: str = "SAME_STEP") -> str:
    """Read ``infos["final_observation"]`` when an episode ends (``mode``: AutoresetMode name)."""
    code = _FINAL_OBS.replace("__MODE__", mode).replace("__STEPS__", "4")
    return fails_header("KeyError") + _with_n(
        code.replace("__BODY__", _FINAL_OBS_WRONG_BODY), num_envs
    )


def final_obs_fixed_same_step(num_envs: int) -> str:
    """SAME_STEP: the last observations are in ``infos["final_obs"]``, masked by ``_final_obs``."""
    code = _FINAL_OBS.replace("__MODE__", "SAME_STEP").replace("__STEPS__", "4")
    return _with_n(code.replace("__BODY__", _FINAL_OBS_SAME_STEP_BODY), num_envs)


def final_obs_fixed_next_step(num_envs: int) -> str:
    """NEXT_STEP (the default): the ending step's ``obs`` is the last observation."""
    code = _FINAL_OBS.replace("__MODE__", "NEXT_STEP").replace("__STEPS__", "5")
    return _with_n(code.replace("__BODY__", _FINAL_OBS_NEXT_STEP_BODY), num_envs)


# --- The AsyncVectorEnv scripts -----------------------------------------------------------
# The AsyncVectorEnv scripts of the More mistakes page, as a learner runs them.
#
# Each one starts its workers with ``context="spawn"`` (the default start method on macOS and
# Windows): a spawned worker is a fresh interpreter that imports the main script again, so a
# script must keep its work under ``if __name__ == "__main__":``. The main-guard mistake shows
# what happens when it does not. The page runs them as files (``python script.py``), as a
# learner would.

ASYNC_NUM_ENVS = 2
"""The Async scripts always use 2 workers: enough to count, cheap to start."""

_HEADER = """\
import numpy as np
from gymnasium.vector import AsyncVectorEnv

from burgerbot.factories import burgerbot_factory

"""

_GUARD = 'if __name__ == "__main__":  # "spawn" workers import this file again\n'

_BUILD = 'AsyncVectorEnv([burgerbot_factory() for _ in range(2)], context="spawn")'

# The loop crashes on purpose (the final_observation KeyError): what matters is what happens next.
_LOOP = """\
obs, infos = envs.reset(seed=0)
for step in range(1, 4):
    obs, rewards, terminated, truncated, infos = envs.step(np.zeros(2, dtype=np.int64))
    if terminated.any():
        final = infos["final_observation"]  # KeyError: gymnasium 0.29's key
"""


def _indent(code: str, levels: int = 1) -> str:
    pad = "    " * levels
    return "".join(pad + line if line.strip() else line for line in code.splitlines(True))


def async_wrong() -> str:
    """Close only at the end: a crash in between skips ``close()``."""
    body = (
        "# 2 worker processes\n" + f"envs = {_BUILD}\n" + _LOOP + "envs.close()  # never reached\n"
    )
    return fails_header("KeyError") + _HEADER + _GUARD + _indent(body)


def async_with_statement() -> str:
    """Try the ``with`` statement on the vector env itself."""
    body = f"with {_BUILD} as envs:\n" + _indent("obs, infos = envs.reset(seed=0)\n")
    return fails_header("TypeError") + _HEADER + _GUARD + _indent(body)


def async_fixed_finally() -> str:
    """``try``/``finally``: ``close()`` runs however the block ends."""
    body = (
        "# 2 worker processes\n"
        f"envs = {_BUILD}\n"
        + "try:\n"
        + _indent(_LOOP)
        + "finally:\n"
        + "    envs.close()  # runs even though the loop raised\n"
    )
    return fails_header("KeyError") + _HEADER + _GUARD + _indent(body)


def async_fixed_closing() -> str:
    """``contextlib.closing`` gives any object with ``close()`` a ``with`` block."""
    body = f"with closing({_BUILD}) as envs:\n" + _indent(_LOOP)
    return (
        fails_header("KeyError")
        + "from contextlib import closing\n\n"
        + _HEADER
        + _GUARD
        + _indent(body)
    )


MAIN_GUARD_NUM_ENVS = 1
"""The main-guard scripts start one worker. With two, the second worker's error and the
script's own can reach the screen at the same moment, their lines mixed together, and which
ends last is down to timing; with one, the worker's error is printed whole before the script's
own."""

_MAIN_GUARD_BODY = """\
# One worker: with more, their errors and the script's own can print mixed together.
envs = AsyncVectorEnv([burgerbot_factory()], context="spawn")
obs, infos = envs.reset(seed=0)
print("obs shape:", obs.shape)
envs.close()
"""

_SHORT_HEADER = """\
from gymnasium.vector import AsyncVectorEnv

from burgerbot.factories import burgerbot_factory

"""


def main_guard_wrong() -> str:
    """Spawn a worker from a script without the main guard: the worker re-runs the script."""
    return (
        fails_header("ConnectionResetError")
        + _SHORT_HEADER
        + '# No `if __name__ == "__main__":` guard: the worker runs these lines again.\n'
        + _MAIN_GUARD_BODY
    )


def main_guard_fixed() -> str:
    """The same script with its work under ``if __name__ == "__main__":``."""
    return _SHORT_HEADER + _GUARD + _indent(_MAIN_GUARD_BODY)
