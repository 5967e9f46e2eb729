"""Home's live speed problem: a plain loop over one BurgerBot against a SyncVectorEnv and
BurgerBotVectorEnv of N envs, random actions, per call and per second.

Every sentence saying who was faster is made here from the measured numbers, the fastest and
the slowest of the repeats (the spread), so its wording follows the data either way
(`burgerbot.app.rates`). The detailed figures (across N, with a policy network, a forward
pass's cost) are Speed breakdown's.
"""

from __future__ import annotations

from dataclasses import dataclass

from burgerbot.app.rates import NUM_ENVS_CHOICES, Rate, Speeds, compare, figure, ratio, times, us
from burgerbot.app.settings import IntSetting
from burgerbot.speed import loop_speeds

__all__ = [
    "NO",
    "PREDICTION_N",
    "SAME",
    "SECONDS",
    "SPECS",
    "YES",
    "PerCall",
    "call_story",
    "envs_label",
    "measure_speeds",
    "per_call",
    "prediction_explanation",
    "prediction_truth",
    "sizes_for",
    "speed_takeaways",
]

SPECS = [IntSetting("n", "NUM_ENVS", 16, 1, NUM_ENVS_CHOICES[-1])]
PREDICTION_N = 16
YES, NO = "Yes, Sync is faster", "No, the plain loop is faster"
SAME = "About the same here"
"""The live run's answer when the repeats of Sync and the plain loop overlap."""
SECONDS, REPEATS = 0.02, 5
"""Timing budget per repeat and repeats per row, taken in turns: under a second in all.
Each repeat makes hundreds of `step()` calls; the verdicts read the five repeats' spread."""


def envs_label(num_envs: int) -> str:
    """'1 env', '16 envs', '1,024 envs'.

    >>> envs_label(1), envs_label(1024)
    ('1 env', '1,024 envs')
    """
    return "1 env" if num_envs == 1 else f"{num_envs:,} envs"


def sizes_for(num_envs: int) -> tuple[int, ...]:
    """The numbers of envs measured: the question's `PREDICTION_N` and the learner's.

    >>> sizes_for(16), sizes_for(1024)
    ((16,), (16, 1024))
    """
    return tuple(sorted({PREDICTION_N, int(num_envs)}))


def measure_speeds(num_envs: int, seconds: float = SECONDS, repeats: int = REPEATS) -> Speeds:
    """The plain loop, Sync and native at `sizes_for` ``num_envs``, random actions."""
    return Speeds(
        loop_speeds(sizes_for(num_envs), seconds=seconds, repeats=repeats, policies=(False,))
    )


@dataclass(frozen=True)
class PerCall:
    """What one `step()` call gave and cost, from the medians of a measurement."""

    rows: int
    """Rows one call returns: one per env."""
    transitions: float
    """Of them, transitions on average (the rows of envs being auto-reset are not)."""
    seconds: float
    """Time per call."""

    @property
    def calls_per_second(self) -> float:
        return 1 / self.seconds

    def caption(self) -> str:
        """'16 rows per `step()` call (14.6 of them transitions on average), 25,000 calls/s'."""
        rows = "1 row" if self.rows == 1 else f"{self.rows:,} rows"
        if self.transitions == self.rows:  # the plain loop: every row is a transition
            return f"{rows} per `step()` call, {self.calls_per_second:,.0f} calls per second"
        # A vector env of 1 env returns auto-reset rows too: 0.9 of its row is a transition.
        of_them = "of it a transition" if self.rows == 1 else "of them transitions"
        return (
            f"{rows} per `step()` call ({self.transitions:,.{2 if self.rows == 1 else 1}f} "
            f"{of_them} on average), {self.calls_per_second:,.0f} calls per second"
        )


def per_call(speeds: Speeds, loop: str, num_envs: int = 1) -> PerCall:
    """One call of ``loop`` at ``num_envs``: its rows, the transitions among them, its time."""
    if loop == "plain":
        return PerCall(1, 1.0, 1 / speeds.rate("plain").median)
    transitions = num_envs * (1 - speeds.reset_share(loop, num_envs))
    return PerCall(num_envs, transitions, transitions / speeds.rate(loop, num_envs).median)


def call_story(speeds: Speeds, num_envs: int) -> str:
    """A Sync call against the plain loop's steps: what it returned, what it cost, who won."""
    plain, sync = speeds.rate("plain"), speeds.rate("sync", num_envs)
    step, call = per_call(speeds, "plain"), per_call(speeds, "sync", num_envs)
    rows = "1 row" if num_envs == 1 else f"{num_envs:,} rows"
    text = (
        f"A `step()` call of Sync with {envs_label(num_envs)} returned {rows} and took "
        f"{us(call.seconds)}; a plain `env.step()` took {us(step.seconds)} (medians): one Sync "
        f"call cost as much as {figure(call.seconds / step.seconds)} plain steps."
    )
    kind = compare(sync, plain)
    if kind == "slower":
        return text + (
            " So Sync collected fewer transitions per second: it steps its envs one after "
            "another in Python, then stacks their results into arrays, work the plain loop "
            "never does."
        )
    if kind == "faster":
        return text + (
            f" So Sync collected more transitions per second: here a call's own cost, shared "
            f"by its {num_envs:,} envs, came to less than {num_envs:,} plain steps."
        )
    return text + " Per second the two collected about as many transitions: their repeats overlap."


def prediction_truth(speeds: Speeds) -> str:
    """The answer the live run gave: Sync at `PREDICTION_N` envs against the plain loop."""
    kind = compare(speeds.rate("sync", PREDICTION_N), speeds.rate("plain"))
    return {"faster": YES, "slower": NO, "similar": SAME}[kind]


def prediction_explanation(speeds: Speeds) -> str:
    """Why, with the numbers (and a note when the two were too close to call)."""
    sync, plain = speeds.rate("sync", PREDICTION_N), speeds.rate("plain")
    text = (
        f"Measured here, the question's {PREDICTION_N} envs whatever NUM_ENVS says: Sync "
        f"collected {sync.quoted()}, the plain loop {plain.quoted()}."
    )
    kind = compare(sync, plain)
    if kind == "similar":
        return text + (
            " Their repeats overlap: too close to call on this server (measure again, or run "
            "the script below on your machine)."
        )
    if kind == "slower":
        return text + (
            f" Per transition that is {us(1 / sync.median)} for Sync against "
            f"{us(1 / plain.median)} for the plain loop: batching alone does not make a cheap "
            "env faster."
        )
    return text + " On this server Sync came out ahead even for an env this cheap."


def _against(a: Rate, b: Rate) -> str:
    if compare(a, b) == "similar":
        return "about the plain loop's speed (the repeats overlap)"
    return f"{times(ratio(a, b))} the plain loop's speed"


def speed_takeaways(speeds: Speeds) -> list[str]:
    """The run-dependent "Key takeaways" (the page adds the fixed one)."""
    n = PREDICTION_N
    plain = speeds.rate("plain")
    sync, native = speeds.rate("sync", n), speeds.rate("native", n)
    verdict = {
        "slower": "batching alone does not speed up a world this cheap",
        "faster": "here batching alone already paid",
        "similar": "too close to call on this server",
    }[compare(sync, plain)]
    return [
        f"Stepping alone, Sync with {n} envs ran at {_against(sync, plain)} here: {verdict}.",
        f"`BurgerBotVectorEnv`, written for the batch (all robots in a few numpy operations), "
        f"ran at {_against(native, plain)} with {n} envs.",
    ]
