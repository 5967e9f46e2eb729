"""One rule per kind of argument: every entry point accepts and refuses the same values."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from burgerbot import buffers, checks, experiments
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import burgerbot_factory, make_vector_env
from burgerbot.vector import BurgerBotVectorEnv

NUM_ENVS_TAKERS = {
    "BurgerBotVectorEnv": lambda n: BurgerBotVectorEnv(n).close(),
    "make_vector_env sync": lambda n: make_vector_env("sync", n).close(),
    "make_vector_env native": lambda n: make_vector_env("native", n).close(),
    "rollout": lambda n: experiments.rollout("native", n, steps=2, seed=0),
    "buffer_layout": lambda n: buffers.buffer_layout(8, n),
}


@pytest.mark.parametrize("taker", NUM_ENVS_TAKERS.values(), ids=NUM_ENVS_TAKERS.keys())
def test_num_envs_numpy_integers_are_accepted_and_bad_values_refused_alike(taker):
    taker(np.int64(2))
    taker(2)
    for bad in (0, -1, True, 2.0, "2", np.float64(2)):
        with pytest.raises(ValueError, match=r"^`num_envs` must be a positive whole number, got "):
            taker(bad)


@pytest.mark.parametrize(
    "taker",
    [
        lambda m: BurgerBotEnv(max_steps=m),
        lambda m: BurgerBotVectorEnv(1, max_steps=m).close(),
        lambda m: burgerbot_factory(max_steps=m)(),
    ],
)
def test_max_steps_is_checked_alike(taker):
    taker(np.int32(5))
    with pytest.raises(ValueError, match=r"^`max_steps` must be a positive whole number, got 0"):
        taker(0)


def test_seeds_accept_numpy_integers_and_refuse_out_of_range_values():
    assert checks.seeds(np.arange(3)) == [0, 1, 2]
    assert checks.seed(np.uint32(checks.MAX_SEED)) == checks.MAX_SEED
    for bad in (-1, checks.MAX_SEED + 1, 1.5, True):
        with pytest.raises(ValueError, match=r"^`seed` must be a whole number in 0\.\."):
            checks.seed(bad)
    with pytest.raises(ValueError, match="at least one seed"):
        checks.seeds([])
    with pytest.raises(ValueError, match=r"^`seed` must be a whole number"):
        experiments.rollout("native", 1, steps=1, seed=-1)


@pytest.mark.parametrize(
    "given", [AutoresetMode.SAME_STEP, "SAME_STEP", "SameStep", AutoresetMode.SAME_STEP.value]
)
def test_autoreset_mode_reads_the_enum_its_name_and_its_value(given):
    assert checks.autoreset_mode(given) is AutoresetMode.SAME_STEP


def test_autoreset_mode_names_the_choices_for_a_bad_value():
    with pytest.raises(ValueError, match=r"`autoreset_mode` must be one of .*'NEXT_STEP'"):
        checks.autoreset_mode("LATER")
