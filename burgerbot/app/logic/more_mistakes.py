"""The More mistakes page's Streamlit-free logic: the mistakes' runs, the spaces table.

Its sections, in order: the settings, the prediction (actions of shape (N, 1)) and the mistakes
that run inside this process, how spaces batch (the reference table), the sentences computed
from its rows, running a script as a file, and the AsyncVectorEnv mistakes (run as files).
"""

from __future__ import annotations

import contextlib
import difflib
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium import spaces
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv
from gymnasium.vector.utils import batch_space

import burgerbot
from burgerbot.app.labels import counted
from burgerbot.app.processes import session_members
from burgerbot.app.script_runner import CapturedError, ScriptRun, run_script, short_file
from burgerbot.app.scripts import more_mistakes as snippets
from burgerbot.app.settings import ChoiceSetting, IntSetting
from burgerbot.app.slots import WorkerBudget
from burgerbot.factories import burgerbot_factory
from burgerbot.vector import BurgerBotVectorEnv
from burgerbot.wrappers import BurgerBotDictObservation

__all__ = [
    "ACTION_OPTIONS",
    "ASYNC_NUM_ENVS",
    "ASYNC_SCRIPTS",
    "ENV_MAKERS",
    "MISTAKES",
    "NATIVE_MAKERS",
    "SPECS",
    "SYNC_MISTAKES",
    "VECTOR_ENV_NOTES",
    "Demo",
    "SpaceRow",
    "action_shape_mistake",
    "actions_explanation",
    "actions_outcome",
    "changed_lines",
    "defaults_mistake",
    "dtype_exercise",
    "errors_in_stderr",
    "final_obs_mistake",
    "leak_sentences",
    "line_ranges",
    "main_guard_mistake",
    "process_running",
    "returns_lines",
    "rewards_sentence",
    "row_for",
    "run_as_file",
    "shape_mentioned",
    "short_space",
    "spaces_bullets",
    "spaces_lines",
    "spaces_table",
    "surviving_workers",
    "takeaways",
    "unclosed_async_mistake",
    "vector_env_label",
    "workers_frame",
]


# --- Settings, the prediction, and the mistakes run inside this process ---------------------------
# Each mistake is a set of scripts from ``burgerbot.app.scripts.more_mistakes``, executed exactly
# as the page shows them by `burgerbot.app.script_runner.run_script`, which captures what they
# print and the error they raise (the tests check that a file run of each gives the same). The
# AsyncVectorEnv mistakes, which only a file run shows truly, come last.

MISTAKES = {
    "actions": "actions (N, 1)",
    "final_obs": "final_observation",
    "async": "Async left open",
    "main_guard": "spawn, no main guard",
    "defaults": "burgerbot_factory itself",
}
"""Key (as in the URL: ``?mistake=async``) -> the label the page's selector shows."""

SPECS = (
    IntSetting("n", "N: number of sub-environments", default=4, low=1, high=64),
    ChoiceSetting("mistake", "Mistake", "actions", tuple(MISTAKES)),
)

ACTION_OPTIONS = (
    "It steps normally",
    "An error that names the shape",
    "An error that does not mention a shape",
)
"""The prediction's choices: what a SyncVectorEnv of BurgerBots does with actions (N, 1)."""


def actions_outcome(run: ScriptRun) -> str:
    """What the (N, 1) actions script did, as the prediction's options write it.

    Example:
        >>> error = CapturedError("TypeError", "bad index", "", (), "")
        >>> actions_outcome(ScriptRun("", "", error))
        'An error that does not mention a shape'
        >>> actions_outcome(ScriptRun("", "", None))
        'It steps normally'
    """
    if run.error is None:
        return ACTION_OPTIONS[0]
    return ACTION_OPTIONS[1] if shape_mentioned([run.error]) else ACTION_OPTIONS[2]


def actions_explanation(run: ScriptRun) -> str:
    """Why, from the script's own run (Markdown)."""
    if run.error is None:
        return "The vector env accepted the `(N, 1)` actions without complaint here."
    return (
        "`SyncVectorEnv` does not check the shape of the actions: it hands row *i* (an array "
        f"holding one number) to env *i*, which fails inside: `{run.error.headline}`. "
        "`envs.action_space.contains(actions)` tells before stepping."
    )


