"""The Common mistakes page's Streamlit-free logic: the lesson's two common issues, run live.

Each issue is a pair of scripts from ``burgerbot.app.scripts.mistakes`` (the mistake, its fix),
executed exactly as the page shows them by `burgerbot.app.script_runner.run_script`, which
captures what they print and the error they raise (the tests check that a file run of each
gives the same). The prediction's truth and the takeaways are read from those runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from burgerbot.app.script_runner import CapturedError, ScriptRun, run_script  # noqa: F401 (doctest)
from burgerbot.app.scripts import mistakes as snippets
from burgerbot.app.settings import IntSetting

__all__ = [
    "FACTORY_OPTIONS",
    "ISSUES",
    "SPECS",
    "factory_explanation",
    "factory_outcome",
    "lesson_issue",
    "lesson_runs",
    "takeaways",
]

SPECS = (IntSetting("n", "N: number of sub-environments", default=4, low=1, high=64),)

FACTORY_OPTIONS = (
    "It works",
    "TypeError when SyncVectorEnv is built",
    "TypeError at the first envs.reset()",
    "It works, but all envs share one seed",
)
"""The factory prediction's choices: what passing ``make_env`` itself to SyncVectorEnv does."""


def factory_outcome(run: ScriptRun) -> str:
    """What the factory mistake's script did, as the prediction's options write it: its error
    and the script line that raised it (the vector env's construction or the first reset).

    Example:
        >>> def raised(line):
        ...     return CapturedError("TypeError", "no seed", "", (f"script line {line}",), "")
        >>> code = "envs = SyncVectorEnv(fns)\\nenvs.reset(seed=0)\\n"
        >>> factory_outcome(ScriptRun(code, "", raised(1)))
        'TypeError when SyncVectorEnv is built'
        >>> factory_outcome(ScriptRun(code, "", raised(2)))
        'TypeError at the first envs.reset()'
        >>> factory_outcome(ScriptRun(code, "", None))
        'It works'
    """
    if run.error is None:
        return FACTORY_OPTIONS[0]
    lines = run.code.splitlines()
    numbers = [
        int(match.group(1))
        for frame in run.error.path
        if (match := re.fullmatch(r"script line (\d+)", frame))
    ]
    line = lines[numbers[0] - 1] if numbers and 0 < numbers[0] <= len(lines) else ""
    if "SyncVectorEnv(" in line:
        return f"{run.error.type} when SyncVectorEnv is built"
    if ".reset(" in line:
        return f"{run.error.type} at the first envs.reset()"
    return f"{run.error.type} at {run.error.where or 'an unknown place'}"


def factory_explanation(run: ScriptRun) -> str:
    """Why passing the factory itself fails (or not), from the script's own error (Markdown)."""
    if run.error is None:
        return "The script ran without an error here."
    return (
        "`SyncVectorEnv` calls each item of its list with no arguments, and `make_env` needs "
        "its `seed`. Put `make_env(seed)` in the list (✅ below)."
    )


def _read_shapes(*names: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def read(namespace: dict[str, Any]) -> dict[str, Any]:
        return {
            f"{name}.shape": tuple(np.shape(namespace[name])) for name in names if name in namespace
        }

    return read


def _factory(num_envs: int) -> dict[str, ScriptRun]:
    return {
        "wrong": run_script(snippets.factory_wrong(num_envs)),
        "fixed": run_script(
            snippets.factory_fixed(num_envs), inspect_namespace=_read_shapes("obs")
        ),
    }


def _scalar(num_envs: int) -> dict[str, ScriptRun]:
    return {
        "wrong": run_script(
            snippets.scalar_obs_wrong(num_envs), inspect_namespace=_read_shapes("obs")
        ),
        "fixed": run_script(
            snippets.scalar_obs_fixed(num_envs), inspect_namespace=_read_shapes("obs", "cells")
        ),
    }


ISSUES: dict[str, Callable[[int], dict[str, ScriptRun]]] = {"factory": _factory, "scalar": _scalar}
"""The lesson's two common issues, by key: each gives its scripts' runs ("wrong", "fixed")."""


def lesson_issue(key: str, num_envs: int) -> dict[str, ScriptRun]:
    """The runs of common issue ``key`` ("factory" or "scalar") with ``num_envs`` envs."""
    return ISSUES[key](num_envs)


def lesson_runs(num_envs: int) -> dict[str, dict[str, ScriptRun]]:
    """Both common issues' runs with ``num_envs`` envs, by key."""
    return {key: lesson_issue(key, num_envs) for key in ISSUES}


def takeaways(issues: Mapping[str, Mapping[str, ScriptRun]]) -> list[str]:
    """The page's key takeaways; those on the lesson's two issues name the errors their
    scripts raised (``issues``: the runs of `lesson_issue`, by key, for those that ran)."""
    factory = issues.get("factory")
    scalar = issues.get("scalar")
    factory_error = factory["wrong"].error if factory else None
    scalar_error = scalar["wrong"].error if scalar else None
    return [
        "A vector env wants zero-argument functions: `make_env(seed)`, not `make_env`"
        + (f" (here: {factory_outcome(factory['wrong'])})." if factory and factory_error else "."),
        "A scalar observation stacks to shape `(N,)`, so `obs[:, 0]` "
        + (f"raised {scalar_error.type}" if scalar_error else "fails")
        + ": reshape to `(N, 1)`, or write the code for `(N,)`.",
        "When batch code fails, print `obs.shape`: N first, then one env's observation.",
    ]
