"""The "DISABLED mode" page's script, run from a file as a learner would run it, and its fix
shown first as a labelled fragment."""

from __future__ import annotations

import ast

import pytest
from shown_scripts import assert_script_behaves

from burgerbot.app.logic.disabled_mode import disabled_demo
from burgerbot.app.scripts import is_fragment
from burgerbot.app.scripts.disabled_mode import (
    DISABLED_FIX,
    disabled_fix_fragment,
    disabled_fix_script,
)


@pytest.mark.parametrize(("num_envs", "seed"), [(4, 0), (3, 7)])
def test_the_disabled_script_resets_with_a_mask_as_the_demo_did(num_envs, seed, tmp_path):
    demo = disabled_demo(num_envs, seed)
    out = assert_script_behaves(disabled_fix_script(num_envs, seed), tmp_path / "disabled")
    lines = out.splitlines()
    assert lines[0] == f"step {demo.end_step}: envs {list(demo.ended)} ended"
    assert lines[1] == f"obs: {demo.obs_at_end.tolist()}"
    assert lines[2] == f"after reset(reset_mask): {demo.obs_after_reset.tolist()}"
    fix = demo.step_after_fix
    assert lines[3] == (
        f"step {demo.end_step + 1} worked: obs {fix['obs'].tolist()}, "
        f"rewards {fix['rewards'].tolist()}"
    )


def test_the_fix_fragment_is_labelled_and_is_part_of_the_whole_script():
    fragment = disabled_fix_fragment()
    assert is_fragment(fragment) and "the DISABLED script below" in fragment.splitlines()[0]
    assert DISABLED_FIX in disabled_fix_script(4, 0)
    ast.parse(DISABLED_FIX)  # the fragment alone is valid Python, just not a whole script
