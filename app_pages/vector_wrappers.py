"""Wrapping a vector env: episode statistics and normalisation, read right in every mode."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import BACKEND_CLASSES, BACKEND_LONG_NAMES
from burgerbot.app.logic.vector_wrappers import (
    BACKEND_CHOICES,
    EVAL_CALLS,
    LOG_MODES,
    LOOPS,
    OPTIONS,
    RIGHT_MEANS,
    SPECS,
    TABLE_CALLS,
    UNDECLARED,
    EndInfos,
    EvaluationDrift,
    LoopCheck,
    drift_chart,
    evaluation_drift,
    every_loop_check,
    infos_at_first_end,
    loop_sentence,
    prediction_truth,
    question,
    resolve_settings,
    sync_takes_the_reset_mask,
    takeaway_bullets,
    widget_values,
    wrapper_table,
)
from burgerbot.app.markdown import markdown_table
from burgerbot.app.scripts.vector_wrappers import (
    evaluation_script,
    logging_script,
    placement_script,
    table_script,
    wrong_loops_script,
)
from burgerbot.app.versions import running_versions
from burgerbot.checks import MAX_SEED

PAGE = "vector_wrappers"
PREDICTION = "vector_wrappers_normalize_same_step"
HIGH = {spec.key: spec.high for spec in SPECS if hasattr(spec, "high")}


# --- Live runs, cached by their settings -----------------------------------------------------


@st.cache_data(max_entries=16, show_spinner="Running RecordEpisodeStatistics in both places…")
def first_end(
    backend: str, mode: str, placement: str, num_envs: int, steps: int, seed: int
) -> EndInfos | None:
    return infos_at_first_end(backend, mode, placement, num_envs, steps, seed)


@st.cache_data(max_entries=8, show_spinner="Running three logging loops in both modes…")
def loop_checks(backend: str, num_envs: int, steps: int, seed: int) -> list[LoopCheck]:
    return every_loop_check(backend, num_envs, steps, seed)


@st.cache_data(max_entries=8, show_spinner="Trying each wrapper in each mode…")
def table_run(backend: str, num_envs: int, steps: int, seed: int) -> pd.DataFrame:
    return wrapper_table(backend, num_envs, steps, seed)


@st.cache_data(show_spinner=False)
def pops_reset_mask() -> bool:
    return sync_takes_the_reset_mask()


@st.cache_data(max_entries=8, show_spinner="Training and evaluating with NormalizeObservation…")
def drift_run(num_envs: int, steps: int, seed: int) -> EvaluationDrift:
    return evaluation_drift(num_envs, steps, seed)


# --- The page --------------------------------------------------------------------------------

frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Wrapping a vector env",
    intro=(
        "This page assumes you have done the Auto-reset page (NEXT_STEP, SAME_STEP and "
        "DISABLED). "
        f"You will learn where a wrapper goes (inside the factory or around the "
        f"{term_link('vector-env')}), how to log each finished episode's return exactly once "
        f"in every {term_link('autoreset')} mode, which of gymnasium's "
        f"{term_link('vector-wrapper', 'vector wrappers')} accept which mode, and why "
        f"normalisation's {term_link('running-statistics')} must be frozen for evaluation. Every "
        "result below is a live run of the installed gymnasium on BurgerBots."
    ),
    topics=[
        "RecordEpisodeStatistics in the factory or around the vector env",
        'infos["episode"], infos["_episode"], infos["final_info"]',
        "Vector wrappers and auto-reset modes",
        "NormalizeObservation: freezing statistics for evaluation",
    ],
    links=["Auto-reset modes", "Gymnasium vector API"],
)
settings = frame.resolve(resolve_settings, widget_values)
col_n, col_steps, col_seed, col_backend = st.columns([3, 2, 2, 3])
col_n.slider("NUM_ENVS", min_value=1, max_value=HIGH["n"], key=frame.key["n"])
col_steps.number_input(
    "step() calls",
    min_value=SPECS[1].low,
    max_value=HIGH["steps"],
    step=50,
    key=frame.key["steps"],
    help=f"The wrapper table runs at most {TABLE_CALLS} calls per wrapper and mode.",
)
col_seed.number_input(
    "Seed",
    min_value=0,
    max_value=MAX_SEED,
    step=1,
    key=frame.key["seed"],
    help="Picks the random actions: `np.random.default_rng(seed).integers(0, 4, ...)`.",
)
col_backend.selectbox(
    "Backend",
    BACKEND_CHOICES,
    key=frame.key["backend"],
    format_func=BACKEND_LONG_NAMES.get,
    help="The vector env the wrappers go around.",
)
frame.settings_done()

learning.prediction(PREDICTION, question(), OPTIONS)
shown = learning.revealed(PREDICTION)
backend_class = BACKEND_CLASSES[settings.backend]

# --- 1. Where a wrapper goes -----------------------------------------------------------------

st.header("1. Where a wrapper goes")
st.markdown(
    "Gymnasium has two `RecordEpisodeStatistics`: `gymnasium.wrappers.RecordEpisodeStatistics` "
    "wraps **one** env, so it goes inside the factory and each sub-environment gets its own; "
    "`gymnasium.wrappers.vector.RecordEpisodeStatistics` wraps the **vector env** once. Both "
    "add an `episode` entry (return `r`, length `l`, seconds `t`) when an episode ends, and a "
    "mask `_episode` (True for the envs it is about). Where the entry lands depends on the "
    "place and on the auto-reset mode:"
)
learning.fragment_block(
    "# Inside the factory: one wrapper per BurgerBot\n"
    "envs = SyncVectorEnv(\n"
    "    [\n"
    "        lambda: gym.wrappers.RecordEpisodeStatistics(burgerbot_factory()())\n"
    "        for _ in range(NUM_ENVS)\n"
    "    ],\n"
    "    autoreset_mode=MODE,\n"
    ")\n"
    "# Around the vector env: one wrapper for all of them\n"
    "envs = RecordEpisodeStatistics(\n"
    "    SyncVectorEnv([burgerbot_factory() for _ in range(NUM_ENVS)])\n"
    ")\n",
    of="the placement script below",
)
st.radio(
    "Auto-reset mode (sections 1 and 2)",
    LOG_MODES,
    key=frame.key["mode"],
    horizontal=True,
    help="The modes that restart an ended robot by themselves.",
)


def end_tables(end: EndInfos | None) -> None:
    """The first episode end's ``infos``, per env, on the ending call and the call after."""
    if end is None:
        st.info("No episode ended (with a quiet call after it) in this run: try more calls.")
        return
    ended = ", ".join(str(i) for i in end.ended)
    where = (
        f"its statistics are in `{end.stats_at}`"
        if end.stats_at
        else "no statistics entry came back"
    )
    st.markdown(f"**Call {end.call}** ended the episode of env {ended}; {where}:")
    st.dataframe(end.ending, hide_index=True)
    after = f"**Call {end.call + 1}**, the call after it (no episode ended there)"
    if end.after.empty:
        st.markdown(f"{after}: `infos` is `{{}}`, it holds nothing.")
    else:
        st.markdown(f"{after}:")
        st.dataframe(end.after, hide_index=True)


