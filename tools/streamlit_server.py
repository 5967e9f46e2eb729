"""A `streamlit run` server for the developer tools and tests, and the processes around it.

One launcher for all: the browser tests (`tests/browser/app_driver.py`), the fresh-venv
deploy test, the classroom and hostile-load runs, and the latency benchmark
(`tools/latency`) each start the app (or a trivial app) with `StreamlitServer.start`, watch
its processes and memory through /proc, and stop it with everything it started.
Neither the library nor the app imports this.
"""

from __future__ import annotations

import os
import re
import signal
import socket
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

from burgerbot.app.processes import stat_fields

ROOT = Path(__file__).resolve().parents[1]
"""The project's root: where `streamlit_app.py` and `.streamlit/config.toml` are."""

# A generous deadline: the machine may be shared and slow. It bounds a hang; it is not a
# performance threshold.
SERVER_START_TIMEOUT_S = 120.0

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


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


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


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM if whoever started it dies without cleaning up."""
    with suppress(Exception):  # Linux only; elsewhere the finally blocks do it
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGTERM)


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
        script: str = "streamlit_app.py",
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
        command = [str(python), "-m", "streamlit", "run", script]
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
            preexec_fn=_die_with_parent,  # safe: no other thread runs in the child yet
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

    def cpu_seconds(self) -> float:
        """CPU time the server process has used so far (its worker processes not counted)."""
        return cpu_seconds(self.process.pid)

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
