"""The shared result cache (`burgerbot.app.result_cache`): least recently used entries go."""

from __future__ import annotations

import pytest

from burgerbot.app.result_cache import ResultCache


def test_result_cache_keeps_the_most_recent_entries():
    cache = ResultCache(max_entries=2)
    calls = []

    def compute(value):
        calls.append(value)
        return value

    assert cache.get_or_compute("a", lambda: compute(1)) == 1
    assert cache.get_or_compute("b", lambda: compute(2)) == 2
    assert cache.get_or_compute("a", lambda: compute(3)) == 1  # hit, and now most recent
    cache.get_or_compute("c", lambda: compute(4))
    assert "a" in cache and "b" not in cache and "c" in cache
    assert calls == [1, 2, 4]


def test_a_failed_computation_stores_nothing():
    cache = ResultCache(max_entries=2)

    def fail():
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        cache.get_or_compute("a", fail)
    assert "a" not in cache
    assert cache.get_or_compute("a", lambda: 5) == 5
