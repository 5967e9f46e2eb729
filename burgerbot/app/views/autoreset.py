"""The "Auto-reset" page's settings: the modes, the URL settings and the run they describe."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
from gymnasium.vector import AutoresetMode

from burgerbot import checks, world
from burgerbot.app.caps import CAPS
from burgerbot.app.settings import ChoiceSetting, IntSetting
from burgerbot.app.versions import installed_version
from burgerbot.checks import MAX_SEED
from burgerbot.experiments import MAX_ROLLOUT_ROWS, Progress, rollout

__all__ = [
    "BACKEND_CHOICES",
    "FINAL_COLUMNS",
    "MAX_TIMELINE_ENVS",
    "MODES",
    "OBS_COLUMNS",
    "SPECS",
    "START_OBS",
    "AutoresetSettings",
    "gymnasium_version",
    "mode_of",
    "obs_text",
    "resolve_settings",
    "run_page_rollout",
    "widget_values",
]

MODES = ("NEXT_STEP", "SAME_STEP", "DISABLED")
"""The auto-reset modes by their ``AutoresetMode`` member names, the default first."""

BACKEND_CHOICES = ("sync", "native")
"""Sync is what the lesson uses; native (BurgerBotVectorEnv) must give the very same run."""

MAX_TIMELINE_ENVS = 64
"""Local cap (not in CAPS): one timeline row per env stops being readable long before this."""

START_OBS = tuple(int(v) for v in world.observe(*world.START, world.START_HEADING))
"""Every BurgerBot episode starts with this observation: [0, 0, 1, 1]."""

OBS_COLUMNS = ("row", "col", "heading", "sensor")
"""A ``rollout`` frame's observation columns, in observation order."""

FINAL_COLUMNS = tuple(f"final_{name}" for name in OBS_COLUMNS)
"""A ``rollout`` frame's final-observation columns (filled on the step an episode ends)."""

_N_HIGH = min(MAX_TIMELINE_ENVS, CAPS.max_envs)

SPECS = (
    IntSetting("n", "NUM_ENVS", 4, 1, _N_HIGH),
    ChoiceSetting("mode", "Auto-reset mode", "NEXT_STEP", MODES),
    IntSetting("seed", "Seed", 0, 0, MAX_SEED),
    IntSetting("steps", "step() calls", 40, 1, CAPS.max_steps_per_run),
    ChoiceSetting("backend", "Backend", "sync", BACKEND_CHOICES),
    IntSetting("cn", "NUM_ENVS (counting)", 2, 1, _N_HIGH),
    IntSetting("ck", "step() calls (counting)", 200, 1, CAPS.max_steps_per_run),
)


def mode_of(name: str) -> AutoresetMode:
    """``"NEXT_STEP"`` -> ``AutoresetMode.NEXT_STEP`` (and so on).

    Only the page's names are accepted (not the enum's values, which the library also
    reads): a page setting is always one of ``MODES``.

    Example:
        >>> mode_of("SAME_STEP")
        <AutoresetMode.SAME_STEP: 'SameStep'>
    """
    if name not in MODES:
        raise ValueError(f"`mode` must be one of {MODES}, got {name!r}")
    return checks.autoreset_mode(name)


def obs_text(values: Any) -> str:
    """An observation as learners see it printed: ``[0, 2, 1, 0]``.

    Example:
        >>> obs_text(START_OBS)
        '[0, 0, 1, 1]'
    """
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def gymnasium_version() -> str:
    """The installed gymnasium's version, read live from the package metadata."""
    return installed_version("gymnasium") or "not installed"


@dataclass(frozen=True)
class AutoresetSettings:
    """What the page runs: the timeline run and the episode-counting run."""

    num_envs: int
    mode: str
    seed: int
    steps: int
    backend: str
    count_envs: int
    count_steps: int

    @property
    def autoreset_mode(self) -> AutoresetMode:
        return mode_of(self.mode)


def resolve_settings(values: Mapping[str, Any]) -> tuple[AutoresetSettings, list[str]]:
    """Turn the page's values into runnable settings, with a note for each change made.

    Values come from widgets that already keep to their ranges; this only guards the
    limits that depend on two settings at once (or on caps raised locally).

    Example:
        >>> settings, notes = resolve_settings(
        ...     {"n": 4, "mode": "SAME_STEP", "seed": 0, "steps": 40, "backend": "sync",
        ...      "cn": 2, "ck": 200}
        ... )
        >>> settings.autoreset_mode, notes
        (<AutoresetMode.SAME_STEP: 'SameStep'>, [])
    """
    notes: list[str] = []
    by_key = {spec.key: spec for spec in SPECS}

    def pick(key: str) -> Any:
        spec = by_key[key]
        value, note = spec.parse(str(values.get(key, spec.default)))
        if note:
            notes.append(note)
        return value

    num_envs, steps = pick("n"), pick("steps")
    count_envs, count_steps = pick("cn"), pick("ck")
    # Only matters when BURGERBOT_MAX_STEPS_PER_RUN is raised: rollout refuses bigger runs.
    for label, n, k in (("timeline", num_envs, steps), ("counting", count_envs, count_steps)):
        if n * k > MAX_ROLLOUT_ROWS:
            notes.append(
                f"The {label} run would record {n * k:,} steps; this page records at most "
                f"{MAX_ROLLOUT_ROWS:,}: using {MAX_ROLLOUT_ROWS // n:,} step() calls."
            )
    steps = min(steps, MAX_ROLLOUT_ROWS // num_envs)
    count_steps = min(count_steps, MAX_ROLLOUT_ROWS // count_envs)
    settings = AutoresetSettings(
        num_envs=num_envs,
        mode=pick("mode"),
        seed=pick("seed"),
        steps=steps,
        backend=pick("backend"),
        count_envs=count_envs,
        count_steps=count_steps,
    )
    return settings, notes


def widget_values(settings: AutoresetSettings) -> dict[str, Any]:
    """The settings by URL key, so that each widget shows the value really used."""
    return {
        "n": settings.num_envs,
        "mode": settings.mode,
        "seed": settings.seed,
        "steps": settings.steps,
        "backend": settings.backend,
        "cn": settings.count_envs,
        "ck": settings.count_steps,
    }


def run_page_rollout(
    settings: AutoresetSettings, backend: str | None = None, progress: Progress | None = None
) -> pd.DataFrame:
    """``experiments.rollout`` for the page's timeline settings (on ``backend`` if given)."""
    return rollout(
        backend or settings.backend,
        settings.num_envs,
        settings.steps,
        settings.seed,
        settings.autoreset_mode,
        progress=progress,
    )
