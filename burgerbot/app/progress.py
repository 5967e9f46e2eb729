"""Progress reports for the app's progress bars: fewer updates, the same last one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["ThrottledProgress"]


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
