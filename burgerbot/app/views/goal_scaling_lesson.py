"""The lesson's own goal experiment (4 and 8 envs x 500 steps): prediction, verdict, takeaways.

The lesson says 8 envs reach the goal roughly twice as often as 4. That is true of the
*expected* count, but at 2,000 and 4,000 env-steps the counts are so small that one run
almost always shows 0 goals either way: "true, but not visible as set up".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from burgerbot.app.views.goal_scaling import LESSON_NUM_ENVS, LESSON_STEPS
from burgerbot.experiments import goal_scaling
from burgerbot.statistics import poisson_zero_chance

__all__ = [
    "GOAL_OPTIONS",
    "VISIBLE_GOALS",
    "LessonRun",
    "check_explanation",
    "goal_bucket",
    "lesson_verdict",
    "run_lesson",
    "takeaways",
]

GOAL_OPTIONS = ("0", "1 or 2", "3 to 10", "more than 10")
"""The prediction's answers: how many goals 4 envs x 500 steps give."""

VISIBLE_GOALS = 12.0
"""Expected goals at 4 envs from which one run of 4 and one of 8 envs show the doubling:
the gap between the two means (λ) is then twice the noise of their difference (√(3λ))."""


def goal_bucket(goals: int) -> str:
    """The prediction option a goal count falls in.

    >>> [goal_bucket(g) for g in (0, 2, 3, 10, 11)]
    ['0', '1 or 2', '3 to 10', '3 to 10', 'more than 10']
    """
    if goals < 0:
        raise ValueError(f"`goals` must be >= 0, got {goals!r}")
    if goals == 0:
        return GOAL_OPTIONS[0]
    if goals <= 2:
        return GOAL_OPTIONS[1]
    if goals <= 10:
        return GOAL_OPTIONS[2]
    return GOAL_OPTIONS[3]


@dataclass(frozen=True)
class LessonRun:
    """One run of the lesson's experiment: goals and finished episodes with 4 and with 8 envs."""

    seed: int
    goals: dict[int, int]
    episodes: dict[int, int]


def run_lesson(seed: int = 0, backend: str = "sync") -> LessonRun:
    """Run the lesson's experiment live: 500 random steps with 4, then 8 BurgerBots."""
    frame = goal_scaling(LESSON_NUM_ENVS, LESSON_STEPS, seeds=[seed], backend=backend)
    return LessonRun(
        seed,
        {int(n): int(g) for n, g in zip(frame["num_envs"], frame["goals"], strict=True)},
        {int(n): int(e) for n, e in zip(frame["num_envs"], frame["episodes"], strict=True)},
    )


def check_explanation(run: LessonRun, rate: float | None) -> str:
    """Why the live run gave what it gave, with what the measured ``rate`` predicts."""
    four, eight = LESSON_NUM_ENVS
    text = (
        f"With seed {run.seed}, {four} envs x {LESSON_STEPS} steps ({four * LESSON_STEPS:,} "
        f"env-steps) finished {run.episodes[four]:,} episodes and reached the goal "
        f"{run.goals[four]} time{'s' * (run.goals[four] != 1)}; {eight} envs reached it "
        f"{run.goals[eight]} time{'s' * (run.goals[eight] != 1)}."
    )
    if rate:
        expected = rate * four * LESSON_STEPS
        text += (
            f" At the measured rate you expect {expected:.3f} goals in "
            f"{four * LESSON_STEPS:,} env-steps: 0 comes up "
            f"{poisson_zero_chance(expected):.0%} of the time."
        )
    return text


def lesson_verdict(rate: float) -> tuple[str, str]:
    """The kind of verdict on "8 envs give roughly double the goals" (a `VERDICTS` key) and why.

    Example:
        >>> lesson_verdict(2.7e-5)[0], lesson_verdict(2e-2)[0]
        ('not_visible', 'holds')
    """
    four, eight = (rate * n * LESSON_STEPS for n in LESSON_NUM_ENVS)
    both_zero = poisson_zero_chance(four) * poisson_zero_chance(eight)
    average = (
        f"On average it holds: at the measured rate {LESSON_NUM_ENVS[1]} envs expect "
        f"{eight:.3f} goals, twice the {four:.3f} of {LESSON_NUM_ENVS[0]} envs."
    )
    if four < VISIBLE_GOALS:
        return "not_visible", (
            f"{average} But counts that small are mostly noise: {both_zero:.0%} of the time "
            "both runs show 0 goals, so the lesson's 500 steps cannot show the doubling."
        )
    noise = math.sqrt(four + eight)
    return "holds", (
        f"{average} Counts this large differ by about {eight - four:.3g}, against noise of "
        f"about ±{noise:.2g}: one run each shows the doubling."
    )


def takeaways(rate: float | None, run: LessonRun) -> list[str]:
    """The page's key takeaways (the numbers from the measured rate and the live run)."""
    four, eight = LESSON_NUM_ENVS
    bullets = [
        "A goal is a reward of exactly 50.0: count them with `rewards == 50.0` on the "
        "batch, in any auto-reset mode.",
        "What grows with NUM_ENVS is env-steps per `step()` call; goals follow the "
        "env-steps, not the number of envs.",
    ]
    if rate:
        expected = rate * four * LESSON_STEPS
        bullets.insert(
            1,
            f"A random robot reaches the goal about once per {1 / rate:,.0f} env-steps "
            f"(measured here), so {four} envs x {LESSON_STEPS} steps expect {expected:.3f} "
            f"goals; your run with seed {run.seed} gave {run.goals[four]}.",
        )
    bullets.append(
        "To see a rare count double, collect far more env-steps, or run many seeds and "
        "compare 95% intervals: one short run says almost nothing."
    )
    return bullets
