"""Stable-Baselines3: how it vectorises, how its VecEnv API differs from Gymnasium's, live."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from burgerbot.app import learning, sb3_recording, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.sb3 import (
    ACCEPTS_OPTIONS,
    GYM_NEXT_STEP,
    GYM_SAME_STEP,
    INSTALL_COMMAND,
    SB3,
    SPECS,
    SideBySide,
    accepts_explanation,
    accepts_truth,
    around_first_end,
    invalid_calls,
    n_envs_sentence,
    n_steps_sentence,
    printed,
    recorded_agreement,
    recorded_calls,
    recorded_output,
    sb3_version,
    side_by_side,
    takeaways,
)
from burgerbot.app.sb3_recording import Recording
from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.scripts import sb3 as snippets

PAGE = "sb3"
LESSON_ENVS = 4  # the lesson's PPO calls use 4 envs
PREDICTION = f"{PAGE}_accepts_sync"


@st.cache_data(max_entries=8, show_spinner=False)
def compared(num_envs: int, steps: int, seed: int, with_sb3: bool) -> SideBySide:
    return side_by_side(num_envs, steps, seed, with_sb3=with_sb3)


@st.cache_data(max_entries=4, show_spinner=False)
def lesson_calls(num_envs: int) -> dict[str, ScriptRun]:
    return invalid_calls(num_envs)


# --- What the page draws: SB3's status, the lesson's calls, PPO; then the page ---
# Drawing blocks of the Stable-Baselines3 page (what the page shows; the page says when).


_CAPTIONS = {
    SB3: "`dones[i]` is True and `obs[i]` is already the next start. The last "
    'observation is in `infos[i]["terminal_observation"]`.',
    GYM_SAME_STEP: "Same as SB3 (*done* here is `terminated or truncated`), but the last "
    'observation is in `infos["final_obs"][i]`.',
    GYM_NEXT_STEP: "Gymnasium's default since 1.0 (*done* is `terminated or truncated`): the "
    "ending step returns the last observation itself; the next call resets.",
}


def install_status(version: str | None, recording: Recording) -> None:
    """Whether SB3 runs live here, or what the page shows instead: a labelled recording."""
    if version is not None:
        st.caption(
            f"✅ stable-baselines3 **{version}** is installed here: everything on this page runs "
            "live."
        )
    else:
        st.info(
            "**stable-baselines3 is not installed here**: what SB3 printed is a **recording**, "
            f"{recording.label()}. To run it live: `{INSTALL_COMMAND}`, then restart the app.",
            icon="📼",
        )


def show_outcome(result: ScriptRun, recorded: str = "") -> None:
    """What a script did when the page ran it (or, ``recorded``, when it was recorded): the
    error it raised or what it printed."""
    when = f" ({recorded})" if recorded else ""
    if result.error is not None:
        error = result.error
        st.error(
            f"It raised **{error.type}** at `{error.location}`{when}: `{error.headline}`",
            icon="🚫",
        )
    else:
        st.success(f"It ran without an error and printed{when}:", icon="✅")
        st.code(result.output, language="text", wrap_lines=True)


def _call_tab(code: str, name: str, result: ScriptRun | None, recorded: str) -> None:
    learning.script_block(code, name=name)
    if result is None:
        st.caption(f"Not run here: stable-baselines3 is not installed. `{INSTALL_COMMAND}`")
    else:
        show_outcome(result, recorded)


def show_lesson_calls(
    calls: dict[str, ScriptRun] | None, num_envs: int, recorded: str = ""
) -> None:
    """The lesson's two PPO calls and the fix, in tabs: as they ran live, or (without SB3) as
    they ran when ``recorded``."""
    never = VERDICTS["never_valid"].badge()

    def n_envs_tab() -> None:
        sentence = (
            n_envs_sentence(calls["n_envs"])
            if calls
            else "PPO's constructor has no `n_envs` parameter in any SB3 release, so Python "
            "raises a `TypeError` about an unexpected keyword argument."
        )
        st.markdown(f"{never} {sentence}")
        _call_tab(
            snippets.n_envs_wrong(num_envs),
            "the lesson's n_envs call",
            calls and calls["n_envs"],
            recorded,
        )

    def vector_tab() -> None:
        st.markdown(
            f"{never} SB3 refuses it, with a misleading message about the old `gym` package."
        )
        _call_tab(
            snippets.gymnasium_vector_wrong(num_envs),
            "a SyncVectorEnv given to PPO",
            calls and calls["gymnasium_vector"],
            recorded,
        )

    def fixed_tab() -> None:
        if calls and not calls["fixed"].raised:
            values = printed(calls["fixed"].output)
            st.markdown(f"{VERDICTS['imprecise'].badge()} {n_steps_sentence(values)}")
        else:
            st.markdown(
                f"{VERDICTS['imprecise'].badge()} The lesson's \"2048 steps in 512 calls with 4 "
                "envs\": SB3's `n_steps` counts `step()` calls *per env* (its default 2048 gives "
                "8,192 transitions with 4 envs); pass `n_steps=512` for the lesson's numbers."
            )
        _call_tab(
            snippets.ppo_fixed(num_envs),
            "the lesson's PPO call fixed",
            calls and calls["fixed"],
            recorded,
        )

    ui.lazy_tabs(
        "sb3_lesson_calls",
        [
            ("❌ PPO(SyncVectorEnv)", vector_tab),
            (f"❌ PPO(n_envs={num_envs})", n_envs_tab),
            ("✅ make_vec_env", fixed_tab),
        ],
    )


def how_sb3_vectorises() -> None:
    """make_vec_env, DummyVecEnv and SubprocVecEnv."""
    st.markdown(
        """
