"""Auto-reset: what a vector env does when one sub-environment's episode ends, in the two
modes that restart it by themselves (NEXT_STEP, SAME_STEP)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.call_stepper import call_stepper
from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import BACKEND_CLASSES, BACKEND_LONG_NAMES, VERDICTS, counted
from burgerbot.app.logic.autoreset import (
    BACKEND_CHOICES,
    OPTIONS,
    PAGE_MODES,
    READABLE_ENVS,
    SPECS,
    START_OBS,
    TABLE_COLUMNS,
    TIMELINE_MAX_CELLS,
    AutoresetSettings,
    InfosCheck,
    check_infos_live,
    default_autoreset_mode,
    ending_calls,
    episode_ends,
    episode_timeline,
    gymnasium_version,
    lesson_verdict,
    lesson_vs_installed,
    mode_captions,
    obs_text,
    pick_episode_end,
    prediction_explanation,
    question,
    resolve_settings,
    run_page_rollout,
    same_step_end_keys,
    stepper_views,
    takeaway_bullets,
    timeline_cells,
    timeline_highlight,
    widget_values,
)
from burgerbot.app.markdown import markdown_table
from burgerbot.app.result_cache import ResultCache
from burgerbot.app.scripts.autoreset import (
    final_obs_script,
    infos_check_output,
    infos_check_script,
    snippet_for,
)
from burgerbot.app.slots import HEAVY_RUNS, ServerBusy
from burgerbot.checks import MAX_SEED

PAGE = "autoreset"
PREDICTION = "autoreset_next_step"
HIGH = {spec.key: spec.high for spec in SPECS if hasattr(spec, "high")}


# --- Runs shared by every session; the page's intro, settings and prediction ----------------------
# The "Auto-reset" page's panels: each section's text, chart and tables, and its runs.


_READING = {
    "NEXT_STEP": (
        "**Look for the white cells ⚪.** After an episode ends (✖ hit, ◆ goal, ▼ cut off at "
        "the step limit), the **next** call is spent on the reset: that is the white cell with "
        "a dot, where the new episode's colour starts. Hover it to see what it returned."
    ),
    "SAME_STEP": (
        "**Look for the black bar ▮ at the right edge of an ending cell.** The robot is restarted "
        "*inside* the call that ends its episode: that call already returns the new start "
        '`[0, 0, 1, 1]`, and the final observation moves to `infos["final_obs"]`. No call is '
        "lost: the next call is an ordinary step of the new episode."
    ),
}

_WHERE = {
    "NEXT_STEP": (
        "In NEXT_STEP mode the final observation is simply `obs[i]` on the ending call, and the "
        "next episode's first observation comes one call later."
    ),
    "SAME_STEP": (
        "In SAME_STEP mode `obs[i]` on the ending call is already the next episode's start; "
        'the final observation is in `infos["final_obs"][i]` (and `infos["_final_obs"][i]` '
        "is True)."
    ),
}


@st.cache_resource
def shared_results() -> ResultCache:
    """Finished runs and what the page derives from them, shared by every session.

    A few entries, and a few megabytes: a run can hold 128,000 rows (about 15 MB).
    """
    return ResultCache(max_entries=10, max_bytes=CAPS.max_page_cache_mb * 2**20)


def computed(key: Hashable, label: str, compute: Callable[[Any], Any], env_steps: int = 0) -> Any:
    """A cached result; the first time, computed under a progress bar. Errors stop the page.

    Args:
        key: What the result depends on.
        label: The progress bar's text (and the error's, if it fails).
        compute: Makes the result, given a progress callback (None when it is cached).
        env_steps: The env-steps computing it takes: a heavy run waits for a server-wide
            slot, and with none free the page says how long to wait and stops.
    """
    cache = shared_results()
    if key in cache:
        return cache.get_or_compute(key, lambda: compute(None))
    try:
        with measured.progress_bar(f"{label}: ") as report:

            def heavy_compute() -> Any:
                with HEAVY_RUNS.hold(env_steps=env_steps):
                    return compute(report)

            return cache.get_or_compute(key, heavy_compute)
    except ServerBusy as busy:
        st.warning(str(busy), icon="⏳")
        st.button("Try again", key=f"{PAGE}_busy_retry")
        st.stop()
    except Exception as exc:  # a failed run must not take the page down
        st.error(f"{label} failed: {exc}")
        st.stop()


@st.cache_data(show_spinner=False)
def lesson_facts() -> tuple[str, tuple[str, ...]]:
    """The installed gymnasium's default mode and its SAME_STEP ``infos`` keys, checked live."""
    return default_autoreset_mode(), same_step_end_keys()


