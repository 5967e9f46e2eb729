"""The "Batch shapes" page as a script: same env, seed and random actions, same final batch."""

from __future__ import annotations

from burgerbot.app.labels import BACKEND_CLASSES, BACKEND_NAMES
from burgerbot.app.logic.batch_shapes import BatchSettings

__all__ = ["snippet_for"]


def _builder(settings: BatchSettings) -> tuple[list[str], list[str]]:
    """(imports, lines that make ``envs``) for the settings' env and backend."""
    if settings.env == "BurgerBot":
        if settings.backend == "native":
            return (
                ["from burgerbot import BurgerBotVectorEnv"],
                [
                    "# BurgerBotVectorEnv is this project's class, not part of Gymnasium: all",
                    "# robots live in one set of numpy arrays, with no per-env Python loop.",
                    "envs = BurgerBotVectorEnv(num_envs=NUM_ENVS)",
                ],
            )
        imports = ["from burgerbot.factories import make_env"]
        thunks = "[make_env() for _ in range(NUM_ENVS)]"
        comment = "# make_env() returns a zero-argument function; the vector env calls each one."
    else:
        if settings.backend == "native":
            return (
                [],
                [
                    "# gymnasium's own natively batched CartPole (CartPoleVectorEnv).",
                    "envs = gym.make_vec("
                    'ENV_ID, num_envs=NUM_ENVS, vectorization_mode="vector_entry_point")',
                ],
            )
        imports = []
        thunks = "[lambda: gym.make(ENV_ID) for _ in range(NUM_ENVS)]"
        comment = "# One zero-argument function per copy; the vector env calls each one."
    cls = BACKEND_CLASSES[settings.backend]
    if settings.backend == "async":
        lines = [
            comment,
            '# "spawn" starts each worker as a fresh Python process (one per env).',
            f"envs = gym.vector.{cls}(",
            f'    {thunks}, context="spawn"',
            ")",
        ]
    else:
        lines = [comment, f"envs = gym.vector.{cls}({thunks})"]
    return imports, lines


def snippet_for(settings: BatchSettings, steps: int = 0) -> str:
    """A self-contained script that rebuilds the page's vector env and one of its calls.

    It resets with the seed, seeds the action space the same way, steps ``STEPS`` times
    with ``envs.action_space.sample()`` and prints the final batches. ``STEPS`` starts at
    ``steps``; the page's live view says which value gives the call it shows, so the script
    can stay the same from one step click to the next.
    """
    steps = max(0, int(steps))
    imports, build = _builder(settings)
    constants = []
    if settings.env != "BurgerBot":
        constants.append(f'ENV_ID = "{settings.env}"')
    constants += [
        f"NUM_ENVS = {settings.num_envs}",
        f"SEED = {settings.seed}",
        "# The page's latest call is 'step N since the reset': STEPS = N gives that call.",
        f"STEPS = {steps}",
    ]
    body = [
        *build,
        "try:",
        "    observations, infos = envs.reset(seed=SEED)",
        "    envs.action_space.seed(SEED)  # the same random actions on every run",
        "    for _ in range(STEPS):",
        "        actions = envs.action_space.sample()  # shape (NUM_ENVS,): one per env",
        "        observations, rewards, terminated, truncated, infos = envs.step(actions)",
        '    print("observations:", observations.tolist())',
        '    print("shape:", observations.shape)',
        '    print("dtype:", observations.dtype)',
        "    if STEPS:",
        '        print("actions:", actions.tolist())',
        '        print("rewards:", rewards.tolist())',
        '        print("terminated:", terminated.tolist())',
        '        print("truncated:", truncated.tolist())',
        "    else:",
        '        print("(no step yet: only reset() was called)")',
        '    print("infos:", infos)',
        "finally:",
        "    envs.close()  # stops worker processes, if any",
    ]
    label = BACKEND_NAMES[settings.backend]
    article = "an" if label[0] in "AEIOUaeiou" else "a"
    header = [
        f'"""{settings.num_envs} x {settings.env} in {article} {label} vector env: '
        f'reset(seed={settings.seed}), then STEPS random steps."""',
        "",
        "import gymnasium as gym",
        *imports,
        "",
        *constants,
        "",
        "",
        "def main() -> None:",
    ]
    footer = [
        "",
        "",
        '# The guard matters for AsyncVectorEnv: each "spawn" worker imports this file.',
        'if __name__ == "__main__":',
        "    main()",
    ]
    indented = [("    " + line) if line else "" for line in body]
    return "\n".join(header + indented + footer) + "\n"
