"""Auto-reset: what a vector env does when one sub-environment's episode ends, mode by mode."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.panels import autoreset as panels
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
    lesson_vs_installed,
    pick_episode_end,
)
from burgerbot.app.views.autoreset_timeline import (
    READABLE_ENVS,
    timeline_cells,
    timeline_highlight,
)
from burgerbot.checks import MAX_SEED

PAGE = "autoreset"
HIGH = {spec.key: spec.high for spec in SPECS if hasattr(spec, "high")}

MODE_CAPTIONS = {
    "NEXT_STEP": "gymnasium's default: the env restarts on the call after the end",
    "SAME_STEP": "restarts inside the ending call (what the lesson describes)",
    "DISABLED": "never restarts by itself: you reset it",
}


@st.cache_data(max_entries=16, show_spinner="Checking infos live…")
def infos_check(num_envs: int, seed: int, mode: str, step: int, env: int) -> InfosCheck:
    return check_infos_live(num_envs, seed, mode, step, env)


@st.cache_data(max_entries=16, show_spinner="Running the DISABLED demo live…")
def disabled_run(num_envs: int, seed: int) -> DisabledDemo:
    return disabled_demo(num_envs, seed)


def run_key(settings: AutoresetSettings, backend: str) -> tuple:
    return ("rollout", backend, settings.num_envs, settings.steps, settings.seed, settings.mode)


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Auto-reset: when one robot's episode ends",
    intro=(
        "In a vector env every robot lives its own episodes. One bumps into a wall at step 3, "
        "another at step 12. The vector env cannot wait for all of them, so it **restarts each "
        "robot on its own** when its episode ends. The question for your code is *when*: on "
        "which `step()` call do you get the last observation of the old episode, and on which "
        "the first observation of the new one? Gymnasium lets you choose, with `autoreset_mode`."
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
st.radio(
    "Auto-reset mode",
    MODES,
    key=frame.key["mode"],
    horizontal=True,
    captions=[MODE_CAPTIONS[m] for m in MODES],
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
    help="Picks the random actions (the robots always start at [0, 0, 1, 1]).",
)
col_backend.radio(
    "Backend",
    BACKEND_CHOICES,
    key=frame.key["backend"],
    format_func=panels.BACKEND_LABELS.get,
    horizontal=True,
    help="Both must give the very same run; the page checks that the other one agrees.",
)
frame.settings_done()

mode = settings.mode
version = gymnasium_version()
other_backend = "native" if settings.backend == "sync" else "sync"
size = f"{settings.num_envs} envs × {settings.steps:,} steps, {mode}"
run = panels.computed(
    run_key(settings, settings.backend),
    f"Running {size} on {settings.backend}",
    lambda progress: run_page_rollout(settings, progress=progress),
)
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

# --- 2. Episode ends -----------------------------------------------------------------------
st.header("2. Every episode end, and where to find its observations")
panels.episode_ends_table(events, mode, settings.steps)

# --- 3. The lesson vs the installed gymnasium ----------------------------------------------
st.header(f"3. The lesson vs gymnasium {version}")
if end is None:
    st.info("No episode ended in this run, so there is nothing to compare: try more steps.")
else:
    check = infos_check(settings.num_envs, settings.seed, mode, int(end["step"]), int(end["env"]))
    table = lesson_vs_installed(run, end, mode, check, version)
    panels.lesson_comparison(end, mode, check, version, table)

# --- 4. DISABLED ---------------------------------------------------------------------------
st.header("4. DISABLED: nothing restarts by itself")
panels.disabled_demo_panel(
    disabled_run(settings.num_envs, settings.seed), expanded=mode == "DISABLED"
)

# --- 5. Counting finished episodes ---------------------------------------------------------
st.header("5. Counting finished episodes")
st.write(
    "The lesson's second example: a few envs take random steps, and you count how many "
    "episodes each one finished (`terminated | truncated`, added up per env). The lesson uses "
    "2 envs and 200 steps; choose your own. All three modes get the same random actions."
)


@st.fragment
def counting() -> None:
    """Section 5's controls, its counts and the script: a change here reruns only this part.

    The sections above do not depend on the counting run, so they are not redrawn.
    """
    panels.counting_section(frame, HIGH)


counting()
