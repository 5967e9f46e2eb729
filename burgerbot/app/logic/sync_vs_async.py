"""The "Sync vs Async" page's logic: the lesson's comparison, where a call's time goes, verdicts.

AsyncVectorEnv runs each sub-environment in its own process. In every ``step()`` call it
pickles each action and sends it down a pipe to its worker, and the worker pickles its reward,
flags and infos back the same way (observations come back through shared memory, gymnasium's
default). For BurgerBot, whose step costs microseconds, that round trip costs far more than
the step itself, so Async loses; SyncVectorEnv calls its envs directly in this process.
Every sentence here is computed from a measurement: a ranking only when the slower side's
fastest round is slower than the faster side's slowest, a ratio named as one of medians with
its range over the rounds, and otherwise "could not be told apart on this server".
"""

from __future__ import annotations

import pickle
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler
from typing import SupportsInt, cast

import numpy as np
import pandas as pd

from burgerbot.app.timing import CallCost, TimingSettings, compare_backends, micros, step_rates
from burgerbot.bench import compare_timings
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import make_vector_env

__all__ = [
    "CLASS_NAMES",
    "LESSON",
    "Bookkeeping",
    "Messages",
    "faster_backend",
    "measure_bookkeeping",
    "measure_messages",
    "overhead_kind",
    "overhead_text",
    "speed_verdict",
    "takeaways",
]

LESSON = TimingSettings((4,), 1_000)
"""The lesson's comparison: 4 envs, 1,000 steps, a plain BurgerBot."""


CLASS_NAMES = {"sync": "SyncVectorEnv", "async": "AsyncVectorEnv"}
ROUND_TRIP = (
    "pickling and pipes both ways, waking the worker, the worker's loop and step, the "
    "shared-memory write and its semaphore, and the parent's bookkeeping"
)
"""What one env's share of an AsyncVectorEnv ``step()`` call does beyond the env's own step
(read from gymnasium's `async_vector_env.py`)."""


@dataclass(frozen=True)
class Bookkeeping:
    """Seconds per env-step, one sample per round: a plain one-env loop and Sync with N envs
    (the plain step is what Async's round trip is set against)."""

    num_envs: int
    env_steps: int
    """Env-steps per round, for each of the two."""
    plain_s: tuple[float, ...]
    sync_s: tuple[float, ...]

    @property
    def plain_median(self) -> float:
        return statistics.median(self.plain_s)

    @property
    def sync_median(self) -> float:
        return statistics.median(self.sync_s)

    def range_text(self, samples: tuple[float, ...]) -> str:
        return f"{micros(min(samples))} to {micros(max(samples))}"


@dataclass(frozen=True)
class Messages:
    """What Async pickles for one env in one ``step()`` call, and how long pickling takes."""

    out_bytes: int
    """The command and action sent to the worker: ``("step", action)``."""
    back_bytes: int
    """What the worker sends back: reward, flags and infos (its observation goes through
    shared memory, so ``None`` stands in its place)."""
    pickle_s: float
    """Seconds to pickle and unpickle both messages once (median of the rounds)."""
    pickle_rounds: tuple[float, ...] = ()
    """The same, one figure per round (`measure_messages`)."""

    def share(self, cost: CallCost) -> float | None:
        """The part of Async's extra time per env that pickling explains (medians); None when
        Async was not slower (there is no extra time to explain)."""
        return None if cost.extra_s <= 0 else self.pickle_s / cost.extra_per_env_s

    def share_range(
        self, cost: CallCost, extra_rounds: Sequence[float] = ()
    ) -> tuple[float, float] | None:
        """The least and the most that share can be over the rounds: the quickest pickling
        round against the slowest extra-time round, and the other way round. Without two
        positive ``extra_rounds`` (`extra_per_env_rounds`), the medians' share twice."""
        share = self.share(cost)
        if share is None:
            return None
        if len(extra_rounds) < 2 or min(extra_rounds) <= 0:
            return share, share
        pickles = self.pickle_rounds or (self.pickle_s,)
        return min(pickles) / max(extra_rounds), max(pickles) / min(extra_rounds)

    def sentence(self, cost: CallCost, extra_rounds: Sequence[float] = ()) -> str | None:
        """How much of Async's extra time per env the pickling explains, from the numbers:
        "most" only when every round says so, "the rest" only when none does.

        None when Async was not slower: there is no extra time to explain.

        Example:
            >>> text = Messages(40, 90, 3e-6).sentence(CallCost(4, 60e-6, 460e-6, None))
            >>> text.split(": ")[-1]
            'the rest is the other parts of the round trip.'
        """
        spread = self.share_range(cost, extra_rounds)
        if spread is None:
            return None
        low, high = spread
        head = (
            f"Pickling one env's messages ({self.out_bytes} bytes out, "
            f"{self.back_bytes} back) took {micros(self.pickle_s)}: "
        )
        share = f"{low:.0%}" if low == high else f"{low:.0%} to {high:.0%}"
        if low >= 0.5:
            return head + f"most ({share}) of the extra time per env."
        if high < 0.5:
            rest = "the rest is the other parts of the round trip."
            return head + f"{share} of the extra time per env: {rest}"
        return head + (
            f"{share} of the extra time per env over the rounds: too spread to say whether "
            "it is most of it."
        )


