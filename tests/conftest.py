"""Fixtures shared by several test files."""

from __future__ import annotations

import importlib
import os

import pytest


@pytest.fixture
def sb3():
    """stable_baselines3, or a skip; with BURGERBOT_REQUIRE_SB3=1 a missing SB3 fails."""
    if os.environ.get("BURGERBOT_REQUIRE_SB3") == "1":
        return importlib.import_module("stable_baselines3")
    return pytest.importorskip("stable_baselines3")