@st.cache_data(max_entries=16, show_spinner="Checking infos live…")
def infos_check(num_envs: int, seed: int, mode: str, step: int, env: int) -> InfosCheck:
    return check_infos_live(num_envs, seed, mode, step, env)


def run_key(settings: AutoresetSettings, backend: str) -> tuple:
    return ("rollout", backend, settings.num_envs, settings.steps, settings.seed, settings.mode)


def page_run(run_settings: AutoresetSettings) -> pd.DataFrame:
    """The rollout for ``run_settings`` on its backend, shared by every session."""
    size = f"{run_settings.num_envs} envs × {run_settings.steps:,} steps, {run_settings.mode}"
    return computed(
        run_key(run_settings, run_settings.backend),
        f"Running {size} on {run_settings.backend}",
        lambda progress: run_page_rollout(run_settings, progress=progress),
        env_steps=run_settings.num_envs * run_settings.steps,
    )


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Auto-reset: when one robot's episode ends",
    intro=(
        f"The lesson's third point: when one sub-environment's episode ends, the "
        f"{term_link('vector-env')} resets it by itself ({term_link('autoreset')}). You will "
        "learn on which `step()` call that happens, where the episode's final observation goes, "
        "and what changed since the lesson's gymnasium 0.29."
    ),
    topics=[
        "Auto-reset of sub-environments",
        "NEXT_STEP and SAME_STEP modes",
        'infos["final_observation"] (gymnasium 0.29) vs today',
    ],
    links=["Auto-reset modes", "Gymnasium vector API"],
)
settings = frame.resolve(resolve_settings, widget_values)
default_mode, same_step_keys = lesson_facts()
st.markdown(
    "Since gymnasium 1.0, `autoreset_mode` says *when* a sub-environment whose episode ended "
    "restarts: in **NEXT_STEP** mode on the call after the ending one, in **SAME_STEP** mode "
    "inside the ending call itself (the lesson's behaviour: gymnasium 0.29 had only this one). "
    "A third mode, DISABLED, never restarts by itself: it has "
    "[its own page](disabled_mode) under Going further."
)
st.radio(
    "Auto-reset mode",
    PAGE_MODES,
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
    help=f"At most {CAPS.max_steps_per_run:,} per run on this app.",
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
    format_func=BACKEND_CLASSES.get,
    help=(
        "SyncVectorEnv is the lesson's; BurgerBotVectorEnv is this project's natively batched "
        "env (not Gymnasium's). Both must give the very same run: the other one is run too, "
        "and compared."
    ),
)
frame.settings_done()
learning.prediction(PREDICTION, question(default_mode), OPTIONS)

# --- 1. Timeline ---------------------------------------------------------------------------


def timeline_reading(mode: str) -> None:
    """How to read the timeline, and what to look for in ``mode``."""
    st.markdown(
        f"Each row is one {term_link('sub-environment')}, each cell one "
        f"{term_link('step-call', '`step()` call')}, read left to right. Colours alternate with "
        "each new episode, so a change of colour is a restart. " + _READING[mode]
    )