def measure_messages(repeats: int = 2_000, rounds: int = 5, seed: int = 0) -> Messages:
    """Pickle and unpickle one env's step messages as AsyncVectorEnv does (with
    `multiprocessing`'s pickler), ``repeats`` times per round: their sizes and the median time."""
    env = BurgerBotEnv()
    try:
        env.reset(seed=seed)
        action = np.int64(1)  # one element of the batch of actions, as Async sends it
        _, reward, terminated, truncated, info = env.step(int(action))
    finally:
        env.close()
    out = ("step", action)
    back = ((None, reward, terminated, truncated, info), True)
    dumps, loads, clock = ForkingPickler.dumps, pickle.loads, time.perf_counter
    samples = []
    for _ in range(rounds):
        start = clock()
        for _ in range(repeats):
            loads(dumps(out))
            loads(dumps(back))
        samples.append((clock() - start) / repeats)
    return Messages(len(dumps(out)), len(dumps(back)), statistics.median(samples), tuple(samples))


def measure_bookkeeping(
    num_envs: int = 4, calls: int = 250, rounds: int = 7, seed: int = 0
) -> Bookkeeping:
    """Time Sync (``calls`` step() calls of ``num_envs`` envs) and a plain one-env loop over as
    many env-steps with the same random actions, in ``rounds`` alternating rounds.

    Both reset an env whose episode ended, as Sync's auto-reset does. Sync's default NEXT_STEP
    mode spends a call on each reset, so its env-steps include a few resets too.
    """
    actions = np.random.default_rng(seed).integers(0, 4, size=(calls, num_envs))
    flat = actions.reshape(-1).tolist()
    env = BurgerBotEnv()
    envs = make_vector_env("sync", num_envs)
    plain: list[float] = []
    sync: list[float] = []
    try:
        env.reset(seed=seed)
        envs.reset(seed=seed)
        step, reset, clock = env.step, env.reset, time.perf_counter

        def plain_round() -> None:
            start = clock()
            for action in flat:
                _, _, terminated, truncated, _ = step(action)
                if terminated or truncated:
                    reset()
            plain.append((clock() - start) / len(flat))

        def sync_round() -> None:
            start = clock()
            for row in actions:
                envs.step(row)
            sync.append((clock() - start) / len(flat))

        for index in range(rounds):
            first, second = (plain_round, sync_round) if index % 2 else (sync_round, plain_round)
            first()
            second()
    finally:
        env.close()
        envs.close()
    return Bookkeeping(num_envs, len(flat), tuple(plain), tuple(sync))


