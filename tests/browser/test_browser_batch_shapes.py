"""Batch shapes' live view as a learner sees it in Chromium: its two columns of arrays never
draw over each other, on a wide screen or a narrow one, whatever the env's columns."""

from __future__ import annotations

import re
import time

import pytest
from app_driver import RUN_TIMEOUT_S, AppView, wait_until
from interactions import LIVE, batch_press, batch_reveal, batch_step
from page_apptest import unrendered_markdown

pytestmark = pytest.mark.browser

# Each column of a side-by-side block in the live view, with how far its widest element
# reaches past the column's right edge (0 when it fits), whether the column scrolls its
# content sideways (overflowing content that is not clipped spills over), and where the
# column is.
_COLUMNS_JS = """() => {
  const rows = [...document.querySelectorAll('.bb-call-view > div')].filter(
    (el) => getComputedStyle(el).display === 'flex');
  return rows.map((row) => [...row.children].map((column) => {
    const box = column.getBoundingClientRect();
    const reach = Math.max(0, ...[...column.querySelectorAll('*')].map(
      (el) => el.getBoundingClientRect().right - box.right));
    const clips = getComputedStyle(column).overflowX !== 'visible';
    return {reach, scrolls: clips && column.scrollWidth > column.clientWidth + 1,
            left: box.left, right: box.right, top: box.top, bottom: box.bottom};
  }));
}"""


def _overlap(a: dict, b: dict) -> float:
    width = min(a["right"], b["right"]) - max(a["left"], b["left"])
    height = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, width) * max(0.0, height)


@pytest.mark.parametrize("width", [1400, 760])
@pytest.mark.parametrize("env", ["cartpole-v1", "burgerbot"])
def test_the_live_views_columns_never_draw_over_each_other(view: AppView, env, width):
    view.page.set_viewport_size({"width": width, "height": 900})
    view.goto("batch_shapes", {"env": env})
    batch_reveal(view)
    _assert_apart(_columns(view))  # the reset
    batch_press(view, "step", lambda: batch_step(view) == 1, script=None)
    _assert_apart(_columns(view))
    view.assert_no_exception()


def _columns(view: AppView) -> list[list[dict]]:
    """The live view's side-by-side columns, once the view is in the page (it is drawn by a
    component, just after the run that sends it)."""
    wait_until(lambda: view.page.evaluate(_COLUMNS_JS), RUN_TIMEOUT_S, "the live view")
    return view.page.evaluate(_COLUMNS_JS)


def _assert_apart(rows: list[list[dict]]) -> None:
    for columns in rows:
        for column in columns:
            # Content wider than its column must scroll inside it, not spill onto the next.
            assert column["reach"] <= 1 or column["scrolls"], columns
        for i, first in enumerate(columns):
            for second in columns[i + 1 :]:
                assert _overlap(first, second) == 0, columns


_VIEW_HTML_JS = """() => [...document.querySelectorAll('.bb-call-view')]
  .map((view) => view.innerHTML).join('\\n')"""

RENDER_STEPS = 12


def test_the_live_view_shows_no_unrendered_markdown(view: AppView):
    """What Chromium shows in the live view, call by call through episode ends: no ``**``,
    no backtick pair, no ``](`` left as text (a link that did not render)."""
    view.goto("batch_shapes", {"env": "burgerbot"})
    batch_reveal(view)
    ended_notes = 0
    for step in range(RENDER_STEPS + 1):
        if step:
            batch_press(view, "step", lambda s=step: batch_step(view) == s, script=None)
        html = view.page.evaluate(_VIEW_HTML_JS)
        assert html, "no live view in the page"
        assert not unrendered_markdown(html), (step, unrendered_markdown(html), html[:2000])
        ended_notes += html.count("Episode ended in env")
    assert ended_notes, f"no episode ended in {RENDER_STEPS} steps: no ended note was checked"
    view.assert_no_exception()


# The pole chart in the view: its bars, its data fold (open or not), and where it sits.
_POLES_JS = """() => {
  const view = document.querySelector('.bb-call-view');
  const svg = view && view.querySelector('svg');
  const fold = view && view.querySelector('details[data-name="poles"]');
  if (!svg || !fold) return null;
  const box = svg.getBoundingClientRect();
  return {bars: [...svg.querySelectorAll('rect.bar title')].map((t) => t.textContent),
          open: fold.open,
          rows: [...fold.querySelectorAll('tbody tr')].map((tr) => tr.textContent),
          left: box.left, right: box.right, width: box.width,
          viewRight: view.getBoundingClientRect().right};
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_cartpoles_chart_steps_in_the_page_and_keeps_its_open_table(view: AppView, width):
    """CartPole's pole chart is part of each call's view: Step once runs no script, the bars
    and the data table follow the call, an open table stays open, and the chart fits."""
    view.page.set_viewport_size({"width": width, "height": 900})
    view.goto("batch_shapes", {"env": "cartpole-v1"})
    batch_reveal(view)
    wait_until(lambda: view.page.evaluate(_POLES_JS), RUN_TIMEOUT_S, "the pole chart")
    first = view.page.evaluate(_POLES_JS)
    assert len(first["bars"]) == 4 and len(first["rows"]) == 4 and not first["open"]
    assert first["left"] >= 0 and first["right"] <= first["viewRight"] + 1, first
    view.page.locator('.bb-call-view details[data-name="poles"] summary').click()
    seen = [first["bars"]]
    for step in (1, 2, 3):
        batch_press(view, "step", lambda s=step: batch_step(view) == s, script=False)
        now = view.page.evaluate(_POLES_JS)
        assert now["open"] and len(now["rows"]) == 4 and len(now["bars"]) == 4
        assert now["bars"] not in seen  # the bars follow the call
        seen.append(now["bars"])
    view.assert_no_exception()


def _focused_call(view: AppView) -> str | None:
    """The ``data-call`` of the stepper button holding the keyboard's focus (None: elsewhere)."""
    return view.page.evaluate("() => document.activeElement?.dataset?.call ?? null")


