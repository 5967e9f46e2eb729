"""More mistakes, the Async ones: AsyncVectorEnv scripts run as files, and their workers."""

from __future__ import annotations

import multiprocessing

import pytest
from child_processes import worker_pids
from gymnasium.vector import AsyncVectorEnv
from shown_scripts import assert_script_behaves, run_notebook

from burgerbot.app.logic import more_mistakes as w
from burgerbot.app.notebook import script_notebook
from burgerbot.app.scripts import expected_error
from burgerbot.app.scripts import more_mistakes as scripts
from burgerbot.app.slots import BudgetExceeded, WorkerBudget

pytestmark = pytest.mark.slow

MAIN_GUARD = {"wrong": scripts.main_guard_wrong, "fixed": scripts.main_guard_fixed}


@pytest.fixture(scope="module")
def async_demo():
    before = worker_pids()
    budget = WorkerBudget(8)
    demo = w.unclosed_async_mistake(budget)
    assert budget.in_use == 0
    assert worker_pids() - before == set()
    return demo


@pytest.fixture(scope="module")
def guard_demo():
    return w.main_guard_mistake()


def test_every_async_script_is_guarded_for_spawn_and_names_its_error():
    for key, (_, make) in w.ASYNC_SCRIPTS.items():
        code = make()
        assert 'if __name__ == "__main__":' in code, key
        assert expected_error(code) in ("KeyError", "TypeError"), key
    assert 'if __name__ == "__main__":' in scripts.main_guard_fixed()
    assert "if __name__" not in scripts.main_guard_wrong().replace("# No `if __name__", "")


@pytest.mark.parametrize("key", sorted(w.ASYNC_SCRIPTS))
def test_left_open_scripts_run_from_a_file_as_the_page_shows(key, async_demo, tmp_path):
    run = async_demo.runs[key]
    _, make = w.ASYNC_SCRIPTS[key]
    assert run.code == make()
    assert run.error is not None and run.error.type == expected_error(run.code)
    assert assert_script_behaves(run.code, tmp_path) == run.output


@pytest.mark.parametrize("key", sorted(MAIN_GUARD))
def test_main_guard_scripts_run_from_a_file_as_the_page_shows(key, guard_demo, tmp_path):
    run = guard_demo.runs[key]
    assert run.code == MAIN_GUARD[key]()
    assert (None if run.error is None else run.error.type) == expected_error(run.code)
    assert assert_script_behaves(run.code, tmp_path) == run.output


def test_an_unclosed_async_env_keeps_its_workers_only_while_its_process_goes_on(async_demo):
    wrong = async_demo.runs["wrong"].values
    assert wrong["in_process_error"] == "KeyError"
    assert wrong["closed_by_script"] is False
    assert len(wrong["worker_pids"]) == w.ASYNC_NUM_ENVS
    assert wrong["daemon"] == [True] * w.ASYNC_NUM_ENVS
    assert wrong["alive_after_script"] == wrong["worker_pids"]  # the process went on
    assert wrong["alive_after_close"] == []
    for key in w.ASYNC_SCRIPTS:
        assert async_demo.runs[key].values["left_after_exit"] == [], key  # as a file: none
    for key in ("fixed_finally", "fixed_closing"):
        values = async_demo.runs[key].values
        assert values["in_process_error"] == "KeyError"
        assert values["closed_by_script"] is True
        assert values["alive_after_script"] == []
    every = [pid for run in async_demo.runs.values() for pid in run.values.get("worker_pids", [])]
    assert every and not any(w.process_running(pid) for pid in every)
    assert async_demo.facts["async_has_enter"] is hasattr(AsyncVectorEnv, "__enter__") is False
    with_block = async_demo.runs["with"].error
    assert with_block.type == "TypeError" and "context manager" in with_block.message
    sentences = " ".join(w.leak_sentences(async_demo.runs, async_demo.facts))
    assert "no script left a worker behind" in sentences and "daemon" in sentences
    assert f"kept {w.ASYNC_NUM_ENVS} of its {w.ASYNC_NUM_ENVS} workers" in sentences


def test_without_the_main_guard_spawned_workers_fail_and_the_parent_loses_them(guard_demo):
    wrong, fixed = guard_demo.runs["wrong"], guard_demo.runs["fixed"]
    assert wrong.error.type == "ConnectionResetError"
    errors = wrong.values["worker_errors"]
    # One worker: its error is printed whole, before the script's own (the parent's error
    # comes from the worker's end closing when it exits).
    assert [e.type for e in errors] == ["RuntimeError"]
    assert "bootstrapping phase" in errors[0].message
    assert wrong.values["left_after_exit"] == []
    assert fixed.error is None and fixed.output == "obs shape: (1, 4)\n"


def test_an_async_script_runs_as_a_notebook_too(tmp_path):
    result = run_notebook(script_notebook(scripts.async_wrong(), "Async left open"), tmp_path)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == "KeyError: 'final_observation'"


def test_the_demos_respect_the_worker_budget():
    before = {p.pid for p in multiprocessing.active_children()}
    for demo in (w.unclosed_async_mistake, w.main_guard_mistake):
        budget = WorkerBudget(w.ASYNC_NUM_ENVS - 1)
        with pytest.raises(BudgetExceeded):
            demo(budget)
        assert budget.in_use == 0
    assert {p.pid for p in multiprocessing.active_children()} == before


def test_process_running_reads_proc():
    assert w.process_running(multiprocessing.current_process().pid or 1)
    assert not w.process_running(2**22 + 12345)  # above Linux's pid_max


# --- Running a script as a file ------------------------------------------------------------

LEAVES_A_WORKER = """\
import multiprocessing
import os
import time

if __name__ == "__main__":
    worker = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(60,))
    worker.daemon = True
    worker.start()
    print(worker.pid, flush=True)
    os._exit(3)  # skips the exit handlers that would stop the daemon worker
"""


def test_run_as_file_finds_a_worker_that_outlived_its_script_and_stops_it():
    run = w.run_as_file(LEAVES_A_WORKER)
    pid = int(run.output)
    assert run.values["returncode"] == 3 and run.error is None
    assert run.values["left_after_exit"] == [pid]
    assert not w.process_running(pid)  # stopped by run_as_file


def test_run_as_file_reports_the_scripts_own_error_and_output():
    run = w.run_as_file("print('before')\n{}['missing']\n", name="lookup.py")
    assert run.output == "before\n"
    assert run.error.headline == "KeyError: 'missing'"
    assert run.error.where == "line 2 of the script"
    assert run.values == {"returncode": 1, "left_after_exit": [], "worker_errors": []}


def test_errors_in_stderr_reads_every_traceback_in_order():
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 140, in _check\n'
        "    raise RuntimeError('''\n"
        "RuntimeError: \n"
        "        An attempt has been made.\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/tmp/x/script.py", line 7, in <module>\n'
        "    envs = AsyncVectorEnv(...)\n"
        "           ^^^^^^^^^^^^^^^^^^^\n"
        '  File "/site-packages/gymnasium/vector/async_vector_env.py", line 768, in recv\n'
        "ConnectionResetError: [Errno 104] Connection reset by peer\n"
    )
    worker, parent = w.errors_in_stderr(stderr)
    assert (worker.type, worker.message) == ("RuntimeError", "An attempt has been made.")
    assert worker.where == "spawn.py, line 140, in _check"
    assert parent.headline == "ConnectionResetError: [Errno 104] Connection reset by peer"
    assert parent.path == ("script line 7", "gymnasium/vector/async_vector_env.py:768 in recv")
    assert w.errors_in_stderr("no traceback here\n") == []
