"""Chromium tabs with an in-page stopwatch: click time to visible update and to run finished.

The browser, its flags and the in-page run counter are the browser tests' own
(`tools.browser_runs`). Playwright is a development dependency: this module imports it only
inside functions, and `__main__` checks that it is there before anything starts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tools.browser_runs import RUNS_FINISHED_JS, SETTLED_JS
from tools.browser_runs import new_context as _tracked_context

__all__ = ["Tab", "Timing", "new_context"]

RUN_TIMEOUT_S = 180.0  # bounds a hang on a shared machine; not a performance threshold

# Runs in every page before Streamlit's own code, after `tools.browser_runs.RUN_TRACKER_JS`
# (which counts the finished script runs and says when the app has settled).
#
# The stopwatch: a capturing click listener stamps each click's time, and `__benchWatch`
# checks on every animation frame (just before the browser paints) whether the expected
# text is in the main area (visible update) and whether a run that finished after the
# click left the app idle (run finished). Both times are taken inside the page, so
# Playwright's own round trips are not part of the figures.
PAGE_JS = """
(() => {
  window.__clickAt = null;
  window.addEventListener("click", () => { window.__clickAt = performance.now(); }, true);
  const title = () => {
    const heading = document.querySelector('[data-testid="stMain"] h1');
    return heading ? heading.textContent.trim() : "";
  };
  // Long tasks (main-thread work of 50 ms or more: React building elements, a chart drawing
  // itself) as [start, end]: the page is drawn once they stop coming (see DRAWN_JS).
  const longTasks = [];
  window.__benchLongTasks = longTasks;
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        longTasks.push([entry.startTime, entry.startTime + entry.duration]);
      }
      if (longTasks.length > 500) longTasks.splice(0, longTasks.length - 500);
    }).observe({ type: "longtask" });
  } catch (error) { window.__benchNoLongTasks = String(error); }
  window.__benchTitle = title;
  window.__benchWatch = (spec) => {
    const w = { visibleAt: null, settledAt: null, spec };
    window.__benchW = w;
    const tick = () => {
      const now = performance.now();
      if (w.visibleAt === null && spec.text !== null) {
        const main = document.querySelector('[data-testid="stMain"]');
        if (main && main.textContent.includes(spec.text)) w.visibleAt = now;
      }
      // spec.since === null: the click runs nothing on the server (the page answers by
      // itself), so the app only has to be idle.
      if (w.settledAt === null && window.__clickAt !== null && window.__stSettled(spec.since)
          && (spec.title === null || title() === spec.title)) w.settledAt = now;
      if (w.settledAt === null || (spec.text !== null && w.visibleAt === null)) {
        requestAnimationFrame(tick);
      }
    };
    requestAnimationFrame(tick);
  };
})();
"""

WATCH_DONE_JS = """
() => {
  const w = window.__benchW;
  return w && w.settledAt !== null && (w.spec.text === null || w.visibleAt !== null);
}
"""

WATCH_RESULT_JS = """
() => ({ clickAt: window.__clickAt, visibleAt: window.__benchW.visibleAt,
         settledAt: window.__benchW.settledAt, runs: window.__stRuns })
"""

# The keys of the prediction skip buttons on the page that still offer to skip
# (`learning.revealed`: key ``<id>_skip``; once pressed, the same button offers "Hide the answer").
SKIP_KEYS_JS = """
() => [...document.querySelectorAll('[data-testid="stMain"] [class*="st-key-"]')]
  .filter((e) => e.querySelector("button")?.innerText.trim() === "Skip, show me")
  .flatMap((e) => [...e.classList])
  .filter((c) => c.startsWith("st-key-") && c.endsWith("_skip"))
  .map((c) => c.slice("st-key-".length))
"""

QUIET_MS = 300
"""The page counts as drawn once no long task has begun for this long after the run finished
(or after the last long task that followed it): a Time-to-Interactive-like quiet window,
shorter than TTI's 5 s because nothing on these pages is meant to go on working."""

# Resolves to the time the page was drawn (ms, page clock) once a quiet window has passed:
# the end of the last long task in the chain that starts at the run's end, each task
# beginning within QUIET_MS of the one before.
DRAWN_JS = """
(quiet) => {
  const w = window.__benchW;
  let end = w.settledAt;
  const tasks = window.__benchLongTasks.filter(([start]) => start >= window.__clickAt);
  tasks.sort((a, b) => a[0] - b[0]);
  for (const [start, stop] of tasks) {
    if (start <= end + quiet) end = Math.max(end, stop);
  }
  return performance.now() >= end + quiet ? end : null;
}
"""


def new_context(browser: Any) -> Any:
    """A browser context (its own cookies, so its own Streamlit session) whose pages count
    their script runs and carry the stopwatch."""
    return _tracked_context(browser, PAGE_JS)


