"""The classroom's CPU per click and clicks per second (`classroom.steady_clicks`), from
made-up visitors: those stepping together, and those arriving one by one."""

from __future__ import annotations

import pytest
from classroom import ENV_CYCLE, Outcome, Visitor, observed_n, steady_clicks
from classroom_client import view_text

from app_pages.batch_shapes import call_body
from burgerbot.app.logic.batch_shapes import BatchRun, BatchSettings, build_vector_env
from burgerbot.app.markdown import markdown_html


def _visitor(opened_at: float, done_at: float) -> Outcome:
    """A visitor stepping once a second from ``opened_at`` to ``done_at``."""
    clicks = [opened_at + i for i in range(int(done_at - opened_at))]
    return Outcome(
        Visitor("v", "BurgerBot", "sync", 4, 0),
        opened_at=opened_at,
        done_at=done_at,
        click_times=clicks,
    )


def _cpu(until: float, per_second: float) -> list[tuple[float, float]]:
    """Server CPU samples every half second, ``per_second`` CPU seconds a second."""
    return [(t / 2, per_second * t / 2) for t in range(int(until * 2) + 1)]


def test_visitors_stepping_together_are_measured_while_all_step():
    outcomes = [_visitor(0, 100), _visitor(10, 110)]
    figures = steady_clicks(outcomes, _cpu(120, 0.05))
    assert figures["window"] == "every visitor stepping"
    assert figures["window_s"] == 90.0
    assert figures["clicks_per_second"] == 2.0
    assert figures["server_cpu_ms_per_click"] == 25  # 50 ms of CPU a second, two clicks


def test_visitors_arriving_one_by_one_are_measured_after_the_last_arrives():
    # The last one starts stepping after the first has stopped: nobody steps with everyone.
    outcomes = [_visitor(0, 90), _visitor(50, 140), _visitor(100, 190)]
    figures = steady_clicks(outcomes, _cpu(200, 0.02))
    assert figures["window"] == "after the last page was opened"
    assert figures["window_s"] == 90.0
    assert figures["clicks"] == 130  # 40 + 90 clicks from 100 s to 190 s
    assert figures["server_cpu_ms_per_click"] == round(0.02 * 90 * 1000 / 130)


@pytest.mark.parametrize("env", sorted(set(ENV_CYCLE)))
@pytest.mark.parametrize("num_envs", [1, 4, 64])
def test_the_classroom_reads_num_envs_from_the_live_view_the_page_draws(env, num_envs):
    # The crossing check compares this with the visitor's own NUM_ENVS: if the view's
    # wording changes and the client reads nothing, every click would count as a crossing.
    settings = BatchSettings(env, num_envs, "sync", 0)
    run = BatchRun(build_vector_env(settings), settings.seed)
    try:
        views = [markdown_html(call_body(call, settings)) for call in (run.reset(), run.step())]
    finally:
        run.envs.close()
    assert [observed_n([view_text(view)]) for view in views] == [num_envs, num_envs]
