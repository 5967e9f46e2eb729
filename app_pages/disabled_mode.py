"""DISABLED mode: nothing restarts by itself; step an ended robot again, see the error, reset
just the ended ones with a mask."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import counted
from burgerbot.app.logic.disabled_mode import (
    COUNT_STEPS,
    OPTIONS,
    SPECS,
    DisabledDemo,
    by_hand_sentence,
    disabled_demo,
    disabled_demo_table,
    envs_text,
    finished_by_hand_and_same_step,
    masked_reset_sentence,
    prediction_truth,
    resolve_settings,
    takeaway_bullets,
)
from burgerbot.app.scripts.disabled_mode import disabled_fix_fragment, disabled_fix_script

PAGE = "disabled_mode"
PREDICTION = "disabled_mode_step_again"
HIGH = {spec.key: spec.high for spec in SPECS}


@st.cache_data(max_entries=16, show_spinner="Counting finished episodes live…")
def by_hand_counts(num_envs: int, seed: int):
    return finished_by_hand_and_same_step(num_envs, seed)


@st.cache_data(max_entries=16, show_spinner="Running the DISABLED demo live…")
def disabled_run(num_envs: int, seed: int) -> DisabledDemo:
    return disabled_demo(num_envs, seed)


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="DISABLED mode: you reset the robots yourself",
    intro=(
        "This page assumes you have done the Auto-reset page. With "
        "`autoreset_mode=AutoresetMode.DISABLED` no sub-environment restarts by itself: you "
        "will see what happens if you step one whose episode ended, and how to reset just the "
        f"ones that ended with a {term_link('mask')} (one True/False per env)."
    ),
    topics=["The DISABLED auto-reset mode", 'reset(options={"reset_mask": ...})'],
    links=["Auto-reset modes", "Gymnasium vector API"],
)
values = frame.resolve(resolve_settings, lambda picked: picked)
col_n, col_seed = st.columns(2)
col_n.slider("NUM_ENVS", min_value=1, max_value=HIGH["n"], key=frame.key["n"])
col_seed.number_input("Seed", min_value=0, max_value=HIGH["seed"], step=1, key=frame.key["seed"])
frame.settings_done()

learning.prediction(
    PREDICTION,
    f"{counted(values['n'], 'BurgerBot')} step with random actions in DISABLED mode until "
    "one's episode ends. Then `envs.step(actions)` is called once more, without any reset. "
    "What happens?",
    OPTIONS,
)
demo = disabled_run(values["n"], values["seed"])
if learning.revealed(PREDICTION):
    if demo.end_step == 0:
        st.info("No episode ended within the steps this demo may take; try another seed.")
    else:
        ended = envs_text(demo.ended)
        st.header("1. Stepping an ended robot again")
        st.markdown(
            f"A fresh `SyncVectorEnv` with `autoreset_mode=AutoresetMode.DISABLED`, "
            f"{demo.num_envs} robots and the same random actions as on the Auto-reset page. At "
            f"step {demo.end_step}, {ended} ended. Then `envs.step(actions)` was called once "
            "more, without resetting. **SyncVectorEnv over BurgerBotEnv raised:**"
        )
        st.code(
            demo.sync_error or "no error (was Python started with -O?)",
            language="text",
            wrap_lines=True,
        )
        learning.check(
            PREDICTION,
            prediction_truth(demo),
            "It is an `assert` inside gymnasium: it prints gymnasium's internal flags "
            "(`_autoreset_envs`, True for each env waiting for a reset), not what to do.",
        )
        st.markdown(
            "This project's natively batched `BurgerBotVectorEnv` (not part of Gymnasium), "
            "given the same actions, says it in words:"
        )
        st.code(demo.native_error or "no error", language="text", wrap_lines=True)
        if demo.stepped_before_error:
            several = len(demo.stepped_before_error) > 1
            st.warning(
                "**The failed call was not harmless.** SyncVectorEnv checks the envs one by "
                f"one while it steps them, so before it raised, "
                f"{envs_text(demo.stepped_before_error)} had already taken "
                f"{'their' if several else 'its'} step-{demo.end_step + 1} action (measured "
                f"live: {'their step counters' if several else 'its step counter'} moved). "
                "You never saw those results. "
                + (
                    "BurgerBotVectorEnv checks first: none of its robots moved."
                    if not demo.native_stepped_before_error
                    else "BurgerBotVectorEnv's robots moved too."
                )
            )
        st.header("2. The fix: reset just the ended robots")
        st.markdown(
            "Reset only the envs that ended, with a mask, *before* the next step (the "
            "auto-reset modes do this for you):"
        )
        learning.fragment_block(disabled_fix_fragment(), of="the DISABLED script below")
        st.dataframe(disabled_demo_table(demo), hide_index=True)
        st.success(masked_reset_sentence(demo))
        st.markdown("**The DISABLED script** (same robots, seed and actions):")
        learning.script_block(
            disabled_fix_script(demo.num_envs, demo.seed), name="disabled reset with a mask"
        )
    st.header("3. Reset by hand against SAME_STEP")
    st.markdown(
        f"The lesson's count ({COUNT_STEPS} random steps): finished episodes per env, "
        "`terminated | truncated` added up, in DISABLED mode with a masked reset right after "
        "each end, and in SAME_STEP mode, with the same actions."
    )
    counts = by_hand_counts(values["n"], values["seed"])
    st.dataframe(counts, hide_index=True)
    st.write(by_hand_sentence(counts))
frame.takeaways(takeaway_bullets(demo), after=PREDICTION)
