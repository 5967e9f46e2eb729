"""Batch shapes takes calls ahead of the clicks that show them: the calls a learner sees are
exactly those of a run that takes nothing ahead, in every order of clicks, on every backend."""

from __future__ import annotations

import numpy as np
import pytest

from burgerbot.app.logic.batch_shapes import BatchCall, BatchRun, BatchSettings, build_vector_env

CLICKS = [
    "step",
    "ahead 1",
    "step",
    "step",
    "ahead 20",
    "step10",
    "advance 3",  # the browser showed 3 calls it held, then asked for more
    "ahead 5",
    "advance 30",  # a click went past the calls held: the run takes the rest now
    "reset",
    "ahead 2",
    "step",
    "ahead 20",
    "ahead 20",
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
    ("env", "backend"),
    [
        ("BurgerBot", "native"),
        ("BurgerBot", "sync"),
        ("BurgerBot", "async"),
        ("CartPole-v1", "sync"),
        ("FrozenLake-v1", "async"),
    ],
)
def test_taking_calls_ahead_changes_nothing_a_learner_sees(env, backend):
    settings = BatchSettings(env=env, num_envs=3, backend=backend, seed=5)
    plain, ahead = (BatchRun(build_vector_env(settings), 5) for _ in range(2))
    try:
        plain.reset(), ahead.reset()
        for click in CLICKS:
            what, _, count = click.partition(" ")
            if what == "ahead":
                taken = ahead.take_ahead(int(count))
                numbers = [call.number for call in taken]
                assert numbers == list(range(ahead.steps + 1, ahead.steps + 1 + len(taken)))
                assert len(taken) >= int(count)
                assert ahead.take_ahead(int(count))[0] is taken[0]  # taken once
            elif what == "advance":
                target = plain.steps + int(count)
                plain.step(int(count))
                assert ahead.advance_to(target).number == target
                assert ahead.advance_to(target - 1).number == target  # never goes back
            else:
                for run in (plain, ahead):
                    {
                        "step": lambda r: r.step(1),
                        "step10": lambda r: r.step(10),
                        "reset": lambda r: r.reset(),
                    }[click](run)
            assert ahead.steps == plain.steps
            _same(ahead.latest, plain.latest)
            assert [c.number for c in ahead.history] == [c.number for c in plain.history]
    finally:
        plain.envs.close(), ahead.envs.close()


def test_calls_held_ahead_are_the_next_calls_of_a_plain_run():
    settings = BatchSettings(env="BurgerBot", num_envs=4, backend="sync", seed=2)
    plain, ahead = (BatchRun(build_vector_env(settings), 2) for _ in range(2))
    try:
        plain.reset(), ahead.reset()
        taken = ahead.take_ahead(25)
        for call in taken:
            _same(call, plain.step(1))
    finally:
        plain.envs.close(), ahead.envs.close()


def test_a_reset_drops_the_calls_taken_ahead():
    run = BatchRun(
        build_vector_env(BatchSettings(env="BurgerBot", num_envs=2, backend="native", seed=0)), 0
    )
    try:
        run.reset()
        assert run.take_ahead(3)[0].number == 1
        run.reset()
        assert not run.ahead and run.take_ahead(1)[0].number == 1
    finally:
        run.envs.close()
