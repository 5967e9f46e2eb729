"""A classroom on one server: N websocket visitors open Home, then step Batch shapes each second.

Run: ``python tests/classroom.py --sessions 30 --seconds 120`` (``--json`` for JSON).
``--chromium 3`` adds three real Chromium tabs (Playwright, /usr/bin/chromium) stepping Batch
shapes beside them, timed in the page: does a click feel the same in a browser?

The server is started as the hosted demo is: a clean copy of the app in a fresh virtualenv
with only ``requirements.txt`` installed (``--python current`` uses this interpreter
instead), the app's own ``.streamlit/config.toml`` and default caps. The visitors are
`classroom_client.StreamlitSession` objects in one asyncio loop of this process, so the
figures are the server's and not those of N browsers sharing the machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # burgerbot, run as a script

from app_driver import ARTIFACTS, ROOT, RssSampler, StreamlitServer, megabytes, wait_until
from classroom_client import StreamlitSession, latest_step

from burgerbot.app.caps import Caps
from burgerbot.app.logic.batch_shapes import reveal_id
from tools.browser_runs import (
    CHROMIUM,
    CHROMIUM_ARGS,
    RUN_TRACKER_JS,
    RUNS_FINISHED_JS,
    SETTLED_JS,
    VIEWPORT,
)

__all__ = ["Config", "Outcome", "Visitor", "plan_visitors", "run_classroom", "summarize"]

PAGE = "batch_shapes"
STEP_KEY = f"{PAGE}_live"
"""Batch shapes' stepper (`call_stepper`): its Step once answers in the page."""
BUDGET_TEXT = "Async worker processes are already running"
ENV_CYCLE = ("BurgerBot", "CartPole-v1", "BurgerBot", "FrozenLake-v1")
N_CYCLE = (4, 8, 16, 32, 64)
SHAPE = re.compile(r"observations\s+\((\d+),")  # the shape summary's row, in the view's text


@dataclass(frozen=True)
class Visitor:
    """One classroom visitor and the Batch shapes settings its link opens."""

    name: str
    env: str
    backend: str
    n: int
    seed: int
    over_budget: bool = False  # arrives when the Async workers are all taken

    @property
    def query(self) -> str:
        return urlencode({"env": self.env, "n": self.n, "backend": self.backend, "seed": self.seed})


@dataclass
class Outcome:
    """What one visitor saw."""

    visitor: Visitor
    home_s: float = 0.0
    page_s: float = 0.0
    latencies: list[float] = field(default_factory=list)
    click_times: list[float] = field(default_factory=list)
    opened_at: float = 0.0  # when it started stepping
    done_at: float = 0.0  # when it stopped
    fragment_clicks: int = 0
    in_page_clicks: int = 0
    connect_retries: int = 0
    budget_message: str = ""
    exceptions: list[str] = field(default_factory=list)
    crossings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Chromium visitors only: from the click until the page shows the next call.
    shown_latencies: list[float] = field(default_factory=list)
    # Chromium visitors only: from the click until the run it asked for had finished.
    answered_latencies: list[float] = field(default_factory=list)


@dataclass
class Config:
    """One classroom run."""

    sessions: int = 30
    seconds: float = 120.0
    interval: float = 1.0  # seconds from one Step click to the next
    async_sessions: int = 2  # Async visitors within the worker budget (4 workers each)
    async_n: int = 4
    python: str = "venv"  # "venv": a fresh virtualenv with requirements.txt, or "current"
    ttl: int | None = None  # None: the app's disconnectedSessionTTL (config.toml)
    # BURGERBOT_ASYNC_IDLE_SECONDS for the server: well above an Async env's start time on a
    # busy machine (an env counts as used when its build starts, so a start slower than this
    # is closed as soon as it is built).
    idle_seconds: int = 60
    stagger: float = 0.5  # seconds between two visitors' arrivals
    chromium: int = 0  # real Chromium tabs stepping beside the websocket visitors


