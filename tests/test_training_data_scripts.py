"""The scripts "From batches to training data" shows, run from a file as a learner would, and
compared with what the page computes through the library."""

from __future__ import annotations

import ast
import re

import numpy as np
import pytest
from shown_scripts import assert_script_behaves, run_notebook

from burgerbot.app.logic.training_data import TrainingSettings, seeding_demo, training_run
from burgerbot.app.notebook import script_notebook
from burgerbot.app.script_runner import printed
from burgerbot.app.scripts import is_fragment
from burgerbot.app.scripts.training_data import (
    bootstrap_fragment,
    buffer_script,
    mask_exercise_answer,
    seeding_script,
    targets_script,
)
from burgerbot.targets import collect_buffer, transition_mask

pytestmark = pytest.mark.slow


def printed_array(out: str, header: str) -> np.ndarray:
    """The integer array printed on the lines after ``header``."""
    lines = out.split(header, 1)[1].splitlines()[1:]
    rows = []
    for line in lines:
        numbers = re.findall(r"-?\d+", line)
        if not line.strip().startswith(("[", " [")) or not numbers:
            break
        rows.append([int(n) for n in numbers])
        if line.rstrip().endswith("]]"):
            break
    return np.array(rows)


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_the_buffer_script_prints_the_pages_mask(mode, tmp_path):
    settings = TrainingSettings(mode, 3, 12, 4, 5)
    out = assert_script_behaves(buffer_script(settings), tmp_path / "buffer")
    run = training_run(settings)
    mask = printed_array(out, "mask (1 = a transition to keep")
    assert np.array_equal(mask.astype(bool), run.mask)
    resets = int((~run.mask).sum())
    assert f"not transitions: {resets} of {run.mask.size} rows" in out


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_the_targets_script_prints_the_pages_targets(mode, tmp_path):
    settings = TrainingSettings(mode, 3, 10, 5, 0)
    out = assert_script_behaves(targets_script(settings), tmp_path / "targets")
    run = training_run(settings)
    differ = ast.literal_eval(
        out.split("the two differ at (step() call, env):", 1)[1].splitlines()[0]
    )
    assert differ == [(int(t) + 1, int(i)) for t, i in np.argwhere(~run.mask)]
    values = printed(out)
    assert float(values["batch mean without the mask"]) == round(run.targets_without_mask.mean(), 4)
    assert float(values["batch mean with the mask"]) == round(np.nanmean(run.targets_with_mask), 4)


def test_the_seeding_script_agrees_with_the_seeding_tab(tmp_path):
    out = assert_script_behaves(seeding_script(3), tmp_path / "seeding")
    demo = seeding_demo(3)
    assert out.count("starts like reset(seed=") >= 3
    first = [line for line in out.splitlines() if line.startswith("reset(seed=3)")]
    assert all(line.endswith("True") for line in first) and len(first) == 3
    lengths = demo.same.groupby("call", sort=False)["episode length"].apply(list).tolist()
    values = printed(out)
    assert ast.literal_eval(values["first episode lengths, seed=[3, 3, 3]"]) == lengths[0]
    assert ast.literal_eval(values["first episode lengths, seed=3"]) == lengths[1]
    for row in demo.factory.itertuples(index=False):
        reset_seed = 3 if "seed=3" in row[0] else None
        line = (
            f"factory seed {row[2]}, then envs.reset(seed={reset_seed}): sub-env {row[1]} "
            f"starts like reset(seed={3 + row[1]}): {row[4]}; "
            f"like the factory seed's next start: {row[5]}"
        )
        assert line in out
    assert values["BurgerBot's generator untouched by its steps"] == str(
        demo.burgerbot.generator_untouched
    )
    # with action_space.seed the actions repeat; without it they do not (the demo's table)
    pairs = re.findall(r"seed used: (True|False); same actions both runs: (True|False)", out)
    repeated = demo.action["same both times"].tolist()
    assert pairs == [
        (str(used), str(same)) for used, same in zip([True, False], repeated, strict=True)
    ]


def test_the_exercise_answer_runs_and_drops_the_libraries_reset_rows(tmp_path):
    out = assert_script_behaves(mask_exercise_answer(), tmp_path / "exercise")
    buffer = collect_buffer(4, 20, "NEXT_STEP", seed=0, max_steps=6)
    mask = transition_mask(buffer.terminated, buffer.truncated, "NEXT_STEP")
    assert (
        f"buffer rows: 80, reset rows dropped: {int((~mask).sum())}, "
        f"transitions kept: {int(mask.sum())}"
    ) in out
    assert "all checks passed" in out


def test_the_bootstrap_block_is_a_labelled_fragment_of_the_targets_script():
    for mode in ("NEXT_STEP", "SAME_STEP"):
        fragment = bootstrap_fragment(mode)
        assert is_fragment(fragment)
        body = fragment.split("\n", 1)[1]
        whole = targets_script(TrainingSettings(mode, 3, 10, 5, 0))
        assert "targets = rewards + GAMMA * (1.0 - terminated) * value(next_obs)" in whole
        assert "targets = rewards + GAMMA * (1.0 - terminated) * value(next_obs)" in body
    assert 'infos["final_obs"][i]' in bootstrap_fragment("SAME_STEP")


def test_a_shown_script_runs_as_a_notebook(tmp_path):
    code = buffer_script(TrainingSettings("NEXT_STEP", 2, 6, 3, 1))
    result = run_notebook(script_notebook(code, "Buffer and mask"), tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
