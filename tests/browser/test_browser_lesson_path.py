"""The lesson path as a beginner walks it in Chromium (issues 21 and 36): about 30 minutes of
reading (words per page within its budget once revealed and with everything open), no page
taller than about two screens before the learner opens anything, each term taught before a
page of the path uses it. (Nothing cut off or spilling sideways at 1280 and 390 px, headings
in order: `test_browser_pages`, on every page.)

The figures (words and height per page) go to `test-artifacts/browser-report.json` and are
printed, so a closing note can quote them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_driver import AppView, planned_pages, skipped_heading_levels
from interactions import MAIN_INTERACTIONS
from learner_text import internals

from burgerbot.app.glossary import taught_too_late

pytestmark = pytest.mark.browser

PAGES = planned_pages()
PATH = [page for page in PAGES if page.section == "The lesson"]
# Words a learner reads on each page of the path (prose, code and table text of the main area)
# once its predictions are answered and its main action done (`interactions`), and with every
# expander and tab open too. About 30 minutes of reading and trying at a beginner's pace.
BUDGETS: dict[str, tuple[int, int]] = {
    "home": (340, 560),
    "batch_shapes": (460, 640),
    "mistakes": (410, 550),
    "autoreset": (490, 680),
    "counting_episodes": (270, 430),
    "why_batches": (310, 460),
    "sync_vs_async": (450, 490),
    "sb3": (530, 1200),
    "goal_scaling": (340, 500),
    "lesson_vs_today": (400, 480),
}
WORDS_ONCE_REVEALED = 4_000
TEXTS = Path("test-artifacts") / "lesson-path"  # the counted text of each page, to read
WORDS_ALL_OPEN = 6_000
TALLEST_PAGE_PX = 1_800  # about two screens at 1280 x 900, before the learner opens anything
# What would answer a later page's prediction if an earlier page of the path showed it: Goal
# scaling asks whether goals double in the lesson's 500-call experiment (the answer: almost
# always 0 goals to see), so no page before it may show a goal count or its expectation.
ANSWERED_LATER: dict[str, list[str]] = {
    "goal_scaling": [
        r"\b\d[\d,]* goals?\b",
        r"\bno goals?\b",
        r"reached the goal \d+ times?",
        r"0\.0453",
        r"0\.0906",
    ],
}


def test_the_path_follows_the_lesson_and_ends_with_what_changed():
    stems = [page.stem for page in PATH]
    assert stems[0] == "home" and stems[-1] == "lesson_vs_today", stems
    lesson_order = [
        "home",
        "batch_shapes",
        "autoreset",
        "counting_episodes",
        "why_batches",
        "sb3",
        "goal_scaling",
    ]
    assert [stem for stem in stems if stem in lesson_order] == lesson_order
    others = {page.section for page in PAGES if page not in PATH}
    assert others == {"Going further", "Reference"}, others
    assert set(BUDGETS) == set(stems), "every page of the path has a word budget"
    assert sum(b[0] for b in BUDGETS.values()) <= WORDS_ONCE_REVEALED
    assert sum(b[1] for b in BUDGETS.values()) <= WORDS_ALL_OPEN


def words(text: str) -> int:
    return len(text.split())


def test_the_lesson_path_is_short_and_teaches_each_term_before_using_it(view: AppView, report):
    """Each page as a learner meets it: at first load (height), once its predictions are
    answered and its main action done (words), and with every expander and tab open (words,
    and the text the terms check reads)."""
    view.page.set_viewport_size({"width": 1280, "height": 900})
    heights, revealed, all_open, texts = {}, {}, {}, []
    TEXTS.mkdir(parents=True, exist_ok=True)
    for page in PATH:
        view.goto(page.url_path)
        view.assert_no_exception()
        heights[page.stem] = view.page.evaluate(
            "() => document.querySelector('[data-testid=\"stMainBlockContainer\"]').scrollHeight"
        )
        MAIN_INTERACTIONS[page.file](view)
        view.reveal()  # whatever prediction the interaction left unanswered
        view.assert_no_exception()
        shown = view.main_text()
        revealed[page.stem] = words(shown)
        view.screenshot(f"path-{page.stem}-revealed")  # for a closing note's before and after
        view.open_expanders()
        opened = view.main_text() + "\n" + view.other_tabs_text()
        view.assert_no_exception()
        all_open[page.stem] = words(opened)
        texts.append((page.stem, opened))
        for kind, text in (("revealed", shown), ("all-open", opened)):  # what was counted
            (TEXTS / f"{page.stem}-{kind}.txt").write_text(text, encoding="utf-8")
    print(f"{'page':18s} {'revealed':>9s} {'all open':>9s} {'budget':>13s} {'px':>6s}")
    for stem, (most, most_open) in BUDGETS.items():
        print(
            f"{stem:18s} {revealed[stem]:9,} {all_open[stem]:9,} "
            f"{most:6,}/{most_open:6,} {heights[stem]:6,}"
        )
    print(f"{'lesson path':18s} {sum(revealed.values()):9,} {sum(all_open.values()):9,}")
    report.record("lesson_path", "words_once_revealed", revealed)
    report.record("lesson_path", "words_all_open", all_open)
    report.record("lesson_path", "height_px_at_first_load", heights)
    over = {
        stem: (revealed[stem], all_open[stem])
        for stem, (most, most_open) in BUDGETS.items()
        if revealed[stem] > most or all_open[stem] > most_open
    }
    assert over == {}, f"over budget (revealed, all open): {over}"
    assert sum(revealed.values()) <= WORDS_ONCE_REVEALED
    assert sum(all_open.values()) <= WORDS_ALL_OPEN
    assert max(heights.values()) <= TALLEST_PAGE_PX, heights
    late = taught_too_late(texts)
    assert late == [], "\n".join(late)
    assert given_away_earlier(texts) == []


def given_away_earlier(texts: list[tuple[str, str]]) -> list[str]:
    """Each earlier page of the path that shows what answers a later page's prediction."""
    stems = [stem for stem, _ in texts]
    found = []
    for later, patterns in ANSWERED_LATER.items():
        for stem, text in texts[: stems.index(later)]:
            found += [f"{stem} shows {p!r} before {later}" for p in patterns if re.search(p, text)]
    return found