def extra_per_env_rounds(frame: pd.DataFrame, num_envs: int) -> list[float]:
    """Async's extra seconds per env and call over Sync's, one per round: the backends take
    their rounds in turns, so round i of one is paired with round i of the other."""
    rows = frame[frame["num_envs"] == num_envs].set_index("backend")
    if not {"sync", "async"} <= set(rows.index) or "step_s_rounds" not in rows.columns:
        return []
    steps = int(cast(SupportsInt, rows.loc["sync", "steps"]))
    # Each row's seconds per round, a list (`timing._medians`).
    async_rounds = cast(list[float], rows.loc["async", "step_s_rounds"])
    sync_rounds = cast(list[float], rows.loc["sync", "step_s_rounds"])
    pairs = zip(async_rounds, sync_rounds, strict=True)
    return [(a - s) / steps / num_envs for a, s in pairs]


def overhead_kind(
    cost: CallCost,
    bookkeeping: Bookkeeping | None,
    rounds: tuple[str, float, str] | None = None,
    extra_rounds: Sequence[float] = (),
) -> str:
    """Which finding `overhead_text` states: "overlap" (the rounds overlap: no difference
    claimed), "not_slower", "extra" (slower, with no plain step measured to compare),
    "step_overlap" (Async's extra time per env, round by round, overlaps the plain step's
    rounds: no ratio claimed), "cannot_win_back" (the extra is more than a plain step) or
    "less_than_step". With two or more ``extra_rounds`` the last three follow the rounds'
    spread (`compare_timings`), else the medians."""
    if rounds is not None and rounds[0] == "similar":
        return "overlap"
    if cost.extra_s <= 0:
        return "not_slower"
    if bookkeeping is None:
        return "extra"
    if len(extra_rounds) >= 2:
        if not all(x > 0 for x in extra_rounds):
            return "step_overlap"
        verdict = compare_timings(
            [1 / x for x in bookkeeping.plain_s], [1 / x for x in extra_rounds]
        ).verdict
        return {"faster": "cannot_win_back", "slower": "less_than_step"}.get(
            verdict, "step_overlap"
        )
    ratio = cost.extra_per_env_s / bookkeeping.plain_median
    return "cannot_win_back" if ratio >= 1 else "less_than_step"


def overhead_text(
    cost: CallCost,
    bookkeeping: Bookkeeping | None,
    rounds: tuple[str, float, str] | None = None,
    extra_rounds: Sequence[float] = (),
) -> str:
    """Where Async's time per step() call goes, in words that follow the numbers.

    ``rounds`` is `compare_backends` of Async against Sync at the same NUM_ENVS: when their
    rounds overlap, no difference is claimed. ``extra_rounds`` (`extra_per_env_rounds`) is
    Async's extra time per env in each round: with it, the extra is set against the plain
    step as a ratio of medians only when the two ranges lie apart. The finding is
    `overhead_kind`'s.

    Example:
        >>> text = overhead_text(CallCost(4, 60e-6, 900e-6, 20e-6), None)
        >>> "**840 µs more per call**" in text
        True
        >>> "was not slower" in overhead_text(CallCost(4, 900e-6, 800e-6, None), None)
        True
    """
    head = (
        f"One `step()` call of {cost.num_envs} envs took **{micros(cost.sync_s)}** with Sync "
        f"and **{micros(cost.async_s)}** with Async (medians). "
    )
    kind = overhead_kind(cost, bookkeeping, rounds, extra_rounds)
    if kind == "overlap" and rounds is not None:
        return head + "Their rounds overlap: they could not be told apart on this server."
    if kind == "not_slower":
        return head + (
            f"Async was not slower per call here ({micros(-cost.extra_s)} less): its workers "
            "stepped in parallel and that outweighed the round trips."
        )
    text = head + (
        f"Async's **{micros(cost.extra_s)} more per call**, {micros(cost.extra_per_env_s)} "
        f"per env, is its round trip to each worker process: {ROUND_TRIP}"
    )
    if bookkeeping is None:
        return text + "."
    plain = micros(bookkeeping.plain_median)
    if kind == "step_overlap":
        return text + (
            f". Its range over the rounds overlaps a plain BurgerBot step's ({plain}): no "
            "ratio of the two can be told on this server."
        )
    if kind == "cannot_win_back":
        low = min(extra_rounds, default=cost.extra_per_env_s) / max(bookkeeping.plain_s)
        high = max(extra_rounds, default=cost.extra_per_env_s) / min(bookkeeping.plain_s)
        ratio = cost.extra_per_env_s / bookkeeping.plain_median
        spread = f", {low:,.0f}× to {high:,.0f}× over the rounds" if len(extra_rounds) >= 2 else ""
        return text + (
            f". That is {ratio:,.0f}× a plain BurgerBot step ({plain}; ratio of medians{spread}): "
            "parallel workers cannot win back time the step never took."
        )
    return text + f". That is less than a plain BurgerBot step took ({plain})."


