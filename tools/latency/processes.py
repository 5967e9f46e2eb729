"""The benchmark's `streamlit run` servers: start on a free port, CPU time, stop everything."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from burgerbot.app.processes import session_members, stat_fields

__all__ = ["ROOT", "Server", "cpu_seconds", "free_port", "wait_until"]

ROOT = Path(__file__).resolve().parents[2]
"""The project's root: where `streamlit_app.py` and `.streamlit/config.toml` are."""

SERVER_START_TIMEOUT_S = 120.0  # bounds a hang on a busy machine; not a performance figure

# Both servers get the same options (and the same `.streamlit/config.toml`, both run from
# ROOT), so the only difference between them is the app. No file watcher: nothing here
# should react to files edited while the benchmark runs.
SERVER_OPTIONS = {
    "server.headless": "true",
    "server.address": "127.0.0.1",
    "server.fileWatcherType": "none",
    "browser.gatherUsageStats": "false",
}

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far (0.0 if it is gone).

    Fields 14 and 15 of /proc/<pid>/stat (utime, stime), in clock ticks; every thread of
    the process counts, so Streamlit's script threads do too.
    """
    fields = stat_fields(pid)
    if fields is None:
        return 0.0
    # The list starts at field 3 (state), so utime (field 14) is at index 11.
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def wait_until(
    condition: Callable[[], Any], timeout: float, what: str, interval: float = 0.1
) -> Any:
    """Poll ``condition()`` until it is truthy; raise TimeoutError naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM if the benchmark dies without cleaning up."""
    with contextlib.suppress(Exception):  # Linux only; elsewhere the finally blocks do it
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGTERM)


@dataclass
class Server:
    """A `streamlit run` process in a session of its own (so it can be stopped with its
    children), its output going to a log file."""

    name: str
    process: subprocess.Popen
    port: int
    log_path: Path

    @classmethod
    def launch(cls, name: str, script: str, log_path: Path) -> Server:
        """Start ``streamlit run <script>`` from ROOT on a free port; does not wait for it."""
        port = free_port()
        command = [sys.executable, "-m", "streamlit", "run", script]
        for option, value in {**SERVER_OPTIONS, "server.port": str(port)}.items():
            command += [f"--{option}", value]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own session: stop() ends its workers too
                preexec_fn=_die_with_parent,  # safe: no other thread runs yet
            )
        return cls(name, process, port, log_path)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def is_healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/_stcore/health", timeout=2) as r:
                return r.status == 200 and r.read().decode().strip() == "ok"
        except (OSError, urllib.error.URLError):
            return False

    def wait_healthy(self, timeout: float = SERVER_START_TIMEOUT_S) -> None:
        """Wait for /_stcore/health to answer "ok"; fail with the log if the server died."""

        def ready() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the {self.name} server exited with code {self.process.returncode}:\n"
                    + self.log_tail()
                )
            return self.is_healthy()

        wait_until(ready, timeout, f"{self.base_url}/_stcore/health ({self.name})")

    def log_tail(self, lines: int = 40) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pid)

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM the server (as a host does), then SIGKILL whatever is left in its session."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=timeout)
        # Helpers such as multiprocessing's resource tracker leave once the server is gone.
        with contextlib.suppress(TimeoutError):
            wait_until(lambda: not session_members(self.pid), 5, "the server's helpers")
        for pid in session_members(self.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
