"""More mistakes (issue 37): what the page tells the learner holds at every N and mistake its
widgets and URL allow. The verdicts and the reference's sentences are checked against the
environments stepped here and the arrays they return; the Async mistake's sentences (the same
at every N, run as files) against worker counts drawn over every outcome, not by the helpers
that wrote them."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
from gymnasium.vector import SyncVectorEnv
from gymnasium.vector.utils import batch_space
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sentence_facts import bold, code_spans, numbers, quotes
from spec_strategies import settings_of

from burgerbot import BurgerBotEnv
from burgerbot.app.logic import more_mistakes as mm
from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.scripts import expected_error
from burgerbot.factories import burgerbot_factory
from burgerbot.wrappers import BurgerBotDictObservation

N, MISTAKE = mm.SPECS
RUN = settings(max_examples=30, deadline=None)


def stacked(make, n: int) -> np.ndarray | dict:
    """N copies' first observations stacked along a new first axis, by hand."""
    firsts = [make().reset(seed=i)[0] for i in range(n)]
    if isinstance(firsts[0], dict):
        return {key: np.stack([obs[key] for obs in firsts]) for key in firsts[0]}
    return np.stack([np.asarray(obs) for obs in firsts])


def actions_truth(n: int) -> str:
    """Step N BurgerBots with actions of shape (N, 1) here: which option happened."""
    envs = SyncVectorEnv([burgerbot_factory() for _ in range(n)])
    envs.reset(seed=0)
    try:
        envs.step(np.zeros((n, 1), dtype=np.int64))
    except Exception as error:  # the error is what is measured
        return mm.ACTION_OPTIONS[1 if re.search(r"shape", str(error), re.I) else 2]
    finally:
        envs.close()
    return mm.ACTION_OPTIONS[0]


@RUN
@given(setting=settings_of(mm.SPECS))
@example(setting={"n": N.default, "mistake": MISTAKE.default})
@example(setting={"n": N.low, "mistake": "final_obs"})  # "1 robots" (now "1 robot")
@example(setting={"n": N.high, "mistake": "defaults"})
def test_the_verdict_the_takeaways_and_the_reference_follow_the_envs_arrays(setting):
    n = setting["n"]
    wrong = mm.action_shape_mistake(n).runs["wrong"]
    truth = actions_truth(n)
    assert mm.actions_outcome(wrong) == truth
    assert f"(here: {truth.lower()})" in mm.takeaways(wrong)[0]
    assert "fits envs.action_space: False" in wrong.output
    assert not batch_space(gym.spaces.Discrete(4), n).contains(np.zeros((n, 1), dtype=np.int64))
    if wrong.error is not None:  # "row i ... to env i, which fails inside": one env fails so
        try:
            BurgerBotEnv().step(np.zeros(1, dtype=np.int64))
        except Exception as error:
            assert (type(error).__name__, str(error)) == (wrong.error.type, wrong.error.message)
        assert wrong.error.headline in mm.actions_explanation(wrong)
    if setting["mistake"] in mm.SYNC_MISTAKES:  # each ❌ stops with the error it names
        for run in mm.SYNC_MISTAKES[setting["mistake"]](n).runs.values():
            assert (run.error and run.error.type) == expected_error(run.code), run.code

    rows = mm.spaces_table(n)
    robots, other = mm.spaces_bullets(rows, n)[:2]
    bot, pole = stacked(burgerbot_factory(), n), stacked(lambda: gym.make("CartPole-v1"), n)
    lake = stacked(lambda: gym.make("FrozenLake-v1"), n)
    as_dict = stacked(BurgerBotDictObservation, n)
    assert code_spans(robots)[0] == str(bot.shape) and numbers(robots)[2] == n
    assert f"{n} robot{'s' * (n != 1)} " in robots
    batched = batch_space(BurgerBotEnv().observation_space, n)
    assert bold(robots)[-1] == f"`{type(batched).__name__}`"
    assert code_spans(other)[:3] == [str(pole.shape), str(pole.dtype), str(bot.dtype)]
    assert ("as well" in other) == (pole.shape == bot.shape)
    assert str(lake.shape) in code_spans(other)
    assert all(f"`{key}` → `{value.shape}`" in other for key, value in as_dict.items())
    text = mm.spaces_bullets(rows, n)[2]  # rewards: shape and dtypes, by vector env
    dtypes = {r.reward_dtype for r in rows}
    assert {r.reward_shape for r in rows} == {(n,)} and code_spans(text)[0] == f"{(n,)}"
    assert ("every vector env" in text) == (len(dtypes) == 1) != ("depends" in text)
    for r in rows:  # each vector env is named after the dtype it gave
        assert re.search(rf"`{r.reward_dtype}` from [^;.]*`{r.vector_env}`", text) or (
            len(dtypes) == 1 and r.reward_dtype in code_spans(text)
        ), (r, text)


