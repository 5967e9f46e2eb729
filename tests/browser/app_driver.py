"""Drive the app like a visitor: start `streamlit run`, watch its processes, steer Chromium.

Shared by the browser tests (`tests/browser/`) and the fresh-venv test (`tests/test_deploy.py`).
Nothing here sleeps for a fixed time: every wait polls for a condition, with a deadline.
"""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlencode

# Shared with the latency benchmark: Chromium, its flags and the in-page run counter
# (tools/browser_runs.py), and the process helpers. Both are development tools, in folders at
# the project's root; the app and the library import neither.
from tools.browser_runs import RUNS_FINISHED_JS, SETTLED_JS, missing_browser
from tools.browser_runs import new_context as _tracked_context
from tools.latency.processes import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"

# Generous deadlines: the machine may be shared and slow. They bound a hang, they are not
# performance thresholds.
SERVER_START_TIMEOUT_S = 120.0
RUN_TIMEOUT_S = 180.0

# Options every test server gets on top of `.streamlit/config.toml`. No file watcher: the
# tests must not depend on (or react to) edits made while they run. A short disconnected-
# session TTL lets the memory test see a closed tab's session actually dropped.
TEST_SERVER_OPTIONS = {
    "server.headless": "true",
    "server.address": "127.0.0.1",
    "server.fileWatcherType": "none",
    "server.disconnectedSessionTTL": "3",
    "browser.gatherUsageStats": "false",
}


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


# --- Processes -------------------------------------------------------------------------------


def _proc_stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a process, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The command name is in parentheses and may itself contain spaces or parentheses.
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), fields[0]


def descendants(pid: int) -> list[int]:
    """Every living (non-zombie) process below ``pid``, found through /proc/*/stat."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = _proc_stat(int(entry))
        if stat is not None and stat[1] != "Z":
            children.setdefault(stat[0], []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def rss_bytes(pid: int) -> int:
    """Resident memory of one process (VmRSS), 0 if it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return 0
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, flags=re.M)
    return int(match.group(1)) * 1024 if match else 0


def pss_bytes(pid: int) -> int:
    """Proportional set size of one process: shared pages count once across processes.

    Summing RSS over a server and its workers counts shared pages once per process; a
    worker just forked (before its exec) even shows the server's whole RSS. PSS does not.
    """
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return rss_bytes(pid)
    match = re.search(r"^Pss:\s+(\d+) kB", rollup, flags=re.M)
    return int(match.group(1)) * 1024 if match else rss_bytes(pid)


