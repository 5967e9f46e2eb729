"""Home through Streamlit's AppTest: nothing answers the prediction before lock-in or skip; the
check reads this visitor's own run (never another's); a run that cannot decide is not scored;
the table, the lesson's label, the takeaways and the way on."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from page_apptest import invites_prediction, prediction_checks, prediction_score, texts
from streamlit.testing.v1 import AppTest

import burgerbot.app.logic.home as logic
from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.home import COLUMNS, FORWARD, OPTIONS, cost_table, prediction_truth

ROOT = Path(__file__).resolve().parent.parent
PID = "home_batch_saves"
RUN = "_home_costs"
PARTS = ("stepping", "forward")


def home_app(**query) -> AppTest:
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def skip(app: AppTest) -> AppTest:
    app.button(key=f"{PID}_skip").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def lock_in(app: AppTest, choice: str) -> AppTest:
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    app.button(key=f"{PID}_lock").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def page_text(app: AppTest) -> str:
    parts = [texts(app.main.markdown), texts(app.main.caption), texts(app.success)]
    parts += [texts(app.warning), texts(app.info)]
    return "\n".join(parts)


def run_of(app: AppTest):
    """The (costs, record) this visitor's session holds."""
    return app.session_state[RUN]


@pytest.fixture(scope="module")
def shown() -> AppTest:
    """One Home run at first load, the prediction skipped, read by the tests that look."""
    return skip(home_app())


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = home_app()
    before = page_text(app)
    assert not app.table and RUN not in app.session_state  # nothing measured yet
    assert "ratio of medians" not in before and "could not be told apart" not in before
    assert VERDICTS["not_visible"].label not in before
    assert "Key takeaways" in [s.value for s in app.header]
    assert "not faster" not in before  # the takeaways wait too
    assert app.radio(key=f"{PID}_choice").options == list(OPTIONS)
    skip(app)
    assert len(app.table) == 1 and RUN in app.session_state
    assert "ratio of medians" in page_text(app) or "could not be told apart" in page_text(app)


def test_the_table_is_this_visitors_run_counts_beside_timings(shown):
    costs, _ = run_of(shown)
    table = shown.table[0].value
    expected = cost_table(costs)
    assert list(table.columns) == list(COLUMNS.values())
    assert table.values.tolist() == expected.values.tolist()
    plain, sync = table[COLUMNS["plain"]], table[COLUMNS["sync"]]
    assert plain.iloc[0] == "1,000" and int(sync.iloc[0]) == costs.calls("sync") < 100


def test_the_check_reads_the_run_and_scores_each_option_right_or_wrong():
    app = lock_in(home_app(), FORWARD)  # the run starts after the lock-in
    costs, record = run_of(app)
    truth = prediction_truth(costs)
    for choice in OPTIONS:
        lock_in(app, choice)
        assert run_of(app)[1] == record  # changing the answer measures nothing new
        if truth is None:  # too close to call: shown, not scored
            assert prediction_checks(app) == []
            assert "not scored" in texts(app.info)
        else:
            assert prediction_checks(app) == [(choice, truth)]
            assert "ratio of medians" in texts(app.success if choice == truth else app.warning)
    app.run()
    checked = int(truth is not None)
    assert prediction_score(app) == (1, int(truth == OPTIONS[-1]), checked)
    assert not invites_prediction(app)


def fake_measure(ms):
    """A measure_costs that returns made-up repeats (milliseconds per 1,000 transitions)."""

    def measure(seconds=logic.SECONDS, repeats=logic.REPEATS):
        rows = [
            {"loop": loop, "num_envs": n, "part": part, "calls": calls, "seconds": s}
            for loop, n, calls in (("plain", 1, 1000), ("sync", 16, 68))
            for part, s in zip(PARTS, [[x / 1000 for x in v] for v in ms[loop]], strict=True)
        ]
        return logic.Costs(pd.DataFrame(rows))

    return measure


def test_a_run_that_cannot_decide_is_not_scored_and_says_why(monkeypatch):
    # Sync's stepping repeats overlap the plain loop's: the question cannot be answered.
    ms = {"plain": ([1.0, 2.0], [10.0, 11.0]), "sync": ([1.5, 2.5], [1.0, 1.1])}
    monkeypatch.setattr(logic, "measure_costs", fake_measure(ms))
    app = lock_in(home_app(), FORWARD)
    assert prediction_checks(app) == []
    info = texts(app.info)
    assert "could not decide" in info and "not scored" in info
    assert "could not be told apart on this server" in info and "Measure again" in info
    assert prediction_score(app) == (1, 0, 0)  # made, but not checked


def test_a_run_that_decides_scores_the_option_it_gave(monkeypatch):
    ms = {"plain": ([0.4, 0.5], [10.0, 11.0]), "sync": ([2.0, 2.1], [1.0, 1.1])}
    monkeypatch.setattr(logic, "measure_costs", fake_measure(ms))
    app = lock_in(home_app(), FORWARD)
    assert prediction_checks(app) == [(FORWARD, FORWARD)]
    said = texts(app.success)
    assert "Sync took 4.6x the plain loop's time (ratio of medians; repeats 4x to 5.2x)" in said


def test_each_visitor_gets_their_own_run_and_measure_again_replaces_it():
    first, second = skip(home_app()), skip(home_app())
    (_, one), (_, two) = run_of(first), run_of(second)
    assert one.at != two.at  # never another visitor's run
    for app, record in ((first, one), (second, two)):
        (caption,) = [c.value for c in app.caption if c.value.startswith("Your run")]
        assert record.at.strftime("%H:%M:%S") in caption
    first.button(key="home_measure").click().run()
    assert run_of(first)[1].at > one.at
    assert run_of(second)[1] == two


def test_the_lessons_claim_is_labelled_and_the_page_teaches_no_later_words(shown):
    body = texts(shown.main.markdown)
    (claim,) = [m for m in shown.markdown if "speed up training" in m.value]
    assert claim.value.startswith(VERDICTS["not_visible"].badge())
    assert "is not faster" in claim.value
    text = page_text(shown)
    for later in ("auto-reset", "reset row", "NEXT_STEP", "env-step", "final_obs", "kernel"):
        assert later.lower() not in text.lower(), later
    assert "policy network" in body and "forward pass (one evaluation" in body


def test_the_page_links_on_and_ends_with_three_takeaways(shown):
    links = [Path(link.proto.page).stem for link in shown.main.get("page_link")]
    assert links == ["speed_breakdown", "lesson_vs_today"]
    assert shown.main.header[-1].value == "Key takeaways"
    bullets = shown.main.markdown[-1].value.splitlines()
    assert len(bullets) == 3 and all(b.startswith("- ") for b in bullets)


def test_an_old_num_envs_link_opens_the_page_without_an_error():
    app = home_app(n="1024")
    assert not app.exception and app.radio(key=f"{PID}_choice")
