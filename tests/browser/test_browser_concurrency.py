"""Many people at once: 8 visitors on the Batch shapes page, each with their own settings,
stepping and playing at the same time. Nobody sees an error or anybody else's state, and the
server's memory stays bounded.

The run lasts ``BURGERBOT_TEST_CONCURRENCY_SECONDS`` (default: 60 in CI, 15 elsewhere).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import pytest
from app_driver import IN_CI, RUN_TIMEOUT_S, AppView, RssSampler, megabytes, new_context, wait_until
from interactions import (
    LIVE,
    batch_pause,
    batch_play,
    batch_press,
    batch_reveal,
    batch_shape,
    batch_step,
)

pytestmark = pytest.mark.browser

VISITORS = 8
DURATION_S = float(os.environ.get("BURGERBOT_TEST_CONCURRENCY_SECONDS", "60" if IN_CI else "15"))
# However slow the machine, every stepper clicks at least this often.
MIN_ROUNDS = 4
MB = 2**20
# Bounds on the server (with its workers) over the run; the figures go to the report.
GROWTH_LIMIT = 8 * 150 * MB
LATE_GROWTH_LIMIT = 60 * MB


@dataclass
class Visitor:
    view: AppView
    n: int
    seed: int
    backend: str
    plays: bool  # plays on its own; the others click Step once / Step x10
    expected_step: int = 0
    clicks: int = 0

    @property
    def query(self) -> dict[str, str]:
        return {
            "env": "BurgerBot",
            "n": str(self.n),
            "backend": self.backend,
            "seed": str(self.seed),
        }

    def check_own_state(self) -> None:
        """Shows its own NUM_ENVS, seed and backend, in the widgets and in the URL."""
        view = self.view
        view.assert_no_exception()
        assert batch_shape(view) == (self.n, 4), (self.query, batch_shape(view))
        query = {key: values[-1] for key, values in view.query().items()}
        assert query == self.query, (self.query, query)
        assert view.widget("batch_shapes_n").locator("input").input_value() == str(self.n)
        assert view.widget("batch_shapes_seed").locator("input").input_value() == str(self.seed)
        assert not view.console_errors, view.console_errors


def visitor_settings(index: int) -> dict:
    # Mostly Sync and native; two small Async ones keep worker processes in the mix.
    backend = ("sync", "native", "sync", "async")[index % 4]
    n = 2 if backend == "async" else 1 + 3 * index
    return {"n": n, "seed": 1000 + 7 * index, "backend": backend, "plays": index % 2 == 1}


def test_eight_visitors_step_and_play_at_once(browser, report, request):
    server = request.getfixturevalue("server")
    log_start = server.log_path.stat().st_size
    contexts = [new_context(browser) for _ in range(VISITORS)]
    visitors = [
        Visitor(AppView(context.new_page(), server), **visitor_settings(i))
        for i, context in enumerate(contexts)
    ]
    rounds = 0
    try:
        with RssSampler(server) as sampler:
            start = time.monotonic()
            # Everybody arrives at once.
            for visitor in visitors:
                visitor.view.page.goto(
                    server.url("batch_shapes", visitor.query), wait_until="commit"
                )
            for visitor in visitors:
                visitor.view.wait_for_run(0)
                batch_reveal(visitor.view)  # the live view waits for a prediction or a skip
                visitor.check_own_state()
                assert batch_step(visitor.view) == 0
            for visitor in visitors:
                if visitor.plays:
                    batch_play(visitor.view)
            arrived = time.monotonic()
            # The steppers click at the same time, then each waits for its own rerun.
            while time.monotonic() - arrived < DURATION_S or rounds < MIN_ROUNDS:
                rounds += 1
                steppers = [v for v in visitors if not v.plays]
                pending = []
                for i, visitor in enumerate(steppers):
                    call, steps = ("steps", 10) if (rounds + i) % 3 == 0 else ("step", 1)
                    since = visitor.view.runs_finished()
                    visitor.view.stepper_button(LIVE, call).click()
                    visitor.expected_step += steps
                    visitor.clicks += 1
                    pending.append((visitor, since))
                for visitor, since in pending:
                    view = visitor.view
                    # Most clicks are answered in the page; one now and then asks for more.
                    wait_until(
                        lambda v=visitor: batch_step(v.view) >= v.expected_step,
                        RUN_TIMEOUT_S,
                        "the stepper to show its call",
                    )
                    if view.runs_finished() != since:  # a request for more: let it finish
                        view.settle(since)
                    assert batch_step(view) == visitor.expected_step, (
                        visitor.query,
                        batch_step(view),
                        visitor.expected_step,
                    )
                    visitor.check_own_state()
                for visitor in visitors:
                    if visitor.plays:
                        visitor.check_own_state()
            # The players paused: from now on their step count moves only when they click.
            for visitor in visitors:
                if visitor.plays:
                    assert batch_step(visitor.view) > 0, f"{visitor.query} never stepped"
                    batch_pause(visitor.view)
                    paused_at = batch_step(visitor.view)
                    batch_press(
                        visitor.view,
                        "step",
                        lambda v=visitor, p=paused_at: batch_step(v.view) > p,
                        script=None,
                    )
                    assert batch_step(visitor.view) == paused_at + 1, visitor.query
                    visitor.expected_step = paused_at + 1
                visitor.check_own_state()
            end = time.monotonic()
        baseline = sampler.samples[0][1]
        middle = arrived + (end - arrived) / 2
        first_half, second_half = (
            sampler.peak_between(arrived, middle),
            sampler.peak_between(middle, end),
        )
        figures = {
            "visitors": VISITORS,
            "duration_s": round(end - start, 1),
            "rounds_of_clicks": rounds,
            "clicks_per_stepper": [v.clicks for v in visitors if not v.plays],
            "steps_reached": {
                f"n={v.n},seed={v.seed},{v.backend}": v.expected_step for v in visitors
            },
            "rss_before_mb": megabytes(baseline),
            "rss_peak_mb": megabytes(sampler.peak),
            "rss_peak_first_half_mb": megabytes(first_half),
            "rss_peak_second_half_mb": megabytes(second_half),
        }
        report.record("concurrency", "batch_shapes_8_visitors", figures)
        assert sampler.peak - baseline < GROWTH_LIMIT, figures
        assert second_half - first_half < LATE_GROWTH_LIMIT, figures
        log = server.log_path.read_text(errors="replace")[log_start:]
        assert "Traceback" not in log, log[-5000:]
    finally:
        for context in contexts:
            context.close()
