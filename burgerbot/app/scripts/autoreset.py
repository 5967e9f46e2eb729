"""The "Auto-reset" page as a script: same mode, seed and random actions, same episode ends."""

from __future__ import annotations

from burgerbot.app.logic.autoreset import AutoresetSettings

__all__ = [
    "COUNT_LINE",
    "END_LINE",
    "FINAL_OBS_LINE",
    "final_obs_script",
    "infos_check_output",
    "infos_check_script",
    "snippet_for",
]

END_LINE = "end step={step} env={env} cause={cause} final_obs={final}"
"""How the script prints one episode end (tests parse it back)."""

COUNT_LINE = "finished episodes per env (NUM_ENVS={num_envs}, STEPS={steps}): {counts}"
"""How the script prints the counts of finished episodes."""

_FINAL_OBS = {
    "NEXT_STEP": [
        "# NEXT_STEP: the ending step returns the final observation itself;",
        "# the NEXT step() call resets env i (it ignores the action, reward 0).",
        "final = obs[i]",
    ],
    "SAME_STEP": [
        "# SAME_STEP: obs[i] already starts the next episode; the final one is",
        '# kept in infos["final_obs"] (not "final_observation", as in gymnasium 0.29).',
        'final = infos["final_obs"][i]',
    ],
    "DISABLED": [
        "# DISABLED: obs[i] is the final observation; nothing resets by itself.",
        "final = obs[i]",
    ],
}

_MANUAL_RESET = [
    "if ended.any():",
    "    # Stepping an ended env would raise an AssertionError: reset just those.",
    '    obs, infos = envs.reset(options={"reset_mask": ended})',
]


def _indent(lines: list[str], spaces: int) -> list[str]:
    return [" " * spaces + line for line in lines]


def snippet_for(settings: AutoresetSettings) -> str:
    """A self-contained script that reruns the page's run.

    It builds a ``SyncVectorEnv`` over ``burgerbot``'s ``burgerbot_factory`` in the chosen mode,
    draws the same random actions as the page (``np.random.default_rng(seed).integers``),
    prints every episode end (``END_LINE``) and then the finished episodes per env
    (``COUNT_LINE``).
    """
    mode = settings.mode
    end_line = END_LINE.format(step="{t}", env="{i}", cause="{cause}", final="{final.tolist()}")
    count_line = COUNT_LINE.format(
        num_envs="{NUM_ENVS}", steps="{STEPS}", counts="{finished.tolist()}"
    )
    lines = [
        f'"""Auto-reset mode {mode}: when does a BurgerBot sub-environment start over?"""',
        "",
        "import gymnasium as gym",
        "import numpy as np",
        "from gymnasium.vector import AutoresetMode",
        "",
        "from burgerbot.factories import burgerbot_factory",
        "",
        f"MODE = AutoresetMode.{mode}",
        f"NUM_ENVS = {settings.num_envs}",
        f"STEPS = {settings.steps}",
        f"SEED = {settings.seed}",
        "",
        'print(f"gymnasium {gym.__version__}, autoreset_mode={MODE.name}")',
        "envs = gym.vector.SyncVectorEnv(",
        "    [burgerbot_factory() for _ in range(NUM_ENVS)], autoreset_mode=MODE",
        ")",
        "# The page's random actions: one row per step() call, one column per env.",
        "actions = np.random.default_rng(SEED).integers(0, 4, size=(STEPS, NUM_ENVS))",
        "finished = np.zeros(NUM_ENVS, dtype=np.int64)",
        "try:",
        "    obs, infos = envs.reset(seed=SEED)",
        "    for t, step_actions in enumerate(actions, start=1):",
        "        obs, rewards, terminated, truncated, infos = envs.step(step_actions)",
        "        ended = terminated | truncated",
        "        finished += ended",
        "        for i in np.flatnonzero(ended):",
        *_indent(_FINAL_OBS[mode], 12),
        '            cause = "goal" if rewards[i] == 50.0 else "hit" if terminated[i] else '
        '"truncated"',
        f'            print(f"{end_line}")',
    ]
    if mode == "DISABLED":
        lines += _indent(_MANUAL_RESET, 8)
    lines += [
        "finally:",
        "    envs.close()",
        f'print(f"{count_line}")',
        "",
    ]
    return "\n".join(lines)


