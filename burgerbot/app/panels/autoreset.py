"""The "Auto-reset" page's panels: each section's text, chart and tables, and its runs."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.caps import CAPS
from burgerbot.app.charts.autoreset import episode_timeline, finished_episodes_chart
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import BACKEND_CLASSES
from burgerbot.app.panels.autoreset_lesson import disabled_demo_panel, lesson_comparison
from burgerbot.app.result_cache import ResultCache
from burgerbot.app.scripts.autoreset import snippet_for
from burgerbot.app.views.autoreset import BACKEND_CHOICES, AutoresetSettings, resolve_settings
from burgerbot.app.views.autoreset_counting import count_finished_by_mode
from burgerbot.app.views.autoreset_sentences import causes_sentence, counting_sentence
from burgerbot.app.views.autoreset_timeline import (
    READABLE_ENVS,
    TABLE_COLUMNS,
    TIMELINE_MAX_CELLS,
)

__all__ = [
    "BACKEND_LABELS",
    "computed",
    "counting_results",
    "counting_section",
    "disabled_demo_panel",
    "episode_ends_table",
    "lesson_comparison",
    "timeline",
    "timeline_reading",
]

_BACKEND_NOTES = {"sync": " (as in the lesson)", "native": " (this project's, not Gymnasium's)"}
BACKEND_LABELS = {
    backend: BACKEND_CLASSES[backend] + _BACKEND_NOTES[backend] for backend in BACKEND_CHOICES
}
"""``{"sync": "SyncVectorEnv (as in the lesson)", "native": "BurgerBotVectorEnv (this ...)"}``."""

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
    "DISABLED": (
        "**Look for the black squares ◼ between an ending cell and the next one.** Nothing "
        "restarts by itself. Between the ending call and the next one, this page calls "
        "`envs.reset(options={'reset_mask': ended})` for just the robots that ended (section "
        "2 shows what happens if you forget). The next call is an ordinary step."
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
    "DISABLED": (
        "In DISABLED mode the final observation is `obs[i]` on the ending call; the next "
        "episode's first observation is what your own `reset(options={'reset_mask': ...})` "
        "call returns."
    ),
}


@st.cache_resource
def shared_results() -> ResultCache:
    """Finished runs and what the page derives from them, shared by every session.

    A few entries only: a run can hold 128,000 rows (about 15 MB).
    """
    return ResultCache(max_entries=10)


def computed(key: Hashable, label: str, compute: Callable[[Any], Any]) -> Any:
    """A cached result; the first time, computed under a progress bar. Errors stop the page.

    Args:
        key: What the result depends on.
        label: The progress bar's text (and the error's, if it fails).
        compute: Makes the result, given a progress callback (None when it is cached).
    """
    cache = shared_results()
    if key in cache:
        return cache.get_or_compute(key, lambda: compute(None))
    bar = st.progress(0.0, text=label)

    def progress(fraction: float, message: str) -> None:
        bar.progress(fraction, text=f"{label}: {message}")

    try:
        return cache.get_or_compute(key, lambda: compute(progress))
    except Exception as exc:  # a failed run must not take the page down
        st.error(f"{label} failed: {exc}")
        st.stop()
    finally:
        bar.empty()


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
            f"✅ Check: the same run on {BACKEND_LABELS[other_backend]} returned exactly the same "
            f"{results:,} (step, env) results."
        )
    else:
        st.error(
            f"The same run on {BACKEND_LABELS[other_backend]} returned different results: "
            "please report this."
        )
    st.caption(" ".join(captions))


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
    ui.lazy_expander(
        f"All {len(events):,} episode ends, and where each one's observations are",
        lambda: st.dataframe(events, hide_index=True, height=min(420, 38 + 35 * len(events))),
        key="autoreset_episode_ends",
    )


def counting_section(frame: ui.PageFrame, high: Mapping[str, int]) -> None:
    """Section 4's controls, its counts and the page's script, for the page's fragment.

    It runs alone when a counting control changes, so it resolves the settings itself and
    mirrors them in the URL (the full page's preamble does that for the other settings).

    Args:
        frame: The page's frame (its widget keys and current values).
        high: Each setting's largest value, by URL key.
    """
    values = frame.values()
    settings, _ = resolve_settings(values)
    # A counting run too big for this page is cut down (only possible with caps raised
    # locally): the full page then says so and shows the value used in the widget.
    if (settings.count_envs, settings.count_steps) != (values["cn"], values["ck"]):
        st.rerun(scope="app")
    col_cn, col_ck = st.columns(2)
    col_cn.slider("NUM_ENVS (counting)", min_value=1, max_value=high["cn"], key=frame.key["cn"])
    col_ck.number_input(
        "step() calls (counting)",
        min_value=1,
        max_value=high["ck"],
        step=50,
        key=frame.key["ck"],
        help=f"At most {CAPS.max_steps_per_run:,} (BURGERBOT_MAX_STEPS_PER_RUN).",
    )
    counts = computed(
        ("counts", settings.backend, settings.count_envs, settings.count_steps, settings.seed),
        f"Counting {settings.count_envs} envs × {settings.count_steps:,} steps in every mode",
        lambda progress: count_finished_by_mode(
            settings.backend, settings.count_envs, settings.count_steps, settings.seed, progress
        ),
    )
    counting_results(counts, settings.count_steps)
    ui.sync_query_params(frame.page, frame.specs)
    ui.code_expander(
        snippet_for(settings),
        "Code: the timeline run and this count as a script you can run",
        name="auto-reset counting",
    )


def counting_results(counts: pd.DataFrame, count_steps: int) -> None:
    """Finished episodes per env and mode: the chart, the totals, and what they say."""
    learning.chart_with_table(learning.chart_spec(finished_episodes_chart, counts), counts)
    st.write(counting_sentence(counts, count_steps) + " " + causes_sentence(counts))