- **`make_vec_env(burgerbot_factory(), n_envs=4)`** calls the factory 4 times and puts the
  copies in a **`DummyVecEnv`**: one process, like Gymnasium's `SyncVectorEnv`.
- **`vec_env_cls=SubprocVecEnv`**: one worker process per copy, like `AsyncVectorEnv` (so the
  script needs `if __name__ == "__main__":`).
"""
    )


def show_around_first_end(
    around: tuple[int, int, dict[str, pd.DataFrame]] | None, have_sb3: bool
) -> None:
    """One env around the first episode end: a tab per library, each with what it shows."""
    if around is None:
        st.warning("No episode ended in this run: try more step() calls or another seed.")
        return
    end_step, end_env, tables = around
    shown = next(iter(tables.values()))["step"]
    st.markdown(
        f"**Env {end_env}, steps {shown.min()} to {shown.max()}** (its episode ends at step "
        f"{end_step}). *last obs*: the ended episode's {term_link('final-observation')}."
    )

    def draw(library: str, table: pd.DataFrame) -> None:
        st.caption(_CAPTIONS[library])
        # A few rows: a static table costs the browser far less than a dataframe widget, and
        # scrolls inside its own box on a phone (a Markdown table of arrays spilled over).
        st.table(table.set_index(table.columns[0]))

    ui.tabs([(library, partial(draw, library, table)) for library, table in tables.items()])


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Stable-Baselines3 and vector environments",
    intro=(
        "You will learn how Stable-Baselines3 (SB3) gives PPO several envs at once, and where its "
        "vector envs differ from Gymnasium's."
    ),
    topics=[
        "How Stable-Baselines3 uses vector envs: its own VecEnv wrapper",
        "make_vec_env builds one from a factory",
        "DummyVecEnv vs SubprocVecEnv",
        "The lesson's two other ways to give PPO several envs",
    ],
    links=["Stable-Baselines3 vectorised envs", "Gymnasium vector API", "Auto-reset modes"],
)
KEY = frame.key

version = sb3_version()
have_sb3 = version is not None
recording = sb3_recording.load()
recorded = "" if have_sb3 else f"recorded on {recording.recorded_on}"
st.markdown(
    "SB3's algorithms, such as PPO, train only on SB3's own vector env, a "
    f"{term_link('vecenv', 'VecEnv')} (SB3's vector-env class):"
)
how_sb3_vectorises()
install_status(version, recording)
learning.prediction(
    PREDICTION,
    "The lesson also hands PPO a Gymnasium `SyncVectorEnv` of 4 BurgerBots. Does PPO accept it?",
    ACCEPTS_OPTIONS,
)

calls = result = None
if not learning.revealed(PREDICTION):
    frame.settings_done()
else:
    # --- 1. The lesson's calls -------------------------------------------------------------------
    st.header("1. The lesson's PPO calls, run")
    if have_sb3:
        with st.spinner("Running the scripts (importing stable-baselines3 and torch)…"):
            try:
                calls = lesson_calls(LESSON_ENVS)
            except Exception as error:  # the page keeps working; the message says what broke
                st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
    else:
        calls = recorded_calls(recording)
    show_lesson_calls(calls, LESSON_ENVS, recorded)
    if calls is not None:
        vector_run = calls["gymnasium_vector"]
        explanation = accepts_explanation(vector_run, version or recording.sb3_version)
        if recorded:
            explanation += f" ({recorded}.)"
        source = "the recorded run" if recorded else "the live run"
        learning.check(PREDICTION, accepts_truth(vector_run), explanation, run=source)

    # --- 2. The two APIs, side by side -----------------------------------------------------------
    st.header("2. SB3 and Gymnasium on the same actions")
    (n_spec, steps_spec, seed_spec) = SPECS
    c_n, c_steps, c_seed = st.columns(3)
    c_n.slider(
        n_spec.label, n_spec.low, n_spec.high, key=KEY["n"], help="Copies in each vector env."
    )
    c_steps.slider(
        steps_spec.label,
        steps_spec.low,
        steps_spec.high,
        key=KEY["steps"],
        help="How many step() calls the side-by-side run makes.",
    )
    c_seed.number_input(seed_spec.label, seed_spec.low, seed_spec.high, step=1, key=KEY["seed"])
    num_envs = int(st.session_state[KEY["n"]])
    steps = int(st.session_state[KEY["steps"]])
    seed = int(st.session_state[KEY["seed"]])
    frame.settings_done()

    st.markdown(
        f"{VERDICTS['imprecise'].badge()} SB3 resets an ended env **on the same step**, as the "
        'lesson says, but puts the last observation in `infos[i]["terminal_observation"]`. '
        f"{VERDICTS['changed'].badge()} Gymnasium's default, NEXT_STEP, resets on the *next* call."
    )
    try:
        result = compared(num_envs, steps, seed, have_sb3)
    except Exception as error:
        st.error(f"Could not run the comparison: {type(error).__name__}: {error}")
    if result is not None:
        show_around_first_end(around_first_end(result, after=1), have_sb3)

        def comparison_script() -> None:
            st.caption("Needs stable-baselines3, gymnasium and this project's `burgerbot` library.")
            learning.script_block(
                snippets.side_by_side_script(num_envs, steps, seed),
                name="SB3 and Gymnasium side by side",
            )

        with st.expander("Code: this comparison as a script you can run", icon="🐍"):
            comparison_script()


side_output = None if have_sb3 else recorded_output(recording, "sb3.side_by_side")
frame.takeaways(
    takeaways(
        calls,
        result,
        version or recording.sb3_version,
        recorded_on=recording.recorded_on if recorded else None,
        recorded_agreement=recorded_agreement(side_output) if side_output else None,
    ),
    after=PREDICTION,
)
