"""The More mistakes page's sentences follow the data they come from, whichever way it goes."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from sentence_facts import bold, code_spans, quotes

from burgerbot.app.logic import more_mistakes as s
from burgerbot.app.logic.more_mistakes import SpaceRow, spaces_table
from burgerbot.app.script_runner import CapturedError, ScriptRun

N = 4


def row(env: str, vector_env: str = "SyncVectorEnv", **changes) -> SpaceRow:
    base = SpaceRow(
        env=env,
        vector_env=vector_env,
        single_observation_space="MultiDiscrete([7 7 4 3])",
        batched_observation_space="Box(shape=(4, 4), dtype=int64)",
        batched_observation_repr="...",
        space_kinds="MultiDiscrete → Box",
        obs_shape=(N, 4),
        obs_dtype="int64",
        reward_shape=(N,),
        reward_dtype="float64",
        terminated_dtype="bool",
        truncated_dtype="bool",
        single_action_space="Discrete(4)",
        batched_action_space="MultiDiscrete([4 4 4 4])",
        action_shape=(N,),
        spaces_agree=True,
    )
    return replace(base, **changes)


def rows(**overrides) -> list[SpaceRow]:
    """A table like the page's; ``overrides`` maps "env|vector env" to changed fields."""
    table = [
        row("BurgerBot"),
        row("CartPole-v1", space_kinds="Box → Box", obs_dtype="float32"),
        row("FrozenLake-v1", obs_shape=(N,), space_kinds="Discrete → MultiDiscrete"),
        row("BurgerBot, Dict observation", obs_shape={"cell": (N, 2)}, space_kinds="Dict → Dict"),
        row("CartPole-v1", "CartPoleVectorEnv", obs_dtype="float32"),
        row("BurgerBot", "BurgerBotVectorEnv"),
    ]
    for key, changes in overrides.items():
        env, vector_env = key.split("|")
        table = [
            replace(r, **changes) if (r.env, r.vector_env) == (env, vector_env) else r
            for r in table
        ]
    return table


def dtype_sources(text: str) -> dict[str, list[str]]:
    """Which vector envs the rewards sentence says gave each dtype."""
    groups = re.findall(r"`(float\d+)` from ((?:`\w+`(?:, )?)+)", text)
    return {dtype: code_spans(envs) for dtype, envs in groups}


def test_the_rewards_sentence_follows_the_dtypes_both_ways():
    same = s.rewards_sentence(rows())
    assert code_spans(same) == [f"{(N,)}", "float64"] and dtype_sources(same) == {}
    assert "every vector env" in same and "depends" not in same
    mixed = s.rewards_sentence(
        rows(**{"CartPole-v1|CartPoleVectorEnv": {"reward_dtype": "float32"}})
    )
    assert "depends" in mixed and "every vector env" not in mixed
    assert dtype_sources(mixed) == {
        "float32": ["CartPoleVectorEnv"],
        "float64": ["SyncVectorEnv", "BurgerBotVectorEnv"],
    }


def test_the_live_table_says_the_batched_cartpole_differs():
    live = spaces_table(2)
    text = " ".join(s.spaces_bullets(live, 2))
    by_env = {(r.env, r.vector_env): r.reward_dtype for r in live}
    # the installed CartPoleVectorEnv returns float32 rewards, every other vector env float64
    assert len(set(by_env.values())) > 1, by_env
    assert "depends" in text
    assert f"`{by_env[('CartPole-v1', 'CartPoleVectorEnv')]}` from" in text


def test_the_actions_predictions_truth_is_what_the_script_did():
    def run_with(error):
        return ScriptRun("", "", error)

    no_shape = CapturedError("TypeError", "only 0-dimensional arrays", "", (), "")
    shape = CapturedError("ValueError", "`actions` must have shape (4,)", "", (), "")
    assert s.actions_outcome(run_with(no_shape)) == "An error that does not mention a shape"
    assert s.actions_outcome(run_with(shape)) == "An error that names the shape"
    assert s.actions_outcome(run_with(None)) == "It steps normally"
    assert "only 0-dimensional" in s.actions_explanation(run_with(no_shape))
    assert "without complaint" in s.actions_explanation(run_with(None))