@dataclass(frozen=True)
class Timing:
    """One measured interaction, in milliseconds from the click event in the page."""

    visible_ms: float | None
    """Until the expected text was in the main area (None when no text was awaited)."""
    settled_ms: float
    """Until a script run that finished after the click left the app idle."""
    drawn_ms: float | None = None
    """Until the page had also drawn what that run sent: the run finished and the long
    tasks after it (``DRAWN_JS``) were over. None when not asked for."""


class Tab:
    """A browser tab on one server, with waits keyed to Streamlit's own script runs."""

    def __init__(self, context: Any, base_url: str) -> None:
        self.page = context.new_page()
        self.base_url = base_url
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def runs_finished(self) -> int:
        return self.page.evaluate(RUNS_FINISHED_JS)

    def wait_settled(self, since: int, timeout: float = RUN_TIMEOUT_S) -> None:
        """Wait until a run that finished after run number ``since`` left the app idle."""
        self.page.wait_for_function(SETTLED_JS, arg=since, timeout=timeout * 1000, polling=50)

    def goto(self, path: str = "", timeout: float = RUN_TIMEOUT_S) -> float:
        """Open a page by its URL and wait for its first run; returns the seconds it took."""
        start = time.monotonic()
        self.page.goto(f"{self.base_url}/{path}", wait_until="commit")
        self.wait_settled(0, timeout)
        return time.monotonic() - start

    def title(self) -> str:
        """The page's title as shown: the first heading of the main area."""
        return self.page.evaluate("() => window.__benchTitle()")

    def main_text(self) -> str:
        return self.page.locator('[data-testid="stMain"]').inner_text()

    def exceptions(self) -> list[str]:
        boxes = self.page.locator('[data-testid="stException"]')
        return [box.inner_text()[:300] for box in boxes.all()]

    def widget(self, key: str) -> Any:
        """The element of a keyed widget (Streamlit gives it the CSS class ``st-key-<key>``)."""
        return self.page.locator(f".st-key-{key}")

    def has_widget(self, key: str) -> bool:
        return self.widget(key).count() > 0

    def skip_predictions(self, limit: int = 10) -> int:
        """Press every "Skip, show me" on the page (a prediction's skip button: its key ends
        in ``_skip``; pressed, it says "Hide the answer"), one at a time as a learner would,
        each until its run is drawn; returns how many. A page is then as a learner sees it
        once its questions are answered."""
        pressed = 0
        while pressed < limit:
            keys = self.page.evaluate(SKIP_KEYS_JS)
            if not keys:
                break
            self.timed(self.widget(keys[0]).locator("button"), drawn=True)
            pressed += 1
        return pressed

    def sidebar_link(self, title: str) -> Any:
        """The sidebar's link to the page listed under ``title`` (text: icon, then title)."""
        links = self.page.locator('[data-testid="stSidebarNavLink"]')
        titles = [text.strip().splitlines()[-1].strip() for text in links.all_inner_texts()]
        if title not in titles:
            raise LookupError(f"no sidebar link {title!r}; the sidebar shows {titles}")
        return links.nth(titles.index(title))

    def timed(
        self,
        click: Any,
        text: str | None = None,
        title: str | None = None,
        timeout: float = RUN_TIMEOUT_S,
        server_run: bool = True,
        drawn: bool = False,
    ) -> Timing:
        """Click ``click`` (a locator) and time the update it causes, inside the page.

        ``text``: wait for it to appear in the main area too (the visible update).
        ``title``: the run counts as finished only once the page's title reads so.
        ``server_run``: whether the click starts a script run; False for a control that
        answers in the page itself (the timing then ends when the text is shown and the app
        is idle).
        ``drawn``: also time until the page has drawn what the run sent (``Timing.drawn_ms``);
        this waits for a quiet window of ``QUIET_MS`` after it, so the next click starts
        from a page at rest.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        # A tab in the background may paint late: the measured one is always in front.
        self.page.bring_to_front()
        since = self.runs_finished()
        spec = {"since": since if server_run else None, "text": text, "title": title}
        self.page.evaluate(
            "(spec) => { window.__clickAt = null; window.__benchWatch(spec); }", spec
        )
        click.click(timeout=timeout * 1000)
        try:
            self.page.wait_for_function(WATCH_DONE_JS, timeout=timeout * 1000, polling=20)
        except PlaywrightTimeout:
            raise TimeoutError(
                f"{self.page.url}: no update after the click within {timeout:.0f} s "
                f"(awaiting text {text!r}, title {title!r}); exceptions: {self.exceptions()}"
            ) from None
        result = self.page.evaluate(WATCH_RESULT_JS)
        if result["clickAt"] is None:
            raise RuntimeError(f"{self.page.url}: the click was not seen by the page")
        visible = result["visibleAt"]
        drawn_ms = None
        if drawn:
            handle = self.page.wait_for_function(
                DRAWN_JS, arg=QUIET_MS, timeout=timeout * 1000, polling=50
            )
            drawn_ms = round(handle.json_value() - result["clickAt"], 1)
        return Timing(
            visible_ms=None if visible is None else round(visible - result["clickAt"], 1),
            settled_ms=round(result["settledAt"] - result["clickAt"], 1),
            drawn_ms=drawn_ms,
        )
