"""Vector envs that live across app reruns: one slot per session, closed when replaced."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable, Hashable
from typing import Any

from gymnasium.vector import VectorEnv

from burgerbot.app.caps import CAPS

__all__ = [
    "WORKER_BUDGET",
    "BudgetExceeded",
    "EnvSlot",
    "WorkerBudget",
    "close_idle_slots",
    "collect_dropped_slots",
]


class BudgetExceeded(RuntimeError):
    """Raised when starting more Async workers would pass the server-wide cap."""


class WorkerBudget:
    """Counts Async worker processes alive in this server process, across all sessions."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._in_use = 0
        self._lock = threading.Lock()

    @property
    def in_use(self) -> int:
        return self._in_use

    def acquire(self, workers: int) -> None:
        with self._lock:
            if self._in_use + workers > self.limit:
                raise BudgetExceeded(
                    f"{self._in_use} Async worker processes are already running on this server "
                    f"(limit {self.limit}); starting {workers} more would pass it. Try Sync or "
                    "native, or fewer envs, or again in a moment."
                )
            self._in_use += workers

    def release(self, workers: int) -> None:
        with self._lock:
            self._in_use = max(0, self._in_use - workers)


WORKER_BUDGET = WorkerBudget(CAPS.max_live_async_workers)


def _close_quietly(env: VectorEnv, workers: int, budget: WorkerBudget) -> None:
    try:
        env.close()
    finally:
        budget.release(workers)


class EnvSlot:
    """Holds at most one vector env, keyed by the settings that built it.

    Asking for a different key closes the old env before building the new one; when the
    slot itself is garbage-collected (a Streamlit session ends), its env is closed too.

    Example:
        >>> from burgerbot import BurgerBotVectorEnv
        >>> slot = EnvSlot()
        >>> env = slot.get(("native", 2), lambda: BurgerBotVectorEnv(2))
        >>> slot.get(("native", 2), lambda: BurgerBotVectorEnv(2)) is env
        True
        >>> slot.close()
        >>> env.closed
        True
    """

    def __init__(self, budget: WorkerBudget = WORKER_BUDGET) -> None:
        self.key: Hashable | None = None
        self.env: VectorEnv | None = None
        self.state: dict[str, Any] = {}  # what the page keeps about this env (history, ...)
        self.workers = 0
        self.last_used = time.monotonic()
        self.idle_note: str | None = None  # set when the env was closed for being idle
        self._budget = budget
        self._finalizer: weakref.finalize | None = None
        with _REGISTRY_LOCK:
            _REGISTRY.add(self)

    def touch(self) -> None:
        """Mark the env as in use (idle Async envs are closed by :func:`close_idle_slots`)."""
        self.last_used = time.monotonic()

    def get(self, key: Hashable, build: Callable[[], VectorEnv], workers: int = 0) -> VectorEnv:
        """The env for ``key``, building it (and closing the previous one) when the key changes.

        ``workers`` is the number of worker processes ``build`` starts (Async envs); they
        are counted against the server-wide budget, and :class:`BudgetExceeded` is raised
        before anything is started when the budget would be exceeded.
        """
        self.touch()
        if self.env is not None and key == self.key and not self.env.closed:
            return self.env
        self.close()
        self.idle_note = None
        self._budget.acquire(workers)
        try:
            env = build()
        except BaseException:
            self._budget.release(workers)
            raise
        # Starting workers can outlast the idle limit on a busy server: idle time counts
        # from when the env is ready.
        self.touch()
        self.key, self.env, self.state, self.workers = key, env, {}, workers
        self._finalizer = weakref.finalize(self, _close_quietly, env, workers, self._budget)
        if workers:
            _start_reaper()
        return env

    def close(self) -> None:
        """Close the env now (idempotent)."""
        if self._finalizer is not None:
            self._finalizer()  # runs _close_quietly once, then detaches
        self._finalizer = None
        self.key, self.env, self.state, self.workers = None, None, {}, 0


# Every live slot, so that Async envs of sessions that went away can be found and closed:
# a closed tab leaves its session (and so its slot) in memory for a while.
_REGISTRY: weakref.WeakSet[EnvSlot] = weakref.WeakSet()
_REGISTRY_LOCK = threading.Lock()
_REAPER: threading.Thread | None = None
REAP_SECONDS = 5.0
"""How often the reaper looks for dropped sessions' workers."""


def close_idle_slots(max_idle_seconds: float, now: float | None = None) -> int:
    """Close the Async envs (slots with worker processes) idle for ``max_idle_seconds``.

    Returns how many were closed; each such slot gets an ``idle_note`` for its page.
    """
    now = time.monotonic() if now is None else now
    with _REGISTRY_LOCK:
        idle = [s for s in _REGISTRY if s.workers and now - s.last_used >= max_idle_seconds]
    for slot in idle:
        slot.close()
        slot.idle_note = (
            f"The Async env was closed after {max_idle_seconds:.0f} s without use, to end its "
            "worker processes; a new one was started."
        )
    return len(idle)


def collect_dropped_slots() -> bool:
    """Run the garbage collector while some slot holds worker processes; True if it ran.

    The app turns off Streamlit's collection after every script run (`runner.postScriptGC`
    in `.streamlit/config.toml`: a full collection cost each click about 160 ms of server
    CPU). A session that went away can hold its slot in a reference cycle, and only a
    collection runs the slot's finalizer that closes its Async workers: so the reaper
    collects, every few seconds, only while there are workers to free.
    """
    with _REGISTRY_LOCK:
        busy = any(slot.workers for slot in _REGISTRY)
    if busy:
        gc.collect()
    return busy


def _reap_forever() -> None:
    idle_every = max(1.0, CAPS.async_idle_seconds / 10)
    last_idle_check = time.monotonic()
    while True:
        time.sleep(REAP_SECONDS)
        collect_dropped_slots()
        if time.monotonic() - last_idle_check >= idle_every:
            last_idle_check = time.monotonic()
            close_idle_slots(CAPS.async_idle_seconds)


def _start_reaper() -> None:
    global _REAPER
    with _REGISTRY_LOCK:
        if _REAPER is None:
            _REAPER = threading.Thread(target=_reap_forever, name="burgerbot-reaper", daemon=True)
            _REAPER.start()