def faster_backend(frame: pd.DataFrame, num_envs: int = 4) -> tuple[str, float, str] | None:
    """("sync", "async" or "similar"; how many times as fast; the figures) at ``num_envs``,
    from the rounds' stepping times (`burgerbot.bench.compare_timings`).

    None when either did not run there.
    """
    result = compare_backends(frame, "sync", "async", num_envs)
    if result is None:
        return None
    verdict, ratio, figures = result
    if verdict == "similar":
        return "similar", 1.0, figures
    return ("sync", ratio, figures) if verdict == "faster" else ("async", 1 / ratio, figures)


def speed_verdict(frame: pd.DataFrame, num_envs: int = 4) -> tuple[str | None, str]:
    """The prediction's truth (a class name, or None when the rounds overlap: the run cannot
    decide) and its explanation, from the run."""
    result = faster_backend(frame, num_envs)
    if result is None:
        raise ValueError(f"the run has no Sync and Async rows at NUM_ENVS {num_envs}")
    winner, times, _ = result
    sync, async_ = step_rates(frame, "sync", num_envs), step_rates(frame, "async", num_envs)
    head = (
        f"{len(sync)} rounds each, in env-steps/s: Sync {min(sync):,.0f} to {max(sync):,.0f}, "
        f"Async {min(async_):,.0f} to {max(async_):,.0f}. "
    )
    if winner == "similar":
        return None, head + "The ranges overlap: they could not be told apart on this server."
    fast, slow = (sync, async_) if winner == "sync" else (async_, sync)
    loser = "async" if winner == "sync" else "sync"
    return CLASS_NAMES[winner], head + (
        f"{CLASS_NAMES[winner]}'s slowest round beat {CLASS_NAMES[loser]}'s fastest; the ratio "
        f"of medians is {times:,.1f}× ({min(fast) / max(slow):,.1f}× to "
        f"{max(fast) / min(slow):,.1f}× over the rounds)."
    )


def takeaways(lesson: pd.DataFrame | None, bookkeeping: Bookkeeping | None) -> list[str]:
    """The page's "Key takeaways"; the one about this server comes from its run, if any."""
    bullets = [
        "`SyncVectorEnv` steps its envs in this process; `AsyncVectorEnv` runs each in a worker "
        "process and, every call, pickles actions out and rewards, flags and infos back "
        "through pipes (observations come back through shared memory).",
    ]
    result = None if lesson is None else faster_backend(lesson)
    if result is None:
        bullets.append("Run the lesson's comparison to see which is faster on this server.")
    elif result[0] == "similar":
        bullets.append(
            "Here, with 4 BurgerBots, Sync and Async could not be told apart on this server."
        )
    else:
        winner, times, _ = result
        loser = "async" if winner == "sync" else "sync"
        bullets.append(
            f"Here, with 4 BurgerBots, {CLASS_NAMES[winner]} was faster than "
            f"{CLASS_NAMES[loser]} in every round ({times:,.1f}×, ratio of medians)."
        )
    step = f" ({micros(bookkeeping.plain_median)} here)" if bookkeeping is not None else ""
    bullets += [
        f"Async's round trip costs far more than a BurgerBot step{step}; it pays off only when "
        "a step costs much more (a heavy simulator, waiting on a device).",
        "The native `BurgerBotVectorEnv` (this project's class, not Gymnasium's) moves every "
        "robot in one numpy call.",
    ]
    return bullets
