"""Vector envs that live across app reruns: one slot per session, closed when replaced."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import itertools
import logging
import math
import statistics
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv
from gymnasium.vector.async_vector_env import AsyncState

from burgerbot.app.caps import CAPS, Caps

__all__ = [
    "HEAVY_RUNS",
    "SYNC_ENV_BUDGET",
    "WORKER_BUDGET",
    "BudgetExceeded",
    "EnvSlot",
    "HeavyRuns",
    "ServerBusy",
    "SyncEnvBudget",
    "WorkerBudget",
    "close_abandoned_slots",
    "close_broken_slots",
    "close_idle_slots",
    "close_vector_env",
    "collect_dropped_slots",
    "dead_workers",
    "reaper_paused",
    "session_ttl_seconds",
    "shut_down_expired_sessions",
]

_LOG = logging.getLogger(__name__)


class BudgetExceeded(RuntimeError):
    """Raised when a server-wide budget is full: Async workers, or heavy runs (`ServerBusy`)."""


class ServerBusy(BudgetExceeded):
    """Raised when every heavy-run slot is taken; ``wait_seconds`` is the likely wait."""

    def __init__(self, message: str, wait_seconds: int) -> None:
        super().__init__(message)
        self.wait_seconds = wait_seconds


class WorkerHold:
    """Worker processes one env started, counted by the budget while they are alive."""

    def __init__(self, workers: int, processes: Sequence[Any] | None) -> None:
        self.workers = workers
        self.processes = tuple(processes) if processes is not None else None

    def alive(self) -> int:
        """How many of them are alive (all ``workers`` when the processes are not known)."""
        if self.processes is None:
            return self.workers
        return sum(1 for process in self.processes if process.is_alive())


class WorkerBudget:
    """Counts Async worker processes alive in this server process, across all sessions.

    Two kinds of use: ``acquire``/``release`` reserve a number of workers around work that
    starts and ends them itself (a timing sweep, a script run); ``hold`` turns a reservation
    into the processes an env started, which count while they are alive, so a worker that
    died (killed, out of memory) frees its share at once, and ``drop`` forgets them once the
    env is closed (every process ended).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._reserved = 0
        self._holds: list[WorkerHold] = []
        self._lock = threading.Lock()

    @property
    def in_use(self) -> int:
        with self._lock:
            return self._count()

    def _count(self) -> int:
        return self._reserved + sum(hold.alive() for hold in self._holds)

    def acquire(self, workers: int) -> None:
        with self._lock:
            in_use = self._count()
            if in_use + workers > self.limit:
                raise BudgetExceeded(
                    f"{in_use} Async worker processes are already running on this server "
                    f"(limit {self.limit}); starting {workers} more would pass it. Try Sync or "
                    "native, or fewer envs, or again in a moment."
                )
            self._reserved += workers

    def release(self, workers: int) -> None:
        with self._lock:
            self._reserved = max(0, self._reserved - workers)

    def hold(self, workers: int, processes: Sequence[Any] | None) -> WorkerHold:
        """Turn a reservation of ``workers`` into the ``processes`` that were started."""
        hold = WorkerHold(workers, processes)
        with self._lock:
            self._reserved = max(0, self._reserved - workers)
            self._holds.append(hold)
        return hold

    def drop(self, hold: WorkerHold) -> None:
        """Stop counting ``hold`` (its env is closed; idempotent)."""
        with self._lock:
            if hold in self._holds:
                self._holds.remove(hold)


WORKER_BUDGET = WorkerBudget(CAPS.max_live_async_workers)


