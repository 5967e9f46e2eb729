"""Auto-reset: the prediction (what the ending call and the next call return in NEXT_STEP),
checked against live runs; the exercise's hidden answer; the key takeaways."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from page_apptest import (
    open_app_page,
    open_expanders,
    prediction_checks,
    prediction_score,
    texts,
)
from shown_scripts import assert_script_behaves

from burgerbot.app.logic.autoreset import (
    ENDS_AS_IN_NEXT_STEP,
    ENDS_AS_IN_THE_LESSON,
    ENDS_WITH_A_HIDDEN_RESET,
    OPTIONS,
    SPECS,
    START_OBS,
    ending_calls,
    mode_of,
    prediction_explanation,
    question,
)
from burgerbot.experiments import rollout
from burgerbot.factories import burgerbot_factory

PAGE = "app_pages/autoreset.py"
PID = "autoreset_next_step"
DEFAULTS = {spec.key: spec.default for spec in SPECS}


@pytest.mark.parametrize(
    ("mode", "truth"),
    [
        ("NEXT_STEP", ENDS_AS_IN_NEXT_STEP),
        ("SAME_STEP", ENDS_AS_IN_THE_LESSON),
        ("DISABLED", ENDS_WITH_A_HIDDEN_RESET),
    ],
)
def test_each_mode_gives_its_own_answer(mode, truth):
    calls = ending_calls(rollout("native", 3, 60, 4, mode_of(mode)))
    assert calls.truth == truth and calls.ends > 0
    assert calls.by_option[truth] == calls.ends


def test_the_answer_counts_only_ends_with_a_call_after_them():
    frame = rollout("native", 2, 60, 0)
    ends = frame[frame["terminated"] | frame["truncated"]]
    assert ending_calls(frame).ends == int((ends["step"] < 60).sum())
    last_only = frame[frame["step"] <= int(ends["step"].min())]
    assert ending_calls(last_only).truth is None and ending_calls(last_only).ends == 0
    assert ending_calls(frame.iloc[0:0]).truth is None


def test_ends_that_disagree_give_no_answer():
    frame = rollout("native", 2, 60, 0)
    ended = (frame["terminated"] | frame["truncated"]).to_numpy()
    first = int(np.flatnonzero(ended[:-2])[0])
    broken = frame.copy()
    broken.loc[first + 2, "reward"] = -0.1  # that end's next call now looks like a real step
    calls = ending_calls(broken)
    assert calls.truth is None
    assert calls.by_option[ENDS_WITH_A_HIDDEN_RESET] == 1
    text = prediction_explanation(calls, "NEXT_STEP")
    assert "did not all look alike" in text and "**NEXT_STEP** restarts" not in text


def test_the_explanation_follows_the_run():
    run = rollout("native", 4, 40, 0)
    calls = ending_calls(run)
    ended = int((run["terminated"] | run["truncated"]).sum())
    # The count and "episodes ended" say the same thing: the ends on the last call are told apart.
    assert calls.unfollowed == 1 and calls.ends == ended - 1
    text = prediction_explanation(calls, "NEXT_STEP")
    assert text.startswith(f"All {calls.ends} episode ends in the timeline's run looked so; 1 ")
    assert "**NEXT_STEP** restarts a robot on the call after" in text
    other = prediction_explanation(calls, "SAME_STEP")
    assert "a NEXT_STEP run of these settings" in other
    followed = ending_calls(rollout("native", 4, 30, 2))
    assert followed.unfollowed == 0 and "last call" not in prediction_explanation(
        followed, "NEXT_STEP"
    )
    nothing = prediction_explanation(ending_calls(rollout("native", 1, 1, 0)), "NEXT_STEP")
    assert nothing.startswith("No episode ended")


def test_a_run_with_no_end_to_look_at_is_not_scored():
    app = open_app_page(PAGE, {"n": "1", "steps": "1"}, timeout=300, expanders=True)
    app = lock_in(app, ENDS_AS_IN_NEXT_STEP)
    assert prediction_checks(app) == []
    assert "could not decide" in texts(app.info)
    assert prediction_score(app) == (1, 0, 0)


def test_the_question_names_the_default_only_when_it_is():
    assert "(your gymnasium's default)" in question("NEXT_STEP")
    assert "default" not in question("SAME_STEP")


def truth_from_gymnasium(num_envs: int, steps: int, seed: int) -> str:
    """What a NEXT_STEP SyncVectorEnv returns around each episode end, stepped here directly."""
    envs = gym.vector.SyncVectorEnv(
        [burgerbot_factory() for _ in range(num_envs)], autoreset_mode=AutoresetMode.NEXT_STEP
    )
    actions = np.random.default_rng(seed).integers(0, 4, size=(steps, num_envs))
    envs.reset(seed=seed)
    results = [envs.step(a)[:4] for a in actions]
    envs.close()
    start = np.asarray(START_OBS)
    patterns = set()
    for (obs, rew, term, trunc), (obs2, rew2, term2, trunc2) in itertools.pairwise(results):
        for i in np.flatnonzero(term | trunc):
            final_on_end = not np.array_equal(obs[i], start) and rew[i] != 0.0
            reset_next = np.array_equal(obs2[i], start) and rew2[i] == 0.0
            reset_next = reset_next and not (term2[i] or trunc2[i])
            patterns.add((final_on_end, reset_next))
    assert patterns == {(True, True)}, patterns
    return ENDS_AS_IN_NEXT_STEP


@pytest.fixture(scope="module")
def truth() -> str:
    """For the page's default settings (the tests open it without a query)."""
    return truth_from_gymnasium(DEFAULTS["n"], DEFAULTS["steps"], DEFAULTS["seed"])


