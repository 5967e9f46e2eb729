"""The "Wrapping a vector env" page as scripts: the same robots, seeds and random actions."""

from __future__ import annotations

from burgerbot.app.logic.vector_wrappers import EVAL_CALLS

__all__ = [
    "LOGGED_LINE",
    "evaluation_script",
    "logging_script",
    "placement_script",
    "table_script",
    "wrong_loops_script",
]

LOGGED_LINE = "episodes logged: {logged}, summed from the rows: {rows}, equal: {equal}"
"""How the logging script prints its check (tests parse it back)."""

_ACTIONS = "np.random.default_rng(SEED).integers(0, 4, size=(STEPS, NUM_ENVS))"


def _make_envs(backend: str) -> str:
    if backend == "native":
        return (
            "def make_envs():\n"
            "    # burgerbot's natively batched env declares its mode in its metadata.\n"
            "    return BurgerBotVectorEnv(NUM_ENVS, autoreset_mode=MODE)\n"
        )
    return (
        "def make_envs():\n"
        "    return SyncVectorEnv(\n"
        "        [burgerbot_factory() for _ in range(NUM_ENVS)], autoreset_mode=MODE\n"
        "    )\n"
    )


def _header(mode: str, num_envs: int, steps: int, seed: int) -> str:
    return (
        f"MODE = AutoresetMode.{mode}\n"
        f"NUM_ENVS = {num_envs}\n"
        f"STEPS = {steps}\n"
        f"SEED = {seed}\n"
        f"ACTIONS = {_ACTIONS}\n"
    )


def placement_script(mode: str, num_envs: int, steps: int, seed: int) -> str:
    """RecordEpisodeStatistics inside the factory, then around the vector env: what ``infos``
    holds on the first call that ends an episode followed by a call that ends none, and on
    that next call."""
    return f'''"""Where RecordEpisodeStatistics goes: inside the factory (one per BurgerBot) or
around the vector env. Prints what infos holds when an episode ends, and one call later."""

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from burgerbot.factories import burgerbot_factory

{_header(mode, num_envs, steps, seed)}

def make_wrapped_env():
    # The single-env wrapper, applied to each BurgerBot as the factory builds it.
    return gym.wrappers.RecordEpisodeStatistics(burgerbot_factory()())


def show(infos, prefix="infos"):
    """Print each array in infos by the way you reach it (times and field masks left out)."""
    if not infos:
        print(f"  {{prefix}} = {{{{}}}} (empty)")
    for key, value in infos.items():
        if key in ("t", "_t", "_r", "_l"):
            continue
        if isinstance(value, dict):
            show(value, f'{{prefix}}["{{key}}"]')
        else:  # final_obs is an object array: None where an env did not end
            shown = [None if v is None else np.asarray(v).tolist() for v in value]
            print(f'  {{prefix}}["{{key}}"] = {{shown}}')


for placement in ("inside the factory", "around the vector env"):
    if placement == "inside the factory":
        envs = SyncVectorEnv([make_wrapped_env for _ in range(NUM_ENVS)], autoreset_mode=MODE)
    else:
        envs = RecordEpisodeStatistics(
            SyncVectorEnv([burgerbot_factory() for _ in range(NUM_ENVS)], autoreset_mode=MODE)
        )
    envs.reset(seed=SEED)
    ending = None  # (call, envs that ended, infos) of the latest call that ended an episode
    for t, actions in enumerate(ACTIONS, start=1):
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        ended = terminated | truncated
        if ending is not None and not ended.any():  # an ending call, then a call ending none
            print(f"{{placement}}: call {{ending[0]}} ends env(s) {{ending[1]}}")
            show(ending[2])
            print(f"{{placement}}: call {{t}}, the one after")
            show(infos)
            break
        ending = (t, np.flatnonzero(ended).tolist(), infos) if ended.any() else None
    envs.close()
'''


