"""Cost sweeps: the remarks on a sweep follow its rounds, both ways."""

from __future__ import annotations

import pandas as pd

from burgerbot.app.logic.cost_sweeps import async_wins, native_remark


def frame(rows: list[tuple[str, int, float]], steps: int = 1_000, spread=0.05) -> pd.DataFrame:
    """A run_timing-like frame: each row's three rounds are its step_s times 1 - spread, 1 and
    1 + spread (the median is step_s)."""
    return pd.DataFrame(
        [
            {
                "backend": b,
                "num_envs": n,
                "steps": steps,
                "step_s": s,
                "env_steps_per_s": n * steps / s,
                "step_s_rounds": [s * (1 - spread), s, s * (1 + spread)],
            }
            for b, n, s in rows
        ]
    )


def test_native_remark_follows_the_sweep():
    def sweep(native_small: float, native_large: float) -> pd.DataFrame:
        return frame(
            [
                ("sync", 1, 0.01),
                ("native", 1, native_small),
                ("sync", 64, 0.5),
                ("native", 64, native_large),
            ],
            steps=100,
        )

    assert "native was 10.0× as fast as Sync" in native_remark(sweep(0.02, 0.05))
    late = native_remark(sweep(0.02, 0.6))
    assert "not clearly faster than Sync" in late and "as fast as" not in late
    assert native_remark(sweep(0.005, 0.05)) is None  # not slower at the smallest N: nothing to say
    assert native_remark(frame([("sync", 1, 0.01), ("native", 1, 0.02)])) is None


def test_async_wins_only_where_every_round_beat_sync():
    sweep = frame([("sync", 2, 1.0), ("async", 2, 0.5), ("sync", 8, 1.0), ("async", 8, 0.8)])
    assert async_wins(sweep) == [2, 8]
    # at 8 one busy round of Async overlaps Sync's: not a win
    sweep.at[3, "step_s_rounds"] = [0.6, 0.8, 1.02]
    assert async_wins(sweep) == [2]
    assert async_wins(frame([("sync", 2, 1.0)])) == []