def shape_mentioned(errors: Sequence[CapturedError | None]) -> bool:
    """Whether any of these error messages mentions a shape."""
    return any(error is not None and "shape" in error.message for error in errors)


def changed_lines(before: str, after: str) -> list[int]:
    """Line numbers (from 1) of ``after`` that are new or changed compared with ``before``."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    return [
        line + 1
        for tag, _, _, first, last in matcher.get_opcodes()
        if tag in ("replace", "insert")
        for line in range(first, last)
    ]


def line_ranges(lines: list[int]) -> str:
    """Line numbers as short ranges.

    Example:
        >>> line_ranges([3, 4, 5, 9])
        '3–5, 9'
    """
    groups: list[list[int]] = []
    for line in lines:
        if groups and line == groups[-1][-1] + 1:
            groups[-1].append(line)
        else:
            groups.append([line])
    return ", ".join(str(g[0]) if len(g) == 1 else f"{g[0]}–{g[-1]}" for g in groups)


@dataclass(frozen=True)
class Demo:
    """The runs that make up one mistake (wrong, fixed, variants) and facts measured beside."""

    runs: dict[str, ScriptRun]
    facts: dict[str, Any] = field(default_factory=dict)


def _read_dtypes(namespace: dict[str, Any]) -> dict[str, Any]:
    return {
        f"{name}.{attr}": str(getattr(namespace[name], attr))
        for name in ("burgerbot_obs", "cartpole_obs")
        if name in namespace
        for attr in ("dtype", "shape")
    }


def dtype_exercise(num_envs: int) -> ScriptRun:
    """The lesson's exercise 3: print the batched observation's dtype, BurgerBot vs CartPole."""
    return run_script(snippets.dtype_exercise(num_envs), inspect_namespace=_read_dtypes)


def _read_shapes(*names: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def read(namespace: dict[str, Any]) -> dict[str, Any]:
        return {
            f"{name}.shape": tuple(np.shape(namespace[name])) for name in names if name in namespace
        }

    return read


def defaults_mistake(num_envs: int) -> Demo:
    """``burgerbot_factory`` itself in the list: every argument has a default, so the vector env
    calls it happily and receives a function where it expected an env."""
    return Demo(runs={"wrong": run_script(snippets.factory_with_defaults_wrong(num_envs))})


def _read_outcomes(namespace: dict[str, Any]) -> dict[str, Any]:
    outcomes = namespace.get("outcomes", {})
    return {
        "outcomes": {
            name: None if error is None else CapturedError.from_exception(error)
            for name, error in outcomes.items()
        }
    }


def action_shape_mistake(num_envs: int) -> Demo:
    """Actions of shape (N, 1), given to Sync BurgerBots, Sync CartPoles, native."""
    return Demo(
        runs={
            "wrong": run_script(
                snippets.action_shape_wrong(num_envs), inspect_namespace=_read_shapes("actions")
            ),
            "fixed": run_script(
                snippets.action_shape_fixed(num_envs),
                inspect_namespace=_read_shapes("actions", "rewards"),
            ),
            "elsewhere": run_script(
                snippets.action_shape_other_envs(num_envs), inspect_namespace=_read_outcomes
            ),
        }
    )


def final_obs_mistake(num_envs: int) -> Demo:
    """``infos["final_observation"]`` is gone in gymnasium 1.x, in every mode."""
    return Demo(
        runs={
            "wrong_same_step": run_script(snippets.final_obs_wrong(num_envs, "SAME_STEP")),
            "wrong_next_step": run_script(snippets.final_obs_wrong(num_envs, "NEXT_STEP")),
            "fixed_same_step": run_script(
                snippets.final_obs_fixed_same_step(num_envs), read=("final",)
            ),
            "fixed_next_step": run_script(
                snippets.final_obs_fixed_next_step(num_envs), read=("final",)
            ),
        }
    )


SYNC_MISTAKES: dict[str, Callable[[int], Demo]] = {
    "actions": action_shape_mistake,
    "final_obs": final_obs_mistake,
    "defaults": defaults_mistake,
}
"""The mistakes that run inside this process in milliseconds, by key."""


# --- How spaces batch: the spaces table -----------------------------------------------------------
# How spaces batch: ``batch_space`` checked against real vector envs, for the More mistakes page.


def short_space(space: spaces.Space) -> str:
    """A one-line repr that stays short at large N (a batched Box repr lists every bound)."""
    if isinstance(space, spaces.Box):
        return f"Box(shape={space.shape}, dtype={space.dtype})"
    if isinstance(space, spaces.MultiDiscrete):
        if space.nvec.size <= 8:
            return repr(space)
        text = np.array2string(space.nvec, threshold=6, edgeitems=2)
        return f"MultiDiscrete({text}, shape={space.shape})"
    if isinstance(space, spaces.Dict):
        inner = ", ".join(f"'{key}': {short_space(sub)}" for key, sub in space.spaces.items())
        return f"Dict({inner})"
    if isinstance(space, spaces.Tuple):
        return "Tuple(" + ", ".join(short_space(sub) for sub in space.spaces) + ")"
    return repr(space)


def _shape_and_dtype(batch: Any) -> tuple[Any, Any]:
    if isinstance(batch, dict):
        return (
            {key: tuple(value.shape) for key, value in batch.items()},
            {key: str(value.dtype) for key, value in batch.items()},
        )
    return tuple(batch.shape), str(batch.dtype)


@dataclass(frozen=True)
class SpaceRow:
    """One environment's spaces, batched by ``batch_space`` and by a real vector env."""

    env: str
    vector_env: str
    single_observation_space: str
    batched_observation_space: str  # batch_space(single, N), short form
    batched_observation_repr: str  # the same, full repr
    space_kinds: str  # e.g. "MultiDiscrete → Box"
    obs_shape: Any  # a tuple, or {key: tuple} for Dict observations
    obs_dtype: Any  # a dtype name, or {key: name}
    reward_shape: tuple
    reward_dtype: str
    terminated_dtype: str
    truncated_dtype: str
    single_action_space: str
    batched_action_space: str
    action_shape: tuple
    spaces_agree: bool  # vector env's spaces == batch_space(...), and its obs lie in them


