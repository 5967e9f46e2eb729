"""Hypothesis strategies drawn from a page's own settings definitions (its ``SPECS``).

A property test of a page takes its settings from `settings_of(SPECS)`, so the range it
covers is the range the page's widgets and URL allow: narrowing it means changing the page.
`ends_of(SPECS)` gives the settings at both ends of every range (each other setting at its
default), for ``@example``-style use: ``for ends in ends_of(SPECS): check(ends)``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from hypothesis import strategies as st

from burgerbot.app.settings import ChoiceSetting, IntListSetting, IntSetting, Setting


def value_of(spec: Setting) -> st.SearchStrategy[Any]:
    """Every value ``spec`` admits."""
    if isinstance(spec, IntSetting):
        return st.integers(spec.low, spec.high)
    if isinstance(spec, ChoiceSetting):
        return st.sampled_from(spec.choices)
    if isinstance(spec, IntListSetting):
        ints = st.integers(spec.low, spec.high)
        return st.lists(ints, min_size=1, max_size=spec.max_items).map(
            lambda values: tuple(sorted(set(values)))
        )
    raise TypeError(f"no strategy for {spec!r}")


def settings_of(specs: Sequence[Setting]) -> st.SearchStrategy[dict[str, Any]]:
    """A page's settings, each drawn over its whole range. Where a live run at the far end
    would take too long for a unit test, the test builds the run's data at the drawn settings
    (as the run would shape it) instead of narrowing the range."""
    return st.fixed_dictionaries({spec.key: value_of(spec) for spec in specs})


def defaults_of(specs: Sequence[Setting]) -> dict[str, Any]:
    return {spec.key: spec.default for spec in specs}


def ends_of(specs: Sequence[Setting]) -> Iterator[dict[str, Any]]:
    """The defaults, then each range's two ends and each choice, one setting moved at a time."""
    base = defaults_of(specs)
    yield dict(base)
    for spec in specs:
        if isinstance(spec, IntSetting):
            moved: tuple[Any, ...] = (spec.low, spec.high)
        elif isinstance(spec, ChoiceSetting):
            moved = spec.choices
        else:
            moved = ((spec.low,), (spec.high,), (spec.low, spec.high))
        for value in moved:
            if value != base[spec.key]:
                yield {**base, spec.key: value}