def test_an_earlier_page_showing_a_goal_count_gives_goal_scaling_away():
    path = [("why_batches", "in 2,000 env-steps: 0 goals"), ("goal_scaling", "")]
    (found,) = given_away_earlier(path)
    assert found.startswith("why_batches shows") and found.endswith("before goal_scaling")
    assert given_away_earlier([("why_batches", "a goal pays +50"), ("goal_scaling", "")]) == []


def test_a_heading_two_levels_below_the_one_before_it_is_out_of_order():
    assert skipped_heading_levels([]) == []
    in_order = [(1, "Page"), (2, "Section"), (3, "Part"), (3, "Part"), (2, "Key takeaways")]
    assert skipped_heading_levels(in_order) == []
    assert skipped_heading_levels([(1, "Page"), (3, "Key takeaways")]) == [
        "h1 then h3 'Key takeaways'"
    ]
    assert skipped_heading_levels([(2, "Section"), (4, "Deep")]) == [
        "starts at h2 'Section'",
        "h2 then h4 'Deep'",
    ]


# Points across a keyed widget's control (scrolled into view), and whether what the browser
# finds at each (what a tap there would hit) belongs to that widget.
_HIT_JS = """([key, selector]) => {
  const widget = document.querySelector(`.st-key-${key}`);
  const control = widget && widget.querySelector(selector);
  if (!control) return null;
  control.scrollIntoView({block: 'center'});
  const box = control.getBoundingClientRect();
  return [0.1, 0.5, 0.9].map((at) => widget.contains(document.elementFromPoint(
    box.left + box.width * at, box.top + box.height / 2)));
}"""


@pytest.mark.parametrize("width", [390, 640])
def test_small_screens_reach_the_controls_that_a_probe_found_covered(view: AppView, width):
    """At 390 and 640 px: From batches to training data's mode can be set to SAME_STEP, and
    nothing covers Goal scaling's "Runs of each" slider (a tap on it reaches it; the
    keyboard moves it)."""
    view.page.set_viewport_size({"width": width, "height": 844})
    view.goto("training_data")
    view.choose("training_data_mode", "SAME_STEP", until=lambda: "SAME_STEP" in view.query()
                .get("mode", []))  # fmt: skip
    view.goto("goal_scaling")
    view.click("goal_scaling_goals_skip", until=lambda: view.has_widget("goal_scaling_runs"))
    hits = view.page.evaluate(_HIT_JS, ["goal_scaling_runs", '[data-testid="stSlider"]'])
    assert hits == [True, True, True], width
    view.set_slider("goal_scaling_runs", 2)  # the third choice (counting from 0): 100 runs
    assert view.query().get("runs") == ["100"]
    view.assert_no_exception()


# Past every limit at once: the pages then explain the limits they applied.
OVER_THE_LIMITS = {"n": 1_000_000, "steps": 10**10, "seeds": 10_000}


@pytest.mark.parametrize("app_page", PAGES, ids=[page.stem for page in PAGES])
def test_the_learner_reads_no_internals(view: AppView, app_page):
    """No environment-variable name, no Streamlit machinery, no doubled phrase in the prose,
    with every limit passed (the notes on the limits show), every prediction revealed and
    every expander open."""
    view.goto(app_page.url_path, OVER_THE_LIMITS)
    view.assert_no_exception()
    found = internals(view.prose())
    view.reveal()
    view.open_expanders()
    view.assert_no_exception()
    assert found + internals(view.prose()) == []
