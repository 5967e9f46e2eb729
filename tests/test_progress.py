"""Throttled progress reports for the app's progress bars (`burgerbot.app.progress`)."""

from __future__ import annotations

import doctest

import numpy as np

from burgerbot.app import progress
from burgerbot.app.progress import ThrottledProgress


def test_throttled_progress_passes_few_reports_and_always_the_last():
    seen = []
    report = ThrottledProgress(lambda f, m: seen.append((f, m)), updates=10)
    for i in range(1, 1001):
        report(i / 1000, f"step {i}")
    assert len(seen) <= 11 and seen[-1] == (1.0, "step 1000")
    before_last = [fraction for fraction, _ in seen[:-1]]
    gaps = np.diff(before_last)
    assert all(gap >= 0.1 - 1e-9 for gap in gaps)


def test_docstring_examples_run():
    assert doctest.testmod(progress).failed == 0