class SyncEnvBudget:
    """Counts the sub-environments of Sync vector envs alive in this server, across sessions.

    Each is a stack of Python objects (env, wrappers, spaces, random generators), hundreds of
    small allocations. Python keeps its small-object memory in 1 MB arenas and returns an
    arena only once every object in it is gone: after 40 tabs of 1,024 CartPoles were opened
    and closed, every env freed, the server still held about 190 MB more than before (the
    few objects made meanwhile that live on are spread over most arenas). What cannot be
    given back must not be taken: past ``limit`` a new Sync env is refused with a message.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._in_use = 0
        self._lock = threading.Lock()

    @property
    def in_use(self) -> int:
        with self._lock:
            return self._in_use

    def acquire(self, envs: int) -> None:
        if envs <= 0:
            return
        with self._lock:
            if self._in_use + envs > self.limit:
                raise BudgetExceeded(
                    f"Other visitors' Sync envs hold {self._in_use:,} environments on this "
                    f"server (limit {self.limit:,}); {envs:,} more would pass it. Try fewer "
                    "envs or the native backend, or again in a minute (a closed tab's envs "
                    "are freed a minute after it closes)."
                )
            self._in_use += envs

    def release(self, envs: int) -> None:
        if envs <= 0:
            return
        with self._lock:
            self._in_use = max(0, self._in_use - envs)


SYNC_ENV_BUDGET = SyncEnvBudget(CAPS.max_live_sync_envs)


class HeavyRuns:
    """A server-wide, non-blocking semaphore for heavy runs (memory and CPU), across sessions.

    A run whose size passes ``caps.heavy_run_env_steps`` (env-steps or step() calls) takes a
    slot while it computes; with all ``caps.max_heavy_runs`` taken, `hold` raises
    `ServerBusy` at once, its message giving the likely wait (from how long recent heavy
    runs took), rather than letting every run slow down while memory runs out. Smaller runs
    pass through untouched.

    Example:
        >>> runs = HeavyRuns(Caps(max_heavy_runs=1, heavy_run_env_steps=100))
        >>> with runs.hold(env_steps=100):
        ...     with runs.hold(env_steps=99):  # small: no slot needed
        ...         runs.in_use
        1
    """

    DEFAULT_SECONDS = 20.0
    """The wait assumed for a heavy run before any has finished on this server."""

    def __init__(self, caps: Caps = CAPS, clock: Callable[[], float] = time.monotonic) -> None:
        self.caps = caps
        self._clock = clock
        self._started: dict[int, float] = {}  # ticket -> when its run started
        self._durations: deque[float] = deque(maxlen=20)
        self._tickets = itertools.count()
        self._lock = threading.Lock()

    @property
    def in_use(self) -> int:
        with self._lock:
            return len(self._started)

    def is_heavy(self, env_steps: int = 0, step_calls: int = 0) -> bool:
        """Whether a run of this size needs a slot."""
        return max(env_steps, step_calls) >= self.caps.heavy_run_env_steps

    def wait_seconds(self) -> int:
        """About how long until a slot frees: a typical heavy run's time less the longest
        running one's, at least 1 s (whole seconds, rounded up to 5 s past 10)."""
        with self._lock:
            return self._wait_seconds(self._clock())

    def _wait_seconds(self, now: float) -> int:
        typical = statistics.median(self._durations) if self._durations else self.DEFAULT_SECONDS
        oldest = min(self._started.values(), default=now)
        wait = max(1.0, typical - (now - oldest))
        return math.ceil(wait) if wait <= 10 else 5 * math.ceil(wait / 5)

    @contextlib.contextmanager
    def hold(self, env_steps: int = 0, step_calls: int = 0) -> Iterator[None]:
        """Hold a slot around a run of this size (nothing for a small run).

        Raises:
            ServerBusy: every slot is taken (nothing was started).
        """
        if not self.is_heavy(env_steps, step_calls):
            yield
            return
        with self._lock:
            now = self._clock()
            if len(self._started) >= self.caps.max_heavy_runs:
                wait = self._wait_seconds(now)
                raise ServerBusy(self._busy_message(wait), wait)
            ticket = next(self._tickets)
            self._started[ticket] = now
        try:
            yield
        finally:
            with self._lock:
                started = self._started.pop(ticket)
                self._durations.append(self._clock() - started)

    def _busy_message(self, wait: int) -> str:
        limit = self.caps.max_heavy_runs
        runs = "big run is" if limit == 1 else f"{limit} big runs are"
        return (
            f"This server is busy: {runs} already going for other visitors, as many as it "
            f"makes at once to stay within its memory. A slot should free in about {wait} s: "
            f"try again then, or pick a smaller run (under {self.caps.heavy_run_env_steps:,} "
            "env-steps and step() calls runs at once)."
        )


HEAVY_RUNS = HeavyRuns()


CLOSE_GRACE_SECONDS = 2.0
"""How long a worker that was asked to close (or terminated) may take before it is killed."""


def dead_workers(env: VectorEnv | None) -> list[int]:
    """Indices of ``env``'s Async worker processes that are no longer alive (none for others)."""
    if not isinstance(env, AsyncVectorEnv) or env.closed:
        return []
    return [i for i, process in enumerate(env.processes) if not process.is_alive()]


