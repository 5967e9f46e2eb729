"""Fixtures shared by several test files."""

from __future__ import annotations

import importlib
import multiprocessing
import os

import pytest
from child_processes import worker_pids


@pytest.fixture
def sb3():
    """stable_baselines3, or a skip; with BURGERBOT_REQUIRE_SB3=1 a missing SB3 fails."""
    if os.environ.get("BURGERBOT_REQUIRE_SB3") == "1":
        return importlib.import_module("stable_baselines3")
    return pytest.importorskip("stable_baselines3")


@pytest.fixture
def no_leftover_workers():
    """Fail the test if it leaves a child process behind."""
    before = worker_pids()
    yield
    assert multiprocessing.active_children() == []
    assert worker_pids() - before == set()
