"""The SB3 page's prediction, its verdict sentences and its takeaways, computed from its runs."""

from __future__ import annotations

from collections.abc import Mapping

from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.views.sb3_side_by_side import GYM_NEXT_STEP, GYM_SAME_STEP, SideBySide

__all__ = [
    "ACCEPTS_OPTIONS",
    "accepts_explanation",
    "accepts_truth",
    "agreement_sentence",
    "n_envs_sentence",
    "n_steps_sentence",
    "printed",
    "takeaways",
]

ACCEPTS_OPTIONS = ("Yes: PPO builds a model on it", "No: PPO stops with an error")
"""The answers to "Does PPO accept a Gymnasium SyncVectorEnv?"."""


def printed(output: str) -> dict[str, str]:
    """The ``name: value`` lines a script printed, as a dict (split at the first ``": "``).

    >>> printed("n_envs: 4\\nrollout buffer: (2048, 4, 4)\\nno colon here")
    {'n_envs': '4', 'rollout buffer': '(2048, 4, 4)'}
    """
    pairs = (line.split(": ", 1) for line in output.splitlines() if ": " in line)
    return {name.strip(): value.strip() for name, value in pairs}


def accepts_truth(run: ScriptRun) -> str:
    """Which of `ACCEPTS_OPTIONS` the live attempt gave."""
    return ACCEPTS_OPTIONS[1] if run.raised else ACCEPTS_OPTIONS[0]


def accepts_explanation(run: ScriptRun, version: str) -> str:
    """Why, from the live attempt with stable-baselines3 ``version``."""
    if run.error is None:
        return (
            f"stable-baselines3 {version} built a model on the Gymnasium `SyncVectorEnv`: check "
            "`model.n_envs` before you train, SB3 may have taken it as one env."
        )
    return (
        f"stable-baselines3 {version} stopped with **{run.error.type}** (raised in "
        f"`{run.error.location}`). SB3's algorithms take SB3's own `VecEnv` classes or a single "
        "Gymnasium env; a Gymnasium vector env is neither. No SB3 release trained on one as N "
        "envs, so the lesson's idea was never valid: it is not a change in the library."
    )


def n_envs_sentence(run: ScriptRun) -> str:
    """What the installed PPO did with ``n_envs=4``."""
    if run.error is None:
        return "PPO accepted `n_envs` here: this SB3 release has such an argument."
    return (
        f"PPO stopped with **{run.error.type}**: its constructor has no `n_envs` parameter, in "
        "this release or any earlier one. The number of envs comes from the `VecEnv` you give it."
    )


def n_steps_sentence(values: Mapping[str, str], lesson_transitions: int = 2048) -> str:
    """What the fix printed about ``n_steps``, against the lesson's "2048 steps in 512 calls".

    ``values``: `printed` output of ``burgerbot.app.scripts.sb3.ppo_fixed``.
    """
    n_envs = int(values["n_envs"])
    n_steps = int(values["n_steps (step() calls per env per update)"])
    transitions = int(values["transitions per update"])
    per_env = lesson_transitions // n_envs
    if transitions == lesson_transitions:
        return (
            f"With PPO's default `n_steps={n_steps}` and {n_envs} envs an update holds "
            f"{transitions:,} transitions: the lesson's numbers, as written."
        )
    return (
        f"With PPO's default `n_steps={n_steps}` and {n_envs} envs an update holds "
        f"{transitions:,} transitions (rollout buffer {values['rollout buffer']}), collected in "
        f"{n_steps:,} `step()` calls. `n_steps` counts calls *per env*, as it always has in "
        f"SB3: for the lesson's {lesson_transitions:,} transitions in {per_env:,} calls, pass "
        f"`n_steps={per_env}`."
    )


def takeaways(
    calls: Mapping[str, ScriptRun] | None, side: SideBySide | None, version: str | None
) -> list[str]:
    """The page's "Key takeaways": those about SB3's behaviour come from this visit's runs."""
    bullets = [
        "SB3 trains on its own `VecEnv`: build one with `make_vec_env(make_env(), n_envs=N)`.",
    ]
    if calls is None:
        bullets.append(
            "`PPO(..., n_envs=4)` and a Gymnasium `SyncVectorEnv` given to PPO never worked in "
            "SB3 (not run here: stable-baselines3 is not installed)."
        )
    else:
        n_envs, vector = calls["n_envs"], calls["gymnasium_vector"]
        said = [
            f"`PPO(..., n_envs=4)` {'raised ' + n_envs.error.type if n_envs.raised else 'ran'}",
            "a Gymnasium `SyncVectorEnv` "
            + (f"raised {vector.error.type}" if vector.raised else "was accepted"),
        ]
        bullets.append(f"On stable-baselines3 {version}: {' and '.join(said)}, just now.")
        values = printed(calls["fixed"].output)
        if "transitions per update" in values:
            bullets.append(
                f"`n_steps` counts `step()` calls per env: {values['n_envs']} envs x "
                f"{values['n_steps (step() calls per env per update)']} = "
                f"{int(values['transitions per update']):,} transitions per update."
            )
    if side is not None and side.with_sb3:
        same, nxt = side.agree[GYM_SAME_STEP], side.agree[GYM_NEXT_STEP]
        like = "SAME_STEP" if same >= nxt else "NEXT_STEP"
        bullets.append(
            f"SB3 resets like Gymnasium's {like} ({max(same, nxt)} of {side.pairs} pairs matched "
            'here), keeping the last observation in `infos[i]["terminal_observation"]`.'
        )
    bullets.append(
        "`SubprocVecEnv` starts worker processes that import your script again: put the "
        'script\'s work under `if __name__ == "__main__":`.'
    )
    return bullets[:5]


def agreement_sentence(result: SideBySide) -> str:
    """How many (step, env) pairs each Gymnasium mode shared with SB3 in the side-by-side run,
    and where NEXT_STEP first parted (with SB3 installed)."""
    pairs = result.pairs
    same, nxt = result.agree[GYM_SAME_STEP], result.agree[GYM_NEXT_STEP]
    same_first = result.first_difference[GYM_SAME_STEP]
    first = result.first_difference[GYM_NEXT_STEP]
    text = (
        f"{result.episodes_ended} episodes ended. **SAME_STEP matched SB3 on {same} of {pairs}** "
        "(step, env) pairs"
        + (
            ": same observations, rewards and episode ends. "
            if same_first is None
            else f"; it first differs at step {same_first[0]}, env {same_first[1]}. "
        )
        + f"**NEXT_STEP matched on {nxt} of {pairs}**"
    )
    if first is None:
        return text + ": no episode ended early enough to show a difference. Try more steps."
    return text + (
        f": it first differs at step {first[0]} (env {first[1]}), where an episode ends. It "
        "returns the episode's last observation there, SB3 the next start; its next call only "
        "resets that env and ignores its action, so from then on that robot is one action behind."
    )