def _measure(name: str, envs: VectorEnv, num_envs: int) -> SpaceRow:
    single_obs, single_act = envs.single_observation_space, envs.single_action_space
    batched_obs = batch_space(single_obs, num_envs)
    batched_act = batch_space(single_act, num_envs)
    obs, _ = envs.reset(seed=0)
    envs.action_space.seed(0)
    actions = envs.action_space.sample()
    next_obs, rewards, terminated, truncated, _ = envs.step(actions)
    agree = (
        envs.observation_space == batched_obs
        and envs.action_space == batched_act
        and batched_obs.contains(obs)
        and batched_obs.contains(next_obs)
        and batched_act.contains(actions)
    )
    obs_shape, obs_dtype = _shape_and_dtype(obs)
    return SpaceRow(
        env=name,
        vector_env=type(envs).__name__,
        single_observation_space=short_space(single_obs),
        batched_observation_space=short_space(batched_obs),
        batched_observation_repr=repr(batched_obs),
        space_kinds=f"{type(single_obs).__name__} → {type(batched_obs).__name__}",
        obs_shape=obs_shape,
        obs_dtype=obs_dtype,
        reward_shape=tuple(rewards.shape),
        reward_dtype=str(rewards.dtype),
        terminated_dtype=str(terminated.dtype),
        truncated_dtype=str(truncated.dtype),
        single_action_space=short_space(single_act),
        batched_action_space=short_space(batched_act),
        action_shape=tuple(np.shape(actions)),
        spaces_agree=bool(agree),
    )


ENV_MAKERS: dict[str, Callable[[], gym.Env]] = {
    "BurgerBot": burgerbot_factory(),
    "CartPole-v1": lambda: gym.make("CartPole-v1"),
    "FrozenLake-v1": lambda: gym.make("FrozenLake-v1"),
    "BurgerBot, Dict observation": BurgerBotDictObservation,
}
"""The environments of the spaces table, each stacked N times in a SyncVectorEnv."""


