"""Auto-reset: what a vector env does when one sub-environment's episode ends, mode by mode."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.call_stepper import call_stepper
from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.panels import autoreset as panels
from burgerbot.app.panels.autoreset_lesson import lesson_verdict_line
from burgerbot.app.scripts.autoreset import final_obs_script
from burgerbot.app.views.autoreset import (
    BACKEND_CHOICES,
    MODES,
    SPECS,
    AutoresetSettings,
    gymnasium_version,
    resolve_settings,
    run_page_rollout,
    widget_values,
)
from burgerbot.app.views.autoreset_disabled import DisabledDemo, disabled_demo
from burgerbot.app.views.autoreset_episodes import episode_ends
from burgerbot.app.views.autoreset_lesson import (
    InfosCheck,
    check_infos_live,
    default_autoreset_mode,
    lesson_vs_installed,
    pick_episode_end,
    same_step_end_keys,
)
from burgerbot.app.views.autoreset_prediction import (
    OPTIONS,
    ending_calls,
    prediction_explanation,
    question,
)
from burgerbot.app.views.autoreset_sentences import (
    lesson_verdict,
    mode_captions,
    takeaway_bullets,
)
from burgerbot.app.views.autoreset_stepper import stepper_views
from burgerbot.app.views.autoreset_timeline import (
    READABLE_ENVS,
    timeline_cells,
    timeline_highlight,
)
from burgerbot.checks import MAX_SEED

PAGE = "autoreset"
PREDICTION = "autoreset_next_step"
HIGH = {spec.key: spec.high for spec in SPECS if hasattr(spec, "high")}


@st.cache_data(show_spinner=False)
def lesson_facts() -> tuple[str, tuple[str, ...]]:
    """The installed gymnasium's default mode and its SAME_STEP ``infos`` keys, checked live."""
    return default_autoreset_mode(), same_step_end_keys()


@st.cache_data(max_entries=16, show_spinner="Checking infos live…")
def infos_check(num_envs: int, seed: int, mode: str, step: int, env: int) -> InfosCheck:
    return check_infos_live(num_envs, seed, mode, step, env)


@st.cache_data(max_entries=16, show_spinner="Running the DISABLED demo live…")
def disabled_run(num_envs: int, seed: int) -> DisabledDemo:
    return disabled_demo(num_envs, seed)


def run_key(settings: AutoresetSettings, backend: str) -> tuple:
    return ("rollout", backend, settings.num_envs, settings.steps, settings.seed, settings.mode)


def page_run(run_settings: AutoresetSettings) -> pd.DataFrame:
    """The rollout for ``run_settings`` on its backend, shared by every session."""
    size = f"{run_settings.num_envs} envs × {run_settings.steps:,} steps, {run_settings.mode}"
    return panels.computed(
        run_key(run_settings, run_settings.backend),
        f"Running {size} on {run_settings.backend}",
        lambda progress: run_page_rollout(run_settings, progress=progress),
    )


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Auto-reset: when one robot's episode ends",
    intro=(
        f"You will learn on which `step()` call a {term_link('vector-env')} restarts a robot "
        f"whose episode ended ({term_link('autoreset')}), where each `autoreset_mode` puts the "
        "episode's final observation, and what changed since the lesson's gymnasium 0.29."
    ),
    topics=[
        "Auto-reset of sub-environments",
        "NEXT_STEP, SAME_STEP and DISABLED modes",
        'infos["final_observation"] (gymnasium 0.29) vs today',
        "Counting finished episodes per environment",
    ],
    links=["Auto-reset modes", "Gymnasium vector API"],
)
settings = frame.resolve(resolve_settings, widget_values)
default_mode, same_step_keys = lesson_facts()
st.radio(
    "Auto-reset mode",
    MODES,
    key=frame.key["mode"],
    horizontal=True,
    captions=mode_captions(default_mode),
)
col_n, col_steps, col_seed, col_backend = st.columns([3, 2, 2, 3])
col_n.slider(
    "NUM_ENVS",
    min_value=1,
    max_value=HIGH["n"],
    key=frame.key["n"],
    help=(
        f"One timeline row per env. Up to {READABLE_ENVS} rows stay easy to read; up to "
        f"{HIGH['n']} work, with thinner rows."
    ),
)
col_steps.number_input(
    "step() calls",
    min_value=1,
    max_value=HIGH["steps"],
    step=10,
    key=frame.key["steps"],
    help=(
        f"At most {CAPS.max_steps_per_run:,} per run on this app (raise with "
        "BURGERBOT_MAX_STEPS_PER_RUN when running locally)."
    ),
)
col_seed.number_input(
    "Seed",
    min_value=0,
    max_value=MAX_SEED,
    step=1,
    key=frame.key["seed"],
    help=(
        "Picks the random actions. BurgerBot draws nothing from its seed: every robot starts "
        "at [0, 0, 1, 1]."
    ),
)
col_backend.selectbox(
    "Backend",
    BACKEND_CHOICES,
    key=frame.key["backend"],
    format_func=panels.BACKEND_LABELS.get,
    help="Both must give the very same run; the page checks that the other one agrees.",
)
frame.settings_done()

