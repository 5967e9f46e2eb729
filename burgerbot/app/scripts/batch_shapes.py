"""The "Batch shapes" page as a script: same env, seed and random actions, same final batch."""

from __future__ import annotations

from burgerbot.app.labels import BACKEND_CLASSES, BACKEND_NAMES
from burgerbot.app.logic.batch_shapes import BatchSettings

__all__ = ["PROB_PITFALL", "snippet_for"]


def _builder(settings: BatchSettings) -> tuple[list[str], list[str], list[str]]:
    """(imports, the lesson's ``make_env(seed)`` or nothing, lines that make ``envs``) for
    the settings' env and backend. Sync and Async take one ``make_env(i)`` per env; the native
    classes need no factory."""
    if settings.backend == "native":
        if settings.env == "BurgerBot":
            return (
                ["from burgerbot import BurgerBotVectorEnv"],
                [],
                [
                    "# This project's class: all robots in one set of numpy arrays.",
                    "envs = BurgerBotVectorEnv(num_envs=NUM_ENVS)",
                ],
            )
        return (
            [],
            [],
            [
                "# Gymnasium's CartPoleVectorEnv: all carts in one set of numpy arrays.",
                "envs = gym.make_vec("
                'ENV_ID, num_envs=NUM_ENVS, vectorization_mode="vector_entry_point")',
            ],
        )
    burgerbot = settings.env == "BurgerBot"
    imports = ["from burgerbot import BurgerBotEnv"] if burgerbot else []
    factory = [
        "def make_env(seed):",
        '    """The factory: returns a zero-argument function that builds one env."""',
        "",
        "    def thunk():",
        f"        env = {'BurgerBotEnv()' if burgerbot else 'gym.make(ENV_ID)'}",
        "        env.reset(seed=seed)",
        "        return env",
        "",
        "    return thunk",
    ]
    cls = BACKEND_CLASSES[settings.backend]
    return imports, factory, [f"envs = gym.vector.{cls}([make_env(i) for i in range(NUM_ENVS)])"]


def snippet_for(settings: BatchSettings, steps: int = 0) -> str:
    """A self-contained script that rebuilds the page's vector env and one of its calls.

    It resets with the seed, seeds the action space the same way, steps ``STEPS`` times
    with ``envs.action_space.sample()`` and prints the final batches. ``STEPS`` starts at
    ``steps`` (0 on the page: each call the page shows names the value that gives it, so the
    script stays the same whichever call the learner has stepped to).
    """
    steps = max(0, int(steps))
    imports, factory, build = _builder(settings)
    constants = []
    if settings.env != "BurgerBot":
        constants.append(f'ENV_ID = "{settings.env}"')
    constants += [
        f"NUM_ENVS = {settings.num_envs}",
        f"SEED = {settings.seed}",
        "# Each call the page shows names the STEPS that gives it ('step N': STEPS = N).",
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
        *([*factory, "", ""] if factory else []),
        "def main() -> None:",
    ]
    guard = (
        ["# The guard matters for AsyncVectorEnv: its worker processes may import this file."]
        if settings.backend == "async"
        else []
    )
    footer = [
        "",
        "",
        *guard,
        'if __name__ == "__main__":',
        "    main()",
    ]
    indented = [("    " + line) if line else "" for line in body]
    return "\n".join(header + indented + footer) + "\n"


PROB_PITFALL = '''"""FrozenLake's infos["prob"]: when env 0 auto-resets first (the int 1), the
batched array is int64 and the other envs' 1/3 become 0. FloatProb keeps the values."""

import gymnasium as gym
import numpy as np

NUM_ENVS = 4
SEED = 0


def make_env(seed):
    """The factory: returns a zero-argument function that builds one env."""

    def thunk():
        env = gym.make("FrozenLake-v1")
        env.reset(seed=seed)
        return env

    return thunk


class FloatProb(gym.Wrapper):
    """The same env, reporting info["prob"] as a float after reset and step alike."""

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        return observation, {**info, "prob": float(info["prob"])}

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        return observation, reward, terminated, truncated, {**info, "prob": float(info["prob"])}


def with_float_prob(thunk):
    """The same zero-argument function, its env wrapped in FloatProb."""
    return lambda: FloatProb(thunk())


plain = gym.vector.SyncVectorEnv([make_env(i) for i in range(NUM_ENVS)])
safe = gym.vector.SyncVectorEnv([with_float_prob(make_env(i)) for i in range(NUM_ENVS)])
plain.reset(seed=SEED)
safe.reset(seed=SEED)  # the same seeds: the same slips, so the same walks
rng = np.random.default_rng(SEED)
ended_before = np.zeros(NUM_ENVS, dtype=bool)
for call in range(1, 1001):
    actions = rng.integers(0, 4, size=NUM_ENVS)
    _, _, terminated, truncated, plain_infos = plain.step(actions)
    _, _, _, _, safe_infos = safe.step(actions)
    if ended_before[0]:  # env 0 was auto-reset in this call: its info came first
        break
    ended_before = terminated | truncated
plain.close()
safe.close()
print("call:", call, "(env 0 auto-reset in it)")
print("plain prob dtype:", plain_infos["prob"].dtype)
print("plain prob:", plain_infos["prob"].tolist())
print("FloatProb prob dtype:", safe_infos["prob"].dtype)
print("FloatProb prob:", np.round(safe_infos["prob"], 3).tolist())
'''
"""A whole script: the ``prob`` dtype pitfall, and a wrapper that reads such infos safely."""
