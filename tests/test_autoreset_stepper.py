"""Auto-reset's stepper: the page's run one call per click, checked against the library's
own rollout, and redrawn alone (a fragment) on each click."""

from __future__ import annotations

from collections import Counter

import pytest
from gymnasium.vector import AutoresetMode
from page_apptest import counted, live_heading, markdown_tables, open_app_page, rerun_fragment

from burgerbot.app.panels import autoreset as panels
from burgerbot.app.views.autoreset_stepper import call_markdown, call_rows, call_title
from burgerbot.experiments import rollout as library_rollout

PAGE = "app_pages/autoreset.py"
SMALL = {"n": "3", "steps": "20", "ck": "60"}
OUTSIDE = ("timeline", "episode_ends_table", "lesson_comparison", "counting_results")


def rollout(backend: str, num_envs: int, steps: int, seed: int, mode: str):
    """The library's own rollout, as the page runs it (mode by its name, e.g. "SAME_STEP")."""
    return library_rollout(backend, num_envs, steps, seed, AutoresetMode[mode])


def first_end(run, event: str | None = None) -> tuple[int, int]:
    """(step, env) of the run's first episode end (or first row with ``event``)."""
    rows = run[run["event"] == event] if event else run[run["terminated"] | run["truncated"]]
    first = rows.iloc[0]
    return int(first["step"]), int(first["env"])


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP", "DISABLED"])
def test_each_call_says_what_each_env_got_and_where_the_final_observation_is(mode):
    run = rollout("native", 3, 20, 0, mode)
    step, env = first_end(run)
    table, hidden = call_rows(run, step, mode)
    assert hidden == 0 and table["env"].tolist() == [0, 1, 2]
    ending = run[(run["step"] == step) & (run["env"] == env)].iloc[0]
    said = table.loc[env, "what happened"]
    parts = ("row", "col", "heading", "sensor")
    final = "[" + ", ".join(str(int(ending[f"final_{c}"])) for c in parts) + "]"
    assert "episode ends" in said and final in said
    text = call_markdown(run, step, mode, 3, 20)
    if mode == "SAME_STEP":
        assert table.loc[env, "obs"] == "[0, 0, 1, 1]"  # already the new start
        assert 'infos["final_obs"]' in said and f"final observation of env {env}" in text
    else:
        assert table.loc[env, "obs"] == final and "`infos` is `{}`" in text
    if mode == "NEXT_STEP":
        after = call_rows(run, step + 1, mode)[0].loc[env, "what happened"]
        assert after.startswith("**auto-reset**")
    else:
        assert "auto-reset**" not in call_markdown(run, step + 1, mode, 3, 20)


def test_the_reset_and_a_quiet_call_read_as_such():
    run = rollout("native", 2, 5, 0, "NEXT_STEP")
    assert call_markdown(run, 0, "NEXT_STEP", 2, 5).startswith("### " + call_title(0))
    quiet = next(s for s in range(1, 6) if not run[run["step"] == s]["terminated"].any())
    text = call_markdown(run, quiet, "NEXT_STEP", 2, 5)
    assert "No episode ended in this call." in text
    with pytest.raises(ValueError, match="no step 6"):
        call_rows(run, 6, "NEXT_STEP")


@pytest.fixture
def calls(monkeypatch) -> Counter:
    counter: Counter = Counter()
    for name in OUTSIDE:
        monkeypatch.setattr(panels, name, counted(getattr(panels, name), name, counter))
    return counter


def test_step_clicks_walk_the_run_and_redraw_only_the_stepper(calls, monkeypatch):
    app = open_app_page(PAGE, SMALL, timeout=300)
    assert live_heading(app) == "Latest call: reset"
    calls.clear()
    run = rollout("sync", 3, 20, 0, "NEXT_STEP")  # the page's defaults: sync, seed 0
    step, env = first_end(run, "reset")
    for _ in range(step):
        app.button(key="autoreset_step").click()
        rerun_fragment(app, monkeypatch, "stepper")
    assert live_heading(app) == f"Latest call: step {step} since the reset"
    (table,) = markdown_tables(next(m.value for m in app.markdown if m.value.startswith("###")))
    assert table.loc[env, "what happened"].startswith("**auto-reset**")
    assert table["action"].tolist() == [str(a) for a in run[run["step"] == step]["action"]]
    assert not any(calls.values()), calls  # nothing outside the stepper was redrawn
    assert not app.header  # the run sent the stepper only
    app.button(key="autoreset_back").click()
    rerun_fragment(app, monkeypatch, "stepper")
    assert live_heading(app) == f"Latest call: step {step - 1} since the reset"
    app.button(key="autoreset_reset").click()
    rerun_fragment(app, monkeypatch, "stepper")
    assert live_heading(app) == "Latest call: reset"
    # New settings make a new run: the stepper starts again from its reset.
    for _ in range(2):
        app.button(key="autoreset_step").click()
        rerun_fragment(app, monkeypatch, "stepper")
    app.run()  # a full run, as the learner's next move outside the stepper makes
    assert live_heading(app) == "Latest call: step 2 since the reset"
    app.slider(key="autoreset_n").set_value(2).run()
    assert live_heading(app) == "Latest call: reset" and not app.exception
