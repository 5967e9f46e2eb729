"""Home through Streamlit's AppTest: the live measurement, the prediction, the lesson's fixes,
the path through the pages and the takeaways."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import gymnasium as gym
import pytest
from page_apptest import (
    invites_prediction,
    open_expanders,
    prediction_checks,
    prediction_score,
    texts,
)
from sentence_facts import quotes
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest

import burgerbot
from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.home import NO, SAME, YES
from burgerbot.app.scripts.home import sb3_fix_script
from burgerbot.factories import make_env
from burgerbot.random_agent import goal_odds

ROOT = Path(__file__).resolve().parent.parent
PID = "home_sync16"


def home_app(**query) -> AppTest:
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


@pytest.fixture(scope="module")
def shown() -> AppTest:
    """One Home run at default settings, read by the tests that only look."""
    return home_app()


def rate(metric) -> float:
    return float(metric.value.replace(",", ""))


def the_table(app: AppTest):
    """The speed chart's data as shown in its "Data as a table" tab."""
    (table,) = [df.value for df in open_expanders(app).dataframe if "stepping" in df.value.columns]
    return table


def test_metrics_compare_the_plain_loop_with_sync_and_native_at_num_envs(shown):
    labels = [m.label for m in shown.metric]
    assert labels == [
        "Plain loop: transitions per second",
        "16 envs, Sync: transitions per second",
        "16 envs, native: transitions per second",
    ]
    plain = rate(shown.metric[0])
    for metric in shown.metric[1:]:
        ratio = rate(metric) / plain
        # a ratio only when the repeats do not overlap (the live run decides which)
        assert metric.proto.delta in (
            f"{ratio:.2g}x the plain loop",
            "about the same as the plain loop",
        ) or (ratio >= 10 and metric.proto.delta.endswith("x the plain loop"))
    # the numbers are the table's (the same measurement)
    table = the_table(shown)
    alone = table[table["stepping"].str.startswith("random")]
    assert rate(shown.metric[0]) == pytest.approx(
        alone.loc[alone["setup"].str.startswith("plain"), "transitions_per_s"].item(), abs=1
    )


def test_native_is_said_to_be_this_projects_class(shown):
    body = texts(shown.markdown)
    assert "this project's own class, not part of Gymnasium" in body
    assert "[native](glossary#native)" in body and "[vector env](glossary#vector-env)" in body


def test_the_lessons_code_that_no_longer_works_is_listed_with_its_verdict_and_page(shown):
    lines = [m.value for m in shown.markdown if "→ **today:**" in m.value]
    assert len(lines) == 5
    assert [
        next(k for k, v in VERDICTS.items() if line.startswith(v.badge())) for line in lines
    ] == [
        "changed",
        "changed",
        "never_valid",
        "never_valid",
        "not_visible",
    ]
    assert 'infos["final_observation"]' in lines[1] and 'infos["final_obs"]' in lines[1]
    assert "n_envs=4" in lines[2] and "make_vec_env(" in lines[2]
    assert "SyncVectorEnv" in lines[3] and "DummyVecEnv" in lines[3]
    # the lesson's 500 calls: the library's exact odds with 4 envs and with 8
    for num_envs in (4, 8):
        odds = goal_odds(500, num_envs)
        expected, none = round(odds.expected_goals, 4), round(100 * odds.chance_of_none, 1)
        assert quotes(lines[4], num_envs, expected, none), (num_envs, expected, none)
    links = [Path(link.proto.page).stem for link in shown.main.get("page_link")]
    assert links[:5] == ["autoreset", "autoreset", "sb3", "sb3", "goal_scaling"]


def shown_sb3_fix(app: AppTest) -> str:
    """The `make_vec_env(...)` call Home gives for the lesson's ``PPO(..., n_envs=4)``."""
    (line,) = [m.value for m in app.markdown if "→ **today:**" in m.value and "n_envs=4" in m.value]
    match = re.search(r"`(make_vec_env\(.*?\))`", line)
    assert match, line
    return match.group(1)


def test_the_shown_sb3_fix_gives_make_vec_env_something_that_builds_an_env(shown):
    """`make_vec_env` wants an env id or a zero-argument function returning an env: the factory
    `make_env` itself returns a function, and SB3 rejects it (ValueError: the environment is
    of type function)."""
    call = ast.parse(shown_sb3_fix(shown), mode="eval").body
    assert isinstance(call, ast.Call) and ast.unparse(call.func) == "make_vec_env"
    assert {k.arg: ast.literal_eval(k.value) for k in call.keywords}.get("n_envs") == 4
    names = {"make_env": make_env, "burgerbot": burgerbot}
    first = eval(compile(ast.Expression(call.args[0]), "<home>", "eval"), names)
    env = gym.make(first) if isinstance(first, str) else first()
    try:
        assert isinstance(env, gym.Env), f"{ast.unparse(call.args[0])}() gave {env!r}, not an env"
    finally:
        if isinstance(env, gym.Env):
            env.close()


def test_the_shown_sb3_fix_runs_as_a_script(shown, sb3, tmp_path):
    output = assert_script_behaves(sb3_fix_script(shown_sb3_fix(shown)), tmp_path)
    assert "PPO trained on 4 envs" in output


