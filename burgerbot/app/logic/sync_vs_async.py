"""The "Sync vs Async" page's logic: the lesson's comparison, where a call's time goes, verdicts.

AsyncVectorEnv runs each sub-environment in its own process. In every ``step()`` call it
pickles each action and sends it down a pipe to its worker, and the worker pickles its reward,
flags and infos back the same way (observations come back through shared memory, gymnasium's
default). For BurgerBot, whose step costs microseconds, that round trip costs far more than
the step itself, so Async loses; SyncVectorEnv calls its envs directly in this process.
Every sentence here is computed from a measurement, and says so when the measurement's spread
leaves the answer open.
"""

from __future__ import annotations

import pickle
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pandas as pd

from burgerbot.app.timing import CallCost, TimingSettings, compare_backends, micros, step_rates
from burgerbot.bench import compare_timings
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import make_vector_env

__all__ = [
    "BOOKKEEPING",
    "CLASS_NAMES",
    "LESSON",
    "SAME",
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
BOOKKEEPING = (
    "splitting the batch of actions, calling each env in turn, writing each result into the "
    "batch arrays, merging `infos` and copying the batch it returns"
)
"""What `SyncVectorEnv.step` does besides the envs' own steps (read from its source)."""


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
        verdict = compare_timings(
            [1 / s for s in self.plain_s], [1 / s for s in self.sync_s]
        ).verdict  # plain's speed against Sync's
        return {"faster": "sync", "slower": "plain", "similar": ""}[verdict]

    @property
    def finding(self) -> str:
        """What the rounds support, the branch `sentence` takes: "plain_slower" (every plain
        round slower: noise), "overlap", "mostly_bookkeeping" (share of at least half) or
        "mostly_step"."""
        if self.separated == "plain":
            return "plain_slower"
        if not self.separated:
            return "overlap"
        return "mostly_bookkeeping" if self.share >= 0.5 else "mostly_step"

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
        finding = self.finding
        if finding == "plain_slower":
            return head + (
                "Here every plain round was slower than every Sync round, which no bookkeeping "
                "can explain: something else on this machine slowed the plain loop. Measure again."
            )
        if finding == "overlap":
            return head + (
                "The two ranges overlap, so on this run the machine's noise hides how much of "
                "Sync's time is its own bookkeeping. Measure again."
            )
        if finding == "mostly_bookkeeping":
            return head + (
                f"So most of Sync's time per env-step, about {self.share:.0%} of it, is its own "
                f"bookkeeping: BurgerBot's step is the smaller part."
            )
        return head + (
            f"So BurgerBot's own step is most of Sync's time per env-step; Sync's bookkeeping "
            f"adds the other {self.share:.0%}."
        )


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
        "most" only when every round says so, "the rest is ..." only when none does.

        None when Async was not slower: there is no extra time to explain.

        Example:
            >>> text = Messages(40, 90, 3e-6).sentence(CallCost(4, 60e-6, 460e-6, None))
            >>> text.split(": ")[-1]
            'the rest is the pipes themselves and waking each worker process.'
        """
        spread = self.share_range(cost, extra_rounds)
        if spread is None:
            return None
        low, high = spread
        share = self.share(cost)
        head = (
            f"Per env and call that is a {self.out_bytes}-byte message out and a "
            f"{self.back_bytes}-byte one back. Pickling and unpickling both took "
            f"{micros(self.pickle_s)} here, "
        )
        extra = micros(cost.extra_per_env_s)
        if low != high:
            extra += (
                f" ({micros(min(extra_rounds))} to {micros(max(extra_rounds))} over the rounds)"
            )
        if low >= 0.5:
            return head + f"most ({share:.0%}) of Async's extra {extra}."
        if high < 0.5:
            return head + (
                f"{share:.0%} of Async's extra {extra} per env: the rest is "
                "the pipes themselves and waking each worker process."
            )
        return head + (
            f"between {low:.0%} and {high:.0%} of Async's extra {extra} per env: the rounds "
            "are too spread to say whether pickling is most of it. Measure again."
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
    steps = int(rows.loc["sync", "steps"])
    pairs = zip(rows.loc["async", "step_s_rounds"], rows.loc["sync", "step_s_rounds"], strict=True)
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
    """Async's cost per step() call against Sync's, in words that follow the numbers.

    ``rounds`` is `compare_backends` of Async against Sync at the same NUM_ENVS: when their
    rounds overlap, no difference is claimed. ``extra_rounds`` (`extra_per_env_rounds`) is
    Async's extra time per env in each round: with it, the extra is set against the plain
    step as a ratio only when the two ranges lie apart. The finding is `overhead_kind`'s.

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
    kind = overhead_kind(cost, bookkeeping, rounds, extra_rounds)
    if kind == "overlap" and rounds is not None:
        return head + (
            f"Their rounds overlap ({rounds[2]}, Async against Sync): no clear difference per "
            "call on this run. Measure again."
        )
    if kind == "not_slower":
        return head + (
            f"Async was not slower per call here ({micros(-cost.extra_s)} less): its workers "
            "stepped in parallel and that outweighed sending actions and results between "
            "processes."
        )
    text = head + (
        "Sync calls its envs directly, inside this process: nothing crosses between processes. "
        "Async, in every call, pickles each action into bytes and sends it down a pipe to its "
        "worker process, then waits while each worker wakes, steps, writes its observation "
        "into shared memory and pickles its reward, flags and infos back through the pipe: "
        f"that cost **{micros(cost.extra_s)} more per call**, about "
        f"{micros(cost.extra_per_env_s)} per env"
    )
    if bookkeeping is None:
        return text + "."
    if kind == "step_overlap":
        return text + (
            f" ({micros(min(extra_rounds))} to {micros(max(extra_rounds))} over the rounds), "
            f"against {micros(bookkeeping.plain_median)} for a plain BurgerBot step "
            f"({bookkeeping._range(bookkeeping.plain_s)}): the ranges overlap, so this run "
            "cannot say how many plain steps one round trip costs. Measure again."
        )
    if kind == "cannot_win_back":
        ratio = max(1.0, cost.extra_per_env_s / bookkeeping.plain_median)
        return text + (
            f", {ratio:,.0f}× what a plain BurgerBot step took. Parallel processes cannot win "
            "back time the step never took."
        )
    return text + f", less than a plain BurgerBot step took ({micros(bookkeeping.plain_median)})."


SAME = "About the same here"
"""The lesson comparison's answer when Sync's and Async's rounds overlap."""


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


def speed_verdict(frame: pd.DataFrame, num_envs: int = 4) -> tuple[str, str]:
    """The prediction's truth (a class name, or `SAME`) and its explanation, from the run."""
    result = faster_backend(frame, num_envs)
    if result is None:
        raise ValueError(f"the run has no Sync and Async rows at NUM_ENVS {num_envs}")
    winner, times, figures = result
    steps = int(frame.loc[frame["num_envs"] == num_envs, "steps"].iloc[0])
    rounds = len(step_rates(frame, "sync", num_envs))
    head = f"{steps:,} `step()` calls, {rounds} rounds taken in turns: Sync {figures} for Async. "
    if winner == "similar":
        return SAME, head + (
            "Their rounds overlap: too close to call on this server. Measure again."
        )
    loser = "async" if winner == "sync" else "sync"
    why = (
        "For a step as cheap as BurgerBot's, Async's round trips to its worker processes cost "
        "more than running the envs in parallel saves."
        if winner == "sync"
        else "Its workers stepped in parallel and that outweighed the round trips; with a step "
        "this cheap that is rare: measure again to see whether it holds."
    )
    return CLASS_NAMES[winner], head + (
        f"{CLASS_NAMES[winner]} was {times:,.1f}× as fast as {CLASS_NAMES[loser]} in every "
        f"round. {why}"
    )


def takeaways(lesson: pd.DataFrame | None, bookkeeping: Bookkeeping | None) -> list[str]:
    """The page's "Key takeaways"; those about this server come from its runs, if any."""
    bullets = [
        "`SyncVectorEnv` steps its envs one after another in this process; `AsyncVectorEnv` "
        "runs each in its own worker process: in every call, actions, rewards, flags and infos "
        "are pickled through pipes, observations through shared memory (its default).",
    ]
    result = None if lesson is None else faster_backend(lesson)
    if result is None:
        bullets.append("Run the lesson's comparison to see which is faster on this server.")
    elif result[0] == "similar":
        bullets.append(
            "Here, with 4 BurgerBots, Sync and Async were about as fast: their rounds overlapped."
        )
    else:
        winner, times, _ = result
        loser = "async" if winner == "sync" else "sync"
        bullets.append(
            f"Here, with 4 BurgerBots, {CLASS_NAMES[winner]} was {times:,.1f}× as fast as "
            f"{CLASS_NAMES[loser]} in every round."
        )
    if bookkeeping is not None and bookkeeping.finding.startswith("mostly_"):
        part = "most" if bookkeeping.finding == "mostly_bookkeeping" else "the smaller part"
        bullets.append(
            f"Sync's own bookkeeping was {part} of its time per env-step here "
            f"({micros(bookkeeping.sync_median)}, against {micros(bookkeeping.plain_median)} "
            "for a plain `BurgerBotEnv.step`)."
        )
    bullets += [
        "Sync sends nothing between processes; Async pays for its round trip in every call. "
        "It pays off only when one step costs much more than that (a heavy simulator, or "
        "waiting on a device): Cost sweeps, under Going further, finds where.",
        "`BurgerBotVectorEnv` (native) is this project's class, not Gymnasium's: one call moves "
        "every robot with numpy.",
    ]
    return bullets
