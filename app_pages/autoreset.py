"""Auto-reset: what a vector env does when one sub-environment's episode ends, in the two
modes that restart it by themselves (NEXT_STEP, SAME_STEP)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.call_stepper import call_stepper
from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import BACKEND_CLASSES, BACKEND_LONG_NAMES, VERDICTS
from burgerbot.app.logic.autoreset import (
    BACKEND_CHOICES,
    OPTIONS,
    PAGE_MODES,
    READABLE_ENVS,
    SPECS,
    TABLE_COLUMNS,
    TIMELINE_MAX_CELLS,
    AutoresetSettings,
    default_autoreset_mode,
    ending_calls,
    episode_ends,
    episode_timeline,
    lesson_verdict,
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
from burgerbot.app.result_cache import ResultCache
from burgerbot.app.scripts.autoreset import final_obs_script
from burgerbot.app.slots import HEAVY_RUNS, ServerBusy
from burgerbot.checks import MAX_SEED

PAGE = "autoreset"
PREDICTION = "autoreset_next_step"
HIGH = {spec.key: spec.high for spec in SPECS if hasattr(spec, "high")}


# --- Runs shared by every session; the page's intro, settings and prediction ----------------------
# The "Auto-reset" page's panels: each section's text, chart and tables, and its runs.


_READING = {
    "NEXT_STEP": "**White cells ⚪** are calls spent on a reset.",
    "SAME_STEP": "**A black bar ▮** marks a restart inside the ending call.",
}

_WHERE = {
    "NEXT_STEP": (
        "In NEXT_STEP mode the final observation is `obs[i]` on the ending call; the next "
        "episode's first comes one call later."
    ),
    "SAME_STEP": (
        "In SAME_STEP mode `obs[i]` on the ending call already starts the next episode; the "
        'final observation is in `infos["final_obs"][i]`, its info in `infos["final_info"][i]`.'
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
        f"When one robot's episode ends, the {term_link('vector-env')} restarts it by itself "
        f"({term_link('autoreset')}). You will learn on which `step()` call that happens, where "
        "the episode's final observation goes, and what changed since the lesson's gymnasium "
        "0.29."
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
# No captions on the modes: what each one does is the prediction's answer.
st.radio("Auto-reset mode", PAGE_MODES, key=frame.key["mode"], horizontal=True)
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
        f"{term_link('step-call', '`step()` call')}; a new colour is a new episode. "
        + _READING[mode]
    )


def timeline(
    cells: pd.DataFrame,
    shown_steps: int,
    highlight: tuple[int, int, int] | None,
    settings: AutoresetSettings,
    backends_agree: bool,
) -> None:
    """The timeline chart, and captions on what it shows and on the other backend's check.

    Args:
        cells: From ``timeline_cells``.
        shown_steps: How many steps ``cells`` covers.
        highlight: ``(env, first_step, last_step)`` of the episode end the answer quotes.
        settings: The page's settings.
        backends_agree: Whether the other backend returned the very same run.
    """
    learning.chart_with_table(
        learning.chart_spec(episode_timeline, cells, shown_steps, highlight),
        cells[list(TABLE_COLUMNS)],
    )
    other_backend = "native" if settings.backend == "sync" else "sync"
    captions = []
    if highlight is not None:
        captions.append("The black outline: an episode end and the call after it.")
    if shown_steps < settings.steps:
        captions.append(
            f"The timeline shows the first {shown_steps:,} of {settings.steps:,} steps (it draws "
            f"at most {TIMELINE_MAX_CELLS:,} cells); the episode ends below cover them all."
        )
    if settings.num_envs > READABLE_ENVS:
        captions.append(
            f"With more than {READABLE_ENVS} envs the rows get thin: hover to read a cell, or "
            "lower NUM_ENVS."
        )
    if not backends_agree:
        st.error(
            f"The same run on {BACKEND_LONG_NAMES[other_backend]} returned different results: "
            "please report this."
        )
    if captions:
        st.caption(" ".join(captions))


def episode_ends_table(events: pd.DataFrame, mode: str, steps: int) -> None:
    """Where ``mode`` puts the final observation, and every episode end in a lazy expander."""
    st.markdown(_WHERE[mode])
    if events.empty:
        st.info(f"No episode ended in these {steps} steps. Try more steps or another seed.")
        return
    # Drawn only while open: a closed expander's dataframe still costs the browser about 40 ms
    # on every visit, about 10% of the page's warm switch (tools.latency).
    learning.lazy_expander(
        "Every episode end, and where its observations are",
        lambda: st.dataframe(events, hide_index=True, height=min(420, 38 + 35 * len(events))),
        key="autoreset_episode_ends",
    )


def lesson_verdict_line(kind: str, why: str) -> None:
    """The verdict on the lesson's auto-reset claim: its badge (colour and icon by kind), why."""
    st.markdown(f"{VERDICTS[kind].badge()} {why}")


def revealed_sections(settings: AutoresetSettings) -> str | None:
    """The run, once the prediction is answered or skipped; returns the NEXT_STEP truth."""
    mode = settings.mode
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

    st.header("Every step of every robot")
    timeline_reading(mode)
    cells, shown_steps = computed(
        ("cells", *run_key(settings, settings.backend)),
        "Drawing the timeline",
        lambda _: timeline_cells(run, mode),
    )
    # The outline marks the end the answer quotes, when the timeline is that NEXT_STEP run.
    quoted = calls.example if mode == "NEXT_STEP" else None
    timeline(
        cells,
        shown_steps,
        timeline_highlight(quoted, mode, settings.steps),
        settings,
        backends_agree=backends_agree,
    )
    learning.check(PREDICTION, calls.truth, prediction_explanation(calls, mode))

    st.subheader("Step through it")
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

    st.header("Where is the final observation?")
    episode_ends_table(events, mode, settings.steps)
    lesson_verdict_line(*lesson_verdict(default_mode, same_step_keys))
    ui.code_expander(
        final_obs_script(settings.num_envs, settings.steps, settings.seed),
        "Code: collect this run's final observations",
        name="collect final observations",
    )
    return calls.truth


next_step_truth = revealed_sections(settings) if learning.revealed(PREDICTION) else None
frame.takeaways(takeaway_bullets(default_mode, next_step_truth, same_step_keys), after=PREDICTION)
