"""The AsyncVectorEnv scripts of the mistakes page (mistakes 5 and 6), as a learner runs them.

Each one starts its workers with ``context="spawn"`` (the default start method on macOS and
Windows): a spawned worker is a fresh interpreter that imports the main script again, so a
script must keep its work under ``if __name__ == "__main__":``. Mistake 6 shows what happens
when it does not. The page runs them as files (``python script.py``), as a learner would.
"""

from __future__ import annotations

from burgerbot.app.scripts import fails_header

__all__ = [
    "ASYNC_NUM_ENVS",
    "MAIN_GUARD_NUM_ENVS",
    "async_fixed_closing",
    "async_fixed_finally",
    "async_with_statement",
    "async_wrong",
    "main_guard_fixed",
    "main_guard_wrong",
]

ASYNC_NUM_ENVS = 2
"""The Async scripts always use 2 workers: enough to count, cheap to start."""

_HEADER = """\
import numpy as np
from gymnasium.vector import AsyncVectorEnv

from burgerbot.factories import make_env

"""

_GUARD = 'if __name__ == "__main__":  # "spawn" workers import this file again\n'

_BUILD = 'AsyncVectorEnv([make_env() for _ in range(2)], context="spawn")'

# The loop crashes on purpose (mistake 4's KeyError): what matters is what happens next.
_LOOP = """\
obs, infos = envs.reset(seed=0)
for step in range(1, 4):
    obs, rewards, terminated, truncated, infos = envs.step(np.zeros(2, dtype=np.int64))
    if terminated.any():
        final = infos["final_observation"]  # KeyError, as in mistake 4
"""


def _indent(code: str, levels: int = 1) -> str:
    pad = "    " * levels
    return "".join(pad + line if line.strip() else line for line in code.splitlines(True))


def async_wrong() -> str:
    """Close only at the end: a crash in between skips ``close()``."""
    body = f"envs = {_BUILD}  # 2 worker processes\n" + _LOOP + "envs.close()  # never reached\n"
    return fails_header("KeyError") + _HEADER + _GUARD + _indent(body)


def async_with_statement() -> str:
    """Try the ``with`` statement on the vector env itself."""
    body = f"with {_BUILD} as envs:\n" + _indent("obs, infos = envs.reset(seed=0)\n")
    return fails_header("TypeError") + _HEADER + _GUARD + _indent(body)


def async_fixed_finally() -> str:
    """``try``/``finally``: ``close()`` runs however the block ends."""
    body = (
        f"envs = {_BUILD}  # 2 worker processes\n"
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
"""Mistake 6's scripts start one worker. With two, the second worker's error and the script's own
can reach the screen at the same moment, their lines mixed together, and which ends last is
down to timing; with one, the worker's error is printed whole before the script's own."""

_MAIN_GUARD_BODY = """\
# One worker: with more, their errors and the script's own can print mixed together.
envs = AsyncVectorEnv([make_env()], context="spawn")
obs, infos = envs.reset(seed=0)
print("obs shape:", obs.shape)
envs.close()
"""

_SHORT_HEADER = """\
from gymnasium.vector import AsyncVectorEnv

from burgerbot.factories import make_env

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
