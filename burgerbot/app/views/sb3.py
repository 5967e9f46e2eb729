"""Stable-Baselines3 next to Gymnasium's vector API: is SB3 here, the page's settings, its calls.

``stable_baselines3`` (and with it torch) is imported only inside the functions that need
it, through `load_sb3`, so the rest of ``burgerbot`` works without the optional extra
(``pip install -r requirements-sb3.txt``). Everything that needs only gymnasium (the
Gymnasium side of the comparisons) runs either way. The API table is in ``sb3_api``, the
side-by-side run in ``sb3_side_by_side``, the PPO run in ``sb3_training``.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from burgerbot.app.caps import CAPS
from burgerbot.app.script_runner import ScriptRun, run_script
from burgerbot.app.scripts import sb3 as snippets
from burgerbot.app.settings import IntSetting
from burgerbot.app.versions import installed_version

__all__ = [
    "INSTALL_COMMAND",
    "PPO_N_STEPS",
    "SB3_MODULE",
    "SPECS",
    "SB3Missing",
    "invalid_calls",
    "load_sb3",
    "sb3_available",
    "sb3_version",
]

SB3_MODULE = "stable_baselines3"
SB3_DISTRIBUTION = "stable-baselines3"
INSTALL_COMMAND = "pip install -r requirements-sb3.txt"

PPO_N_STEPS = 128
"""``n_steps`` of the page's PPO run: ``step()`` calls per env between two updates."""

SPECS = (
    IntSetting("n", "NUM_ENVS", default=4, low=1, high=16),
    IntSetting("steps", "step() calls", default=30, low=5, high=200),
    IntSetting("seed", "Seed of the random actions", default=0, low=0, high=9999),
    IntSetting("ppo_envs", "n_envs for PPO", default=4, low=1, high=8),
    IntSetting(
        "ppo_steps", "Total env-steps for PPO", default=4096, low=512, high=CAPS.max_ppo_timesteps
    ),
)


class SB3Missing(ImportError):
    """stable-baselines3 is not installed (it is an optional extra)."""


def sb3_available() -> bool:
    """True when ``stable_baselines3`` can be imported (checked without importing torch)."""
    try:
        return importlib.util.find_spec(SB3_MODULE) is not None
    except (ImportError, ValueError):
        return False


def sb3_version() -> str | None:
    """The installed stable-baselines3 version, or ``None`` when it cannot be imported."""
    return installed_version(SB3_DISTRIBUTION) if sb3_available() else None


def load_sb3() -> ModuleType:
    """Import ``stable_baselines3`` (slow the first time: it imports torch).

    Raises `SB3Missing`, whose message says how to install it, when it is absent.
    """
    try:
        return importlib.import_module(SB3_MODULE)
    except ImportError as error:
        raise SB3Missing(
            f"stable-baselines3 is not installed ({error}). Install the optional extra with "
            f"`{INSTALL_COMMAND}`."
        ) from error


def invalid_calls(num_envs: int = 4) -> dict[str, ScriptRun]:
    """The lesson's two PPO calls and the working one, run on the installed SB3 as shown.

    Keys: ``"n_envs"`` (``PPO(..., n_envs=N)``), ``"gymnasium_vector"`` (a
    ``SyncVectorEnv`` given to PPO) and ``"fixed"`` (``make_vec_env`` then PPO).
    """
    load_sb3()
    return {
        "n_envs": run_script(snippets.n_envs_wrong(num_envs)),
        "gymnasium_vector": run_script(snippets.gymnasium_vector_wrong(num_envs)),
        "fixed": run_script(snippets.ppo_fixed(num_envs)),
    }