def logging_script(backend: str, mode: str, num_envs: int, steps: int, seed: int) -> str:
    """The logging loop that reports each finished episode once, checked against the rows."""
    imports = (
        "from burgerbot.vector import BurgerBotVectorEnv"
        if backend == "native"
        else "from burgerbot.factories import burgerbot_factory"
    )
    sync_import = "" if backend == "native" else ", SyncVectorEnv"
    line = LOGGED_LINE.format(
        logged="{len(logged)}", rows="{len(from_rows)}", equal="{logged == from_rows}"
    )
    return f'''"""Log every finished episode's return and length exactly once, in {mode} mode,
and check each one against the return summed from the raw rows of the same run."""

import numpy as np
from gymnasium.vector import AutoresetMode{sync_import}
from gymnasium.wrappers.vector import RecordEpisodeStatistics

{imports}

{_header(mode, num_envs, steps, seed)}

{_make_envs(backend)}

envs = RecordEpisodeStatistics(make_envs())
logged = []  # (env, call, return, length) as the wrapper reports them
from_rows = []  # the same, summed from the rewards the vector env returned
returns = np.zeros(NUM_ENVS)
lengths = np.zeros(NUM_ENVS, dtype=int)
reset_row = np.zeros(NUM_ENVS, dtype=bool)  # NEXT_STEP: this call only resets these envs

obs, infos = envs.reset(seed=SEED)
for t, actions in enumerate(ACTIONS, start=1):
    obs, rewards, terminated, truncated, infos = envs.step(actions)

    # The logging loop: infos["_episode"] marks the envs whose episode ended on this call.
    if "_episode" in infos:
        for i in np.flatnonzero(infos["_episode"]):
            episode = infos["episode"]
            logged.append((int(i), t, round(float(episode["r"][i]), 6), int(episode["l"][i])))

    # The check: a reset row (reward 0) belongs to no episode; every other row does.
    real = ~reset_row
    returns[real] += rewards[real]
    lengths[real] += 1
    ended = (terminated | truncated) & real
    for i in np.flatnonzero(ended):
        from_rows.append((int(i), t, round(float(returns[i]), 6), int(lengths[i])))
    returns[ended], lengths[ended] = 0.0, 0
    reset_row = ended if MODE == AutoresetMode.NEXT_STEP else np.zeros(NUM_ENVS, dtype=bool)
envs.close()

for env, call, episode_return, length in logged[:5]:
    print(f"env {{env}}: ended on call {{call}}, return {{episode_return:g}}, length {{length}}")
print(f"{line}")
'''


def wrong_loops_script(mode: str, num_envs: int, steps: int, seed: int) -> str:
    """The two common wrong loops, run in ``mode``: what each logs, or how it stops."""
    return f'''"""Two logging loops that go wrong, in {mode} mode: reading infos["final_info"]
with the wrapper inside the factory, and the wrapper in both places read from both keys."""

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from burgerbot.factories import burgerbot_factory

{_header(mode, num_envs, steps, seed)}

def make_wrapped_env():
    return gym.wrappers.RecordEpisodeStatistics(burgerbot_factory()())


def read(stats, t, logged):
    """Log (env, call, return, length) for each env that stats["_episode"] marks."""
    for i in np.flatnonzero(stats["_episode"]):
        logged.append((int(i), t, float(stats["episode"]["r"][i]), int(stats["episode"]["l"][i])))


for loop in ("final_info", "both places"):
    envs = SyncVectorEnv([make_wrapped_env for _ in range(NUM_ENVS)], autoreset_mode=MODE)
    if loop == "both places":
        envs = RecordEpisodeStatistics(envs)
    logged, finished = [], 0
    envs.reset(seed=SEED)
    try:
        for t, actions in enumerate(ACTIONS, start=1):
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            finished += int((terminated | truncated).sum())
            if loop == "both places" and "_episode" in infos:
                read(infos, t, logged)
            if "final_info" in infos and "_episode" in infos["final_info"]:
                read(infos["final_info"], t, logged)
    except ValueError as error:
        print(f"{{loop}} loop stopped on call {{t}}: ValueError: {{error}}")
    else:
        print(f"{{loop}} loop: {{len(logged)}} episodes logged, {{finished}} finished")
    finally:
        envs.close()
'''


