"""Home's verdict does not depend on which run a learner got: 20 runs of its measurement beside
two busy processes (two cores kept busy) all give the same answer to its question."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from burgerbot.app.logic.home import FORWARD, measure_costs, prediction_truth

pytestmark = pytest.mark.slow

RUNS = 20


def test_twenty_runs_beside_two_busy_processes_give_the_same_answer():
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        tally = Counter(prediction_truth(measure_costs()) for _ in range(RUNS))
    finally:
        for process in busy:
            process.kill()
            process.wait()
    print(f"answers of {RUNS} runs beside two busy processes: {dict(tally)}")
    # Never another option; at most one run too close to call (then it is not scored).
    assert set(tally) <= {FORWARD, None}, tally
    assert tally[FORWARD] >= RUNS - 1, tally
