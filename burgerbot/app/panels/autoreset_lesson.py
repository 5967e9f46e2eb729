"""The "Auto-reset" page's lesson panels: the lesson vs the installed gymnasium, and DISABLED."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS
from burgerbot.app.markdown import markdown_table
from burgerbot.app.scripts.autoreset import (
    disabled_fix_fragment,
    disabled_fix_script,
    infos_check_output,
    infos_check_script,
)
from burgerbot.app.views.autoreset import START_OBS, obs_text
from burgerbot.app.views.autoreset_disabled import DisabledDemo, disabled_demo_table
from burgerbot.app.views.autoreset_lesson import InfosCheck

__all__ = ["disabled_demo_panel", "lesson_comparison", "lesson_verdict_line"]


def lesson_verdict_line(kind: str, why: str) -> None:
    """The verdict on the lesson's auto-reset claim: its badge (colour and icon by kind), why."""
    st.markdown(f"{VERDICTS[kind].badge()} {why}")


def _installed_text(mode: str, end: Mapping[str, Any], check: InfosCheck) -> str:
    """What the installed gymnasium handed back at the episode end, in ``mode``."""
    step, env, final = int(end["step"]), int(end["env"]), end["final obs"]
    if mode == "NEXT_STEP":
        return (
            f"NEXT_STEP (a new `SyncVectorEnv` here defaults to `{check.default_mode}`). Step "
            f"{step} handed back `obs[{env}] = {final}`, the **final** observation, and no "
            f"extra key in `infos`. The start `{obs_text(START_OBS)}` only came at step "
            f"{step + 1}, with reward 0.0."
        )
    if mode == "SAME_STEP":
        return (
            f"SAME_STEP gives the lesson's timing: step {step} handed back `obs[{env}] = "
            f"{obs_text(START_OBS)}`. But the final observation `{final}` is under a new name, "
            f'`infos["final_obs"][{env}]`. (The default mode here is `{check.default_mode}`.)'
        )
    return (
        f"DISABLED never restarts: step {step} handed back `obs[{env}] = {final}`, the final "
        "observation, and the robot stays ended until you reset it. (The default mode here "
        f"is `{check.default_mode}`.)"
    )


def lesson_comparison(
    end: Mapping[str, Any],
    mode: str,
    check: InfosCheck,
    version: str,
    table: pd.DataFrame,
    num_envs: int,
    seed: int,
) -> None:
    """One episode end: the lesson's account beside the installed gymnasium's, and the proof.

    Args:
        end: The episode end (a row of ``episode_ends``).
        mode: The run's auto-reset mode.
        check: What ``infos`` held at that end, checked live.
        version: The installed gymnasium's version.
        table: ``lesson_vs_installed`` for that end.
        num_envs: The run's number of envs (for the script that checks ``infos``).
        seed: The run's seed.
    """
    step, env = int(end["step"]), int(end["env"])
    key_error = (
        ""
        if check.has_final_observation
        else ' Code copied from the lesson that reads `infos["final_observation"]` there stops '
        "with a KeyError."
    )
    st.write(
        f"The lesson was written for gymnasium 0.29; this app runs gymnasium **{version}**. "
        f"One real episode end from the run above: **env {env} at step {step}** "
        f"({end['cause']}, {term_link('final-observation')} `{end['final obs']}`).{key_error}"
    )

    def side() -> None:
        left, right = st.columns(2)
        with left, st.container(border=True):
            st.markdown("**What the lesson describes (gymnasium 0.29)**")
            st.markdown(
                f"The ending call restarts the robot at once: step {step} would hand you "
                f"`obs[{env}] = {obs_text(START_OBS)}` (the new start), and the final one, "
                f'`{end["final obs"]}`, in `infos["final_observation"][{env}]`.'
            )
        with right, st.container(border=True):
            st.markdown(f"**What gymnasium {version} did in this run ({mode})**")
            st.markdown(_installed_text(mode, end, check))

    def script() -> None:
        st.markdown(
            f"This script replays the run above on a fresh `SyncVectorEnv` up to step {step} "
            "and prints what `infos` holds. It printed this on the app's server just now:"
        )
        st.code(
            infos_check_output(
                version, check.has_final_observation, check.has_final_obs, check.keys
            ),
            language="text",
        )
        learning.script_block(
            infos_check_script(num_envs, seed, mode, step), name="check infos at an episode end"
        )

    ui.lazy_tabs(
        "autoreset_lesson",
        [
            ("Side by side", side),
            ("Row by row", lambda: st.markdown(markdown_table(table))),
            ("Check it yourself", script),
        ],
    )