def http_get(url: str, timeout: float = 10.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


@dataclass
class StreamlitServer:
    """A `streamlit run` process in its own process group, its output captured to a file.

    Example:
        >>> server = StreamlitServer.start(log_path=ARTIFACTS / "server.log")  # doctest: +SKIP
        >>> server.url("batch_shapes", {"n": 4})  # doctest: +SKIP
        'http://127.0.0.1:41234/batch_shapes?n=4'
        >>> server.stop()  # doctest: +SKIP
    """

    process: subprocess.Popen
    port: int
    log_path: Path
    started_at: float
    healthy_after_s: float = 0.0
    _log: IO[bytes] | None = field(default=None, repr=False)

    @classmethod
    def start(
        cls,
        log_path: Path,
        python: str | Path = sys.executable,
        cwd: Path = ROOT,
        extra_env: Mapping[str, str] | None = None,
        options: Mapping[str, str] | None = None,
        test_options: bool = True,
    ) -> StreamlitServer:
        """Start ``streamlit run streamlit_app.py`` in ``cwd`` and wait until it is healthy.

        ``test_options=False`` runs it with the app's own `.streamlit/config.toml` only
        (plus a free port on localhost), as a host would.
        """
        port = free_port()
        base = (
            TEST_SERVER_OPTIONS
            if test_options
            else {key: TEST_SERVER_OPTIONS[key] for key in ("server.address", "server.headless")}
        )
        opts = {**base, "server.port": str(port), **(options or {})}
        command = [str(python), "-m", "streamlit", "run", "streamlit_app.py"]
        for name, value in opts.items():
            command += [f"--{name}", value]
        # No .pyc files in the app's folder: the server writes nothing there.
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(extra_env or {})}
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = log_path.open("wb")
        log.write(("$ " + " ".join(command) + "\n").encode())
        log.flush()
        started = time.monotonic()
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() kills workers too
        )
        server = cls(process, port, log_path, started, _log=log)
        try:
            server.wait_healthy()
        except BaseException:
            server.stop()
            raise
        server.healthy_after_s = time.monotonic() - started
        return server

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "", query: Mapping[str, Any] | Sequence[tuple] | str = "") -> str:
        query_string = query if isinstance(query, str) else urlencode(query, doseq=True)
        return f"{self.base_url}/{path}" + (f"?{query_string}" if query_string else "")

    def is_healthy(self) -> bool:
        try:
            status, body = http_get(f"{self.base_url}/_stcore/health", timeout=2)
        except OSError:
            return False
        return status == 200 and body.strip() == "ok"

    def wait_healthy(self, timeout: float = SERVER_START_TIMEOUT_S) -> None:
        def ready() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"streamlit exited with code {self.process.returncode}:\n{self.log_tail()}"
                )
            return self.is_healthy()

        wait_until(ready, timeout, f"{self.base_url}/_stcore/health")

    def metrics(self) -> dict[str, float]:
        """Streamlit's own counters (`/_stcore/metrics`), e.g. ``active_sessions``."""
        _, body = http_get(f"{self.base_url}/_stcore/metrics")
        values = {}
        for line in body.splitlines():
            match = re.fullmatch(r"([a-z_]+)(\{[^}]*\})? ([0-9.eE+-]+)", line.strip())
            if match:
                values[match.group(1) + (match.group(2) or "")] = float(match.group(3))
        return values

    def children(self) -> list[int]:
        """Processes the server started (e.g. Async workers), excluding idle helpers.

        Python's multiprocessing ``resource_tracker`` is started once with the first
        spawned worker and lives as long as the server by design; it is not counted.
        """
        return [
            pid for pid in descendants(self.process.pid) if "resource_tracker" not in cmdline(pid)
        ]

    def rss(self, own_only: bool = False) -> int:
        """Resident memory of the server plus every process below it, in bytes.

        ``own_only``: the server process alone, without Async workers (those are bounded
        by the app's worker budget and must be gone after a run, which other tests check).
        """
        pids = (
            [self.process.pid] if own_only else [self.process.pid, *descendants(self.process.pid)]
        )
        return sum(rss_bytes(pid) for pid in pids)

    def pss(self) -> int:
        """Memory of the server and all its workers, shared pages counted once, in bytes."""
        return sum(pss_bytes(pid) for pid in [self.process.pid, *descendants(self.process.pid)])

    def log_tail(self, lines: int = 60) -> str:
        if self._log is not None:
            self._log.flush()
        text = self.log_path.read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, timeout: float = 30.0) -> list[str]:
        """Stop the server like a host does (SIGTERM), then kill whatever it left behind.

        Returns the processes (pid and command line) still alive in its group a few
        seconds after it exited.
        """
        with suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=timeout)
        # Helpers (e.g. multiprocessing's resource tracker) exit once the server's end of
        # their pipe closes; give them a moment, then name whatever is still there.
        with suppress(TimeoutError):
            wait_until(lambda: not _group_members(self.process.pid), 10, "helpers to exit")
        leftovers = [f"{pid} {cmdline(pid)}" for pid in _group_members(self.process.pid)]
        # Workers that outlived the server are still in its process group.
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if self._log is not None:
            self._log.close()
            self._log = None
        return leftovers


def _group_members(pgid: int) -> list[int]:
    """Living processes of a process group."""
    members = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with suppress(OSError):
            stat = _proc_stat(int(entry))
            if stat is not None and stat[1] != "Z" and os.getpgid(int(entry)) == pgid:
                members.append(int(entry))
    return members


class RssSampler:
    """Samples a server's RSS (with its workers) in a background thread, e.g. for peaks.

    Example:
        >>> with RssSampler(server) as sampler:  # doctest: +SKIP
        ...     do_things()
        >>> sampler.peak  # doctest: +SKIP
    """

    def __init__(
        self, server: StreamlitServer, interval: float = 0.2, own_only: bool = False
    ) -> None:
        self.server = server
        self.interval = interval
        self.own_only = own_only
        self.samples: list[tuple[float, int]] = []  # (monotonic time, bytes)
        self.total_pss: list[int] = []  # server and workers together, shared pages once
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append((time.monotonic(), self.server.rss(self.own_only)))
            self.total_pss.append(self.server.pss())
            if self._stop.wait(self.interval):
                return

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def peak(self) -> int:
        return max((value for _, value in self.samples), default=self.server.rss(self.own_only))

    @property
    def peak_total_pss(self) -> int:
        """Peak memory of the server with its workers (PSS: shared pages counted once)."""
        return max(self.total_pss, default=self.server.pss())

    def peak_between(self, start: float, end: float) -> int:
        values = [value for at, value in self.samples if start <= at <= end]
        return max(values, default=0)


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
