"""Mistakes 5 and 6 of the mistakes page: AsyncVectorEnv worker processes, run live.

Mistake 5: an AsyncVectorEnv that is not closed after an error. Each script runs twice: as a
file (``python script.py``, what the page shows as its output), and inside a process that
keeps running after the error, as a notebook kernel or a server does (here: this server's
process), where the workers' fate differs. Mistake 6: ``spawn`` workers from a script without
``if __name__ == "__main__":``, which only a file run shows.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pandas as pd
from gymnasium.vector import AsyncVectorEnv

from burgerbot.app.script_runner import ScriptRun, run_script
from burgerbot.app.scripts import mistakes_async as scripts
from burgerbot.app.slots import WorkerBudget
from burgerbot.app.views.mistakes import Demo
from burgerbot.app.views.mistakes_files import run_as_file

__all__ = [
    "ASYNC_NUM_ENVS",
    "ASYNC_SCRIPTS",
    "leak_sentences",
    "main_guard_mistake",
    "process_running",
    "unclosed_async_mistake",
    "workers_frame",
]

ASYNC_NUM_ENVS = scripts.ASYNC_NUM_ENVS
ASYNC_SCRIPTS: dict[str, tuple[str, Callable[[], str]]] = {
    "wrong": ("❌ `close()` only at the end", scripts.async_wrong),
    "fixed_finally": ("✅ `try` / `finally`", scripts.async_fixed_finally),
    "fixed_closing": ("✅ `with closing(...)`", scripts.async_fixed_closing),
    "with": ("❌ `with AsyncVectorEnv(...)`", scripts.async_with_statement),
}
"""Key -> (label, script) of mistake 5; all but "with" also run inside this process."""

_PARALLEL_RUNS = 2  # two scripts at a time (mistake 5: ASYNC_NUM_ENVS workers each; 6: one)


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
    """What the script left in this process: its env's workers, alive or not; then close it."""
    envs = namespace.get("envs")
    if not isinstance(envs, AsyncVectorEnv):
        return {}
    processes = list(envs.processes)
    facts: dict[str, Any] = {
        "worker_pids": [p.pid for p in processes],
        "daemon": [bool(p.daemon) for p in processes],
        "closed_by_script": bool(envs.closed),
        "alive_after_script": _alive(processes),
    }
    envs.close()
    facts["alive_after_close"] = _alive(processes)
    return facts


def _in_process(code: str) -> dict[str, Any]:
    run = run_script(code, inspect_namespace=_check_workers)
    return {**run.values, "in_process_error": None if run.error is None else run.error.type}


def _with_budget(budget: WorkerBudget | None, workers: int, work: Callable[[], Any]) -> Any:
    if budget is not None:
        budget.acquire(workers)
    try:
        return work()
    finally:
        if budget is not None:
            budget.release(workers)


def unclosed_async_mistake(budget: WorkerBudget | None = None) -> Demo:
    """Mistake 5: each script run as a file, and (but "with") inside this process.

    Two scripts run at a time; ``budget`` (the server-wide Async worker budget) is held for
    their workers during the whole demo. Whatever a script leaves open is closed.
    """

    def run_all() -> Demo:
        with ThreadPoolExecutor(_PARALLEL_RUNS, thread_name_prefix="mistake5") as pool:
            files = {
                key: pool.submit(run_as_file, make()) for key, (_, make) in ASYNC_SCRIPTS.items()
            }
            inside = {
                key: pool.submit(_in_process, make())
                for key, (_, make) in ASYNC_SCRIPTS.items()
                if key != "with"
            }
            runs = {key: future.result() for key, future in files.items()}
            for key, future in inside.items():
                run = runs[key]
                runs[key] = ScriptRun(
                    run.code, run.output, run.error, {**run.values, **future.result()}
                )
        facts = {
            "async_has_enter": hasattr(AsyncVectorEnv, "__enter__"),
            "async_has_del": "__del__" in vars(AsyncVectorEnv),
        }
        return Demo(runs=runs, facts=facts)

    return _with_budget(budget, _PARALLEL_RUNS * ASYNC_NUM_ENVS, run_all)