def timeline(
    cells: pd.DataFrame,
    shown_steps: int,
    highlight: tuple[int, int, int] | None,
    settings: AutoresetSettings,
    results: int,
    backends_agree: bool,
) -> None:
    """The timeline chart, and captions on what it shows and on the other backend's check.

    Args:
        cells: From ``timeline_cells``.
        shown_steps: How many steps ``cells`` covers.
        highlight: ``(env, first_step, last_step)`` of the episode end section 3 uses.
        settings: The page's settings.
        results: How many (step, env) results the run returned.
        backends_agree: Whether the other backend returned the very same run.
    """
    learning.chart_with_table(
        learning.chart_spec(episode_timeline, cells, shown_steps, highlight),
        cells[list(TABLE_COLUMNS)],
    )
    other_backend = "native" if settings.backend == "sync" else "sync"
    captions = ["Hover a cell for details; scroll to zoom, drag to pan, double-click to reset."]
    if highlight is not None:
        captions.append(
            f"The black outline (env {highlight[0]}, step {highlight[1]}) marks the episode end "
            "that section 3 compares with the lesson."
        )
    if shown_steps < settings.steps:
        captions.append(
            f"The timeline shows the first {shown_steps:,} of {settings.steps:,} steps (it draws "
            f"at most {TIMELINE_MAX_CELLS:,} cells); section 2 lists every episode end."
        )
    if settings.num_envs > READABLE_ENVS:
        captions.append(
            f"With more than {READABLE_ENVS} envs the rows get thin: hover to read a cell, or "
            "lower NUM_ENVS."
        )
    if backends_agree:
        captions.append(
            f"✅ Check: the same run on {BACKEND_LONG_NAMES[other_backend]} returned exactly the "
            f"same {results:,} (step, env) results."
        )
    else:
        st.error(
            f"The same run on {BACKEND_LONG_NAMES[other_backend]} returned different results: "
            "please report this."
        )
    st.caption(" ".join(captions))


# --- 2. Episode ends -----------------------------------------------------------------------


def episode_ends_table(events: pd.DataFrame, mode: str, steps: int) -> None:
    """How many episodes ended, by cause, where ``mode`` puts their observations, the table."""
    if events.empty:
        st.info(f"No episode ended in these {steps} steps. Try more steps or another seed.")
        return
    by_cause = events["cause"].str.split(" ").str[0].value_counts()
    st.write(
        f"{len(events):,} episodes ended in this run ("
        + ", ".join(f"{c}: {by_cause.get(c, 0):,}" for c in ("hit", "goal", "truncated"))
        + ")"
        + ". "
        + _WHERE[mode]
    )
    # Drawn only while open: a closed expander's dataframe still costs the browser about 40 ms
    # on every visit, about 10% of the page's warm switch (tools.latency).
    learning.lazy_expander(
        f"All {len(events):,} episode ends, and where each one's observations are",
        lambda: st.dataframe(events, hide_index=True, height=min(420, 38 + 35 * len(events))),
        key="autoreset_episode_ends",
    )


# --- 3. The lesson vs the installed gymnasium ----------------------------------------------


def lesson_verdict_line(kind: str, why: str) -> None:
    """The verdict on the lesson's auto-reset claim: its badge (colour and icon by kind), why."""
    st.markdown(f"{VERDICTS[kind].badge()} {why}")


