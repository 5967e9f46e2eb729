"""The words the pages use, each explained once; pages link to the Glossary page's entries."""

from __future__ import annotations

import multiprocessing
import sys
from typing import NamedTuple

from burgerbot.random_agent import episode_odds

__all__ = ["TERMS", "Term", "term_link"]


class Term(NamedTuple):
    name: str
    meaning: str


def _start_method_here() -> str:
    """This machine's default start method (the first of those it supports), in a sentence."""
    default = multiprocessing.get_all_start_methods()[0]
    python = ".".join(map(str, sys.version_info[:2]))
    return f"On the machine running this app (Python {python}, {sys.platform}) it is '{default}'."


def _random_goal_share() -> str:
    """How rarely a random BurgerBot's episode reaches the burger, from the world's rules."""
    odds = episode_odds()
    return f"1 episode in {1 / odds.goal_chance:,.0f} reaches the burger (computed exactly)."


TERMS: dict[str, Term] = {
    "env-step": Term(
        "env-step",
        "One row a vector env returns: one sub-environment's observation, reward and pair of "
        "flags from one `step()` call. A vector env with N environments returns N env-steps per "
        "call. Not every env-step is a transition: in NEXT_STEP mode the row of an env being "
        "auto-reset (about 1 row in 11 for a random BurgerBot) is not.",
    ),
    "step-call": Term(
        "step() call",
        "One call of `envs.step(actions)` on a vector env: it steps every sub-environment once "
        "and returns their results as batches. Speed is counted in env-steps per second, "
        "since a call does N of them.",
    ),
    "transition": Term(
        "transition",
        "A row a learner may train on: (observation, action, reward, next observation, "
        "terminated, truncated) from one real step of an episode. Every env-step is one except "
        "NEXT_STEP's auto-reset rows (reward 0, the action ignored), which are masked out; "
        "SAME_STEP and Stable-Baselines3's vector envs leave none.",
    ),
    "vector-env": Term(
        "vector env",
        "An object that holds N copies of an environment (its sub-environments) and steps them "
        "together: `reset` and `step` take and return batches whose first axis has length N.",
    ),
    "sub-environment": Term(
        "sub-environment",
        "One of the N environments inside a vector env; index i of every batch belongs to it.",
    ),
    "factory": Term(
        "factory (thunk)",
        "A function that returns a zero-argument function which builds one environment. Vector "
        "envs take a list of such zero-argument functions ('thunks') and call each to build "
        "their sub-environments, in this process (Sync) or in a worker process (Async).",
    ),
    "sync": Term(
        "SyncVectorEnv",
        "Gymnasium's vector env that steps its sub-environments one after another in the "
        "current process, then stacks their results.",
    ),
    "async": Term(
        "AsyncVectorEnv",
        "Gymnasium's vector env that runs each sub-environment in its own worker process. "
        "Commands and actions go to the workers through pipes, and rewards, flags and infos come "
        "back through them; observations come back through shared memory (`shared_memory=True`, "
        "the default). It pays off when one step is slow.",
    ),
    "native": Term(
        "native vector env",
        "A vector env written for the batch from the start: `BurgerBotVectorEnv`, this "
        "project's own class (not part of Gymnasium), moves all N robots with a few numpy "
        "operations per call instead of N Python `step()` calls.",
    ),
    "spawn": Term(
        "spawn (start method)",
        "How Python starts a worker process: 'spawn' starts a fresh interpreter that imports "
        "your main script again (so the script needs `if __name__ == \"__main__\":`); 'fork' "
        "copies the running process (on every POSIX system, macOS included, not on Windows; "
        "unsafe with threads). The default is 'spawn' on Windows and on macOS (since Python "
        "3.8), 'fork' on Linux up to Python 3.13 and 'forkserver' from 3.14. "
        + _start_method_here(),
    ),
    "autoreset": Term(
        "auto-reset",
        "A vector env resets a sub-environment whose episode ended by itself, so stepping can "
        "go on. Gymnasium's AutoresetMode says when: NEXT_STEP (the default since 1.0: on the "
        "next call), SAME_STEP (in the ending call), DISABLED (never: you reset it).",
    ),
    "terminated": Term(
        "terminated",
        "The episode ended by the world's own rules, so there is no future reward to estimate. "
        "For BurgerBot that is a hit (driving forward into the grid's edge or an obstacle) or "
        "reaching the burger. With random actions nearly every termination is a hit: "
        + _random_goal_share(),
    ),
    "truncated": Term(
        "truncated",
        "The episode was cut off from outside, by a time limit for example. The world would "
        "have gone on, so a learner still estimates the value of the last observation.",
    ),
    "final-observation": Term(
        "final observation",
        "The last observation of an episode. NEXT_STEP returns it in `obs` of the ending call; "
        "SAME_STEP returns the next episode's first observation there and puts the final one "
        'in `infos["final_obs"]`.',
    ),
    "bootstrap": Term(
        "bootstrapping (TD target)",
        "Estimating a return as reward + gamma x value(next observation) instead of waiting for "
        "the episode's end. After termination the next value is 0; after truncation it is the "
        "value of the final observation.",
    ),
    "mask": Term(
        "mask",
        "A boolean array marking which rows of a batch to keep; for example the rows of "
        "NEXT_STEP's reset calls, which are not transitions, are masked out of a buffer.",
    ),
    "rollout": Term(
        "rollout buffer",
        "A (steps x envs) store of transitions that an on-policy method such as PPO fills "
        "before each update (SB3: `n_steps` per env, so `n_steps * n_envs` transitions).",
    ),
    "seed": Term(
        "seed",
        "A number that fixes a random generator. `envs.reset(seed=s)` seeds sub-environment i "
        "with s + i; `action_space.seed(s)` fixes the random actions.",
    ),
    "vecenv": Term(
        "VecEnv (SB3)",
        "Stable-Baselines3's own vector env classes (DummyVecEnv, SubprocVecEnv). SB3's "
        "algorithms accept these, not Gymnasium's vector envs.",
    ),
    "sample-efficiency": Term(
        "sample efficiency",
        "How many transitions an agent needs before it learns; fewer is more "
        "sample-efficient. Wall-clock speed is a different question.",
    ),
    "greedy-policy": Term(
        "greedy policy",
        "A policy that always takes the action with the highest estimated value, with no "
        "random exploration.",
    ),
    "dtype": Term(
        "dtype",
        "The numpy element type of an array, such as int64 or float32. A batch keeps the dtype "
        "of the single observation space.",
    ),
    "vector-wrapper": Term(
        "vector wrapper",
        "A wrapper from `gymnasium.wrappers.vector` that wraps a whole vector env once, unlike "
        "a single-env wrapper applied inside the factory to each sub-environment. It sees the "
        "batched arrays and reads the auto-reset mode from `metadata['autoreset_mode']` to tell "
        "reset rows from transitions; some refuse modes they cannot handle.",
    ),
    "running-statistics": Term(
        "running statistics",
        "The mean and variance a normalising wrapper updates with every observation or return "
        "it sees. Frozen for evaluation (`update_running_mean = False`), the same observation "
        "always reaches the policy as the same numbers.",
    ),
}
"""Slug -> term; the slug is the entry's anchor on the Glossary page."""


def term_link(slug: str, text: str | None = None) -> str:
    """Markdown linking ``text`` (default: the term's name) to its Glossary entry.

    >>> term_link("env-step")
    '[env-step](glossary#env-step)'
    """
    return f"[{text or TERMS[slug].name}](glossary#{slug})"
