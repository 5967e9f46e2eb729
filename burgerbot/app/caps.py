"""The limits that keep the app inside a small hosted container, all in one place."""

from __future__ import annotations

import ast
import inspect
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import cast

__all__ = ["CAPS", "Caps", "caps_table", "load_caps"]


@dataclass(frozen=True)
class Caps:
    """Upper bounds the app enforces; each can be raised locally with an environment variable.

    The defaults suit Streamlit Community Cloud (about 1 GB of memory, 1 to 2 cores). The
    variable for a field is ``BURGERBOT_`` plus the field name in capitals, for example
    ``BURGERBOT_MAX_ENVS=65536 streamlit run streamlit_app.py``.
    """

    max_envs: int = 1024
    """Largest NUM_ENVS for Sync and native envs on interactive pages (1024 Sync envs are
    1024 Python objects stepped in a loop: still well under a second per step)."""

    max_async_envs: int = 8
    """Largest NUM_ENVS for AsyncVectorEnv: one worker process (about 40 MB) per env."""

    max_live_async_workers: int = 8
    """Async worker processes alive at once across all sessions of one server (8 workers
    take about 320 MB, a third of a Community Cloud container)."""

    max_live_sync_envs: int = 8_192
    """Sub-environments of Sync vector envs alive at once across all sessions of one server
    (8 tabs of 1,024 CartPoles, about 40 MB): each is hundreds of small Python objects, and
    once tens of thousands have lived the server cannot hand their memory back."""

    async_idle_seconds: int = 300
    """An Async env left untouched this long, even in an open tab, is closed, ending its
    worker processes (a closed tab's env goes after the session TTL)."""

    max_steps_per_run: int = 2_000
    """Step calls one click may make on the stepping pages (Step xN, rollouts, timelines)."""

    max_sweep_env_steps: int = 20_000_000
    """Env-steps one sweep (goal scaling, timing) may take in total, across envs and seeds."""

    max_sync_sweep_env_steps: int = 3_000_000
    """The same for Sync and Async backends, which step 50-100x slower than native."""

    max_sweep_step_calls: int = 2_000_000
    """step() calls one sweep (goal scaling, timing) may make in total, across envs, seeds and
    backends: a call costs about the same time whatever NUM_ENVS is, so a sweep of one env
    and millions of steps is minutes of a core although its env-steps fit their cap."""

    heavy_run_env_steps: int = 50_000
    """A run of at least this many env-steps or step() calls is heavy: it takes one of the
    server's heavy-run slots while it computes (an Auto-reset run of 64 envs x 2,000 steps,
    128,000 env-steps, holds tens of MB until its page is drawn)."""

    max_heavy_runs: int = 2
    """Heavy runs computing at once across all sessions of one server; past them a visitor is
    told how long to wait, instead of every run slowing down and memory running out."""

    max_page_cache_mb: int = 48
    """Megabytes of finished runs a page keeps for every session (Auto-reset's rollouts and
    what it draws from them); the least recently used go first."""

    max_timing_steps: int = 100_000
    """step() calls per run in one Sync vs Async timing sweep."""

    max_timing_work_us: int = 100_000
    """Extra cost per env-step (microseconds of busy or sleep) a Sync vs Async sweep may set."""

    max_timing_work_seconds: int = 60
    """Seconds of extra step cost (busy or sleep) one Sync vs Async timing sweep may add."""

    max_seeds: int = 50
    """Seeds per point in the goal-scaling sweep."""

    max_train_env_steps: int = 400_000
    """Env-steps one training run may take."""


def load_caps(environ: Mapping[str, str] | None = None) -> tuple[Caps, list[str]]:
    """Read overrides such as ``BURGERBOT_MAX_ENVS``; return the caps and notes on bad values."""
    environ = os.environ if environ is None else environ
    values: dict[str, int] = {}
    notes: list[str] = []
    for field in fields(Caps):
        name = f"BURGERBOT_{field.name.upper()}"
        raw = environ.get(name)
        if raw is None:
            continue
        try:
            value = int(raw.strip().replace("_", ""))
        except ValueError:
            value = 0
        if value < 1:
            notes.append(f"Ignored {name}={raw!r}: it must be a positive whole number.")
            continue
        values[field.name] = value
    return Caps(**values), notes


def caps_table() -> str:
    """The caps as Markdown table rows (variable, default, what it limits), for the README."""
    # The source of one class: its module holds that one statement.
    (cls,) = cast(list[ast.ClassDef], ast.parse(inspect.getsource(Caps)).body)
    docs = {
        node.target.id: " ".join(following.value.value.split())
        for node, following in zip(cls.body, cls.body[1:], strict=False)
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and isinstance(following, ast.Expr)
        and isinstance(following.value, ast.Constant)
        and isinstance(following.value.value, str)
    }
    return "\n".join(
        f"| `BURGERBOT_{f.name.upper()}` | {f.default:,} | {docs[f.name]} |" for f in fields(Caps)
    )


CAPS, CAPS_NOTES = load_caps()