NATIVE_MAKERS: dict[str, Callable[[int], VectorEnv]] = {
    "CartPole-v1": lambda n: gym.make_vec(
        "CartPole-v1", num_envs=n, vectorization_mode="vector_entry_point"
    ),
    "BurgerBot": BurgerBotVectorEnv,
}
"""Natively batched vector envs: Gymnasium's own CartPoleVectorEnv, and this project's
BurgerBotVectorEnv (not part of Gymnasium)."""


def spaces_table(num_envs: int) -> list[SpaceRow]:
    """Batch each env's spaces with ``batch_space`` and with a real vector env of ``num_envs``.

    One row per env of `ENV_MAKERS` in a SyncVectorEnv, then one per natively batched env.
    """
    rows = []
    builders = [
        *(
            (name, lambda make_one=make_one: SyncVectorEnv([make_one] * num_envs))
            for name, make_one in ENV_MAKERS.items()
        ),
        *((name, lambda make=make: make(num_envs)) for name, make in NATIVE_MAKERS.items()),
    ]
    for name, build in builders:
        envs = build()
        try:
            rows.append(_measure(name, envs, num_envs))
        finally:
            envs.close()
    return rows


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key} {_describe(sub)}" for key, sub in value.items())
    return str(value)


def returns_lines(rows: Sequence[SpaceRow]) -> list[str]:
    """What ``reset``/``step`` returned, one Markdown line per environment (lines wrap on a
    phone, where a wide table hid its last columns)."""
    return [
        f"**{r.env}** in `{r.vector_env}`: obs `{_describe(r.obs_shape)}` "
        f"`{_describe(r.obs_dtype)}` · rewards `{r.reward_shape}` `{r.reward_dtype}` · "
        f"terminated / truncated `{r.terminated_dtype}` / `{r.truncated_dtype}` · "
        f"sampled actions `{r.action_shape}`"
        for r in rows
    ]


def spaces_lines(rows: Sequence[SpaceRow]) -> list[str]:
    """Each env's single space, what ``batch_space`` makes of it, and whether the vector env's
    own spaces are the same, one Markdown line per environment."""
    return [
        f"**{r.env}** in `{r.vector_env}` ({'✅ same' if r.spaces_agree else '❌ differs'}): "
        f"`{r.single_observation_space}` → `{r.batched_observation_space}` "
        f"({r.space_kinds}) · actions `{r.batched_action_space}`"
        for r in rows
    ]


# --- Sentences about batches, from the spaces table's rows ----------------------------------------
# The More mistakes page's sentences about batches, each computed from the spaces table's live rows.
#
# Nothing here states a shape or a dtype it did not read from a row: when the installed
# libraries change, the sentences change with them.

VECTOR_ENV_NOTES = {
    "SyncVectorEnv": "Gymnasium's",
    "CartPoleVectorEnv": "Gymnasium's own batched CartPole",
    "BurgerBotVectorEnv": "this project's, not Gymnasium's",
}


def vector_env_label(name: str) -> str:
    """``"BurgerBotVectorEnv"`` -> ``"BurgerBotVectorEnv (this project's, not Gymnasium's)"``."""
    note = VECTOR_ENV_NOTES.get(name)
    return f"{name} ({note})" if note else name


def row_for(rows: Sequence[SpaceRow], env: str, vector_env: str = "SyncVectorEnv") -> SpaceRow:
    """The row of ``env`` stepped in ``vector_env``."""
    for row in rows:
        if (row.env, row.vector_env) == (env, vector_env):
            return row
    raise LookupError(f"no row for {env!r} in {vector_env!r}")


def rewards_sentence(rows: Sequence[SpaceRow]) -> str:
    """Which vector envs gave which reward dtype (Markdown), grouped by dtype."""
    by_dtype: dict[str, list[str]] = {}
    for row in rows:
        names = by_dtype.setdefault(row.reward_dtype, [])
        if row.vector_env not in names:
            names.append(row.vector_env)
    shapes = sorted({str(row.reward_shape) for row in rows})
    shape_text = " and ".join(f"`{shape}`" for shape in shapes)
    if len(by_dtype) == 1:
        (dtype,) = by_dtype
        return (
            f"Rewards came back as {shape_text} `{dtype}` from every vector env here: one "
            "number per sub-environment."
        )
    parts = [
        f"`{dtype}` from {', '.join(f'`{name}`' for name in names)}"
        for dtype, names in by_dtype.items()
    ]
    return (
        f"Rewards came back as {shape_text}, one per sub-environment, but their dtype depends "
        f"on the vector env: {'; '.join(parts)}. Do not assume one dtype: convert "
        "(`rewards.astype(np.float32)`) where it matters."
    )


