"""When and where a result shared by every visitor was computed, and a caption saying so.

The one way a page caches a slow run: an ``st.cache_data`` function that draws its progress
bar inside (``with progress_bar("Timing ") as report:``; a cache hit replays the bar and clears
it) and returns ``measure(compute, packages, _by)``; "Measure again" clears its entry
(``function.clear(*args)``), and the page shows ``record.caption(visit=visit)`` beside it.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
import time
import uuid
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import streamlit as st

from burgerbot.app.versions import installed_version

__all__ = [
    "Measured",
    "ThrottledProgress",
    "Visit",
    "age_text",
    "library_versions",
    "measure",
    "progress_bar",
]

Result = TypeVar("Result")


def library_versions(packages: Sequence[str]) -> tuple[tuple[str, str | None], ...]:
    """``(package, version)`` as it runs here: an imported module's ``__version__``, else the
    installed distribution's; None when not installed."""
    found = (
        (p, getattr(sys.modules.get(p.replace("-", "_")), "__version__", None)) for p in packages
    )
    return tuple((p, str(v) if v else installed_version(p)) for p, v in found)


def age_text(seconds: float) -> str:
    """How long ago, in words: ``age_text(180) == "3 minutes ago"``."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' * (count != 1)} ago"
    return "less than a minute ago"


@dataclass(frozen=True)
class Visit:
    """One script run of one visitor: a token kept in their session, and when the run began."""

    visitor: str
    started: datetime = field(default_factory=lambda: datetime.now(UTC))

    @classmethod
    def begin(cls, session_state: MutableMapping) -> Visit:
        return cls(session_state.setdefault("_measured_visitor", uuid.uuid4().hex))


@dataclass(frozen=True)
class Measured:
    """When (UTC, and how long) and where (host, cores, versions) a result was computed, by whom
    (a `Visit.visitor` token, "" when unknown)."""

    at: datetime
    seconds: float
    host: str
    cores: int
    python: str
    versions: tuple[tuple[str, str | None], ...]
    by: str = ""

    def version(self, package: str) -> str | None:
        return dict(self.versions).get(package)

    def detail(self) -> str:
        """The exact start time and duration (for a tooltip)."""
        return f"Started {self.at.isoformat(timespec='milliseconds')}, took {self.seconds:.2f} s."

    def caption(
        self, verb: str = "Measured", *, visit: Visit | None = None, now: datetime | None = None
    ) -> str:
        """When and where, for ``visit``: "just now" only in the very run of the visitor whose
        run computed it; everyone else reads the clock time and how long ago."""
        now = now or datetime.now(UTC)
        clock = self.at.strftime("%H:%M" if self.at.date() == now.date() else "%Y-%m-%d %H:%M")
        cores = f"{self.cores} core{'s' * (self.cores != 1)}"
        where = f"on this server ({self.host}, {cores}) at {clock} UTC"
        mine = visit is not None and bool(self.by) and self.by == visit.visitor
        if mine and visit is not None and self.at >= visit.started:
            when = f"just now, started by your visit, {where}"
        else:
            age = age_text(max(0.0, (now - self.at).total_seconds()))
            when = f"{'by your visit ' if mine else ''}{where}, {age}"
        names = [f"Python {self.python}"] + [
            f"{p} {v}" if v else f"{p} (not installed)" for p, v in self.versions
        ]
        listed = " and ".join([", ".join(names[:-1]), names[-1]] if names[1:] else names)
        return f"{verb} {when}, with {listed}."


def measure(compute: Callable[[], Result], packages: Sequence[str], by: str = ""):
    """``(compute(), Measured)``: the result, and when, where and with which ``packages`` (their
    versions read after ``compute``, which may import them) it was computed for visitor ``by``."""
    at, start = datetime.now(UTC), time.perf_counter()
    result = compute()
    seconds = time.perf_counter() - start
    try:
        cores = len(os.sched_getaffinity(0))  # what this process may use, not the host's total
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    where = (socket.gethostname(), cores, platform.python_version(), library_versions(packages))
    return result, Measured(at, seconds, *where, by=by)


class ThrottledProgress:
    """Passes on at most about ``updates`` progress reports (and always the last one).

    A long sweep reports every 1,000 steps; a progress bar only needs about a hundred.
    Exceptions raised by ``report`` (a page being stopped) go through unchanged.

    Example:
        >>> seen = []
        >>> progress = ThrottledProgress(lambda f, m: seen.append(f), updates=4)
        >>> for i in range(1, 11):
        ...     progress(i / 10, "")
        >>> seen
        [0.1, 0.4, 0.7, 1.0]
    """

    def __init__(self, report: Callable[[float, str], Any], updates: int = 100) -> None:
        self._report = report
        self._step = 1.0 / max(1, updates)
        self._last = -1.0

    def __call__(self, fraction: float, message: str) -> None:
        if fraction >= 1.0 or fraction - self._last >= self._step:
            self._last = fraction
            self._report(fraction, message)


@contextmanager
def progress_bar(label: str = "") -> Iterator[ThrottledProgress]:
    """A progress bar for a run inside a cached function, cleared when the run ends.

    Yields ``report(fraction, message)``, shown as ``f"{label}{message} (42%)"``, at most
    about a hundred times. A cache hit replays the bar and clears it again; stopping the page
    raises from an update, which ends the run (and closes its envs).
    """
    bar = st.empty()

    def report(fraction: float, message: str) -> None:
        fraction = min(1.0, max(0.0, fraction))
        bar.progress(fraction, text=f"{label}{message} ({fraction:.0%})")

    try:
        yield ThrottledProgress(report)
    finally:
        bar.empty()
