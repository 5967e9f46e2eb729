"""Seeding sub-environments, run live: what ``envs.reset(seed=...)`` and the factories' seeds do.

CartPole-v1 draws its start state from its seed, so it shows env seeding; BurgerBot draws
nothing from its seed (`burgerbot.env.BurgerBotEnv.reset` always starts at [0, 0, 1, 1] and
`step` uses no random numbers), so on BurgerBot only the actions are random:
``envs.action_space.seed``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium.vector import SyncVectorEnv

from burgerbot.env import BurgerBotEnv
from burgerbot.factories import make_env

__all__ = [
    "CARTPOLE",
    "FACTORY_SEED",
    "SEEDING_ENVS",
    "BurgerBotSeedCheck",
    "SeedingDemo",
    "action_seeding",
    "action_seeding_sentence",
    "burgerbot_seed_check",
    "burgerbot_seed_sentence",
    "factory_reseeding",
    "factory_sentence",
    "lean_policy",
    "reset_seeds",
    "reset_seeds_sentence",
    "same_seed_sentence",
    "same_seed_trajectories",
    "seeding_demo",
]

CARTPOLE = "CartPole-v1"
SEEDING_ENVS = 3
"""Sub-environments in every seeding demo (enough to see s, s + 1, s + 2)."""
FACTORY_SEED = 1000
"""The lesson-style factory seeds sub-env i with ``FACTORY_SEED + i`` inside its thunk."""
MAX_POLICY_STEPS = 500


def _start(seed: int | None, then_unseeded: bool = False) -> np.ndarray:
    """CartPole's start after ``reset(seed=seed)`` (and, if asked, one more plain reset)."""
    env = gym.make(CARTPOLE)
    obs, _ = env.reset(seed=seed)
    if then_unseeded:
        obs, _ = env.reset()
    env.close()
    return obs


def _cartpoles(num_envs: int, thunk: Callable[[int], Callable[[], gym.Env]] | None = None):
    fns = [thunk(i) if thunk else (lambda: gym.make(CARTPOLE)) for i in range(num_envs)]
    return SyncVectorEnv(fns)


def _text(obs: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:+.4f}" for v in obs) + "]"


def reset_seeds(seed: int, num_envs: int = SEEDING_ENVS) -> pd.DataFrame:
    """``envs.reset(seed=seed)``: is sub-env i's start the one ``reset(seed=seed + i)`` gives?"""
    envs = _cartpoles(num_envs)
    obs, _ = envs.reset(seed=seed)
    envs.close()
    rows = []
    for i in range(num_envs):
        matches = {k: bool(np.array_equal(obs[i], _start(seed + k))) for k in range(num_envs)}
        rows.append(
            {
                "sub-env": i,
                "start from envs.reset(seed=s)": _text(obs[i]),
                "same start as a single env's reset(seed=…)": ", ".join(
                    f"s + {k}" for k, same in matches.items() if same
                )
                or "none of s … s + " + str(num_envs - 1),
            }
        )
    return pd.DataFrame(rows)


def lean_policy(obs: np.ndarray) -> np.ndarray:
    """A fixed policy that reads the observation: push the cart the way the pole leans."""
    return (obs[:, 2] > 0).astype(np.int64)


def _first_episodes(seeds: int | list[int], num_envs: int) -> list[np.ndarray]:
    """Each sub-env's first episode (its observations) under `lean_policy`."""
    envs = _cartpoles(num_envs)
    obs, _ = envs.reset(seed=seeds)
    paths = [[o] for o in obs]
    done = np.zeros(num_envs, dtype=bool)
    for _ in range(MAX_POLICY_STEPS):
        obs, _, terminated, truncated, _ = envs.step(lean_policy(obs))
        for i in np.flatnonzero(~done):
            paths[i].append(obs[i])
        done |= terminated | truncated
        if done.all():
            break
    envs.close()
    return [np.array(p) for p in paths]


def same_seed_trajectories(seed: int, num_envs: int = SEEDING_ENVS) -> pd.DataFrame:
    """One seed for every sub-env vs ``seed=s``: the first episodes under one fixed policy."""
    rows = []
    for label, seeds in (
        (f"reset(seed=[{seed}] * {num_envs})", [seed] * num_envs),
        (f"reset(seed={seed})", seed),
    ):
        paths = _first_episodes(seeds, num_envs)
        for i, path in enumerate(paths):
            rows.append(
                {
                    "call": label,
                    "sub-env": i,
                    "seed it got": seeds[i] if isinstance(seeds, list) else seed + i,
                    "episode length": len(path) - 1,
                    "identical to sub-env 0": path.shape == paths[0].shape
                    and bool(np.array_equal(path, paths[0])),
                }
            )
    return pd.DataFrame(rows)


