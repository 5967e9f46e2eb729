"""The README's promises: its library example runs, and its set-up commands are the ones CI uses."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def code_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_library_example_runs_and_prints_what_it_says():
    (example,) = code_blocks("python")
    result = subprocess.run(
        [sys.executable, "-c", example], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "(4, 4) int64"
    assert re.fullmatch(r"goals in 2,000 env-steps: \d+", lines[1])


def test_exactly_two_setup_commands_and_ci_runs_the_test_one():
    setup = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = [block.strip() for block in re.findall(r"```bash\n(.*?)```", setup, flags=re.S)]
    assert len(commands) == 2
    assert "streamlit run streamlit_app.py" in commands[0]
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


def test_readme_lists_every_cap_with_its_real_default():
    from burgerbot.app.caps import caps_table

    assert caps_table() in README


def test_readme_names_every_library_module_in_its_layout_table():
    import pkgutil

    import burgerbot

    layout = README.split("## How the code is laid out", 1)[1].split("\n## ", 1)[0]
    library_row = next(line for line in layout.splitlines() if line.startswith("| `burgerbot/` |"))
    named = set(re.findall(r"`(\w+)`", library_row))
    modules = {m.name for m in pkgutil.iter_modules(burgerbot.__path__) if not m.ispkg}
    assert named == modules


def test_ci_runs_every_tier_the_readme_lists():
    section = README.split("## More tests", 1)[1].split("\n## ", 1)[0]
    table = section.split("| command |", 1)[1].split("\n\n", 1)[0]
    commands = re.findall(r"^\| `(.+?)`", table, flags=re.M)
    ci = (ROOT / ".ci" / "run").read_text()
    assert len(commands) >= 5
    for command in commands:
        # The markers it selects (the oldest tier runs from its own venv's python).
        selection = command.split("pytest", 1)[1].strip()
        assert selection.startswith("-m ") and selection in ci, command
