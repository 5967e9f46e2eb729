"""Goal scaling: does doubling NUM_ENVS double the goals a random BurgerBot reaches?"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.charts.goal_scaling import scaling_panel
from burgerbot.app.scripts.goal_scaling import snippet_for
from burgerbot.app.views.goal_scaling import (
    BACKEND_LABELS,
    BUDGET_LABELS,
    LESSON_STEPS,
    SPECS,
    TARGET_GOALS,
    GoalRate,
    ScalingSettings,
    SweepResult,
    ThrottledProgress,
    chart_data,
    check_budget,
    compare_backends,
    comparison_settings,
    doubling_verdict,
    expectations,
    lesson_expectations,
    measure_goal_rate,
    resolve_settings,
    run_sweep,
    summarise,
    sweep_cap,
    to_csv,
    try_this,
)

PAGE = "goal_scaling"
KEY = {spec.key: ui.widget_key(PAGE, spec) for spec in SPECS}
RESULTS = f"_{PAGE}_results"  # this session's sweeps: "last", and the last one per backend
POWERS_OF_TWO = tuple(2**k for k in range(CAPS.max_envs.bit_length()) if 2**k <= CAPS.max_envs)


@st.cache_data(max_entries=1, show_spinner=False)
def reference_rate() -> GoalRate:
    return measure_goal_rate()


@st.cache_data(max_entries=6, show_spinner=False)
def cached_sweep(settings: ScalingSettings) -> SweepResult:
    # The bar lives inside the cached function, so a cache hit replays it and then clears
    # it again. Stopping the page raises from the bar's update, which ends the run and
    # closes every env.
    bar = st.empty()
    name = "Sync" if settings.backend == "sync" else "native"

    def report(fraction: float, message: str) -> None:
        bar.progress(fraction, text=f"{name} sweep: {message} ({fraction:.0%})")

    try:
        return run_sweep(settings, ThrottledProgress(report))
    finally:
        bar.empty()


def percent(p: float) -> str:
    return f"{p:.0%}" if 0.01 <= p <= 0.99 else f"{p:.2%}"


def apply_settings(settings: ScalingSettings) -> None:
    """Button callback: put a suggested experiment into the widgets."""
    st.session_state[KEY["n"]] = list(settings.num_envs)
    st.session_state[KEY["steps"]] = settings.steps_per_env
    st.session_state[KEY["seeds"]] = settings.seeds
    st.session_state[KEY["backend"]] = settings.backend
    st.session_state[KEY["budget"]] = settings.budget


def show_time(result: SweepResult) -> str:
    name = "Sync" if result.settings.backend == "sync" else "native"
    return (
        f"**{name}** took **{result.wall_seconds:.1f} s** for {result.env_steps:,} env-steps "
        f"({result.env_steps_per_second:,.0f} env-steps/s, creating and closing the envs "
        "included)"
    )


st.title("Goal scaling: do more envs reach the goal more often?")
st.write(
    "The lesson's first exercise: run 500 random steps with 4 BurgerBots, then with 8. Do "
    "the goal reaches roughly double? This page answers honestly. It measures how often a "
    "random robot reaches the goal, predicts what you should see, then lets you run the "
    "experiment with many seeds and see the counts and their uncertainty."
)
ui.sidebar(
    topics=[
        "Exercise 1: NUM_ENVS = 8, 500 steps: do goals double?",
        "Counting goals: a reward of exactly 50",
        "Vectorised BurgerBot: steps collected per step() call",
        "Why one short run can't answer the question",
    ],
    links=["Gymnasium vector API", "Auto-reset modes"],
)
notes = list(ui.load_settings(PAGE, SPECS))

# Resolve before the widgets exist, so the widgets show the values really used.
settings, adjust_notes = resolve_settings(
    {spec.key: st.session_state.get(KEY[spec.key], spec.default) for spec in SPECS}
)
notes += adjust_notes
st.session_state[KEY["n"]] = list(settings.num_envs)
st.session_state[KEY["total"]] = settings.total_env_steps

# --- 1. What to expect ---------------------------------------------------------------------
st.header("1. What to expect, before running anything")
try:
    with st.spinner("Measuring how often a random robot reaches the goal (a second or two)…"):
        rate = reference_rate()
except Exception as error:  # the rest of the page still works without it
    st.error(f"Could not measure the goal rate: {type(error).__name__}: {error}")
    rate = None

if rate is not None and rate.goals > 0:
    low, high = rate.interval
    st.markdown(
        f"Just now, {rate.source} took {rate.env_steps:,} env-steps and reached the goal "
        f"**{rate.goals}** times: about **one goal every {rate.steps_per_goal:,.0f} "
        f"env-steps** (rate {rate.rate:.2e} per env-step; 95% interval "
        f"{low:.2e} to {high:.2e}). It took {rate.seconds:.1f} s."
    )
    lesson = lesson_expectations(rate.rate)
    four, eight = lesson.itertuples(index=False)
    both_zero = four.p_zero * eight.p_zero
    c4, c8, cboth = st.columns(3)
    c4.metric(
        "4 envs × 500 steps: expected goals",
        f"{four.expected_goals:.3f}",
        f"chance of seeing 0: {percent(four.p_zero)}",
        delta_color="off",
        delta_arrow="off",
    )
    c8.metric(
        "8 envs × 500 steps: expected goals",
        f"{eight.expected_goals:.3f}",
        f"chance of seeing 0: {percent(eight.p_zero)}",
        delta_color="off",
        delta_arrow="off",
    )
    cboth.metric("Chance that both runs show 0 goals", percent(both_zero))
    st.markdown(
        f"4 envs × {LESSON_STEPS} steps is {four.env_steps:,} env-steps, so you expect "
        f"{four.expected_goals:.3f} goals. Goal counts follow a Poisson distribution, so "
        f"the chance of seeing **none** is exp(−{four.expected_goals:.3f}) = "
        f"{percent(four.p_zero)}. With 8 envs the expected count doubles, but it is still "
        f"tiny, and {percent(both_zero)} of the time you compare 0 with 0. "
        '**"Roughly double" is true of the expected count; 500 steps are far too few '
        "to see it.**"
    )
    suggestion = try_this(settings, rate.rate)
    if suggestion is not None:
        with st.container(border=True):
            steps = suggestion.steps_per_env
            st.markdown(
                f"💡 **Try this.** To expect about {TARGET_GOALS} goals with 4 envs you need "
                f"about **{steps:,} steps per env** ({4 * steps:,} env-steps). Then 8 envs "
                f"expect about {2 * TARGET_GOALS}. A Poisson count of {TARGET_GOALS} "
                f"usually lands within ±{2 * TARGET_GOALS**0.5:.0f} of it, so doubling "
                "becomes visible. Sync would be slow here: the button picks native."
            )
            st.button(
                f"Set up: NUM_ENVS 4 and 8, {steps:,} steps per env, {suggestion.seeds} "
                "seeds, native",
                key=f"{PAGE}_try_this",
                on_click=apply_settings,
                args=(suggestion,),
            )
    st.caption(
        "An env-step is one step of one robot: a step() call with N envs makes N env-steps. "
        "In gymnasium's default auto-reset mode, the step() call after an episode ends only "
        "resets that robot; those calls count as env-steps too, as in the lesson's loop."
    )
elif rate is not None:
    st.warning(
        f"{rate.source} saw no goal in {rate.env_steps:,} env-steps, so there is no rate to "
        "predict from; the sweep below still runs."
    )

# --- 2. Run a sweep ------------------------------------------------------------------------
st.header("2. Run the experiment")
st.write(
    "Pick the NUM_ENVS values to compare and how long each run is. Every NUM_ENVS runs "
    "once per seed (seeds 0, 1, 2, …), with the same random actions on either backend."
)
options = sorted(set(POWERS_OF_TWO) | set(settings.num_envs))
col_n, col_backend = st.columns([3, 2])
col_n.multiselect(
    SPECS[0].label,
    options,
    key=KEY["n"],
    help=f"Powers of two up to {CAPS.max_envs}; other values can be given in the URL (n=3,5).",
)
col_backend.radio(
    "Backend",
    tuple(BACKEND_LABELS),
    key=KEY["backend"],
    format_func=BACKEND_LABELS.get,
    horizontal=True,
    help=(
        "Both give identical counts for the same seeds (checked in section 4). Sync steps "
        "each robot in a Python loop; native moves them all with numpy arrays. Async gives "
        "the same counts too, but starts a process per env: see the Sync vs Async page."
    ),
)
col_budget, col_steps, col_total, col_seeds = st.columns([3, 2, 2, 3])
col_budget.radio(
    "Compare with",
    tuple(BUDGET_LABELS),
    key=KEY["budget"],
    format_func=BUDGET_LABELS.get,
    help=(
        "Same steps per env: more envs collect more env-steps (the lesson's question). "
        "Same total env-steps: every NUM_ENVS gets the same budget, split over its envs."
    ),
)
col_steps.number_input(
    "Steps per env",
    min_value=1,
    max_value=SPECS[1].high,
    step=100,
    key=KEY["steps"],
    disabled=settings.budget != "per_env",
    help="step() calls per run (the lesson uses 500).",
)
col_total.number_input(
    "Env-steps per run",
    min_value=1,
    max_value=SPECS[2].high,
    step=1000,
    key=KEY["total"],
    disabled=settings.budget != "total",
    help="Each NUM_ENVS gets this many env-steps: total ÷ NUM_ENVS step() calls.",
)
col_seeds.slider(
    "Seeds per NUM_ENVS",
    1,
    CAPS.max_seeds,
    key=KEY["seeds"],
    help=f"More seeds give a tighter interval. At most {CAPS.max_seeds} "
    "(BURGERBOT_MAX_SEEDS raises it).",
)
ui.show_notes(notes)
ui.sync_query_params(PAGE, SPECS)

cap, cap_variable = sweep_cap(settings.backend)
runs = len(settings.num_envs) * settings.seeds
st.caption(
    f"This sweep: {len(settings.num_envs)} NUM_ENVS value(s) × {settings.seeds} seed(s) = "
    f"{runs} runs, **{settings.planned_env_steps:,} env-steps** in total (this app's cap for "
    f"{'Sync' if settings.backend == 'sync' else 'native'}: {cap:,}, set by {cap_variable})."
)
if rate is not None and rate.goals > 0:
    expected = expectations(settings, rate.rate)
    with st.expander("Expected goals per run for these settings", expanded=True):
        st.dataframe(
            expected.rename(
                columns={
                    "num_envs": "NUM_ENVS",
                    "steps_per_env": "steps per env",
                    "env_steps": "env-steps per run",
                    "expected_goals": "expected goals",
                    "p_zero": "chance of 0 goals",
                    "expected_zero_runs": f"runs with 0 goals (of {settings.seeds})",
                }
            ),
            hide_index=True,
            column_config={
                "steps per env": st.column_config.NumberColumn(format="localized"),
                "env-steps per run": st.column_config.NumberColumn(format="localized"),
                "expected goals": st.column_config.NumberColumn(format="%.3f"),
                "chance of 0 goals": st.column_config.NumberColumn(format="percent"),
                f"runs with 0 goals (of {settings.seeds})": st.column_config.NumberColumn(
                    format="%.1f"
                ),
            },
        )

refusal = check_budget(settings)
if refusal:
    st.error(refusal, icon="🛑")
results: dict[str, SweepResult] = st.session_state.setdefault(RESULTS, {})
if st.button("Run sweep", key=f"{PAGE}_run", type="primary", disabled=refusal is not None):
    try:
        result = cached_sweep(settings)
    except Exception as error:  # show it; the page keeps working
        st.error(f"The sweep failed: {type(error).__name__}: {error}")
    else:
        results["last"] = results[settings.backend] = result

# --- 3. Results ----------------------------------------------------------------------------
st.header("3. Results")
last = results.get("last")
if last is None:
    st.info("Press **Run sweep** to run the experiment with the settings above.")
else:
    if last.settings != settings:
        st.info(
            f"These results are for the previous settings ({last.settings.describe()}). "
            "Press **Run sweep** to run the new ones."
        )
    frame = last.frame
    goals, env_steps = int(frame["goals"].sum()), int(frame["env_steps"].sum())
    if goals > 0:
        line_rate = GoalRate(goals, env_steps, "this sweep")
        rate_text = (
            f"this sweep's own rate: {goals:,} goals in {env_steps:,} env-steps, one every "
            f"{line_rate.steps_per_goal:,.0f}"
        )
    elif rate is not None and rate.goals > 0:
        line_rate = rate
        st.warning(
            f"This sweep saw **no goal at all** in {env_steps:,} env-steps, which is what the "
            "numbers above predict for short runs. The dashed line uses the rate measured "
            f"with the longer native run instead (one goal every {rate.steps_per_goal:,.0f} "
            "env-steps)."
        )
        rate_text = "the longer native run's rate, as this sweep saw no goal"
    else:
        line_rate = None
        rate_text = ""
    st.markdown(show_time(last))
    summary = summarise(frame, line_rate.rate if line_rate is not None else 0.0)
    points, bands = chart_data(frame, summary)
    for metric in ("goals", "episodes"):
        st.altair_chart(scaling_panel(points, bands, metric), width="stretch")
    st.caption(
        "Each orange dot is one run (one seed), moved a little sideways so equal counts "
        "don't hide each other. The dark diamond is the mean over the seeds; the dark bar "
        "its 95% interval. For goals the interval is the exact Poisson (Garwood) interval "
        "of the total goals over the seeds, divided by the number of seeds: it is honest "
        "even when every run saw 0. For episodes it is the mean ± 1.96 standard errors "
        "across seeds. The dashed blue line is what you expect if counts grow in "
        f"proportion to env-steps ({rate_text}; for episodes, the sweep's episode rate). "
        "NUM_ENVS is on a log scale: each tick is double the one before."
    )
    verdict = doubling_verdict(summary)
    if verdict:
        st.markdown(f"**Did goals double?** {verdict}")
    if last.settings.budget == "total":
        st.markdown(
            "With the **same total env-steps** for every NUM_ENVS, the goal counts stay "
            "level: what matters is how many env-steps you collect, not how many envs "
            "collect them."
        )
    else:
        st.markdown(
            "With the **same steps per env**, doubling NUM_ENVS doubles the env-steps, so "
            "the *expected* goals double. Episodes are plentiful, so they visibly double; "
            "goals are rare, so short runs mostly show 0 and the noise hides the doubling."
        )
    shown = summary.assign(
        interval=[f"{lo:.3g} to {hi:.3g}" for lo, hi in summary[["goals_low", "goals_high"]].values]
    )
    st.dataframe(
        shown[
            [
                "num_envs",
                "env_steps",
                "mean_goals",
                "interval",
                "expected_goals",
                "zero_goal_runs",
                "goals_per_100k_env_steps",
                "mean_episodes",
            ]
        ].rename(
            columns={
                "num_envs": "NUM_ENVS",
                "env_steps": "env-steps per run",
                "mean_goals": "mean goals",
                "interval": "95% interval",
                "expected_goals": "expected",
                "zero_goal_runs": f"runs with 0 (of {last.settings.seeds})",
                "goals_per_100k_env_steps": "goals per 100k env-steps",
                "mean_episodes": "mean episodes",
            }
        ),
        hide_index=True,
        column_config={
            "mean goals": st.column_config.NumberColumn(format="%.3g"),
            "expected": st.column_config.NumberColumn(format="%.3g"),
            "env-steps per run": st.column_config.NumberColumn(format="localized"),
            "goals per 100k env-steps": st.column_config.NumberColumn(format="%.2f"),
            "mean episodes": st.column_config.NumberColumn(format="localized"),
        },
    )
    st.caption(
        "Goals per 100k env-steps stays about the same for every NUM_ENVS: each env-step has "
        "the same small chance of a goal, however many envs share the step() call."
    )
    st.download_button(
        "Download the data behind the chart (CSV, one row per run)",
        data=to_csv(frame),
        file_name=f"goal_scaling_{last.settings.backend}.csv",
        mime="text/csv",
        key=f"{PAGE}_download",
        icon="⬇️",
    )

# --- 4. Sync and native agree --------------------------------------------------------------
st.header("4. Sync and native count the same")
st.write(
    "The native vector env is not an approximation: given the same seeds it takes the same "
    "random actions and reaches exactly the same goals as SyncVectorEnv, only faster."
)
sync_result, native_result = results.get("sync"), results.get("native")
both_ran = (
    sync_result is not None
    and native_result is not None
    and replace(sync_result.settings, backend="native") == native_result.settings
)
if not both_ran:
    small = comparison_settings(settings)
    st.caption(
        "Run the same sweep on both backends to compare them, or run this quick check "
        f"({small.describe(backend=False)})."
    )
    if st.button("Run the quick check on Sync and on native", key=f"{PAGE}_compare"):
        try:
            sync_result = cached_sweep(replace(small, backend="sync"))
            native_result = cached_sweep(replace(small, backend="native"))
        except Exception as error:
            st.error(f"The check failed: {type(error).__name__}: {error}")
        else:
            results["check"] = (sync_result, native_result)
    sync_result, native_result = results.get("check", (None, None))
if sync_result is not None and native_result is not None:
    side_by_side = compare_backends(sync_result.frame, native_result.frame)
    same = bool(side_by_side["identical"].all())
    if same:
        goals = int(side_by_side["goals_sync"].sum())
        st.success(
            f"All {len(side_by_side)} runs give identical goals, hits and episodes on Sync "
            f"and on native ({sync_result.settings.describe(backend=False)}; {goals} goals "
            "in all).",
            icon="✅",
        )
    else:
        st.error("Some runs differ between Sync and native: this is a bug, please report it.")
    speedup = sync_result.wall_seconds / native_result.wall_seconds
    st.markdown(
        f"- {show_time(sync_result)}\n- {show_time(native_result)}\n\n"
        f"native was **{speedup:,.1f}×** as fast here."
    )
    st.dataframe(
        side_by_side.rename(columns={"num_envs": "NUM_ENVS", "env_steps": "env-steps"}),
        hide_index=True,
    )

ui.code_expander(snippet_for(settings), label="Code: this sweep as a script you can run")
st.caption(
    "The script prints one line per NUM_ENVS and seed: the same numbers as the page's "
    "CSV for these settings."
)
