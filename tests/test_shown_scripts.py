"""Every Python block each page shows at its default settings, run as a learner would run it.

A block is a whole script (run from a file in a subprocess, from a folder outside the project,
and it must succeed or fail with the error its first line names), or it is labelled on its
first line as a fragment of a script shown beside it. Each whole script's notebook download
passes nbformat's validator and its cells run. Blocks a page shows only after a click are run
by that page's own tests, with the same helpers.
"""

from __future__ import annotations

import hashlib
import os

import pytest
from page_apptest import every_tab, open_app_page, skip_predictions
from shown_scripts import assert_script_behaves, run_notebook

from burgerbot.app.notebook import script_notebook
from burgerbot.app.scripts import FRAGMENT_MARK, fails_header, fragment_header, is_fragment
from streamlit_app import PAGES

pytestmark = pytest.mark.slow


def _python_blocks(page_file: str) -> list[str]:
    """Every Python block the page shows, in every tab and expander a learner can open."""
    # A learner who skips every prediction: the blocks that wait for an answer are drawn too.
    app = skip_predictions(open_app_page(f"app_pages/{page_file}", None, timeout=240))
    blocks: dict[str, None] = {}
    for view in every_tab(app):
        blocks.update(dict.fromkeys(b.value for b in view.code if b.language == "python"))
    return list(blocks)


# Pages whose scripts use Stable-Baselines3: marked sb3 too, so the SB3 tier runs them with
# SB3 installed; without it their SB3 scripts are skipped and the others still run.
SB3_PAGES = {"sb3.py", "lesson_vs_today.py"}
PARAMS = [
    pytest.param(file, marks=pytest.mark.sb3) if file in SB3_PAGES else file
    for _, file, _, _ in PAGES
]


def _has_sb3() -> bool:
    try:
        import stable_baselines3  # noqa: F401
    except ImportError:
        return os.environ.get("BURGERBOT_REQUIRE_SB3") == "1"
    return True


@pytest.mark.parametrize("page_file", PARAMS)
def test_every_python_block_is_a_whole_script_that_runs_from_a_file_or_a_labelled_fragment(
    page_file, tmp_path
):
    blocks = _python_blocks(page_file)
    # Sync vs Async's one script is the answer to the lesson's exercise 2 (its own run), shown
    # when asked for and run from a file by tests/test_sync_vs_async_page.py.
    shown_on_request = {"glossary.py", "sync_vs_async.py"}
    assert blocks or page_file in shown_on_request, f"{page_file} shows no Python by default"
    needs_sb3 = []
    for index, code in enumerate(blocks):
        if is_fragment(code):
            assert code.splitlines()[0].startswith(FRAGMENT_MARK)
            continue
        if "stable_baselines3" in code and not _has_sb3():
            needs_sb3.append(index)
            continue
        digest = hashlib.sha1(code.encode()).hexdigest()[:8]
        assert_script_behaves(code, tmp_path / f"{index}_{digest}")
    if needs_sb3:
        pytest.skip(f"the other scripts ran; {len(needs_sb3)} need Stable-Baselines3")


def test_a_script_that_should_fail_must_fail_with_the_error_it_names(tmp_path):
    assert_script_behaves(fails_header("ZeroDivisionError") + "1 / 0\n", tmp_path / "a")
    with pytest.raises(AssertionError, match="should fail"):
        assert_script_behaves(fails_header("ZeroDivisionError") + "print(1)\n", tmp_path / "b")
    with pytest.raises(AssertionError, match="should stop with"):
        assert_script_behaves(fails_header("KeyError") + "1 / 0\n", tmp_path / "c")
    with pytest.raises(AssertionError, match="failed"):
        assert_script_behaves("1 / 0\n", tmp_path / "d")
    with pytest.raises(AssertionError, match="fragment"):
        assert_script_behaves(fragment_header("x") + "y\n", tmp_path / "e")


def test_a_script_run_from_a_file_needs_its_main_guard_for_spawn_workers(tmp_path):
    """Why the helper runs files, not exec: without the guard, spawn workers re-run the script."""
    body = (
        "import gymnasium as gym\n"
        "from burgerbot.factories import burgerbot_factory\n"
        "{indent}fns = [burgerbot_factory(), burgerbot_factory()]\n"
        "{indent}envs = gym.vector.AsyncVectorEnv(fns, context='spawn')\n"
        "{indent}envs.reset(seed=0)\n"
        "{indent}envs.close()\n"
        "{indent}print('ok')\n"
    )
    guarded = body.replace("{indent}fns = ", "if __name__ == '__main__':\n    fns = ").replace(
        "{indent}", "    "
    )
    assert "ok" in assert_script_behaves(guarded, tmp_path / "guarded")
    with pytest.raises(AssertionError):
        assert_script_behaves(body.replace("{indent}", ""), tmp_path / "unguarded")


def test_the_notebook_download_validates_and_its_cells_run(tmp_path):
    code = (
        "import gymnasium as gym\n"
        "import burgerbot  # registers BurgerBot-v0\n\n"
        "if __name__ == '__main__':\n"
        "    envs = gym.make_vec('BurgerBot-v0', num_envs=3)\n"
        "    obs, info = envs.reset(seed=0)\n"
        "    print('shape', obs.shape)\n"
        "    envs.close()\n"
    )
    result = run_notebook(script_notebook(code, "Three robots"), tmp_path)
    assert result.returncode == 0, result.stderr
    assert "shape (3, 4)" in result.stdout
    broken = run_notebook(script_notebook("raise SystemExit(3)", "Stops"), tmp_path / "x")
    assert broken.returncode == 3