def test_a_numbered_path_links_every_other_page(shown):
    links = shown.main.get("page_link")
    numbered = [link for link in links if re.match(r"\*\*\d+\. ", link.proto.label)]
    numbers = [int(re.match(r"\*\*(\d+)\.", link.proto.label).group(1)) for link in numbered]
    assert numbers == list(range(1, len(numbered) + 1))
    pages = {Path(link.proto.page).stem for link in links}
    assert pages == {p.stem for p in (ROOT / "app_pages").glob("*.py")} - {"home"}


def lock_in(app: AppTest, choice: str) -> AppTest:
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    app.button(key=f"{PID}_lock").click().run()
    assert not app.exception
    return app


def test_the_prediction_is_checked_against_the_live_measurement_right_and_wrong():
    app = home_app()
    assert invites_prediction(app)
    plain, sync = rate(app.metric[0]), rate(app.metric[1])  # the page's own 16-env medians
    # the metric's delta carries the same verdict as the check: a ratio only when clear
    delta = app.metric[1].proto.delta
    truth = SAME if delta.startswith("about the same") else YES if sync > plain else NO
    wrong = next(c for c in (YES, NO, SAME) if c != truth)
    for choice in (truth, wrong):  # right, then wrong, whatever the live run gave
        lock_in(app, choice)
        assert prediction_checks(app) == [(choice, truth)]
        feedback = texts(app.success if choice == truth else app.warning)
        assert quotes(feedback, sync, plain)  # the explanation quotes the measured medians
    app.run()
    assert prediction_score(app) == (1, 0, 1)


def test_takeaways_end_the_page_with_the_measured_ratios(shown):
    assert shown.main.subheader[-1].value == "Key takeaways"
    bullets = shown.main.markdown[-1].value.splitlines()
    assert 3 <= len(bullets) <= 5 and all(b.startswith("- ") for b in bullets)
    table = the_table(shown)

    def best(stepping: str, setup: str, n: int, column: str = "transitions_per_s") -> float:
        rows = table[table["stepping"].str.startswith(stepping) & (table["setup"] == setup)]
        return rows.loc[rows["num_envs"] == n, column].item()

    def clear(stepping: str) -> bool:
        """Whether Sync's repeats and the plain loop's do not overlap (a ratio is then said)."""
        sync = [best(stepping, "Sync", 16, c) for c in ("slowest_repeat", "fastest_repeat")]
        plain = [
            best(stepping, "plain loop (1 env)", 1, c) for c in ("slowest_repeat", "fastest_repeat")
        ]
        return sync[0] > plain[1] or sync[1] < plain[0]

    alone = best("random", "Sync", 16) / best("random", "plain loop (1 env)", 1)
    with_policy = best("a policy", "Sync", 16) / best("a policy", "plain loop (1 env)", 1)
    text = shown.main.markdown[-1].value
    said = re.findall(r"Sync with 16 envs ran at ([\d.]+x|about the plain loop's speed)", text)
    assert len(said) == 2
    for words, ratio, stepping in zip(
        said, [alone, with_policy], ["random", "a policy"], strict=True
    ):
        # a ratio of the medians exactly when the repeats are clear, "about" when they overlap
        assert words.endswith("x") == clear(stepping), (words, stepping)
        if words.endswith("x"):
            assert float(words[:-1]) == pytest.approx(ratio, rel=0.06)


def test_home_measures_the_chosen_num_envs_and_mirrors_it_in_the_url():
    app = home_app()
    app.slider(key="home_n").set_value(32).run()
    assert not app.exception and "32 envs, Sync" in app.metric[1].label
    assert app.query_params["n"] in ("32", ["32"])
    assert 32 in set(the_table(app)["num_envs"])
    app.button(key="home_measure").click().run()
    assert not app.exception and app.session_state["_home_run"] == 1


def test_home_bad_url_values_give_a_note_not_a_traceback():
    for raw, used in [("abc", 16), ("-5", 2), ("10000000", 1024), ("<b>x</b>", 16)]:
        app = home_app(n=raw)
        assert app.info and "adjusted" in app.info[0].value
        assert app.slider(key="home_n").value == used


def measurement_caption(app: AppTest):
    """The caption saying when and where the numbers were measured, and its exact time."""
    (caption,) = [c for c in app.caption if "on this server (" in c.value]
    return caption.value, caption.proto.help


def test_a_measurement_is_shared_and_says_when_it_was_made_until_measured_again():
    _, first_time = measurement_caption(home_app())
    assert first_time.startswith("Started ")
    # Another visitor gets the same measurement, with its time, not "just now".
    second = home_app()
    text, when = measurement_caption(second)
    assert when == first_time
    assert "just now" not in text and " ago, with Python " in text
    # The clock time, with the date once midnight has passed since the measurement.
    clock = r"(\d{4}-\d\d-\d\d )?\d\d:\d\d"
    assert re.search(rf"Measured on this server \(.+, \d+ cores?\) at {clock}", text)
    # Measure again: a new measurement, which this visitor is told they just made...
    second.button(key="home_measure").click().run()
    text, new_time = measurement_caption(second)
    assert new_time != first_time
    assert "Measured just now, started by your visit, on this server" in text
    # ...and which the next visitor gets as it is, with its time.
    text, when = measurement_caption(home_app())
    assert when == new_time and "just now" not in text
