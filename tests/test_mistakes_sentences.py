"""The Common mistakes page's verdict and takeaways follow the runs they are computed from."""

from __future__ import annotations

import pytest

from burgerbot.app.logic import mistakes as s
from burgerbot.app.script_runner import CapturedError, ScriptRun

FACTORY_CODE = "envs = SyncVectorEnv([make_env for _ in range(N)])\nobs, infos = envs.reset()\n"


def raised(kind: str, line: int | None) -> CapturedError:
    path = (f"script line {line}",) if line else ()
    return CapturedError(
        kind, "make_env() missing 1 required positional argument: 'seed'", "", path, ""
    )


@pytest.mark.parametrize(
    ("error", "truth"),
    [
        (raised("TypeError", 1), "TypeError when SyncVectorEnv is built"),
        (raised("TypeError", 2), "TypeError at the first envs.reset()"),
        (raised("AttributeError", 1), "AttributeError when SyncVectorEnv is built"),
        (None, "It works"),
    ],
)
def test_the_factory_predictions_truth_is_where_the_script_raised(error, truth):
    run = ScriptRun(FACTORY_CODE, "", error)
    assert s.factory_outcome(run) == truth
    explanation = s.factory_explanation(run)
    assert ("needs its `seed`" in explanation) == (error is not None)
    assert ("without an error" in explanation) == (error is None)


def test_the_live_factory_mistake_is_one_of_the_options():
    assert s.factory_outcome(s.lesson_issue("factory", 2)["wrong"]) in s.FACTORY_OPTIONS


def test_takeaways_name_the_errors_the_lesson_scripts_raised():
    def demo(kind: str | None, line: int = 1) -> dict[str, ScriptRun]:
        error = raised(kind, line) if kind else None
        return {"wrong": ScriptRun(FACTORY_CODE, "", error)}

    bullets = s.takeaways({"factory": demo("TypeError"), "scalar": demo("IndexError")})
    assert 3 <= len(bullets) <= 5
    assert "(here: TypeError when SyncVectorEnv is built)" in bullets[0]
    assert "raised IndexError" in bullets[1]
    other = s.takeaways({"factory": demo("AttributeError", 2), "scalar": demo(None)})
    assert "(here: AttributeError at the first envs.reset())" in other[0]
    assert "raised" not in other[1] and "fails" in other[1]
    # the scripts could not run: no claim
    assert "here:" not in s.takeaways({})[0] and "raised" not in s.takeaways({})[1]
