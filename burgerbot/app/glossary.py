"""The words the pages use, each explained once; pages link to the Glossary page's entries."""

from __future__ import annotations

import multiprocessing
import re
import sys
from collections.abc import Sequence
from typing import NamedTuple

from burgerbot.random_agent import episode_odds

__all__ = ["LESSON", "TERMS", "Term", "start_method_here", "taught_too_late", "term_link"]


LESSON = "lesson"
"""``Term.taught`` for words the lesson itself (or the course before it) teaches."""


class Term(NamedTuple):
    """A glossary entry: its name, its meaning, where it is first taught, how to spot it.

    ``taught`` is the stem of the page that first explains it (``app_pages/<stem>.py``), or
    `LESSON`. ``forms`` are regular expressions (case-sensitive) that find the term in a
    page's visible text; a page of the lesson path before ``taught`` must not match them.
    """

    name: str
    meaning: str
    taught: str = LESSON
    forms: tuple[str, ...] = ()


def start_method_here() -> str:
    """This machine's default start method (the first of those it supports), in a sentence.

    The Glossary page's prediction asks for it, so no entry states it.
    """
    default = multiprocessing.get_all_start_methods()[0]
    python = ".".join(map(str, sys.version_info[:2]))
    return (
        f"On the machine running this app (Python {python}, {sys.platform}) the default "
        f"start method here is '{default}'."
    )


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
        taught="why_batches",
        forms=(r"\benv-steps?\b",),
    ),
    "step-call": Term(
        "step() call",
        "One call of `envs.step(actions)` on a vector env: it steps every sub-environment once "
        "and returns their results as batches. Speeds are counted per env-step (or per "
        "transition, leaving out auto-reset rows), not per call, since a call does N env-steps.",
        taught=LESSON,
    ),
    "transition": Term(
        "transition",
        "A row a learner may train on: (observation, action, reward, next observation, "
        "terminated, truncated) from one real step of an episode. Every env-step is one except "
        "NEXT_STEP's auto-reset rows (reward 0, the action ignored), which are masked out; "
        "SAME_STEP and Stable-Baselines3's vector envs leave none.",
        taught=LESSON,
    ),
    "vector-env": Term(
        "vector env",
        "An object that holds N copies of an environment (its sub-environments) and steps them "
        "together: `reset` and `step` take and return batches whose first axis has length N.",
        taught=LESSON,
    ),
    "sub-environment": Term(
        "sub-environment",
        "One of the N environments inside a vector env; index i of every batch belongs to it.",
        taught=LESSON,
    ),
    "factory": Term(
        "factory (thunk)",
        "A function that returns a zero-argument function which builds one environment. Vector "
        "envs take a list of such zero-argument functions ('thunks') and call each to build "
        "their sub-environments, in this process (Sync) or in a worker process (Async).",
        taught="batch_shapes",
        forms=(r"\bthunks?\b",),
    ),
    "sync": Term(
        "SyncVectorEnv",
        "Gymnasium's vector env that steps its sub-environments one after another in the "
        "current process, then stacks their results.",
        taught=LESSON,
    ),
    "async": Term(
        "AsyncVectorEnv",
        "Gymnasium's vector env that runs each sub-environment in its own worker process. "
        "Commands and actions go to the workers through pipes, and rewards, flags and infos come "
        "back through them; observations come back through shared memory (`shared_memory=True`, "
        "the default). It pays off when one step is slow.",
        taught="batch_shapes",
        forms=(r"\bAsyncVectorEnv\b", r"\b[Ww]orker process"),
    ),
    "native": Term(
        "native vector env",
        "A vector env written for the batch from the start: `BurgerBotVectorEnv`, this "
        "project's own class (not part of Gymnasium), moves all N robots with a few numpy "
        "operations per call instead of N Python `step()` calls.",
        taught="batch_shapes",
        forms=(r"\b[Nn]ative\b", r"BurgerBotVectorEnv"),
    ),
    "spawn": Term(
        "spawn (start method)",
        "How Python starts a worker process: 'spawn' starts a fresh interpreter that imports "
        "your main script again (so the script needs `if __name__ == \"__main__\":`); 'fork' "
        "copies the running process (on every POSIX system, macOS included, not on Windows; "
        "unsafe with threads). The default is 'spawn' on Windows and on macOS (since Python "
        "3.8), 'fork' on Linux up to Python 3.13 and 'forkserver' from 3.14.",
        taught="sync_vs_async",
        forms=(r"\bspawn\b", r"start method", r"forkserver"),
    ),
    "autoreset": Term(
        "auto-reset",
        "A vector env resets a sub-environment whose episode ended by itself, so stepping can "
        "go on. Gymnasium's AutoresetMode says when: NEXT_STEP (the default since 1.0: on the "
        "next call), SAME_STEP (in the ending call), DISABLED (never: you reset it).",
        taught="batch_shapes",
        forms=(r"\b[Aa]uto-reset", r"\b[Rr]eset rows?\b"),
    ),
    "terminated": Term(
        "terminated",
        "The episode ended by the world's own rules, so there is no future reward to estimate. "
        "For BurgerBot that is a hit (driving forward into the grid's edge or an obstacle) or "
        "reaching the burger. With random actions nearly every termination is a hit: "
        + _random_goal_share(),
        taught=LESSON,
    ),
    "truncated": Term(
        "truncated",
        "The episode was cut off from outside, by a time limit for example. The world would "
        "have gone on, so a learner still estimates the value of the last observation.",
        taught=LESSON,
    ),
    "final-observation": Term(
        "final observation",
        "The last observation of an episode. NEXT_STEP returns it in `obs` of the ending call; "
        "SAME_STEP returns the next episode's first observation there and puts the final one "
        'in `infos["final_obs"]`.',
        taught="autoreset",
        forms=(r"\bfinal_obs\b", r"\bfinal_info\b"),
    ),
    "bootstrap": Term(
        "bootstrapping (TD target)",
        "Estimating a return as reward + gamma x value(next observation) instead of waiting for "
        "the episode's end. After termination the next value is 0; after truncation it is the "
        "value of the final observation.",
        taught="training_data",
        forms=(r"[Bb]ootstrap", r"TD target"),
    ),
    "mask": Term(
        "mask",
        "A boolean array marking which rows of a batch to keep; for example the rows of "
        "NEXT_STEP's reset calls, which are not transitions, are masked out of a buffer.",
        taught="why_batches",
        forms=(r"\b[Mm]ask(ed|s|ing)?\b", r"\breset_mask\b"),
    ),
    "n-steps": Term(
        "n_steps",
        "Stable-Baselines3's setting for how many `step()` calls an on-policy method such as "
        "PPO makes per env before each update (2,048 by default), so one rollout holds "
        "`n_steps * n_envs` transitions.",
        taught="why_batches",
        forms=(r"\bn_steps\b",),
    ),
    "policy-network": Term(
        "policy network",
        "The neural network that picks the actions. One forward pass (one evaluation of the "
        "network) can take a whole batch of observations at once and return one action each.",
        taught="home",
        forms=(r"\b[Pp]olicy network", r"\b[Ff]orward pass"),
    ),
    "cartpole-vector": Term(
        "CartPoleVectorEnv",
        "Gymnasium's natively batched CartPole: all the poles are stepped by numpy operations "
        "on arrays, in one process, instead of one CartPole env at a time.",
        taught="batch_shapes",
        forms=(r"\bCartPoleVectorEnv\b",),
    ),
    "daemon": Term(
        "daemon process",
        "A child process that Python ends when its parent ends, and that may not start "
        "children of its own. AsyncVectorEnv's workers are daemon processes.",
        taught="more_mistakes",
        forms=(r"\b[Dd]aemon",),
    ),
    "kernel": Term(
        "notebook kernel",
        "The Python process behind a Jupyter notebook: it runs the cells and keeps their "
        "variables until it is restarted.",
        taught="more_mistakes",
        forms=(r"\bkernel\b",),
    ),
    "rollout": Term(
        "rollout buffer",
        "A (steps x envs) store of transitions that an on-policy method such as PPO fills "
        "before each update (SB3: `n_steps` per env, so `n_steps * n_envs` transitions).",
        taught="why_batches",
        forms=(r"\b[Rr]ollout buffer",),
    ),
    "seed": Term(
        "seed",
        "A number that fixes a random generator. `envs.reset(seed=s)` seeds sub-environment i "
        "with s + i; `action_space.seed(s)` fixes the random actions.",
        taught=LESSON,
    ),
    "vecenv": Term(
        "VecEnv (SB3)",
        "Stable-Baselines3's own vector env classes (DummyVecEnv, SubprocVecEnv). SB3's "
        "algorithms accept these, not Gymnasium's vector envs.",
        taught="sb3",
        forms=(r"\bVecEnv\b", r"DummyVecEnv", r"SubprocVecEnv"),
    ),
    "sample-efficiency": Term(
        "sample efficiency",
        "How many transitions an agent needs before it learns; fewer is more "
        "sample-efficient. Wall-clock speed is a different question.",
        taught="learning_speed",
        forms=(r"[Ss]ample[- ]efficien",),
    ),
    "greedy-policy": Term(
        "greedy policy",
        "A policy that always takes the action with the highest estimated value, with no "
        "random exploration.",
        taught="learning_speed",
        forms=(r"\b[Gg]reedy\b",),
    ),
    "dtype": Term(
        "dtype",
        "The numpy element type of an array, such as int64 or float32. A batch keeps the dtype "
        "of the single observation space.",
        taught=LESSON,
    ),
    "vector-wrapper": Term(
        "vector wrapper",
        "A wrapper from `gymnasium.wrappers.vector` that wraps a whole vector env once, unlike "
        "a single-env wrapper applied inside the factory to each sub-environment. It sees the "
        "batched arrays and reads the auto-reset mode from `metadata['autoreset_mode']` to tell "
        "reset rows from transitions; some refuse modes they cannot handle.",
        taught="vector_wrappers",
        forms=(r"\b[Vv]ector wrappers?\b",),
    ),
    "running-statistics": Term(
        "running statistics",
        "The mean and variance a normalising wrapper updates with every observation or return "
        "it sees. Frozen for evaluation (`update_running_mean = False`), the same observation "
        "always reaches the policy as the same numbers.",
        taught="vector_wrappers",
        forms=(r"[Rr]unning statistics", r"[Rr]unning mean"),
    ),
    "autoreset-mode": Term(
        "auto-reset mode",
        "When a vector env resets an ended sub-environment: NEXT_STEP (gymnasium's default "
        "since 1.0) on the next `step()` call, which ignores that env's action and returns its "
        "first observation with reward 0; SAME_STEP in the ending call itself, with the last "
        'observation moved to `infos["final_obs"]`; DISABLED never (you call `reset` with a '
        "mask of the envs to reset).",
        taught="autoreset",
        forms=(r"NEXT_STEP", r"SAME_STEP", r"\bDISABLED\b", r"AutoresetMode"),
    ),
    "interval": Term(
        "95% interval",
        "A range that holds the true value for 95 of 100 repeats of the experiment. Two "
        "results whose intervals do not overlap differ by more than chance would explain.",
        taught="goal_scaling",
        forms=(r"95% interval", r"[Cc]onfidence interval", r"Poisson"),
    ),
    "q-learning": Term(
        "Q-learning",
        "A method that learns, for every observation and action, the return it expects "
        "(its Q-value), by nudging each estimate towards reward + gamma x the best Q-value of "
        "the next observation; gamma (below 1) discounts later rewards.",
        taught="learning_speed",
        forms=(r"Q-learning", r"Q-values?", r"\bgamma\b"),
    ),
}
"""Slug -> term; the slug is the entry's anchor on the Glossary page."""


