"""burgerbot.app.logic.sb3 with and without stable-baselines3, its chart and its scripts.

Tests marked ``sb3`` need the optional extra (requirements-sb3.txt). They skip when it is
missing, except when BURGERBOT_REQUIRE_SB3=1 (CI's second run), where they must run. The
"not installed" behaviour is tested everywhere by hiding the package from the import
system.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from shown_scripts import assert_script_behaves

from burgerbot.app.logic import sb3 as sb3_demo
from burgerbot.app.logic.sb3 import (
    GYM_NEXT_STEP,
    GYM_SAME_STEP,
    INSTALL_COMMAND,
    SB3,
    SB3Missing,
    around_first_end,
    invalid_calls,
    load_sb3,
    recorded_agreement,
    side_by_side,
)
from burgerbot.app.script_runner import printed
from burgerbot.app.scripts import sb3 as snippets

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def without_sb3(monkeypatch):
    """Make ``import stable_baselines3`` fail as if the package were not installed."""
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)


def run_script(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- Without SB3 -------------------------------------------------------------------------------


def test_importing_burgerbot_never_imports_sb3_or_torch():
    out = run_script(
        "import sys\n"
        "import burgerbot, burgerbot.training, burgerbot.app.scripts.sb3\n"
        "import burgerbot.app.logic.sb3\n"
        "print(sorted(m for m in ('stable_baselines3', 'torch') if sys.modules.get(m)))\n"
    )
    assert out.strip() == "[]"


def test_without_sb3_it_says_how_to_install_it(without_sb3):
    assert not sb3_demo.sb3_available()
    assert sb3_demo.sb3_version() is None
    with pytest.raises(SB3Missing, match=re.escape(INSTALL_COMMAND)):
        load_sb3()
    with pytest.raises(SB3Missing):
        invalid_calls(4)
    assert issubclass(SB3Missing, ImportError)


def test_without_sb3_the_gymnasium_side_still_runs(without_sb3):
    result = side_by_side(num_envs=3, steps=20, seed=0)
    assert not result.with_sb3 and result.agree == {} and result.first_difference == {}
    assert set(result.frame["library"]) == {GYM_SAME_STEP, GYM_NEXT_STEP}
    assert len(result.frame) == 2 * 3 * 20


def test_gymnasium_modes_put_the_last_observation_in_different_places(without_sb3):
    frame = side_by_side(num_envs=4, steps=40, seed=1).frame
    same = frame[frame["library"] == GYM_SAME_STEP]
    nxt = frame[frame["library"] == GYM_NEXT_STEP]
    start = list(world_start())
    # SAME_STEP: the last observation is in infos, the returned obs is already the start.
    assert (same["last_obs"].notna() == same["done"]).all()
    assert all(obs == start for obs in same.loc[same["done"], "obs"])
    # NEXT_STEP: the ending step returns the last observation; the next one resets.
    assert all(
        obs == last
        for obs, last in zip(
            nxt.loc[nxt["done"], "obs"], nxt.loc[nxt["done"], "last_obs"], strict=True
        )
    )
    resets = nxt[nxt["reset_step"]]
    assert len(resets) > 0
    assert (resets["reward"] == 0.0).all() and not resets["done"].any()
    assert all(obs == start for obs in resets["obs"])


def test_around_first_end_shows_the_same_env_in_every_library(without_sb3):
    result = side_by_side(num_envs=4, steps=30, seed=0)
    step, env, tables = around_first_end(result)
    same = result.frame[result.frame["library"] == GYM_SAME_STEP]
    first = same[same["done"]].iloc[0]
    assert (step, env) == (first["step"], first["env"])
    assert list(tables) == [GYM_SAME_STEP, GYM_NEXT_STEP]
    assert tables[GYM_SAME_STEP]["step"].tolist() == list(range(max(1, step - 1), step + 3))
    assert "reset: action ignored" in tables[GYM_NEXT_STEP]["note"].tolist()
    assert tables[GYM_SAME_STEP]["done"].sum() >= 1


def world_start() -> tuple[int, ...]:
    from burgerbot import world

    return world.observe(*world.START, world.START_HEADING)


# --- With SB3 ----------------------------------------------------------------------------------


@pytest.mark.sb3
def test_sb3_is_detected(sb3):
    assert sb3_demo.sb3_available()
    assert sb3_demo.sb3_version() == sb3.__version__


@pytest.mark.sb3
def test_sb3_matches_same_step_and_not_next_step(sb3):
    result = side_by_side(num_envs=4, steps=30, seed=0)
    assert result.with_sb3 and result.episodes_ended > 0
    assert result.agree[GYM_SAME_STEP] == result.pairs
    assert result.first_difference[GYM_SAME_STEP] is None
    assert result.agree[GYM_NEXT_STEP] < result.pairs
    step, env = result.first_difference[GYM_NEXT_STEP]
    frame = result.frame
    sb3_rows = frame[frame["library"] == SB3]
    assert len(sb3_rows) == result.pairs
    # SB3 keeps the ended episode's last observation in infos[i]["terminal_observation"].
    assert (sb3_rows["last_obs"].notna() == sb3_rows["done"]).all()
    same_rows = frame[frame["library"] == GYM_SAME_STEP]
    assert sb3_rows["last_obs"].tolist() == same_rows["last_obs"].tolist()
    # NEXT_STEP first differs where an episode ends: it returns the last observation there,
    # SB3 the next start; its reset comes one call later.
    nxt = frame[(frame["library"] == GYM_NEXT_STEP) & (frame["env"] == env)]
    assert nxt.loc[nxt["step"] == step, "done"].item()
    assert (
        nxt.loc[nxt["step"] == step, "obs"].item()
        == nxt.loc[nxt["step"] == step, "last_obs"].item()
    )
    assert step < result.steps  # seed 0: the first end comes at step 2 of 30
    assert nxt.loc[nxt["step"] == step + 1, "reset_step"].item()  # its reset, one call later
    _, _, tables = around_first_end(result)
    assert list(tables) == [SB3, GYM_SAME_STEP, GYM_NEXT_STEP]


@pytest.mark.sb3
@pytest.mark.parametrize(("num_envs", "steps", "seed"), [(4, 30, 0), (2, 60, 5)])
def test_side_by_side_script_prints_the_page_numbers(sb3, num_envs, steps, seed, tmp_path):
    out = assert_script_behaves(snippets.side_by_side_script(num_envs, steps, seed), tmp_path)
    result = side_by_side(num_envs, steps, seed)
    values = printed(out)
    assert values["episodes ended (SB3)"] == str(result.episodes_ended)
    modes = {"SAME_STEP": GYM_SAME_STEP, "NEXT_STEP": GYM_NEXT_STEP}
    assert recorded_agreement(out) == {
        mode: (result.agree[name], result.pairs) for mode, name in modes.items()
    }
    for mode, name in modes.items():  # where each first parted from SB3, as the page found
        assert values[mode].endswith(f": {result.first_difference[name]}")
    assert "terminal_observation" in out


@pytest.mark.sb3
def test_the_lessons_invalid_calls_raise_and_the_fix_works(sb3):
    calls = invalid_calls(num_envs=3)
    n_envs = calls["n_envs"]
    assert n_envs.error.type == "TypeError"
    assert "unexpected keyword argument 'n_envs'" in n_envs.error.message
    assert n_envs.error.location == "<script>:7 in <module>"  # line 1 says it fails
    gym_vector = calls["gymnasium_vector"]
    assert gym_vector.error.type == snippets.GYMNASIUM_VECTOR_ERROR
    assert "SyncVectorEnv" in gym_vector.error.message
    assert gym_vector.error.location.startswith("stable_baselines3/")
    fixed = calls["fixed"]
    assert not fixed.raised
    expected = {
        "env given to PPO": "DummyVecEnv",
        "n_envs": "3",
        "n_steps (step() calls per env per update)": "2048",
        "rollout buffer": "(2048, 3, 4)",
        "transitions per update": "6144",
    }
    values = printed(fixed.output)
    assert {key: values.get(key) for key in expected} == expected
