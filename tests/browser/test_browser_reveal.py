"""Predict, then reveal, in Chromium (issue 21): for every prediction of every page, the
page's visible text before "Lock in" holds none of the facts that decide the answer (the
prediction's own box aside: its options are the candidate answers); after locking in, the
verdict is there and so are those facts. The first is locked in by keyboard: the focus stays
on its button, the sidebar counts it (issue 38).

The deciding facts of each prediction are the live run's answer as the verdict states it,
and, where that answer is a common word ("Sync", "yes"), the figures it rests on, listed in
`DECIDING` as patterns that the revealed page must show.
"""

from __future__ import annotations

import re

import pytest
from app_driver import AppView, planned_pages

pytestmark = pytest.mark.browser

PAGES = planned_pages()
RIGHT = re.compile(r"Your prediction was right:\s*(.+?)\.(?:\s|$)")
WRONG = re.compile(r"(?:the live run|the recorded run|these checks) gave (.+?)\.(?:\s|$)")
PREDICTED = re.compile(r"You predicted (.+?); (?:the|these)")
# A run that could not decide (a timing too close to call on a loaded machine): not scored.
UNDECIDED = re.compile(r"could not decide this question, so it is not scored")
# Answers too common to search for: the facts that decide them instead (regular expressions
# the revealed page matches and the page before lock-in must not).
DECIDING: dict[str, list[str]] = {
    # "0 goals": the count the live run gave, and the exact expectation.
    "goal_scaling_goals": [r"4 envs × 500 steps: goals\s+\d+", r"0\.0453"],
    # "fork": this machine's default, as the check states it (the Glossary's entries name
    # every start method, as they should).
    "glossary_start_method": [r"default start method here is '\w+'"],
    # "SyncVectorEnv" (a class the page names throughout): the timed call that decides it.
    "sync_vs_async_faster": [r"took [\d.,]+ µs with Sync and [\d.,]+ µs with Async"],
}
# Pages whose check needs one more click once the prediction is answered (a run on demand).
RUN_AFTER_LOCK_IN = {
    "learning_speed": "learning_speed_train",
    "sync_vs_async": "sync_vs_async_lesson",
    "cost_sweeps": "cost_sweeps_run",
}
PREDICTION_BOX = '[class*="st-key-prediction_"]'


def locked_in_by_keyboard(view: AppView, box, lock, pid: str) -> None:
    """Enter on Lock in: the answer locks in, the keyboard's focus stays on the button (now
    "Change it"), the sidebar counts the prediction, and the page says whether it was right
    exactly when the sidebar counts it as checked."""
    assert "Predict first" in box.inner_text()
    assert lock.is_enabled()
    lock.focus()
    view.act(lambda: view.page.keyboard.press("Enter"))
    view.assert_no_exception()
    assert "Locked in:" in box.inner_text()
    assert view.focused() == (f"{pid}_lock", "Change it")
    score = view.page.locator('[data-testid="stSidebar"]').inner_text()
    assert re.search(r"Predictions: 1 made, [01] of [01] checked right", score), score
    text = view.main_text()
    checked = "of 1 checked right" in score
    assert checked == ("Your prediction was right" in text or "You predicted" in text), score


def _outside_predictions(view: AppView) -> str:
    """The main area's visible text without the prediction boxes (their options)."""
    text = view.main_text()
    for box in view.page.locator(PREDICTION_BOX).all_inner_texts():
        text = text.replace(box, "")
    return text


def _verdicts(view: AppView) -> list[tuple[str | None, str | None]]:
    """(what the learner predicted, what the run gave) for each verdict, in page order;
    (None, None) for a verdict the run could not decide."""
    found = []
    for alert in view.page.locator('[data-testid="stMain"] [data-testid="stAlert"]').all():
        text = alert.inner_text()
        if right := RIGHT.search(text):
            found.append((right.group(1).strip(), right.group(1).strip()))
        elif (wrong := WRONG.search(text)) and (said := PREDICTED.search(text)):
            found.append((said.group(1).strip(), wrong.group(1).strip()))
        elif UNDECIDED.search(text):
            found.append((None, None))
    return found


@pytest.mark.parametrize("app_page", PAGES, ids=[page.stem for page in PAGES])
def test_no_prediction_gives_its_answer_away_before_lock_in(view: AppView, app_page):
    """Every prediction of the page is answered (its first option; the first locked in by
    keyboard), then each verdict's deciding facts are looked for in the text the page showed
    before any lock-in."""
    view.goto(app_page.url_path)
    view.assert_no_exception()
    sidebar = view.page.locator('[data-testid="stSidebar"]')
    assert "Predictions: none yet" in sidebar.inner_text()
    boxes = view.page.locator(PREDICTION_BOX)
    assert boxes.count(), f"{app_page.file} asks for no prediction"
    before = _outside_predictions(view)
    assert "Key takeaways" in before and "Your prediction" not in before
    pids, choices = [], []
    for index in range(boxes.count()):
        box = view.page.locator(PREDICTION_BOX).nth(index)
        pids.append(
            next(
                c.removeprefix("st-key-prediction_")
                for c in (box.get_attribute("class") or "").split()
                if c.startswith("st-key-prediction_")
            )
        )
        option = box.locator('[role="radiogroup"] label').first
        choices.append(option.inner_text().strip())
        view.act(option.click)
        lock = box.get_by_role("button", name="Lock in")
        if index:
            view.act(lock.click)
        else:  # the first by keyboard, as `locked_in_by_keyboard` checks
            locked_in_by_keyboard(view, box, lock, pids[0])
        view.assert_no_exception()
    if app_page.stem in RUN_AFTER_LOCK_IN:
        view.click(RUN_AFTER_LOCK_IN[app_page.stem])
    verdicts = _verdicts(view)
    said = [said for said, _ in verdicts]
    assert said == [None if s is None else c for s, c in zip(said, choices, strict=True)], (
        verdicts,
        choices,
    )
    after = view.main_text()
    for pid, (_, truth) in zip(pids, verdicts, strict=True):
        if truth is None:  # undecided: no answer to give away
            continue
        for fact in DECIDING.get(pid, [re.escape(truth)]):
            assert re.search(fact, after), f"{pid}: the reveal does not show {fact!r}"
            assert not re.search(fact, before), f"{pid}: {fact!r} is on screen before lock-in"
