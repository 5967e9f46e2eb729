"""Drive the app like a visitor: start `streamlit run`, watch its processes, steer Chromium.

Shared by the browser tests (`tests/browser/`) and the fresh-venv test (`tests/test_deploy.py`).
Nothing here sleeps for a fixed time: every wait polls for a condition, with a deadline.
"""

from __future__ import annotations

import ast
import functools
import itertools
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Shared with the latency benchmark: Chromium, its flags and the in-page run counter
# (tools/browser_runs.py), and the process helpers. Both are development tools, in folders at
# the project's root; the app and the library import neither.
from tools.browser_runs import RUNS_FINISHED_JS, SETTLED_JS, missing_browser
from tools.browser_runs import new_context as _tracked_context

# The one `streamlit run` launcher (tools/streamlit_server.py); the tests import it from here.
from tools.streamlit_server import TEST_SERVER_OPTIONS as TEST_SERVER_OPTIONS
from tools.streamlit_server import RssSampler as RssSampler
from tools.streamlit_server import StreamlitServer as StreamlitServer
from tools.streamlit_server import http_get as http_get
from tools.streamlit_server import wait_until as wait_until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"

# Generous deadlines: the machine may be shared and slow. They bound a hang, they are not
# performance thresholds.
RUN_TIMEOUT_S = 180.0

IN_CI = os.environ.get("CI", "").lower() == "true"


def require_browser() -> None:
    """Skip the calling test when Chromium or Playwright is missing; fail instead in CI."""
    import pytest

    problem = missing_browser()
    if problem is None:
        return
    if IN_CI:
        pytest.fail(f"CI=true but the browser tests cannot run: {problem}", pytrace=False)
    pytest.skip(f"real-browser test skipped: {problem}")


# --- Pages -----------------------------------------------------------------------------------

PAGES_DIR = "app_pages"  # where the router (streamlit_app.py) finds the page files


@dataclass(frozen=True)
class AppPage:
    """One page of the app as listed in `streamlit_app.PAGES`."""

    section: str
    file: str
    title: str
    icon: str

    @property
    def stem(self) -> str:
        return self.file.removesuffix(".py")

    @property
    def url_path(self) -> str:
        """The path Streamlit serves the page at (the default page lives at the root)."""
        return "" if self.file == "home.py" else self.stem

    @property
    def path(self) -> str:
        """The page file relative to the app's root, as `st.Page` and AppTest name it."""
        return f"{PAGES_DIR}/{self.file}"


def planned_pages(root: Path = ROOT) -> list[AppPage]:
    """Every page the router lists, read from `streamlit_app.py` without running Streamlit."""
    tree = ast.parse((root / "streamlit_app.py").read_text())
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "PAGES" for t in targets):
            return [AppPage(*entry) for entry in ast.literal_eval(node.value)]
    raise LookupError("streamlit_app.py defines no PAGES list")


def repo_files(root: Path = ROOT) -> set[str]:
    """Every file below the app's folder except test output, caches and version control."""
    skip = {".git", "test-artifacts", "__pycache__", ".pytest_cache", ".ruff_cache", ".venv"}
    found = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames:
            found.add(os.path.relpath(os.path.join(dirpath, name), root))
    return found


# --- The browser -----------------------------------------------------------------------------

EXCEPTION = '[data-testid="stException"]'

# Text a learner cannot read whole: an element of the main area that shows an ellipsis (its
# text-overflow is "ellipsis", or a chart's SVG text ends in "…", as Vega cuts a legend label
# or a title) or whose text is wider than its box while its overflow is hidden (a button,
# a select's value, a label, a table cell). Hidden elements and scrollable boxes (code blocks
# scroll sideways on purpose) do not count. st.dataframe draws its cells on a canvas: its
# columns cannot be read here.
_CUT_TEXT_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return [];
  const cut = [];
  const say = (kind, el) =>
    cut.push(kind + ': ' + (el.innerText || el.textContent || '').trim().slice(0, 80));
  for (const el of main.querySelectorAll('*')) {
    if (el.closest('svg') || !el.getClientRects().length) continue;
    const text = (el.innerText || '').trim();
    if (!text) continue;
    const style = getComputedStyle(el);
    const wider = el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0;
    if (!wider) continue;
    if (style.overflowX === 'auto' || style.overflowX === 'scroll') continue;
    if (style.textOverflow === 'ellipsis') { say('ellipsis', el); continue; }
    if (style.overflowX === 'hidden' && el.children.length === 0) say('cut', el);
  }
  // Vega cuts a label to its limit with a trailing "…" glued to the last letter; a label that
  // ends a list on purpose ("episodes 0, 2, 4, …") has a space before it.
  for (const t of main.querySelectorAll('svg text')) {
    const text = (t.textContent || '').trim();
    if (/[^\\s]…$/.test(text)) cut.push('chart text: ' + text);
  }
  return [...new Set(cut)];
}"""
# The page wider than the window: the learner would scroll sideways.
_PAGE_OVERFLOW_JS = """() => {
  const doc = document.documentElement;
  const main = document.querySelector('[data-testid="stMain"]');
  return Math.max(doc.scrollWidth - doc.clientWidth,
                  main ? main.scrollWidth - main.clientWidth : 0);
}"""
_CHARTS_DRAWN_JS = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
  .every((chart) => chart.querySelector('.vega-embed canvas, .vega-embed svg'))"""
