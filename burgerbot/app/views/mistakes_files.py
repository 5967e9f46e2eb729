"""Run a script of the mistakes page as a learner does: saved to a file, ``python script.py``.

The AsyncVectorEnv scripts (mistakes 5 and 6) behave differently when run from a file than
when executed inside a running process: ``spawn`` workers import the main script again, and
worker processes are stopped when the script exits. So the page runs them from a file, in a
subprocess of its own session, and reads what they printed, the error they stopped with, and
which of their worker processes outlived them.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import burgerbot
from burgerbot.app.processes import session_members
from burgerbot.app.script_runner import CapturedError, ScriptRun, short_file

__all__ = ["errors_in_stderr", "run_as_file", "surviving_workers"]

_PROJECT = Path(burgerbot.__file__).resolve().parents[1]
_TRACEBACK = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>.+)$')


def _one_error(block: str, script: str) -> CapturedError | None:
    """The error of one traceback block (the text after "Traceback (most recent call last):")."""
    lines = block.splitlines()
    frames = [(i, m) for i, line in enumerate(lines) if (m := _FRAME.match(line))]
    after = lines[frames[-1][0] + 1 :] if frames else lines
    # Source lines and ^^^ markers are indented; the exception line starts at column 0.
    start = next((i for i, line in enumerate(after) if line and not line[0].isspace()), None)
    if start is None:
        return None
    first, *rest = after[start:]
    kind, _, message = first.partition(":")
    message = " ".join([message.strip(), *(line.strip() for line in rest)]).strip()
    path, where, location = [], "", ""
    for _, frame in frames:
        file, line, name = frame["file"], frame["line"], frame["name"]
        in_script = Path(file).name == script
        path.append(f"script line {line}" if in_script else f"{short_file(file)}:{line} in {name}")
        where = (
            f"line {line} of the script"
            if in_script
            else f"{short_file(file)}, line {line}, in {name}"
        )
        location = f"{script if in_script else short_file(file)}:{line} in {name}"
    return CapturedError(kind.strip(), message, where, tuple(path), location)


def errors_in_stderr(stderr: str, script: str = "script.py") -> list[CapturedError]:
    """Every traceback printed on ``stderr``, in order (a worker's come before the parent's).

    Example:
        >>> text = (
        ...     "Traceback (most recent call last):\\n"
        ...     '  File "/tmp/x/script.py", line 3, in <module>\\n'
        ...     "    1 / 0\\n"
        ...     "ZeroDivisionError: division by zero\\n"
        ... )
        >>> (error,) = errors_in_stderr(text)
        >>> error.headline, error.where
        ('ZeroDivisionError: division by zero', 'line 3 of the script')
    """
    blocks = stderr.split(_TRACEBACK)[1:]
    return [error for block in blocks if (error := _one_error(block, script)) is not None]


def _is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def surviving_workers(session: int, grace: float = 1.0) -> list[int] | None:
    """Worker processes still running in ``session`` after ``grace`` seconds (None: no /proc)."""
    if not os.path.isdir("/proc"):
        return None
    deadline = time.monotonic() + grace
    while True:
        workers = [pid for pid in session_members(session) if _is_worker(pid)]
        if not workers or time.monotonic() > deadline:
            return workers
        time.sleep(0.05)


def _kill_session(session: int, wait: float = 5.0) -> None:
    """Stop every process left in ``session`` (all started by the script) and wait for it."""
    if not os.path.isdir("/proc"):
        return
    deadline = time.monotonic() + wait
    while (members := session_members(session)) and time.monotonic() < deadline:
        for pid in members:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def run_as_file(code: str, name: str = "script.py", timeout: float = 120.0) -> ScriptRun:
    """Save ``code`` as ``name`` in a fresh folder and run ``python name`` there.

    ``values`` holds ``returncode``, ``left_after_exit`` (worker processes of the script still
    running once it exited; None where that cannot be read) and ``worker_errors`` (errors that
    worker processes printed before the script's own). Anything left behind is then stopped.
    """
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(_PROJECT), os.environ.get("PYTHONPATH")])),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    with tempfile.TemporaryDirectory(prefix="burgerbot-script-") as folder:
        script = Path(folder) / name
        script.write_text(code)
        # Output goes to files, not pipes: a worker that outlives the script inherits them and
        # would hold a pipe open, so waiting for the pipe's end would wait for the worker.
        out_path, err_path = Path(folder) / "stdout.txt", Path(folder) / "stderr.txt"
        with out_path.open("w") as out, err_path.open("w") as err:
            process = subprocess.Popen(
                [sys.executable, name],
                cwd=folder,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,  # its workers join its session: found after it exits
            )
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_session(process.pid)
                process.wait()
                raise
        left = surviving_workers(process.pid)
        _kill_session(process.pid)
        stdout, stderr = out_path.read_text(), err_path.read_text()
    errors = errors_in_stderr(stderr, name)
    error = errors[-1] if errors and process.returncode != 0 else None
    return ScriptRun(
        code=code,
        output=stdout,
        error=error,
        values={
            "returncode": process.returncode,
            "left_after_exit": left,
            "worker_errors": errors[:-1] if error is not None else errors,
        },
    )
