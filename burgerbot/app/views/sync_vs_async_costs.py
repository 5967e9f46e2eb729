"""Sync vs Async: where a step() call's time goes, in words that follow the measured numbers.

A plain loop of `BurgerBotEnv.step` on one env is timed alongside `SyncVectorEnv`, in alternating
rounds (both meet the same load on a shared machine), so the page can say how much of Sync's
time per env-step is BurgerBot's own step and how much is Sync's bookkeeping. Every sentence
here is computed from a measurement, and says so when the measurement's spread leaves the
answer open.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from burgerbot.app.views.sync_vs_async import CallCost
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import make_vector_env

__all__ = [
    "BOOKKEEPING",
    "Bookkeeping",
    "faster_backend",
    "measure_bookkeeping",
    "micros",
    "native_remark",
    "overhead_text",
    "speed_verdict",
    "takeaways",
]

CLASS_NAMES = {"sync": "SyncVectorEnv", "async": "AsyncVectorEnv"}
BOOKKEEPING = (
    "splitting the batch of actions, calling each env in turn, writing each result into the "
    "batch arrays, merging `infos` and copying the batch it returns"
)
"""What `SyncVectorEnv.step` does besides the envs' own steps (read from its source)."""


def micros(seconds: float) -> str:
    """Seconds as microseconds: one decimal below 10 µs, whole above.

    >>> micros(3.46e-6), micros(16.4e-6), micros(1250e-6)
    ('3.5 µs', '16 µs', '1,250 µs')
    """
    value = seconds * 1e6
    return f"{value:.1f} µs" if abs(value) < 10 else f"{value:,.0f} µs"


@dataclass(frozen=True)
class Bookkeeping:
    """Seconds per env-step, one sample per round: a plain one-env loop and Sync with N envs."""

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

    @property
    def share(self) -> float:
        """The part of Sync's median time per env-step that the plain step does not explain."""
        return 1.0 - self.plain_median / self.sync_median

    @property
    def separated(self) -> str:
        """ "sync" if every Sync round was slower than every plain round, "plain" for the
        reverse, "" when the two ranges overlap (the noise hides the difference)."""
        if max(self.plain_s) < min(self.sync_s):
            return "sync"
        if max(self.sync_s) < min(self.plain_s):
            return "plain"
        return ""

    def _range(self, samples: tuple[float, ...]) -> str:
        return f"{micros(min(samples))} to {micros(max(samples))}"

    def sentence(self) -> str:
        """What the rounds say about Sync's bookkeeping, following the numbers and their spread.

        Example:
            >>> rounds = Bookkeeping(4, 1000, (3e-6, 4e-6, 3.5e-6), (15e-6, 16e-6, 17e-6))
            >>> rounds.sentence().split(" So ")[1]
            "most of Sync's time per env-step, about 78% of it, is its own bookkeeping: BurgerBot's step is the smaller part."
        """  # noqa: E501
        rounds = len(self.plain_s)
        head = (
            f"Measured alongside, in {rounds} alternating rounds of {self.env_steps:,} env-steps: "
            f"a plain loop of `BurgerBotEnv.step` on one env took **{micros(self.plain_median)}** "
            f"per step (median; {self._range(self.plain_s)}), Sync with {self.num_envs} envs "
            f"**{micros(self.sync_median)}** per env-step ({self._range(self.sync_s)}). "
        )
        if self.separated == "plain":
            return head + (
                "Here every plain round was slower than every Sync round, which no bookkeeping "
                "can explain: something else on this machine slowed the plain loop. Measure again."
            )
        if not self.separated:
            return head + (
                "The two ranges overlap, so on this run the machine's noise hides how much of "
                "Sync's time is its own bookkeeping. Measure again."
            )
        if self.share >= 0.5:
            return head + (
                f"So most of Sync's time per env-step, about {self.share:.0%} of it, is its own "
                f"bookkeeping: BurgerBot's step is the smaller part."
            )
        return head + (
            f"So BurgerBot's own step is most of Sync's time per env-step; Sync's bookkeeping "
            f"adds the other {self.share:.0%}."
        )


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


def overhead_text(cost: CallCost, bookkeeping: Bookkeeping | None) -> str:
    """Async's cost per step() call against Sync's, in words that follow the numbers.

    Example:
        >>> text = overhead_text(CallCost(4, 60e-6, 900e-6, 20e-6), None)
        >>> "**840 µs more per call**" in text
        True
        >>> "was not slower" in overhead_text(CallCost(4, 900e-6, 800e-6, None), None)
        True
    """
    native = f" ({micros(cost.native_s)} with native)" if cost.native_s is not None else ""
    head = (
        f"With {cost.num_envs} envs, one `step()` call took **{micros(cost.sync_s)}** with Sync "
        f"and **{micros(cost.async_s)}** with Async{native}. "
    )
    if cost.extra_s <= 0:
        return head + (
            f"Async was not slower per call here ({micros(-cost.extra_s)} less): its workers "
            "stepped in parallel and that outweighed the trips through the pipes."
        )
    text = head + (
        "Async sends each action down a pipe to its worker process and waits for the answer to "
        f"come back: that cost **{micros(cost.extra_s)} more per call**, about "
        f"{micros(cost.extra_per_env_s)} per env"
    )
    if bookkeeping is None:
        return text + "."
    ratio = cost.extra_per_env_s / bookkeeping.plain_median
    return text + (
        f", {ratio:,.0f}× what a plain BurgerBot step took. Parallel processes cannot win back "
        "time the step never took."
        if ratio >= 1
        else f", less than a plain BurgerBot step took ({micros(bookkeeping.plain_median)})."
    )


