"""Hosting: the config is picked up and memory stays bounded per session.

(That nothing is written into the app's folder is checked by `tests/test_deploy.py`, on a
clean copy of the app, so that edits made in the working tree meanwhile cannot confuse it.)"""

from __future__ import annotations

import asyncio
import math
import os
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor

import pytest
from app_driver import (
    ROOT,
    TEST_SERVER_OPTIONS,
    AppView,
    RssSampler,
    StreamlitServer,
    megabytes,
    new_context,
    planned_pages,
    wait_until,
)
from classroom_client import StreamlitSession
from interactions import MAIN_INTERACTIONS
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.typing import Subprotocol

pytestmark = pytest.mark.browser

MB = 2**20
SESSION_GROWTH_LIMIT = 150 * MB
# Python keeps freed memory in its own pools, so RSS need not fall back to where it was;
# what must not happen is growth cycle after cycle (a session's memory never released).
REPEAT_GROWTH_LIMIT = 40 * MB
# The first cycle also pays for first imports and caches; later ones show the trend.
CYCLES = int(os.environ.get("BURGERBOT_TEST_MEMORY_CYCLES", "3"))


def test_config_is_served(view: AppView):
    """`.streamlit/config.toml` holds the hosting settings and the server applies them."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["browser"]["gatherUsageStats"] is False
    # Not headless: `streamlit run` opens the learner's browser; servers started by tests,
    # benchmarks and CI pass --server.headless=true themselves.
    assert "headless" not in config["server"]
    assert config["server"]["runOnSave"] is False
    assert config["server"]["maxUploadSize"] <= 5
    assert config["client"]["toolbarMode"] == "minimal"
    assert config["theme"]["primaryColor"].startswith("#")
    view.goto("")
    view.assert_no_exception()
    # "minimal" hides the developer items (the Deploy button) even on localhost.
    assert view.page.locator('[data-testid="stAppDeployButton"]').count() == 0


def test_a_10_mb_frame_is_refused_and_the_server_keeps_serving(view: AppView, server):
    """`server.maxMessageSize` bounds what one client can make the server hold."""

    def send_10_mb() -> int | None:
        """The close code the server sent, or None if it reset the connection before one."""
        url = server.base_url.replace("http://", "ws://") + "/_stcore/stream"
        with connect(url, subprotocols=[Subprotocol("streamlit")], max_size=None) as ws:
            try:  # the server may close the socket while the frame is still going out
                ws.send(b"\0" * 10_000_000)
                while True:  # whatever the server sends first, until it closes the socket
                    ws.recv(timeout=30)
            except ConnectionClosed as closed:  # a 1009 close, or a reset before it arrived
                return closed.rcvd.code if closed.rcvd else None
        # A server that took the frame keeps the socket open: recv times out instead.

    limit_mb = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"][
        "maxMessageSize"
    ]
    assert limit_mb < 10
    assert send_10_mb() in (1009, None)  # 1009: "message too big"
    view.goto("")
    view.assert_no_exception()


def test_a_value_streamlit_cannot_read_is_dropped_with_a_note(server):
    """NaN and text for Batch shapes' whole-number NUM_ENVS, sent over the websocket (no
    browser sends them), each give the page's note and no error; the session keeps working:
    a good value afterwards is used. A huge number is Streamlit's own business (it falls back
    to the widget's minimum, no error)."""

    def sent(value: float | str) -> WidgetState:
        state = WidgetState(id=tab.find("batch_shapes_n").proto.id)
        if isinstance(value, str):
            state.string_value = value
        else:
            state.double_value = value
        return state

    async def set_n(state: WidgetState) -> tuple[list[str], list[str]]:
        tab._widgets[state.id] = state
        run = await tab.rerun(tab.page_hash, "", None, tab.widget_states())
        return run.exceptions, [body for kind, body in tab.alerts() if kind == "warning"]

    def shown_n() -> int:
        return int(tab.find("batch_shapes_n").proto.value)

    async def visit() -> None:
        await tab.connect()
        try:
            assert not (await tab.open("batch_shapes", "n=4")).exceptions
            for bad in (math.nan, "lots"):
                errors, warnings = await set_n(sent(bad))
                assert not errors, errors
                assert any("could not be read" in w for w in warnings), (bad, warnings)
                assert shown_n() == 4  # the value it had
                good = WidgetState(id=tab.find("batch_shapes_n").proto.id, int_value=7)
                errors, warnings = await set_n(good)
                assert not errors and not any("could not be read" in w for w in warnings)
                assert shown_n() == 7
                await set_n(WidgetState(id=good.id, int_value=4))
            errors, warnings = await set_n(sent(1e300))
            assert not errors and not any("could not be read" in w for w in warnings)
        finally:
            await tab.close()

    tab = StreamlitSession(server.base_url.replace("http://", "ws://"), "forged")
    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop holds this thread
        pool.submit(asyncio.run, visit()).result()


