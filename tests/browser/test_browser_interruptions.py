"""Interruptions: leaving a page, or changing a widget, in the middle of a long run leaves no
worker process behind and no broken session: the next run on the page works."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from app_driver import RUN_TIMEOUT_S, AppView, wait_until

pytestmark = pytest.mark.browser

PROGRESS = '[data-testid="stProgress"]'
# Cleaning up may take a moment (a worker finishes its step, then exits); a bound, not a goal.
CLEANUP_TIMEOUT_S = 60


@dataclass(frozen=True)
class LongRun:
    page: str
    long_query: dict[str, str]  # a run that takes long enough to be interrupted
    run_key: str  # the button that starts it
    steps_key: str  # a number input: set small for the run that must work afterwards
    small_steps: int
    done_text: str  # shown once a run has finished
    needs_workers: bool  # the run starts Async worker processes
    skip_key: str = ""  # the prediction's "Skip, show me", where the run waits for it

    @property
    def file(self) -> str:
        return f"{self.page}.py"


LONG_RUNS = {
    "goal_statistics": LongRun(
        "goal_statistics",
        {"n": "1024", "steps": "2900", "seeds": "1", "backend": "sync", "budget": "per_env"},
        "goal_statistics_run",
        "goal_statistics_steps",
        10,
        " took ",
        needs_workers=False,
    ),
    "cost_sweeps": LongRun(
        "cost_sweeps",
        {"n": "8", "steps": "100000", "work_us": "0", "kind": "busy"},
        "cost_sweeps_run",
        "cost_sweeps_steps",
        100,
        "Each point is one backend at one NUM_ENVS",
        needs_workers=True,
        skip_key="cost_sweeps_wins_skip",
    ),
}


def start_long_run(view: AppView, run: LongRun) -> None:
    view.goto(run.page, run.long_query)
    view.assert_no_exception()
    if run.skip_key and not view.has_widget(run.run_key):
        view.click(run.skip_key, until=lambda: view.has_widget(run.run_key))
    view.widget(run.run_key).locator("button").click()
    # In the middle: the progress bar is up (and, for Async, the workers are running).
    view.page.wait_for_selector(PROGRESS, timeout=RUN_TIMEOUT_S * 1000)
    if run.needs_workers:
        wait_until(view.server.children, RUN_TIMEOUT_S, "Async worker processes to start")


def assert_no_leftover_children(view: AppView) -> None:
    wait_until(lambda: not view.server.children(), CLEANUP_TIMEOUT_S, "worker processes to exit")


def run_small(view: AppView, run: LongRun) -> None:
    """The session still works: a small run on the same page finishes and shows results."""
    view.set_number(run.steps_key, run.small_steps)
    view.assert_no_exception()
    view.click(run.run_key, until=lambda: run.done_text in view.main_text())
    view.assert_no_exception()
    assert not view.page.locator(PROGRESS).count()
    assert_no_leftover_children(view)


@pytest.mark.parametrize("name", list(LONG_RUNS))
def test_navigating_away_mid_run(name, view: AppView):
    run = LONG_RUNS[name]
    start_long_run(view, run)
    # Leave through the sidebar, as a learner would (same session, another page).
    home = view.page.locator('[data-testid="stSidebarNav"] a').first
    view.act(home.click, until=lambda: not view.page.locator(PROGRESS).count())
    view.assert_no_exception()
    assert_no_leftover_children(view)
    # Come back the same way: the page is there with the same session and settings.
    link = view.page.locator(f'[data-testid="stSidebarNav"] a[href$="/{run.page}"]')
    view.act(link.click, until=lambda: view.has_widget(run.run_key))
    view.assert_no_exception()
    assert not view.page.locator(PROGRESS).count(), "the interrupted run started again"
    run_small(view, run)


@pytest.mark.parametrize("name", list(LONG_RUNS))
def test_changing_a_widget_mid_run(name, view: AppView):
    run = LONG_RUNS[name]
    start_long_run(view, run)
    box = view.widget(run.steps_key).locator("input").first

    def change() -> None:
        box.fill(str(run.small_steps))
        box.press("Enter")

    view.act(change, until=lambda: not view.page.locator(PROGRESS).count())
    view.assert_no_exception()
    assert_no_leftover_children(view)
    run_small(view, run)
