"""A small, thread-safe, least-recently-used store of computed results, keyed by settings."""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ResultCache", "approx_bytes"]


def approx_bytes(value: Any, _seen: set[int] | None = None) -> int:
    """About how many bytes ``value`` holds: frames, arrays, strings and their containers.

    Frames count their data (`DataFrame.memory_usage` with ``deep=True``), arrays their
    buffer; tuples, lists, sets, dicts and dataclasses add up their items, each object
    counted once.

    Example:
        >>> approx_bytes(np.zeros(1000)) >= 8000
        True
        >>> approx_bytes(("x" * 5000, "x" * 5000)) >= 10000
        True
    """
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, pd.DataFrame):
        return int(value.memory_usage(index=True, deep=True).sum())
    if isinstance(value, pd.Series | pd.Index):
        return int(value.memory_usage(deep=True))
    if isinstance(value, np.ndarray):
        return (
            int(value.nbytes) + sys.getsizeof(value) - (value.nbytes if value.base is None else 0)
        )
    size = sys.getsizeof(value)
    if isinstance(value, str | bytes | bytearray | int | float | bool) or value is None:
        return size
    if isinstance(value, Mapping):
        return size + sum(approx_bytes(k, seen) + approx_bytes(v, seen) for k, v in value.items())
    if isinstance(value, tuple | list | set | frozenset):
        return size + sum(approx_bytes(item, seen) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return size + sum(
            approx_bytes(getattr(value, field.name), seen) for field in dataclasses.fields(value)
        )
    if hasattr(value, "__dict__"):
        return size + approx_bytes(vars(value), seen)
    return size


class ResultCache:
    """A small, thread-safe, least-recently-used store of results, keyed by settings.

    A page keeps one (shared by every session) so that it can show a progress bar while
    a result is computed the first time, which a cached function cannot do. It holds at most
    ``max_entries`` results and, with ``max_bytes``, at most that many bytes of them (by
    `approx_bytes`): a result bigger than that is returned but not kept.

    Example:
        >>> cache = ResultCache(max_entries=1)
        >>> cache.get_or_compute("a", lambda: 1), cache.get_or_compute("a", lambda: 2)
        (1, 1)
        >>> cache.get_or_compute("b", lambda: 3), "a" in cache
        (3, False)
    """

    def __init__(self, max_entries: int, max_bytes: int | None = None) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._sizes: dict[Hashable, int] = {}
        self._lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items

    @property
    def nbytes(self) -> int:
        """Bytes the kept results hold (by `approx_bytes`, measured when each was stored)."""
        with self._lock:
            return sum(self._sizes.values())

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The stored result for ``key``, or ``compute()``'s, stored as the most recent.

        Args:
            key: What the result depends on (hashable settings).
            compute: Makes the result when it is not stored.

        Returns:
            The result; the least recently used entries go once there are too many, or
            they hold too many bytes.
        """
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()  # outside the lock: other sessions are not held up meanwhile
        size = approx_bytes(value) if self.max_bytes is not None else 0
        if self.max_bytes is not None and size > self.max_bytes:
            return value  # kept by nobody but its caller
        with self._lock:
            self._items[key] = value
            self._sizes[key] = size
            self._items.move_to_end(key)
            while len(self._items) > self.max_entries or (
                self.max_bytes is not None and sum(self._sizes.values()) > self.max_bytes
            ):
                old, _ = self._items.popitem(last=False)
                del self._sizes[old]
        return value