def term_link(slug: str, text: str | None = None) -> str:
    """Markdown linking ``text`` (default: the term's name) to its Glossary entry.

    >>> term_link("env-step")
    '[env-step](glossary#env-step)'
    """
    return f"[{text or TERMS[slug].name}](glossary#{slug})"


def taught_too_late(path: Sequence[tuple[str, str]]) -> list[str]:
    """Each use of a term on a page of the lesson path before the page that teaches it.

    ``path`` holds ``(page stem, visible text)`` in the path's order. A term taught on a page
    outside the path (a "Going further" page) may not be used on the path at all.

    >>> taught_too_late([("home", "100 steps"), ("autoreset", "NEXT_STEP")])
    []
    >>> taught_too_late([("home", "NEXT_STEP resets"), ("autoreset", "")])
    ["home uses 'auto-reset mode' (NEXT_STEP), first taught on autoreset"]
    """
    order = {stem: index for index, (stem, _) in enumerate(path)}
    found = []
    for term in TERMS.values():
        if term.taught == LESSON:
            continue
        first = order.get(term.taught, len(path))
        for stem, text in path[:first]:
            for form in term.forms:
                match = re.search(form, text)
                if match:
                    found.append(
                        f"{stem} uses {term.name!r} ({match.group(0)}), first taught on "
                        f"{term.taught}"
                    )
                    break
    return found
