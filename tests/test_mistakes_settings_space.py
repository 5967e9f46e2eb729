"""Common mistakes (issue 37): what the page tells the learner holds at every N its slider and
URL allow, checked against what the scripts' pieces do when run here, not against the helpers
that wrote the verdict and the takeaways."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from hypothesis import example, given, settings
from spec_strategies import settings_of

from burgerbot import BurgerBotEnv
from burgerbot.app.logic.mistakes import (
    FACTORY_OPTIONS,
    SPECS,
    factory_explanation,
    factory_outcome,
    lesson_runs,
    takeaways,
)

(N,) = SPECS
RESET = "obs, infos = envs.reset("


def error_of(code: str) -> str | None:
    """The type of the error ``code`` raises, run here with plain ``exec`` (or None)."""
    try:
        exec(compile(code, "<script>", "exec"), {"__name__": "__main__"})
    except Exception as error:  # the error itself is what is measured
        return type(error).__name__
    return None


def factory_truth(code: str) -> str:
    """Which option is true: run the script cut before its first reset, then whole."""
    if (built := error_of(code[: code.index(RESET)])) is not None:
        return f"{built} when SyncVectorEnv is built"
    if (reset := error_of(code)) is not None:
        return f"{reset} at the first envs.reset()"
    return FACTORY_OPTIONS[0]


@settings(max_examples=30, deadline=None)
@given(setting=settings_of(SPECS))
@example(setting={"n": N.default})
@example(setting={"n": N.low})
@example(setting={"n": N.high})
def test_the_verdict_and_takeaways_follow_the_scripts_at_every_n(setting):
    n = setting["n"]
    runs = lesson_runs(n)
    factory, scalar = runs["factory"], runs["scalar"]
    truth = factory_truth(factory["wrong"].code)
    assert factory_outcome(factory["wrong"]) == truth
    assert truth in FACTORY_OPTIONS  # the prediction offered the true answer
    # "make_env needs its seed": the error says so; no error, no explanation of one
    explained = factory_explanation(factory["wrong"])
    assert ("`seed`" in explained) == (factory["wrong"].error is not None)
    if factory["wrong"].error is not None:
        assert "seed" in factory["wrong"].error.message
    # the fix ran, and printed N first, then one env's observation
    one_obs = BurgerBotEnv().observation_space.shape
    assert factory["fixed"].error is None
    assert factory["fixed"].values["obs.shape"] == (n, *one_obs)
    assert f"obs shape: {(n, *one_obs)}" in factory["fixed"].output
    # a scalar observation stacks to (N,), where obs[:, 0] raises
    assert gym.make("FrozenLake-v1").observation_space.shape == ()
    assert scalar["wrong"].values["obs.shape"] == (n,)
    indexing = error_of(f"import numpy as np\nnp.zeros({n}, dtype=np.int64)[:, 0]")
    assert scalar["wrong"].error.type == indexing
    assert scalar["fixed"].error is None and scalar["fixed"].values["cells.shape"] == (n,)
    assert np.zeros(n).reshape(n, 1).shape == scalar["fixed"].values["obs.shape"]
    bullets = takeaways(runs)
    assert (f"(here: {truth})" in bullets[0]) == (factory["wrong"].error is not None), bullets
    assert f"raised {indexing}" in bullets[1], bullets
