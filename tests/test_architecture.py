"""The folder tree is the architecture: a library that never imports the app, one router."""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import burgerbot

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = sorted(
    f"burgerbot.{module.name}"
    for module in pkgutil.iter_modules(burgerbot.__path__)
    if not module.ispkg
)


def routed_files() -> list[str]:
    tree = ast.parse((ROOT / "streamlit_app.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") == "PAGES" for t in node.targets
        ):
            return [entry[1] for entry in ast.literal_eval(node.value)]
    raise LookupError("streamlit_app.py defines no PAGES list")


def test_the_library_is_every_top_level_module_and_the_app_is_one_subpackage():
    packages = [m.name for m in pkgutil.iter_modules(burgerbot.__path__) if m.ispkg]
    assert packages == ["app"]
    assert {"burgerbot.world", "burgerbot.env", "burgerbot.vector", "burgerbot.factories"} <= set(
        LIBRARY
    )


@pytest.mark.parametrize("module", ["burgerbot", *LIBRARY])
def test_a_library_module_imports_neither_streamlit_nor_the_app(module):
    # A fresh interpreter: in this one, other tests have imported streamlit already.
    code = (
        "import importlib, json, sys\n"
        f"importlib.import_module({module!r})\n"
        "print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('streamlit', 'altair') or m.startswith('burgerbot.app'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []


def test_neither_the_library_nor_the_app_imports_the_developer_tools_or_tests():
    # tools/ and tests/ are development folders at the project's root: a deployed app and an
    # installed library do without them.
    dev_only = {"tools", "tests", "app_driver", "interactions", "conftest"}
    app_files = [ROOT / "streamlit_app.py", *(ROOT / "app_pages").glob("*.py")]
    for path in sorted([*(ROOT / "burgerbot").rglob("*.py"), *app_files]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            found = [name for name in names if name.split(".")[0] in dev_only]
            assert not found, f"{path.relative_to(ROOT)} imports {found}"


def test_the_router_lists_every_page_file_once():
    files = routed_files()
    assert len(files) == len(set(files)), "a page is routed twice"
    assert set(files) == {p.name for p in (ROOT / "app_pages").glob("*.py")}


def test_there_is_no_pages_folder_beside_the_router():
    # Streamlit would run a folder named pages/ in its old automatic multipage mode.
    assert not (ROOT / "pages").exists()


def test_every_page_has_its_view_chart_and_script_under_its_own_name():
    # One name per page: whatever serves only one page carries that page's stem.
    app = ROOT / "burgerbot" / "app"
    stems = {p.stem for p in (ROOT / "app_pages").glob("*.py")}
    for kind in ("views", "charts", "scripts", "panels"):
        for path in (app / kind).glob("*.py"):
            if path.name != "__init__.py":
                assert any(path.stem.startswith(stem) for stem in stems), path


def test_every_page_opens_with_the_one_page_frame():
    for path in sorted((ROOT / "app_pages").glob("*.py")):
        source = path.read_text()
        assert source.count("ui.PageFrame(") == 1, f"{path.name} does not use ui.PageFrame once"
        for step in ("ui.load_settings(", "ui.sync_query_params(", "ui.show_notes("):
            assert step not in source, f"{path.name} repeats the preamble step {step}"


def test_every_page_asks_for_a_prediction_and_ends_with_key_takeaways():
    # The learner's path (issue 11): a prediction before the live reveal, takeaways at the end.
    app = ROOT / "burgerbot" / "app"
    for path in sorted((ROOT / "app_pages").glob("*.py")):
        own = [path, *(app / "panels").glob(f"{path.stem}*.py")]
        source = "\n".join(p.read_text() for p in own)
        assert "learning.prediction(" in source, f"{path.name} asks for no prediction"
        assert "learning.check(" in source, f"{path.name} never checks its prediction"
        assert path.read_text().count("frame.takeaways(") == 1, f"{path.name}: no key takeaways"
