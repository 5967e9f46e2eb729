"""Chromium driven by Playwright, with script runs counted in the page: one copy for all.

Shared by the latency benchmark (`tools/latency`) and the browser tests
(`tests/browser/app_driver.py`, `tests/test_deploy.py`): the browser, its flags, and the
in-page run counter that every wait is keyed to. Both are development tools; neither the
library nor the app imports this. Playwright is a development dependency: it is imported
only inside functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "RUNS_FINISHED_JS",
    "RUN_TRACKER_JS",
    "SETTLED_JS",
    "launch_chromium",
    "missing_browser",
    "new_context",
]

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium (the `chromium` package)."""

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    # Tabs take turns: none may be slowed down for being in the background.
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
]
"""The flags headless Chromium is launched with on these machines."""

VIEWPORT = {"width": 1280, "height": 900}

# Runs in every page before Streamlit's own code. It counts finished script runs from the
# app's own messages: Streamlit sends one protobuf ForwardMsg per WebSocket frame, and a run
# (or a fragment's run) ends with a `script_finished` field (number 6, a varint status). The
# page's DOM state (`stApp`'s `data-test-script-state`) cannot count runs: a short run's
# "running" and "notRunning" may reach React together and never show. A run is counted two
# animation frames after its message, once the page has painted it, and that time is kept
# (`lastFinishedAt`). Runs cut short by a rerun (status 2) are not counted: their rerun is.
#
# `window.__stSettled(since)`: a run that finished after run number ``since`` left the app
# idle and connected, every widget's code loaded (no skeleton). ``since === null``: the app
# only has to be idle (an action that runs nothing on the server).
RUN_TRACKER_JS = """
(() => {
  const runs = { finished: 0, interrupted: 0, messages: 0, lastFinishedAt: null };
  window.__stRuns = runs;
  const varint = (bytes, pos) => {
    let value = 0, scale = 1, byte;
    do { byte = bytes[pos++]; value += (byte & 0x7f) * scale; scale *= 128; } while (byte & 0x80);
    return [value, pos];
  };
  const finishStatus = (bytes) => {
    let pos = 0, key, value;
    while (pos < bytes.length) {
      [key, pos] = varint(bytes, pos);
      const field = Math.floor(key / 8), wire = key % 8;
      if (wire === 0) { [value, pos] = varint(bytes, pos); if (field === 6) return value; }
      else if (wire === 2) { [value, pos] = varint(bytes, pos); pos += value; }
      else if (wire === 1) pos += 8;
      else if (wire === 5) pos += 4;
      else return null;
    }
    return null;
  };
  const inspect = (buffer) => {
    runs.messages += 1;
    const status = finishStatus(new Uint8Array(buffer));
    if (status === null) return;
    if (status === 2) { runs.interrupted += 1; return; }
    requestAnimationFrame(() => requestAnimationFrame(() => {
      runs.finished += 1;
      runs.lastFinishedAt = performance.now();
    }));
  };
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (event.data instanceof ArrayBuffer) inspect(event.data);
        else if (event.data instanceof Blob) event.data.arrayBuffer().then(inspect);
      });
    }
  };
  window.__stSettled = (since) => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || (since !== null && runs.finished <= since)) return false;
    const state = app.getAttribute("data-test-script-state");
    // Widgets' code is loaded lazily: a skeleton stands in until it arrives.
    return app.getAttribute("data-test-connection-state") === "CONNECTED"
      && (state === "notRunning" || state === "compilationError")
      && !document.querySelector('[data-testid="stSkeleton"]');
  };
})();
"""

RUNS_FINISHED_JS = "() => window.__stRuns ? window.__stRuns.finished : 0"
"""For ``page.evaluate``: the number of script runs the page has seen finish."""

SETTLED_JS = "(since) => !!window.__stSettled && window.__stSettled(since)"
"""For ``page.wait_for_function(SETTLED_JS, arg=since)``: see ``RUN_TRACKER_JS``."""


def missing_browser(executable: Path = CHROMIUM) -> str | None:
    """Why Chromium cannot be driven here (Playwright or the browser missing), or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -r requirements-dev.txt)"
    if not executable.exists():
        return f"{executable} not found (install Debian's `chromium` package)"
    return None


def launch_chromium(playwright: Any, executable: Path = CHROMIUM) -> Any:
    """Headless Debian Chromium with ``CHROMIUM_ARGS``."""
    return playwright.chromium.launch(
        executable_path=str(executable), args=CHROMIUM_ARGS, headless=True
    )


def new_context(browser: Any, init_js: str = "") -> Any:
    """A browser context (its own cookies, so its own Streamlit session) whose pages count
    their script runs (``RUN_TRACKER_JS``), then run ``init_js`` before the app's code."""
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.add_init_script(RUN_TRACKER_JS + init_js)
    return context