def app_ttl() -> int:
    """``server.disconnectedSessionTTL`` from the app's `.streamlit/config.toml`."""
    text = (ROOT / ".streamlit" / "config.toml").read_text()
    match = re.search(r"^disconnectedSessionTTL\s*=\s*(\d+)", text, flags=re.M)
    return int(match.group(1)) if match else 120


def plan_visitors(config: Config, budget: int = Caps.max_live_async_workers) -> list[Visitor]:
    """Async visitors first (filling the worker budget), then one past it, then Sync/native.

    Example:
        >>> [v.backend for v in plan_visitors(Config(sessions=6))]
        ['async', 'async', 'async', 'sync', 'native', 'native']
    """
    planned: list[Visitor] = []
    fit = min(config.async_sessions, budget // config.async_n, config.sessions)
    for i in range(fit):
        planned.append(Visitor(f"v{i:02d}", "BurgerBot", "async", config.async_n, i))
    if fit and len(planned) < config.sessions:
        i = len(planned)
        planned.append(Visitor(f"v{i:02d}", "BurgerBot", "async", config.async_n, i, True))
    for i in range(len(planned), config.sessions):
        env = ENV_CYCLE[i % len(ENV_CYCLE)]
        native = (i // len(ENV_CYCLE)) % 2 and env != "FrozenLake-v1"  # it has no native env
        backend = "native" if native else "sync"
        planned.append(Visitor(f"v{i:02d}", env, backend, N_CYCLE[i % len(N_CYCLE)], i))
    return planned


def observed_n(views: list[str]) -> int | None:
    """NUM_ENVS as the live view's shape summary shows it (axis 0 of observations)."""
    for text in views:
        match = SHAPE.search(text)
        if match:
            return int(match.group(1))
    return None


def _check_own_state(tab: StreamlitSession, out: Outcome, n: int, expected_step: int) -> int:
    """The page shows this visitor's own env and step count, nobody else's; returns the step
    it shows (the count to go on from, so that one surprise is reported once)."""
    views = tab.live_views()
    step, shown_n = latest_step(views), observed_n(views)
    url_n = parse_qs(tab.query).get("n", ["?"])[0]
    if step != expected_step or shown_n != n or url_n != str(n):
        problem = (
            f"expected step {expected_step} of {n} envs; page shows step {step} of "
            f"{shown_n} envs, URL n={url_n}"
        )
        idle = [body for _, body in tab.alerts() if "without use" in body]
        if idle:  # the app's idle close ended this env: not a crossing, still a problem
            out.errors.append(f"{problem}: {idle[0]}")
        else:
            out.crossings.append(problem)
    return expected_step if step is None else step


async def attend(
    visitor: Visitor,
    base_url: str,
    config: Config,
    arrive: float,
    opened: asyncio.Event,
    wait_for: list[asyncio.Event],
) -> Outcome:
    """One visitor: Home, then Batch shapes with its settings, then Step about once a second.

    ``opened`` is set once its Batch shapes page is open (or it failed); the visitor opens
    Batch shapes only once every event of ``wait_for`` is set.
    """
    out = Outcome(visitor)
    rng = random.Random(visitor.seed)
    await asyncio.sleep(arrive)
    try:
        async with StreamlitSession(base_url, visitor.name) as tab:
            out.connect_retries = tab.connect_retries
            out.home_s = (await tab.open("")).seconds
            await asyncio.gather(*(event.wait() for event in wait_for))
            out.page_s = (await tab.open(PAGE, visitor.query)).seconds
            opened.set()
            n = visitor.n
            if visitor.over_budget:
                errors = [body for kind, body in tab.alerts() if kind == "error"]
                out.budget_message = next((e for e in errors if BUDGET_TEXT in e), "")
                if not out.budget_message or tab.has(STEP_KEY):
                    out.errors.append(f"past the worker budget, the page showed {tab.alerts()}")
                await tab.choose(f"{PAGE}_backend", "sync")  # the visitor follows the advice
            if tab.has(skip := f"{reveal_id(visitor.env)}_skip"):
                await tab.click(skip)  # the batch waits for the questions: this visitor skips
            expected = _check_own_state(tab, out, n, 0)
            out.opened_at = time.monotonic()
            end = time.monotonic() + config.seconds
            next_click = time.monotonic() + rng.uniform(0, config.interval)
            while next_click < end:
                await asyncio.sleep(max(0.0, next_click - time.monotonic()))
                started = time.monotonic()
                out.click_times.append(started)
                result = await tab.press(STEP_KEY)
                out.latencies.append(result.seconds)
                out.fragment_clicks += result.fragment
                out.in_page_clicks += result.in_page
                expected = _check_own_state(tab, out, n, expected + 1)
                # About once a second, jittered so the visitors do not click in lockstep.
                next_click = started + config.interval * rng.uniform(0.8, 1.2)
            out.done_at = time.monotonic()
            out.exceptions = list(tab.exceptions)
    except Exception as exc:  # one failed visitor is a finding, not the end of the run
        out.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        opened.set()  # whatever happened, a visitor waiting for this one may go on
    return out


async def classroom(base_url: str, config: Config, visitors: list[Visitor]) -> list[Outcome]:
    """Every visitor at once, arriving ``stagger`` seconds apart; the one past the Async
    budget opens Batch shapes only once every Async visitor has its workers."""
    opened = {v.name: asyncio.Event() for v in visitors}
    asyncs = [opened[v.name] for v in visitors if v.backend == "async" and not v.over_budget]
    tasks = [
        attend(v, base_url, config, i * config.stagger, opened[v.name], asyncs * v.over_budget)
        for i, v in enumerate(visitors)
    ]
    return list(await asyncio.gather(*tasks))


# --- Chromium visitors -------------------------------------------------------------------------

# Counts the BackMsgs the page sends (each asks the server for a script run): a click the
# stepper answers in the page sends none. Runs after RUN_TRACKER_JS, whose WebSocket class
# inherits this send.
SEND_COUNTER_JS = """
(() => {
  window.__stSends = 0;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (...args) {
    window.__stSends += 1;
    return send.apply(this, args);
  };
})();
"""

# One click on the stepper's Step once, timed in the page (so a busy Python loop or the
# Playwright pipe adds nothing): until the view shows another call, polled each animation
# frame; then, if the click sent a request (the component sends its trigger value just
# after the click, hence the short look), until the run it asked for has finished.
CLICK_STEP_JS = """
async ({ key, timeoutMs, lookMs }) => {
  const shown = () => {
    const view = document.querySelector(`.st-key-${key} .bb-call-view`);
    const match = view && /Latest call: (?:step (\\d+)|reset)/.exec(view.innerText);
    return match ? (match[1] === undefined ? 0 : Number(match[1])) : null;
  };
  const before = shown();
  const button = document.querySelector(`.st-key-${key} button[data-call="step"]`);
  if (!button || button.disabled) return { error: "Step once is missing or disabled", before };
  const sends = window.__stSends;
  const runs = window.__stRuns.finished;
  const start = performance.now();
  const until = (holds, limitMs) => new Promise((resolve) => {
    const tick = () => {
      if (holds()) resolve(true);
      else if (performance.now() - start > limitMs) resolve(false);
      else requestAnimationFrame(tick);
    };
    tick();
  });
  button.click();
  const changed = await until(() => shown() !== before, timeoutMs);
  const shownMs = performance.now() - start;
  await until(() => window.__stSends > sends, shownMs + lookMs);
  const sent = window.__stSends - sends;
  let answeredMs = null;
  if (sent) {
    await until(() => window.__stRuns.finished > runs, timeoutMs);
    const at = window.__stRuns.lastFinishedAt;
    answeredMs = window.__stRuns.finished > runs && at !== null ? at - start : null;
  }
  return { before, after: shown(), changed, shownMs, sent, answeredMs };
}
"""
LOOK_FOR_REQUEST_MS = 250
"""How long after the view changed a click may still send its request (it sends at once)."""


def chromium_visitors(config: Config) -> list[Visitor]:
    """The Chromium tabs' settings: BurgerBot, Sync, 4 envs, seeds apart from the others'."""
    return [Visitor(f"c{i:02d}", "BurgerBot", "sync", 4, 1000 + i) for i in range(config.chromium)]


async def attend_in_chromium(
    visitor: Visitor,
    browser: Any,
    http_base: str,
    config: Config,
    arrive: float,
    opened: asyncio.Event,
    stop: asyncio.Event,
) -> Outcome:
    """A real Chromium tab: open Batch shapes with ``visitor``'s settings, skip the
    questions (then set ``opened``), then click Step once about once a second until ``stop``
    is set, each click timed in the page."""
    out = Outcome(visitor)
    rng = random.Random(visitor.seed)
    await asyncio.sleep(arrive)
    context = await browser.new_context(viewport=VIEWPORT)
    timeout_ms = 120_000
    try:
        await context.add_init_script(RUN_TRACKER_JS + SEND_COUNTER_JS)
        page = await context.new_page()
        page.on("pageerror", lambda error: out.exceptions.append(str(error)))
        started = time.monotonic()
        await page.goto(
            f"{http_base}/{PAGE}?{visitor.query}", wait_until="commit", timeout=timeout_ms
        )
        await page.wait_for_function(SETTLED_JS, arg=0, timeout=timeout_ms, polling=100)
        out.page_s = time.monotonic() - started
        skip = page.locator(f".st-key-{reveal_id(visitor.env)}_skip button")
        if await skip.count():
            since = await page.evaluate(RUNS_FINISHED_JS)
            await skip.first.click()
            await page.wait_for_function(SETTLED_JS, arg=since, timeout=timeout_ms, polling=100)
        step_button = f'.st-key-{STEP_KEY} button[data-call="step"]'
        await page.wait_for_selector(step_button, timeout=timeout_ms)
        opened.set()
        expected = 0
        out.opened_at = time.monotonic()
        next_click = time.monotonic() + rng.uniform(0, config.interval)
        while not stop.is_set():
            await asyncio.sleep(max(0.0, next_click - time.monotonic()))
            clicked = time.monotonic()
            out.click_times.append(clicked)
            click = await page.evaluate(
                CLICK_STEP_JS,
                {"key": STEP_KEY, "timeoutMs": timeout_ms, "lookMs": LOOK_FOR_REQUEST_MS},
            )
            if click.get("error") or not click["changed"]:
                out.errors.append(f"click {len(out.click_times)}: {click}")
                break
            shown_s, sent = click["shownMs"] / 1000, bool(click["sent"])
            answered_s = (click["answeredMs"] or click["shownMs"]) / 1000
            out.shown_latencies.append(shown_s)
            if sent:
                out.answered_latencies.append(answered_s)
            # As the websocket client times it: a click that asks the server is timed
            # until the run it asked for has finished; one answered in the page, until shown.
            out.latencies.append(answered_s if sent else shown_s)
            out.fragment_clicks += sent
            out.in_page_clicks += not sent
            expected += 1
            if click["after"] != expected:
                out.crossings.append(f"expected step {expected}; the page shows {click['after']}")
                expected = click["after"] if click["after"] is not None else expected
            next_click = clicked + config.interval * rng.uniform(0.8, 1.2)
        out.done_at = time.monotonic()
    except Exception as exc:  # one failed tab is a finding, not the end of the run
        out.errors.append(f"{type(exc).__name__}: {exc}")
        out.done_at = out.done_at or time.monotonic()
    finally:
        opened.set()  # whatever happened, the classroom may start
        await context.close()
    return out


async def chromium_classroom(
    http_base: str,
    config: Config,
    visitors: list[Visitor],
    opened: list[asyncio.Event],
    stop: asyncio.Event,
) -> list[Outcome]:
    """The Chromium tabs, arriving ``stagger`` seconds apart before the websocket visitors
    (each sets its ``opened`` event once it can step) and stepping until ``stop``: so they
    step beside the whole classroom, however long a busy server takes to open their page."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            return list(
                await asyncio.gather(
                    *(
                        attend_in_chromium(
                            v, browser, http_base, config, i * config.stagger, opened[i], stop
                        )
                        for i, v in enumerate(visitors)
                    )
                )
            )
        finally:
            await browser.close()


async def one_visit(base_url: str, steps: int = 0) -> list[str]:
    """A lone visitor: Home, Batch shapes (Sync, 4 envs), ``steps`` clicks; its exceptions."""
    async with StreamlitSession(base_url, "probe") as tab:
        await tab.open("")
        if steps:
            await tab.open(PAGE, "backend=sync&n=4")
            await tab.click(f"{reveal_id('BurgerBot')}_skip")  # the batch waits for it
            for _ in range(steps):
                await tab.press(STEP_KEY)
        return list(tab.exceptions)


def server_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the server process itself has used."""
    text = Path(f"/proc/{pid}/stat").read_text()
    values = text[text.rindex(")") + 2 :].split()
    return (int(values[11]) + int(values[12])) / os.sysconf("SC_CLK_TCK")


def steady_clicks(outcomes: list[Outcome], cpu: list[tuple[float, float]]) -> dict[str, Any]:
    """Server CPU milliseconds per click and clicks per second while no page was being
    opened, from (time, CPU seconds) samples: while every visitor was stepping, or, when the
    last visitor began stepping after the first had stopped (many visitors arriving one by
    one), from then until the last one stopped. None where there was no such moment."""
    start = max(o.opened_at for o in outcomes)
    everyone = start < min(o.done_at for o in outcomes)
    end = min(o.done_at for o in outcomes) if everyone else max(o.done_at for o in outcomes)
    inside = [(t, seconds) for t, seconds in cpu if start <= t <= end] or [(0.0, 0.0)]
    (t0, cpu0), (t1, cpu1) = inside[0], inside[-1]
    clicks = sum(t0 <= t < t1 for o in outcomes for t in o.click_times)
    return {
        "window": "every visitor stepping" if everyone else "after the last page was opened",
        "window_s": round(t1 - t0, 1),
        "clicks": clicks,
        "clicks_per_second": round(clicks / (t1 - t0), 1) if clicks else None,
        "server_cpu_ms_per_click": round((cpu1 - cpu0) * 1000 / clicks) if clicks else None,
    }


def spread(values: list[float]) -> dict[str, float]:
    """p50, p95 and max of some durations (nearest-rank percentiles), in seconds."""
    ordered = sorted(values) or [float("nan")]
    rank = {q: ordered[max(0, math.ceil(q * len(ordered)) - 1)] for q in (0.5, 0.95)}
    return {"p50": round(rank[0.5], 3), "p95": round(rank[0.95], 3), "max": round(ordered[-1], 3)}


def start_server(config: Config, workdir: Path) -> tuple[StreamlitServer, str]:
    """The app's server as the hosted demo runs it, and how it was started (for the report)."""
    defaults = {f"BURGERBOT_{f.name.upper()}": str(f.default) for f in fields(Caps)}
    # Default caps whatever this shell sets, except the idle time this run chooses.
    env = {k: v for k, v in defaults.items() if k in os.environ}
    env["BURGERBOT_ASYNC_IDLE_SECONDS"] = str(config.idle_seconds)
    options = {} if config.ttl is None else {"server.disconnectedSessionTTL": str(config.ttl)}
    if config.python == "venv":
        from test_deploy import clean_copy, fresh_venv

        app = clean_copy(workdir / "app")
        python = fresh_venv(
            workdir / "venv-classroom", app / "requirements.txt", Path(sys.executable)
        )
        env |= {"PYTHONPATH": "", "VIRTUAL_ENV": str(python.parent.parent)}
        how = "a clean copy of the app in a fresh venv with requirements.txt only"
    else:
        app, python = ROOT, Path(sys.executable)
        how = f"this checkout with the current interpreter ({sys.executable}), NOT a fresh venv"
    server = StreamlitServer.start(
        log_path=ARTIFACTS / "classroom-server.log",
        python=python,
        cwd=app,
        extra_env=env,
        options=options,
        test_options=False,
    )
    return server, how


def run_classroom(config: Config) -> dict[str, Any]:
    """Start the server, warm it with one visitor, hold the classroom, watch the release."""
    visitors = plan_visitors(config)
    ttl = app_ttl() if config.ttl is None else config.ttl
    workdir = Path(tempfile.mkdtemp(prefix="classroom-"))
    server = None
    try:
        server, how = start_server(config, workdir)
        base = f"ws://127.0.0.1:{server.port}"
        warm_exceptions = asyncio.run(one_visit(base, steps=2))
        baseline = server.pss()
        with RssSampler(server, interval=1.0) as sampler:
            cpu: list[tuple[float, float]] = []  # (time, server CPU seconds)
            started, children_peak = time.monotonic(), 0

            async def held() -> tuple[list[Outcome], list[Outcome]]:
                nonlocal children_peak
                # The Chromium tabs (if any) open first and step until the classroom is over.
                tabs = chromium_visitors(config)
                tabs_open = [asyncio.Event() for _ in tabs]
                classroom_over = asyncio.Event()
                in_chromium = asyncio.ensure_future(
                    chromium_classroom(server.base_url, config, tabs, tabs_open, classroom_over)
                    if tabs
                    else asyncio.sleep(0, result=[])
                )
                task: asyncio.Future | None = None
                while task is None or not (task.done() and in_chromium.done()):
                    if task is None and all(event.is_set() for event in tabs_open):
                        task = asyncio.ensure_future(classroom(base, config, visitors))
                    if task is not None and task.done():
                        classroom_over.set()
                    children_peak = max(children_peak, len(server.children()))
                    cpu.append((time.monotonic(), server_cpu_seconds(server.process.pid)))
                    await asyncio.sleep(0.5)
                return task.result(), in_chromium.result()

            outcomes, browser_outcomes = asyncio.run(held())
            held_s = time.monotonic() - started
            load_average = [round(x, 2) for x in os.getloadavg()]
        at_close, closed = server.pss(), time.monotonic()
        # Async envs close after BURGERBOT_ASYNC_IDLE_SECONDS; their reaper looks every tenth.
        children_gone = True
        try:
            limit = config.idle_seconds * 1.2 + ttl + 60
            wait_until(lambda: not server.children(), limit, "the Async workers to end")
        except TimeoutError:
            children_gone = False
        time.sleep(max(0.0, closed + ttl + 2 - time.monotonic()))
        after_ttl = server.pss()
        # Streamlit drops expired disconnected sessions when it next stores one: a visitor
        # arriving and leaving does that (with nobody arriving they stay in memory).
        probe_exceptions = asyncio.run(one_visit(base))
        time.sleep(3)
        released, leftover_children = server.pss(), [str(p) for p in server.children()]
        return summarize(config, outcomes, how, ttl) | {
            "warm_visit_exceptions": warm_exceptions + probe_exceptions,
            "held_s": round(held_s, 1),
            "load_average_at_close": load_average,
            "chromium": summarize_chromium(browser_outcomes, stepping_together(outcomes)),
            # Every click counts, the Chromium tabs' too: their requests cost server CPU.
            "steady": steady_clicks([o for o in outcomes + browser_outcomes if o.click_times], cpu),
            "memory_mb": {
                "baseline_after_one_visitor": megabytes(baseline),
                "peak": megabytes(max(sampler.total_pss, default=baseline)),
                "at_close": megabytes(at_close),
                "after_ttl_no_new_visitor": megabytes(after_ttl),
                "after_release": megabytes(released),
            },
            "children": {
                "peak": children_peak,
                "gone_after_idle_close": children_gone,
                "left_after_release": leftover_children,
            },
        }
    finally:
        if server is not None:
            leftovers = server.stop()
            if leftovers:
                print(f"processes outlived the server: {leftovers}", file=sys.stderr)
        shutil.rmtree(workdir, ignore_errors=True)


def summarize(config: Config, outcomes: list[Outcome], how: str, ttl: int) -> dict[str, Any]:
    """The figures of a run (lists of problems included) as plain data."""
    latencies = [t for o in outcomes for t in o.latencies]
    return {
        "sessions": len(outcomes),
        "seconds": config.seconds,
        "visitors": [
            f"{o.visitor.name} {o.visitor.env} {o.visitor.backend} n={o.visitor.n}"
            + (" (past the Async budget)" if o.visitor.over_budget else "")
            for o in outcomes
        ],
        "clicks": len(latencies),
        "fragment_clicks": sum(o.fragment_clicks for o in outcomes),
        "in_page_clicks": sum(o.in_page_clicks for o in outcomes),
        "connect_retries": sum(o.connect_retries for o in outcomes),
        "fewest_clicks": min(len(o.latencies) for o in outcomes),
        "latency_s": spread(latencies),
        "latency_by_backend_s": {
            b: spread([t for o in outcomes if o.visitor.backend == b for t in o.latencies])
            for b in sorted({o.visitor.backend for o in outcomes})
        },
        "open_home_s": spread([o.home_s for o in outcomes]),
        "open_batch_shapes_s": spread([o.page_s for o in outcomes]),
        "exceptions": [f"{o.visitor.name}: {e}" for o in outcomes for e in o.exceptions],
        "crossings": [f"{o.visitor.name}: {c}" for o in outcomes for c in o.crossings],
        "errors": [f"{o.visitor.name}: {e}" for o in outcomes for e in o.errors],
        "budget_messages": [o.budget_message for o in outcomes if o.visitor.over_budget],
        "how": (
            f"Server: {how}; the app's .streamlit/config.toml (disconnectedSessionTTL {ttl} s), "
            f"default caps, BURGERBOT_ASYNC_IDLE_SECONDS={config.idle_seconds}. Visitors: "
            f"{len(outcomes)} websocket sessions in one asyncio loop (Streamlit's protobufs, "
            f"no browser), arriving {config.stagger} s apart, each opening Home then Batch "
            f"shapes and clicking Step once about every {config.interval} s for "
            f"{config.seconds:.0f} s. Latency: from sending the click to its script_finished "
            "message; a click the stepper answers in the page sends nothing and counts 0 s. "
            "Memory: PSS from /proc/<pid>/smaps_rollup summed over the server and "
            "every process below it, sampled each second. Release: after the sessions close, "
            "wait for the Async idle close and the session TTL, then one visitor comes and goes."
        ),
    }


def stepping_together(outcomes: list[Outcome]) -> tuple[float, float]:
    """From when the last visitor began stepping to when the first one stopped."""
    return max(o.opened_at for o in outcomes), min(o.done_at for o in outcomes)


def summarize_chromium(outcomes: list[Outcome], together: tuple[float, float]) -> dict[str, Any]:
    """The Chromium tabs' figures: their clicks as the websocket client times them, and as
    the learner sees them (until the next call shows), with those that asked the server;
    and the same for the clicks made while every websocket visitor was stepping."""
    start, end = together
    inside = [
        latency
        for o in outcomes
        for clicked, latency in zip(o.click_times, o.latencies, strict=False)
        if start <= clicked <= end
    ]
    return {
        "sessions": len(outcomes),
        "clicks": sum(len(o.latencies) for o in outcomes),
        "in_page_clicks": sum(o.in_page_clicks for o in outcomes),
        "asked_server_clicks": sum(o.fragment_clicks for o in outcomes),
        "latency_s": spread([t for o in outcomes for t in o.latencies]),
        "clicks_while_every_websocket_visitor_steps": len(inside),
        "latency_while_every_websocket_visitor_steps_s": spread(inside),
        "shown_s": spread([t for o in outcomes for t in o.shown_latencies]),
        "asked_server_answered_s": spread([t for o in outcomes for t in o.answered_latencies]),
        "open_batch_shapes_s": spread([o.page_s for o in outcomes]),
        "exceptions": [f"{o.visitor.name}: {e}" for o in outcomes for e in o.exceptions],
        "crossings": [f"{o.visitor.name}: {c}" for o in outcomes for c in o.crossings],
        "errors": [f"{o.visitor.name}: {e}" for o in outcomes for e in o.errors],
        "how": (
            f"{len(outcomes)} tabs of one headless Chromium (Playwright, {CHROMIUM}) on this "
            "machine, opening Batch shapes (BurgerBot, Sync, 4 envs) and skipping its questions "
            "before the websocket visitors arrive, then clicking the stepper's Step once about "
            "once a second until the last websocket visitor has stopped; each click is "
            "timed in the page (performance.now(), polled every animation frame) until the view "
            "shows the next call and, if it sent a request, until that run finished."
        ),
    }


def report_lines(result: dict[str, Any]) -> list[str]:
    lat, mem, kids = result["latency_s"], result["memory_mb"], result["children"]
    steady = result["steady"]
    return [
        f"sessions {result['sessions']} for {result['seconds']:.0f} s, clicks {result['clicks']} "
        f"({result['in_page_clicks']} answered in the page, {result['fragment_clicks']} as "
        "fragment reruns), slow handshakes retried "
        f"{result['connect_retries']}",
        f"click latency p50 {lat['p50']} s, p95 {lat['p95']} s, max {lat['max']} s",
        f"by backend {result['latency_by_backend_s']}",
        f"open Home {result['open_home_s']}, Batch shapes {result['open_batch_shapes_s']} (s)",
        f"errors {len(result['errors'])}, exceptions {len(result['exceptions'])}, "
        f"state crossings {len(result['crossings'])}",
        f"past the Async budget: {result['budget_messages'] or 'nobody'}",
        f"server process CPU per click {steady['server_cpu_ms_per_click']} ms (Async steps run "
        f"in the workers) and {steady['clicks_per_second']} clicks a second, over "
        f"{steady['window_s']} s with {steady['window']}",
        f"memory (PSS, server + children) baseline {mem['baseline_after_one_visitor']} MB, peak "
        f"{mem['peak']} MB, at close {mem['at_close']} MB, after TTL "
        f"{mem['after_ttl_no_new_visitor']} MB, after release {mem['after_release']} MB",
        f"child processes peak {kids['peak']}, left after release {kids['left_after_release']}",
        f"load average (1, 5, 15 min) as the classroom closed {result['load_average_at_close']}",
        *[f"  problem: {p}" for k in ("errors", "exceptions", "crossings") for p in result[k]],
        *chromium_lines(result["chromium"]),
        "how: " + result["how"],
    ]


def chromium_lines(chromium: dict[str, Any]) -> list[str]:
    if not chromium["sessions"]:
        return []
    lat, shown = chromium["latency_s"], chromium["shown_s"]
    answered = chromium["asked_server_answered_s"]
    together = chromium["latency_while_every_websocket_visitor_steps_s"]
    return [
        f"Chromium tabs {chromium['sessions']}: clicks {chromium['clicks']} "
        f"({chromium['in_page_clicks']} answered in the page, "
        f"{chromium['asked_server_clicks']} asked the server)",
        f"  timed as the websocket client times it: p50 {lat['p50']} s, p95 {lat['p95']} s, "
        f"max {lat['max']} s; the {chromium['clicks_while_every_websocket_visitor_steps']} "
        f"clicks made while every websocket visitor stepped: {together}",
        f"  until the next call shows: p50 {shown['p50']} s, p95 {shown['p95']} s, "
        f"max {shown['max']} s; clicks that asked the server, until their run finished: "
        f"p50 {answered['p50']} s, p95 {answered['p95']} s, max {answered['max']} s",
        f"  open Batch shapes {chromium['open_batch_shapes_s']} (s); errors "
        f"{len(chromium['errors'])}, page errors {len(chromium['exceptions'])}, "
        f"state crossings {len(chromium['crossings'])}",
        *[f"  problem: {p}" for k in ("errors", "exceptions", "crossings") for p in chromium[k]],
        "  how: " + chromium["how"],
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for option in fields(Config):
        kind = float if isinstance(option.default, float) else int
        kind = str if isinstance(option.default, str) else kind
        parser.add_argument("--" + option.name.replace("_", "-"), type=kind, default=option.default)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = vars(parser.parse_args(argv))
    print_json = args.pop("json")
    config = Config(**args)
    result = run_classroom(config)
    result["config"] = asdict(config)
    path = ARTIFACTS / "classroom-report.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2) if print_json else "\n".join(report_lines(result)))
    problems = [
        problem
        for figures in (result, result["chromium"])
        for problem in figures["errors"] + figures["exceptions"] + figures["crossings"]
    ]
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
