"""Auto-reset's stepper: the page's run one call per click, checked against the library's
own rollout. The page hands the browser every call at once (the clicks are tested in
tests/browser)."""

from __future__ import annotations

import pytest
from gymnasium.vector import AutoresetMode
from page_apptest import component_data, html_tables, html_text, open_app_page

from burgerbot import world
from burgerbot.app.logic.autoreset import (
    MAX_STEPPER_ENVS,
    STEPPER_MAX_ROWS,
    call_markdown,
    call_rows,
    call_title,
    stepper_calls,
    stepper_views,
)
from burgerbot.app.markdown import markdown_html
from burgerbot.experiments import rollout as library_rollout

PAGE = "app_pages/autoreset.py"
SMALL = {"n": "3", "steps": "20", "ck": "60"}


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


def test_the_stepper_sends_every_call_as_html_and_says_where_it_ends():
    run = rollout("native", 3, 12, 0, "SAME_STEP")
    views = stepper_views(run, "SAME_STEP", 3, 12)
    assert len(views) == 13  # the reset, then each call
    for step, view in enumerate(views[:-1]):
        assert view == markdown_html(call_markdown(run, step, "SAME_STEP", 3, 12))
    last_words = "That was the run's last call: raise step() calls above for more."
    assert html_text(views[-1]).endswith(last_words)
    assert "<script" not in "".join(views) and "&lt;" not in "".join(views)


def test_a_long_run_with_many_envs_is_cut_to_a_bounded_size():
    run = rollout("native", 20, 150, 0, "NEXT_STEP")
    views = stepper_views(run, "NEXT_STEP", 20, 150)
    last = stepper_calls(20, 150)
    assert last == STEPPER_MAX_ROWS // MAX_STEPPER_ENVS < 150 and len(views) == last + 1
    (table,) = html_tables(views[-1])
    assert len(table) == MAX_STEPPER_ENVS  # 16 of the 20 envs; the timeline has all
    assert f"The stepper stops at call {last} of 150" in html_text(views[-1])
    assert "4 more envs are in the timeline above." in html_text(views[-1])
    assert sum(len(v) for v in views) < 1_000_000


def test_the_page_hands_the_browser_its_own_run_call_by_call():
    app = open_app_page(PAGE, SMALL, timeout=300)
    app.button(key="autoreset_next_step_skip").click().run()
    data = component_data(app, "autoreset_stepper")
    run = rollout("sync", 3, 20, 2, "NEXT_STEP")  # the page's defaults: sync, seed 2
    assert len(data["calls"]) == 21
    assert html_text(data["calls"][0]).startswith(call_title(0))
    step, env = first_end(run, "reset")
    view = data["calls"][step]
    assert html_text(view).startswith(f"Latest call: step {step} since the reset")
    (table,) = html_tables(view)
    assert table.loc[env, "what happened"].startswith("auto-reset")
    assert table["action"].tolist() == [str(a) for a in run[run["step"] == step]["action"]]
    assert table["obs"].tolist() == call_rows(run, step, "NEXT_STEP")[0]["obs"].tolist()
    # A rerun keeps the run's name, so the browser keeps the call it reached; new settings
    # name a new run, which the browser starts from its reset.
    first = data["run"]
    app.run()
    assert component_data(app, "autoreset_stepper")["run"] == first
    app.slider(key="autoreset_n").set_value(2).run()
    after = component_data(app, "autoreset_stepper")
    assert after["run"] != first and not app.exception
    assert html_tables(after["calls"][1])[0]["env"].tolist() == ["0", "1"]


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP", "DISABLED"])
def test_a_hit_says_whether_the_robot_drove_into_the_edge_or_an_obstacle(mode):
    """A hit leaves the robot where it was: the cell ahead of its final observation is what
    it drove into. A random run has both kinds."""
    run = rollout("native", 8, 60, 0, mode)
    hits = run[run["event"] == "hit"]
    kinds = []
    for _, hit in hits.iterrows():
        said = call_rows(run, int(hit["step"]), mode, max_envs=8)[0].loc[
            int(hit["env"]), "what happened"
        ]
        kind = world.blocked_by(*(int(hit[f"final_{c}"]) for c in ("row", "col", "heading")))
        expected = {"edge": "drove into the grid's edge", "obstacle": "hit an obstacle"}[kind]
        assert said.startswith(f"**{expected}: episode ends"), (kind, said)
        kinds.append(kind)
    assert set(kinds) == {"edge", "obstacle"}, kinds
