"""Batch shapes prepares the next call ahead of the click that shows it: the calls a
learner sees are exactly those of a run that prepares nothing, in every order of clicks."""

from __future__ import annotations

import numpy as np
import pytest

from burgerbot.app.logic.batch_shapes import BatchCall, BatchRun, BatchSettings, build_vector_env

CLICKS = [
    "step",
    "prepare",
    "step",
    "step",
    "prepare",
    "step10",
    "prepare",
    "reset",
    "prepare",
    "step",
    "prepare",
    "prepare",
    "step",
]


def _same(a: BatchCall, b: BatchCall) -> None:
    assert a.number == b.number
    for name in ("observations", "actions", "rewards", "terminated", "truncated"):
        left, right = getattr(a, name), getattr(b, name)
        assert (left is None) == (right is None), name
        if left is not None:
            np.testing.assert_array_equal(left, right, err_msg=name)
            assert left.dtype == right.dtype, name
    assert a.infos.keys() == b.infos.keys()


@pytest.mark.parametrize(
    ("env", "backend"), [("BurgerBot", "native"), ("BurgerBot", "sync"), ("CartPole-v1", "sync")]
)
def test_preparing_the_next_call_changes_nothing_a_learner_sees(env, backend):
    settings = BatchSettings(env=env, num_envs=3, backend=backend, seed=5)
    plain, prepared = (BatchRun(build_vector_env(settings), 5) for _ in range(2))
    try:
        plain.reset(), prepared.reset()
        for click in CLICKS:
            if click == "prepare":
                upcoming = prepared.prepare()
                assert upcoming.number == prepared.steps + 1
                assert prepared.prepare() is upcoming  # prepared once
            else:
                for run in (plain, prepared):
                    {
                        "step": lambda r: r.step(1),
                        "step10": lambda r: r.step(10),
                        "reset": lambda r: r.reset(),
                    }[click](run)
            assert prepared.steps == plain.steps
            _same(prepared.latest, plain.latest)
            assert [c.number for c in prepared.history] == [c.number for c in plain.history]
    finally:
        plain.envs.close(), prepared.envs.close()


def test_a_reset_drops_the_prepared_call():
    run = BatchRun(
        build_vector_env(BatchSettings(env="BurgerBot", num_envs=2, backend="native", seed=0)), 0
    )
    try:
        run.reset()
        assert run.prepare().number == 1
        run.reset()
        assert run.prepared is None and run.prepare().number == 1
    finally:
        run.envs.close()
