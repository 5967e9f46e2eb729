"""Where the lesson and the installed libraries agree or differ, each checked by running it."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from burgerbot.app.script_runner import ScriptRun, run_script
from burgerbot.app.scripts import sb3 as sb3_snippets
from burgerbot.baseline import StraightforwardBurgerBot
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import make_env
from burgerbot.vector import BurgerBotVectorEnv

__all__ = ["CHECKS", "Check", "LessonCheck", "run_check"]


@dataclass
class Check:
    """The outcome of one live check."""

    verdict: str  # "changed", "still true", "depends" (on the machine) or "not run"
    facts: dict[str, Any] = field(default_factory=dict)
    summary: str = ""


@dataclass(frozen=True)
class LessonCheck:
    """A claim of the lesson, and the function whose run tests it against installed versions."""

    topic: str
    lesson_says: str
    run: Callable[[], Check]
    packages: tuple[str, ...] = ("gymnasium",)
    script: Callable[[], str] | None = None
    """A script the check runs as it is (shown instead of the check's own source)."""

    @property
    def source(self) -> str:
        """The code that runs, shown to the learner as it is."""
        return self.script() if self.script else inspect.getsource(self.run)


def run_check(check: LessonCheck) -> Check:
    """Run one check; an unexpected error becomes a 'not run' outcome with its message."""
    try:
        return check.run()
    except Exception as error:  # the page must keep working whatever a library does
        return Check("not run", {"error": f"{type(error).__name__}: {error}"}, str(error))


def autoreset_timing() -> Check:
    envs = gym.vector.SyncVectorEnv([make_env() for _ in range(2)])
    try:
        envs.reset(seed=0)
        envs.step(np.array([1, 3]))  # env 0 turns to face north, env 1 stops
        obs, rewards, terminated, truncated, infos = envs.step(np.array([0, 3]))  # into the wall
        ending = {"obs": obs[0].tolist(), "reward": float(rewards[0]), "ended": bool(terminated[0])}
        obs, rewards, terminated, truncated, infos = envs.step(np.array([0, 3]))  # the next call
        after = {"obs": obs[0].tolist(), "reward": float(rewards[0]), "ended": bool(terminated[0])}
    finally:
        envs.close()
    start = [0, 0, 1, 1]
    changed = ending["obs"] != start and after["obs"] == start and after["reward"] == 0.0
    summary = (
        f"On the ending step env 0 returned {ending['obs']} (reward {ending['reward']}), its "
        f"final observation, not a fresh start. The next call returned {after['obs']} with "
        f"reward {after['reward']}: that call reset env 0 and ignored its action."
    )
    return Check("changed" if changed else "still true", {"ending": ending, "next": after}, summary)


def final_observation_key() -> Check:
    keys = {}
    for mode in ("NextStep", "SameStep"):
        envs = gym.vector.SyncVectorEnv([make_env() for _ in range(2)], autoreset_mode=mode)
        try:
            envs.reset(seed=0)
            envs.step(np.array([1, 3]))
            *_, infos = envs.step(np.array([0, 3]))  # env 0 ends on this call
            keys[mode] = sorted(infos)
        finally:
            envs.close()
    has_old_key = any("final_observation" in k for k in keys.values())
    summary = (
        f"Keys of `infos` on the ending step: NEXT_STEP (the default) {keys['NextStep']}; "
        f"SAME_STEP {keys['SameStep']}. `final_observation` is "
        f"{'still there' if has_old_key else 'gone'}."
    )
    return Check("still true" if has_old_key else "changed", keys, summary)


def factory_pattern_with_cartpole() -> Check:
    def make_cartpole(seed):
        def thunk():
            env = gym.make("CartPole-v1")
            env.reset(seed=seed)
            return env

        return thunk

    envs = gym.vector.SyncVectorEnv([make_cartpole(seed) for seed in range(4)])
    try:
        obs, infos = envs.reset(seed=0)
        actions = envs.action_space.sample()
        obs, rewards, terminated, truncated, infos = envs.step(actions)
    finally:
        envs.close()
    facts = {
        "obs": f"{obs.shape} {obs.dtype}",
        "actions": f"{actions.shape} {actions.dtype}",
        "rewards": f"{rewards.shape} {rewards.dtype}",
        "terminated": f"{terminated.shape} {terminated.dtype}",
    }
    holds = obs.shape == (4, 4) and actions.shape == (4,) and rewards.shape == (4,)
    summary = ", ".join(f"{name} {value}" for name, value in facts.items())
    return Check("still true" if holds else "changed", facts, summary)


def goal_counts_at_lesson_scale() -> Check:
    runs, steps = 400, 500  # 400 learners each run the experiment once
    facts = {}
    for num_envs in (4, 8):
        # All runs at once: run r owns envs r*num_envs .. (r+1)*num_envs - 1.
        envs = BurgerBotVectorEnv(runs * num_envs)
        rng = np.random.default_rng(num_envs)
        goals = np.zeros(runs * num_envs, dtype=np.int64)
        envs.reset(seed=0)
        for _ in range(steps):
            _, rewards, _, _, _ = envs.step(rng.integers(0, 4, runs * num_envs))
            goals += rewards == 50.0
        envs.close()
        per_run = goals.reshape(runs, num_envs).sum(axis=1)
        facts[f"N={num_envs}"] = {
            "mean goals": float(per_run.mean()),
            "runs with 0 goals": float((per_run == 0).mean()),
        }
    n4, n8 = facts["N=4"], facts["N=8"]
    summary = (
        f"{runs} simulated learners each ran {steps} random steps. With 4 envs they averaged "
        f"{n4['mean goals']:.3f} goals and {n4['runs with 0 goals']:.0%} saw none; with 8 envs "
        f"{n8['mean goals']:.3f}, and {n8['runs with 0 goals']:.0%} saw none. Doubling holds "
        "for the average, but one run almost always shows 0 goals for both."
    )
    mostly_zero = n4["runs with 0 goals"] > 0.5 and n8["runs with 0 goals"] > 0.5
    return Check("changed" if mostly_zero else "still true", facts, summary)


def speed_claim() -> Check:
    def steps_per_second(env, actions):
        env.reset(seed=0)
        start = time.perf_counter()
        for action in actions:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        return len(actions) / (time.perf_counter() - start)

    actions = np.random.default_rng(0).integers(0, 4, 100_000).tolist()
    straightforward = steps_per_second(StraightforwardBurgerBot(), actions)
    single = steps_per_second(BurgerBotEnv(), actions)
    envs = BurgerBotVectorEnv(4096)
    batch = np.random.default_rng(0).integers(0, 4, (200, 4096))
    envs.reset(seed=0)
    start = time.perf_counter()
    for step_actions in batch:
        envs.step(step_actions)
    native = batch.size / (time.perf_counter() - start)
    envs.close()
    facts = {
        "a straightforward BurgerBot, steps/s": straightforward,
        "BurgerBotEnv (table look-ups), steps/s": single,
        "BurgerBotVectorEnv N=4096, env-steps/s": native,
    }
    summary = (
        f"On this server, in a plain loop: a straightforward BurgerBot (attributes, if/else "
        f"and a sensor loop, as a learner would write it) {straightforward:,.0f} steps/s; this "
        f"app's BurgerBotEnv, which steps by table look-up, {single:,.0f} steps/s. The "
        f"natively batched version at 4,096 envs: {native:,.0f} env-steps/s."
    )
    return Check("still true" if straightforward >= 1e6 else "depends", facts, summary)


SB3_MISSING = Check(
    "not run",
    {"stable-baselines3": None},
    "stable-baselines3 is not installed here. Install the optional extra "
    "(pip install -r requirements-sb3.txt) to run this check.",
)


def _run_sb3_script(script: str) -> ScriptRun | None:
    # Imported here so that tests can hide SB3 by patching views.sb3.sb3_available.
    from burgerbot.app.views.sb3 import sb3_available

    return run_script(script) if sb3_available() else None


def sb3_n_envs() -> Check:
    result = _run_sb3_script(sb3_snippets.n_envs_wrong(4))
    if result is None:
        return SB3_MISSING
    if result.error is None:
        return Check("still true", {"error": None}, "PPO accepted n_envs=4.")
    facts = {"error": result.error.headline}
    return Check("changed", facts, f"PPO refused it: {facts['error']}")


def sb3_gymnasium_vector_env() -> Check:
    result = _run_sb3_script(sb3_snippets.gymnasium_vector_wrong(4))
    if result is None:
        return SB3_MISSING
    if result.error is None:
        facts = {"error": None, "where": None}
        return Check("still true", facts, "PPO accepted a Gymnasium SyncVectorEnv.")
    facts = {"error": result.error.headline, "where": result.error.location}
    summary = (
        f"PPO refused a Gymnasium SyncVectorEnv with {result.error.type}. SB3 needs its own "
        "VecEnv: build one with make_vec_env (DummyVecEnv or SubprocVecEnv)."
    )
    return Check("changed", facts, summary)


def sb3_transitions_per_update() -> Check:
    result = _run_sb3_script(sb3_snippets.ppo_fixed(4, 2048))
    if result is None:
        return SB3_MISSING
    if result.error is not None:
        return Check("not run", {"error": result.error.message}, result.error.message)
    lines = dict(line.rsplit(": ", 1) for line in result.output.splitlines() if ": " in line)
    per_update = int(lines["transitions per update"])
    facts = {"printed": lines}
    summary = (
        f"With 4 envs and PPO's default n_steps=2048, one update collects {per_update:,} "
        "transitions: n_steps counts step() calls per environment, so 2,048 calls fill it."
    )
    return Check("changed" if per_update != 2048 else "still true", facts, summary)


CHECKS = [
    LessonCheck(
        "The factory pattern and batch shapes",
        "A list of zero-argument callables goes into SyncVectorEnv; with 4 CartPoles, reset "
        "gives observations of shape (4, 4), a sampled action has shape (4,), and step gives "
        "4 rewards and 4 terminated flags.",
        factory_pattern_with_cartpole,
    ),
    LessonCheck(
        "When an episode ends, what does step() return?",
        "The observation returned on the ending step already belongs to the next episode: the "
        "environment has reset itself inside that same call.",
        autoreset_timing,
    ),
    LessonCheck(
        "Where is the last observation of an episode?",
        'It is kept in infos["final_observation"].',
        final_observation_key,
    ),
    LessonCheck(
        "Goal counts with 4 and 8 environments",
        "Run 500 random steps with 4 BurgerBots, then 8: the number of goals should roughly "
        "double.",
        goal_counts_at_lesson_scale,
    ),
    LessonCheck(
        "How fast is BurgerBot?",
        "BurgerBot can step about a million times per second.",
        speed_claim,
        ("gymnasium", "numpy"),
    ),
    LessonCheck(
        "Telling PPO how many environments to use",
        'Pass n_envs=4 to PPO: PPO("MlpPolicy", env, n_envs=4).',
        sb3_n_envs,
        ("stable-baselines3",),
        lambda: sb3_snippets.n_envs_wrong(4),
    ),
    LessonCheck(
        "Giving PPO a Gymnasium vector env",
        "Stable-Baselines3 is built on the vector-env pattern, so a vector env of N copies can "
        "be handed to PPO.",
        sb3_gymnasium_vector_env,
        ("stable-baselines3", "gymnasium"),
        lambda: sb3_snippets.gymnasium_vector_wrong(4),
    ),
    LessonCheck(
        "How many step() calls fill a PPO update",
        "PPO collects 2048 steps per update; with 4 envs that takes 512 step() calls.",
        sb3_transitions_per_update,
        ("stable-baselines3",),
        lambda: sb3_snippets.ppo_fixed(4, 2048),
    ),
]
