"""The "Counting finished episodes" page: its run, the sentences and takeaways that follow the
run's numbers (fed data each way), its chart, its script run from a file, and the page itself
through the router (AppTest)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gymnasium.vector import AutoresetMode
from page_apptest import open_expanders, prediction_checks, prediction_score, setting_notes
from sentence_facts import bold, quotes
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.counting_episodes import (
    BACKEND,
    MODE_SHAPES,
    MODES,
    OPTIONS,
    CountingSettings,
    count_finished_by_mode,
    counting_sentence,
    counts_table,
    finished_episodes_chart,
    finished_per_env,
    prediction_truth,
    resolve_settings,
    takeaway_bullets,
)
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.scripts.counting_episodes import COUNT_LINE, counting_script
from burgerbot.experiments import MAX_ROLLOUT_ROWS, rollout

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/counting_episodes.py"
PREDICTION = "counting_episodes_modes"
KEY = {name: f"counting_episodes_{name}" for name in ("n", "steps", "seed")}


def counts_frame(per_mode: dict[str, list[int]], goals=0, truncations=0) -> pd.DataFrame:
    """A long counts frame like ``count_finished_by_mode``'s; env 0 may hold goals or cut-offs,
    every other end is a hit."""
    rows = []
    for mode, finished in per_mode.items():
        for env, n in enumerate(finished):
            g, t = (goals, truncations) if env == 0 else (0, 0)
            rows.append(
                {
                    "mode": mode,
                    "env": env,
                    "finished episodes": n,
                    "goals": g,
                    "hits": n - g - t,
                    "truncations": t,
                }
            )
    return pd.DataFrame(rows)


def fewer_in(text: str) -> tuple[int, int]:
    """In how many envs, of how many, the counting sentence says NEXT_STEP finished fewer."""
    match = re.search(r"\(fewer in (\d+) of (\d+) envs?\)", text)
    assert match, text
    return int(match.group(1)), int(match.group(2))


# --- settings and the run -----------------------------------------------------------------------


def test_settings_default_to_a_clear_answer_and_keep_runs_recordable():
    assert resolve_settings({}) == (CountingSettings(8, 500, 0), [])
    settings, notes = resolve_settings({"n": "4", "steps": "90", "seed": "7"})
    assert settings == CountingSettings(4, 90, 7) and notes == []
    assert settings.env_steps == 2 * 4 * 90  # a run per mode
    _, notes = resolve_settings({"n": "0", "steps": "x"})
    assert len(notes) == 2
    settings, notes = resolve_settings({"n": "64", "steps": str(CAPS.max_steps_per_run)})
    assert settings.num_envs * settings.steps <= MAX_ROLLOUT_ROWS
    assert bool(notes) == (64 * CAPS.max_steps_per_run > MAX_ROLLOUT_ROWS)


def test_finished_per_env_and_the_counting_experiment():
    frame = rollout("native", 4, 80, 0, AutoresetMode.NEXT_STEP)
    counts = finished_per_env(frame, 4)
    ended = frame["terminated"] | frame["truncated"]
    assert counts["finished episodes"].tolist() == ended.groupby(frame["env"]).sum().tolist()
    assert (
        counts["finished episodes"] == counts["goals"] + counts["hits"] + counts["truncations"]
    ).all()
    assert finished_per_env(frame.iloc[:0], 2)["finished episodes"].tolist() == [0, 0]

    seen = []
    every = (*MODES, "DISABLED")
    by_mode = count_finished_by_mode(
        "native", 3, 150, 4, progress=lambda f, m: seen.append(f), modes=every
    )
    assert by_mode["mode"].unique().tolist() == list(every)
    for mode in every:
        alone = finished_per_env(rollout("native", 3, 150, 4, AutoresetMode[mode]), 3)
        part = by_mode[by_mode["mode"] == mode].drop(columns="mode").reset_index(drop=True)
        pd.testing.assert_frame_equal(part, alone)
    # Resetting by hand right after each end walks exactly like SAME_STEP; NEXT_STEP loses calls.
    same = by_mode[by_mode["mode"] == "SAME_STEP"]["finished episodes"].to_numpy()
    disabled = by_mode[by_mode["mode"] == "DISABLED"]["finished episodes"].to_numpy()
    np.testing.assert_array_equal(same, disabled)
    assert seen and seen[-1] == pytest.approx(1.0) and seen == sorted(seen)
    # The page counts on gymnasium's SyncVectorEnv; the native vector env gives the same counts.
    assert BACKEND == "sync"
    pd.testing.assert_frame_equal(count_finished_by_mode("sync", 3, 150, 4), by_mode.iloc[:6])


# --- what the run shows, in words -------------------------------------------------------------


@pytest.mark.parametrize(
    ("next_step", "same_step", "verdict", "fewer_envs", "truth"),
    [
        ([10, 12], [14, 15], ["fewer"], 2, OPTIONS[0]),
        ([15, 12], [14, 13], ["tie"], 1, None),  # as many: the run cannot decide
        ([0, 0], [0, 0], ["none ended"], 0, None),  # one call: nothing ended (issue 37)
        ([25, 20], [19, 18], ["more"], 0, OPTIONS[2]),
    ],
)
def test_the_sentence_truth_and_takeaways_follow_the_totals_each_way(
    next_step, same_step, verdict, fewer_envs, truth
):
    counts = counts_frame({"NEXT_STEP": next_step, "SAME_STEP": same_step})
    text = counting_sentence(counts)
    assert bold(text) == [str(sum(next_step)), str(sum(same_step))]
    assert fewer_in(text) == (fewer_envs, 2)
    # Which branch the sentence took: each claim only where the totals bear it out.
    assert ("by luck" in text) == (verdict == ["more"])
    assert ("A tie" in text) == (verdict == ["tie"])
    assert ("No episode ended" in text) == (verdict == ["none ended"])
    assert ("has fewer calls" in text) == (verdict == ["fewer"])
    assert prediction_truth(counts) == truth
    bullets = takeaway_bullets(counts)
    assert quotes(bullets[1], sum(next_step), sum(same_step))
    assert ("not always" in bullets[1]) == (sum(next_step) >= sum(same_step))
    assert len(takeaway_bullets(None)) == 1  # before the run only the run-free one


def test_the_counting_sentence_on_real_runs_both_ways():
    """At 2 envs x 200 calls (the lesson's size) some seeds give NEXT_STEP more episodes."""
    seen = {}
    for seed in range(40):
        counts = count_finished_by_mode("native", 2, 200, seed)
        seen.setdefault(prediction_truth(counts), counting_sentence(counts))
        if OPTIONS[0] in seen and OPTIONS[2] in seen:
            break
    assert "has fewer calls" in seen[OPTIONS[0]]
    assert "by luck" in seen[OPTIONS[2]]


def test_at_the_default_settings_next_step_finishes_fewer_for_nearly_every_seed():
    """The scored direction holds for at least 95% of 200 seeds at the page's defaults (the
    runs are the native env's: the very same counts as Sync's, far faster)."""
    settings, _ = resolve_settings({})
    truths = [
        prediction_truth(count_finished_by_mode("native", settings.num_envs, settings.steps, seed))
        for seed in range(200)
    ]
    assert truths.count(OPTIONS[0]) >= 0.95 * len(truths), truths.count(OPTIONS[0])


def test_one_call_finishes_nothing_and_is_not_scored():
    counts = count_finished_by_mode("native", 16, 1, 9)
    assert prediction_truth(counts) is None
    assert "No episode ended" in counting_sentence(counts)


# --- the chart and the script --------------------------------------------------------------------


def test_finished_episodes_chart_groups_the_modes_per_env():
    counts = count_finished_by_mode("native", 2, 50, 0)
    spec = finished_episodes_chart(counts).to_dict()
    bars, tops = spec["layer"]
    assert spec["autosize"]["type"] == "fit-x"  # the bars keep their height
    assert bars["mark"]["type"] == "bar" and tops["mark"]["type"] == "point"
    encoding = {**spec.get("encoding", {}), **bars.get("encoding", {})}
    assert encoding["x"]["field"] == "env" and encoding["xOffset"]["field"] == "mode"
    assert encoding["y"]["field"] == "finished episodes"
    assert encoding["color"]["scale"]["domain"] == list(MODES)
    assert set(encoding["color"]["scale"]["range"]) <= set(OKABE_ITO)
    # The modes differ by the shape on their bars' tops as well as by colour.
    shape = tops["encoding"]["shape"]
    assert shape["scale"]["domain"] == list(MODES)
    assert shape["scale"]["range"] == [MODE_SHAPES[m] for m in MODES]
    assert len(set(shape["scale"]["range"])) == len(MODES)
    data = next(iter(spec["datasets"].values()))
    assert len(data) == 4
    assert [row["finished episodes"] for row in data] == counts["finished episodes"].tolist()


COUNT = re.compile(
    re.escape(COUNT_LINE)
    .replace(r"\{mode\}", r"(\w+)")
    .replace(r"\{counts\}", r"(\[.*\])")
    .replace(r"\{total\}", r"(\d+)")
)


@pytest.mark.parametrize(("num_envs", "steps", "seed"), [(2, 200, 0), (3, 120, 11)])
def test_the_script_prints_the_pages_counts(num_envs, steps, seed, tmp_path):
    settings = CountingSettings(num_envs, steps, seed)
    out = assert_script_behaves(counting_script(settings), tmp_path / "counting")
    printed = [m.groups() for m in map(COUNT.fullmatch, out.splitlines()) if m]
    expected = count_finished_by_mode("native", num_envs, steps, seed)
    assert printed == [
        (
            mode,
            str(part["finished episodes"].tolist()),
            str(part["finished episodes"].sum()),
        )
        for mode, part in expected.groupby("mode", sort=False)
    ]


# --- the page -------------------------------------------------------------------------------


def open_page(query: dict[str, str] | None = None) -> AppTest:
    """Open the page as if its URL (with ``query``) was typed into the browser."""
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
    app.run()
    app.switch_page(PAGE_FILE)
    app.query_params.clear()
    for key, value in (query or {}).items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def rerun(app: AppTest) -> AppTest:
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return open_expanders(app)


def shown_counts(app: AppTest) -> pd.DataFrame:
    (table,) = [d.value for d in open_expanders(app).dataframe]
    return table


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def test_nothing_gives_the_answer_away_then_the_run_checks_the_prediction():
    app = open_page({"n": "3", "steps": "90", "seed": "4"})
    assert app.title[0].value == "Counting finished episodes"
    assert not app.get("vega_lite_chart") and not app.dataframe
    shown = texts(app.markdown)
    assert "Key takeaways" in [s.value for s in app.header]
    assert "`terminated | truncated` per env" not in shown  # the takeaways wait
    expected = count_finished_by_mode(BACKEND, 3, 90, 4)
    truth = prediction_truth(expected)
    assert truth is not None  # these settings decide the question
    app.radio(key=f"{PREDICTION}_choice").set_value(truth)
    rerun(app).button(key=f"{PREDICTION}_lock").click()
    rerun(app)
    assert len(app.get("vega_lite_chart")) == 1
    pd.testing.assert_frame_equal(shown_counts(app), counts_table(expected))
    assert counting_sentence(expected) in texts(app.markdown) + texts(app.success)
    assert prediction_checks(app) == [(truth, truth)]
    assert counting_script(CountingSettings(3, 90, 4)).strip() in texts(app.code)
    for bullet in takeaway_bullets(expected):
        assert bullet in texts(app.markdown)
    wrong = next(option for option in OPTIONS if option != truth)
    app.radio(key=f"{PREDICTION}_choice").set_value(wrong)
    rerun(app).button(key=f"{PREDICTION}_lock").click()
    assert prediction_checks(rerun(app)) == [(wrong, truth)]


def test_a_run_that_cannot_decide_is_not_scored_and_says_why():
    """Issue 37: at n=16, steps=1 both modes finish nothing; the page says so, scores nothing."""
    app = open_page({"n": "16", "steps": "1", "seed": "9"})
    app.radio(key=f"{PREDICTION}_choice").set_value(OPTIONS[0])
    rerun(app).button(key=f"{PREDICTION}_lock").click()
    rerun(app)
    assert prediction_checks(app) == []
    assert prediction_score(app) == (1, 0, 0)
    shown = texts(app.info)
    assert "could not decide" in shown and "No episode ended" in shown, shown
    assert "by luck" not in texts(app.markdown) + shown


def test_controls_change_the_counts_and_the_url():
    app = open_page()
    assert [app.slider(key=KEY["n"]).value, app.number_input(key=KEY["steps"]).value] == [8, 500]
    assert app.number_input(key=KEY["seed"]).value == 0
    app.button(key=f"{PREDICTION}_skip").click()
    rerun(app)
    pd.testing.assert_frame_equal(
        shown_counts(app), counts_table(count_finished_by_mode(BACKEND, 8, 500, 0))
    )
    app.slider(key=KEY["n"]).set_value(4)
    app.number_input(key=KEY["steps"]).set_value(60)
    app.number_input(key=KEY["seed"]).set_value(9)
    rerun(app)
    pd.testing.assert_frame_equal(
        shown_counts(app), counts_table(count_finished_by_mode(BACKEND, 4, 60, 9))
    )
    assert app.query_params["n"] == "4" and app.query_params["steps"] == "60"
    assert app.query_params["seed"] == "9"
    assert not setting_notes(app)


def test_bad_query_params_give_notes_not_exceptions():
    app = open_page({"n": "-4", "steps": "10^9", "seed": "abc", "zzz": "1"})
    shown = texts(app.info)
    for part in ("`n=-4` is outside", "`steps=10^9` is not a whole", "`seed=abc`", "zzz"):
        assert part in shown, shown
    assert app.slider(key=KEY["n"]).value == 1
    assert app.number_input(key=KEY["steps"]).value == 500
    app.button(key=f"{PREDICTION}_skip").click()
    rerun(app)
    assert shown_counts(app).columns.tolist() == ["env", *MODES]
    assert len(shown_counts(app)) == 1  # one env
