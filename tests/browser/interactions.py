"""The main interaction of each page, done in the browser as a learner would.

Each callable gets an `AppView` already showing its page (first run finished), does the
page's main thing through keyed widgets (CSS class ``st-key-<key>``), checks that what is
shown changed accordingly, and returns the seconds the interaction's reruns took.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app_driver import RUN_TIMEOUT_S, AppView, wait_until

from burgerbot.app.logic.autoreset import ENDS_AS_IN_NEXT_STEP
from burgerbot.app.logic.disabled_mode import RAISES
from burgerbot.app.logic.mistakes import FACTORY_OPTIONS
from burgerbot.app.logic.more_mistakes import ACTION_OPTIONS, MISTAKES


def metric_values(view: AppView) -> list[str]:
    return view.page.locator('[data-testid="stMetricValue"]').all_inner_texts()


def home_table(view: AppView) -> list[str]:
    return view.page.locator('[data-testid="stTable"] td').all_inner_texts()


def home(view: AppView) -> float:
    """Skip the prediction: this visitor's run appears (counts beside CPU times); "Measure
    again" measures anew: the times change, the counts (seeded) do not."""
    assert not home_table(view)  # hidden until the prediction is answered or skipped
    seconds = view.click("home_batch_saves_skip", until=lambda: len(home_table(view)) == 10)
    assert "Your run, started at" in view.main_text()
    before = home_table(view)
    seconds += view.click("home_measure", until=lambda: home_table(view) != before)
    after = home_table(view)
    counts = [0, 1, 4, 5]  # step() calls and forward passes, both loops
    assert [after[i] for i in counts] == [before[i] for i in counts], (before, after)
    assert after[0] == "1,000"
    return seconds


def speed_breakdown(view: AppView) -> float:
    """Skip the prediction: the race across N, with and without a policy, appears."""
    assert "With the policy choosing every action" not in view.main_text()
    return view.click(
        "speed_breakdown_policy16_skip",
        until=lambda: "With the policy choosing every action" in view.main_text(),
    )


# --- Batch shapes ----------------------------------------------------------------------------


def batch_step(view: AppView) -> int:
    """The step number the Batch shapes page shows (0 right after a reset)."""
    match = re.search(r"Latest call: step (\d+) since the reset", view.main_text())
    return int(match.group(1)) if match else 0


def batch_shape(view: AppView) -> tuple[int, ...] | None:
    """The observation batch's shape as the Batch shapes page's arrays table states it."""
    match = re.search(r"^observations\s+\(([\d,\s]+)\)", view.main_text(), re.MULTILINE)
    return tuple(int(x) for x in match.group(1).split(",") if x.strip()) if match else None


def batch_reveal(view: AppView) -> float:
    """Click Batch shapes' "Skip, show me" (its two questions wait for it, or for both
    answers): the live view appears at its reset. No-op once it is shown."""
    skip = view.page.locator('[class*="st-key-batch_shapes_batch_"] button').filter(
        has_text="Skip, show me"
    )
    if not skip.count():
        return 0.0
    return view.act(skip.click, lambda: "Latest call: reset" in view.main_text())


LIVE = "batch_shapes_live"
"""Batch shapes' stepper (`call_stepper`): Reset, Step once, Step ×10, Play/Pause."""


def batch_press(view: AppView, call: str, until: Callable[[], Any], **kwargs: Any) -> float:
    """Press a button of Batch shapes' stepper (see `AppView.press`)."""
    return view.press(LIVE, call, until, **kwargs)


def batch_play(view: AppView) -> float:
    return batch_press(
        view, "play", lambda: view.stepper_button(LIVE, "pause").count() > 0, script=True
    )


def batch_pause(view: AppView) -> float:
    return batch_press(
        view, "pause", lambda: view.stepper_button(LIVE, "play").count() > 0, script=True
    )


def batch_shapes(view: AppView) -> float:
    """Skip the prediction (nothing shows the shape before), step once and step x10 in the
    page (the calls are held ahead), step x10 past them (one script run takes the steps), play
    until it has stepped on its own, pause, step again."""
    assert batch_shape(view) is None  # the shape waits for the prediction
    seconds = batch_reveal(view)
    assert batch_step(view) == 0
    seconds += batch_press(view, "step", lambda: batch_step(view) == 1)
    seconds += batch_press(view, "steps", lambda: batch_step(view) == 11)
    assert batch_shape(view) == (4, 4)
    seconds += batch_press(view, "steps", lambda: batch_step(view) == 21, script=None)
    seconds += batch_play(view)
    wait_until(lambda: batch_step(view) >= 24, RUN_TIMEOUT_S, "Play to step on its own")
    seconds += batch_pause(view)
    paused_at = batch_step(view)
    seconds += batch_press(view, "step", lambda: batch_step(view) > paused_at, script=None)
    time.sleep(1.0)  # a step taken after Pause would show by now
    assert batch_step(view) == paused_at + 1, "steps were taken after Pause"
    return seconds


