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


PAGE_FOLDERS = ("logic", "scripts")
"""Where a page's Streamlit-free modules live, one per page and named like it."""


def page_stems() -> set[str]:
    return {p.stem for p in (ROOT / "app_pages").glob("*.py")}


def page_modules() -> dict[str, list[Path]]:
    """Each page's app files: its page, and the modules in PAGE_FOLDERS named after it."""
    app = ROOT / "burgerbot" / "app"
    found: dict[str, list[Path]] = {
        stem: [ROOT / "app_pages" / f"{stem}.py"] for stem in page_stems()
    }
    for folder in PAGE_FOLDERS:
        for path in sorted((app / folder).glob("*.py")):
            if path.name == "__init__.py":
                continue
            owners = [
                stem for stem in found if path.stem == stem or path.stem.startswith(f"{stem}_")
            ]
            assert owners, f"{path.relative_to(ROOT)} is named after no page"
            found[max(owners, key=len)].append(path)
    return found


def test_a_page_is_at_most_four_files_named_after_it():
    # Its page, its logic, its scripts; a fourth only where its logic holds two ideas.
    too_many = {stem: len(paths) for stem, paths in page_modules().items() if len(paths) > 4}
    assert not too_many, f"pages spread over more than four files: {too_many}"
    # Only the page folders hold page modules: the rest of burgerbot/app is shared.
    folders = {p.name for p in (ROOT / "burgerbot" / "app").iterdir() if p.is_dir()}
    assert folders - {"__pycache__"} == set(PAGE_FOLDERS)


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif (
            # importlib.import_module("burgerbot.app.logic.x") and friends.
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("burgerbot.app.")
        ):
            names.add(node.value)
    return names


def test_no_page_imports_another_pages_modules():
    owner = {
        f"burgerbot.app.{path.parent.name}.{path.stem}": stem
        for stem, paths in page_modules().items()
        for path in paths[1:]
    }
    crossings = []
    for stem, paths in page_modules().items():
        for path in paths:
            for name in imported_modules(path):
                other = owner.get(name) or owner.get(name.rsplit(".", 1)[0])
                if other is not None and other != stem:
                    crossings.append(f"{path.relative_to(ROOT)} imports {name} ({other})")
    assert not crossings, crossings


def test_every_page_opens_with_the_one_page_frame():
    for path in sorted((ROOT / "app_pages").glob("*.py")):
        source = path.read_text()
        assert source.count("ui.PageFrame(") == 1, f"{path.name} does not use ui.PageFrame once"
        # ui.sync_query_params may stand again in a fragment, which reruns on its own.
        for step in ("ui.load_settings(", "ui.show_notes("):
            assert step not in source, f"{path.name} repeats the preamble step {step}"


def test_every_page_asks_for_a_prediction_and_ends_with_key_takeaways():
    # The learner's path (issue 11): a prediction before the live reveal, takeaways at the end.
    for path in sorted((ROOT / "app_pages").glob("*.py")):
        source = path.read_text()
        assert "learning.prediction(" in source, f"{path.name} asks for no prediction"
        assert "learning.check(" in source, f"{path.name} never checks its prediction"
        assert path.read_text().count("frame.takeaways(") == 1, f"{path.name}: no key takeaways"


def test_no_page_has_a_bare_string_below_its_docstring():
    # Streamlit's "magic" writes a page's top-level expressions on the page: a docstring-style
    # note under a constant would reach the learner as text.
    found = []
    for path in sorted((ROOT / "app_pages").glob("*.py")):
        for node in ast.parse(path.read_text()).body[1:]:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                found.append(f"{path.name}:{node.lineno}")
    assert not found, f"bare strings Streamlit would show: {found}"
