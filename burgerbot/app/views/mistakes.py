"""Common vector-env mistakes, each a script run live on the installed gymnasium and numpy.

Mistakes 1-4 are the scripts in ``burgerbot.app.scripts.mistakes``, executed exactly as the
page shows them by `burgerbot.app.script_runner.run_script`, which captures what they print
and the error they raise (the tests check that a file run of each gives the same). The spaces
table is in ``mistakes_spaces``; the Async mistakes 5 and 6, which only a file run shows
truly, in ``mistakes_workers``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from burgerbot.app.script_runner import CapturedError, ScriptRun, run_script
from burgerbot.app.scripts import mistakes as snippets
from burgerbot.app.settings import ChoiceSetting, IntSetting

__all__ = [
    "MISTAKES",
    "SPECS",
    "SYNC_MISTAKES",
    "Demo",
    "action_shape_mistake",
    "changed_lines",
    "dtype_exercise",
    "factory_mistake",
    "final_obs_mistake",
    "line_ranges",
    "scalar_obs_mistake",
    "shape_mentioned",
    "shape_pattern",
]

MISTAKES = {
    "factory": "1 · factory, not thunk",
    "scalar": "2 · scalar observation",
    "actions": "3 · actions (N, 1)",
    "final_obs": "4 · final_observation",
    "async": "5 · Async left open",
    "main_guard": "6 · spawn, no main guard",
}
"""Key (as in the URL: ``?mistake=async``) -> the label the page's selector shows."""

SPECS = (
    IntSetting("n", "N: number of sub-environments", default=4, low=1, high=64),
    ChoiceSetting("mistake", "Mistake", "factory", tuple(MISTAKES)),
)


def shape_pattern(shape: tuple[int, ...], num_envs: int) -> str:
    """A batch's shape with its first axis written as N, as the page's prediction offers it.

    Example:
        >>> shape_pattern((4,), 4), shape_pattern((4, 2), 4), shape_pattern((3, 4), 4)
        ('(N,)', '(N, 2)', '(3, 4)')
    """
    if not shape or shape[0] != num_envs:
        return str(tuple(shape))
    rest = ", ".join(str(size) for size in shape[1:])
    return f"(N, {rest})" if rest else "(N,)"


def shape_mentioned(errors: Sequence[CapturedError | None]) -> bool:
    """Whether any of these error messages mentions a shape."""
    return any(error is not None and "shape" in error.message for error in errors)


def changed_lines(before: str, after: str) -> list[int]:
    """Line numbers (from 1) of ``after`` that are new or changed compared with ``before``."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    return [
        line + 1
        for tag, _, _, first, last in matcher.get_opcodes()
        if tag in ("replace", "insert")
        for line in range(first, last)
    ]


def line_ranges(lines: list[int]) -> str:
    """Line numbers as short ranges.

    Example:
        >>> line_ranges([3, 4, 5, 9])
        '3–5, 9'
    """
    groups: list[list[int]] = []
    for line in lines:
        if groups and line == groups[-1][-1] + 1:
            groups[-1].append(line)
        else:
            groups.append([line])
    return ", ".join(str(g[0]) if len(g) == 1 else f"{g[0]}–{g[-1]}" for g in groups)


@dataclass(frozen=True)
class Demo:
    """The runs that make up one mistake (wrong, fixed, variants) and facts measured beside."""

    runs: dict[str, ScriptRun]
    facts: dict[str, Any] = field(default_factory=dict)


def _read_dtypes(namespace: dict[str, Any]) -> dict[str, Any]:
    return {
        f"{name}.{attr}": str(getattr(namespace[name], attr))
        for name in ("burgerbot_obs", "cartpole_obs")
        if name in namespace
        for attr in ("dtype", "shape")
    }


def dtype_exercise(num_envs: int) -> ScriptRun:
    """The lesson's exercise 3: print the batched observation's dtype, BurgerBot vs CartPole."""
    return run_script(snippets.dtype_exercise(num_envs), inspect_namespace=_read_dtypes)


def _read_shapes(*names: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def read(namespace: dict[str, Any]) -> dict[str, Any]:
        return {
            f"{name}.shape": tuple(np.shape(namespace[name])) for name in names if name in namespace
        }

    return read


def factory_mistake(num_envs: int) -> Demo:
    """Mistake 1: the factory itself in the list instead of the function it returns."""
    return Demo(
        runs={
            "wrong": run_script(snippets.factory_wrong(num_envs)),
            "fixed": run_script(
                snippets.factory_fixed(num_envs), inspect_namespace=_read_shapes("obs")
            ),
            "defaults": run_script(snippets.factory_with_defaults_wrong(num_envs)),
        }
    )


def scalar_obs_mistake(num_envs: int) -> Demo:
    """Mistake 2: one plain int per env gives a batch of shape (N,), not (N, k)."""
    return Demo(
        runs={
            "wrong": run_script(
                snippets.scalar_obs_wrong(num_envs), inspect_namespace=_read_shapes("obs")
            ),
            "fixed": run_script(
                snippets.scalar_obs_fixed(num_envs), inspect_namespace=_read_shapes("obs", "rows")
            ),
        }
    )


def _read_outcomes(namespace: dict[str, Any]) -> dict[str, Any]:
    outcomes = namespace.get("outcomes", {})
    return {
        "outcomes": {
            name: None if error is None else CapturedError.from_exception(error)
            for name, error in outcomes.items()
        }
    }


def action_shape_mistake(num_envs: int) -> Demo:
    """Mistake 3: actions of shape (N, 1), given to Sync BurgerBots, Sync CartPoles, native."""
    return Demo(
        runs={
            "wrong": run_script(
                snippets.action_shape_wrong(num_envs), inspect_namespace=_read_shapes("actions")
            ),
            "fixed": run_script(
                snippets.action_shape_fixed(num_envs),
                inspect_namespace=_read_shapes("actions", "rewards"),
            ),
            "elsewhere": run_script(
                snippets.action_shape_other_envs(num_envs), inspect_namespace=_read_outcomes
            ),
        }
    )


def final_obs_mistake(num_envs: int) -> Demo:
    """Mistake 4: ``infos["final_observation"]`` is gone in gymnasium 1.x, in every mode."""
    return Demo(
        runs={
            "wrong_same_step": run_script(snippets.final_obs_wrong(num_envs, "SAME_STEP")),
            "wrong_next_step": run_script(snippets.final_obs_wrong(num_envs, "NEXT_STEP")),
            "fixed_same_step": run_script(
                snippets.final_obs_fixed_same_step(num_envs), read=("final",)
            ),
            "fixed_next_step": run_script(
                snippets.final_obs_fixed_next_step(num_envs), read=("final",)
            ),
        }
    )


SYNC_MISTAKES: dict[str, Callable[[int], Demo]] = {
    "factory": factory_mistake,
    "scalar": scalar_obs_mistake,
    "actions": action_shape_mistake,
    "final_obs": final_obs_mistake,
}
"""The mistakes that run inside this process in milliseconds (1-4), by key."""