# --- Auto-reset ------------------------------------------------------------------------------


def autoreset(view: AppView) -> float:
    """Answer the prediction (nothing of the run is shown before), step through the run (three
    steps and one back, each answered in the page without a script run); a rerun of the page
    keeps the call reached; then switch the auto-reset mode: the timeline's reading guide and
    the URL follow, and the stepper starts again from the reset."""

    def shows(step: int) -> Callable[[], bool]:
        return lambda: f"Latest call: step {step} since the reset" in view.main_text()

    assert "Latest call" not in view.main_text(), "the run is shown before the prediction"
    seconds = view.choose("autoreset_next_step_choice", ENDS_AS_IN_NEXT_STEP)
    assert "Latest call" not in view.main_text(), "the run is shown before the lock-in"
    seconds += view.click(
        "autoreset_next_step_lock", until=lambda: "Latest call: reset" in view.main_text()
    )
    assert "Your prediction was right" in view.main_text()
    for step in (1, 2, 3):
        seconds += view.press("autoreset_stepper", "step", until=shows(step))
    seconds += view.press("autoreset_stepper", "back", until=shows(2))
    seconds += view.click("autoreset_next_step_lock")  # "Change it": a rerun of the page
    assert shows(2)(), "a rerun of the page lost the stepper's call"
    seconds += view.choose(
        "autoreset_mode", "SAME_STEP", until=lambda: "black bar" in view.main_text()
    )
    assert view.query().get("mode") == ["SAME_STEP"], view.page.url
    assert "Latest call: reset" in view.main_text()
    return seconds


def counting_episodes(view: AppView) -> float:
    """Skip the prediction: the counts and their sentence appear (nothing of them before). Move
    NUM_ENVS: the count is of the new number of envs, and the URL follows."""
    counted = "episodes, SAME_STEP"
    assert counted not in view.main_text(), "the counts are shown before the prediction"
    seconds = view.click("counting_episodes_modes_skip", until=lambda: counted in view.main_text())
    assert "of 8 envs)" in view.main_text()
    seconds += view.set_slider("counting_episodes_n", 9)
    wait_until(lambda: "of 9 envs)" in view.main_text(), RUN_TIMEOUT_S, "the count of 9 envs")
    assert view.query().get("n") == ["9"], view.page.url
    return seconds


def disabled_mode(view: AppView) -> float:
    """Lock in "step() raises an error": the demo's captured errors and the fix appear, and the
    page says the prediction was right."""
    assert "AssertionError" not in view.main_text(), "the answer is shown before the prediction"
    seconds = view.choose("disabled_mode_step_again_choice", RAISES)
    seconds += view.click(
        "disabled_mode_step_again_lock", until=lambda: "AssertionError" in view.main_text()
    )
    text = view.main_text()
    assert "Your prediction was right" in text and "reset_mask" in text
    return seconds


# --- Why batches help ------------------------------------------------------------------------


def why_batches(view: AppView) -> float:
    """Skip the prediction: the batch appears; then one more NUM_ENVS: fewer calls fill it."""
    assert "Key takeaways" in view.main_text() and "rollout buffer" not in view.main_text()
    seconds = view.click(
        "why_batches_calls_2048_4_skip",
        until=lambda: "rollout buffer" in view.main_text(),
    )
    assert metric_values(view)[0] == "512"
    seconds += view.set_slider("why_batches_n", 5)
    assert view.query().get("n") == ["5"], view.page.url
    assert metric_values(view)[0] == "410"  # ⌈2,048 ÷ 5⌉
    return seconds


def learning_speed(view: AppView) -> float:
    """Skip the prediction, then train at the page's default settings."""
    assert "Start training" not in view.main_text()
    seconds = view.click(
        "learning_speed_sample_1_16_skip", until=lambda: "Start training" in view.main_text()
    )
    seconds += view.click(
        "learning_speed_train",
        until=lambda: "When did each NUM_ENVS learn the task?" in view.main_text(),
    )
    assert "Env-steps needed to learn" in view.main_text()
    return seconds


# --- Stable-Baselines3 -----------------------------------------------------------------------


