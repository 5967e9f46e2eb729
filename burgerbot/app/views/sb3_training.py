"""A short PPO run of Stable-Baselines3 on BurgerBot, with progress and its episodes."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from burgerbot import world
from burgerbot.app.caps import CAPS
from burgerbot.app.views.sb3 import PPO_N_STEPS, load_sb3
from burgerbot.env import BurgerBotEnv
from burgerbot.experiments import Progress
from burgerbot.factories import make_env

__all__ = ["PPOResult", "train_ppo"]


@dataclass
class PPOResult:
    """A short PPO run on BurgerBot.

    ``episodes``: one row per finished training episode (``env_steps`` when it ended,
    ``episode``, ``return``, ``length``, ``reached_goal``). ``greedy_*``: the trained
    policy followed deterministically once from the start.
    """

    num_envs: int
    n_steps: int
    total_timesteps: int
    transitions_per_update: int
    updates: int
    setup_seconds: float
    train_seconds: float
    episodes: pd.DataFrame
    greedy_return: float
    greedy_reaches_goal: bool
    greedy_steps: int
    versions: dict[str, str] = field(default_factory=dict)


def _greedy_episode(model: Any, max_steps: int = 150) -> tuple[float, bool, int]:
    env = BurgerBotEnv(max_steps=max_steps)
    obs, _ = env.reset(seed=0)
    total, reward, steps = 0.0, 0.0, 0
    for steps in range(1, max_steps + 1):  # noqa: B007 (steps is read after the loop)
        action, _ = model.predict(obs, deterministic=True)
        obs, reward, terminated, truncated, _ = env.step(int(action))
        total += float(reward)
        if terminated or truncated:
            break
    return total, reward == world.GOAL_REWARD, steps


def train_ppo(
    num_envs: int = 4,
    n_steps: int = PPO_N_STEPS,
    total_timesteps: int = 4096,
    seed: int = 0,
    progress: Progress | None = None,
) -> PPOResult:
    """Train SB3's PPO on ``make_vec_env(make_env(), n_envs=num_envs)`` on the CPU.

    ``progress(fraction, message)`` is called from an SB3 callback every few steps
    (raising from it stops training; the vector env is closed either way). torch is
    limited to one thread: the network is tiny and the machine may be shared.
    """
    if not 1 <= total_timesteps <= CAPS.max_ppo_timesteps:
        raise ValueError(
            f"`total_timesteps` must be in 1..{CAPS.max_ppo_timesteps:,}, got {total_timesteps!r}"
        )
    start = time.perf_counter()
    sb3 = load_sb3()
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    episodes: list[dict[str, Any]] = []

    class ProgressCallback(BaseCallback):
        """Reports progress and records each finished episode (from SB3's Monitor infos)."""

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                episode = info.get("episode")
                if episode is not None:
                    last = info["terminal_observation"]
                    episodes.append(
                        {
                            "env_steps": self.num_timesteps,
                            "episode": len(episodes) + 1,
                            "return": float(episode["r"]),
                            "length": int(episode["l"]),
                            "reached_goal": (int(last[0]), int(last[1])) == world.GOAL,
                        }
                    )
            if progress is not None and self.n_calls % 8 == 0:
                done = min(1.0, self.num_timesteps / total_timesteps)
                progress(done, f"PPO: {self.num_timesteps:,} of {total_timesteps:,} env-steps")
            return True

    vec_env = make_vec_env(make_env(), n_envs=num_envs, seed=seed)
    try:
        model = PPO("MlpPolicy", vec_env, n_steps=n_steps, seed=seed, device="cpu", verbose=0)
        setup_seconds = time.perf_counter() - start
        start = time.perf_counter()
        model.learn(total_timesteps=total_timesteps, callback=ProgressCallback())
        train_seconds = time.perf_counter() - start
    finally:
        vec_env.close()
    if progress is not None:
        progress(1.0, "PPO: done")
    greedy_return, greedy_reaches_goal, greedy_steps = _greedy_episode(model)
    transitions = model.n_steps * model.n_envs
    columns = ["env_steps", "episode", "return", "length", "reached_goal"]
    return PPOResult(
        num_envs=model.n_envs,
        n_steps=model.n_steps,
        total_timesteps=int(model.num_timesteps),
        transitions_per_update=transitions,
        updates=int(model.num_timesteps // transitions),
        setup_seconds=setup_seconds,
        train_seconds=train_seconds,
        episodes=pd.DataFrame(episodes, columns=columns),
        greedy_return=greedy_return,
        greedy_reaches_goal=bool(greedy_reaches_goal),
        greedy_steps=greedy_steps,
        versions={"stable-baselines3": sb3.__version__, "torch": torch.__version__},
    )
