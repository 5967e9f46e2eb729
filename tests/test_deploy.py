"""A hosted demo that works first time: a clean copy of the app, in a fresh virtualenv with
only `requirements.txt` installed, starts, serves every page, runs every page's main
interaction, writes nothing into its folder and leaves no process behind when stopped.

Slow (it pip-installs the requirements; pip's download cache is reused).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))

from app_driver import (
    ARTIFACTS,
    ROOT,
    AppView,
    Report,
    StreamlitServer,
    existing_pages,
    http_get,
    launch_chromium,
    new_context,
    repo_files,
    require_browser,
)
from interactions import MAIN_INTERACTIONS

pytestmark = [pytest.mark.slow, pytest.mark.browser]

PIP_TIMEOUT_S = 1800
DEV_ONLY = ("pytest", "playwright", "ruff")


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


def fresh_venv(where: Path, requirements: Path) -> Path:
    """A new virtualenv with exactly the app's requirements; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.pop("PIP_NO_CACHE_DIR", None)  # reuse pip's download cache
    log = ARTIFACTS / "deploy-pip.log"
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


def test_fresh_venv_serves_every_page(tmp_path):
    require_browser()
    from playwright.sync_api import sync_playwright

    report = Report(ARTIFACTS / "deploy-report.json")
    app = clean_copy(tmp_path / "app")
    started = time.monotonic()
    python = fresh_venv(tmp_path / "venv", app / "requirements.txt")
    report.record("deploy", "pip_install_s", round(time.monotonic() - started, 1))
    installed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True
    ).stdout.lower()
    assert not [name for name in DEV_ONLY if f"\n{name}==" in f"\n{installed}"], installed

    before = repo_files(app)
    env = {"PYTHONPATH": "", "VIRTUAL_ENV": str(tmp_path / "venv")}
    started = time.monotonic()
    server = StreamlitServer.start(
        log_path=ARTIFACTS / "deploy-server.log",
        python=python,
        cwd=app,
        extra_env=env,
        test_options=False,
    )
    leftovers: list[str] = []
    try:
        status, body = http_get(f"{server.base_url}/_stcore/health")
        assert (status, body.strip()) == (200, "ok")
        pages = existing_pages(app)
        assert pages, "no page to serve"
        for page in pages:
            status, _ = http_get(server.url(page.url_path))
            assert status == 200, f"GET /{page.url_path} answered {status}"
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            context = new_context(browser)
            view = AppView(context.new_page(), server)
            for number, page in enumerate(pages):
                seconds = view.goto(page.url_path)
                if number == 0:
                    report.record("deploy", "cold_start_s", round(time.monotonic() - started, 1))
                view.assert_no_exception()
                assert view.title(), f"{page.file} shows no title"
                report.record("deploy_render_s", page.stem, round(seconds, 2))
                interaction = MAIN_INTERACTIONS.get(page.file)
                if interaction is not None:
                    interaction(view)
                    view.assert_no_exception()
                view.screenshot(f"deploy-{page.stem}")
            assert not view.console_errors, view.console_errors
            context.close()
            browser.close()
    finally:
        leftovers = server.stop()
    log = server.log_path.read_text(errors="replace")
    assert "Traceback" not in log, log[-5000:]
    assert not leftovers, f"processes outlived the stopped server: {leftovers}"
    added = repo_files(app) - before
    assert not added, f"the app wrote into its folder: {sorted(added)}"
