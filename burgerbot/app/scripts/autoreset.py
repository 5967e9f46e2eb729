"""The "Auto-reset" page as a script: same mode, seed and random actions, same episode ends."""

from __future__ import annotations

from burgerbot.app.views.autoreset import AutoresetSettings

__all__ = ["COUNT_LINE", "END_LINE", "snippet_for"]

END_LINE = "end step={step} env={env} cause={cause} final_obs={final}"
"""How the script prints one episode end (tests parse it back)."""

COUNT_LINE = "finished episodes per env ({num_envs} envs, {steps} steps): {counts}"
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
    """A self-contained script that reruns the page's run and its counting experiment.

    It builds a ``SyncVectorEnv`` over ``burgerbot``'s ``make_env`` in the chosen mode,
    draws the same random actions as the page (``np.random.default_rng(seed).integers``),
    prints every episode end (``END_LINE``) and the finished episodes per env
    (``COUNT_LINE``), first for the timeline settings, then for the counting ones.
    """
    mode = settings.mode
    end_line = END_LINE.format(step="{t}", env="{i}", cause="{cause}", final="{final.tolist()}")
    count_line = COUNT_LINE.format(
        num_envs="{num_envs}", steps="{steps}", counts="{finished.tolist()}"
    )
    lines = [
        f'"""Auto-reset mode {mode}: when does a BurgerBot sub-environment start over?"""',
        "",
        "import gymnasium as gym",
        "import numpy as np",
        "from gymnasium.vector import AutoresetMode",
        "",
        "from burgerbot.factories import make_env",
        "",
        f"MODE = AutoresetMode.{mode}",
        f"NUM_ENVS = {settings.num_envs}",
        f"STEPS = {settings.steps}",
        f"SEED = {settings.seed}",
        f"COUNT_ENVS = {settings.count_envs}  # counting (the page runs all 3 modes)",
        f"COUNT_STEPS = {settings.count_steps}",
        "",
        "",
        "def run(num_envs, steps, seed, print_ends):",
        '    """Step a random agent; print each episode end; return finished episodes per env."""',
        "    envs = gym.vector.SyncVectorEnv(",
        "        [make_env() for _ in range(num_envs)], autoreset_mode=MODE",
        "    )",
        "    # The page's random actions: one row per step() call, one column per env.",
        "    actions = np.random.default_rng(seed).integers(0, 4, size=(steps, num_envs))",
        "    finished = np.zeros(num_envs, dtype=np.int64)",
        "    try:",
        "        obs, infos = envs.reset(seed=seed)",
        "        for t, step_actions in enumerate(actions, start=1):",
        "            obs, rewards, terminated, truncated, infos = envs.step(step_actions)",
        "            ended = terminated | truncated",
        "            finished += ended",
        "            for i in np.flatnonzero(ended):",
        *_indent(_FINAL_OBS[mode], 16),
        '                cause = "goal" if rewards[i] == 50.0 else "hit" if terminated[i] else '
        '"truncated"',
        "                if print_ends:",
        f'                    print(f"{end_line}")',
    ]
    if mode == "DISABLED":
        lines += _indent(_MANUAL_RESET, 12)
    lines += [
        "    finally:",
        "        envs.close()",
        f'    print(f"{count_line}")',
        "    return finished",
        "",
        "",
        'print(f"gymnasium {gym.__version__}, autoreset_mode={MODE.name}")',
        "run(NUM_ENVS, STEPS, SEED, print_ends=True)",
        "run(COUNT_ENVS, COUNT_STEPS, SEED, print_ends=False)",
        "",
    ]
    return "\n".join(lines)