mode = settings.mode
version = gymnasium_version()
other_backend = "native" if settings.backend == "sync" else "sync"
run = page_run(settings)
# Only the verdict is kept: a second copy of the run would double the memory.
backends_agree = panels.computed(
    ("agree", *run_key(settings, settings.backend)),
    f"Checking the same run on {other_backend}",
    lambda progress: run.equals(run_page_rollout(settings, other_backend, progress)),
)
events = panels.computed(
    ("events", *run_key(settings, settings.backend)),
    "Listing every episode end",
    lambda _: episode_ends(run, mode),
)
# The prediction is about NEXT_STEP: its answer comes from a NEXT_STEP run of these settings.
next_settings = replace(settings, mode="NEXT_STEP")
next_run = page_run(next_settings)
calls = panels.computed(
    ("calls", *run_key(next_settings, settings.backend)),
    "Reading the episode ends",
    lambda _: ending_calls(next_run),
)
learning.prediction(PREDICTION, question(default_mode), OPTIONS)

# --- 1. Timeline ---------------------------------------------------------------------------
st.header("1. Every step of every robot")
panels.timeline_reading(mode)
end = pick_episode_end(events, settings.steps)
cells, shown_steps = panels.computed(
    ("cells", *run_key(settings, settings.backend)),
    "Drawing the timeline",
    lambda _: timeline_cells(run, mode),
)
panels.timeline(
    cells,
    shown_steps,
    timeline_highlight(end, mode, settings.steps),
    settings,
    results=len(run),
    backends_agree=backends_agree,
)
if calls.truth is None:
    st.info(prediction_explanation(calls, mode))
else:
    learning.check(PREDICTION, calls.truth, prediction_explanation(calls, mode))

st.subheader("Step through it, one call at a time")
st.markdown(
    "The same run, call by call: what each `step()` call returned for each robot, and which "
    "robots it restarted. Watch an episode end, then press **Step once** again. The whole run "
    "is already in your browser, so each click answers at once."
)
shown_run = run_key(settings, settings.backend)
call_stepper(
    panels.computed(
        ("stepper", *shown_run),
        "Writing out each call",
        lambda _: stepper_views(run, mode, settings.num_envs, settings.steps),
    ),
    run=repr(shown_run),
    key=f"{PAGE}_stepper",
    reset_help="Back to the state after reset()",
)

# --- 2. Episode ends -----------------------------------------------------------------------
st.header("2. Every episode end, and where to find its observations")
panels.episode_ends_table(events, mode, settings.steps)
learning.exercise(
    "autoreset_final_obs",
    "collect the final observations in NEXT_STEP mode",
    f"Write a script that steps {settings.num_envs} BurgerBots in NEXT_STEP mode for "
    f"{settings.steps} calls with the page's random actions "
    f"(`np.random.default_rng({settings.seed}).integers(0, 4, size=(STEPS, NUM_ENVS))`) and "
    "collects every episode's final observation, with the step and the env it came from. "
    "Which call returns it, and does `infos` hold it? Compare your list with the table above "
    "(in NEXT_STEP mode).",
    final_obs_script(settings.num_envs, settings.steps, settings.seed),
    answer_name="collect final observations",
)

demo = disabled_run(settings.num_envs, settings.seed)
panels.disabled_demo_panel(demo, expanded=mode == "DISABLED")

# --- 3. The lesson vs the installed gymnasium ----------------------------------------------
st.header(f"3. The lesson vs gymnasium {version}")
lesson_verdict_line(*lesson_verdict(default_mode, same_step_keys))
if end is None:
    st.info("No episode ended in this run, so there is nothing to compare: try more steps.")
else:
    check = infos_check(settings.num_envs, settings.seed, mode, int(end["step"]), int(end["env"]))
    table = lesson_vs_installed(run, end, mode, check, version)
    panels.lesson_comparison(end, mode, check, version, table, settings.num_envs, settings.seed)

# --- 4. Counting finished episodes ---------------------------------------------------------
st.header("4. Counting finished episodes")
st.write(
    "The lesson's second example (on 2 CartPoles, 200 steps; here on BurgerBots): episodes "
    "finished per env, `terminated | truncated` added up, in every mode with the same actions."
)


@st.fragment
def counting() -> None:
    """Section 4's controls, its counts and the script: a change here reruns only this part.

    The sections above do not depend on the counting run, so they are not redrawn.
    """
    panels.counting_section(frame, HIGH)


counting()
frame.takeaways(takeaway_bullets(default_mode, calls.truth, same_step_keys, demo.sync_error or ""))