def lock_in(app, choice: str):
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    app.button(key=f"{PID}_lock").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_a_right_prediction_is_confirmed_by_the_live_run(truth):
    app = lock_in(open_app_page(PAGE, None, timeout=300, expanders=True), truth)
    assert prediction_checks(app) == [(truth, truth)]
    assert "**NEXT_STEP** restarts a robot on the call after" in texts(app.success)
    assert prediction_score(app) == (1, 1, 1)


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_a_wrong_prediction_is_corrected_in_any_mode(truth, mode):
    wrong = next(option for option in OPTIONS if option != truth)
    app = lock_in(open_app_page(PAGE, {"mode": mode}, timeout=300, expanders=True), wrong)
    warning = texts(app.warning)
    assert prediction_checks(app) == [(wrong, truth)]
    assert ("a NEXT_STEP run of these settings" in warning) == (mode != "NEXT_STEP")
    assert prediction_score(app) == (1, 0, 1)


def skipped(app):
    """The learner clicks "Skip, show me": the live results appear."""
    app.button(key=f"{PID}_skip").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return open_expanders(app)


def test_the_prediction_comes_before_the_reveal():
    app = open_app_page(PAGE, None, timeout=300, expanders=True)
    main = [str(getattr(e, "value", "")) for e in app.main]
    assert any("Predict first" in m for m in main)
    assert not any(m.startswith("Every step") for m in main)  # not before the reveal
    main = [str(getattr(e, "value", "")) for e in skipped(app).main]
    question_at = next(i for i, m in enumerate(main) if "Predict first" in m)
    timeline_at = next(i for i, m in enumerate(main) if m.startswith("Every step"))
    assert question_at < timeline_at


def test_the_final_observations_script_is_the_pages_run_and_runs_from_a_file(tmp_path):
    app = skipped(open_app_page(PAGE, {"n": "3", "steps": "30", "seed": "5"}, timeout=300))
    (script,) = [c.value for c in app.code if "final observations" in c.value]
    assert "NUM_ENVS = 3" in script and "STEPS = 30" in script and "SEED = 5" in script
    out = assert_script_behaves(script, tmp_path / "script")
    table = next(d.value for d in app.dataframe if "final obs is in" in d.value)
    assert out.splitlines()[0] == f"{len(table)} final observations"


def test_the_page_ends_with_takeaways_from_the_live_run():
    app = skipped(open_app_page(PAGE, None, timeout=300))
    assert app.header[-1].value == "Key takeaways"
    takeaways = app.main.markdown[-1].value  # the page's last call
    lines = takeaways.splitlines()
    assert 3 <= len(lines) <= 5 and all(line.startswith("- ") for line in lines)
    assert lines[1].startswith("- NEXT_STEP (the default): the ending call returns the **final**")
    assert 'not `infos["final_observation"]`' in takeaways
    assert "DISABLED" not in takeaways  # its own page has it
