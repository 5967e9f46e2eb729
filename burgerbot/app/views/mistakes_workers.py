"""Mistake 5 of the mistakes page: an AsyncVectorEnv left open keeps its worker processes."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from typing import Any

from gymnasium.vector import AsyncVectorEnv

from burgerbot.app.script_runner import ScriptRun, run_script
from burgerbot.app.scripts import mistakes as snippets
from burgerbot.app.slots import WorkerBudget
from burgerbot.app.views.mistakes import ASYNC_NUM_ENVS, Demo

__all__ = ["process_running", "unclosed_async_mistake", "workers_line"]


def process_running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie, read from ``/proc`` (Linux)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def _alive(processes: Sequence[multiprocessing.process.BaseProcess]) -> list[int]:
    has_proc = os.path.isdir("/proc")
    return [
        p.pid
        for p in processes
        if p.pid is not None and p.is_alive() and (not has_proc or process_running(p.pid))
    ]


def _check_workers(namespace: dict[str, Any]) -> dict[str, Any]:
    """What the script left: its env's worker processes, alive or not; then close it."""
    envs = namespace.get("envs")
    if not isinstance(envs, AsyncVectorEnv):
        return {}
    processes = list(envs.processes)
    facts: dict[str, Any] = {
        "worker_pids": [p.pid for p in processes],
        "closed_by_script": bool(envs.closed),
        "alive_after_script": _alive(processes),
    }
    envs.close()
    facts["alive_after_close"] = _alive(processes)
    return facts


def unclosed_async_mistake(budget: WorkerBudget | None = None) -> Demo:
    """Mistake 5: an AsyncVectorEnv that is not closed keeps its worker processes.

    Runs four scripts one after another, each starting ``ASYNC_NUM_ENVS`` workers, and
    closes whatever a script left open before the next starts. ``budget`` (the app's
    server-wide Async worker budget) is held for the whole demo.
    """
    if budget is not None:
        budget.acquire(ASYNC_NUM_ENVS)
    try:
        runs = {
            "wrong": run_script(snippets.async_wrong(), inspect_namespace=_check_workers),
            "with": run_script(snippets.async_with_statement(), inspect_namespace=_check_workers),
            "fixed_finally": run_script(
                snippets.async_fixed_finally(), inspect_namespace=_check_workers
            ),
            "fixed_closing": run_script(
                snippets.async_fixed_closing(), inspect_namespace=_check_workers
            ),
        }
    finally:
        if budget is not None:
            budget.release(ASYNC_NUM_ENVS)
    facts = {
        "async_has_enter": hasattr(AsyncVectorEnv, "__enter__"),
        "async_has_exit": hasattr(AsyncVectorEnv, "__exit__"),
        "async_has_del": "__del__" in vars(AsyncVectorEnv),
    }
    return Demo(runs=runs, facts=facts)


def workers_line(run: ScriptRun, moment: str) -> str:
    """How many of a run's worker processes were still running at ``moment`` (Markdown)."""
    alive = run.values.get("alive_after_script", [])
    pids = ", ".join(str(pid) for pid in alive)
    return f"Worker processes of this env still running {moment}: **{len(alive)}**" + (
        f" (pids {pids})" if alive else ""
    )
