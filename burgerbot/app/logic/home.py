"""Home's speed problem: per 1,000 transitions, what a plain loop over one BurgerBot and a
SyncVectorEnv of 16 spend on stepping and on a policy network's forward passes, counted and
timed (`burgerbot.speed.batch_costs`).

The counts (`step()` calls, forward passes) come from a seeded run: no timing noise changes
them. The times are repeats; `ranking` ranks two of them only when every repeat of one took
less than every repeat of the other, so the verdicts follow the data either way.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from burgerbot.app.measured import Measured
from burgerbot.app.rates import figure
from burgerbot.speed import batch_costs

__all__ = [
    "BOTH",
    "COLUMNS",
    "FORWARD",
    "NEITHER",
    "NUM_ENVS",
    "OPTIONS",
    "REPEATS",
    "STEPPING",
    "TRANSITIONS",
    "Costs",
    "cost_table",
    "measure_costs",
    "prediction_explanation",
    "prediction_truth",
    "ranking",
    "run_caption",
    "saver",
]

NUM_ENVS = 16
TRANSITIONS = 1_000
SECONDS, REPEATS = 0.03, 5
"""Timing budget per repeat and repeats per part, taken in turns: about a second in all."""
STEPPING, FORWARD, BOTH, NEITHER = "Stepping", "Forward passes", "Both", "Neither"
OPTIONS = (STEPPING, FORWARD, BOTH, NEITHER)
COLUMNS = {"plain": "Plain loop (1 env)", "sync": f"SyncVectorEnv ({NUM_ENVS} envs)"}
NAMES = {"plain": "the plain loop", "sync": "Sync"}


@dataclass(frozen=True)
class Costs:
    """One measurement: `burgerbot.speed.batch_costs`' frame, read per loop and part."""

    frame: pd.DataFrame

    def _row(self, loop: str, part: str) -> pd.Series:
        df = self.frame
        return df[(df["loop"] == loop) & (df["part"] == part)].iloc[0]

    def calls(self, loop: str, part: str = "stepping") -> int:
        """`step()` calls (``part="stepping"``) or forward passes per `TRANSITIONS` transitions."""
        return int(self._row(loop, part)["calls"])

    def ms(self, loop: str, part: str) -> tuple[float, ...]:
        """Each repeat's milliseconds per `TRANSITIONS` transitions; ``part="both"`` adds the
        stepping and forward repeats taken in the same round."""
        if part == "both":
            pairs = zip(self.ms(loop, "stepping"), self.ms(loop, "forward"), strict=True)
            return tuple(a + b for a, b in pairs)
        return tuple(1000 * float(s) for s in self._row(loop, part)["seconds"])


def measure_costs(seconds: float = SECONDS, repeats: int = REPEATS) -> Costs:
    """The plain loop and Sync with `NUM_ENVS` envs, stepping and forward passes (about 1 s)."""
    frame = batch_costs(NUM_ENVS, transitions=TRANSITIONS, seconds=seconds, repeats=repeats)
    return Costs(frame)


def saver(costs: Costs, part: str) -> str | None:
    """Which loop took less time on ``part`` in every repeat ("plain" or "sync"), or None."""
    plain, sync = costs.ms("plain", part), costs.ms("sync", part)
    if max(sync) < min(plain):
        return "sync"
    if max(plain) < min(sync):
        return "plain"
    return None


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def ranking(a_name: str, a: Sequence[float], b_name: str, b: Sequence[float]) -> str:
    """Two repeated timings (milliseconds) in words: who took less time, with the ratio of the
    medians and its range across the repeats, only when every repeat of one took less than
    every repeat of the other; otherwise that they could not be told apart.

    >>> ranking("Sync", [2.0, 2.2], "the plain loop", [0.4, 0.5])
    "Sync took 4.7x the plain loop's time (ratio of medians; repeats 4x to 5.5x)"
    >>> ranking("Sync", [0.2, 0.3], "the plain loop", [2.1, 2.5])
    "the plain loop took 9.2x Sync's time (ratio of medians; repeats 7x to 12x)"
    >>> ranking("Sync", [2.0, 2.2], "the plain loop", [2.1, 2.5])
    'Sync and the plain loop could not be told apart on this server'
    """
    if max(a) < min(b):  # the slower one first
        a_name, a, b_name, b = b_name, b, a_name, a
    elif not max(b) < min(a):
        return f"{a_name} and {b_name} could not be told apart on this server"
    ratio = statistics.median(a) / statistics.median(b)
    low, high = min(a) / max(b), max(a) / min(b)
    return (
        f"{a_name} took {figure(ratio)}x {_possessive(b_name)} time (ratio of medians; "
        f"repeats {figure(low)}x to {figure(high)}x)"
    )


def prediction_truth(costs: Costs) -> str | None:
    """Where Sync saved time: one of `OPTIONS`, or None when a part could not be told apart."""
    stepping, forward = saver(costs, "stepping"), saver(costs, "forward")
    if stepping is None or forward is None:
        return None
    return {
        ("sync", "sync"): BOTH,
        ("sync", "plain"): STEPPING,
        ("plain", "sync"): FORWARD,
        ("plain", "plain"): NEITHER,
    }[stepping, forward]


def _part(costs: Costs, part: str) -> str:
    return ranking("Sync", costs.ms("sync", part), "the plain loop", costs.ms("plain", part))


def prediction_explanation(costs: Costs) -> str:
    """Both parts' rankings; when one could not be told apart, what to do."""
    text = f"Stepping: {_part(costs, 'stepping')}. Forward passes: {_part(costs, 'forward')}."
    if prediction_truth(costs) is None:
        return text + " Measure again, or run the script below on your own machine."
    return text


def _ms(samples: Sequence[float]) -> str:
    """'0.463 (0.451–0.47)': the median and the range of the repeats, 3 significant figures."""
    median, low, high = statistics.median(samples), min(samples), max(samples)
    return f"{median:.3g} ({low:.3g}–{high:.3g})"


def cost_table(costs: Costs) -> pd.DataFrame:
    """Per `TRANSITIONS` transitions: each count beside the time it costs, both loops."""
    rows = {
        "step() calls": lambda loop: f"{costs.calls(loop):,}",
        "Stepping, CPU ms": lambda loop: _ms(costs.ms(loop, "stepping")),
        "Forward passes": lambda loop: f"{costs.calls(loop, 'forward'):,}",
        "Forward passes, CPU ms": lambda loop: _ms(costs.ms(loop, "forward")),
        "Both, CPU ms": lambda loop: _ms(costs.ms(loop, "both")),
    }
    return pd.DataFrame(
        {name: [cell(loop) for cell in rows.values()] for loop, name in COLUMNS.items()},
        index=pd.Index(list(rows), name=f"Per {TRANSITIONS:,} transitions"),
    )


def run_caption(record: Measured) -> str:
    """Whose run the numbers are and when it started: always this visitor's own."""
    clock = record.at.strftime("%H:%M:%S")
    return (
        f"Your run, started at {clock} UTC on this server ({record.cores} "
        f"core{'s' * (record.cores != 1)})."
    )
