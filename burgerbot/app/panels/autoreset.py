"""The "Auto-reset" page's panels: each section's text, chart and tables, and its runs."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.charts.autoreset import (
    episode_timeline,
    finished_episodes_chart,
    timeline_pixel_height,
)
from burgerbot.app.labels import BACKEND_CLASSES
from burgerbot.app.markdown import markdown_table
from burgerbot.app.result_cache import ResultCache
from burgerbot.app.scripts.autoreset import snippet_for
from burgerbot.app.views.autoreset import (
    BACKEND_CHOICES,
    START_OBS,
    AutoresetSettings,
    obs_text,
    resolve_settings,
)
from burgerbot.app.views.autoreset_counting import count_finished_by_mode
from burgerbot.app.views.autoreset_disabled import DisabledDemo, disabled_demo_table
from burgerbot.app.views.autoreset_lesson import InfosCheck
from burgerbot.app.views.autoreset_timeline import READABLE_ENVS, TIMELINE_MAX_CELLS

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

BACKEND_LABELS = {
    backend: BACKEND_CLASSES[backend] + (" (as in the lesson)" if backend == "sync" else "")
    for backend in BACKEND_CHOICES
}
"""``{"sync": "SyncVectorEnv (as in the lesson)", "native": "BurgerBotVectorEnv"}``."""

_READING = {
    "NEXT_STEP": (
        "**Look for the white cells ⚪.** When an episode ends (✖ hit, ◆ goal, ▼ cut off at "
        "the step limit), the ending call still returns the *final* observation and the real "
        "reward. The **next** call is spent on the reset: the robot's action is ignored, the "
        "reward is 0 and the observation is the start, `[0, 0, 1, 1]`. That call is the white "
        "cell with a dot; the new episode's colour starts there."
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
        "4 shows what happens if you forget). The next call is an ordinary step."
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
        "Each row is one sub-environment, each cell one `step()` call, read left to right. "
        "Colours alternate with each new episode, so a change of colour is a restart. "
        + _READING[mode]
        + " Hover any cell for its action, observation, reward and flags; scroll on the chart "
        "to zoom, drag to pan, double-click to reset the view."
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
    st.altair_chart(
        episode_timeline(cells, shown_steps, highlight),
        width="stretch",
        height=timeline_pixel_height(settings.num_envs),
    )
    other_backend = "native" if settings.backend == "sync" else "sync"
    captions = []
    if highlight is not None:
        captions.append(
            f"The thick black outline (env {highlight[0]}, step {highlight[1]}) marks the episode "
            "end that section 3 compares with the lesson."
        )
    if shown_steps < settings.steps:
        captions.append(
            f"The timeline shows the first {shown_steps:,} of {settings.steps:,} steps (it draws "
            f"at most {TIMELINE_MAX_CELLS:,} cells); the table below lists every episode end."
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
    for caption in captions:
        st.caption(caption)


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
    st.dataframe(events, hide_index=True, height=min(420, 38 + 35 * len(events)))


def _installed_text(mode: str, end: Mapping[str, Any], check: InfosCheck) -> str:
    """What the installed gymnasium handed back at the episode end, in ``mode``."""
    step, env, final = int(end["step"]), int(end["env"]), end["final obs"]
    if mode == "NEXT_STEP":
        return (
            f"Since gymnasium 1.0 the default is NEXT_STEP (a new `SyncVectorEnv` here says "
            f"`{check.default_mode}`). Step {step} handed back `obs[{env}] = "
            f"{final}`, the **final** observation, and no extra key in `infos`. "
            f"The start `{obs_text(START_OBS)}` only came at step {step + 1}, with reward 0."
        )
    if mode == "SAME_STEP":
        return (
            f"SAME_STEP gives the lesson's timing: step {step} handed back `obs[{env}] = "
            f"{obs_text(START_OBS)}`. But the final observation `{final}` is under "
            f'a new name, `infos["final_obs"][{env}]`. (The default mode here is '
            f"`{check.default_mode}`.)"
        )
    return (
        f"DISABLED never restarts: step {step} handed back `obs[{env}] = "
        f"{final}`, the final observation, and the robot stays ended until "
        f"you reset it. (The default mode here is `{check.default_mode}`.)"
    )


def lesson_comparison(
    end: Mapping[str, Any], mode: str, check: InfosCheck, version: str, table: pd.DataFrame
) -> None:
    """One episode end: the lesson's account beside the installed gymnasium's, and the proof.

    Args:
        end: The episode end (a row of ``episode_ends``).
        mode: The run's auto-reset mode.
        check: What ``infos`` held at that end, checked live.
        version: The installed gymnasium's version.
        table: ``lesson_vs_installed`` for that end.
    """
    step, env = int(end["step"]), int(end["env"])
    st.write(
        f"The lesson was written for gymnasium 0.29. This app runs gymnasium **{version}** "
        "(read live from the installed package). Take one real episode end from the run "
        f"above: **env {env} at step {step}** ({end['cause']}, final observation "
        f"`{end['final obs']}`)."
    )
    left, right = st.columns(2)
    with left, st.container(border=True):
        st.markdown("**What the lesson describes (gymnasium 0.29)**")
        st.markdown(
            f"The ending call restarts the robot at once. So step {step} would hand you "
            f"`obs[{env}] = {obs_text(START_OBS)}`, already the new episode's start, and the "
            f"old episode's last observation `{end['final obs']}` in "
            f'`infos["final_observation"][{env}]`.'
        )
    with right, st.container(border=True):
        st.markdown(f"**What gymnasium {version} did in this run ({mode})**")
        st.markdown(_installed_text(mode, end, check))
    st.markdown(markdown_table(table))
    st.markdown("Checked live on a fresh `SyncVectorEnv`, replaying this run up to that step:")
    st.code(
        "import importlib.metadata\n"
        f'importlib.metadata.version("gymnasium")  # {version!r}\n'
        f"# ... the same actions up to step {step}, then:\n"
        f'"final_observation" in infos  # {check.has_final_observation}\n'
        f'"final_obs" in infos  # {check.has_final_obs}\n'
        f"sorted(infos)  # {list(check.keys)}",
        language="python",
    )
    if not check.has_final_observation:
        st.caption(
            'Code copied from the lesson that reads `infos["final_observation"]` stops with a '
            "KeyError on this version."
        )


def _envs_text(envs: tuple[int, ...]) -> str:
    return ("envs " if len(envs) > 1 else "env ") + ", ".join(str(i) for i in envs)


def disabled_demo_panel(demo: DisabledDemo, expanded: bool) -> None:
    """The DISABLED demo in an expander: both errors, what the failed call did, the fix."""
    with st.expander("Step an ended robot again, and see the fix (run live)", expanded=expanded):
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
            "`BurgerBotVectorEnv`, given the same actions, says it in words:"
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
            "**The fix:** reset only the envs that ended, with a mask (one True/False per env), "
            "*before* the next step. Run on a fresh SyncVectorEnv with the same actions:"
        )
        st.code(
            "ended = terminated | truncated\n"
            "if ended.any():\n"
            '    obs, infos = envs.reset(options={"reset_mask": ended})',
            language="python",
        )
        st.dataframe(disabled_demo_table(demo), hide_index=True)
        st.success(
            f"After the masked reset, step {demo.end_step + 1} worked. Only {ended} went "
            f"back to `{obs_text(START_OBS)}`; the others kept their place."
        )


@st.cache_data(max_entries=4, show_spinner=False)
def _counting_spec(modes: tuple[str, ...], _sample: pd.DataFrame) -> dict:
    """The counting chart's Vega-Lite spec without its data, made once per server.

    Building and validating the altair chart costs tens of milliseconds; only the data
    change when the counting settings do (the modes, and so the colours, stay).
    """
    spec = finished_episodes_chart(_sample).to_dict()
    spec.pop("data")
    spec.pop("datasets")
    return spec


def counting_section(frame: ui.PageFrame, high: Mapping[str, int]) -> None:
    """Section 5's controls, its counts and the page's script, for the page's fragment.

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
    ui.code_expander(snippet_for(settings))


def counting_results(counts: pd.DataFrame, count_steps: int) -> None:
    """Finished episodes per env and mode: the chart, the totals, and what they say."""
    modes = tuple(dict.fromkeys(counts["mode"]))
    st.vega_lite_chart(counts, _counting_spec(modes, counts), width="stretch")
    totals = counts.groupby("mode", sort=False)[
        ["finished episodes", "goals", "hits", "truncations"]
    ].sum()
    st.dataframe(totals, width="content")
    total = totals["finished episodes"]
    st.write(
        f"In {count_steps:,} calls, NEXT_STEP finished **{total['NEXT_STEP']:,}** "
        f"episodes in total, SAME_STEP **{total['SAME_STEP']:,}** and DISABLED "
        f"**{total['DISABLED']:,}**. NEXT_STEP spends one call on every reset, so it fits fewer "
        "episodes into the same number of calls. DISABLED, reset by hand right after each end, "
        "walks exactly like SAME_STEP."
    )
    if totals["goals"].sum() == 0:
        st.caption(
            "No goals: a robot moving at random almost never finds its way to the burger, so "
            "every episode here ended with a hit (or at the step limit)."
        )