def _flags_sentence(rows: Sequence[SpaceRow]) -> str:
    dtypes = sorted({row.terminated_dtype for row in rows} | {row.truncated_dtype for row in rows})
    one_per_copy = all(len(row.reward_shape) == 1 for row in rows)
    return f"`terminated` / `truncated` came back as {' or '.join(f'`{d}`' for d in dtypes)}" + (
        ", one per sub-environment." if one_per_copy else "."
    )


def spaces_bullets(rows: Sequence[SpaceRow], num_envs: int) -> list[str]:
    """The spaces table in words (Markdown bullets), each read from its rows."""
    burgerbot = row_for(rows, "BurgerBot")
    cartpole = row_for(rows, "CartPole-v1")
    lake = row_for(rows, "FrozenLake-v1")
    as_dict = row_for(rows, "BurgerBot, Dict observation")
    single_kind, batched_kind = burgerbot.space_kinds.split(" → ")
    kind_note = f", not a bigger {single_kind}" if batched_kind != single_kind else ""
    same_shape = cartpole.obs_shape == burgerbot.obs_shape
    agree = all(row.spaces_agree for row in rows)
    keys = ", ".join(f"`{key}` → `{shape}`" for key, shape in as_dict.obs_shape.items())
    return [
        f"**BurgerBot** gives `{burgerbot.obs_shape}`: {counted(num_envs, 'robot')} (first "
        "axis), each `[row, col, heading, sensor]`. Batching its `{single_kind}` space gives a "
        f"**`{batched_kind}`**{kind_note}.",
        f"**CartPole** gives `{cartpole.obs_shape}`"
        + (" as well" if same_shape else "")
        + f", but as `{cartpole.obs_dtype}` (BurgerBot: `{burgerbot.obs_dtype}`). "
        f"**FrozenLake**'s observation is one number, so its batch is `{lake.obs_shape}`. "
        f"A **Dict** observation is batched key by key: {keys}.",
        rewards_sentence(rows) + " " + _flags_sentence(rows),
        "`batch_space` and the real vector envs "
        + ("agree on every row." if agree else "**disagree** on some rows (see the table)."),
    ]


# --- Running a script as a file, as a learner does ------------------------------------------------
# Run a script of the More mistakes page as a learner does: saved to a file, ``python script.py``.
#
# The AsyncVectorEnv scripts behave differently when run from a file than
# when executed inside a running process: ``spawn`` workers import the main script again, and
# worker processes are stopped when the script exits. So the page runs them from a file, in a
# subprocess of its own session, and reads what they printed, the error they stopped with, and
# which of their worker processes outlived them.

_PROJECT = Path(burgerbot.__file__).resolve().parents[1]
_TRACEBACK = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>.+)$')


def _one_error(block: str, script: str) -> CapturedError | None:
    """The error of one traceback block (the text after "Traceback (most recent call last):")."""
    lines = block.splitlines()
    frames = [(i, m) for i, line in enumerate(lines) if (m := _FRAME.match(line))]
    after = lines[frames[-1][0] + 1 :] if frames else lines
    # Source lines and ^^^ markers are indented; the exception line starts at column 0.
    start = next((i for i, line in enumerate(after) if line and not line[0].isspace()), None)
    if start is None:
        return None
    first, *rest = after[start:]
    kind, _, message = first.partition(":")
    message = " ".join([message.strip(), *(line.strip() for line in rest)]).strip()
    path, where, location = [], "", ""
    for _, frame in frames:
        file, line, name = frame["file"], frame["line"], frame["name"]
        in_script = Path(file).name == script
        path.append(f"script line {line}" if in_script else f"{short_file(file)}:{line} in {name}")
        where = (
            f"line {line} of the script"
            if in_script
            else f"{short_file(file)}, line {line}, in {name}"
        )
        location = f"{script if in_script else short_file(file)}:{line} in {name}"
    return CapturedError(kind.strip(), message, where, tuple(path), location)


