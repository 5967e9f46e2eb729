"""The "DISABLED mode" page in AppTest: nothing answers the prediction before the learner locks
in or skips; then both captured errors, the check, the masked reset and the takeaways."""

from __future__ import annotations

import pandas as pd
import pytest
from page_apptest import open_app_page, prediction_checks, texts
from sentence_facts import quotes

from burgerbot.app.logic.disabled_mode import (
    OPTIONS,
    RAISES,
    disabled_demo,
    finished_by_hand_and_same_step,
)
from burgerbot.app.scripts.disabled_mode import disabled_fix_fragment

PAGE = "app_pages/disabled_mode.py"
PID = "disabled_mode_step_again"


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_app_page(PAGE, {"n": "4", "seed": "0"}, timeout=120)
    assert not app.exception, [e.value for e in app.exception]
    shown = "\n".join(texts(getattr(app, k)) for k in ("markdown", "caption", "code"))
    # The deciding fact: stepping again raises an AssertionError. Not on screen yet.
    assert "AssertionError" not in shown and not app.dataframe and not app.warning
    assert "reset_mask" in shown  # the intro may name the fix; not what goes wrong
    app.button(key=f"{PID}_skip").click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert "AssertionError" in texts(app.code) and app.dataframe
    assert "Key takeaways" in [s.value for s in app.header]
    # Section 3: the counts per env, by hand and in SAME_STEP, as the library counts them.
    counts = next(d.value for d in app.dataframe if "SAME_STEP" in d.value)
    pd.testing.assert_frame_equal(counts, finished_by_hand_and_same_step(4, 0))


@pytest.mark.parametrize("right", [True, False])
def test_disabled_demo_shows_the_captured_errors_and_the_fix(right):
    run = disabled_demo(4, 0)  # the library's own run of the demo for these settings
    assert run.end_step == 2 and run.ended == (3,) and run.stepped_before_error == (0, 1, 2)
    choice = RAISES if right else next(o for o in OPTIONS if o != RAISES)
    app = open_app_page(PAGE, {"n": "4", "seed": "0"}, timeout=120)
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    app.button(key=f"{PID}_lock").click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert prediction_checks(app) == [(choice, RAISES)]
    code = texts(app.code)
    # both vector envs raise on stepping the ended env 3 again; the page shows their errors
    assert run.sync_error.startswith("AssertionError") and run.sync_error in code
    assert run.native_error.startswith("AssertionError") and run.native_error in code
    # gymnasium's shows its internal flags (env 3's True), this project's names env [3]
    assert "_autoreset_envs" in run.sync_error and "[3]" in run.native_error
    assert disabled_fix_fragment() in code
    # envs 0, 1, 2 had taken their step-3 action before SyncVectorEnv raised
    assert quotes(texts(app.warning), 0, 1, 2, 3)
    table = next(d.value for d in app.dataframe if "in reset_mask" in d.value)
    assert table["in reset_mask"].tolist() == [False, False, False, True]
    assert table["obs returned by reset(reset_mask)"].iloc[3] == "[0, 0, 1, 1]"
    assert quotes(texts(app.success), run.end_step + 1, 3)  # step 3 worked; env 3 went back
    # The fix is shown as a labelled fragment of the whole DISABLED script beside it.
    fragment, script = [c.value for c in app.code if c.language == "python"]
    assert fragment.startswith("# Fragment of the DISABLED script below")
    assert fragment.split("\n", 1)[1] in script
