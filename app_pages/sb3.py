"""Stable-Baselines3: how it vectorises, how its VecEnv API differs from Gymnasium's, live."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS
from burgerbot.app.panels import sb3 as panels
from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.scripts import sb3 as snippets
from burgerbot.app.views.sb3 import INSTALL_COMMAND, PPO_N_STEPS, SPECS, invalid_calls, sb3_version
from burgerbot.app.views.sb3_api import api_markdown, api_rows
from burgerbot.app.views.sb3_learning import (
    ACCEPTS_OPTIONS,
    accepts_explanation,
    accepts_truth,
    takeaways,
)
from burgerbot.app.views.sb3_side_by_side import SideBySide, around_first_end, side_by_side
from burgerbot.app.views.sb3_training import PPOResult, train_ppo

PAGE = "sb3"
STARTED = f"_{PAGE}_started_ppo"
LESSON_ENVS = 4  # the lesson's PPO calls use 4 envs
PREDICTION = f"{PAGE}_accepts_sync"


@st.cache_data(max_entries=8, show_spinner=False)
def api_table(num_envs: int, live_sb3: bool) -> str:
    return api_markdown(api_rows(num_envs, live_sb3=live_sb3))


@st.cache_data(max_entries=8, show_spinner=False)
def compared(num_envs: int, steps: int, seed: int, with_sb3: bool) -> SideBySide:
    return side_by_side(num_envs, steps, seed, with_sb3=with_sb3)


@st.cache_data(max_entries=4, show_spinner=False)
def lesson_calls(num_envs: int) -> dict[str, ScriptRun]:
    return invalid_calls(num_envs)


@st.cache_data(max_entries=4, show_spinner=False)
def ppo_run(num_envs: int, total_timesteps: int, seed: int) -> PPOResult:
    # The bar lives inside the cached function: a cache hit replays it and clears it again.
    bar = st.empty()

    def report(fraction: float, message: str) -> None:
        bar.progress(min(1.0, max(0.0, fraction)), text=f"{message} ({fraction:.0%})")

    try:
        return train_ppo(num_envs, PPO_N_STEPS, total_timesteps, seed, report)
    finally:
        bar.empty()


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Stable-Baselines3 and vector environments",
    intro=(
        "You will learn how Stable-Baselines3 (SB3) runs several environments at once, how to "
        "give PPO several BurgerBots, and where SB3's vector API differs from Gymnasium's."
    ),
    topics=[
        "How Stable-Baselines3 uses vector envs: its own VecEnv wrapper",
        "make_vec_env builds one from a factory",
        "DummyVecEnv vs SubprocVecEnv",
        "The lesson's two PPO calls that never worked",
    ],
    links=["Stable-Baselines3 vectorised envs", "Gymnasium vector API", "Auto-reset modes"],
)
KEY = frame.key

version = sb3_version()
have_sb3 = version is not None
panels.install_status(version)
st.markdown(
    "SB3 is a library of ready-made algorithms such as PPO; the lesson says you will build its "
    "vector envs with `make_vec_env` in lessons 12 and 13. PPO always trains on a "
    f"{term_link('vector-env')}, collecting a {term_link('rollout')} from all copies at once. "
    "The lesson gives PPO several envs in two ways."
)
learning.prediction(PREDICTION, "Does PPO accept a Gymnasium `SyncVectorEnv`?", ACCEPTS_OPTIONS)

# --- 1. The lesson's calls -----------------------------------------------------------------------
st.header("1. The lesson's PPO calls, run here")
calls = None
if have_sb3:
    with st.spinner("Running the scripts (importing stable-baselines3 and torch)…"):
        try:
            calls = lesson_calls(LESSON_ENVS)
        except Exception as error:  # the page keeps working; the message says what broke
            st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
panels.lesson_calls(calls, LESSON_ENVS)
if calls is not None:
    vector_run = calls["gymnasium_vector"]
    learning.check(PREDICTION, accepts_truth(vector_run), accepts_explanation(vector_run, version))
else:
    st.caption(
        "🔮 Your prediction cannot be checked here: stable-baselines3 is not installed, so PPO "
        f"was not tried. `{INSTALL_COMMAND}` and restart the app to check it live."
    )
learning.exercise(
    f"{PAGE}_rewrite_ppo",
    "rewrite the lesson's PPO call",
    "The lesson wants each PPO update to learn from **2,048 transitions**, collected by **4** "
    'BurgerBots in **512** `step()` calls, and writes `PPO("MlpPolicy", env, n_envs=4)`. '
    "Write a whole script that builds the 4 envs with `make_vec_env`, sets `n_steps` so "
    "that one update holds 2,048 transitions, trains for exactly one update, and prints the "
    "rollout buffer's shape and how many `step()` calls it took (an SB3 `BaseCallback`'s "
    "`_on_step` runs once per call).",
    snippets.exercise_answer(LESSON_ENVS, 2048),
    answer_name="the lesson's PPO call rewritten",
)

# --- 2. How SB3 vectorises -----------------------------------------------------------------------
st.header("2. How SB3 vectorises")
panels.how_sb3_vectorises()

# --- 3. The two APIs, side by side ---------------------------------------------------------------
st.header("3. Two vector-env APIs, side by side")
(n_spec, steps_spec, seed_spec, ppo_envs_spec, ppo_steps_spec) = SPECS
c_n, c_steps, c_seed = st.columns(3)
c_n.slider(n_spec.label, n_spec.low, n_spec.high, key=KEY["n"], help="Copies in each vector env.")
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

with st.expander("The two APIs, question by question (a table)", icon="📋"):
    st.caption(
        "Cells marked *✓ live* were read from a run of the installed libraries on "
        f"{num_envs} BurgerBots on this server; the others come from each library's documentation."
    )
    with st.spinner("Importing stable-baselines3 and torch (slow the first time)…"):
        try:
            st.markdown(api_table(num_envs, have_sb3))
        except Exception as error:  # the page keeps working; the message says what broke
            st.error(f"Could not build the table: {type(error).__name__}: {error}")

runs = "SB3's `DummyVecEnv` and " if have_sb3 else ""
st.markdown(
    f"{runs}Gymnasium's `SyncVectorEnv` in two {term_link('autoreset', 'auto-reset')} modes: "
    f"same random actions, {steps} calls, {num_envs} BurgerBots. {VERDICTS['changed'].badge()} "
    "NEXT_STEP, Gymnasium's default, came with 1.0; the lesson's 0.29 reset inside the ending "
    "call, as SB3 does."
)
try:
    result = compared(num_envs, steps, seed, have_sb3)
except Exception as error:
    st.error(f"Could not run the comparison: {type(error).__name__}: {error}")
    result = None
if result is not None:
    if have_sb3:
        panels.agreement(result)
    panels.around_first_end(around_first_end(result, after=1), have_sb3)

    def comparison_script() -> None:
        st.caption("Needs stable-baselines3, gymnasium and this project's `burgerbot` library.")
        learning.script_block(
            snippets.side_by_side_script(num_envs, steps, seed),
            name="SB3 and Gymnasium side by side",
        )

    ui.lazy_expander("Code: this comparison as a script you can run", comparison_script, icon="🐍")

# --- 4. Train PPO --------------------------------------------------------------------------------
st.header("4. Train PPO on BurgerBot")
st.markdown(
    f"A short PPO run on the CPU, `n_steps={PPO_N_STEPS}` per env: each update learns from "
    f"`n_steps x n_envs` {term_link('transition', 'transitions')}. Far too short to master "
    "BurgerBot."
)
p_envs, p_steps = st.columns(2)
p_envs.slider(ppo_envs_spec.label, ppo_envs_spec.low, ppo_envs_spec.high, key=KEY["ppo_envs"])
p_steps.number_input(
    ppo_steps_spec.label,
    min_value=ppo_steps_spec.low,
    max_value=ppo_steps_spec.high,
    step=512,
    key=KEY["ppo_steps"],
    help=(
        f"At most {CAPS.max_ppo_timesteps:,} here: PPO steps about a thousand times slower than "
        "the numpy examples on the other pages."
    ),
)
ppo_envs = int(st.session_state[KEY["ppo_envs"]])
ppo_steps = int(st.session_state[KEY["ppo_steps"]])
if not have_sb3:
    st.info(f"Training needs stable-baselines3: `{INSTALL_COMMAND}`.", icon="📦")
else:
    st.caption(
        f"{ppo_envs} env{'s' if ppo_envs > 1 else ''} x {PPO_N_STEPS} steps = "
        f"{ppo_envs * PPO_N_STEPS:,} transitions per update; {ppo_steps:,} env-steps in all "
        f"(seed {seed}, from section 3)."
    )
    settings = (ppo_envs, ppo_steps, seed)
    started: set = st.session_state.setdefault(STARTED, set())
    if st.button("Train PPO", key=f"{PAGE}_train", type="primary", icon="▶️"):
        try:
            ppo_run(*settings)
            started.add(settings)
        except Exception as error:  # the page keeps working; the message says what broke
            st.error(f"Training failed: {type(error).__name__}: {error}")
    if settings in started:
        panels.ppo_outcome(ppo_run(*settings))
ui.lazy_expander(
    "Code: this training run as a script you can run",
    lambda: learning.script_block(
        snippets.ppo_training_script(ppo_envs, PPO_N_STEPS, ppo_steps, seed),
        name="PPO on BurgerBot",
    ),
    icon="🐍",
)

frame.takeaways(takeaways(calls, result, version))
