"""The benchmark's sequence: two servers, one Chromium, interleaved clicks, warm page switches."""

from __future__ import annotations

import ast
import contextlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.browser_runs import launch_chromium
from tools.latency.browser import SKIP_KEYS_JS, Tab, Timing, new_context
from tools.latency.stats import percentile, ratio, summarize
from tools.latency.trivial_app import BUTTON_KEY, counter_text
from tools.streamlit_server import ROOT
from tools.streamlit_server import StreamlitServer as Server

__all__ = ["Options", "app_pages", "run_benchmark", "step_text"]

TRIVIAL_SCRIPT = str(Path(__file__).with_name("trivial_app.py").relative_to(ROOT))
BATCH_PAGE, BATCH_STEP_KEY = "batch_shapes", "batch_shapes_live"
AUTORESET_PAGE, AUTORESET_STEP_KEY = "autoreset", "autoreset_stepper"
AUTORESET_SKIP_KEY = "autoreset_next_step_skip"
"""Auto-reset shows its run once its prediction is answered or skipped."""
# Both pages step with one stepper (burgerbot/app/call_stepper.py), which pages through calls
# the server has computed: its buttons are told apart by their data-call attribute. Most
# clicks start no script run; on Batch shapes, one now and then asks for the next stretch of
# calls, and such a click is timed until that run has finished.
IN_PAGE_STEP, IN_PAGE_RESET = 'button[data-call="step"]', 'button[data-call="reset"]'
# The stepping pages' latest-call view says which step it shows, in these words (see
# app_pages/batch_shapes.py). It is the learner's visible sign that the click
# worked, and it stays the same whether the step controls live in a fragment or not.
STEP_PATTERN = re.compile(r"Latest call: step (\d+) since the reset")


def step_text(step: int) -> str:
    """The words the latest-call view shows after step ``step`` since the reset.

    Example:
        >>> step_text(12)
        'Latest call: step 12 since the reset'
        >>> STEP_PATTERN.search(step_text(12)).group(1)
        '12'
    """
    return f"Latest call: step {step} since the reset"


def app_pages(root: Path = ROOT) -> list[tuple[str, str]]:
    """(url path, sidebar title) of every page, read from the router's ``PAGES`` list.

    Read with `ast`: importing the router would import Streamlit and run nothing useful.
    """
    tree = ast.parse((root / "streamlit_app.py").read_text())
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "PAGES" for t in targets):
            return [
                ("" if file == "home.py" else file.removesuffix(".py"), title)
                for _, file, title, _ in ast.literal_eval(node.value)
            ]
    raise LookupError("streamlit_app.py defines no PAGES list")


@dataclass(frozen=True)
class Options:
    """What to measure: clicks per target, warm-up clicks, rounds of page switches."""

    clicks: int = 30
    warmup: int = 3
    switch_rounds: int = 5
    log: Callable[[str], None] = field(default=lambda text: print(text, file=sys.stderr))


@dataclass
class _Clicks:
    """Timings of one click target, and its server's CPU time while they were taken."""

    label: str
    timings: list[Timing] = field(default_factory=list)
    cpu_s: float = 0.0
    runs: int = 0
    """Script runs (whole or fragment) the measured clicks caused in this target's tab."""

    def summary(self, floor_ms: dict[str, Any] | None = None) -> dict[str, Any]:
        """p50/p95 of the timings, and their ratios to ``floor_ms`` (the trivial app's).

        Without a visible sign awaited, the click counts as visible once its run finished.
        """
        visible = [t.settled_ms if t.visible_ms is None else t.visible_ms for t in self.timings]
        entry = {
            "label": self.label,
            "visible_ms": summarize(visible),
            "settled_ms": summarize([t.settled_ms for t in self.timings]),
            "cpu_ms_per_click": round(1000 * self.cpu_s / len(self.timings), 1),
            "runs_per_click": round(self.runs / len(self.timings), 2),
        }
        floor_ms = floor_ms or entry["visible_ms"]
        entry["ratio_p50"] = ratio(entry["visible_ms"]["p50"], floor_ms["p50"])
        entry["ratio_p95"] = ratio(entry["visible_ms"]["p95"], floor_ms["p95"])
        return entry


def _current_step(tab: Tab) -> int | None:
    """The step the latest-call view shows (0 right after a reset); None if there is none."""
    text = tab.main_text()
    match = STEP_PATTERN.search(text)
    if match:
        return int(match.group(1))
    return 0 if "Latest call: reset" in text else None