# A chart spills over when its picture reaches past the right edge of the block it sits in
# (a column, or the page's main block): Vega draws a fixed-width chart as wide as it is.
_CHARTS_PAST_JS = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
  .flatMap((chart, i) => {
    const picture = chart.querySelector('.vega-embed canvas, .vega-embed svg');
    const block = chart.closest('[data-testid="stVerticalBlock"]');
    const past = picture.getBoundingClientRect().right - block.getBoundingClientRect().right;
    const title = picture.getAttribute('aria-label') || `chart ${i + 1} on the page`;
    return past > 1 ? [`${title}: ${Math.round(past)} px past its column`] : [];
  })"""


def new_context(browser: Any) -> Any:
    """A browser context (its own cookies, so its own Streamlit session) counting runs."""
    return _tracked_context(browser)


class AppView:
    """A browser tab on the app, with waits keyed to Streamlit's own script-run state."""

    def __init__(self, page: Any, server: StreamlitServer) -> None:
        self.page = page
        self.server = server
        self.console_errors: list[str] = []
        page.on("pageerror", lambda error: self.console_errors.append(str(error)))

    # Runs ------------------------------------------------------------------------------

    def runs_finished(self) -> int:
        return self.page.evaluate(RUNS_FINISHED_JS)

    def wait_for_run(self, since: int, timeout: float = RUN_TIMEOUT_S) -> float:
        """Wait until a script run that finished after ``since`` runs leaves the app idle."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        start = time.monotonic()
        try:
            self.page.wait_for_function(SETTLED_JS, arg=since, timeout=timeout * 1000, polling=50)
        except PlaywrightTimeout:
            runs = self.page.evaluate("() => window.__stRuns")
            skeletons = self.page.locator('[data-testid="stSkeleton"]').count()
            with suppress(Exception):  # best effort: a picture of the stuck page
                self.screenshot(f"timeout-{int(time.time())}")
            raise TimeoutError(
                f"no script run finished after run {since} within {timeout:.0f} s on "
                f"{self.page.url}: runs {runs}, {skeletons} skeleton(s) left"
            ) from None
        return time.monotonic() - start

    def goto(
        self,
        path: str = "",
        query: Mapping[str, Any] | Sequence[tuple] | str = "",
        timeout: float = RUN_TIMEOUT_S,
    ) -> float:
        """Open a page and wait for its first run to finish; returns the seconds it took."""
        start = time.monotonic()
        self.page.goto(self.server.url(path, query), wait_until="commit")
        self.wait_for_run(0, timeout)
        return time.monotonic() - start

    def act(
        self,
        action: Callable[[], Any],
        until: Callable[[], Any] | None = None,
        timeout: float = RUN_TIMEOUT_S,
    ) -> float:
        """Do something that makes the script rerun, and wait for that rerun to finish.

        ``until`` (optional) says how to recognise the rerun's result: while a fragment
        reruns on a timer (playing), a run that finishes just after ``action`` may be a
        timer run rather than the one ``action`` caused, so runs are awaited until it holds.
        """
        start = time.monotonic()
        since = self.runs_finished()
        action()
        self.settle(since, until, timeout)
        return time.monotonic() - start

    def settle(
        self, since: int, until: Callable[[], Any] | None = None, timeout: float = RUN_TIMEOUT_S
    ) -> None:
        """Wait for a run after ``since`` to finish, then until ``until()`` holds."""
        start = time.monotonic()
        self.wait_for_run(since, timeout)
        while until is not None and not until():
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"{self.page.url} never showed the expected result")
            # The result may still be on its way to the screen (a busy machine paints late),
            # or come with a later run (a timer's): look again shortly, rather than wait for
            # another run, which never comes when this run's result is merely late.
            time.sleep(0.1)

    # Looking ---------------------------------------------------------------------------

    def exceptions(self) -> list[str]:
        return [box.inner_text() for box in self.page.locator(EXCEPTION).all()]

    def assert_no_exception(self) -> None:
        boxes = self.exceptions()
        assert not boxes, "Streamlit exception box on the page:\n" + "\n---\n".join(boxes)
        state = self.page.get_attribute('[data-testid="stApp"]', "data-test-script-state")
        assert state != "compilationError", "the page failed to compile"

    def charts_past_their_column(self, timeout: float = RUN_TIMEOUT_S) -> list[str]:
        """Each chart drawn wider than the column it sits in: how many pixels it spills over.

        Waits until every chart on the page has drawn its picture (Vega draws it after the
        run has finished).
        """
        wait_until(lambda: self.page.evaluate(_CHARTS_DRAWN_JS), timeout, "every chart to be drawn")
        return self.page.evaluate(_CHARTS_PAST_JS)

    def cut_text(self) -> list[str]:
        """Every text in the main area a learner sees cut (see `_CUT_TEXT_JS`)."""
        return self.page.evaluate(_CUT_TEXT_JS)

    def focused(self) -> tuple[str, str] | None:
        """The Streamlit key of the element holding the keyboard's focus, and its text."""
        found = self.page.evaluate(
            """() => {
                const element = document.activeElement;
                const keyed = element && element.closest('[class*="st-key-"]');
                if (!keyed) return null;
                return [keyed.className.match(/st-key-(\\S+)/)[1], element.innerText.trim()];
            }"""
        )
        return None if found is None else (found[0], found[1])

    def headings_out_of_order(self) -> list[str]:
        """Each place the main area's headings do not go in order (`skipped_heading_levels`)."""
        return skipped_heading_levels([tuple(h) for h in self.page.evaluate(_HEADINGS_JS)])

    def sideways_overflow(self) -> int:
        """How many pixels the page is wider than the window (0: no sideways scrolling)."""
        return self.page.evaluate(_PAGE_OVERFLOW_JS)

    def prose(self) -> str:
        """The main area's prose: every Markdown block, caption and message (not code)."""
        return "\n".join(
            self.page.locator(
                '[data-testid="stMain"] [data-testid="stMarkdownContainer"]'
            ).all_inner_texts()
        )

    def open_expanders(self) -> int:
        """Open every closed expander of the main area, one at a time; returns how many.

        An expander drawn on demand (`learning.lazy_expander`) reruns its fragment when opened:
        each click waits for the app to be idle again.
        """
        opened = 0
        for _ in range(30):
            closed = self.page.locator('[data-testid="stMain"] details:not([open]) > summary')
            if not closed.count():
                break
            self._click_and_settle(closed.first)
            opened += 1
        return opened

    def other_tabs_text(self) -> str:
        """The text of every tab panel of the main area that is not the one shown, each tab
        clicked in turn (the first tab of each set is left selected again)."""
        texts = []
        sets = self.page.locator('[data-testid="stMain"] [data-testid="stTabs"]')
        for index in range(sets.count()):
            tabs = sets.nth(index).locator('[role="tab"]')
            for number in range(1, tabs.count()):
                self._click_and_settle(tabs.nth(number))
                panel = sets.nth(index).locator('[role="tabpanel"]:visible')
                texts.append("\n".join(panel.all_inner_texts()))
            if tabs.count() > 1:
                self._click_and_settle(tabs.first)
        return "\n".join(texts)

    def _click_and_settle(self, element: Any) -> None:
        """Click what may or may not rerun the app (a tab, an expander drawn on demand), then
        wait for the app to be idle."""
        element.click()
        time.sleep(0.3)
        self.page.wait_for_function(SETTLED_JS, arg=None, timeout=RUN_TIMEOUT_S * 1000)

    def reveal(self) -> int:
        """Click every "Skip, show me" button on the page (each prediction's), one at a time;
        returns how many were clicked."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        clicked = 0
        for _ in range(10):
            # Counted and clicked with the app idle: a button found during a run may be
            # redrawn by the time it is clicked.
            self.page.wait_for_function(SETTLED_JS, arg=None, timeout=RUN_TIMEOUT_S * 1000)
            skip = self.page.locator('[class*="st-key-"][class*="_skip"] button').filter(
                has_text="Skip, show me"
            )
            if not skip.count():
                return clicked
            try:
                self.act(functools.partial(skip.first.click, timeout=20_000))
            except PlaywrightTimeout:
                # Once (CI, a busy machine) the button counted here was gone for the whole
                # click: look again from the top; what the page shows afterwards is asserted
                # by the caller. A picture of the moment is kept.
                with suppress(Exception):
                    self.screenshot(f"skip-vanished-{int(time.time())}")
                continue
            clicked += 1
        return clicked

    def title(self) -> str:
        heading = self.page.locator('[data-testid="stMain"] h1').first
        return heading.inner_text().strip() if heading.count() else ""

    def main_text(self) -> str:
        return self.page.locator('[data-testid="stMain"]').inner_text()

    def widget(self, key: str) -> Any:
        """The element of a keyed widget (Streamlit gives it the CSS class ``st-key-<key>``)."""
        return self.page.locator(f".st-key-{key}")

    def has_widget(self, key: str) -> bool:
        return self.widget(key).count() > 0

    def screenshot(self, name: str) -> Path:
        """A PNG of the whole page under test-artifacts/browser/.

        Streamlit scrolls inside its main container, so a "full page" screenshot of the
        document shows one screen only: the viewport is stretched to the content first.
        """
        path = ARTIFACTS / "browser" / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        size = self.page.viewport_size
        height = self.page.evaluate(
            """() => Math.max(...[...document.querySelectorAll(
                '[data-testid="stMain"], [data-testid="stAppViewContainer"], section'
            )].map((el) => el.scrollHeight), document.body.scrollHeight)"""
        )
        self.page.set_viewport_size({"width": size["width"], "height": min(int(height), 16000)})
        try:
            self.page.screenshot(path=str(path), full_page=True)
        finally:
            self.page.set_viewport_size(size)
        return path

    def query(self) -> dict[str, list[str]]:
        """The page's current URL query (the app mirrors its settings there)."""
        from urllib.parse import parse_qs, urlsplit

        return parse_qs(urlsplit(self.page.url).query, keep_blank_values=True)

    # Doing -----------------------------------------------------------------------------

    def click(
        self, key: str, until: Callable[[], Any] | None = None, timeout: float = RUN_TIMEOUT_S
    ) -> float:
        """Click a keyed button and wait for the rerun it causes (see `act`)."""
        button = self.widget(key).locator("button").first
        return self.act(button.click, until, timeout)

    def press(
        self,
        key: str,
        call: str,
        until: Callable[[], Any],
        timeout: float = RUN_TIMEOUT_S,
        *,
        script: bool | None = False,
    ) -> float:
        """Click a button of the in-page stepper keyed ``key`` (`call_stepper`) and wait for
        ``until``. ``script``: False checks that no script ran (the click was answered in
        the page), True waits for the run the click asks for, None allows either (a click
        that may ask for the next stretch of calls).
        """
        start = time.monotonic()
        since = self.runs_finished()
        self.stepper_button(key, call).click()
        if script:
            self.wait_for_run(since, timeout)
        while not until():
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"{self.page.url} never showed the expected result")
            time.sleep(0.02)
        seconds = time.monotonic() - start
        time.sleep(0.3)  # a run the click had started would have finished by now
        if script is False:
            assert self.runs_finished() == since, f"pressing {call!r} ran the script"
        else:  # whatever the click asked for has finished: the app is idle again
            self.page.wait_for_function(SETTLED_JS, arg=None, timeout=timeout * 1000, polling=50)
        return seconds

    def stepper_button(self, key: str, call: str) -> Any:
        """The stepper's button ``call`` (its ``data-call`` attribute, `call_stepper.BUTTONS`)."""
        return self.widget(key).locator(f'button[data-call="{call}"]')

    def set_number(
        self, key: str, value: float | str, until: Callable[[], Any] | None = None
    ) -> float:
        """Type into a keyed number (or text) input and press Enter (no-op if it holds it)."""
        box = self.widget(key).locator("input").first
        if box.input_value() == str(value):
            return 0.0

        def type_it() -> None:
            box.fill(str(value))
            box.press("Enter")

        return self.act(type_it, until)

    def choose(self, key: str, option: str, until: Callable[[], Any] | None = None) -> float:
        """Pick an option of a keyed selectbox, radio, segmented control or pills widget."""
        element = self.widget(key)
        if (
            element.locator('[data-testid="stSelectbox"]').count()
            or element.locator('[role="combobox"]').count()
        ):

            def pick() -> None:
                element.locator('[role="combobox"], input').first.click()
                self.page.get_by_role("option", name=option, exact=True).click()

            return self.act(pick, until)
        if element.locator('[role="radiogroup"]').count():
            return self.act(element.get_by_text(option, exact=True).click, until)
        return self.act(element.get_by_role("button", name=option, exact=True).click, until)

    def set_slider(self, key: str, value: float) -> float:
        """Move a keyed slider to ``value`` with the keyboard, one rerun per key press.

        Each press that changes the value makes Streamlit rerun; waiting for each one keeps
        the next step from racing a rerun still on its way.
        """
        thumb = self.widget(key).locator('input[type="range"]').first
        seconds = 0.0
        for _ in range(200):
            now = float(thumb.input_value())
            if now == float(value):
                return seconds
            press = "ArrowRight" if now < float(value) else "ArrowLeft"

            def move(press: str = press) -> None:
                thumb.focus()
                thumb.press(press)

            seconds += self.act(move)
            assert float(thumb.input_value()) != now, f"slider {key!r} did not move"
        raise AssertionError(f"slider {key!r} did not reach {value}")

    def slider_value(self, key: str) -> float:
        return float(self.widget(key).locator('input[type="range"]').first.input_value())