def errors_in_stderr(stderr: str, script: str = "script.py") -> list[CapturedError]:
    """Every traceback printed on ``stderr``, in order (a worker's come before the parent's).

    Example:
        >>> text = (
        ...     "Traceback (most recent call last):\\n"
        ...     '  File "/tmp/x/script.py", line 3, in <module>\\n'
        ...     "    1 / 0\\n"
        ...     "ZeroDivisionError: division by zero\\n"
        ... )
        >>> (error,) = errors_in_stderr(text)
        >>> error.headline, error.where
        ('ZeroDivisionError: division by zero', 'line 3 of the script')
    """
    blocks = stderr.split(_TRACEBACK)[1:]
    return [error for block in blocks if (error := _one_error(block, script)) is not None]


def _is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def surviving_workers(session: int, grace: float = 1.0) -> list[int] | None:
    """Worker processes still running in ``session`` after ``grace`` seconds (None: no /proc)."""
    if not os.path.isdir("/proc"):
        return None
    deadline = time.monotonic() + grace
    while True:
        workers = [pid for pid in session_members(session) if _is_worker(pid)]
        if not workers or time.monotonic() > deadline:
            return workers
        time.sleep(0.05)


def _kill_session(session: int, wait: float = 5.0) -> None:
    """Stop every process left in ``session`` (all started by the script) and wait for it."""
    if not os.path.isdir("/proc"):
        return
    deadline = time.monotonic() + wait
    while (members := session_members(session)) and time.monotonic() < deadline:
        for pid in members:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def run_as_file(code: str, name: str = "script.py", timeout: float = 120.0) -> ScriptRun:
    """Save ``code`` as ``name`` in a fresh folder and run ``python name`` there.

    ``values`` holds ``returncode``, ``left_after_exit`` (worker processes of the script still
    running once it exited; None where that cannot be read) and ``worker_errors`` (errors that
    worker processes printed before the script's own). Anything left behind is then stopped.
    """
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(_PROJECT), os.environ.get("PYTHONPATH")])),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    with tempfile.TemporaryDirectory(prefix="burgerbot-script-") as folder:
        script = Path(folder) / name
        script.write_text(code)
        # Output goes to files, not pipes: a worker that outlives the script inherits them and
        # would hold a pipe open, so waiting for the pipe's end would wait for the worker.
        out_path, err_path = Path(folder) / "stdout.txt", Path(folder) / "stderr.txt"
        with out_path.open("w") as out, err_path.open("w") as err:
            process = subprocess.Popen(
                [sys.executable, name],
                cwd=folder,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,  # its workers join its session: found after it exits
            )
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_session(process.pid)
                process.wait()
                raise
        left = surviving_workers(process.pid)
        _kill_session(process.pid)
        stdout, stderr = out_path.read_text(), err_path.read_text()
    errors = errors_in_stderr(stderr, name)
    error = errors[-1] if errors and process.returncode != 0 else None
    return ScriptRun(
        code=code,
        output=stdout,
        error=error,
        values={
            "returncode": process.returncode,
            "left_after_exit": left,
            "worker_errors": errors[:-1] if error is not None else errors,
        },
    )


# --- The Async mistakes: AsyncVectorEnv worker processes, run live ------------------------------
# The More mistakes page's Async mistakes: AsyncVectorEnv worker processes, run live.
#
# Left open: an AsyncVectorEnv that is not closed after an error. Each script runs twice: as a
# file (``python script.py``, what the page shows as its output), and inside a process that
# keeps running after the error, as a notebook kernel or a server does (here: this server's
# process), where the workers' fate differs. No main guard: ``spawn`` workers from a script without
# ``if __name__ == "__main__":``, which only a file run shows.

ASYNC_NUM_ENVS = snippets.ASYNC_NUM_ENVS
ASYNC_SCRIPTS: dict[str, tuple[str, Callable[[], str]]] = {
    "wrong": ("❌ `close()` only at the end", snippets.async_wrong),
    "fixed_finally": ("✅ `try` / `finally`", snippets.async_fixed_finally),
    "fixed_closing": ("✅ `with closing(...)`", snippets.async_fixed_closing),
    "with": ("❌ `with AsyncVectorEnv(...)`", snippets.async_with_statement),
}
"""Key -> (label, script) of the left-open mistake; all but "with" also run inside this process."""

