"""burgerbot.app.script_runner: scripts run as shown, their prints and errors captured."""

from __future__ import annotations

import doctest

from burgerbot.app import script_runner
from burgerbot.app.script_runner import CapturedError, run_script, short_file


def test_a_printing_script_runs_without_error(capsys):
    run = run_script("for i in range(3):\n    print('step', i, sep=': ')\nanswer = 42\n")
    assert run.output == "step: 0\nstep: 1\nstep: 2\n"
    assert capsys.readouterr().out == ""  # captured, not printed
    assert run.error is None and not run.raised
    assert run.values == {}


def test_a_raising_script_keeps_what_it_printed_before():
    run = run_script("print('before')\nraise ValueError('bad value')\nprint('after')\n")
    assert run.output == "before\n"
    assert run.raised
    assert run.error.headline == "ValueError: bad value"
    assert run.error.where == "line 2 of the script"
    assert run.error.location == "<script>:2 in <module>"
    assert run.error.path == ("script line 2",)


def test_an_error_from_inside_the_library_names_its_file():
    code = (
        "from burgerbot import BurgerBotEnv\n"
        "env = BurgerBotEnv()\n"
        "env.reset(seed=0)\n"
        "env.step([[0]])  # not an action\n"
    )
    run = run_script(code)
    error = run.error
    assert error.type == "TypeError"
    assert error.where.startswith("burgerbot/env.py, line ") and error.where.endswith(", in step")
    assert error.location.startswith("burgerbot/env.py:") and error.location.endswith(" in step")
    assert error.path[0] == "script line 4"
    assert error.path[-1] == error.location
    assert not any("script_runner" in frame for frame in error.path)  # the runner is left out


def test_read_copies_variables_as_text():
    run = run_script("final = [1, 2]\n", read=("final", "missing"))
    assert run.values == {"final": "[1, 2]"}


def test_an_error_caught_inside_the_script_can_be_described():
    def outcome(namespace):
        return {"error": CapturedError.from_exception(namespace["caught"])}

    code = "try:\n    {}['k']\nexcept KeyError as error:\n    caught = error\n"
    run = run_script(code, inspect_namespace=outcome)
    assert run.error is None
    assert run.values["error"].headline == "KeyError: 'k'"
    assert run.values["error"].where == "line 2 of the script"


def test_short_file_keeps_the_package_path():
    assert short_file("/x/lib/python3.11/site-packages/stable_baselines3/ppo/ppo.py") == (
        "stable_baselines3/ppo/ppo.py"
    )
    assert short_file("/usr/lib/python3/dist-packages/numpy/core/fromnumeric.py") == (
        "numpy/core/fromnumeric.py"
    )
    assert short_file("/somewhere/else/tool.py") == "tool.py"


def test_run_script_captures_prints_and_the_error(capsys):
    run = run_script("print('hello', 3)\nx = {}['missing']\n")
    assert run.output == "hello 3\n"
    assert capsys.readouterr().out == ""
    assert (run.error.type, run.error.message) == ("KeyError", "'missing'")
    assert run.error.where == "line 2 of the script"
    assert run.error.path == ("script line 2",)


def test_run_script_closes_envs_a_script_leaves_open():
    seen = {}

    def grab(namespace):
        seen["env"] = namespace["envs"]
        return {"closed_before_cleanup": namespace["envs"].closed}

    code = "from burgerbot import BurgerBotVectorEnv\nenvs = BurgerBotVectorEnv(2)\n1 / 0\n"
    run = run_script(code, inspect_namespace=grab)
    assert run.error.type == "ZeroDivisionError"
    assert run.values == {"closed_before_cleanup": False}
    assert seen["env"].closed


def test_docstring_examples():
    assert doctest.testmod(script_runner).failed == 0