def visit_everything(browser, server: StreamlitServer) -> tuple[RssSampler, dict[str, float]]:
    """One visitor: every page, its main interaction at default settings.

    Returns the memory samples, and per page how far above the session's starting RSS the
    server went while on it (cumulative: memory kept by earlier pages counts too).
    """
    context = new_context(browser)
    per_page = {}
    try:
        with RssSampler(server, own_only=True) as sampler:
            view = AppView(context.new_page(), server)
            for page in planned_pages():
                started = time.monotonic()
                view.goto(page.url_path)
                view.assert_no_exception()
                interaction = MAIN_INTERACTIONS.get(page.file)
                if interaction is not None:
                    interaction(view)
                    view.assert_no_exception()
                peak = sampler.peak_between(started, time.monotonic())
                per_page[page.stem] = megabytes(peak - sampler.samples[0][1])
    finally:
        context.close()
    return sampler, per_page


def drop_closed_sessions(browser, server: StreamlitServer) -> None:
    """Make the server forget every closed tab's session.

    Streamlit keeps a disconnected session for ``server.disconnectedSessionTTL`` seconds
    (so a reconnect finds it), and only reaps expired ones when another session
    disconnects. So: wait for no session to be connected, let the TTL pass, then connect
    and disconnect a tiny session of our own.
    """
    wait_until(lambda: server.metrics().get("active_sessions") == 0, 60, "tabs to disconnect")
    ttl = float(TEST_SERVER_OPTIONS["server.disconnectedSessionTTL"])
    expired_at = time.monotonic() + ttl + 0.5
    wait_until(lambda: time.monotonic() > expired_at, ttl + 5, "the session TTL to pass")
    context = new_context(browser)
    try:
        context.new_page().goto(server.url("_stcore/health"))
        view = AppView(context.new_page(), server)
        view.goto("")
    finally:
        context.close()
    wait_until(lambda: server.metrics().get("active_sessions") == 0, 60, "the sweeper to leave")


def settled_rss(server: StreamlitServer) -> int:
    """RSS once worker processes have exited and the figure stops falling."""
    wait_until(lambda: not server.children(), 60, "worker processes to exit")
    readings = [server.rss(own_only=True)]

    def stable() -> bool:
        readings.append(server.rss(own_only=True))
        return readings[-1] >= readings[-2] - MB // 2

    wait_until(stable, 30, "RSS to stop falling", interval=0.5)
    return readings[-1]


def test_memory_per_session_is_bounded_and_released(browser, server, report):
    """Visitors one after another, each visiting every page and running its experiment.

    Measured on the server process itself: Async workers come and go with each run, are
    capped by the app's worker budget, and must be gone afterwards (checked elsewhere).

    The first visitor also pays for first imports (torch, where SB3 is installed) and fills
    the caches: reported, not held to the per-session bound. Later visitors show what a
    session costs, and whether it is given back.
    """
    drop_closed_sessions(browser, server)
    figures = {"baseline_mb": megabytes(settled_rss(server)), "cycles": []}
    ends = []
    for _ in range(max(CYCLES, 2)):
        before = settled_rss(server)
        sampler, per_page = visit_everything(browser, server)
        peak = sampler.peak
        drop_closed_sessions(browser, server)
        after = settled_rss(server)
        ends.append(after)
        figures["cycles"].append(
            {
                "before_mb": megabytes(before),
                "peak_mb": megabytes(peak),
                "growth_during_session_mb": megabytes(peak - before),
                "after_session_dropped_mb": megabytes(after),
                "peak_above_start_per_page_mb": per_page,
                "peak_with_workers_pss_mb": megabytes(sampler.peak_total_pss),
            }
        )
    report.record("memory", "per_session", figures)
    warm = figures["cycles"][1:]
    assert max(c["growth_during_session_mb"] for c in warm) * MB < SESSION_GROWTH_LIMIT, figures
    assert ends[-1] - ends[1 if len(ends) > 2 else 0] < REPEAT_GROWTH_LIMIT, figures