if shown:
    args = (settings.mode, settings.num_envs, settings.steps, settings.seed)
    around = first_end(settings.backend, settings.mode, "vector", *args[1:])
    placements = [(f"Around the {backend_class}", lambda: end_tables(around))]
    if settings.backend == "sync":
        inside = first_end("sync", settings.mode, "factory", *args[1:])
        placements.insert(0, ("Inside the factory", lambda: end_tables(inside)))
    else:
        st.caption(
            f"{backend_class} steps every robot at once: it has no factory and no "
            "sub-environments to wrap, so only the vector wrapper fits it."
        )
    ui.lazy_tabs("vector_wrappers_placement", placements)
    st.caption(
        "Each column is one env; the seconds `t` and the per-field masks `_r`, `_l`, `_t` are "
        "left out. Switch the tabs and the mode to compare where the statistics land."
    )
ui.code_expander(
    placement_script(settings.mode, settings.num_envs, settings.steps, settings.seed),
    "Code: both placements as a script you can run",
    name="record episode statistics placement",
    lazy=True,
)

# --- 2. Logging returns right ----------------------------------------------------------------

st.header("2. Logging every episode exactly once")
st.markdown(
    f"The loop learners copy: step the vector env, and for each env that "
    f'`infos["_episode"]` marks, log `infos["episode"]["r"][i]` and `["l"][i]`. The script '
    f"checks each logged episode against the return summed from the raw rows of the same run "
    f"({settings.mode}: "
    + (
        "the call after an end is the reset row, reward 0, which belongs to no episode)."
        if settings.mode == "NEXT_STEP"
        else "every row belongs to an episode)."
    )
)
learning.script_block(
    logging_script(
        settings.backend, settings.mode, settings.num_envs, settings.steps, settings.seed
    ),
    name=f"log episode returns {settings.mode.lower()}",
)


