"""A small, thread-safe, least-recently-used store of computed results, keyed by settings."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["ResultCache"]


class ResultCache:
    """A small, thread-safe, least-recently-used store of results, keyed by settings.

    A page keeps one (shared by every session) so that it can show a progress bar while
    a result is computed the first time, which a cached function cannot do.

    Example:
        >>> cache = ResultCache(max_entries=1)
        >>> cache.get_or_compute("a", lambda: 1), cache.get_or_compute("a", lambda: 2)
        (1, 1)
        >>> cache.get_or_compute("b", lambda: 3), "a" in cache
        (3, False)
    """

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The stored result for ``key``, or ``compute()``'s, stored as the most recent.

        Args:
            key: What the result depends on (hashable settings).
            compute: Makes the result when it is not stored.

        Returns:
            The result; the least recently used entries go once there are too many.
        """
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()  # outside the lock: other sessions are not held up meanwhile
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)
        return value
