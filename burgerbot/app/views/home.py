"""Home's live speed story: a plain loop, Sync and native, without and with a policy network.

Every sentence saying who was faster is made here from the measured numbers, the fastest and
the slowest of the repeats (the spread), so its wording follows the data either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import pandas as pd

from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.settings import IntSetting
from burgerbot.speed import forward_speeds, loop_speeds

__all__ = [
    "NO",
    "PREDICTION_N",
    "SIZES",
    "SPECS",
    "YES",
    "Speeds",
    "chart_frame",
    "compare",
    "env_story",
    "forward_frame",
    "forward_story",
    "measure_speeds",
    "metric_delta",
    "policy_story",
    "prediction_explanation",
    "prediction_truth",
    "sizes_for",
    "speed_takeaways",
]

SPECS = [IntSetting("n", "NUM_ENVS", 16, 2, CAPS.max_envs)]
SIZES = (1, 4, 16, 64)
"""Numbers of envs always measured (the learner's NUM_ENVS joins them)."""
PREDICTION_N = 16
YES, NO = "Yes, Sync is faster", "No, the plain loop is faster"
SECONDS, REPEATS = 0.01, 3
"""Timing budget per repeat and repeats per row: about a second for the whole measurement."""
SIMILAR = 1.25
"""Rates whose repeats overlap and whose best runs are within this factor are 'about as fast'."""
STEPPING = {False: "random actions (the env alone)", True: "a policy network picks each action"}


def sizes_for(num_envs: int) -> tuple[int, ...]:
    """`SIZES` with ``num_envs`` added, in order.

    >>> sizes_for(16), sizes_for(100)
    ((1, 4, 16, 64), (1, 4, 16, 64, 100))
    """
    return tuple(sorted({*SIZES, int(num_envs)}))


@dataclass(frozen=True)
class Rate:
    """Transitions per second: the fastest repeat and the slowest (the spread)."""

    best: float
    slowest: float


@dataclass(frozen=True)
class Speeds:
    """One measurement: `burgerbot.speed.loop_speeds` and `forward_speeds` frames."""

    loops: pd.DataFrame
    forwards: pd.DataFrame

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
        columns = ["loop", "num_envs", "policy", "transitions_per_s", "transitions_per_s_slowest"]
        for loop, num_envs, policy, best, slowest in self.loops[columns].itertuples(index=False):
            rates.setdefault((loop, int(num_envs), bool(policy)), []).append(
                Rate(float(best), float(slowest))
            )
        return rates

    def sizes(self) -> list[int]:
        """The numbers of envs measured for Sync and native."""
        return sorted({num_envs for loop, num_envs, _ in self._rates if loop != "plain"})


def measure_speeds(num_envs: int, seconds: float = SECONDS, repeats: int = REPEATS) -> Speeds:
    """Measure everything Home shows, at `SIZES` and ``num_envs`` (about a second)."""
    sizes = sizes_for(num_envs)
    return Speeds(
        loop_speeds(sizes, seconds=seconds, repeats=repeats),
        forward_speeds(sizes, seconds=seconds, repeats=repeats),
    )


def compare(a: Rate, b: Rate) -> str:
    """``"faster"``, ``"slower"`` or ``"similar"``: ``a`` against ``b``.

    Clear when one's slowest repeat beat the other's fastest, or when their best runs are
    more than `SIMILAR` apart; otherwise about as fast.

    >>> compare(Rate(300, 250), Rate(100, 90)), compare(Rate(100, 60), Rate(110, 70))
    ('faster', 'similar')
    """
    if a.slowest > b.best or a.best > SIMILAR * b.best:
        return "faster"
    if b.slowest > a.best or b.best > SIMILAR * a.best:
        return "slower"
    return "similar"


def _times(ratio: float) -> str:
    return f"{_figure(ratio)}x"


def _figure(value: float) -> str:
    """Two significant figures below 10, whole numbers above (never "2.1e+02").

    Example:
        >>> _figure(0.314), _figure(3.14), _figure(214.3), _figure(12345.6)
        ('0.31', '3.1', '214', '12,346')
    """
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}"


def phrase(a_name: str, a: Rate, b_name: str, b: Rate) -> str:
    """Who was faster, in words, with the factor; "about as fast" when the spread says so."""
    kind = compare(a, b)
    if kind == "similar":
        return (
            f"{a_name} and {b_name} were about as fast (best runs within {SIMILAR:g}x of each "
            "other, and their repeats overlap)"
        )
    fast_name, fast, slow_name, slow = (
        (a_name, a, b_name, b) if kind == "faster" else (b_name, b, a_name, a)
    )
    steady = " in every repeat" if fast.slowest > slow.best else " in its best run"
    return f"{fast_name} was **{_times(fast.best / slow.best)} faster** than {slow_name}{steady}"


