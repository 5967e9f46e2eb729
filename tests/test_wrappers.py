"""The library's wrappers: the dict-observation BurgerBot a shown script imports."""

from __future__ import annotations

import pytest
from gymnasium.utils.env_checker import check_env

from burgerbot.wrappers import BurgerBotDictObservation


@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")
def test_dict_observation_env_passes_the_env_checker():
    env = BurgerBotDictObservation()
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