class _Bench:
    """One run of the benchmark on two started servers and one browser."""

    def __init__(self, trivial: Tab, app: Tab, options: Options) -> None:
        self.trivial, self.app, self.options = trivial, app, options
        self.trivial_clicks = 0
        self.exceptions: list[str] = []

    def click_trivial(self, drawn: bool = False) -> Timing:
        self.trivial_clicks += 1
        button = self.trivial.widget(BUTTON_KEY).locator("button")
        return self.trivial.timed(button, text=counter_text(self.trivial_clicks), drawn=drawn)

    def click_step(self, key: str, in_page: bool = False) -> Timing:
        """Step once; the visible update is the latest-call view naming the next step.

        A page without that view is timed to its run's end. ``in_page``: the stepper answers
        in the browser (no script run); at the recorded run's last call it is reset first,
        untimed.
        """
        widget = self.app.widget(key)
        if in_page:
            button = widget.locator(IN_PAGE_STEP)
            if button.is_disabled():
                widget.locator(IN_PAGE_RESET).click()
        else:
            button = widget.locator("button")
        step = _current_step(self.app)
        return self.app.timed(
            button, text=None if step is None else step_text(step + 1), server_run=not in_page
        )

    def interleaved(
        self, key: str, label: str, servers: tuple[Server, Server], in_page: bool = False
    ) -> tuple[_Clicks, _Clicks]:
        """Warm-up, then trivial and app clicks in turn, so both see the same machine load."""
        for _ in range(self.options.warmup):
            self.click_trivial()
            self.click_step(key, in_page)
        self.check_exceptions(self.app)
        trivial, app = _Clicks("Trivial app: click"), _Clicks(label)
        cpu_before = [server.cpu_seconds() for server in servers]
        runs_before = [self.trivial.runs_finished(), self.app.runs_finished()]
        for i in range(self.options.clicks):
            trivial.timings.append(self.click_trivial())
            app.timings.append(self.click_step(key, in_page))
            if (i + 1) % 10 == 0:
                self.options.log(f"  {i + 1}/{self.options.clicks} clicks")
        cpu_after = [server.cpu_seconds() for server in servers]
        trivial.cpu_s = cpu_after[0] - cpu_before[0]
        app.cpu_s = cpu_after[1] - cpu_before[1]
        trivial.runs = self.trivial.runs_finished() - runs_before[0]
        app.runs = self.app.runs_finished() - runs_before[1]
        self.check_exceptions(self.app)
        return trivial, app

    def check_exceptions(self, tab: Tab) -> None:
        for text in tab.exceptions():
            note = f"{tab.page.url}: {text.splitlines()[0] if text else 'exception'}"
            if note not in self.exceptions:
                self.exceptions.append(note)
                self.options.log(f"  ! exception shown: {note}")

    def switch(
        self, path: str, title: str, shown: str | None, tab: Tab | None = None
    ) -> tuple[Timing, str]:
        """Click the sidebar link to a page (in ``tab``, by default the app's tab); time until
        its run finished with its title, and until the page had drawn it
        (``Timing.drawn_ms``). Returns the title shown."""
        tab = tab or self.app
        timing = tab.timed(tab.sidebar_link(title), title=shown, drawn=True)
        self.check_exceptions(tab)
        return timing, tab.title()


SERVER_NAMES = ("trivial", "app")


def _start_servers(log_dir: Path, started: list[Server]) -> tuple[Server, Server]:
    for name, script in zip(SERVER_NAMES, (TRIVIAL_SCRIPT, "streamlit_app.py"), strict=True):
        started.append(Server.start(log_dir / f"{name}.log", script=script))
    return started[0], started[1]


def run_benchmark(options: Options) -> dict[str, Any]:
    """Start both servers and Chromium, measure, stop everything; returns the figures."""
    from playwright.sync_api import sync_playwright

    log = options.log
    began = time.monotonic()
    result: dict[str, Any] = {
        "clicks": options.clicks,
        "warmup_clicks": options.warmup,
        "machine": {"cpus": os.cpu_count(), "load_average_1min": round(os.getloadavg()[0], 2)},
    }
    servers: list[Server] = []
    with tempfile.TemporaryDirectory(prefix="burgerbot-latency-") as tmp:
        try:
            log("Starting the trivial app and this app (streamlit run) ...")
            trivial_server, app_server = _start_servers(Path(tmp), servers)
            result["server_pids"] = [server.process.pid for server in servers]
            for name, server in zip(SERVER_NAMES, servers, strict=True):
                log(f"  {name}: pid {server.process.pid}, {server.base_url}")
            with sync_playwright() as playwright:
                browser = launch_chromium(playwright)
                try:
                    _measure(browser, trivial_server, app_server, options, result)
                finally:
                    with contextlib.suppress(Exception):  # already gone after Ctrl-C
                        browser.close()
        except Exception as error:
            for name, server in zip(SERVER_NAMES, servers, strict=False):
                if server.process.poll() is not None:
                    log(f"{name} server log:\n{server.log_tail()}")
            raise RuntimeError(f"the latency benchmark failed: {error}") from error
        finally:
            for server in servers:
                server.stop()
    result["elapsed_s"] = round(time.monotonic() - began, 1)
    return result