def _installed_text(mode: str, end: Mapping[str, Any], check: InfosCheck) -> str:
    """What the installed gymnasium handed back at the episode end, in ``mode`` (one of
    `PAGE_MODES`)."""
    step, env, final = int(end["step"]), int(end["env"]), end["final obs"]
    if mode == "NEXT_STEP":
        return (
            f"NEXT_STEP (a new `SyncVectorEnv` here defaults to `{check.default_mode}`). Step "
            f"{step} handed back `obs[{env}] = {final}`, the **final** observation, and no "
            f"extra key in `infos`. The start `{obs_text(START_OBS)}` only came at step "
            f"{step + 1}, with reward 0.0."
        )
    return (
        f"SAME_STEP gives the lesson's timing: step {step} handed back `obs[{env}] = "
        f"{obs_text(START_OBS)}`. But the final observation `{final}` is under a new name, "
        f'`infos["final_obs"][{env}]`. (The default mode here is `{check.default_mode}`.)'
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


def revealed_sections(settings: AutoresetSettings) -> str | None:
    """Sections 1 to 3, once the prediction is answered or skipped; the NEXT_STEP truth."""
    mode = settings.mode
    version = gymnasium_version()
    other_backend = "native" if settings.backend == "sync" else "sync"
    run = page_run(settings)
    # Only the verdict is kept: a second copy of the run would double the memory.
    backends_agree = computed(
        ("agree", *run_key(settings, settings.backend)),
        f"Checking the same run on {other_backend}",
        lambda progress: run.equals(run_page_rollout(settings, other_backend, progress)),
        env_steps=settings.num_envs * settings.steps,
    )
    events = computed(
        ("events", *run_key(settings, settings.backend)),
        "Listing every episode end",
        lambda _: episode_ends(run, mode),
    )
    # The prediction is about NEXT_STEP: its answer comes from a NEXT_STEP run of these settings.
    next_settings = replace(settings, mode="NEXT_STEP")
    next_run = page_run(next_settings)
    calls = computed(
        ("calls", *run_key(next_settings, settings.backend)),
        "Reading the episode ends",
        lambda _: ending_calls(next_run),
    )

    st.header("1. Every step of every robot")
    timeline_reading(mode)
    end = pick_episode_end(events, settings.steps)
    cells, shown_steps = computed(
        ("cells", *run_key(settings, settings.backend)),
        "Drawing the timeline",
        lambda _: timeline_cells(run, mode),
    )
    timeline(
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
        "The same run, call by call: what each `step()` call returned for each robot, and "
        "which robots it restarted. Watch an episode end, then press **Step once** again."
    )
    shown_run = run_key(settings, settings.backend)
    call_stepper(
        computed(
            ("stepper", *shown_run),
            "Writing out each call",
            lambda _: stepper_views(run, mode, settings.num_envs, settings.steps),
        ),
        run=repr(shown_run),
        key=f"{PAGE}_stepper",
        helps={"reset": "Back to the state after reset()"},
    )

    st.header("2. Every episode end, and where to find its observations")
    episode_ends_table(events, mode, settings.steps)
    ui.code_expander(
        snippet_for(settings),
        "Code: this run as a script you can run",
        name="auto-reset episode ends",
    )
    learning.exercise(
        "autoreset_final_obs",
        "collect the final observations in NEXT_STEP mode",
        f"Write a script that steps {counted(settings.num_envs, 'BurgerBot')} "
        f"in NEXT_STEP mode for "
        f"{settings.steps} calls with the page's random actions "
        f"(`np.random.default_rng({settings.seed}).integers(0, 4, size=(STEPS, NUM_ENVS))`) "
        "and collects every episode's final observation, with the step and the env it came "
        "from. Which call returns it, and does `infos` hold it? Compare your list with the "
        "table above (in NEXT_STEP mode).",
        final_obs_script(settings.num_envs, settings.steps, settings.seed),
        answer_name="collect final observations",
    )

    st.header(f"3. The lesson vs gymnasium {version}")
    lesson_verdict_line(*lesson_verdict(default_mode, same_step_keys))
    if end is None:
        st.info("No episode ended in this run, so there is nothing to compare: try more steps.")
    else:
        check = infos_check(
            settings.num_envs, settings.seed, mode, int(end["step"]), int(end["env"])
        )
        table = lesson_vs_installed(run, end, mode, check, version)
        lesson_comparison(end, mode, check, version, table, settings.num_envs, settings.seed)

    return calls.truth


next_step_truth = revealed_sections(settings) if learning.revealed(PREDICTION) else None
frame.takeaways(takeaway_bullets(default_mode, next_step_truth, same_step_keys), after=PREDICTION)