def loops_table(checks: list[LoopCheck]) -> None:
    """Each loop in each mode: logged against finished, and what went wrong, with evidence."""
    for mode in LOG_MODES:
        rows = [
            {
                "loop": LOOPS[c.loop],
                "logged / finished": f"{c.logged} / {c.finished}",
                "result": loop_sentence(c),
            }
            for c in checks
            if c.mode == mode
        ]
        st.markdown(f"**{mode}**\n\n" + markdown_table(pd.DataFrame(rows)))
    wrong = [c for c in checks if not c.missed.empty or not c.extra.empty]

    def evidence() -> None:
        for c in wrong:
            st.markdown(f"**{LOOPS[c.loop]}, {c.mode}**")
            if not c.missed.empty:
                st.markdown("Finished (from the raw rows) but never logged:")
                st.dataframe(c.missed.head(20), hide_index=True)
            if not c.extra.empty:
                st.markdown("Logged, but not one-for-one with a finished episode:")
                st.dataframe(c.extra.head(20), hide_index=True)

    if wrong:
        learning.lazy_expander("Evidence: the episodes each wrong loop got wrong", evidence)


if shown:
    checks = loop_checks(settings.backend, settings.num_envs, settings.steps, settings.seed)
    st.markdown(
        "The same actions, three loops, both modes. The two wrong loops are common: reading "
        '`infos["final_info"]` (what CleanRL read when SAME_STEP was the only mode), and the '
        "statistics wrapper in both places with a loop reading both keys. They need a factory, "
        "so they run on SyncVectorEnv."
    )
    loops_table(checks)
ui.code_expander(
    wrong_loops_script(settings.mode, settings.num_envs, settings.steps, settings.seed),
    "Code: the two wrong loops as a script you can run",
    name=f"wrong logging loops {settings.mode.lower()}",
    lazy=True,
)

# --- 3. Which wrapper works in which mode ----------------------------------------------------

st.header("3. Which wrapper works in which mode")
st.markdown(
    f"Each wrapper wraps a fresh {backend_class} of {settings.num_envs} robots in each mode and "
    f"runs {min(settings.steps, TABLE_CALLS)} random calls (in DISABLED mode, ended robots are "
    "reset with a mask). *Refused* shows the error it raised, *warned* the warning's text. "
    f"The last mode, **{UNDECLARED}**, is a SAME_STEP vector env whose metadata does not say "
    "so: the wrappers must guess. Each run that went through is compared with the same actions "
    "on the unwrapped env."
)


def _result(verdict: str, right: str) -> str:
    # "differs", not "wrong": for NormalizeReward the reference is a convention (see below).
    return {"yes": f"{verdict}, matches", "no": f"{verdict}, **differs**"}.get(right, verdict)


def wrapper_tables(table: pd.DataFrame) -> None:
    """One small table per wrapper (mode, result, check), then gymnasium's own words, wrapped:
    they fit a phone's width."""
    for name, rows in table.groupby("wrapper", sort=False):
        shown_rows = pd.DataFrame(
            {
                "mode": rows["mode"],
                "result": [
                    _result(v, r) for v, r in zip(rows["verdict"], rows["right"], strict=True)
                ],
                "check against the unwrapped run": [
                    detail or "not run" for detail in rows["detail"]
                ],
            }
        )
        st.markdown(f"**{name}**\n\n" + markdown_table(shown_rows))
        for row in rows[rows["said"] != ""].itertuples():
            st.caption(f"{name} in {row.mode}: gymnasium {row.verdict} it, saying")
            st.code(row.said, language="text", wrap_lines=True)


