"""Speed breakdown's shown script: a whole script that runs from a file and measures what
the page shows."""

from __future__ import annotations

import re

from shown_scripts import assert_script_behaves, run_notebook

from burgerbot.app.notebook import script_notebook
from burgerbot.app.scripts.speed_breakdown import speed_script

ROW = re.compile(
    r"^  (plain loop|sync|native|batch)\s+N=(\d+)\s+([\d,.]+) (transitions/s|µs)", re.M
)


def test_the_script_runs_from_a_file_and_measures_every_setup_both_ways(tmp_path):
    out = assert_script_behaves(speed_script((1, 3), seconds=0.01), tmp_path / "speed_breakdown")
    sections = re.split(r"^(?=\S)", out, flags=re.M)
    assert [s.splitlines()[0] for s in sections if s] == [
        "with random actions",
        "with the policy picking actions",
        "one forward pass of the policy",
    ]
    rows = [(name, int(n)) for name, n, _, _ in ROW.findall(out)]
    vector = [("sync", 1), ("native", 1), ("sync", 3), ("native", 3)]
    assert rows == [
        ("plain loop", 1),
        *vector,
        ("plain loop", 1),
        *vector,
        ("batch", 1),
        ("batch", 3),
    ]
    assert all(float(value.replace(",", "")) > 0 for _, _, value, _ in ROW.findall(out))


def test_the_script_is_the_pages_measurement_written_out():
    code = speed_script((1, 4, 16, 64, 100))
    assert "SIZES = (1, 4, 16, 64, 100)" in code
    # the same network as burgerbot.speed.MLPPolicy, and the same two ways of using it
    assert "SHAPES = [(4, 64), (64, 64), (64, 4)]" in code
    assert "policy(obs[None])" in code and "policy(obs) if with_policy" in code
    assert "BurgerBotVectorEnv (the burgerbot library's own class)" in code
    # like the page, a vector call's auto-reset rows are not counted as transitions
    assert "transitions = envs.num_envs - int(np.count_nonzero(ended))" in code


def test_the_scripts_notebook_validates_and_runs(tmp_path):
    notebook = script_notebook(speed_script((2,), seconds=0.005), "Speed breakdown measurement")
    result = run_notebook(notebook, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "one forward pass of the policy" in result.stdout