def metric_delta(rate: Rate, plain: Rate) -> tuple[str, str, str]:
    """The metric's delta text, arrow and colour against the plain loop (Okabe-Ito blue/orange).

    >>> metric_delta(Rate(50, 40), Rate(200, 150))
    ('0.25x the plain loop', 'down', 'orange')
    """
    kind = compare(rate, plain)
    arrow = {"faster": "up", "slower": "down", "similar": "off"}[kind]
    colour = {"faster": "blue", "slower": "orange", "similar": "gray"}[kind]
    return f"{_times(rate.best / plain.best)} the plain loop", arrow, colour


def _crossing(speeds: Speeds, loop: str, policy: bool) -> str:
    """Where ``loop`` stands against the plain loop across the N measured."""
    plain = speeds.rate("plain", 1, policy)
    kinds = {n: compare(speeds.rate(loop, n, policy), plain) for n in speeds.sizes()}
    sizes = list(kinds)
    span = f"N = {sizes[0]:,} to {sizes[-1]:,}"
    if all(k == "slower" for k in kinds.values()):
        return f"slower than the plain loop at every N measured ({span})"
    if all(k == "faster" for k in kinds.values()):
        return f"faster than the plain loop at every N measured ({span})"
    faster = [n for n, k in kinds.items() if k == "faster"]
    if faster:
        return f"faster than the plain loop at N = {', '.join(f'{n:,}' for n in faster)} only"
    return f"never clearly faster than the plain loop ({span})"


def _us(seconds: float) -> str:
    """Microseconds, two significant digits, no exponent.

    >>> _us(7.34e-6), _us(1.2345e-3)
    ('7.3 µs', '1,200 µs')
    """
    return f"{float(f'{seconds * 1e6:.2g}'):,g} µs"


def _per_step_us(rate: Rate) -> str:
    return _us(1 / rate.best)


def env_story(speeds: Speeds, num_envs: int) -> str:
    """Stepping alone: the plain loop against Sync and native at ``num_envs``, and across N."""
    plain = speeds.rate("plain")
    sync, native = speeds.rate("sync", num_envs), speeds.rate("native", num_envs)
    sync_name, native_name = f"Sync with {num_envs:,} envs", f"native with {num_envs:,} envs"
    text = (
        f"With random actions, {phrase(sync_name, sync, 'the plain loop', plain)}, and "
        f"{phrase(native_name, native, 'the plain loop', plain)}. "
        f"Per {term_link('env-step')}, Sync spent {_per_step_us(sync)} and the plain loop "
        f"{_per_step_us(plain)}. Across N, Sync was {_crossing(speeds, 'sync', False)}."
    )
    if compare(sync, plain) == "slower":
        extra = 1 / sync.best - 1 / plain.best  # seconds per env-step beyond the plain loop's
        text += (
            " A `step()` call of Sync steps its envs one by one in Python and then stacks "
            f"their results: that bookkeeping added {_us(extra)} per env-step, "
            f"{_figure(extra * plain.best)} times the plain loop's whole time per step."
        )
    return text


def forward_story(forwards: pd.DataFrame) -> str:
    """How the cost of one forward pass grew from 1 observation to the largest batch."""
    first, last = forwards.iloc[0], forwards.iloc[-1]
    n = int(last["batch_size"])
    grew = last["seconds_per_call"] / first["seconds_per_call"]
    per_obs = n / grew
    text = (
        f"One forward pass of the policy took {_us(first['seconds_per_call'])} for "
        f"{int(first['batch_size'])} observation and {_us(last['seconds_per_call'])} for "
        f"{n:,}: {n:,} times the observations for {_figure(grew)} times the time"
    )
    if per_obs >= 2:
        return text + f", so each observation cost **{_figure(per_obs)} times less** in the batch."
    return text + ": here the batch did not make each observation cheaper."


def _trend(speeds: Speeds, policy: bool) -> str:
    """How Sync's and native's transitions per second changed from the smallest N to the largest."""
    low, high = speeds.sizes()[0], speeds.sizes()[-1]
    words = {"faster": "rose", "slower": "fell", "similar": "stayed about level"}
    parts = []
    for loop, name in (("sync", "Sync"), ("native", "native")):
        first, last = speeds.rate(loop, low, policy), speeds.rate(loop, high, policy)
        parts.append(
            f"{name}'s {words[compare(last, first)]} from {first.best:,.0f} (N = {low:,}) to "
            f"{last.best:,.0f} (N = {high:,})"
        )
    return "Transitions per second: " + "; ".join(parts) + "."


