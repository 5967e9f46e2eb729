"""Home's shown script: a whole script that runs from a file and counts what the page counts."""

from __future__ import annotations

import re

from shown_scripts import assert_script_behaves

from burgerbot.app.scripts.home import speed_script
from burgerbot.speed import calls_to_collect


def test_the_script_runs_from_a_file_and_counts_the_pages_step_calls(tmp_path):
    out = assert_script_behaves(speed_script(16, repeats=2), tmp_path / "home")
    calls = re.search(r"^step\(\) calls and forward passes: 1000 (\d+)$", out, re.M)
    # the same seeded count as the page's table: no timing noise in it
    assert calls and int(calls.group(1)) == calls_to_collect(16)
    for part in ("stepping", "forward passes"):
        times = re.search(rf"^{part}, CPU ms: ([\d.]+) ([\d.]+)$", out, re.M)
        assert times and all(float(t) > 0 for t in times.groups()), out


def test_the_script_defines_no_factory_of_its_own():
    code = speed_script()
    assert "N = 16" in code and "make_env" not in code
    assert "SyncVectorEnv([BurgerBotEnv for _ in range(N)])" in code