def sb3(view: AppView) -> float:
    """Skip the prediction: the lesson's calls appear (live, or recorded and labelled so);
    then one more NUM_ENVS for the side-by-side run (PPO training is not on the path)."""
    assert "ValueError" not in view.main_text()  # the answer is not on screen yet
    seconds = view.click(
        "sb3_accepts_sync_skip", until=lambda: "1. The lesson's PPO calls" in view.main_text()
    )
    assert "ValueError" in view.main_text() or "TypeError" in view.main_text()
    start = int(view.slider_value("sb3_n"))
    target = start + 1 if start < 16 else start - 1
    seconds += view.set_slider("sb3_n", target)
    assert view.query().get("n") == [str(target)], view.page.url
    assert not view.has_widget("sb3_train")
    return seconds


# --- Goal scaling ----------------------------------------------------------------------------


def goal_scaling(view: AppView) -> float:
    """Skip the prediction: the lesson's run, its verdict and exercise 1 answered by default."""
    assert "Yes, roughly double" not in view.main_text()  # nothing before the reveal
    seconds = view.click(
        "goal_scaling_goals_skip", until=lambda: "Yes, roughly double" in view.main_text()
    )
    text = view.main_text()
    assert "True, not visible as set up" in text and "Over 3,000 runs each" in text
    assert len(metric_values(view)) == 2
    return seconds


def goal_statistics(view: AppView) -> float:
    """Run the sweep at the page's settings, then download its CSV: one row per run."""
    seconds = view.click("goal_statistics_run", until=lambda: " took " in view.main_text())
    query = view.query()
    runs = len(query["n"][0].split(",")) * int(query["seeds"][0])
    button = view.widget("goal_statistics_download").locator("button")
    with view.page.expect_download() as download:
        seconds += view.act(button.click)
    lines = Path(download.value.path()).read_text().strip().splitlines()
    header = lines[0].split(",")
    assert {"num_envs", "seed", "goals"} <= set(header), header
    assert len(lines) - 1 == runs, (len(lines) - 1, runs)
    return seconds


# --- Sync vs Async ---------------------------------------------------------------------------


def sync_vs_async(view: AppView) -> float:
    """Skip the prediction, then run the lesson's timing comparison (4 envs x 1,000 steps on
    every backend): the table, where Async's time goes and the takeaway on this run appear,
    and the one button now measures again."""
    assert "Key takeaways" in view.main_text() and "per call" not in view.main_text()
    seconds = view.click(
        "sync_vs_async_faster_skip", until=lambda: view.has_widget("sync_vs_async_lesson")
    )
    seconds += view.click("sync_vs_async_lesson", until=lambda: "Measure again" in view.main_text())
    assert "with Sync and" in view.main_text()  # one step() call's time, each backend
    assert "with 4 BurgerBots" in view.main_text()  # the takeaway on this run
    assert "Run the lesson's comparison" not in view.main_text()  # one button, relabelled
    wait_until(lambda: not view.server.children(), 60, "the timing run's workers to exit")
    return seconds


def cost_sweeps(view: AppView) -> float:
    """Skip the prediction and run the default sweep (1,000 us of sleep per env-step): the
    speed-up chart and the verdict on where Async won appear, and every worker exits."""
    seconds = view.click("cost_sweeps_wins_skip", until=lambda: view.has_widget("cost_sweeps_run"))
    seconds += view.click(
        "cost_sweeps_run", until=lambda: "The largest speed-up" in view.main_text()
    )
    assert "Async's speed-up over Sync" in view.main_text()
    wait_until(lambda: not view.server.children(), 60, "the sweep's workers to exit")
    return seconds


# --- Common mistakes ---------------------------------------------------------------------


def mistakes(view: AppView) -> float:
    """Lock in the factory prediction (no error shown before; the check after): both common
    issues show their scripts and real errors, and no Async run starts."""
    assert "TypeError" not in view.main_text().replace("TypeError when", "").replace(
        "TypeError at", ""
    )  # only the question's options name it before the answer
    seconds = view.choose("mistakes_factory_choice", FACTORY_OPTIONS[1])
    seconds += view.click(
        "mistakes_factory_lock",
        until=lambda: "missing 1 required positional argument" in view.main_text(),
    )
    text = view.main_text()
    assert "too many indices" in text  # the scalar issue's IndexError, its ❌ tab open
    assert not view.server.children()  # nothing on this page starts a worker
    return seconds


# --- More mistakes ---------------------------------------------------------------------------


