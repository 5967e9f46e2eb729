"""Auto-reset: what a vector env does when one sub-environment's episode ends, mode by mode."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.charts.autoreset import (
    episode_timeline,
    finished_episodes_chart,
    timeline_pixel_height,
)
from burgerbot.app.scripts.autoreset import snippet_for
from burgerbot.app.views.autoreset import (
    MAX_SEED,
    MODES,
    READABLE_ENVS,
    SPECS,
    START_OBS,
    TIMELINE_MAX_CELLS,
    AutoresetSettings,
    DisabledDemo,
    InfosCheck,
    ResultCache,
    check_infos_live,
    count_finished_by_mode,
    disabled_demo,
    disabled_demo_table,
    episode_ends,
    gymnasium_version,
    lesson_vs_installed,
    markdown_table,
    obs_text,
    pick_episode_end,
    resolve_settings,
    run_page_rollout,
    timeline_cells,
)

PAGE = "autoreset"
KEY = {spec.key: ui.widget_key(PAGE, spec) for spec in SPECS}
HIGH = {spec.key: spec.high for spec in SPECS if hasattr(spec, "high")}

MODE_CAPTIONS = {
    "NEXT_STEP": "gymnasium's default: the env restarts on the call after the end",
    "SAME_STEP": "restarts inside the ending call (what the lesson describes)",
    "DISABLED": "never restarts by itself: you reset it",
}
BACKEND_LABELS = {"sync": "SyncVectorEnv (as in the lesson)", "native": "BurgerBotVectorEnv"}

st.title("Auto-reset: when one robot's episode ends")
st.write(
    "In a vector env every robot lives its own episodes. One bumps into a wall at step 3, "
    "another at step 12. The vector env cannot wait for all of them, so it **restarts each "
    "robot on its own** when its episode ends. The question for your code is *when*: on "
    "which `step()` call do you get the last observation of the old episode, and on which "
    "the first observation of the new one? Gymnasium lets you choose, with `autoreset_mode`."
)
ui.sidebar(
    topics=[
        "Auto-reset of sub-environments",
        "NEXT_STEP, SAME_STEP and DISABLED modes",
        'infos["final_observation"] (gymnasium 0.29) vs today',
        "Counting finished episodes per environment",
    ],
    links=["Auto-reset modes", "Gymnasium vector API"],
)
notes = list(ui.load_settings(PAGE, SPECS))

# Apply the limits before the widgets exist, so the widgets show the values really used.
settings, adjust_notes = resolve_settings(
    {spec.key: st.session_state.get(KEY[spec.key], spec.default) for spec in SPECS}
)
notes += adjust_notes
for key, value in {
    "n": settings.num_envs,
    "mode": settings.mode,
    "seed": settings.seed,
    "steps": settings.steps,
    "backend": settings.backend,
    "cn": settings.count_envs,
    "ck": settings.count_steps,
}.items():
    st.session_state[KEY[key]] = value

st.radio(
    "Auto-reset mode",
    MODES,
    key=KEY["mode"],
    horizontal=True,
    captions=[MODE_CAPTIONS[m] for m in MODES],
)
col_n, col_steps, col_seed, col_backend = st.columns([3, 2, 2, 3])
col_n.slider(
    "NUM_ENVS",
    min_value=1,
    max_value=HIGH["n"],
    key=KEY["n"],
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
    key=KEY["steps"],
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
    key=KEY["seed"],
    help="Picks the random actions (the robots always start at [0, 0, 1, 1]).",
)
col_backend.radio(
    "Backend",
    ("sync", "native"),
    key=KEY["backend"],
    format_func=BACKEND_LABELS.get,
    horizontal=True,
    help="Both must give the very same run; the page checks that the other one agrees.",
)

ui.show_notes(notes)
ui.sync_query_params(PAGE, SPECS)


@st.cache_resource
def shared_results() -> ResultCache:
    """Finished runs and what the page derives from them, shared by every session.

    A few entries only: a run can hold 128,000 rows (about 15 MB).
    """
    return ResultCache(max_entries=10)


def computed(key: tuple, label: str, compute: Callable[[Any], Any]) -> Any:
    """A cached result; the first time, computed under a progress bar. Errors stop the page."""
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


@st.cache_data(max_entries=16, show_spinner="Checking infos live…")
def infos_check(num_envs: int, seed: int, mode: str, step: int, env: int) -> InfosCheck:
    return check_infos_live(num_envs, seed, mode, step, env)


@st.cache_data(max_entries=16, show_spinner="Running the DISABLED demo live…")
def disabled_run(num_envs: int, seed: int) -> DisabledDemo:
    return disabled_demo(num_envs, seed)


def run_key(settings: AutoresetSettings, backend: str) -> tuple:
    return ("rollout", backend, settings.num_envs, settings.steps, settings.seed, settings.mode)


other_backend = "native" if settings.backend == "sync" else "sync"
size = f"{settings.num_envs} envs × {settings.steps:,} steps, {settings.mode}"
frame = computed(
    run_key(settings, settings.backend),
    f"Running {size} on {settings.backend}",
    lambda progress: run_page_rollout(settings, progress=progress),
)
# Only the verdict is kept: a second copy of the run would double the memory.
backends_agree = computed(
    ("agree", *run_key(settings, settings.backend)),
    f"Checking the same run on {other_backend}",
    lambda progress: frame.equals(run_page_rollout(settings, other_backend, progress)),
)
mode = settings.mode
version = gymnasium_version()
events = computed(
    ("events", *run_key(settings, settings.backend)),
    "Listing every episode end",
    lambda _: episode_ends(frame, mode),
)

# --- 1. Timeline ---------------------------------------------------------------------------
st.header("1. Every step of every robot")
reading = {
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
st.markdown(
    "Each row is one sub-environment, each cell one `step()` call, read left to right. "
    "Colours alternate with each new episode, so a change of colour is a restart. "
    + reading[mode]
    + " Hover any cell for its action, observation, reward and flags; scroll on the chart "
    "to zoom, drag to pan, double-click to reset the view."
)
end = pick_episode_end(events, settings.steps)
highlight = None
if end is not None:
    last = end["step"] + 1 if mode == "NEXT_STEP" and end["step"] < settings.steps else end["step"]
    highlight = (int(end["env"]), int(end["step"]), int(last))
cells, shown_steps = computed(
    ("cells", *run_key(settings, settings.backend)),
    "Drawing the timeline",
    lambda _: timeline_cells(frame, mode),
)
st.altair_chart(
    episode_timeline(cells, shown_steps, highlight),
    width="stretch",
    height=timeline_pixel_height(settings.num_envs),
)
captions = []
if highlight is not None:
    captions.append(
        f"The thick black outline (env {highlight[0]}, step {highlight[1]}) marks the episode "
        "end that section 3 compares with the lesson."
    )
if shown_steps < settings.steps:
    captions.append(
        f"The timeline shows the first {shown_steps:,} of {settings.steps:,} steps (it draws at "
        f"most {TIMELINE_MAX_CELLS:,} cells); the table below lists every episode end."
    )
if settings.num_envs > READABLE_ENVS:
    captions.append(
        f"With more than {READABLE_ENVS} envs the rows get thin: hover to read a cell, or "
        "lower NUM_ENVS."
    )
if backends_agree:
    captions.append(
        f"✅ Check: the same run on {BACKEND_LABELS[other_backend]} returned exactly the same "
        f"{len(frame):,} (step, env) results."
    )
else:
    st.error(
        f"The same run on {BACKEND_LABELS[other_backend]} returned different results: "
        "please report this."
    )
for caption in captions:
    st.caption(caption)

# --- 2. Episode ends -----------------------------------------------------------------------
st.header("2. Every episode end, and where to find its observations")
where = {
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
if events.empty:
    st.info(f"No episode ended in these {settings.steps} steps. Try more steps or another seed.")
else:
    by_cause = events["cause"].str.split(" ").str[0].value_counts()
    st.write(
        f"{len(events):,} episodes ended in this run ("
        + ", ".join(f"{c}: {by_cause.get(c, 0):,}" for c in ("hit", "goal", "truncated"))
        + ")"
        + ". "
        + where[mode]
    )
    st.dataframe(events, hide_index=True, height=min(420, 38 + 35 * len(events)))

# --- 3. The lesson vs the installed gymnasium ----------------------------------------------
st.header(f"3. The lesson vs gymnasium {version}")
if end is None:
    st.info("No episode ended in this run, so there is nothing to compare: try more steps.")
else:
    step, env = int(end["step"]), int(end["env"])
    check = infos_check(settings.num_envs, settings.seed, mode, step, env)
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
    installed = {
        "NEXT_STEP": (
            f"Since gymnasium 1.0 the default is NEXT_STEP (a new `SyncVectorEnv` here says "
            f"`{check.default_mode}`). Step {step} handed back `obs[{env}] = "
            f"{end['final obs']}`, the **final** observation, and no extra key in `infos`. "
            f"The start `{obs_text(START_OBS)}` only came at step {step + 1}, with reward 0."
        ),
        "SAME_STEP": (
            f"SAME_STEP gives the lesson's timing: step {step} handed back `obs[{env}] = "
            f"{obs_text(START_OBS)}`. But the final observation `{end['final obs']}` is under "
            f'a new name, `infos["final_obs"][{env}]`. (The default mode here is '
            f"`{check.default_mode}`.)"
        ),
        "DISABLED": (
            f"DISABLED never restarts: step {step} handed back `obs[{env}] = "
            f"{end['final obs']}`, the final observation, and the robot stays ended until "
            f"you reset it. (The default mode here is `{check.default_mode}`.)"
        ),
    }
    with right, st.container(border=True):
        st.markdown(f"**What gymnasium {version} did in this run ({mode})**")
        st.markdown(installed[mode])
    table = lesson_vs_installed(frame, end, mode, check, version)
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

# --- 4. DISABLED -----------------------------------------------------------------------
st.header("4. DISABLED: nothing restarts by itself")
demo = disabled_run(settings.num_envs, settings.seed)
with st.expander(
    "Step an ended robot again, and see the fix (run live)", expanded=mode == "DISABLED"
):
    if demo.end_step == 0:
        st.info("No episode ended within the steps this demo may take; try another seed.")
    else:
        ended = ("envs " if len(demo.ended) > 1 else "env ") + ", ".join(str(i) for i in demo.ended)
        st.markdown(
            f"A fresh `SyncVectorEnv` with `autoreset_mode=AutoresetMode.DISABLED`, the same "
            f"{settings.num_envs} robots and the same random actions. At step {demo.end_step}, "
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
            moved = ("envs " if several else "env ") + ", ".join(
                str(i) for i in demo.stepped_before_error
            )
            st.warning(
                "**The failed call was not harmless.** SyncVectorEnv checks the envs one by "
                f"one while it steps them, so before it raised, {moved} had already taken "
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

# --- 5. Counting finished episodes ---------------------------------------------------------
st.header("5. Counting finished episodes")
st.write(
    "The lesson's second example: a few envs take random steps, and you count how many "
    "episodes each one finished (`terminated | truncated`, added up per env). The lesson uses "
    "2 envs and 200 steps; choose your own. All three modes get the same random actions."
)
col_cn, col_ck = st.columns(2)
col_cn.slider("NUM_ENVS (counting)", min_value=1, max_value=HIGH["cn"], key=KEY["cn"])
col_ck.number_input(
    "step() calls (counting)",
    min_value=1,
    max_value=HIGH["ck"],
    step=50,
    key=KEY["ck"],
    help=f"At most {CAPS.max_steps_per_run:,} (BURGERBOT_MAX_STEPS_PER_RUN).",
)
counts = computed(
    ("counts", settings.backend, settings.count_envs, settings.count_steps, settings.seed),
    f"Counting {settings.count_envs} envs × {settings.count_steps:,} steps in every mode",
    lambda progress: count_finished_by_mode(
        settings.backend, settings.count_envs, settings.count_steps, settings.seed, progress
    ),
)
st.altair_chart(finished_episodes_chart(counts), width="stretch")
totals = counts.groupby("mode", sort=False)[
    ["finished episodes", "goals", "hits", "truncations"]
].sum()
st.dataframe(totals, width="content")
total = totals["finished episodes"]
st.write(
    f"In {settings.count_steps:,} calls, NEXT_STEP finished **{total['NEXT_STEP']:,}** "
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

ui.code_expander(snippet_for(settings))