def table_script(backend: str, num_envs: int, steps: int, seed: int) -> str:
    """Each vector wrapper in each mode: accepted, accepted with a warning, or refused."""
    native = backend == "native"
    build = (
        "BurgerBotVectorEnv(NUM_ENVS, autoreset_mode=mode)"
        if native
        else "SyncVectorEnv([burgerbot_factory() for _ in range(NUM_ENVS)], autoreset_mode=mode)"
    )
    imports = (
        "from burgerbot.vector import BurgerBotVectorEnv"
        if native
        else "from burgerbot.factories import burgerbot_factory"
    )
    sync_import = "" if native else ", SyncVectorEnv"
    return f'''"""Which vector wrapper works in which auto-reset mode, asked of the installed
gymnasium: each one wraps a fresh vector env and runs {steps} random calls (DISABLED: ended
envs reset with a mask); it is accepted, accepted with a warning, or refused with an error."""

import re
import warnings

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode{sync_import}
from gymnasium.wrappers import vector as wrappers

{imports}

NUM_ENVS = {num_envs}
STEPS = {steps}
SEED = {seed}
ACTIONS = {_ACTIONS}
WRAPPERS = {{
    "RecordEpisodeStatistics": wrappers.RecordEpisodeStatistics,
    "NormalizeObservation": wrappers.NormalizeObservation,
    "NormalizeReward": wrappers.NormalizeReward,
    "ClipReward": lambda env: wrappers.ClipReward(env, min_reward=-1.0, max_reward=1.0),
    "TransformObservation": lambda env: wrappers.TransformObservation(env, lambda obs: obs * 2),
    "DictInfoToList": wrappers.DictInfoToList,
}}
MODES = ["NEXT_STEP", "SAME_STEP", "DISABLED", "SAME_STEP, undeclared"]


def make_envs(mode_name):
    mode = AutoresetMode[mode_name.split(",")[0]]
    envs = {build}
    if "undeclared" in mode_name:  # a vector env that does not say which mode it uses
        envs.metadata = {{k: v for k, v in envs.metadata.items() if k != "autoreset_mode"}}
    return envs


def run(envs, mode_name):
    envs.reset(seed=SEED)
    for actions in ACTIONS:
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        ended = terminated | truncated
        if mode_name == "DISABLED" and ended.any():
            envs.reset(options={{"reset_mask": ended}})


print(f"gymnasium {{gym.__version__}}, numpy {{np.__version__}}")
for name, wrap in WRAPPERS.items():
    for mode_name in MODES:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            envs = make_envs(mode_name)
            try:
                wrapped = wrap(envs)
                run(wrapped, mode_name)
                verdict = "warned" if caught else "accepted"
                detail = " / ".join(re.sub(r"\\x1b\\[[0-9;]*m", "", str(w.message)) for w in caught)
            except Exception as error:
                verdict, detail = "refused", f"{{type(error).__name__}}: {{error}}"
            finally:
                envs.close()
        print(f"{{name:24}} {{mode_name:22}} {{verdict:8}} {{detail[:100]}}")
'''


def evaluation_script(num_envs: int, train_calls: int, seed: int) -> str:
    """NormalizeObservation's statistics during evaluation: left updating, and frozen."""
    return f'''"""NormalizeObservation during evaluation: statistics left updating, or frozen.

Training: {train_calls} calls of random actions. Evaluation: {EVAL_CALLS} calls of another
policy (always forward), starting from the training statistics. The script prints how far
the normalised start observation [0, 0, 1, 1] moves during evaluation in each case."""

import copy

import numpy as np
from gymnasium.wrappers.vector import NormalizeObservation

from burgerbot.vector import BurgerBotVectorEnv

NUM_ENVS = {num_envs}
TRAIN_CALLS = {train_calls}
EVAL_CALLS = {EVAL_CALLS}
SEED = {seed}
START = np.array([0, 0, 1, 1])


def normalised_start(envs):
    return (START - envs.obs_rms.mean) / np.sqrt(envs.obs_rms.var + envs.epsilon)


train = NormalizeObservation(BurgerBotVectorEnv(NUM_ENVS))
train.reset(seed=SEED)
for actions in np.random.default_rng(SEED).integers(0, 4, size=(TRAIN_CALLS, NUM_ENVS)):
    train.step(actions)
train.close()
before = normalised_start(train)
print(f"after training: {{int(train.obs_rms.count)}} observations, start -> {{before.round(3)}}")

for setting, update in (("keep updating", True), ("frozen", False)):
    evaluate = NormalizeObservation(BurgerBotVectorEnv(NUM_ENVS))
    evaluate.obs_rms = copy.deepcopy(train.obs_rms)  # carry the training statistics over
    evaluate.update_running_mean = update  # the wrapper's own switch
    evaluate.reset(seed=SEED)
    largest = 0.0
    for _ in range(EVAL_CALLS):
        evaluate.step(np.zeros(NUM_ENVS, dtype=np.int64))  # always forward
        largest = max(largest, float(np.abs(normalised_start(evaluate) - before).max()))
    evaluate.close()
    print(f"{{setting}}: the start's normalised value moved by up to {{largest:.6f}}")
'''