_PARALLEL_RUNS = (
    2  # two scripts at a time (left open: ASYNC_NUM_ENVS workers each; main guard: one)
)


def process_running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie, read from ``/proc`` (Linux)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def _alive(processes: Sequence[multiprocessing.process.BaseProcess]) -> list[int]:
    has_proc = os.path.isdir("/proc")
    return [
        p.pid
        for p in processes
        if p.pid is not None and p.is_alive() and (not has_proc or process_running(p.pid))
    ]


def _check_workers(namespace: dict[str, Any]) -> dict[str, Any]:
    """What the script left in this process: its env's workers, alive or not; then close it."""
    envs = namespace.get("envs")
    if not isinstance(envs, AsyncVectorEnv):
        return {}
    processes = list(envs.processes)
    facts: dict[str, Any] = {
        "worker_pids": [p.pid for p in processes],
        "daemon": [bool(p.daemon) for p in processes],
        "closed_by_script": bool(envs.closed),
        "alive_after_script": _alive(processes),
    }
    envs.close()
    facts["alive_after_close"] = _alive(processes)
    return facts


def _in_process(code: str) -> dict[str, Any]:
    run = run_script(code, inspect_namespace=_check_workers)
    return {**run.values, "in_process_error": None if run.error is None else run.error.type}


def _with_budget(budget: WorkerBudget | None, workers: int, work: Callable[[], Any]) -> Any:
    if budget is not None:
        budget.acquire(workers)
    try:
        return work()
    finally:
        if budget is not None:
            budget.release(workers)


def unclosed_async_mistake(budget: WorkerBudget | None = None) -> Demo:
    """An Async env left open: each script run as a file, and (but "with") inside this process.

    Two scripts run at a time; ``budget`` (the server-wide Async worker budget) is held for
    their workers during the whole demo. Whatever a script leaves open is closed.
    """

    def run_all() -> Demo:
        with ThreadPoolExecutor(_PARALLEL_RUNS, thread_name_prefix="mistake5") as pool:
            files = {
                key: pool.submit(run_as_file, make()) for key, (_, make) in ASYNC_SCRIPTS.items()
            }
            inside = {
                key: pool.submit(_in_process, make())
                for key, (_, make) in ASYNC_SCRIPTS.items()
                if key != "with"
            }
            runs = {key: future.result() for key, future in files.items()}
            for key, future in inside.items():
                run = runs[key]
                runs[key] = ScriptRun(
                    run.code, run.output, run.error, {**run.values, **future.result()}
                )
        facts = {
            "async_has_enter": hasattr(AsyncVectorEnv, "__enter__"),
            "async_has_del": "__del__" in vars(AsyncVectorEnv),
        }
        return Demo(runs=runs, facts=facts)

    return _with_budget(budget, _PARALLEL_RUNS * ASYNC_NUM_ENVS, run_all)


def main_guard_mistake(budget: WorkerBudget | None = None) -> Demo:
    """No main guard: the same Async script without and with ``if __name__ == "__main__":``."""

    def run_all() -> Demo:
        with ThreadPoolExecutor(_PARALLEL_RUNS, thread_name_prefix="mistake6") as pool:
            wrong = pool.submit(run_as_file, snippets.main_guard_wrong())
            fixed = pool.submit(run_as_file, snippets.main_guard_fixed())
            return Demo(runs={"wrong": wrong.result(), "fixed": fixed.result()})

    return _with_budget(budget, _PARALLEL_RUNS * snippets.MAIN_GUARD_NUM_ENVS, run_all)


def _count(pids: Sequence[int] | None) -> str:
    return "could not be read" if pids is None else str(len(pids))


def workers_frame(runs: Mapping[str, ScriptRun]) -> pd.DataFrame:
    """The left-open mistake's worker counts: one row per script that ran both ways."""
    rows = [(key, label) for key, (label, _) in ASYNC_SCRIPTS.items() if key != "with"]
    return pd.DataFrame(
        {
            "script": [label.replace("`", "") for _, label in rows],
            "as a file: stopped with": [_error_type(runs[key]) for key, _ in rows],
            "as a file: workers left after it exited": [
                _count(runs[key].values.get("left_after_exit")) for key, _ in rows
            ],
            "in a process that goes on: workers running after the error": [
                _count(runs[key].values.get("alive_after_script")) for key, _ in rows
            ],
        }
    )