def more_mistakes(view: AppView) -> float:
    """Lock in the (N, 1) actions prediction (no error shown before; the check after), pick the
    unclosed-Async mistake and run it again: it starts workers, crashes, and the page closes
    them all."""
    assert "0-dimensional" not in view.main_text()
    seconds = view.choose("more_mistakes_actions_choice", ACTION_OPTIONS[2])
    seconds += view.click(
        "more_mistakes_actions_lock", until=lambda: view.has_widget("more_mistakes_mistake")
    )
    assert "only 0-dimensional arrays" in view.main_text()
    seconds += view.choose(
        "more_mistakes_mistake",
        MISTAKES["async"],
        until=lambda: view.has_widget("more_mistakes_rerun_async"),
    )
    seconds += view.click(
        "more_mistakes_rerun_async",
        until=lambda: (
            "After the page called" in view.main_text()
            and not view.page.locator('[data-testid="stSpinner"]').count()
        ),
    )
    wait_until(lambda: not view.server.children(), 60, "the demo's workers to exit")
    return seconds


# --- The lesson vs today's libraries --------------------------------------------------------


def lesson_vs_today(view: AppView) -> float:
    """Skip the prediction: the one table of claims appears, each row with its kind; run every
    check again: the same rows come back."""
    table = '[data-testid="stMain"] table'
    assert view.page.locator(table).count() == 0  # no verdict before the prediction
    seconds = view.click(
        "lesson_vs_today_how_many_hold_skip",
        until=lambda: view.page.locator(table).count() == 1,
    )
    rows = view.page.locator(f"{table} tbody tr").count()
    assert rows == 8, rows
    seconds += view.click("lesson_rerun")
    assert view.page.locator(f"{table} tbody tr").count() == rows
    return seconds


# --- Wrapping a vector env -------------------------------------------------------------------


def vector_wrappers(view: AppView) -> float:
    """Skip the prediction: the live results appear; then SAME_STEP for the logging sections:
    the factory's statistics move into infos["final_info"] and the URL follows."""
    waiting = "They appear once you answer the prediction above"  # the takeaways wait
    assert waiting in view.main_text()
    seconds = view.click(
        "vector_wrappers_normalize_same_step_skip",
        until=lambda: waiting not in view.main_text(),
    )
    assert "refuses" in view.main_text()  # a takeaway: which wrappers SAME_STEP refuses
    seconds += view.choose("vector_wrappers_mode", "SAME_STEP")
    assert view.query().get("mode") == ["SAME_STEP"], view.page.url
    assert 'its statistics are in infos["final_info"]["episode"]' in view.main_text()
    return seconds


# --- From batches to training data, Glossary ------------------------------------------------


def training_data(view: AppView) -> float:
    """Skip the prediction: the buffer and takeaways appear. Switch the buffer to SAME_STEP:
    the takeaways stop asking to mask reset rows out."""
    assert "In NEXT_STEP mode the" not in view.main_text()
    seconds = view.click(
        "training_data_rows_skip", until=lambda: "In NEXT_STEP mode the" in view.main_text()
    )
    seconds += view.choose("training_data_mode", "SAME_STEP")
    assert "SAME_STEP" in str(view.query()), view.page.url
    text = view.main_text()
    assert "In SAME_STEP mode every row is a transition" in text
    assert "In NEXT_STEP mode the" not in text
    # Only the open tab is drawn: another tab's content arrives once it is clicked.
    targets = "With or without the mask, the"
    assert targets not in text
    tab = view.page.get_by_role("tab", name="TD targets")
    seconds += view.act(tab.click, until=lambda: targets in view.main_text())
    assert "Buffer & mask" in view.main_text()  # the tabs stay; the first one's content goes
    return seconds


def glossary(view: AppView) -> float:
    """Every term has its anchor, so the other pages' links land on it."""
    for slug in ("env-step", "autoreset", "truncated"):
        assert view.page.locator(f'[id="{slug}"]').count() == 1, slug
    return 0.0


MAIN_INTERACTIONS: dict[str, Callable[[AppView], float]] = {
    "home.py": home,
    "training_data.py": training_data,
    "glossary.py": glossary,
    "batch_shapes.py": batch_shapes,
    "autoreset.py": autoreset,
    "counting_episodes.py": counting_episodes,
    "disabled_mode.py": disabled_mode,
    "why_batches.py": why_batches,
    "learning_speed.py": learning_speed,
    "sb3.py": sb3,
    "goal_scaling.py": goal_scaling,
    "goal_statistics.py": goal_statistics,
    "sync_vs_async.py": sync_vs_async,
    "cost_sweeps.py": cost_sweeps,
    "mistakes.py": mistakes,
    "more_mistakes.py": more_mistakes,
    "lesson_vs_today.py": lesson_vs_today,
    "vector_wrappers.py": vector_wrappers,
    "speed_breakdown.py": speed_breakdown,
}
