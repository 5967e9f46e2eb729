"""Stable-Baselines3: how it vectorises, how its VecEnv API differs from Gymnasium's, live."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.panels import sb3 as panels
from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.scripts import sb3 as snippets
from burgerbot.app.views.sb3 import INSTALL_COMMAND, PPO_N_STEPS, SPECS, invalid_calls, sb3_version
from burgerbot.app.views.sb3_api import api_markdown, api_rows
from burgerbot.app.views.sb3_side_by_side import SideBySide, around_first_end, side_by_side
from burgerbot.app.views.sb3_training import PPOResult, train_ppo

PAGE = "sb3"
STARTED = f"_{PAGE}_started_ppo"


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
    topics=[
        "How Stable-Baselines3 uses vector envs: its own VecEnv wrapper",
        "make_vec_env builds one from a factory",
        "DummyVecEnv vs SubprocVecEnv",
        "Where the lesson's SB3 calls no longer work",
    ],
    links=["Stable-Baselines3 vectorised envs", "Gymnasium vector API", "Auto-reset modes"],
)
KEY = frame.key

version = sb3_version()
have_sb3 = version is not None
panels.install_status(version)
st.write(
    "Stable-Baselines3 (SB3) is the library of the next lesson. Its algorithms, such as PPO, "
    "always work on a batch of environments, but not Gymnasium's vector envs: SB3 has its "
    "own vector-env classes, with an older API. This page shows the two side by side."
)

# --- 1. How SB3 vectorises ---------------------------------------------------------------------
st.header("1. How SB3 vectorises")
panels.how_sb3_vectorises()

# --- 2. The two APIs ------------------------------------------------------------------------------
st.header("2. Two vector-env APIs")
(n_spec, steps_spec, seed_spec, ppo_envs_spec, ppo_steps_spec) = SPECS
c_n, c_steps, c_seed = st.columns(3)
c_n.slider(n_spec.label, n_spec.low, n_spec.high, key=KEY["n"], help="Copies in each vector env.")
c_steps.slider(
    steps_spec.label,
    steps_spec.low,
    steps_spec.high,
    key=KEY["steps"],
    help="How many step() calls the side-by-side run in section 3 makes.",
)
c_seed.number_input(seed_spec.label, seed_spec.low, seed_spec.high, step=1, key=KEY["seed"])
num_envs = int(st.session_state[KEY["n"]])
steps = int(st.session_state[KEY["steps"]])
seed = int(st.session_state[KEY["seed"]])
frame.settings_done()

st.write(
    "The same questions, answered by each library. Cells marked *✓ live* were read from a "
    f"run of the installed libraries on {num_envs} BurgerBots on this server; the others come "
    "from each library's documentation."
)
with st.spinner("Importing stable-baselines3 and torch (slow the first time)…"):
    try:
        st.markdown(api_table(num_envs, have_sb3))
    except Exception as error:  # the page keeps working; the message says what broke
        st.error(f"Could not build the table: {type(error).__name__}: {error}")

# --- 3. Side by side ------------------------------------------------------------------------------
st.header("3. The same actions, side by side")
runs = "SB3's `DummyVecEnv` and " if have_sb3 else ""
st.write(
    f"{runs}Gymnasium's `SyncVectorEnv` in two auto-reset modes get the same random actions "
    f"for {steps} `step()` calls on {num_envs} BurgerBots. Below: one env around the first "
    "moment an episode ends."
)
try:
    result = compared(num_envs, steps, seed, have_sb3)
except Exception as error:
    st.error(f"Could not run the comparison: {type(error).__name__}: {error}")
    result = None

if result is not None:
    if have_sb3:
        panels.agreement(result)
    panels.around_first_end(around_first_end(result), have_sb3)
    code = snippets.side_by_side_script(num_envs, steps, seed)
    with st.expander("Code: this comparison as a script you can run (needs stable-baselines3)"):
        st.code(code, language="python")

# --- 4. The lesson's invalid calls -------------------------------------------------------------
st.header("4. Two calls that do not work")
st.write(
    "Two ways of combining PPO with several environments look reasonable but fail with "
    "today's SB3. The scripts below are exactly what runs."
)
if have_sb3:
    with st.spinner("Running the scripts…"):
        try:
            calls = lesson_calls(num_envs)
        except Exception as error:
            st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
            calls = None
    if calls is not None:
        panels.lesson_calls(calls)
else:
    panels.lesson_calls_described(num_envs)

# --- 5. Train PPO ------------------------------------------------------------------------------
st.header("5. Train PPO on BurgerBot")
st.write(
    f"A short PPO run on the CPU: `n_envs` copies, `n_steps={PPO_N_STEPS}` `step()` calls "
    "per env between two updates, so each update learns from "
    f"`n_steps x n_envs` transitions. It is far too short to master BurgerBot; it shows the "
    "pieces working together."
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
ppo_code = snippets.ppo_training_script(ppo_envs, PPO_N_STEPS, ppo_steps, seed)
if not have_sb3:
    st.info(
        f"Training needs stable-baselines3: `{INSTALL_COMMAND}`. This is the script the "
        "page would run:",
        icon="📦",
    )
    st.code(ppo_code, language="python")
else:
    st.caption(
        f"{ppo_envs} env{'s' if ppo_envs > 1 else ''} x {PPO_N_STEPS} steps = "
        f"{ppo_envs * PPO_N_STEPS:,} transitions per update; {ppo_steps:,} env-steps in all "
        f"(seed {seed}, from section 2)."
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
    else:
        st.info("Press **Train PPO** to start.", icon="👆")
    with st.expander("Code: this training run as a script you can run"):
        st.code(ppo_code, language="python")