PIDS = st.lists(st.integers(100, 110), max_size=mm.ASYNC_NUM_ENVS, unique=True)
LEFT = st.one_of(st.none(), PIDS)  # None: no /proc to count them
NONE_LEFT = {key: [] for key in mm.ASYNC_SCRIPTS}


@RUN
@given(
    kept=PIDS,
    closed=PIDS,
    left=st.fixed_dictionaries({key: LEFT for key in mm.ASYNC_SCRIPTS}),
    fixed_kept=PIDS,
    daemon=st.booleans(),
    has_del=st.booleans(),
)
@example(kept=[100, 101], closed=[], left=NONE_LEFT, fixed_kept=[], daemon=True, has_del=True)
@example(
    kept=[], closed=[], left={**NONE_LEFT, "wrong": [100]}, fixed_kept=[101], daemon=False,
    has_del=False,
)  # fmt: skip
@example(  # found: "none is left however the code runs" though a ✅ file run left one
    kept=[], closed=[], left={**NONE_LEFT, "fixed_finally": [101]}, fixed_kept=[], daemon=True,
    has_del=False,
)  # fmt: skip
def test_the_async_sentences_follow_the_worker_counts(
    kept, closed, left, fixed_kept, daemon, has_del
):
    started = mm.ASYNC_NUM_ENVS
    pids = list(range(100, 100 + started))
    runs = {key: ScriptRun("", "", None, {"left_after_exit": left[key]}) for key in left}
    runs["wrong"].values.update(
        worker_pids=pids, daemon=[daemon] * started, alive_after_script=kept,
        alive_after_close=closed,
    )  # fmt: skip
    runs["fixed_finally"].values["alive_after_script"] = fixed_kept
    runs["fixed_closing"].values["alive_after_script"] = []
    on_exit, going_on, fixes = mm.leak_sentences(runs, {"async_has_del": has_del})
    counts = [left[key] for key in mm.ASYNC_SCRIPTS]  # wrong, the two fixed, with
    leaked = None if None in counts else sum(map(len, counts))
    assert ("could not" in on_exit) == (leaked is None)
    if leaked:
        assert quotes(on_exit, leaked) and f"process{'es' * (leaked != 1)} outlived" in on_exit
    assert ("daemon" in on_exit) == (leaked == 0 and daemon)
    assert quotes(going_on, started) and (not kept or quotes(going_on, len(kept), len(closed)))
    assert ("__del__" in going_on) == (bool(kept) and has_del)
    if fixed_kept:
        assert quotes(fixes, len(fixed_kept)), fixes
        assert f"worker{'s' * (len(fixed_kept) != 1)} running" in fixes
    else:  # "none is left however the code runs": none in-process, none after the file runs
        fixed_files = [left["fixed_finally"], left["fixed_closing"]]
        assert ("however the code runs" in fixes) == (fixed_files == [[], []]), fixes
    frame = mm.workers_frame(runs)
    expected = ["could not be read" if c is None else str(len(c)) for c in counts[:3]]
    assert frame.iloc[:, 2].tolist() == expected
    assert frame.iloc[:, 3].tolist() == [str(len(kept)), str(len(fixed_kept)), "0"]
