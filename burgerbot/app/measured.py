"""When and where a live result shared by every visitor was computed, and a caption saying so."""

from __future__ import annotations

import os
import platform
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Hashable, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from burgerbot.app.versions import installed_version

__all__ = [
    "GENERATIONS",
    "Generations",
    "Measured",
    "Versions",
    "Visit",
    "age_text",
    "library_versions",
    "measure",
]

Result = TypeVar("Result")
Versions = tuple[tuple[str, str | None], ...]
VISITOR_KEY = "_measured_visitor"


def library_versions(packages: Sequence[str]) -> Versions:
    """``(package, version)`` of each package, as it runs in this process.

    An imported module's own ``__version__`` is what really runs (and costs nothing to
    read); a package not imported yet is looked up among the installed distributions.
    None means it is not installed.

    >>> dict(library_versions(["numpy"]))["numpy"] is not None
    True
    """
    found = []
    for package in packages:
        module = sys.modules.get(package.replace("-", "_"))
        version = getattr(module, "__version__", None)
        found.append((package, str(version) if version else installed_version(package)))
    return tuple(found)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # what this process may use, not the host's total
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def age_text(seconds: float) -> str:
    """How long ago, in words.

    >>> [age_text(s) for s in (5, 61, 180, 7200, 200000)]
    ['less than a minute ago', '1 minute ago', '3 minutes ago', '2 hours ago', '2 days ago']
    """
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' * (count != 1)} ago"
    return "less than a minute ago"


@dataclass(frozen=True)
class Visit:
    """One script run of one visitor: who (a token kept in their session) and when it began."""

    visitor: str
    started: datetime

    @classmethod
    def begin(cls, session_state: MutableMapping) -> Visit:
        """The current run, with the visitor's token from ``session_state`` (made once)."""
        visitor = session_state.setdefault(VISITOR_KEY, uuid.uuid4().hex)
        return cls(visitor, datetime.now(UTC))


@dataclass(frozen=True)
class Measured:
    """When (UTC) and where (host, cores, library versions) a result was computed, and for whom.

    Example:
        >>> record = Measured(datetime(2026, 1, 2, 15, 42, tzinfo=UTC), 0.9, "box", 2,
        ...     "3.11.7", (("gymnasium", "1.4.0"), ("numpy", "2.4.6")))
        >>> record.caption(now=datetime(2026, 1, 2, 15, 45, 30, tzinfo=UTC))
        'Measured on this server (box, 2 cores) at 15:42 UTC, 3 minutes ago, with Python 3.11.7, gymnasium 1.4.0 and numpy 2.4.6.'
    """  # noqa: E501

    at: datetime
    """When the computation began (UTC)."""
    seconds: float
    """How long it took."""
    host: str
    cores: int
    python: str
    versions: Versions
    by: str = ""
    """The token of the visitor whose run computed it ("" when unknown)."""

    def version(self, package: str) -> str | None:
        """The version of ``package`` the result was computed with (None: not installed)."""
        return dict(self.versions).get(package)

    def where(self) -> str:
        """The server, in words: host name and the cores this process may use."""
        return f"{self.host}, {self.cores} core{'s' * (self.cores != 1)}"

    def with_versions(self) -> str:
        """'Python 3.11.7, gymnasium 1.4.0 and numpy 2.4.6' (absent packages say so)."""
        names = [f"Python {self.python}"] + [
            f"{package} {version}" if version else f"{package} (not installed)"
            for package, version in self.versions
        ]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def detail(self) -> str:
        """The exact start time and duration (for a tooltip)."""
        return f"Started {self.at.isoformat(timespec='milliseconds')}, took {self.seconds:.2f} s."

    def caption(
        self,
        verb: str = "Measured",
        *,
        visit: Visit | None = None,
        now: datetime | None = None,
    ) -> str:
        """When and where this was computed, for the visitor of ``visit``.

        Only the visitor whose own run computed it, in that very run, reads "just now";
        everyone else reads the clock time and how long ago it was.

        Args:
            verb: What happened, capitalised: "Measured", "Ran", "Checked".
            visit: The run showing the caption (None: an anonymous reader).
            now: The current time (default: the clock's).
        """
        now = now or datetime.now(UTC)
        clock = self.at.strftime("%H:%M" if self.at.date() == now.date() else "%Y-%m-%d %H:%M")
        mine = visit is not None and bool(self.by) and self.by == visit.visitor
        where = f"on this server ({self.where()}) at {clock} UTC"
        if mine and self.at >= visit.started:
            when = f"just now, started by your visit, {where}"
        else:
            age = age_text(max(0.0, (now - self.at).total_seconds()))
            when = f"{'by your visit ' if mine else ''}{where}, {age}"
        return f"{verb} {when}, with {self.with_versions()}."


def measure(
    compute: Callable[[], Result], packages: Sequence[str], by: str = ""
) -> tuple[Result, Measured]:
    """Run ``compute`` and record when, where and with which ``packages`` it ran.

    Args:
        compute: Makes the result.
        packages: The distributions the result depends on (their versions are recorded
            after ``compute``, so a package it imported reports the version that ran).
        by: The token of the visitor whose run computes it (`Visit.visitor`).
    """
    at, start = datetime.now(UTC), time.perf_counter()
    result = compute()
    seconds = time.perf_counter() - start
    record = Measured(
        at=at,
        seconds=seconds,
        host=socket.gethostname(),
        cores=_cores(),
        python=platform.python_version(),
        versions=library_versions(packages),
        by=by,
    )
    return result, record


class Generations:
    """Server-wide counters that "Measure again" moves on, one per shown result.

    A page keys its cached result by the counter of what it shows: moving it on makes
    the next run (of whichever visitor comes first) compute that result anew, for
    everyone, while other results stay cached.

    Example:
        >>> counters = Generations()
        >>> counters.get(("home", 16)), counters.bump(("home", 16)), counters.get(("home", 8))
        (0, 1, 0)
    """

    def __init__(self) -> None:
        self._counts: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> int:
        """The current count of ``key`` (0 until moved on)."""
        with self._lock:
            return self._counts.get(key, 0)

    def bump(self, key: Hashable) -> int:
        """Move ``key``'s count on by one and return it."""
        with self._lock:
            self._counts[key] = self._counts.get(key, 0) + 1
            return self._counts[key]


# One per server process: pages re-execute on every run, this module is imported once.
GENERATIONS = Generations()