def native_remark(sweep: pd.DataFrame) -> str | None:
    """When native was slower per call than Sync at the smallest N: why, and how it stood at the
    largest N (None when it was not slower, or there is one N only).

    Example:
        >>> rows = [("sync", 1, 0.01), ("native", 1, 0.02), ("sync", 64, 0.5), ("native", 64, 0.05)]
        >>> sweep = pd.DataFrame(rows, columns=["backend", "num_envs", "step_s"]).assign(steps=100)
        >>> native_remark(sweep).split(". ")[-1]
        'But one call moves every robot, so at NUM_ENVS 64 native was 10.0× as fast as Sync.'
    """
    per_call = sweep.assign(call_s=sweep["step_s"] / sweep["steps"]).pivot_table(
        index="num_envs", columns="backend", values="call_s"
    )
    if not {"sync", "native"} <= set(per_call.columns):
        return None
    smallest, largest = per_call.index.min(), per_call.index.max()
    first, last = per_call.loc[smallest], per_call.loc[largest]
    if not first["native"] > first["sync"] or largest == smallest:
        return None
    head = (
        f"At NUM_ENVS {smallest}, native took {micros(first['native'])} per `step()` call "
        f"against Sync's {micros(first['sync'])}: every call pays for a few numpy operations, "
        "however few robots there are. "
    )
    if last["native"] < last["sync"]:
        return head + (
            f"But one call moves every robot, so at NUM_ENVS {largest} native was "
            f"{last['sync'] / last['native']:,.1f}× as fast as Sync."
        )
    return head + (
        f"At NUM_ENVS {largest} native was still not faster than Sync "
        f"({micros(last['native'])} against {micros(last['sync'])} per call)."
    )


def faster_backend(frame: pd.DataFrame, num_envs: int = 4) -> tuple[str, float] | None:
    """("sync" or "async", how many times as fast) at ``num_envs``, from stepping time alone.

    None when either did not run there.
    """
    rows = frame[frame["num_envs"] == num_envs].set_index("backend")["step_s"]
    if not {"sync", "async"} <= set(rows.index):
        return None
    sync_s, async_s = float(rows["sync"]), float(rows["async"])
    return ("sync", async_s / sync_s) if sync_s <= async_s else ("async", sync_s / async_s)


def speed_verdict(frame: pd.DataFrame, num_envs: int = 4) -> tuple[str, str]:
    """The prediction's truth (a class name) and its explanation, from the lesson's run."""
    result = faster_backend(frame, num_envs)
    if result is None:
        raise ValueError(f"the run has no Sync and Async rows at NUM_ENVS {num_envs}")
    winner, times = result
    loser = "async" if winner == "sync" else "sync"
    rows = frame[frame["num_envs"] == num_envs].set_index("backend")
    steps = int(rows.loc["sync", "steps"])
    why = (
        "For a step as cheap as BurgerBot's, Async's round trips to its worker processes cost "
        "more than running the envs in parallel saves."
        if winner == "sync"
        else "Its workers stepped in parallel and that outweighed the round trips; with a step "
        "this cheap that is rare: measure again to see whether it holds."
    )
    return CLASS_NAMES[winner], (
        f"{steps:,} `step()` calls took {rows.loc[winner, 'step_s']:.3f} s with "
        f"{CLASS_NAMES[winner]} and {rows.loc[loser, 'step_s']:.3f} s with "
        f"{CLASS_NAMES[loser]}: {CLASS_NAMES[winner]} was {times:,.1f}× as fast. {why}"
    )


def takeaways(lesson: pd.DataFrame | None, bookkeeping: Bookkeeping | None) -> list[str]:
    """The page's "Key takeaways"; those about this server come from its runs, if any."""
    bullets = [
        "`SyncVectorEnv` steps its envs one after another in this process; `AsyncVectorEnv` "
        "runs each in its own worker process and talks to it through pipes.",
    ]
    result = None if lesson is None else faster_backend(lesson)
    if result is None:
        bullets.append("Run the lesson's comparison to see which is faster on this server.")
    else:
        winner, times = result
        loser = "async" if winner == "sync" else "sync"
        bullets.append(
            f"Here, with 4 BurgerBots, {CLASS_NAMES[winner]} was {times:,.1f}× as fast as "
            f"{CLASS_NAMES[loser]}."
        )
    if bookkeeping is not None and bookkeeping.separated == "sync":
        part = "most" if bookkeeping.share >= 0.5 else "the smaller part"
        bullets.append(
            f"Sync's own bookkeeping was {part} of its time per env-step here "
            f"({micros(bookkeeping.sync_median)}, against {micros(bookkeeping.plain_median)} "
            "for a plain `BurgerBotEnv.step`)."
        )
    bullets += [
        "Async pays off only when one step costs much more than Async's round trip per call: "
        "a heavy simulator, or waiting on a device or a network.",
        "`BurgerBotVectorEnv` (native) is this project's class, not Gymnasium's: one call moves "
        "every robot with numpy.",
    ]
    return bullets
