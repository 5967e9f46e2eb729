"""The "Wrapping a vector env" page in AppTest: nothing answers the prediction before the learner
locks in or skips; then the live results, the check and the takeaways; URL settings."""

from __future__ import annotations

import pytest
from page_apptest import (
    lazy_tab_sets,
    markdown_tables,
    open_app_page,
    open_expanders,
    open_lazy_expander,
    prediction_checks,
    texts,
)

from burgerbot.app.logic.vector_wrappers import (
    LOOPS,
    OPTIONS,
    TABLE_CALLS,
    every_loop_check,
    infos_at_first_end,
    prediction_truth,
    wrapper_table,
)
from burgerbot.app.scripts.vector_wrappers import (
    evaluation_script,
    placement_script,
    table_script,
    wrong_loops_script,
)

PAGE = "app_pages/vector_wrappers.py"
PID = "vector_wrappers_normalize_same_step"
SMALL = {"n": "2", "steps": "60", "seed": "3"}

pytestmark = pytest.mark.slow


def _all_text(app) -> str:
    return "\n".join(
        texts(getattr(app, kind)) for kind in ("markdown", "caption", "success", "warning")
    )


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_app_page(PAGE, SMALL, timeout=120)
    text = _all_text(app)
    assert not markdown_tables(texts(app.markdown)), "a live table is on screen before the reveal"
    assert "They appear once you answer the prediction above" in texts(app.caption)  # takeaways
    assert "refuses" not in text.lower() and "ValueError" not in text
    # The scripts are there from the start: they state no result.
    assert len([c for c in app.code if c.language == "python"]) >= 3


def test_skipping_reveals_the_results_and_the_takeaways_without_a_check():
    app = open_app_page(PAGE, SMALL, timeout=120)
    app.button(key=f"{PID}_skip").click().run()
    assert not app.exception, [e.value for e in app.exception]
    # Section 1's first end, inside the factory: the ending call's infos, key by key.
    # Section 1's first end, inside the factory: the ending call's infos as a table; the call
    # after it as a table too, or, when infos came back empty, in words.
    end = infos_at_first_end("sync", "NEXT_STEP", "factory", 2, 60, 3)
    assert app.dataframe[0].value.to_dict("list") == end.ending.to_dict("list")
    assert len(app.dataframe) == (1 if end.after.empty else 2)
    said_empty = any("`infos` is `{}`" in m.value for m in app.markdown)
    assert said_empty == end.after.empty
    assert "Key takeaways" in [s.value for s in app.header]
    assert not app.success and not [w for w in app.warning if "You predicted" in w.value]


@pytest.mark.parametrize("right", [True, False])
def test_a_locked_in_answer_is_checked_against_the_live_table(right):
    truth = prediction_truth(wrapper_table("native", 2, 60, 3))
    choice = truth if right else next(o for o in OPTIONS if o != truth)
    app = open_app_page(PAGE, {**SMALL, "backend": "native"}, timeout=120)
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    app.button(key=f"{PID}_lock").click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert prediction_checks(app) == [(choice, truth)]
    tables = [
        t
        for t in markdown_tables(texts(app.markdown))
        if "check against the unwrapped run" in t.columns
    ]
    assert len(tables) == 6 and all(len(t) == 4 for t in tables)
    results = {r.split(",")[0] for t in tables for r in t["result"]}
    assert results <= {"accepted", "warned", "refused"} and "refused" in results
    assert any("ValueError: Expected" in c.value for c in app.code if c.language == "text")
    sync_app = open_app_page(PAGE, SMALL, timeout=120)
    sync_app.button(key=f"{PID}_skip").click().run()
    assert lazy_tab_sets(sync_app)["tabs_vector_wrappers_placement"][0] == "Inside the factory"


def test_url_settings_reach_the_widgets_and_a_bad_value_is_a_note():
    query = {**SMALL, "backend": "native", "mode": "SAME_STEP", "n": "abc"}
    app = open_app_page(PAGE, query, timeout=120)
    assert app.slider(key="vector_wrappers_n").value == 4
    assert app.selectbox(key="vector_wrappers_backend").value == "native"
    assert app.radio(key="vector_wrappers_mode").value == "SAME_STEP"
    assert any("not a whole number" in i.value for i in app.info)
    app.button(key=f"{PID}_skip").click().run()
    # The native env has no factory: only the vector placement is offered.
    tabs = lazy_tab_sets(app)["tabs_vector_wrappers_placement"]
    assert tabs == ["Around the BurgerBotVectorEnv"]
    scripts = "\n".join(c.value for c in app.code if c.language == "python")
    assert "MODE = AutoresetMode.SAME_STEP" in scripts and "BurgerBotVectorEnv" in scripts
    # The four scripts in closed expanders are drawn once their expander is opened.
    shown = {c.value.strip() for c in app.code if c.language == "python"}
    opened = {c.value.strip() for c in open_expanders(app).code if c.language == "python"}
    assert opened - shown == {
        placement_script("SAME_STEP", 4, 60, 3).strip(),
        wrong_loops_script("SAME_STEP", 4, 60, 3).strip(),
        table_script("native", 4, min(60, TABLE_CALLS), 3).strip(),
        evaluation_script(4, 60, 3).strip(),
    }


def test_the_evidence_shows_the_episodes_each_wrong_loop_got_wrong(monkeypatch):
    app = open_app_page(PAGE, SMALL, timeout=120)
    app.button(key=f"{PID}_skip").click().run()
    checks = every_loop_check("sync", 2, 60, 3)
    wrong = [c for c in checks if not c.missed.empty or not c.extra.empty]
    assert wrong and all(c.loop != "right" for c in wrong)
    assert not [d for d in app.dataframe if "return" in d.value.columns]  # drawn when opened
    app = open_lazy_expander(app, monkeypatch, "Evidence: the episodes each wrong loop got wrong")
    frames = [d.value.to_dict("list") for d in app.dataframe if "return" in d.value.columns]
    expected = [
        frame.head(20).to_dict("list")
        for c in wrong
        for frame in (c.missed, c.extra)
        if not frame.empty
    ]
    assert frames == expected
    headings = {m.value for m in app.markdown}
    assert all(f"**{LOOPS[c.loop]}, {c.mode}**" in headings for c in wrong)
