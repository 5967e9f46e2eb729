"""burgerbot.buffers: how N envs fill PPO's rollout buffer, and the rollout that fills it."""

from __future__ import annotations

import pandas as pd
import pytest
from gymnasium.vector import AutoresetMode

from burgerbot.buffers import buffer_layout, rollout_buffer
from burgerbot.experiments import rollout


@pytest.mark.parametrize(
    ("batch", "n", "calls", "collected", "exact"),
    [(2048, 1, 2048, 2048, True), (2048, 4, 512, 2048, True), (2048, 3, 683, 2049, False)],
)
def test_buffer_layout_counts_step_calls(batch, n, calls, collected, exact):
    layout = buffer_layout(batch, n)
    assert (layout.step_calls, layout.collected, layout.exact) == (calls, collected, exact)


def test_buffer_layout_refuses_a_bad_num_envs():
    with pytest.raises(ValueError, match="num_envs"):
        buffer_layout(2048, 0)


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_rollout_buffer_is_a_real_rollout(mode):
    frame = rollout_buffer(batch_size=200, num_envs=8, seed=3, autoreset_mode=mode)
    assert len(frame) == 25 * 8 and frame["step"].max() == 25
    same = rollout("native", 8, 25, 3, AutoresetMode[mode])
    pd.testing.assert_frame_equal(frame.drop(columns="ends_episode"), same)
    assert frame["ends_episode"].equals(frame["terminated"] | frame["truncated"])
    resets = (frame["event"] == "reset").sum()
    assert (resets > 0) if mode == "NEXT_STEP" else (resets == 0)