# --- The report ------------------------------------------------------------------------------


class Report:
    """Figures measured during the run, written to ``test-artifacts/browser-report.json``."""

    def __init__(self, path: Path = ARTIFACTS / "browser-report.json") -> None:
        self.path = path
        self.data: dict[str, Any] = {}

    def record(self, section: str, name: str, value: Any) -> None:
        self.data.setdefault(section, {})[name] = value
        self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.data, indent=2, sort_keys=True) + "\n")


def megabytes(n_bytes: float) -> float:
    return round(n_bytes / 2**20, 1)


# --- Accessibility ---------------------------------------------------------------------------

# Streamlit's own markup, not the app's (each also on a one-line app): the sidebar's page list
# (`list`, `listitem`) and st.code blocks (`scrollable-region-focusable`; and the syntax
# colours inside them, for contrast only).
STREAMLIT_OWN_RULES = frozenset({"list", "listitem", "scrollable-region-focusable"})
CODE_BLOCK = '[data-testid="stCode"]'
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def axe_violations(page: Any) -> dict[str, list[str]]:
    """axe-core's violations on the page (WCAG 2.x A/AA and best practice), Streamlit's own
    excepted: rule id -> the offending elements' selectors."""
    from axe_playwright_python.sync_playwright import Axe

    options = {"resultTypes": ["violations"], "runOnly": {"type": "tag", "values": AXE_TAGS}}
    found: dict[str, list[str]] = {}
    for rule in Axe().run(page, options=options).response["violations"]:
        if rule["id"] in STREAMLIT_OWN_RULES:
            continue
        targets = [" ".join(map(str, node["target"])) + _contrast(node) for node in rule["nodes"]]
        if rule["id"] == "color-contrast":
            inside_code = page.evaluate(
                "([sels, code]) => sels.map(s => !!document.querySelector(s)?.closest(code))",
                [[t.split(" @ ")[0] for t in targets], CODE_BLOCK],
            )
            targets = [t for t, inside in zip(targets, inside_code, strict=True) if not inside]
        if targets:
            found[rule["id"]] = targets
    return found


def _contrast(node: dict) -> str:
    """A contrast finding's figures (" @ 3.9:1 #aaa on #fff"), else ""."""
    data = next((check.get("data") for check in node.get("any", []) if check.get("data")), None)
    if not isinstance(data, dict) or "contrastRatio" not in data:
        return ""
    return f" @ {data['contrastRatio']}:1 {data.get('fgColor')} on {data.get('bgColor')}"


# The main area's headings in document order, each as [level, text] (h1 -> 1).
_HEADINGS_JS = """() => Array.from(
    document.querySelectorAll('[data-testid="stMain"] :is(h1, h2, h3, h4, h5, h6)'),
    h => [Number(h.tagName[1]), h.innerText.trim()])"""


def skipped_heading_levels(headings: list[tuple[int, str]]) -> list[str]:
    """Each place the headings do not go in order (axe's heading-order): the first is not
    an h1, or a heading goes more than one level below the one before it."""
    found = []
    if headings and headings[0][0] != 1:
        found.append(f"starts at h{headings[0][0]} {headings[0][1]!r}")
    for (before, _), (level, text) in itertools.pairwise(headings):
        if level > before + 1:
            found.append(f"h{before} then h{level} {text!r}")
    return found