def close_vector_env(env: VectorEnv) -> None:
    """Close ``env`` and end every process it started, whatever state it is in; never raises.

    `AsyncVectorEnv.close` asks each worker through its pipe: with a worker dead, or a call
    that failed half-way, that writes into a broken pipe or waits for an answer that never
    comes. A healthy Async env is closed politely; any other (or one whose polite close
    fails) has its workers terminated, then killed if they do not end within
    `CLOSE_GRACE_SECONDS`.
    """
    if not isinstance(env, AsyncVectorEnv):
        try:
            env.close()
        except Exception:  # a failing close must not take the page or the reaper down
            _LOG.warning("closing %r failed", env, exc_info=True)
        if isinstance(env, SyncVectorEnv):
            # Its last script run's variables may still hold the vector env (a closed tab's
            # session lives on until Streamlit drops it): its sub-environments, thousands
            # of objects for a big NUM_ENVS, go now.
            env.envs = []
        return
    if env.closed:
        return
    healthy = (
        env._state == AsyncState.DEFAULT
        and all(pipe is not None and not pipe.closed for pipe in env.parent_pipes)
        and not dead_workers(env)
    )
    if healthy:
        try:
            env.close()
            return
        except Exception:  # a worker died while closing: end the rest below
            _LOG.info("an Async worker did not close; terminating the others", exc_info=True)
    _end_workers(env)


def _end_workers(env: AsyncVectorEnv) -> None:
    processes = list(env.processes)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for pipe in env.parent_pipes:
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    deadline = time.monotonic() + CLOSE_GRACE_SECONDS
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join()
    env.closed = True  # gymnasium's own close would now write into the closed pipes


def _close_quietly(
    env: VectorEnv,
    hold: WorkerHold,
    budget: WorkerBudget,
    sync_envs: int = 0,
    sync_budget: SyncEnvBudget | None = None,
) -> None:
    try:
        close_vector_env(env)
    finally:
        budget.drop(hold)
        if sync_budget is not None:
            # Closing drops the sub-envs (the slot forgets the env); a closed SyncVectorEnv
            # would otherwise keep them in its ``envs`` list while anything refers to it.
            if isinstance(env, SyncVectorEnv):
                env.envs = []
            sync_budget.release(sync_envs)


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

    def __init__(
        self,
        budget: WorkerBudget = WORKER_BUDGET,
        connected: Callable[[], bool] | None = None,
        sync_budget: SyncEnvBudget | None = None,
    ) -> None:
        self.key: Hashable | None = None
        self.env: VectorEnv | None = None
        self.state: dict[str, Any] = {}  # what the page keeps about this env (history, ...)
        self.workers = 0
        self.last_used = time.monotonic()
        self.idle_note: str | None = None  # set when the env was closed for being idle
        # Whether the session's browser tab is still connected (None: not known, e.g. in
        # tests without a server); asked by the reaper, which closes an abandoned env.
        self.connected = connected
        self.gone_since: float | None = None
        self._budget = budget
        self._sync_budget = SYNC_ENV_BUDGET if sync_budget is None else sync_budget
        self._finalizer: weakref.finalize | None = None
        with _REGISTRY_LOCK:
            _REGISTRY.add(self)

    def touch(self) -> None:
        """Mark the env as in use (idle Async envs are closed by :func:`close_idle_slots`)."""
        self.last_used = time.monotonic()

    def get(
        self, key: Hashable, build: Callable[[], VectorEnv], workers: int = 0, sync_envs: int = 0
    ) -> VectorEnv:
        """The env for ``key``, building it (and closing the previous one) when the key changes.

        ``workers`` is the number of worker processes ``build`` starts (Async envs), and
        ``sync_envs`` the number of sub-environments of a Sync env it builds; each is
        counted against its server-wide budget, and :class:`BudgetExceeded` is raised before
        anything is built when a budget would be exceeded.
        """
        self.touch()
        if self.env is not None and key == self.key and not self.env.closed:
            return self.env
        self.close()
        self.idle_note = None
        self._sync_budget.acquire(sync_envs)
        try:
            self._budget.acquire(workers)
        except BaseException:
            self._sync_budget.release(sync_envs)
            raise
        try:
            env = build()
        except BaseException:
            self._budget.release(workers)
            self._sync_budget.release(sync_envs)
            raise
        # From here the budget counts the processes themselves: one that dies stops counting.
        hold = self._budget.hold(workers, getattr(env, "processes", None) if workers else None)
        # Starting workers can outlast the idle limit on a busy server: idle time counts
        # from when the env is ready.
        self.touch()
        self.key, self.env, self.state, self.workers = key, env, {}, workers
        self._finalizer = weakref.finalize(
            self, _close_quietly, env, hold, self._budget, sync_envs, self._sync_budget
        )
        _start_reaper()  # it ends Async workers, and frees any env of a session gone
        return env

    def close(self) -> None:
        """Close the env now, ending any worker processes (idempotent; never raises)."""
        if self._finalizer is not None:
            self._finalizer()  # runs _close_quietly once, then detaches
        self._finalizer = None
        self.key, self.env, self.state, self.workers = None, None, {}, 0

    def close_if_broken(self) -> bool:
        """Close the env if one of its Async worker processes died; True if it did.

        The other workers are ended too, and ``idle_note`` tells the page what happened.
        """
        dead = dead_workers(self.env)
        if not dead:
            return False
        self.close()
        self.idle_note = _dead_worker_sentence(dead) + " The env was closed; a new one was started."
        return True

    def failure_message(self, what: str, error: BaseException) -> str:
        """What to tell the learner when ``what`` (a call on the env) raised ``error``.

        Call it before closing the env: a dead worker is named as the cause (the exception
        itself, a broken pipe or an end of file, says nothing useful). A note already set for
        this env (closed meanwhile by the reaper) is used, and cleared: it is said here.
        """
        dead = dead_workers(self.env)
        if dead:
            cause = _dead_worker_sentence(dead)
        elif self.idle_note:
            cause = self.idle_note
        else:
            cause = f"`{what}` failed: {str(error) or type(error).__name__}."
        self.idle_note = None
        return f"{cause} The env was closed; the next click starts a new one."


