"""Run a script shown on a page exactly as shown: capture what it prints and the error it raises."""

from __future__ import annotations

import builtins
import contextlib
import io
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv

__all__ = ["SCRIPT_NAME", "CapturedError", "ScriptRun", "printed", "run_script", "short_file"]

SCRIPT_NAME = "<script>"
"""The file name a script's own frames carry in a traceback."""

_ROOT = Path(__file__).resolve().parents[2]


def short_file(filename: str) -> str:
    """A traceback's file name as a learner would look it up: ``gymnasium/vector/...``.

    Installed packages are shown from their package folder, this project's files from its
    root, anything else by its bare name.

    Example:
        >>> short_file("/venv/lib/python3.11/site-packages/gymnasium/core.py")
        'gymnasium/core.py'
        >>> short_file(str(_ROOT / "burgerbot" / "env.py"))
        'burgerbot/env.py'
        >>> short_file("/usr/lib/python3.11/contextlib.py")
        'contextlib.py'
    """
    path = Path(filename)
    for marker in ("site-packages", "dist-packages"):
        if marker in path.parts:
            return Path(*path.parts[path.parts.index(marker) + 1 :]).as_posix()
    try:
        return path.resolve().relative_to(_ROOT).as_posix()
    except ValueError:
        return path.name


def _in_script(frame: traceback.FrameSummary) -> bool:
    return frame.filename == SCRIPT_NAME


def _compact(frame: traceback.FrameSummary) -> str:
    file = SCRIPT_NAME if _in_script(frame) else short_file(frame.filename)
    return f"{file}:{frame.lineno} in {frame.name}"


@dataclass(frozen=True)
class CapturedError:
    """An exception a script raised, as text (type name, message, where it came from).

    ``where`` and ``location`` both name the innermost frame: ``where`` in words
    (``"line 15 of the script"``, ``"gymnasium/vector/sync_vector_env.py, line 97, in step"``),
    ``location`` compactly (``"<script>:15 in <module>"``, ``"burgerbot/env.py:77 in step"``).
    ``path`` is every frame from the script inwards (``"script line 14"``,
    ``"burgerbot/env.py:77 in step"``).
    """

    type: str
    message: str
    where: str
    path: tuple[str, ...]
    location: str

    @classmethod
    def from_exception(cls, error: BaseException) -> CapturedError:
        """Describe ``error`` from its traceback, leaving out this module's own frames."""
        frames: list[traceback.FrameSummary] = traceback.extract_tb(error.__traceback__)
        # Drop run_script's own frame: the path starts in the script.
        frames = [f for f in frames if f.filename != __file__] or frames
        path = tuple(f"script line {f.lineno}" if _in_script(f) else _compact(f) for f in frames)
        if not frames:
            return cls(type(error).__name__, str(error), "", path, "")
        last = frames[-1]
        where = (
            f"line {last.lineno} of the script"
            if _in_script(last)
            else f"{short_file(last.filename)}, line {last.lineno}, in {last.name}"
        )
        return cls(type(error).__name__, str(error), where, path, _compact(last))

    @property
    def headline(self) -> str:
        """The error's last traceback line: ``"KeyError: 'final_observation'"``."""
        return f"{self.type}: {self.message}"


@dataclass(frozen=True)
class ScriptRun:
    """One script as it ran: its code, what it printed, the error it raised (if any)."""

    code: str
    output: str
    error: CapturedError | None
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def raised(self) -> bool:
        """Whether the script stopped with an error."""
        return self.error is not None


def _close_leftovers(namespace: Mapping[str, Any]) -> None:
    for value in list(namespace.values()):
        if isinstance(value, VectorEnv | gym.Env):
            with contextlib.suppress(Exception):  # cleanup goes on for the other envs
                value.close()


def run_script(
    code: str,
    read: Sequence[str] = (),
    inspect_namespace: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> ScriptRun:
    """Execute ``code`` like a fresh script; capture its prints and the error it raises.

    ``read`` names variables to copy (as ``str``) from the script's namespace into
    ``values``; ``inspect_namespace`` may look at what the script left behind (before any
    env left open in that namespace is closed) and adds its results to ``values``.

    Example:
        >>> run = run_script("print('hi')\\nx = 1 / 0\\n", read=("missing",))
        >>> run.output, run.error.headline, run.error.where, run.values
        ('hi\\n', 'ZeroDivisionError: division by zero', 'line 2 of the script', {})
    """
    buffer = io.StringIO()

    def captured_print(*args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("file", buffer)
        builtins.print(*args, **kwargs)

    namespace: dict[str, Any] = {"__name__": "__main__", "print": captured_print}
    error: CapturedError | None = None
    values: dict[str, Any] = {}
    try:
        try:
            exec(compile(code, SCRIPT_NAME, "exec"), namespace)
        except Exception as raised:
            error = CapturedError.from_exception(raised)
            del raised  # its traceback holds the script's frame
        for name in read:
            if name in namespace:
                values[name] = str(namespace[name])
        if inspect_namespace is not None:
            values.update(inspect_namespace(namespace))
    finally:
        _close_leftovers(namespace)
        namespace.clear()
    return ScriptRun(code=code, output=buffer.getvalue(), error=error, values=values)


def printed(output: str) -> dict[str, str]:
    """The ``name: value`` lines a script printed, as a dict (split at the first ``": "``).

    >>> printed("n_envs: 4\\nrollout buffer: (2048, 4, 4)\\nno colon here")
    {'n_envs': '4', 'rollout buffer': '(2048, 4, 4)'}
    """
    pairs = (line.split(": ", 1) for line in output.splitlines() if ": " in line)
    return {name.strip(): value.strip() for name, value in pairs}