def main_guard_mistake(budget: WorkerBudget | None = None) -> Demo:
    """Mistake 6: the same Async script without and with ``if __name__ == "__main__":``."""

    def run_all() -> Demo:
        with ThreadPoolExecutor(_PARALLEL_RUNS, thread_name_prefix="mistake6") as pool:
            wrong = pool.submit(run_as_file, scripts.main_guard_wrong())
            fixed = pool.submit(run_as_file, scripts.main_guard_fixed())
            return Demo(runs={"wrong": wrong.result(), "fixed": fixed.result()})

    return _with_budget(budget, _PARALLEL_RUNS * scripts.MAIN_GUARD_NUM_ENVS, run_all)


def _count(pids: Sequence[int] | None) -> str:
    return "could not be read" if pids is None else str(len(pids))


def workers_frame(runs: Mapping[str, ScriptRun]) -> pd.DataFrame:
    """Mistake 5's worker counts: one row per script that ran both ways."""
    rows = [(key, label) for key, (label, _) in ASYNC_SCRIPTS.items() if key != "with"]
    return pd.DataFrame(
        {
            "script": [label.replace("`", "") for _, label in rows],
            "as a file: stopped with": [_error_type(runs[key]) for key, _ in rows],
            "as a file: workers left after it exited": [
                _count(runs[key].values.get("left_after_exit")) for key, _ in rows
            ],
            "in a process that goes on: workers running after the error": [
                _count(runs[key].values.get("alive_after_script")) for key, _ in rows
            ],
        }
    )


def _error_type(run: ScriptRun) -> str:
    return "no error" if run.error is None else run.error.type


def leak_sentences(
    runs: Mapping[str, ScriptRun], facts: Mapping[str, Any] | None = None
) -> list[str]:
    """What mistake 5's runs showed, in words that follow the counts (Markdown).

    ``facts["async_has_del"]``: whether deleting the env closes it (``__del__``).
    """
    wrong = runs["wrong"].values
    started = len(wrong.get("worker_pids", []))
    kept = len(wrong.get("alive_after_script", []))
    daemon = wrong.get("daemon", [])
    after_exit = [runs[key].values.get("left_after_exit") for key in ASYNC_SCRIPTS]
    if None in after_exit:
        on_exit = (
            "This server cannot list processes (no `/proc`), so the workers left after each "
            "file run could not be counted."
        )
    elif not any(after_exit):
        on_exit = (
            "**Run as a file, no script left a worker behind**, not even ❌: when `python "
            "script.py` ends, even with an error, Python stops the script's worker processes"
            + (", which are daemon processes." if daemon and all(daemon) else ".")
        )
    else:
        leaked = sum(len(pids) for pids in after_exit if pids)
        on_exit = (
            f"**Run as a file, {leaked} worker process{'es' * (leaked != 1)} outlived the "
            "script** (the page stopped them)."
        )
    if kept:
        going_on = (
            "**Inside a process that goes on after the error** (a notebook's kernel, a server, "
            f"a training loop that catches errors), ❌ kept {kept} of its {started} workers "
            "running: `envs` still refers to the env, so nothing closes it until you call "
            "`envs.close()`, "
            + (
                "delete `envs` (`AsyncVectorEnv.__del__` closes it), "
                if (facts or {}).get("async_has_del")
                else ""
            )
            + "or restart the kernel. After the page called "
            f"`envs.close()`: {len(wrong.get('alive_after_close', []))} left."
        )
    else:
        going_on = (
            f"Inside a process that goes on after the error, ❌ kept none of its {started} "
            "workers running this time."
        )
    fixed_kept = sum(
        len(runs[key].values.get("alive_after_script", []))
        for key in ("fixed_finally", "fixed_closing")
    )
    if fixed_kept:
        fixes = f"The ✅ versions still left {fixed_kept} worker{'s' * (fixed_kept != 1)} running."
    else:
        fixes = (
            "Both ✅ versions closed their workers before the error left the block, so none "
            "is left however the code runs."
        )
    return [on_exit, going_on, fixes]