FINAL_OBS_LINE = "step {step} env {env}: {final}"
"""How the exercise's answer prints one final observation (tests parse it back)."""


def final_obs_script(num_envs: int, steps: int, seed: int) -> str:
    """The exercise's answer: collect every final observation of a NEXT_STEP run.

    Same robots, seed and random actions as the page, so its output matches the page's
    table of episode ends in NEXT_STEP mode.
    """
    line = FINAL_OBS_LINE.format(step="{t}", env="{i}", final="{final.tolist()}")
    return f'''"""Collect every episode's final observation in NEXT_STEP mode (the default)."""

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from burgerbot.factories import burgerbot_factory

NUM_ENVS = {num_envs}
STEPS = {steps}
SEED = {seed}

envs = gym.vector.SyncVectorEnv(
    [burgerbot_factory() for _ in range(NUM_ENVS)], autoreset_mode=AutoresetMode.NEXT_STEP
)
# The page's random actions: one row per step() call, one column per env.
actions = np.random.default_rng(SEED).integers(0, 4, size=(STEPS, NUM_ENVS))
finals = []  # (step, env, final observation)
obs, infos = envs.reset(seed=SEED)
for t, step_actions in enumerate(actions, start=1):
    obs, rewards, terminated, truncated, infos = envs.step(step_actions)
    # NEXT_STEP: on the ending call obs[i] IS the final observation (infos holds nothing).
    # The next call resets env i and returns the start: reading obs[i] then is too late.
    for i in np.flatnonzero(terminated | truncated):
        finals.append((t, int(i), obs[i].copy()))
envs.close()

print(f"{{len(finals)}} final observations")
for t, i, final in finals:
    print(f"{line}")
'''


def infos_check_output(
    version: str, has_final_observation: bool, has_final_obs: bool, keys: tuple[str, ...]
) -> str:
    """What `infos_check_script` prints, given what it finds (the page shows it beside the script).

    >>> print(infos_check_output("1.4.0", False, True, ("final_obs",)))
    gymnasium 1.4.0
    "final_observation" in infos: False
    "final_obs" in infos: True
    sorted(infos): ['final_obs']
    """
    return (
        f"gymnasium {version}\n"
        f'"final_observation" in infos: {has_final_observation}\n'
        f'"final_obs" in infos: {has_final_obs}\n'
        f"sorted(infos): {list(keys)}"
    )


def infos_check_script(num_envs: int, seed: int, mode: str, step: int) -> str:
    """A whole script: replay the page's run up to ``step`` and print what ``infos`` holds."""
    manual = (
        "    if t < STEP and (terminated | truncated).any():\n"
        "        # DISABLED: nothing restarts by itself; reset the ended envs (as the page does).\n"
        '        envs.reset(options={"reset_mask": terminated | truncated})\n'
        if mode == "DISABLED"
        else ""
    )
    return f'''"""Does infos hold the lesson's "final_observation" at step {step}? Mode {mode}."""

import importlib.metadata

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from burgerbot.factories import burgerbot_factory

NUM_ENVS = {num_envs}
SEED = {seed}
STEP = {step}  # an episode ends on this call in the page's run

envs = gym.vector.SyncVectorEnv(
    [burgerbot_factory() for _ in range(NUM_ENVS)], autoreset_mode=AutoresetMode.{mode}
)
actions = np.random.default_rng(SEED).integers(0, 4, size=(STEP, NUM_ENVS))
obs, infos = envs.reset(seed=SEED)
for t, step_actions in enumerate(actions, start=1):
    obs, rewards, terminated, truncated, infos = envs.step(step_actions)
{manual}envs.close()

print("gymnasium", importlib.metadata.version("gymnasium"))
print(\'"final_observation" in infos:\', "final_observation" in infos)
print(\'"final_obs" in infos:\', "final_obs" in infos)
print("sorted(infos):", sorted(infos))
'''