def _error_type(run: ScriptRun) -> str:
    return "no error" if run.error is None else run.error.type


def leak_sentences(
    runs: Mapping[str, ScriptRun], facts: Mapping[str, Any] | None = None
) -> list[str]:
    """What the left-open mistake's runs showed, in words that follow the counts (Markdown).

    ``facts["async_has_del"]``: whether deleting the env closes it (``__del__``).
    """
    wrong = runs["wrong"].values
    started = len(wrong.get("worker_pids", []))
    kept = len(wrong.get("alive_after_script", []))
    daemon = wrong.get("daemon", [])
    after_exit = [runs[key].values.get("left_after_exit") for key in ASYNC_SCRIPTS]
    if None in after_exit:
        on_exit = (
            "This server cannot list processes (no `/proc`), so the workers left after each "
            "file run could not be counted."
        )
    elif not any(after_exit):
        on_exit = (
            "**Run as a file, no script left a worker behind**, not even ❌: when `python "
            "script.py` ends, even with an error, Python stops the script's worker processes"
            + (
                ", which are daemon processes (children that Python ends when their parent ends)."
                if daemon and all(daemon)
                else "."
            )
        )
    else:
        leaked = sum(len(pids) for pids in after_exit if pids)
        on_exit = (
            f"**Run as a file, {leaked} worker process{'es' * (leaked != 1)} outlived the "
            "script** (the page stopped them)."
        )
    if kept:
        going_on = (
            "**Inside a process that goes on after the error** (a notebook's kernel, a server, "
            f"a training loop that catches errors), ❌ kept {kept} of its {started} workers "
            "running: `envs` still refers to the env, so nothing closes it until you call "
            "`envs.close()`, "
            + (
                "delete `envs` (`AsyncVectorEnv.__del__` closes it), "
                if (facts or {}).get("async_has_del")
                else ""
            )
            + "or restart the kernel. After the page called "
            f"`envs.close()`: {len(wrong.get('alive_after_close', []))} left."
        )
    else:
        going_on = (
            f"Inside a process that goes on after the error, ❌ kept none of its {started} "
            "workers running this time."
        )
    fixed_kept = sum(
        len(runs[key].values.get("alive_after_script", []))
        for key in ("fixed_finally", "fixed_closing")
    )
    fixed_files = [
        runs[key].values.get("left_after_exit") for key in ("fixed_finally", "fixed_closing")
    ]
    if fixed_kept:
        fixes = f"The ✅ versions still left {fixed_kept} worker{'s' * (fixed_kept != 1)} running."
    else:
        fixes = "Both ✅ versions closed their workers before the error left the block" + (
            ", so none is left however the code runs."
            if fixed_files == [[], []]  # and none outlived their file runs (counted)
            else "."
        )
    return [on_exit, going_on, fixes]


def takeaways(actions: ScriptRun | None) -> list[str]:
    """The page's key takeaways; the first names what the ``(N, 1)`` actions did, when run."""
    outcome = "" if actions is None else f" (here: {actions_outcome(actions).lower()})"
    return [
        "Actions go in as one per sub-environment, shape `(N,)`: `SyncVectorEnv` does not check "
        f"a `(N, 1)` batch{outcome}; `envs.action_space.contains(actions)` does.",
        'Gymnasium 1.x has no `infos["final_observation"]`: in NEXT_STEP mode the ending '
        'step\'s `obs` is the last observation; in SAME_STEP mode it is in `infos["final_obs"]`.',
        "Close an `AsyncVectorEnv` in `finally` (or `contextlib.closing`): in a process that "
        "goes on after an error, an unclosed env keeps its workers running.",
        'With `spawn` workers, keep the script\'s work under `if __name__ == "__main__":`.',
        "A factory with a default for every argument must still be called: "
        "`burgerbot_factory()`, not `burgerbot_factory`.",
    ]
