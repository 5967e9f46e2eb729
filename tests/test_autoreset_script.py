"""The "Auto-reset" page as a script: same actions, same episode ends, same counts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from burgerbot.app.scripts.autoreset import snippet_for
from burgerbot.app.views.autoreset import (
    MODES,
    AutoresetSettings,
    gymnasium_version,
    resolve_settings,
    run_page_rollout,
)
from burgerbot.app.views.autoreset_counting import count_finished_by_mode, finished_per_env
from burgerbot.app.views.autoreset_episodes import episode_ends
from burgerbot.experiments import random_actions

ROOT = Path(__file__).resolve().parent.parent


def settings_for(mode: str = "NEXT_STEP", **changes) -> AutoresetSettings:
    values = {"n": 3, "mode": mode, "seed": 0, "steps": 30, "backend": "native", "cn": 2, "ck": 60}
    settings, notes = resolve_settings(values | changes)
    assert notes == []
    return settings


def test_the_snippets_actions_are_the_pages_actions():
    for seed, n, steps in [(0, 3, 30), (7, 5, 2_500), (3, 3_000, 700)]:
        page = np.concatenate(list(random_actions(seed, n, steps)))
        script = np.random.default_rng(seed).integers(0, 4, size=(steps, n))
        np.testing.assert_array_equal(page, script)


END = re.compile(r"end step=(\d+) env=(\d+) cause=(\w+) final_obs=(\[.*\])")
COUNT = re.compile(r"finished episodes per env \((\d+) envs, (\d+) steps\): (\[.*\])")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", [0, 11])
def test_snippet_prints_the_pages_episode_ends_and_counts(mode, seed):
    settings = settings_for(mode, seed=seed, n=4, steps=50, cn=3, ck=120)
    code = snippet_for(settings)
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"gymnasium {gymnasium_version()}, autoreset_mode={mode}"

    events = episode_ends(run_page_rollout(settings), mode)
    printed = [m.groups() for m in map(END.fullmatch, lines) if m]
    assert len(printed) == len(events) > 0
    columns = ["step", "env", "cause", "final obs"]
    expected = list(events[columns].astype(str).itertuples(index=False, name=None))
    assert printed == expected

    counts = [m.groups() for m in map(COUNT.fullmatch, lines) if m]
    main = finished_per_env(run_page_rollout(settings), 4)["finished episodes"].tolist()
    by_mode = count_finished_by_mode("native", 3, 120, seed)
    counting = by_mode[by_mode["mode"] == mode]["finished episodes"].tolist()
    assert counts == [("4", "50", str(main)), ("3", "120", str(counting))]
