"""The SB3 page's scripts run from a file as a learner would; its sentences follow its runs.

Script tests marked ``sb3`` need stable-baselines3 (they skip without it, fail without it when
BURGERBOT_REQUIRE_SB3=1). The sentence tests feed made-up runs both ways and need nothing.
"""

from __future__ import annotations

import pandas as pd
import pytest
from sentence_facts import bold, code_spans, quotes
from shown_scripts import assert_script_behaves

from burgerbot.app.logic.sb3 import (
    ACCEPTS_OPTIONS,
    GYM_NEXT_STEP,
    GYM_SAME_STEP,
    SideBySide,
    accepts_explanation,
    accepts_truth,
    n_envs_sentence,
    n_steps_sentence,
    takeaways,
)
from burgerbot.app.script_runner import CapturedError, ScriptRun, printed
from burgerbot.app.scripts import expected_error
from burgerbot.app.scripts import sb3 as snippets


@pytest.fixture(autouse=True)
def one_torch_thread(monkeypatch):
    """Scripts run in subprocesses on a shared test machine, where torch's default threads spin
    against each other's (one PPO update: about 10 s on one thread, 100 s on two)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


def raised(kind: str, message: str = "no") -> ScriptRun:
    error = CapturedError(kind, message, "line 7 of the script", (), "<script>:7 in <module>")
    return ScriptRun(code="", output="", error=error)


def ran(output: str = "") -> ScriptRun:
    return ScriptRun(code="", output=output, error=None)


def fixed_output(n_envs: int, n_steps: int) -> str:
    return (
        f"env given to PPO: DummyVecEnv\nn_envs: {n_envs}\n"
        f"n_steps (step() calls per env per update): {n_steps}\n"
        f"rollout buffer: ({n_steps}, {n_envs}, 4)\n"
        f"transitions per update: {n_steps * n_envs}\n"
    )


# --- Sentences, fed both ways --------------------------------------------------------------------


def test_the_prediction_truth_follows_the_attempt_both_ways():
    assert accepts_truth(raised("ValueError")) == ACCEPTS_OPTIONS[1]
    assert accepts_truth(ran("ok")) == ACCEPTS_OPTIONS[0]
    refused = accepts_explanation(raised("ValueError"), "2.9.2")
    assert bold(refused) == ["ValueError"] and "never valid" in refused  # the verdict's kind
    accepted = accepts_explanation(ran(), "2.3.2")
    assert not bold(accepted) and quotes(accepted, 2.3)  # no error to stress; the version


def test_the_n_envs_sentence_follows_the_attempt_both_ways():
    assert "**TypeError**" in n_envs_sentence(raised("TypeError"))
    assert "accepted" in n_envs_sentence(ran())


def test_the_n_steps_sentence_follows_what_the_fix_printed():
    per_env = n_steps_sentence(printed(fixed_output(4, 2048)))
    assert quotes(per_env, 4, 8_192) and code_spans(per_env)[-1] == "n_steps=512"  # the fix
    as_lesson = n_steps_sentence(printed(fixed_output(4, 512)))
    assert quotes(as_lesson, 512, 4, 2_048) and "n_steps=512" in code_spans(as_lesson)
    assert "pass" not in as_lesson  # the lesson's numbers, as written: nothing to change
    assert not quotes(n_steps_sentence(printed(fixed_output(2, 1024))), 8_192)


def side(
    same: int,
    nxt: int,
    pairs: int = 120,
    first: tuple[int, int] | None = (3, 1),
    same_first: tuple[int, int] | None = None,
) -> SideBySide:
    return SideBySide(
        num_envs=4,
        steps=pairs // 4,
        seed=0,
        frame=pd.DataFrame(),
        with_sb3=True,
        episodes_ended=3,
        agree={GYM_SAME_STEP: same, GYM_NEXT_STEP: nxt},
        first_difference={GYM_SAME_STEP: same_first, GYM_NEXT_STEP: first},
    )


def test_takeaways_follow_the_runs():
    without = takeaways(None, None, None)
    assert len(without) == 2 and any("not installed" in b for b in without)
    calls = {
        "n_envs": raised("TypeError"),
        "gymnasium_vector": raised("ValueError"),
        "fixed": ran(fixed_output(4, 2048)),
    }
    live = takeaways(calls, side(120, 90), "2.9.2")
    assert len(live) == 4
    said = live[1]  # what this SB3 did with the lesson's two calls, in order
    assert quotes(said, 2.9) and said.index("TypeError") < said.index("ValueError")
    assert quotes(live[2], 4, 2048, 8_192)  # envs x n_steps = transitions per update
    resets = next(b for b in live if "SAME_STEP" in b or "NEXT_STEP" in b)
    assert "SAME_STEP" in resets and quotes(resets, 120, 120)  # the mode SB3 matched
    flipped = takeaways({**calls, "gymnasium_vector": ran()}, side(10, 100), "9.9")
    assert "ValueError" not in flipped[1]
    resets = next(b for b in flipped if "SAME_STEP" in b or "NEXT_STEP" in b)
    assert "NEXT_STEP" in resets and quotes(resets, 100, 120)


# --- Scripts, from a file ------------------------------------------------------------------------


def test_the_lessons_calls_say_on_their_first_line_that_they_fail():
    assert expected_error(snippets.n_envs_wrong(4)) == "TypeError"
    assert expected_error(snippets.gymnasium_vector_wrong(4)) == snippets.GYMNASIUM_VECTOR_ERROR
    assert expected_error(snippets.ppo_fixed(4)) is None
    guarded = snippets.make_vec_env_script(4)
    body = guarded.split('if __name__ == "__main__":', 1)[1]
    assert "make_vec_env(burgerbot_factory(), n_envs=4, vec_env_cls=SubprocVecEnv)" in body


@pytest.mark.sb3
def test_the_lessons_calls_fail_from_a_file_with_the_error_they_name(sb3, tmp_path):
    assert_script_behaves(snippets.n_envs_wrong(4), tmp_path / "n_envs")
    assert_script_behaves(snippets.gymnasium_vector_wrong(4), tmp_path / "vector")
    out = assert_script_behaves(snippets.ppo_fixed(4), tmp_path / "fixed")
    assert "n_envs: 4\n" in out and "rollout buffer: (2048, 4, 4)\n" in out


@pytest.mark.sb3
def test_the_make_vec_env_script_runs_from_a_file(sb3, tmp_path):
    out = assert_script_behaves(snippets.make_vec_env_script(4), tmp_path)
    assert out.strip() == "DummyVecEnv with 4 envs; PPO sees 4"


@pytest.mark.sb3
@pytest.mark.slow
def test_its_subprocvecenv_line_runs_from_a_file_thanks_to_the_guard(sb3, tmp_path):
    code = snippets.make_vec_env_script(2, subprocess=True)
    assert (
        "    vec_env = make_vec_env(burgerbot_factory(), n_envs=2, vec_env_cls=SubprocVecEnv)"
        in code
    )
    out = assert_script_behaves(code, tmp_path)
    assert out.strip() == "SubprocVecEnv with 2 envs; PPO sees 2"