def _lesson_factory(seed: int) -> Callable[[], gym.Env]:
    def thunk() -> gym.Env:
        env = gym.make(CARTPOLE)
        env.reset(seed=seed)
        return env

    return thunk


def factory_reseeding(seed: int, num_envs: int = SEEDING_ENVS) -> pd.DataFrame:
    """The factory seeds sub-env i with ``FACTORY_SEED + i``; then ``envs.reset`` runs.

    With ``seed=s`` every start is seed ``s + i``'s; with no seed each env goes on from the
    generator its factory seeded (the second start of seed ``FACTORY_SEED + i``).
    """
    rows = []
    for call, reset_seed in ((f"envs.reset(seed={seed})", seed), ("envs.reset()", None)):
        envs = _cartpoles(num_envs, lambda i: _lesson_factory(FACTORY_SEED + i))
        obs, _ = envs.reset(seed=reset_seed)
        envs.close()
        for i in range(num_envs):
            factory = FACTORY_SEED + i
            rows.append(
                {
                    "call after the factories": call,
                    "sub-env": i,
                    "factory's seed": factory,
                    "start": _text(obs[i]),
                    f"= reset(seed={seed} + i)": bool(np.array_equal(obs[i], _start(seed + i))),
                    "= factory seed's next start": bool(
                        np.array_equal(obs[i], _start(factory, then_unseeded=True))
                    ),
                }
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class BurgerBotSeedCheck:
    """BurgerBot with two seeds: the starts, the same actions' trajectories, numbers drawn."""

    seeds: tuple[int, int]
    starts: tuple[str, str]
    same_trajectory: bool
    steps: int
    generator_untouched: bool
    """The env's ``np_random`` state is the same after ``steps`` steps as after reset."""


def burgerbot_seed_check(seed: int, steps: int = 50) -> BurgerBotSeedCheck:
    """Reset BurgerBot with ``seed`` and ``seed + 1``, replay the same actions on both."""
    actions = np.random.default_rng(seed).integers(0, 4, size=steps)
    starts, paths, untouched = [], [], True
    for s in (seed, seed + 1):
        env = BurgerBotEnv(max_steps=steps + 1)
        obs, _ = env.reset(seed=s)
        starts.append("[" + ", ".join(str(int(v)) for v in obs) + "]")
        state = env.np_random.bit_generator.state
        path = [obs]
        for action in actions:
            obs, _, terminated, _, _ = env.step(int(action))
            path.append(obs)
            if terminated:
                obs, _ = env.reset()
        untouched &= env.np_random.bit_generator.state == state
        paths.append(np.array(path))
    return BurgerBotSeedCheck(
        seeds=(seed, seed + 1),
        starts=(starts[0], starts[1]),
        same_trajectory=bool(np.array_equal(paths[0], paths[1])),
        steps=steps,
        generator_untouched=bool(untouched),
    )


def action_seeding(seed: int, num_envs: int = SEEDING_ENVS, calls: int = 5) -> pd.DataFrame:
    """``envs.action_space.sample()`` on BurgerBots twice, with and without ``action_space.seed``.

    Every run first calls ``envs.reset(seed=seed)``: that alone does not fix the actions.
    """
    rows = []
    for label, seeded in (
        (f"envs.action_space.seed({seed})", True),
        (f"envs.reset(seed={seed}) only", False),
    ):
        runs = []
        for _ in range(2):
            envs = SyncVectorEnv([make_env() for _ in range(num_envs)])
            envs.reset(seed=seed)
            if seeded:
                envs.action_space.seed(seed)
            runs.append(np.array([envs.action_space.sample() for _ in range(calls)]))
            envs.close()
        rows.append(
            {
                "before sampling": label,
                "run 1: actions per step() call": str(runs[0].tolist()),
                "run 2": str(runs[1].tolist()),
                "same both times": bool(np.array_equal(runs[0], runs[1])),
            }
        )
    return pd.DataFrame(rows)


# --- What the page says about each demo (computed from the tables above) ---------------------


def reset_seeds_sentence(table: pd.DataFrame) -> str:
    """Whether sub-env i got seed s + i, as the live run shows."""
    expected = [f"s + {i}" for i in table["sub-env"]]
    got = table["same start as a single env's reset(seed=…)"].tolist()
    if got == expected:
        return (
            f"Each of the {len(table)} sub-envs started exactly where one CartPole started "
            "with `reset(seed=s + i)`: one seed for the vector env became s, s + 1, s + 2, …"
        )
    return (
        "Here the starts do not line up with s, s + 1, …: "
        + "; ".join(f"sub-env {i}: {g}" for i, g in zip(table["sub-env"], got, strict=True))
        + "."
    )


def same_seed_sentence(table: pd.DataFrame) -> str:
    """How many sub-envs repeat sub-env 0's episode, with one seed for all and with ``seed=s``."""
    parts = []
    for call, rows in table.groupby("call", sort=False):
        copies = int(rows["identical to sub-env 0"].iloc[1:].sum())
        others = len(rows) - 1
        if copies == others:
            everyone = {1: "the other sub-env replays", 2: "both other sub-envs replay"}.get(
                others, f"all {others} other sub-envs replay"
            )
            parts.append(f"with `{call}` {everyone} sub-env 0's episode")
        elif copies == 0:
            parts.append(f"with `{call}` no other sub-env repeats sub-env 0's episode")
        else:
            parts.append(f"with `{call}` {copies} of {others} repeat sub-env 0's episode")
    return (
        "Under one fixed policy that reads the observation, "
        + "; ".join(parts)
        + ". Identical sub-envs add rows to the batch but no new experience."
    )


def factory_sentence(table: pd.DataFrame, seed: int) -> str:
    """What ``envs.reset`` did to the seeds the factories set, from the live comparison."""
    parts = []
    for call, rows in table.groupby("call after the factories", sort=False):
        by_reset = bool(rows[f"= reset(seed={seed} + i)"].all())
        by_factory = bool(rows["= factory seed's next start"].all())
        if by_reset and not by_factory:
            parts.append(
                f"`{call}` re-seeded every sub-env with seed {seed} + i: the factories' seeds "
                "no longer matter"
            )
        elif by_factory and not by_reset:
            parts.append(
                f"`{call}` left the factories' generators running: each sub-env drew "
                "its next start from the seed its thunk set"
            )
        else:
            parts.append(
                f"`{call}` gave starts that match "
                + ("both" if by_reset and by_factory else "neither pattern in full")
            )
    return "; ".join(parts) + "."


def burgerbot_seed_sentence(check: BurgerBotSeedCheck) -> str:
    """What BurgerBot does with its seed, from the live check."""
    a, b = check.seeds
    if check.starts[0] == check.starts[1] and check.same_trajectory and check.generator_untouched:
        return (
            f"`reset(seed={a})` and `reset(seed={b})` both start at {check.starts[0]}; the same "
            f"{check.steps} actions give the same trajectory with either seed, and the env's "
            "`np_random` generator is in the same state after them as after the reset: "
            "BurgerBot draws no random number at all. Only the actions are random."
        )
    return (
        f"Seeds {a} and {b}: starts {check.starts[0]} and {check.starts[1]}, same trajectory "
        f"{check.same_trajectory}, generator untouched {check.generator_untouched}: this "
        "BurgerBot does draw from its seed."
    )


def action_seeding_sentence(table: pd.DataFrame) -> str:
    """Whether each way of seeding repeated the actions."""
    seeded, unseeded = (bool(v) for v in table["same both times"])
    first = "repeated" if seeded else "did not repeat"
    second = "repeated too" if unseeded else "differed between the two runs"
    return (
        f"Seeding `envs.action_space` {first} the random actions; with only "
        f"`envs.reset(seed=...)` they {second}: the reset seeds the sub-envs, not the "
        "vector env's action space."
    )


@dataclass(frozen=True)
class SeedingDemo:
    """Every seeding demo for one seed, with what the page says about each."""

    reset: pd.DataFrame
    reset_text: str
    same: pd.DataFrame
    same_text: str
    factory: pd.DataFrame
    factory_text: str
    burgerbot: BurgerBotSeedCheck
    burgerbot_text: str
    action: pd.DataFrame
    action_text: str


def seeding_demo(seed: int) -> SeedingDemo:
    """Run all the seeding demos live for ``seed`` (a few milliseconds of CartPole resets)."""
    reset, same, factory = reset_seeds(seed), same_seed_trajectories(seed), factory_reseeding(seed)
    check, action = burgerbot_seed_check(seed), action_seeding(seed)
    return SeedingDemo(
        reset=reset,
        reset_text=reset_seeds_sentence(reset),
        same=same,
        same_text=same_seed_sentence(same),
        factory=factory,
        factory_text=factory_sentence(factory, seed),
        burgerbot=check,
        burgerbot_text=burgerbot_seed_sentence(check),
        action=action,
        action_text=action_seeding_sentence(action),
    )
