"""The hostile-load tier (issue 24, item 7): attacks and careless crowds on one public server.

One server, installed as the hosted demo is (a clean copy of the app in a fresh virtualenv
with `requirements.txt` only, the app's `.streamlit/config.toml`, default caps), meets in turn:

1. 130 tabs of a cheap page (the glossary) opened then closed, first: the server's start is
   the baseline they must come back near;
2. the 12-tab Auto-reset burst: twelve tabs open a 64 x 2,000 Auto-reset run at once;
2b. 40 tabs of Batch shapes with 1,024 CartPoles each, opened then closed (the server-wide
   budget of Sync sub-environments lets 8 build, the others are told to wait);
2c. five rounds of 4 Auto-reset tabs (the burst's runs), memory measured after each round;
3. a killed Async worker: a tab's worker is killed, the next click that reaches the server
   shows one clear message, and every other worker ends;
4. an abandoned Async env: a tab with all 8 Async workers closes;
5. five hammering tabs (Step x10 as fast as the server answers, CartPole, 1,024 Sync envs)
   beside a visitor clicking Step x10 once a second, whose clicks that reach the server are
   timed: alone, during the hammering tabs' first `BURST_PHASE_S` (the stepping gate,
   `burgerbot.app.pacing`, has not yet seen which tabs are busy: reported only), and for
   `HAMMER_SECONDS` after (asserted).

Memory is PSS summed over the server and every process below it. One setting differs from
the hosted demo so that the releases can be watched within minutes: disconnected sessions
are kept `TTL_S` seconds instead of the config's 60 (what must be released is released
within the TTL plus about 30 s, whatever the TTL). The visitors are
`classroom_client.StreamlitSession` websocket sessions in this process (no browser).

The figures are printed and written to ``test-artifacts/hostile-report.json``.
Run: ``python -m pytest -m hostile`` (a few minutes; it pip-installs the requirements).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))

from app_driver import ARTIFACTS, RssSampler, StreamlitServer, megabytes
from classroom_client import StreamlitSession

from burgerbot.app.caps import Caps
from burgerbot.app.logic.batch_shapes import reveal_id

pytestmark = pytest.mark.hostile

TTL_S = 10
"""disconnectedSessionTTL for this server (the app's config says 60)."""
RELEASE_SLACK_S = 30.0
"""What must be released is released within the TTL plus this (the issue's "about 30 s")."""
PEAK_LIMIT_MB = 700.0
"""The 12-tab burst's peak (the issue: 1,381 MB before the heavy-run slots)."""
RETURN_LIMIT_MB = 100.0
"""After the tabs close, the server comes back within this of where it started..."""
RETURN_WITHIN_S = 120.0
"""...within this many seconds (the issue: 1,019 MB still held)."""
P95_LIMIT_S = 0.5
"""Another visitor's request p95 beside five hammering tabs (the issue's target)."""
BURST_TABS = 12
BURST_QUERY = "n=64&steps=2000&mode=NEXT_STEP&seed={seed}"
BURST_PREDICTION = "autoreset_next_step"
"""The Auto-reset page runs only once its prediction is answered or skipped: each tab skips."""
CARTPOLE_TABS = 40
CARTPOLE_QUERY = "env=CartPole-v1&n=1024"
ROUNDS = 5
ROUND_TABS = 4
ROUND_CLIMB_LIMIT_MB = 30.0
"""The last round's memory after, at most this above the first round's (the issue: 555, 648,
761, 797, 827 MB after five rounds). A round in between may read higher while the app's
caches fill up to their byte bounds (`.streamlit/config.toml`, `result_cache`): the highest
is reported, the trend is asserted."""
ROUND_SETTLE_S = TTL_S + RELEASE_SLACK_S
"""After a round's tabs close: their sessions expire, then the reaper (every 5 s) shuts them
down and collects; as for every release, within the TTL plus about 30 s (the first round
waits it all, each later one until it is back within `ROUND_CLIMB_LIMIT_MB` of the first)."""
CHEAP_TABS = 130
CHEAP_PAGE = "glossary"
HAMMER_TABS = 5
HAMMER_QUERY = "env=CartPole-v1&n=1024&backend=sync"
HAMMER_SECONDS = 30.0
BURST_PHASE_S = 10.0
HAMMER_INTERVAL_S = 0.05  # at most 20 clicks a second per tab
VISITOR_QUERY = "env=BurgerBot&n=16&backend=native"
VISITOR_INTERVAL_S = 1.0  # a learner's pace: a click a second; every second one asks the server
STEPPER = "batch_shapes_live"
DEAD_WORKER_TEXT = "worker process"
BUDGET_TEXT = "Async worker processes are already running"
SYNC_BUDGET_TEXT = "Sync envs hold"


# --- Helpers --------------------------------------------------------------------------------

# Counts the CartPole envs alive in the server process (loaded at its start-up as
# sitecustomize, in this test's server only), every 2 s while ``<file>.on`` exists: walking
# every object holds the interpreter, so it is off while latency is measured.
ENV_COUNTER = """
import gc, os, sys, threading, time

def _count_forever(path):
    while True:
        time.sleep(2)
        if os.path.exists(path + ".on"):
            alive = sum(type(o).__name__ == "CartPoleEnv" for o in gc.get_objects())
            with open(path + ".tmp", "w") as f:
                f.write(str(alive))
            os.replace(path + ".tmp", path)

if "streamlit" in " ".join(sys.argv):
    threading.Thread(
        target=_count_forever, args=(os.environ["ENV_COUNT_FILE"],), daemon=True
    ).start()
"""


class EnvCounter:
    """Reads what `ENV_COUNTER` writes."""

    def __init__(self, workdir: Path) -> None:
        self.probe = workdir / "probe"
        self.probe.mkdir(parents=True, exist_ok=True)
        (self.probe / "sitecustomize.py").write_text(ENV_COUNTER)
        self.file = self.probe / "cartpoles"

    def on(self, enabled: bool) -> None:
        switch = self.file.with_name(self.file.name + ".on")
        if enabled:
            switch.touch()
        else:
            switch.unlink(missing_ok=True)
            self.file.unlink(missing_ok=True)

    def alive(self) -> int:
        """CartPole envs alive at the last count, -1 before the first."""
        try:
            return int(self.file.read_text())
        except (FileNotFoundError, ValueError):
            return -1


def spread(values: list[float]) -> dict[str, float | int]:
    """Count, p50, p95 and max of some durations (nearest-rank percentiles), in seconds."""
    ordered = sorted(values) or [float("nan")]
    rank = {q: ordered[max(0, math.ceil(q * len(ordered)) - 1)] for q in (0.5, 0.95)}
    return {
        "count": len(values),
        "p50": round(rank[0.5], 3),
        "p95": round(rank[0.95], 3),
        "max": round(ordered[-1], 3),
    }


def wait_for(check: Callable[[], bool], limit: float, every: float = 1.0) -> float | None:
    """Seconds until ``check()`` held (polled every ``every`` s), None past ``limit``."""
    start = time.monotonic()
    while True:
        if check():
            return round(time.monotonic() - start, 1)
        if time.monotonic() - start > limit:
            return None
        time.sleep(every)


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def start_hosted_server(workdir: Path, counter: EnvCounter) -> StreamlitServer:
    """The app as the hosted demo runs it: a clean copy, a fresh venv, default caps (and
    ``counter``'s probe on its path)."""
    from test_deploy import clean_copy, fresh_venv

    defaults = {f"BURGERBOT_{f.name.upper()}": str(f.default) for f in fields(Caps)}
    env = {k: v for k, v in defaults.items() if k in os.environ}  # default caps, whatever is set
    app = clean_copy(workdir / "app")
    python = fresh_venv(workdir / "venv-hostile", app / "requirements.txt", Path(sys.executable))
    env |= {
        "PYTHONPATH": str(counter.probe),
        "VIRTUAL_ENV": str(python.parent.parent),
        "ENV_COUNT_FILE": str(counter.file),
    }
    return StreamlitServer.start(
        log_path=ARTIFACTS / "hostile-server.log",
        python=python,
        cwd=app,
        extra_env=env,
        options={"server.disconnectedSessionTTL": str(TTL_S)},
        test_options=False,
    )


async def open_tabs(
    base: str, page: str, queries: list[str], stagger: float = 0.0, skip: str = ""
) -> list[Any]:
    """Open one tab per query, all at once (``stagger`` s apart); the open tabs, or the
    exception a tab met. With ``skip`` (a prediction's id), each tab then skips that
    prediction, as a visitor who wants the run at once does: the page's run starts only then.
    """

    async def one(i: int, query: str) -> Any:
        await asyncio.sleep(i * stagger)
        tab = StreamlitSession(base, f"{page}-{i}")
        try:
            await tab.connect()
            tab.opened_s = (await tab.open(page, query)).seconds
            if skip and tab.has(f"{skip}_skip"):
                tab.opened_s += (await tab.click(f"{skip}_skip")).seconds
        except Exception as exc:  # one failed tab is a finding, not the end of the run
            await tab.close()
            return exc
        return tab

    return list(await asyncio.gather(*(one(i, q) for i, q in enumerate(queries))))


async def close_tabs(tabs: list[Any]) -> None:
    await asyncio.gather(*(t.close() for t in tabs if isinstance(t, StreamlitSession)))


def tab_errors(tabs: list[Any]) -> list[str]:
    """Every exception a tab met or was shown."""
    found = []
    for tab in tabs:
        if isinstance(tab, StreamlitSession):
            found += [f"{tab.name}: {e}" for e in tab.exceptions]
        else:
            found.append(f"{type(tab).__name__}: {tab}")
    return found


# --- Scenarios ------------------------------------------------------------------------------


def burst(server: StreamlitServer, base: str, start_mb: float) -> dict[str, Any]:
    """Twelve Auto-reset tabs of 64 envs x 2,000 steps at once, each with its own seed."""
    queries = [BURST_QUERY.format(seed=100 + i) for i in range(BURST_TABS)]
    began = time.monotonic()
    with RssSampler(server, interval=0.5) as sampler:

        async def go() -> list[Any]:
            tabs = await open_tabs(base, "autoreset", queries, skip=BURST_PREDICTION)
            await close_tabs(tabs)
            return tabs

        tabs = asyncio.run(go())
    opened = [t.opened_s for t in tabs if isinstance(t, StreamlitSession)]
    told_to_wait = sum(
        isinstance(t, StreamlitSession) and t.has("autoreset_busy_retry") for t in tabs
    )
    back_after = wait_for(
        lambda: megabytes(server.pss()) < start_mb + RETURN_LIMIT_MB, RETURN_WITHIN_S
    )
    return {
        "tabs": BURST_TABS,
        "query": "/autoreset?" + BURST_QUERY,
        "open_s": spread(opened),
        "told_to_wait": told_to_wait,
        "all_tabs_s": round(time.monotonic() - began - (back_after or 0), 1),
        "peak_mb": megabytes(max(sampler.total_pss)),
        "back_within_100_mb_after_s": back_after,
        "after_mb": megabytes(server.pss()),
        "errors": tab_errors(tabs),
    }


def cartpole_tabs(server: StreamlitServer, base: str, counter: EnvCounter) -> dict[str, Any]:
    """Forty Batch shapes tabs of 1,024 CartPoles each, opened together, then closed.

    Their memory must come back to within `RETURN_LIMIT_MB` of what the server held just
    before them (the burst before leaves Auto-reset's bounded result cache behind)."""
    before_mb = megabytes(server.pss())
    with RssSampler(server, interval=0.5) as sampler:

        async def go() -> tuple[list[Any], float]:
            tabs = await open_tabs(base, "batch_shapes", [CARTPOLE_QUERY] * CARTPOLE_TABS, 0.1)
            open_mb = megabytes(server.pss())
            await close_tabs(tabs)
            return tabs, open_mb

        tabs, open_mb = asyncio.run(go())
    closed = time.monotonic()
    counter.on(True)
    wait_for(lambda: counter.alive() >= 0, 30)
    alive_at_close = counter.alive()
    freed_after = wait_for(lambda: counter.alive() == 0, TTL_S + RELEASE_SLACK_S)
    counter.on(False)
    left = TTL_S + RELEASE_SLACK_S - (time.monotonic() - closed)
    back_after = wait_for(lambda: megabytes(server.pss()) < before_mb + RETURN_LIMIT_MB, left)
    opened = [t.opened_s for t in tabs if isinstance(t, StreamlitSession)]
    refused = sum(
        isinstance(t, StreamlitSession) and any(SYNC_BUDGET_TEXT in b for _, b in t.alerts())
        for t in tabs
    )
    return {
        "tabs": CARTPOLE_TABS,
        "refused_by_the_sync_env_budget": refused,
        "before_mb": before_mb,
        "query": "/batch_shapes?" + CARTPOLE_QUERY,
        "open_s": spread(opened),
        "with_tabs_open_mb": open_mb,
        "cartpoles_alive_at_close": alive_at_close,
        "cartpoles_freed_after_s": freed_after,
        "peak_mb": megabytes(max(sampler.total_pss)),
        "back_within_100_mb_after_s": back_after,
        "after_mb": megabytes(server.pss()),
        "after_s": round(time.monotonic() - closed, 1),
        "errors": tab_errors(tabs),
    }


def rounds(server: StreamlitServer, base: str) -> dict[str, Any]:
    """Five rounds of four Auto-reset tabs (the burst's runs), memory after each."""
    after, errors, told_to_wait = [], [], 0
    for r in range(ROUNDS):
        queries = [BURST_QUERY.format(seed=200 + ROUND_TABS * r + i) for i in range(ROUND_TABS)]

        async def go(queries: list[str] = queries) -> list[Any]:
            tabs = await open_tabs(base, "autoreset", queries, skip=BURST_PREDICTION)
            await close_tabs(tabs)
            return tabs

        tabs = asyncio.run(go())
        errors += tab_errors(tabs)
        told_to_wait += sum(
            isinstance(t, StreamlitSession) and t.has("autoreset_busy_retry") for t in tabs
        )
        if after:  # no need to wait the whole settling time once back near the first round
            wait_for(
                lambda: megabytes(server.pss()) <= after[0] + ROUND_CLIMB_LIMIT_MB,
                ROUND_SETTLE_S,
            )
        else:
            time.sleep(ROUND_SETTLE_S)
        after.append(megabytes(server.pss()))
    return {
        "rounds": ROUNDS,
        "tabs_per_round": ROUND_TABS,
        "query": "/autoreset?" + BURST_QUERY,
        "after_each_round_mb": after,
        "climb_mb": round(after[-1] - after[0], 1),
        "highest_above_first_mb": round(max(after) - after[0], 1),
        "told_to_wait": told_to_wait,
        "errors": errors,
    }


def cheap_tabs(server: StreamlitServer, base: str, start_mb: float) -> dict[str, Any]:
    """130 tabs of the glossary, opened together (a few ms apart), then closed."""
    with RssSampler(server, interval=0.5) as sampler:

        async def go() -> tuple[list[Any], float]:
            tabs = await open_tabs(base, CHEAP_PAGE, [""] * CHEAP_TABS, 0.05)
            open_mb = megabytes(server.pss())
            await close_tabs(tabs)
            return tabs, open_mb

        tabs, open_mb = asyncio.run(go())
    closed = time.monotonic()
    back_after = wait_for(
        lambda: megabytes(server.pss()) < start_mb + RETURN_LIMIT_MB, TTL_S + RELEASE_SLACK_S
    )
    return {
        "tabs": CHEAP_TABS,
        "page": "/" + CHEAP_PAGE,
        "opened": sum(isinstance(t, StreamlitSession) for t in tabs),
        "with_tabs_open_mb": open_mb,
        "peak_mb": megabytes(max(sampler.total_pss)),
        "back_within_100_mb_after_s": back_after,
        "after_mb": megabytes(server.pss()),
        "after_s": round(time.monotonic() - closed, 1),
        "errors": tab_errors(tabs),
    }


def killed_worker_then_abandoned(server: StreamlitServer, base: str) -> dict[str, Any]:
    """A tab's Async worker is killed; then a tab takes all 8 workers and is closed."""
    result: dict[str, Any] = {}

    async def killed() -> None:
        tab = StreamlitSession(base, "async-4")
        async with tab:
            await tab.open("batch_shapes", "backend=async&n=4")
            await tab.click(f"{reveal_id('BurgerBot')}_skip")  # the stepper waits for it
            workers = server.children()
            result["workers_before_kill"] = len(workers)
            os.kill(workers[0], signal.SIGKILL)
            clicks, shown = 0, []
            while clicks < 40:  # clicks the page answers itself, then one that asks
                clicks += 1
                step = await tab.press(STEPPER, "step")
                if not step.in_page:
                    result["alerts_on_that_click"] = tab.alerts()
                    shown = [body for _, body in tab.alerts() if DEAD_WORKER_TEXT in body]
                    break
            result["clicks_until_the_server_was_asked"] = clicks
            result["messages_on_that_click"] = shown
            result["exceptions"] = list(tab.exceptions)
            # Every other worker ended, none left for the budget to miscount.
            result["workers_alive_after_s"] = wait_for(lambda: not server.children(), 15, 0.2)
            result["workers_left"] = len(server.children())

    async def abandoned() -> None:
        tab = StreamlitSession(base, "async-8")
        async with tab:
            await tab.open("batch_shapes", "backend=async&n=8")
            # All 8 of the budget's workers fit: it counted none left by the killed tab.
            result["budget_refused"] = [b for _, b in tab.alerts() if BUDGET_TEXT in b]
            result["workers_of_the_new_tab"] = len(server.children())
            result["exceptions"] += list(tab.exceptions)

    asyncio.run(killed())
    asyncio.run(abandoned())
    result["abandoned_workers_gone_after_s"] = wait_for(
        lambda: not server.children(), TTL_S + RELEASE_SLACK_S, 0.5
    )
    return result


async def _open_stepper(tab: StreamlitSession, query: str, env: str) -> None:
    """Open Batch shapes with ``query`` and skip its prediction, which hides the stepper."""
    from burgerbot.app.logic.batch_shapes import reveal_id

    await tab.open("batch_shapes", query)
    if not tab.has(STEPPER):
        await tab.click(f"{reveal_id(env)}_skip")


async def _hammer(base: str, stop: asyncio.Event, counts: list[int], errors: list[str]) -> None:
    tab = StreamlitSession(base, "hammer")
    async with tab:
        await _open_stepper(tab, HAMMER_QUERY, "CartPole-v1")
        mine = len(counts)
        counts.append(0)
        while not stop.is_set():
            began = time.monotonic()
            try:
                result = await tab.press(STEPPER, "steps")
            except RuntimeError:  # disabled while playing, say: the page says why
                result = await tab.press(STEPPER, "reset")
            counts[mine] += not result.in_page
            await asyncio.sleep(max(0.0, HAMMER_INTERVAL_S - (time.monotonic() - began)))
        errors += tab.exceptions


async def _visit(tab: StreamlitSession, seconds: float) -> list[float]:
    """The visitor's clicks for ``seconds``: the durations of those that asked the server."""
    asked: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.monotonic()
        result = await tab.press(STEPPER, "steps")
        if not result.in_page:
            asked.append(result.seconds)
        await asyncio.sleep(max(0.0, VISITOR_INTERVAL_S - (time.monotonic() - began)))
    return asked


def hammering(server: StreamlitServer, base: str) -> dict[str, Any]:
    """A visitor's clicks alone, then beside five tabs hammering Step x10."""
    from classroom import server_cpu_seconds

    result: dict[str, Any] = {}

    async def go() -> None:
        visitor = StreamlitSession(base, "visitor")
        async with visitor:
            await _open_stepper(visitor, VISITOR_QUERY, "BurgerBot")
            result["idle_s"] = spread(await _visit(visitor, 16.0))
            stop, counts, errors = asyncio.Event(), [], []
            hammers = [
                asyncio.ensure_future(_hammer(base, stop, counts, errors))
                for _ in range(HAMMER_TABS)
            ]
            while len(counts) < HAMMER_TABS and not any(h.done() for h in hammers):
                await asyncio.sleep(0.2)
            # New tabs start as idle as the visitor: the stepping gate serves them in
            # turn until it has seen which are busy. Those seconds are reported only.
            result["while_the_hammers_burst_s"] = spread(await _visit(visitor, BURST_PHASE_S))
            cpu_before, began = server_cpu_seconds(server.process.pid), time.monotonic()
            beside = await _visit(visitor, HAMMER_SECONDS)
            cores = (server_cpu_seconds(server.process.pid) - cpu_before) / (
                time.monotonic() - began
            )
            stop.set()
            await asyncio.gather(*hammers, return_exceptions=True)
            result["beside_hammering_s"] = spread(beside)
            result["hammer_requests_answered"] = counts
            result["server_cpu_cores_while_hammered"] = round(cores, 2)
            result["exceptions"] = errors + list(visitor.exceptions)
            result["hammer_failures"] = [repr(h.exception()) for h in hammers if h.exception()]

    asyncio.run(go())
    return result


# --- The tier -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile() -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="hostile-"))
    report: dict[str, Any] = {"load_average_at_start": load_average()}
    began = time.monotonic()
    server = None
    try:
        counter = EnvCounter(workdir)
        server = start_hosted_server(workdir, counter)
        report["server_ready_s"] = round(time.monotonic() - began, 1)
        base = f"ws://127.0.0.1:{server.port}"

        async def warm() -> list[Any]:  # every page the tier opens, once, small
            tabs = await open_tabs(base, "autoreset", ["n=4&steps=100"], skip=BURST_PREDICTION)
            tabs += await open_tabs(base, "batch_shapes", ["env=CartPole-v1&n=4"])
            tabs += await open_tabs(base, CHEAP_PAGE, [""])
            await close_tabs(tabs)
            return tabs

        report["warm_errors"] = tab_errors(asyncio.run(warm()))
        time.sleep(TTL_S + 2)
        start_mb = megabytes(server.pss())
        report["start_mb"] = start_mb
        for name, scenario in (
            # First: "130 tabs leave the server within 100 MB of its start" is about those
            # tabs, not the caches the heavy scenarios fill (bounded, and kept on purpose).
            ("cheap_tabs", lambda: cheap_tabs(server, base, start_mb)),
            ("burst", lambda: burst(server, base, start_mb)),
            ("cartpole_tabs", lambda: cartpole_tabs(server, base, counter)),
            ("rounds", lambda: rounds(server, base)),
            ("async", lambda: killed_worker_then_abandoned(server, base)),
            ("hammering", lambda: hammering(server, base)),
        ):
            t0 = time.monotonic()
            try:
                report[name] = scenario()
            except Exception as exc:  # one broken scenario fails its own tests, not the tier
                report[name] = {"scenario_error": f"{type(exc).__name__}: {exc}"}
            report[name]["scenario_s"] = round(time.monotonic() - t0, 1)
            report[name]["load_average"] = load_average()
            print(f"\n{name}: {json.dumps(report[name])}", flush=True)
        report["end_mb"] = megabytes(server.pss())
    finally:
        if server is not None:
            report["left_after_stop"] = server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        report["tier_s"] = round(time.monotonic() - began, 1)
        report["load_average_at_end"] = load_average()
        path = ARTIFACTS / "hostile-report.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(json.dumps(report, indent=2))
    return report


def scenario(hostile: dict[str, Any], name: str) -> dict[str, Any]:
    """One scenario's figures; a scenario that broke fails its tests with its error."""
    run = hostile[name]
    assert "scenario_error" not in run, run["scenario_error"]
    return run


def test_the_burst_stays_under_700_mb_and_gives_memory_back(hostile):
    burst = scenario(hostile, "burst")
    assert not burst["errors"], burst["errors"]
    assert burst["told_to_wait"] > 0, "twelve heavy runs at once and nobody was told to wait"
    assert burst["open_s"]["max"] < 60, burst  # a clear message, never a 65 s stall
    assert burst["peak_mb"] < PEAK_LIMIT_MB, burst
    assert burst["back_within_100_mb_after_s"] is not None, burst


def test_forty_closed_cartpole_tabs_free_their_envs_after_the_ttl(hostile):
    tabs = scenario(hostile, "cartpole_tabs")
    assert not tabs["errors"], tabs["errors"]
    # The server-wide budget of Sync sub-environments let some tabs build and refused the rest.
    assert tabs["refused_by_the_sync_env_budget"] > 0, tabs
    assert 0 < tabs["cartpoles_alive_at_close"] <= Caps().max_live_sync_envs, tabs
    assert tabs["cartpoles_freed_after_s"] is not None, tabs


def test_forty_closed_cartpole_tabs_give_their_memory_back_after_the_ttl(hostile):
    tabs = scenario(hostile, "cartpole_tabs")
    assert tabs["back_within_100_mb_after_s"] is not None, tabs


def test_five_rounds_of_four_autoreset_tabs_do_not_climb(hostile):
    run = scenario(hostile, "rounds")
    assert not run["errors"], run["errors"]
    assert len(run["after_each_round_mb"]) == ROUNDS, run
    assert run["climb_mb"] <= ROUND_CLIMB_LIMIT_MB, run


def test_130_closed_cheap_tabs_leave_the_server_within_100_mb_of_its_start(hostile):
    run = scenario(hostile, "cheap_tabs")
    assert not run["errors"], run["errors"]
    assert run["opened"] == CHEAP_TABS, run
    assert run["back_within_100_mb_after_s"] is not None, run


def test_a_killed_worker_is_one_message_and_the_budget_counts_the_living(hostile):
    run = scenario(hostile, "async")
    assert run["workers_before_kill"] == 4
    assert not run["exceptions"], run["exceptions"]
    assert len(run["messages_on_that_click"]) == 1, run
    assert run["workers_alive_after_s"] is not None and run["workers_left"] == 0, run
    # The budget counted no orphan: a new tab got all 8 workers of the limit.
    assert not run["budget_refused"] and run["workers_of_the_new_tab"] == 8, run


def test_an_abandoned_async_env_is_released_after_the_ttl(hostile):
    run = scenario(hostile, "async")
    assert run["abandoned_workers_gone_after_s"] is not None, run


def test_a_visitor_beside_five_hammering_tabs_stays_quick(hostile):
    run = hostile["hammering"]
    assert not run["exceptions"] and not run["hammer_failures"], run
    assert min(run["hammer_requests_answered"]) > 0, run  # they really hammered
    assert run["beside_hammering_s"]["count"] >= 5, run
    assert run["beside_hammering_s"]["p95"] < P95_LIMIT_S, run


def test_no_process_outlives_the_server(hostile):
    assert hostile["left_after_stop"] == []
