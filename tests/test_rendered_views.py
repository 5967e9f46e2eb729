"""The views drawn as HTML in the browser (Batch shapes' live view, Auto-reset's stepper) hold
no Markdown left unrendered, for every call of a run, in every env and auto-reset mode the
pages offer.

Batch shapes steps with gymnasium's default auto-reset mode (NEXT_STEP) only; Auto-reset
offers all three modes. The first 40 calls of a run pass through episode ends in each.
"""

from __future__ import annotations

import pytest
from page_apptest import (
    component_texts,
    open_app_page,
    skip_predictions,
    stepper_request,
    unrendered_markdown,
)

from burgerbot.app.logic.autoreset import PAGE_MODES
from burgerbot.app.logic.batch_shapes import ENV_NAMES

CALLS = 40


def assert_rendered(texts: list[str], where: str) -> None:
    assert texts, f"no view handed to the browser on {where}"
    for text in texts:
        left = unrendered_markdown(text)
        assert not left, f"{where}: unrendered Markdown {left} in\n{text[:3000]}"


@pytest.mark.parametrize("env", ENV_NAMES)
def test_every_call_of_a_batch_shapes_run_is_rendered(env):
    app = open_app_page("app_pages/batch_shapes.py", {"env": env}, timeout=120)
    skip_predictions(app)  # the live view waits for the questions to be answered or skipped
    try:
        assert_rendered(component_texts(app), f"{env}, the reset")
        for call in range(1, CALLS + 1):
            # A step past the calls the stepper holds: it hands over the next stretch.
            stepper_request(app, "batch_shapes_live", "go", target=call)
            assert_rendered(component_texts(app), f"{env}, step {call}")
        run = app.session_state["_batch_shapes_env_slot"].state["run"]
        assert run.steps == CALLS
        ended = [
            c
            for c in run.history
            if c.terminated is not None and (c.terminated | c.truncated).any()
        ]
        if env != "CartPole-v1":  # 40 random CartPole steps may all stay up
            assert ended, "no episode ended: the run did not show an auto-reset"
    finally:
        app.session_state["_batch_shapes_env_slot"].close()


@pytest.mark.parametrize("mode", PAGE_MODES)
def test_every_call_of_the_autoreset_stepper_is_rendered(mode):
    app = open_app_page("app_pages/autoreset.py", {"mode": mode, "steps": str(CALLS)}, timeout=120)
    app.button(key="autoreset_next_step_skip").click().run()  # the run shows after the reveal
    views = component_texts(app)
    assert sum(text.count("Latest call:") for text in views) >= CALLS + 1
    assert any("episode ends" in text for text in views)
    assert_rendered(views, f"Auto-reset, {mode}")
