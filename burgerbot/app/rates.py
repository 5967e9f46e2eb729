"""Measured speeds as the pages quote them: repeats of transitions per second, compared by
their spread (Home and Speed breakdown both read `burgerbot.speed.loop_speeds`).

Every sentence saying who was faster is made from the measured numbers, the fastest and the
slowest of the repeats (the spread), so its wording follows the data either way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from burgerbot.app.caps import CAPS
from burgerbot.app.settings import powers_of_two
from burgerbot.bench import compare_timings

__all__ = [
    "NUM_ENVS_CHOICES",
    "Rate",
    "Speeds",
    "capital",
    "compare",
    "figure",
    "nearest_choice",
    "ratio",
    "times",
    "us",
]

NUM_ENVS_CHOICES = powers_of_two(CAPS.max_envs)
"""The NUM_ENVS a speed page offers: 1, 2, 4, ... up to the cap (a log scale of sensible values)."""


def nearest_choice(
    values: Mapping[str, Any], key: str = "n", choices: tuple[int, ...] = NUM_ENVS_CHOICES
) -> tuple[int, list[str]]:
    """The choice nearest ``values[key]`` on a log scale, with a note when it was not one.

    >>> nearest_choice({"n": 16}), nearest_choice({"n": 100})
    ((16, []), (128, ['`n=100` is not one of the choices (1, 2, 4, ...): using 128.']))
    """
    value = max(1, int(values[key]))
    chosen = min(choices, key=lambda c: (abs(math.log2(c) - math.log2(value)), c))
    if chosen == value:
        return chosen, []
    shown = ", ".join(str(c) for c in choices[:3])
    return chosen, [f"`{key}={value}` is not one of the choices ({shown}, ...): using {chosen}."]


@dataclass(frozen=True)
class Rate:
    """Transitions per second, one figure per timed repeat (taken in turns with the others)."""

    samples: tuple[float, ...]

    @property
    def best(self) -> float:
        return max(self.samples)

    @property
    def slowest(self) -> float:
        return min(self.samples)

    @property
    def median(self) -> float:
        return float(np.median(self.samples))

    def quoted(self, unit: str = " transitions/s") -> str:
        """The median with the spread of the repeats, as the sentences quote it.

        >>> Rate((90_000.0, 100_000.0, 120_000.0)).quoted()
        '100,000 transitions/s (repeats 90,000 to 120,000)'
        """
        return f"{self.median:,.0f}{unit} (repeats {self.slowest:,.0f} to {self.best:,.0f})"


@dataclass(frozen=True)
class Speeds:
    """One measurement: `burgerbot.speed.loop_speeds` and `forward_speeds` frames."""

    loops: pd.DataFrame
    forwards: pd.DataFrame | None = None

    def rate(self, loop: str, num_envs: int = 1, policy: bool = False) -> Rate:
        """The rate of one row of ``loops`` (the plain loop always has ``num_envs=1``)."""
        rows = self._rates.get((loop, int(num_envs), bool(policy)), [])
        if len(rows) != 1:
            raise KeyError(f"no single row for {loop!r}, num_envs={num_envs}, policy={policy}")
        return rows[0]

    @cached_property
    def _rates(self) -> dict[tuple[str, int, bool], list[Rate]]:
        """Every row of ``loops`` by (loop, num_envs, policy), read once: a page asks often."""
        rates: dict[tuple[str, int, bool], list[Rate]] = {}
        columns = ["loop", "num_envs", "policy", "transition_rates"]
        for loop, num_envs, policy, samples in self.loops[columns].itertuples(index=False):
            rates.setdefault((loop, int(num_envs), bool(policy)), []).append(
                Rate(tuple(float(x) for x in samples))
            )
        return rates

    def sizes(self) -> list[int]:
        """The numbers of envs measured for Sync and native."""
        return sorted({num_envs for loop, num_envs, _ in self._rates if loop != "plain"})

    def reset_share(self, loop: str, num_envs: int, policy: bool = False) -> float:
        """The share of ``loop``'s rows at ``num_envs`` that were auto-reset rows."""
        df = self.loops
        row = df[(df["loop"] == loop) & (df["num_envs"] == num_envs) & (df["policy"] == policy)]
        return float(row["reset_row_share"].iloc[0])


def compare(a: Rate, b: Rate) -> str:
    """``"faster"``, ``"slower"`` or ``"similar"``: ``a`` against ``b``, by their spreads.

    `burgerbot.bench.compare_timings`: clear only when every repeat of one beat every repeat
    of the other; otherwise about as fast.

    >>> compare(Rate((300, 250)), Rate((100, 90))), compare(Rate((100, 60)), Rate((110, 70)))
    ('faster', 'similar')
    """
    return compare_timings(a.samples, b.samples).verdict


def ratio(a: Rate, b: Rate) -> float:
    """How many times ``b``'s median rate ``a``'s is."""
    return compare_timings(a.samples, b.samples).ratio


def figure(value: float) -> str:
    """Two significant figures below 10, whole numbers above (never "2.1e+02").

    Example:
        >>> figure(0.314), figure(3.14), figure(214.3), figure(12345.6)
        ('0.31', '3.1', '214', '12,346')
    """
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}"


def times(value: float) -> str:
    """A factor: ``figure`` and an "x"."""
    return f"{figure(value)}x"


def us(seconds: float) -> str:
    """Microseconds, two significant digits, no exponent.

    >>> us(7.34e-6), us(1.2345e-3)
    ('7.3 µs', '1,200 µs')
    """
    return f"{float(f'{seconds * 1e6:.2g}'):,g} µs"


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]
