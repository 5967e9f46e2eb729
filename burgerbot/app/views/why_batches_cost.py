"""Where a training run's time goes, per env-step: measured, never typed in.

One plain `BurgerBotEnv.step()` costs a few microseconds. A training step costs far more at
NUM_ENVS=1: choosing the actions and updating the table are a handful of numpy calls per
``step()`` call whose cost hardly grows with N. A batch shares that cost out, which is what
the page's throughput numbers show.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np

from burgerbot.app.glossary import term_link
from burgerbot.app.views.why_batches_reading import SAME_BAND
from burgerbot.env import BurgerBotEnv

__all__ = ["cost_text", "plain_step_microseconds"]


def plain_step_microseconds(seconds: float = 0.2, seed: int = 0) -> float:
    """Microseconds per step of a plain loop of random actions on one `BurgerBotEnv`.

    Resets (after an episode ends) are part of the loop and of its time, as in any loop
    that keeps collecting transitions. Runs for about ``seconds``.

    Example:
        >>> 0 < plain_step_microseconds(seconds=0.01) < 10_000
        True
    """
    env = BurgerBotEnv()
    actions = np.random.default_rng(seed).integers(0, 4, size=4096).tolist()
    steps, elapsed = 0, 0.0
    try:
        env.reset(seed=seed)
        while elapsed < seconds:
            start = time.perf_counter()
            for action in actions:
                _, _, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    env.reset()
            elapsed += time.perf_counter() - start
            steps += len(actions)
    finally:
        env.close()
    return elapsed / steps * 1e6


def cost_text(env_steps_per_s: Mapping[int, float], plain_us: float) -> str | None:
    """Microseconds per env-step of training at the smallest and largest NUM_ENVS, in words.

    ``env_steps_per_s`` maps NUM_ENVS to the run's median training speed; ``plain_us`` is
    `plain_step_microseconds` measured beside it. None with no usable speed.

    Example:
        >>> print(cost_text({1: 5_000, 16: 40_000}, plain_us=3.0))  # doctest: +ELLIPSIS
        Per [env-step](glossary#env-step), training took **200.0 µs** with NUM_ENVS=1 and ...
    """
    usable = {n: s for n, s in env_steps_per_s.items() if 0 < s < float("inf")}
    if not usable:
        return None
    n_small, n_large = min(usable), max(usable)
    small_us, large_us = 1e6 / usable[n_small], 1e6 / usable[n_large]
    plain = (
        f"A plain loop over one `BurgerBotEnv` took **{plain_us:.1f} µs** per step on the same "
        "machine just before"
    )
    if n_small == n_large:
        return (
            f"Per env-step, training took **{small_us:.1f} µs** with NUM_ENVS={n_small}. "
            f"{plain}: the rest is choosing actions and updating the table."
        )
    head = (
        f"Per {term_link('env-step')}, training took **{small_us:.1f} µs** with NUM_ENVS="
        f"{n_small} and **{large_us:.1f} µs** with NUM_ENVS={n_large}. {plain}"
    )
    share = 1 - plain_us / small_us
    per_call = (
        f"One call cost {small_us * n_small:,.0f} µs with NUM_ENVS={n_small} and "
        f"{large_us * n_large:,.0f} µs with NUM_ENVS={n_large}: {n_large / n_small:g}x the "
        f"transitions for {large_us * n_large / (small_us * n_small):.1f}x the cost."
    )
    if large_us * SAME_BAND < small_us and share > 0.5:
        part = "over 99%" if share > 0.99 else f"about {share:.0%}"
        return (
            f"{head}, so at NUM_ENVS={n_small} {part} of each env-step's cost is the work "
            "around the robot's move: the numpy calls of one `step()` call of the vector env, "
            f"choosing the actions, updating the table. {per_call} A batch shares that cost "
            "out. A neural-network method pays one forward pass of its policy per call too, "
            "shared the same way."
        )
    if large_us * SAME_BAND < small_us:
        return (
            f"{head}. The env itself is a large part of the cost at NUM_ENVS={n_small}, yet "
            f"the cost per env-step still fell: {per_call}"
        )
    return (
        f"{head}. The cost per env-step did **not** fall with NUM_ENVS={n_large} in this run: "
        f"{per_call} Timings on a shared machine are noisy: train again to see whether it "
        "holds."
    )
