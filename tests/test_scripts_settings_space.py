"""Every script a page builds from its settings parses at every setting its widgets and URL
allow (issue 37), drawn from the page's own ``SPECS`` and at both ends of every range.

Running them is left to each page's own tests (tests/test_shown_scripts.py runs every block at
the defaults). Pages whose property tests parse their own scripts are listed in `ELSEWHERE`.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spec_strategies import ends_of, settings_of

import burgerbot.app.logic
from burgerbot.app.logic import batch_shapes, disabled_mode, goal_statistics, vector_wrappers
from burgerbot.app.logic.speed_breakdown import sizes_for
from burgerbot.app.logic.vector_wrappers import TABLE_CALLS
from burgerbot.app.scripts import batch_shapes as batch_scripts
from burgerbot.app.scripts import disabled_mode as disabled_scripts
from burgerbot.app.scripts import goal_statistics as goal_scripts
from burgerbot.app.scripts import mistakes, more_mistakes, sb3, speed_breakdown
from burgerbot.app.scripts import vector_wrappers as wrapper_scripts

ELSEWHERE = {"cost_sweeps", "sync_vs_async", "learning_speed", "counting_episodes",
             "autoreset", "goal_scaling", "why_batches", "training_data"}  # fmt: skip


def _scripts(module, **special: Callable[[dict[str, Any]], Any]):
    """Every script function of ``module``: ``special`` ones as given, those with a required
    argument given N, the others called with their defaults (as their pages call them)."""

    def build(setting: dict[str, Any]) -> dict[str, Any]:
        scripts = {}
        for name in module.__all__:
            if name in special:
                scripts[name] = special[name](setting)
            elif callable(fn := getattr(module, name)):
                params = inspect.signature(fn).parameters.values()
                needs_n = any(p.default is p.empty for p in params)
                scripts[name] = fn(setting["n"]) if needs_n else fn()
        return scripts

    return build


def _wrappers(values: dict[str, Any]) -> dict[str, str]:
    s, _ = vector_wrappers.resolve_settings(values)
    run = (s.num_envs, s.steps, s.seed)
    return {
        "placement_script": wrapper_scripts.placement_script(s.mode, *run),
        "logging_script": wrapper_scripts.logging_script(s.backend, s.mode, *run),
        "wrong_loops_script": wrapper_scripts.wrong_loops_script(s.mode, *run),
        "table_script": wrapper_scripts.table_script(
            s.backend, s.num_envs, min(s.steps, TABLE_CALLS), s.seed
        ),
        "evaluation_script": wrapper_scripts.evaluation_script(*run),
    }


def _disabled(values: dict[str, Any]) -> dict[str, str]:
    s, _ = disabled_mode.resolve_settings(values)
    return {
        "disabled_fix_fragment": disabled_scripts.disabled_fix_fragment(),
        "disabled_fix_script": disabled_scripts.disabled_fix_script(s["n"], s["seed"]),
    }


PAGES: dict[str, tuple[Any, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "mistakes": (mistakes, _scripts(mistakes)),
    "more_mistakes": (
        more_mistakes,
        _scripts(
            more_mistakes,
            final_obs_wrong=lambda s: [
                more_mistakes.final_obs_wrong(s["n"], mode) for mode in ("SAME_STEP", "NEXT_STEP")
            ],
        ),
    ),
    "sb3": (  # the lesson's PPO calls: 4 envs (their defaults) whatever the settings
        sb3,
        _scripts(
            sb3,
            side_by_side_script=lambda s: sb3.side_by_side_script(s["n"], s["steps"], s["seed"]),
            make_vec_env_script=lambda s: [sb3.make_vec_env_script(subprocess=b) for b in (0, 1)],
        ),
    ),
    "batch_shapes": (
        batch_scripts,
        lambda v: {"snippet_for": batch_scripts.snippet_for(batch_shapes.resolve_settings(v)[0])},
    ),
    "goal_statistics": (
        goal_scripts,
        lambda v: {"snippet_for": goal_scripts.snippet_for(goal_statistics.resolve_settings(v)[0])},
    ),
    "speed_breakdown": (
        speed_breakdown,
        lambda s: {"speed_script": speed_breakdown.speed_script(sizes_for(s["n"]))},
    ),
    "disabled_mode": (disabled_scripts, _disabled),
    "vector_wrappers": (wrapper_scripts, _wrappers),
}


def specs_of(page: str):
    return importlib.import_module(f"burgerbot.app.logic.{page}").SPECS


def parse_all(page: str, setting: dict[str, Any]) -> None:
    module, build = PAGES[page]
    scripts = build(setting)
    made = {name for name in module.__all__ if callable(getattr(module, name))}
    assert set(scripts) == made, f"{page}: scripts not built here: {made - set(scripts)}"
    for name, codes in scripts.items():
        for code in [codes] if isinstance(codes, str) else codes:
            try:
                ast.parse(code)
            except SyntaxError as error:
                raise AssertionError(f"{page}.{name} at {setting}: {error}\n{code}") from error


def test_every_page_with_settings_is_covered_here_or_elsewhere():
    with_specs = {
        info.name
        for info in pkgutil.iter_modules(burgerbot.app.logic.__path__)
        if hasattr(importlib.import_module(f"burgerbot.app.logic.{info.name}"), "SPECS")
    }
    assert with_specs - ELSEWHERE == set(PAGES)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_script_parses_at_both_ends_of_every_range(page):
    for setting in ends_of(specs_of(page)):
        parse_all(page, setting)


@pytest.mark.parametrize("page", sorted(PAGES))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_every_script_parses_at_generated_settings(page, data):
    parse_all(page, data.draw(settings_of(specs_of(page)), label="setting"))
