"""Running a script a page shows the way a learner would: saved to a file, `python file.py`.

The script runs in a subprocess from a folder outside the project, with the project's root on
PYTHONPATH standing in for the installed `burgerbot` library (tests/test_packaging.py checks
that the installed library is the same code). Its first line says what should happen
(`burgerbot.app.scripts`): a whole script exits 0, a script that fails on purpose stops with
the error it names, a fragment is not run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from burgerbot.app.scripts import expected_error, is_fragment

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["assert_script_behaves", "run_notebook", "run_script_file"]


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
        # One torch thread: on 2 shared cores, two threads made one PPO update 10x slower.
        "OMP_NUM_THREADS": "1",
    }


def run_script_file(code: str, folder: Path, name: str = "script.py", timeout: float = 240):
    """Save ``code`` as ``folder/name`` and run ``python name`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(code)
    return subprocess.run(
        [sys.executable, name],
        cwd=folder,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def assert_script_behaves(code: str, folder: Path, name: str = "script.py") -> str:
    """Run a shown script from a file; check it does what its first line says. Returns stdout.

    Scripts needing Stable-Baselines3 are skipped when it is not installed.
    """
    if is_fragment(code):
        raise AssertionError("a fragment is not run; test the whole script it belongs to")
    if "stable_baselines3" in code and os.environ.get("BURGERBOT_REQUIRE_SB3") != "1":
        pytest.importorskip("stable_baselines3")
    result = run_script_file(code, folder, name)
    error = expected_error(code)
    if error is None:
        assert result.returncode == 0, (
            f"{name} failed:\n{result.stderr[-3000:]}\n--- script ---\n{code}"
        )
    else:
        assert result.returncode != 0, f"{name} should fail with {error} but exited 0"
        last = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
        assert last.startswith(error.split(".")[-1]) or f"{error}:" in last, (
            f"{name} should stop with {error}; its last stderr line is {last!r}\n"
            f"{result.stderr[-2000:]}"
        )
    return result.stdout


_NOTEBOOK_RUNNER = textwrap.dedent(
    """
    import sys
    import nbformat
    # Guarded: "spawn" workers import this file again (as a kernel's workers would not).
    if __name__ == "__main__":
        notebook = nbformat.read(sys.argv[1], as_version=4)
        namespace = {"__name__": "__main__"}
        for cell in notebook.cells:
            if cell.cell_type == "code":
                exec(compile(cell.source, "<cell>", "exec"), namespace)
    """
)


def run_notebook(text: str, folder: Path) -> subprocess.CompletedProcess:
    """Validate a notebook with nbformat's own validator, then run its code cells in order in a
    fresh interpreter (as a kernel would: ``__name__ == "__main__"``)."""
    notebook = nbformat.reads(text, as_version=4)
    nbformat.validate(notebook)
    assert json.loads(text)["nbformat"] == 4
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lesson.ipynb").write_text(text)
    (folder / "run_notebook.py").write_text(_NOTEBOOK_RUNNER)
    return subprocess.run(
        [sys.executable, "run_notebook.py", "lesson.ipynb"],
        cwd=folder,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
