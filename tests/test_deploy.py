"""A hosted demo that works first time: a clean copy of the app, in a fresh virtualenv with
only `requirements.txt` installed, starts, serves every page, runs every page's main
interaction, writes nothing into its folder and leaves no process behind when stopped.

It runs once per Python from 3.11 to 3.13 found on the machine (Community Cloud's default is
3.12): the interpreter running the tests, then `python3.12` and `python3.13` from PATH or
from pyenv's versions folder.

Slow (it pip-installs the requirements; pip's download cache is reused).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))

from app_driver import (
    ARTIFACTS,
    ROOT,
    AppView,
    Report,
    RssSampler,
    StreamlitServer,
    http_get,
    megabytes,
    new_context,
    planned_pages,
    repo_files,
    require_browser,
)
from interactions import MAIN_INTERACTIONS

from tools.browser_runs import launch_chromium

pytestmark = [pytest.mark.slow, pytest.mark.browser]

PIP_TIMEOUT_S = 1800
DEV_ONLY = ("pytest", "playwright", "ruff")
SUPPORTED = [(3, 11), (3, 12), (3, 13)]
# Community Cloud gives an app about 1 GB; the first visitor of a fresh server, running every
# page's experiment, must leave room for a few more.
HOSTED_MEMORY_LIMIT = 640 * 2**20
SESSION_GROWTH_LIMIT = 150 * 2**20
PYENV_VERSIONS = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"


def version_of(python: str | Path) -> tuple[int, int] | None:
    """The (major, minor) version an interpreter reports, or None if it does not run."""
    try:
        shown = subprocess.run(
            [str(python), "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    parts = shown.stdout.split()
    if shown.returncode != 0 or len(parts) != 2:
        return None
    return int(parts[0]), int(parts[1])


def find_python(version: tuple[int, int]) -> Path | None:
    """An interpreter of exactly this version: the running one, PATH, or pyenv's folder."""
    if sys.version_info[:2] == version:
        return Path(sys.executable)
    name = "python{}.{}".format(*version)
    candidates = [shutil.which(name)]
    pattern = re.compile(r"{}\.{}\.\d+$".format(*version))
    if PYENV_VERSIONS.is_dir():
        folders = sorted(d for d in PYENV_VERSIONS.iterdir() if pattern.match(d.name))
        candidates += [d / "bin" / name for d in reversed(folders)]
    for candidate in filter(None, candidates):
        if version_of(candidate) == version:
            return Path(candidate)
    return None


