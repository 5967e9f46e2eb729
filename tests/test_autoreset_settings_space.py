"""Auto-reset (issue 37): what the page tells the learner about its run holds at every setting its
widgets and URL allow, checked against the run's raw rows and the drawn timeline. The runs are
the native env's: the page checks that Sync gives the very same run (test_autoreset_page.py)."""

from __future__ import annotations

import ast
from dataclasses import replace

import numpy as np
from hypothesis import example, given, settings
from sentence_facts import numbers, quotes
from spec_strategies import ends_of, settings_of

from burgerbot.app.logic.autoreset import (
    ENDS_AS_IN_NEXT_STEP,
    MAX_STEPPER_ENVS,
    SPECS,
    STEPPER_MAX_ROWS,
    call_markdown,
    default_autoreset_mode,
    ending_calls,
    prediction_explanation,
    resolve_settings,
    run_page_rollout,
    same_step_end_keys,
    stepper_calls,
    stepper_end,
    takeaway_bullets,
    timeline_cells,
)
from burgerbot.app.scripts.autoreset import final_obs_script

DEFAULT_MODE, SAME_STEP_KEYS = default_autoreset_mode(), same_step_end_keys()
BASE = next(ends_of(SPECS))
FINDINGS = [
    BASE | {"n": 1},  # the stepper's reset: "all 1 robots at the start"
    BASE | {"n": 17},  # "1 more envs are in the timeline above"
    BASE | {"n": 64, "steps": 2000},  # "column 100 of the timeline", which draws 75
    BASE | {"n": 2, "steps": 10, "seed": 1},  # "All 1 episode end in the timeline looked so"
    BASE | {"n": 5, "mode": "SAME_STEP", "steps": 60},  # "final observation of env 0, 3"
]


def with_examples(test):
    for values in [*FINDINGS, *ends_of(SPECS)]:
        test = example(values=values)(test)
    return test


def check_stepper(run, mode: str, n: int, steps: int, drawn: set[int]) -> None:
    """Each call's summary and the stepper's last words against the rows and the drawn steps."""
    flags = (run["terminated"] | run["truncated"]).to_numpy().reshape(steps, n)
    resets = (run["event"] == "reset").to_numpy().reshape(steps, n)
    start = call_markdown(run, 0, mode, n, steps).split("\n\n")[1]
    assert ("robots" in start) == (n > 1) and (n == 1 or quotes(start, n)), start
    ended_at = np.flatnonzero(flags.any(axis=1)) + 1
    calls = stepper_calls(n, steps)  # the calls the stepper shows
    undrawn = min(set(range(1, calls + 1)) - drawn, default=calls + 1)
    for step in {1, calls, undrawn - 1, min(undrawn, calls), *ended_at[ended_at <= calls][:2]}:
        _, summary, *rest = call_markdown(run, step, mode, n, steps).split("\n\n")
        got, told = numbers(summary), [step, steps]
        told += [step] if step in drawn else []  # "column N of the timeline": drawn ones only
        told += [int(flags[step - 1].sum())] if flags[step - 1].any() else []
        told += [int(resets[step - 1].sum())] if resets[step - 1].any() else []
        assert got == told and summary.count(" envs ") == (resets[step - 1].sum() > 1), summary
        hidden = max(0, n - MAX_STEPPER_ENVS)
        more = [r for r in rest if "more env" in r]
        assert [numbers(r) for r in more] == ([[hidden]] if hidden else []), more
        assert all(("envs" in r) == (hidden > 1) for r in more), more
        ended = np.flatnonzero(flags[step - 1])
        if mode == "SAME_STEP" and len(ended):
            assert numbers(rest[-1].split("of env")[1]) == ended.tolist(), rest[-1]
            assert ("of envs " in rest[-1]) == (len(ended) > 1), rest[-1]
    last = numbers(stepper_end(n, steps))
    assert calls == (int(last[0]) if last else steps), (n, steps)
    assert calls * min(n, MAX_STEPPER_ENVS) <= STEPPER_MAX_ROWS or calls == 1
    assert calls == steps or (calls + 1) * min(n, MAX_STEPPER_ENVS) > STEPPER_MAX_ROWS
    assert ("timeline" in stepper_end(n, steps)) == (calls < steps and steps in drawn)


def check_the_prediction(page, run) -> None:
    """The answer's explanation and takeaway against the rows of the NEXT_STEP run."""
    if page.mode != "NEXT_STEP":
        run = run_page_rollout(replace(page, mode="NEXT_STEP"), "native")
    n, steps = page.num_envs, page.steps
    flags = (run["terminated"] | run["truncated"]).to_numpy().reshape(steps, n)
    followed, unfollowed = int(flags[:-1].sum()), int(flags[-1].sum())
    calls = ending_calls(run)
    assert calls.truth == (ENDS_AS_IN_NEXT_STEP if followed else None)
    text = prediction_explanation(calls, page.mode)
    told = [followed] if followed else []
    assert numbers(text) == told + ([unfollowed] if unfollowed else []), text
    assert text.startswith("All") == (followed > 1) and ("them" in text) == (unfollowed > 1)
    bullet = takeaway_bullets(DEFAULT_MODE, calls.truth, SAME_STEP_KEYS)[1]
    assert ("final" in bullet) == (followed > 0), bullet


@settings(max_examples=30, deadline=None)
@given(values=settings_of(SPECS))
@with_examples
def test_every_sentence_about_the_run_follows_its_rows(values):
    page, _ = resolve_settings(values)
    run = run_page_rollout(page, "native")
    # The steps the timeline draws, of those the stepper shows and the run's last (drawing the
    # rest would only slow the test: the timeline takes the run's first steps, up to a cap).
    steps = run["step"]
    seen = (steps <= stepper_calls(page.num_envs, page.steps) + 1) | (steps == page.steps)
    drawn = set(timeline_cells(run[seen], page.mode)[0]["step"])
    check_stepper(run, page.mode, page.num_envs, page.steps, drawn)
    check_the_prediction(page, run)
    script = ast.parse(final_obs_script(page.num_envs, page.steps, page.seed))
    constants = {
        node.targets[0].id: node.value.value
        for node in script.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
    }
    assert constants == {"NUM_ENVS": page.num_envs, "STEPS": page.steps, "SEED": page.seed}