def _dead_worker_sentence(dead: list[int]) -> str:
    which = f"env {dead[0]}" if len(dead) == 1 else "envs " + ", ".join(map(str, dead))
    return (
        f"The worker process of {which} stopped (ended from outside, or out of memory), so "
        "this Async env cannot step any more; its other worker processes were ended."
    )


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


GC_SECONDS = 30.0
"""How often the reaper collects while sessions that went away are still registered, or
while the server has been busy since its last collection."""

_last_collection = time.monotonic()
_LIBC: Any = None


def give_memory_back() -> bool:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim``); True if done.

    After a burst of heavy runs Python has freed their arrays, but the C allocator keeps the
    pages for reuse: the server would hold hundreds of MB it no longer uses (the issue's
    12-tab burst left 1,019 MB). Elsewhere than glibc this does nothing.
    """
    global _LIBC
    if _LIBC is None:
        try:
            _LIBC = ctypes.CDLL("libc.so.6")
            _LIBC.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _LIBC = False
    if not _LIBC:
        return False
    _LIBC.malloc_trim(0)
    return True


def collect_dropped_slots(freed: bool = False, now: float | None = None) -> bool:
    """Run the garbage collector when something may be waiting for it; True if it ran.

    The app turns off Streamlit's collection after every script run (`runner.postScriptGC`
    in `.streamlit/config.toml`: a full collection cost each click about 160 ms of server
    CPU). A session that went away holds its slot, envs and the rest in reference cycles,
    which only a collection frees (and only a collection runs the slot's finalizer that
    closes its Async workers). So the reaper collects: every few seconds while some slot
    holds workers; at once when it has just closed abandoned envs (``freed``); and every
    `GC_SECONDS` while slots of sessions whose tab is gone are still alive (Streamlit
    lets go of an expired session only when another one disconnects), or while the server
    has made long-lived objects since the last collection (a page without an env slot, such
    as Auto-reset's runs, leaves its cycles too). After a collection that was not just for
    workers, the freed heap is handed back to the system (`give_memory_back`).
    """
    global _last_collection
    now = time.monotonic() if now is None else now
    with _REGISTRY_LOCK:
        slots = list(_REGISTRY)
    busy = any(slot.workers for slot in slots)
    lingering = any(slot.gone_since is not None for slot in slots)
    # gc's oldest-generation count: collections of the younger ones since the last full one.
    active = gc.get_count()[2] > 0
    due = (lingering or active) and now - _last_collection >= GC_SECONDS
    if busy or freed or due:
        gc.collect()
        if freed or due:
            give_memory_back()
        _last_collection = now
        return True
    return False


def close_abandoned_slots(grace_seconds: float, now: float | None = None) -> int:
    """Close the envs of sessions whose tab has been gone ``grace_seconds`` or more.

    A closed tab leaves its session on the server for the session TTL (a reconnect within it
    finds everything as it was), and a session past it may wait longer still for Streamlit
    and the garbage collector to drop it: its env (Async workers, or thousands of Sync
    sub-environments) is closed here instead. Call it every few seconds; returns how many
    envs it closed.
    """
    now = time.monotonic() if now is None else now
    with _REGISTRY_LOCK:
        watched = [(slot, slot.connected) for slot in _REGISTRY if slot.connected is not None]
    closed = 0
    for slot, connected in watched:
        if connected():
            slot.gone_since = None
            continue
        if slot.gone_since is None:
            slot.gone_since = now
        if slot.env is not None and now - slot.gone_since >= grace_seconds:
            had_workers = slot.workers
            slot.close()
            if had_workers:
                slot.idle_note = (
                    f"The Async env was closed {grace_seconds:.0f} s after this page lost its "
                    "connection, to end its worker processes; a new one was started."
                )
            closed += 1
    return closed


def session_ttl_seconds() -> float:
    """How long the server keeps a closed tab's session (`server.disconnectedSessionTTL`)."""
    from streamlit import config

    return float(config.get_option("server.disconnectedSessionTTL"))


def close_broken_slots() -> int:
    """Close every Async env with a dead worker process (`EnvSlot.close_if_broken`)."""
    with _REGISTRY_LOCK:
        slots = [slot for slot in _REGISTRY if slot.workers]
    return sum(slot.close_if_broken() for slot in slots)


def shut_down_expired_sessions() -> int:
    """Shut down the sessions Streamlit kept for a reconnect that never came; how many.

    A closed tab's session waits in Streamlit's session storage for
    `server.disconnectedSessionTTL`; past it the session is only hidden, not removed: the
    storage drops expired entries when another tab disconnects, and even then never shuts
    the session down (its page's objects stay until a collection; its media files and
    upload records stay for good). After a crowd leaves, nobody disconnects any more, so
    the last tabs' sessions would stay. Here they are removed and shut down as Streamlit
    shuts down a session it closes itself, on its own event loop. Reaches into
    Streamlit's private runtime (1.67): if that changes, this does nothing.
    """
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return 0
        runtime = Runtime.instance()
        manager: Any = runtime._session_mgr  # private attributes of its concrete class
        lock = manager._storage_lock
        storage = manager._session_storage._cache
        loop = runtime._get_async_objs().eventloop
        now = storage.timer()
        expired = sum(until <= now for until in list(storage._expirations.values()))
    except Exception:  # another Streamlit: its storage may already do this
        _LOG.debug("cannot reach Streamlit's session storage", exc_info=True)
        return 0
    if not expired:
        return 0

    def drop() -> None:
        with lock:
            now = storage.timer()
            gone = [
                storage._data[key] for key, until in storage._expirations.items() if until <= now
            ]
            storage.expire()
        for info in gone:
            info.session.shutdown()

    loop.call_soon_threadsafe(drop)
    return expired


_REAP_LOCK = threading.Lock()  # held by the reaper for each pass, and by `reaper_paused`


@contextlib.contextmanager
def reaper_paused() -> Iterator[None]:
    """Hold the reaper between passes (tests that check counts it would change meanwhile)."""
    with _REAP_LOCK:
        yield


def _reap_forever() -> None:
    idle_every = max(1.0, CAPS.async_idle_seconds / 10)
    last_idle_check = time.monotonic()
    shut_down = 0  # sessions shut down last pass: their objects are freed by this pass's collection
    while True:
        time.sleep(REAP_SECONDS)
        with _REAP_LOCK:
            close_broken_slots()
            abandoned = close_abandoned_slots(session_ttl_seconds())
            collect_dropped_slots(freed=abandoned > 0 or shut_down > 0)
            shut_down = shut_down_expired_sessions()
            if time.monotonic() - last_idle_check >= idle_every:
                last_idle_check = time.monotonic()
                close_idle_slots(CAPS.async_idle_seconds)


def _start_reaper() -> None:
    global _REAPER
    with _REGISTRY_LOCK:
        if _REAPER is None:
            _REAPER = threading.Thread(target=_reap_forever, name="burgerbot-reaper", daemon=True)
            _REAPER.start()