def policy_story(speeds: Speeds, num_envs: int) -> str:
    """With the policy: one forward pass per step (plain loop) against one per call (vector)."""
    plain = speeds.rate("plain", 1, True)
    sync, native = speeds.rate("sync", num_envs, True), speeds.rate("native", num_envs, True)
    sync_name, native_name = f"Sync with {num_envs:,} envs", f"native with {num_envs:,} envs"
    text = (
        f"With the policy choosing every action, {phrase(sync_name, sync, 'the plain loop', plain)}"
        f", and {phrase(native_name, native, 'the plain loop', plain)}. {_trend(speeds, True)}"
    )
    alone = compare(speeds.rate("sync", num_envs), speeds.rate("plain"))
    if alone != "faster" and compare(sync, plain) == "faster":
        text += (
            " The Sync that lost on stepping alone won once each call also paid for a forward "
            f"pass: the plain loop pays one per transition, Sync one per {num_envs:,}."
        )
    return text


def prediction_truth(speeds: Speeds) -> str:
    """The answer the live run gave: Sync at `PREDICTION_N` envs against the plain loop."""
    sync, plain = speeds.rate("sync", PREDICTION_N), speeds.rate("plain")
    return YES if sync.best > plain.best else NO


def prediction_explanation(speeds: Speeds) -> str:
    """Why, with the numbers (and a note when the two were too close to call)."""
    sync, plain = speeds.rate("sync", PREDICTION_N), speeds.rate("plain")
    text = (
        f"Measured here: Sync with {PREDICTION_N} envs collected {sync.best:,.0f} transitions "
        f"per second, the plain loop {plain.best:,.0f}."
    )
    if compare(sync, plain) == "similar":
        return text + " That is too close to call on this server: measure again."
    if sync.best < plain.best:
        return text + (
            f" Per env-step that is {_us(1 / sync.best)} for Sync against {_us(1 / plain.best)} "
            "for the plain loop: batching alone does not make a cheap env faster. Where "
            "batching pays is shown below."
        )
    return text + " On this server Sync came out ahead even without a policy."


def speed_takeaways(speeds: Speeds) -> list[str]:
    """The run-dependent "Key takeaways" (the page adds the fixed ones)."""
    n = PREDICTION_N
    alone = speeds.rate("sync", n).best / speeds.rate("plain").best
    with_policy = speeds.rate("sync", n, True).best / speeds.rate("plain", 1, True).best
    forwards = speeds.forwards
    grew = forwards["seconds_per_call"].iloc[-1] / forwards["seconds_per_call"].iloc[0]
    largest = int(forwards["batch_size"].iloc[-1])
    verdict = {
        "slower": "batching alone does not speed up a world this cheap",
        "faster": "here batching alone already paid",
        "similar": "too close to call on this server",
    }[compare(speeds.rate("sync", n), speeds.rate("plain"))]
    return [
        f"Stepping alone, Sync with {n} envs ran at {_times(alone)} the plain loop's speed "
        f"here: {verdict}.",
        f"One policy forward pass for {largest} observations cost {_times(grew)} one for 1 "
        f"observation, so with a policy Sync with {n} envs ran at {_times(with_policy)} the "
        "plain loop's speed.",
    ]


def chart_frame(speeds: Speeds) -> pd.DataFrame:
    """Long form for the speed chart: one row per (stepping, setup, N)."""
    df = speeds.loops
    names = {"plain": "plain loop (1 env)", "sync": "Sync", "native": "native"}
    return pd.DataFrame(
        {
            "stepping": df["policy"].map(STEPPING),
            "setup": df["loop"].map(names),
            "num_envs": df["num_envs"],
            "transitions_per_s": df["transitions_per_s"].round(0),
            "slowest_repeat": df["transitions_per_s_slowest"].round(0),
            "us_per_call": (df["seconds_per_call"] * 1e6).round(1),
        }
    )


def forward_frame(forwards: pd.DataFrame) -> pd.DataFrame:
    """Long form for the forward-pass chart: measured, and what cost in proportion to N gives."""
    sizes = forwards["batch_size"]
    measured = forwards["seconds_per_call"] * 1e6
    proportional = measured.iloc[0] * sizes / sizes.iloc[0]
    return pd.concat(
        [
            pd.DataFrame({"batch_size": sizes, "us_per_call": measured, "series": "measured"}),
            pd.DataFrame(
                {
                    "batch_size": sizes,
                    "us_per_call": proportional,
                    "series": "if it grew in proportion to N",
                }
            ),
        ],
        ignore_index=True,
    ).round({"us_per_call": 1})