def _measure(
    browser: Any, trivial_server: Server, app_server: Server, options: Options, result: dict
) -> None:
    log = options.log
    trivial_tab = Tab(new_context(browser), trivial_server.base_url)
    app_tab = Tab(new_context(browser), app_server.base_url)
    bench = _Bench(trivial_tab, app_tab, options)
    trivial_tab.goto("")
    log("Opening Batch shapes ...")
    app_tab.goto(BATCH_PAGE)
    # The batch waits for the page's questions to be answered or skipped: skip them, untimed.
    skip = app_tab.page.locator('[class*="st-key-batch_shapes_batch_"] button').filter(
        has_text="Skip, show me"
    )
    if skip.count():
        app_tab.timed(skip, text="Latest call: reset")
    n = options.clicks
    log(f"Step clicks on Batch shapes, {n} measured, each after a trivial-app click ...")
    servers = (trivial_server, app_server)
    trivial, batch = bench.interleaved(
        BATCH_STEP_KEY, "Batch shapes: Step once (in the page)", servers, in_page=True
    )
    clicks = {"trivial": trivial, BATCH_PAGE: batch}

    pages = app_pages()
    titles = dict(pages)
    log("Opening Auto-reset ...")
    bench.switch(AUTORESET_PAGE, titles[AUTORESET_PAGE], None)
    skip = app_tab.page.locator(f".st-key-{AUTORESET_SKIP_KEY} button").filter(
        has_text="Skip, show me"
    )
    if skip.count():  # the run appears after the prediction
        app_tab.timed(skip, text="Latest call")
    autoreset_entry = None
    if app_tab.has_widget(AUTORESET_STEP_KEY):
        log(f"Step clicks on Auto-reset, {n} measured ...")
        more_trivial, autoreset = bench.interleaved(
            AUTORESET_STEP_KEY, "Auto-reset: step (in the page)", servers, in_page=True
        )
        trivial.timings += more_trivial.timings
        trivial.cpu_s += more_trivial.cpu_s
        trivial.runs += more_trivial.runs
        clicks[AUTORESET_PAGE] = autoreset
    else:
        autoreset_entry = {
            "label": "Auto-reset: step",
            "visible_ms": None,
            "note": f"no per-click step (no widget key {AUTORESET_STEP_KEY!r})",
        }
    floor = trivial.summary()
    result["step_click"] = {"trivial": floor}
    for name, target in clicks.items():
        if name != "trivial":
            result["step_click"][name] = target.summary(floor["visible_ms"])
    if autoreset_entry:
        result["step_click"][AUTORESET_PAGE] = autoreset_entry

    # The first switch to each page fills its caches (Batch shapes and Auto-reset were open
    # already); only the switches after it count as warm. A second visitor (a tab of its own)
    # then skips each page's predictions: a learner who answered them comes back to the page
    # with its results shown, which is more to draw.
    answered_tab = Tab(new_context(browser), app_server.base_url)
    answered_tab.goto("")
    log("Switching to every page once; the second visitor skips its predictions ...")
    shown: dict[str, str] = {}
    first_switch: dict[str, float] = {}
    skipped: dict[str, int] = {}
    for path, title in pages:
        timing, shown[path] = bench.switch(path, title, None)
        seconds = timing.drawn_ms / 1000
        first_switch[path] = round(seconds, 2)
        bench.switch(path, title, None, answered_tab)
        skipped[path] = answered_tab.skip_predictions()
        bench.check_exceptions(answered_tab)
        log(f"  {title}: {seconds:.2f} s; {skipped[path]} prediction(s) skipped")
    log(f"Warm switches, {options.switch_rounds} round(s) over {len(pages)} pages, two visitors")
    warm: dict[str, list[Timing]] = {path: [] for path, _ in pages}
    answered: dict[str, list[Timing]] = {path: [] for path, _ in pages}
    skips_left: dict[str, int] = {}
    floor_ms: list[float] = []
    for _ in range(options.switch_rounds):
        for path, title in pages:
            # The floor, the trivial app's click until its rerun finished and was drawn (timed
            # as a switch is), is taken right before each switch: both see the same load.
            for tab, times in ((app_tab, warm), (answered_tab, answered)):
                floor_ms.append(bench.click_trivial(drawn=True).drawn_ms)
                timing, _ = bench.switch(path, title, shown[path] or None, tab)
                times[path].append(timing)
            skips_left[path] = len(answered_tab.page.evaluate(SKIP_KEYS_JS))
    floor_s = round(percentile(floor_ms, 50) / 1000, 3)
    median = {path: percentile([t.drawn_ms for t in ts], 50) / 1000 for path, ts in warm.items()}
    answered_median = {
        path: percentile([t.drawn_ms for t in ts], 50) / 1000 for path, ts in answered.items()
    }
    finished = {
        path: percentile([t.settled_ms for t in ts], 50) / 1000 for path, ts in warm.items()
    }
    result["warm_switch"] = {
        "floor_s": floor_s,
        "floor_clicks": len(floor_ms),
        "rounds": options.switch_rounds,
        "pages": [
            {
                "page": path or "home",
                "title": title,
                "seconds": round(median[path], 3),
                "ratio": ratio(median[path], floor_s),
                "run_finished_s": round(finished[path], 3),
                "first_switch_s": first_switch[path],
                "answered_seconds": round(answered_median[path], 3),
                "answered_ratio": ratio(answered_median[path], floor_s),
                "predictions_skipped": skipped[path],
                "skips_left": skips_left[path],
            }
            for path, title in pages
        ],
    }
    result["exceptions"] = bench.exceptions
    result["page_errors"] = trivial_tab.errors + app_tab.errors + answered_tab.errors