if shown:
    table_steps = min(settings.steps, TABLE_CALLS)
    table = table_run(settings.backend, settings.num_envs, table_steps, settings.seed)
    truth = prediction_truth(table)
    said = table[
        (table["wrapper"] == "NormalizeObservation") & (table["mode"] == "SAME_STEP")
    ].iloc[0]["said"]
    explanation = (
        f"The installed gymnasium said: “{said}” (its words are under the NormalizeObservation "
        "table below)."
        if said
        else "The installed gymnasium accepted it without a word."
    )
    learning.check(PREDICTION, truth, explanation)
    wrapper_tables(table)
    stats_disabled = table[
        (table["wrapper"] == "RecordEpisodeStatistics") & (table["mode"] == "DISABLED")
    ].iloc[0]
    if settings.backend == "sync" and stats_disabled["right"] == "no" and pops_reset_mask():
        st.markdown(
            "Why RecordEpisodeStatistics is wrong in DISABLED mode here: `SyncVectorEnv.reset` "
            "takes `reset_mask` out of the options dict you pass (checked live just now), so "
            "the wrapper around it sees a full reset and restarts every robot's count, not "
            "only the ones that ended. Around BurgerBotVectorEnv, which leaves the dict alone, "
            "it counts right."
        )
    versions = ", ".join(f"{name} {version}" for name, version in running_versions().items())
    st.caption(f"Computed live on this server just now with {versions}.")
    with st.expander('What "matches" means for each wrapper'):
        st.markdown("\n".join(f"- **{k}**: {v}." for k, v in RIGHT_MEANS.items()))
ui.code_expander(
    table_script(
        settings.backend, settings.num_envs, min(settings.steps, TABLE_CALLS), settings.seed
    ),
    "Code: the table's verdicts as a script you can run",
    name="vector wrappers by mode",
    lazy=True,
)

# --- 4. Normalisation and evaluation ---------------------------------------------------------

st.header("4. Normalisation during evaluation")
st.markdown(
    "`NormalizeObservation` keeps a running mean and variance of every observation it sees and "
    "hands the policy `(obs - mean) / std`. Train with it, then evaluate: if the statistics "
    "keep updating, the same observation reaches the policy as different numbers as "
    "evaluation goes on. The wrapper's own switch, `update_running_mean = False`, freezes "
    f"them. Here: {settings.steps} training calls with random actions on {settings.num_envs} "
    f"robots, then {EVAL_CALLS} evaluation calls of another policy (always forward), from the "
    "training statistics."
)
learning.fragment_block(
    "evaluate.obs_rms = copy.deepcopy(train.obs_rms)  # carry the training statistics over\n"
    "evaluate.update_running_mean = False  # freeze them for evaluation\n",
    of="the evaluation script below",
)
if shown:
    drift = drift_run(settings.num_envs, settings.steps, settings.seed)
    learning.chart_with_table(learning.chart_spec(drift_chart, drift.drift), drift.drift)
    st.write(
        f"After training ({drift.train_count:,} observations), the start observation "
        f"`[0, 0, 1, 1]` normalises to `{list(drift.start_after_training)}`. Left updating, "
        f"that value moved by up to {drift.largest('keep updating'):.3g} during evaluation; "
        f"frozen, by {drift.largest('frozen'):.3g}."
    )
ui.code_expander(
    evaluation_script(settings.num_envs, settings.steps, settings.seed),
    "Code: training and evaluation as a script you can run",
    name="normalize observation evaluation",
    lazy=True,
)

# Until the prediction is answered or skipped the takeaways say when they will appear.
frame.takeaways(takeaway_bullets(table, checks, drift) if shown else [], after=PREDICTION)
