"""Home's shown script: a whole script that runs from a file and races what the page races."""

from __future__ import annotations

import re

from shown_scripts import assert_script_behaves

from burgerbot.app.scripts.home import speed_script

ROW = re.compile(r"^(.+?)\s+([\d,]+) transitions/s, (\d+) rows? per call$", re.M)


def test_the_script_runs_from_a_file_and_races_the_three_setups(tmp_path):
    out = assert_script_behaves(speed_script(8, seconds=0.02), tmp_path / "home")
    rows = ROW.findall(out)
    assert [(name, int(calls)) for name, _, calls in rows] == [
        ("plain loop (1 env)", 1),
        ("SyncVectorEnv (8 envs)", 8),
        ("BurgerBotVectorEnv (8 envs)", 8),
    ]
    assert all(int(rate.replace(",", "")) > 0 for _, rate, _ in rows)


def test_the_script_counts_transitions_as_the_page_does():
    code = speed_script(64)
    assert "NUM_ENVS = 64" in code
    # like the page, a vector call's auto-reset rows are not counted as transitions
    assert "transitions += envs.num_envs - int(np.count_nonzero(ended))" in code