def clean_copy(destination: Path) -> Path:
    """The files a host would check out: tracked plus new, not git-ignored, files."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in filter(None, listed):
        source = ROOT / raw.decode()
        if source.is_file():
            target = destination / raw.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def fresh_venv(where: Path, requirements: Path, base: Path) -> Path:
    """A new virtualenv of ``base`` with exactly the app's requirements; returns its python."""
    subprocess.run([str(base), "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.pop("PIP_NO_CACHE_DIR", None)  # reuse pip's download cache
    log = ARTIFACTS / f"deploy-pip-{where.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        result = subprocess.run(
            [str(python), "-m", "pip", "install", "-r", str(requirements)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=PIP_TIMEOUT_S,
        )
    assert result.returncode == 0, f"pip install failed, see {log}:\n{log.read_text()[-3000:]}"
    return python


def run_in_thread(work: Callable[[], object]) -> None:
    """Run ``work`` in a new thread and re-raise whatever it raised."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            work()
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


IMPORT_COST_SCRIPT = """
import importlib, pkgutil, re
def rss():
    return int(re.search(r"VmRSS:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1))
import streamlit
before = rss()
import altair, gymnasium, numpy, pandas, burgerbot
for module in pkgutil.walk_packages(burgerbot.__path__, "burgerbot."):
    importlib.import_module(module.name)
print((rss() - before) * 1024)
"""


def import_cost(python: Path, app: Path) -> int:
    """Bytes a process grows by importing the app's libraries once (a server pays it once,
    on its first visit, whoever the visitor is): measured in a process of its own."""
    shown = subprocess.run(
        [str(python), "-c", IMPORT_COST_SCRIPT],
        cwd=app,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": ""},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return int(shown.stdout.split()[-1])


def browse_every_page(
    server: StreamlitServer, pages, report: Report, started: float, label: str, imports: int
) -> None:
    """A first visitor: every page and its main interaction, with memory sampled."""
    from playwright.sync_api import sync_playwright

    section = f"deploy-{label}"
    rss_at_start = server.rss(own_only=True)
    with sync_playwright() as playwright, RssSampler(server, own_only=True) as sampler:
        browser = launch_chromium(playwright)
        context = new_context(browser)
        view = AppView(context.new_page(), server)
        for number, page in enumerate(pages):
            seconds = view.goto(page.url_path)
            if number == 0:
                report.record(section, "cold_start_s", round(time.monotonic() - started, 1))
            view.assert_no_exception()
            assert view.title(), f"{page.file} shows no title"
            report.record(f"{section}-render_s", page.stem, round(seconds, 2))
            interaction = MAIN_INTERACTIONS.get(page.file)
            if interaction is not None:
                interaction(view)
                view.assert_no_exception()
            view.screenshot(f"{section}-{page.stem}")
        assert not view.console_errors, view.console_errors
        context.close()
        browser.close()
    # The first visitor of a fresh server with only requirements.txt installed (no SB3).
    report.record(section, "server_rss_at_start_mb", megabytes(rss_at_start))
    report.record(section, "one_time_imports_mb", megabytes(imports))
    # What the first session itself cost, beyond the libraries any first visit imports.
    session = sampler.peak - rss_at_start - imports
    report.record(section, "first_session_growth_beyond_imports_mb", megabytes(session))
    assert session < SESSION_GROWTH_LIMIT, megabytes(session)
    report.record(section, "server_rss_peak_mb", megabytes(sampler.peak))
    report.record(section, "with_workers_pss_peak_mb", megabytes(sampler.peak_total_pss))
    # The whole app, server and Async workers, stays well inside a Community Cloud container.
    assert sampler.peak_total_pss < HOSTED_MEMORY_LIMIT, megabytes(sampler.peak_total_pss)


@pytest.fixture(scope="module")
def deploy_report() -> Report:
    """One report for every interpreter's run (``test-artifacts/deploy-report.json``)."""
    return Report(ARTIFACTS / "deploy-report.json")


@pytest.mark.parametrize("version", SUPPORTED, ids=lambda v: "python{}.{}".format(*v))
def test_fresh_venv_serves_every_page(tmp_path, version, deploy_report):
    require_browser()
    base = find_python(version)
    if base is None:
        pytest.skip("no Python {}.{} on this machine".format(*version))
    label = "py{}{}".format(*version)
    report = deploy_report
    app = clean_copy(tmp_path / "app")
    started = time.monotonic()
    python = fresh_venv(tmp_path / f"venv-{label}", app / "requirements.txt", base)
    report.record(f"deploy-{label}", "pip_install_s", round(time.monotonic() - started, 1))
    assert version_of(python) == version
    installed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True
    ).stdout.lower()
    assert not [name for name in DEV_ONLY if f"\n{name}==" in f"\n{installed}"], installed

    imports = import_cost(python, app)
    before = repo_files(app)
    env = {"PYTHONPATH": "", "VIRTUAL_ENV": str(python.parent.parent)}
    started = time.monotonic()
    server = StreamlitServer.start(
        log_path=ARTIFACTS / f"deploy-server-{label}.log",
        python=python,
        cwd=app,
        extra_env=env,
        test_options=False,
    )
    leftovers: list[str] = []
    try:
        status, body = http_get(f"{server.base_url}/_stcore/health")
        assert (status, body.strip()) == (200, "ok")
        pages = planned_pages(app)
        assert pages, "no page to serve"
        for page in pages:
            status, _ = http_get(server.url(page.url_path))
            assert status == 200, f"GET /{page.url_path} answered {status}"
        # In its own thread: when the browser tests run in the same pytest session, their
        # Playwright (sync API) keeps an event loop on this thread, and a second one can't.
        run_in_thread(lambda: browse_every_page(server, pages, report, started, label, imports))
    finally:
        leftovers = server.stop()
    log = server.log_path.read_text(errors="replace")
    assert "Traceback" not in log, log[-5000:]
    assert not leftovers, f"processes outlived the stopped server: {leftovers}"
    added = repo_files(app) - before
    assert not added, f"the app wrote into its folder: {sorted(added)}"