def test_the_keyboard_focus_stays_on_the_stepper_control_pressed(view: AppView):
    """Enter on Step ×10 (in the page, then past the calls held: the page fetches), on Play
    and on Pause: focus stays on that control (Play's place is Pause's once it plays)."""

    def enter_on(call: str) -> None:
        button = view.stepper_button(LIVE, call)
        # While the page fetches, a button waits (aria-disabled) and keeps the focus.
        wait_until(button.is_enabled, RUN_TIMEOUT_S, call)
        view.page.keyboard.press("Enter")

    view.goto("batch_shapes?n=4&seed=0")
    batch_reveal(view)
    view.stepper_button(LIVE, "steps").focus()
    for target in (10, 20, 30, 40):  # 20 calls are held ahead: the third press fetches
        enter_on("steps")
        wait_until(lambda t=target: batch_step(view) == t, RUN_TIMEOUT_S, f"step {target}")
        assert _focused_call(view) == "steps", target
    view.stepper_button(LIVE, "play").focus()
    enter_on("play")
    wait_until(lambda: view.stepper_button(LIVE, "pause").count(), RUN_TIMEOUT_S, "Pause")
    assert _focused_call(view) == "pause"
    enter_on("pause")
    wait_until(lambda: view.stepper_button(LIVE, "play").count(), RUN_TIMEOUT_S, "Play")
    assert _focused_call(view) == "play"
    view.assert_no_exception()


def test_rapid_presses_end_at_the_step_count_pressed_and_reset_recovers(view: AppView):
    """Step once clicked 200 times as fast as the mouse can (no wait between clicks, so many
    land while the page fetches), then Enter held down on it for 40 repeats: the view ends at
    exactly the calls pressed, and while presses wait for the page the stepper says why.
    Reset then starts the run over."""
    view.goto("batch_shapes?n=4&seed=0")
    batch_reveal(view)
    step = view.stepper_button(LIVE, "step")
    box = step.bounding_box()
    status = view.widget(LIVE).locator('[role="status"]')
    said = set()
    for press in range(200):
        view.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        if press % 10 == 9:
            said.add(status.inner_text() if status.count() else "")
    wait_until(lambda: batch_step(view) == 200, RUN_TIMEOUT_S, "step 200")
    step.focus()
    for _ in range(40):
        view.page.keyboard.down("Enter")  # a key held down: repeated keydowns
    view.page.keyboard.up("Enter")
    wait_until(lambda: batch_step(view) == 240, RUN_TIMEOUT_S, "step 240")
    # What it said while presses waited (if the page answered slower than the presses came).
    assert all(re.fullmatch(r"|Going to step \d+: .+|Waiting for the server…", t) for t in said)
    print("stepper status while pressing:", sorted(said))
    wait_until(lambda: not status.inner_text(), 30, "idle")
    batch_press(view, "reset", lambda: batch_step(view) == 0, script=True)
    batch_press(view, "step", lambda: batch_step(view) == 1, script=None)
    view.assert_no_exception()


_WIDE_JS = """() => [...document.querySelectorAll('.bb-call-view, .bb-call-view div')]
  .filter((box) => ['auto', 'scroll'].includes(getComputedStyle(box).overflowX)
                   && box.scrollWidth > box.clientWidth + 1)
  .map((box) => ({tab: box.getAttribute('tabindex'), label: box.getAttribute('aria-label')}))"""


@pytest.mark.parametrize("env", ["burgerbot", "cartpole-v1"])
def test_the_live_views_wide_boxes_scroll_by_keyboard_on_a_phone(view: AppView, env):
    """At 390 px, every box of the live view whose content is wider than it takes the focus
    (Tab) and scrolls sideways with the arrow keys."""
    view.page.set_viewport_size({"width": 390, "height": 800})
    view.goto("batch_shapes", {"env": env})
    batch_reveal(view)
    batch_press(view, "step", lambda: batch_step(view) == 1, script=None)
    wide = view.page.evaluate(_WIDE_JS)
    assert wide, "nothing in the live view is wider than a 390 px screen: nothing to check"
    assert all(box["tab"] == "0" and box["label"] for box in wide), wide
    box = view.page.locator(".bb-call-view[tabindex='0'], .bb-call-view div[tabindex='0']").first

    def scrolled_by_keyboard() -> bool:
        # Again until it moves: a rerun arriving late may redraw the view (the focus then
        # falls to the page), and Chromium scrolls smoothly, over a few frames.
        box.focus()
        for _ in range(5):
            view.page.keyboard.press("ArrowRight")
        time.sleep(0.3)
        return box.evaluate("(box) => box.scrollLeft") > 0

    wait_until(scrolled_by_keyboard, 20, "a wide box to scroll with the arrow keys")
    view.assert_no_exception()