def _envs_text(envs: tuple[int, ...]) -> str:
    return ("envs " if len(envs) > 1 else "env ") + ", ".join(str(i) for i in envs)


def disabled_demo_panel(demo: DisabledDemo, expanded: bool) -> None:
    """The DISABLED demo in an expander: both errors, what the failed call did, the fix.

    Drawn only while open (`ui.lazy_expander`); it opens by itself in DISABLED mode.
    """
    label = "DISABLED, where nothing restarts: step an ended robot again, and see the fix (live)"

    def draw() -> None:
        if demo.end_step == 0:
            st.info("No episode ended within the steps this demo may take; try another seed.")
            return
        ended = _envs_text(demo.ended)
        st.markdown(
            f"A fresh `SyncVectorEnv` with `autoreset_mode=AutoresetMode.DISABLED`, the same "
            f"{demo.num_envs} robots and the same random actions. At step {demo.end_step}, "
            f"{ended} ended. The page then called `envs.step(actions)` once more, without "
            "resetting. This is what came back:"
        )
        st.markdown("**SyncVectorEnv over BurgerBotEnv raised:**")
        st.code(
            demo.sync_error or "no error (was Python started with -O?)",
            language="text",
            wrap_lines=True,
        )
        st.markdown(
            "It is an `assert` inside gymnasium: it shows its internal flags (True for each "
            "env waiting for a reset), not what to do. This project's natively batched "
            "`BurgerBotVectorEnv` (not part of Gymnasium), given the same actions, says it in "
            "words:"
        )
        st.code(demo.native_error or "no error", language="text", wrap_lines=True)
        if demo.stepped_before_error:
            several = len(demo.stepped_before_error) > 1
            st.warning(
                "**The failed call was not harmless.** SyncVectorEnv checks the envs one by "
                f"one while it steps them, so before it raised, "
                f"{_envs_text(demo.stepped_before_error)} had already taken "
                f"{'their' if several else 'its'} step-{demo.end_step + 1} action (measured "
                f"live: {'their step counters' if several else 'its step counter'} moved). "
                "You never saw those results. "
                + (
                    "BurgerBotVectorEnv checks first: none of its robots moved."
                    if not demo.native_stepped_before_error
                    else "BurgerBotVectorEnv's robots moved too."
                )
            )
        st.markdown(
            f"**The fix:** reset only the envs that ended, with a {term_link('mask')} (one "
            "True/False per env), *before* the next step:"
        )
        learning.fragment_block(disabled_fix_fragment(), of="the DISABLED script below")
        st.dataframe(disabled_demo_table(demo), hide_index=True)
        st.success(
            f"After the masked reset, step {demo.end_step + 1} worked. Only {ended} went "
            f"back to `{obs_text(START_OBS)}`; the others kept their place."
        )
        st.markdown("**The DISABLED script** (same robots, seed and actions):")
        learning.script_block(
            disabled_fix_script(demo.num_envs, demo.seed), name="disabled reset with a mask"
        )

    # One key per starting state: a keyed expander keeps its first `expanded`.
    ui.lazy_expander(label, draw, key=f"autoreset_disabled_{int(expanded)}", expanded=expanded)