@pytest.mark.parametrize("n", [1, 4, 64])
def test_the_live_actions_mistake_is_one_of_the_options(n):
    outcome = s.actions_outcome(s.action_shape_mistake(n).runs["wrong"])
    assert outcome == "An error that does not mention a shape"  # gymnasium 1.4, BurgerBot


def test_takeaways_say_what_the_actions_did_when_they_ran():
    error = CapturedError("TypeError", "only 0-dimensional arrays", "", (), "")
    bullets = s.takeaways(ScriptRun("", "", error))
    assert 3 <= len(bullets) <= 5
    assert "(here: an error that does not mention a shape)" in bullets[0]
    assert "here:" not in s.takeaways(None)[0]  # the script could not run: no claim


def test_bullets_follow_shapes_kinds_and_agreement():
    bullets = s.spaces_bullets(rows(), N)
    assert bold(bullets[0]) == ["BurgerBot", "`Box`"] and "not a bigger" in bullets[0]
    assert "as well" in bullets[1] and "`float32`" in bullets[1]
    assert bullets[-1].endswith("agree on every row.")
    changed = rows(
        **{
            "BurgerBot|SyncVectorEnv": {"space_kinds": "MultiDiscrete → MultiDiscrete"},
            "CartPole-v1|SyncVectorEnv": {"obs_shape": (N, 5)},
            "FrozenLake-v1|SyncVectorEnv": {"spaces_agree": False},
        }
    )
    bullets = s.spaces_bullets(changed, N)
    assert "not a bigger" not in bullets[0]
    assert "as well" not in bullets[1] and f"`{(N, 5)}`" in bullets[1]
    assert "**disagree**" in bullets[-1]


def test_shape_helpers():
    shape_error = CapturedError("ValueError", "must have shape (4,)", "", (), "")
    other = CapturedError("TypeError", "only 0-dimensional arrays", "", (), "")
    assert s.shape_mentioned([other, None, shape_error])
    assert not s.shape_mentioned([other, None])


# --- The left-open Async mistake's worker sentences -------------------------------------


def run(**values) -> ScriptRun:
    return ScriptRun("code", "", None, values)


def demo_runs(kept=(11, 12), after_exit=(), fixed_kept=(), daemon=True):
    inside = {"worker_pids": [11, 12], "daemon": [daemon, daemon]}
    return {
        "wrong": run(**inside, alive_after_script=list(kept), left_after_exit=list(after_exit)),
        "fixed_finally": run(alive_after_script=list(fixed_kept), left_after_exit=[]),
        "fixed_closing": run(alive_after_script=[], left_after_exit=[]),
        "with": run(left_after_exit=[]),
    }


def test_leak_sentences_follow_the_counts_both_ways():
    usual = s.leak_sentences(demo_runs(), {"async_has_del": True})
    # the one wording check of the file-run sentence
    assert "no script left a worker behind" in usual[0] and "daemon" in usual[0]
    # kept 2 of its 2 workers, 0 left after the page closed them
    assert quotes(usual[1], 2, 0) and "AsyncVectorEnv.__del__" in code_spans(usual[1])
    assert "__del__" not in s.leak_sentences(demo_runs(), {"async_has_del": False})[1]
    assert "✅" in usual[2] and "none is left" in usual[2] and not quotes(usual[2], 1)
    odd = s.leak_sentences(demo_runs(kept=(), after_exit=(11,), fixed_kept=(13,), daemon=False))
    assert quotes(odd[0], 1) and "outlived" in odd[0] and "daemon" not in odd[0]
    assert "none of its" in odd[1] and quotes(odd[1], 2)
    assert "still" in odd[2] and quotes(odd[2], 1)
    unknown = demo_runs()
    unknown["with"] = run(left_after_exit=None)
    assert "could not" in s.leak_sentences(unknown)[0] and "/proc" in s.leak_sentences(unknown)[0]


def test_workers_frame_counts_each_way():
    frame = s.workers_frame(demo_runs(kept=(11,), after_exit=(11, 12)))
    assert frame.iloc[0].tolist()[2:] == ["2", "1"]
    assert frame.iloc[1].tolist()[2:] == ["0", "0"]
    assert len(frame) == 3
