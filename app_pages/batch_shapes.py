"""Batch shapes: what one reset() or step() call of a vector env returns for N envs at once."""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import streamlit as st

from burgerbot import world
from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.charts.batch_shapes import cell_count_heatmap, pole_angle_chart
from burgerbot.app.scripts.batch_shapes import snippet_for
from burgerbot.app.slots import BudgetExceeded, EnvSlot
from burgerbot.app.views.batch_shapes import (
    BACKEND_LABELS,
    DTYPE_CHOICES,
    ENV_NAMES,
    ENVS,
    HISTORY_LENGTH,
    MAX_PICTURES,
    MAX_SEED,
    MAX_TABLE_ROWS,
    PLAY_INTERVAL_SECONDS,
    SPECS,
    BatchRun,
    array_summary,
    build_vector_env,
    burgerbot_cell_counts,
    check_guess,
    frozenlake_cell_counts,
    history_table,
    infos_table,
    observation_table,
    pole_angles,
    resolve_settings,
    space_type_notes,
    spaces_table,
    step_table,
)
from burgerbot.factories import BACKENDS

PAGE = "batch_shapes"
KEY = {spec.key: ui.widget_key(PAGE, spec) for spec in SPECS}

st.title("Batch shapes: one call, N environments")
st.write(
    "A vector env runs NUM_ENVS copies of an environment. Each `reset()` or `step()` call "
    "answers for all of them at once: every result is an array whose **axis 0 is the env "
    "index**. Pick an environment, guess the shape, then step and look."
)
ui.sidebar(
    topics=[
        "SyncVectorEnv built from zero-argument factory functions",
        "Batched observations, actions, rewards and flags",
        "observation_space vs single_observation_space",
        "(N,) batches from scalar observations",
        "dtypes: int64 vs float32",
    ],
    links=["Gymnasium vector API", "Gymnasium spaces and batching", "Auto-reset modes"],
)
notes = list(ui.load_settings(PAGE, SPECS))

# Apply the caps before the widgets exist, so the widgets show the values really used.
settings, adjust_notes = resolve_settings(
    {spec.key: st.session_state.get(KEY[spec.key], spec.default) for spec in SPECS}
)
# Keep a note about an adjusted setting while that setting stays in use (the widgets now
# show the adjusted value, so the next run alone would not know why).
if adjust_notes:
    st.session_state[f"_{PAGE}_adjust_notes"] = (settings.key, adjust_notes)
else:
    kept_key, kept_notes = st.session_state.get(f"_{PAGE}_adjust_notes", (None, []))
    adjust_notes = kept_notes if kept_key == settings.key else []
notes += adjust_notes
st.session_state[KEY["env"]] = settings.env
st.session_state[KEY["n"]] = settings.num_envs
st.session_state[KEY["backend"]] = settings.backend
st.session_state[KEY["seed"]] = settings.seed

col_env, col_backend, col_n, col_seed = st.columns([3, 3, 2, 2])
col_env.selectbox("Environment", ENV_NAMES, key=KEY["env"])
col_backend.radio(
    "Backend",
    BACKENDS,
    key=KEY["backend"],
    format_func=BACKEND_LABELS.get,
    horizontal=True,
    help=(
        "Sync: all copies in this process, stepped one after another. Async: one worker "
        "process per copy. native: one object that steps every copy with array operations."
    ),
)
col_n.number_input(
    "NUM_ENVS",
    min_value=1,
    max_value=CAPS.max_envs,
    step=1,
    key=KEY["n"],
    help=f"1 to {CAPS.max_envs}; Async at most {CAPS.max_async_envs} (one process per env).",
)
col_seed.number_input("Seed", min_value=0, max_value=MAX_SEED, step=1, key=KEY["seed"])
about = ENVS[settings.env].about
if not ENVS[settings.env].has_native:
    about += f" Gymnasium has no native vector env for {settings.env}: use Sync or Async."
st.caption(about)

ui.show_notes(notes)
ui.sync_query_params(PAGE, SPECS)


def fail(slot: EnvSlot, message: str) -> None:
    """Show what went wrong, drop the env (the next run builds a fresh one) and stop here."""
    slot.close()
    st.error(message)
    st.stop()


slot = ui.env_slot(PAGE)
if slot.idle_note:
    st.info(slot.idle_note)
starting_workers = slot.key != settings.key and settings.workers > 0
try:
    with (
        st.spinner(f"Starting {settings.workers} worker processes…")
        if starting_workers
        else contextlib.nullcontext()
    ):
        envs = slot.get(settings.key, lambda: build_vector_env(settings), settings.workers)
except BudgetExceeded as exc:
    fail(slot, str(exc))
except Exception as exc:  # a failed build must not take the page down
    fail(slot, f"Could not build the vector env: {exc}")

run: BatchRun | None = slot.state.get("run")
if run is None:
    run = BatchRun(envs, settings.seed)
    slot.state["run"] = run
    try:
        run.reset()
    except Exception as exc:
        fail(slot, f"`reset()` failed: {exc}")


def call_env(slot: EnvSlot, action, what: str) -> None:
    slot.touch()
    try:
        action()
    except Exception as exc:  # e.g. an Async worker that died
        fail(slot, f"`{what}` failed: {exc}. The env was closed; the page builds a new one.")


# --- Predict -------------------------------------------------------------------------------
with st.container(border=True):
    st.markdown(
        "**Predict first.** For these settings, what will `observations.shape` and "
        "`observations.dtype` be? (The answer is in the tables below: guess before you scroll.)"
    )
    g_shape, g_dtype, g_button = st.columns([3, 3, 2], vertical_alignment="bottom")
    g_shape.text_input("Shape", placeholder="for example (3, 2)", key=f"{PAGE}_guess_shape")
    g_dtype.selectbox(
        "dtype", DTYPE_CHOICES, index=None, placeholder="pick one", key=f"{PAGE}_guess_dtype"
    )
    if g_button.button("Check my guess", key=f"{PAGE}_check"):
        guess = check_guess(
            st.session_state.get(f"{PAGE}_guess_shape", ""),
            st.session_state.get(f"{PAGE}_guess_dtype") or "",
            run.latest,
            envs,
            settings.env,
        )
        show = st.success if guess.shape_right and guess.dtype_right else st.warning
        show(guess.explanation)


# --- Step ----------------------------------------------------------------------------------
def set_playing(slot: EnvSlot, on: bool) -> None:
    slot.state["playing"] = on
    slot.state["play_steps"] = 0


playing = bool(slot.state.get("playing"))
b_reset, b_step, b_step10, b_play, _ = st.columns([1, 1, 1, 1, 3])
if b_reset.button("Reset", key=f"{PAGE}_reset", help=f"envs.reset(seed={settings.seed})"):
    call_env(slot, run.reset, f"reset(seed={settings.seed})")
if b_step.button("Step once", key=f"{PAGE}_step", disabled=playing):
    call_env(slot, lambda: run.step(1), "step()")
steps_per_click = min(10, CAPS.max_steps_per_run)
if b_step10.button(f"Step ×{steps_per_click}", key=f"{PAGE}_step10", disabled=playing):
    call_env(slot, lambda: run.step(steps_per_click), "step()")
if playing:
    b_play.button("⏸ Pause", key=f"{PAGE}_pause", on_click=set_playing, args=(slot, False))
else:
    b_play.button(
        "▶ Play",
        key=f"{PAGE}_play",
        on_click=set_playing,
        args=(slot, True),
        help=f"Step on its own every {PLAY_INTERVAL_SECONDS} s until paused.",
    )
if note := slot.state.pop("play_note", None):
    st.info(note)
st.caption(
    "Actions are random: `envs.action_space.sample()`, with the action space seeded by the "
    "same seed at every reset, so the script at the bottom reproduces them."
)


def play_one_step(slot: EnvSlot, run: BatchRun) -> None:
    """While playing, every run of the live view takes one step (up to the per-click cap)."""
    if slot.state.get("play_steps", 0) >= CAPS.max_steps_per_run:
        slot.state["playing"] = False
        slot.state["play_note"] = (
            f"Paused after {CAPS.max_steps_per_run} steps, this app's limit per click "
            "(raise with BURGERBOT_MAX_STEPS_PER_RUN when running locally). Press Play again "
            "to go on."
        )
        st.rerun(scope="app")
    slot.state["play_steps"] = slot.state.get("play_steps", 0) + 1
    call_env(slot, lambda: run.step(1), "step()")


def show_table(frame, hidden: int, what: str, width: str = "stretch") -> None:
    st.dataframe(frame, width=width)
    if hidden:
        st.caption(f"Showing the first {len(frame)} {what}; {hidden} more are hidden.")


def show_latest_call(run: BatchRun) -> None:
    call = run.latest
    n = settings.num_envs
    if call.kind == "reset":
        st.subheader("Latest call: reset")
        st.markdown(
            f"`observations, infos = envs.reset(seed={settings.seed})`: no step yet. "
            "Press **Step once** to send one action per env."
        )
    else:
        st.subheader(f"Latest call: step {call.number} since the reset")
        st.markdown(
            "`observations, rewards, terminated, truncated, infos = envs.step(actions)`, "
            f"with `actions` holding one action for each of the {n} envs."
        )
    st.dataframe(
        array_summary(call, settings.env),
        hide_index=True,
        column_config={"axes": st.column_config.TextColumn("what each axis means", width="large")},
    )

    left, right = st.columns(2)
    with left:
        st.markdown(
            f"**`observations`**: shape `{call.observations.shape}`, dtype "
            f"`{call.observations.dtype}`. One row per env."
        )
        show_table(*observation_table(call, settings.env), "envs")
    with right:
        if call.actions is None:
            st.markdown("**`actions`, `rewards`, `terminated`, `truncated`**")
            st.write("A reset returns only observations and infos: no actions, rewards or flags.")
        else:
            st.markdown(
                f"**`actions` → `rewards`, `terminated`, `truncated`**: each of shape `({n},)`, "
                "one value per env."
            )
            show_table(*step_table(call), "envs")
            ended = np.flatnonzero(call.terminated | call.truncated)
            if len(ended):
                shown = ", ".join(str(i) for i in ended[:10]) + (" …" if len(ended) > 10 else "")
                st.caption(
                    f"Episodes ended in env {shown}. With gymnasium's default auto-reset "
                    "(NEXT_STEP), the next `step()` resets those envs: it ignores their action "
                    "and returns reward 0 and their first observation."
                )

    st.markdown("**`infos`**")
    table, hidden, other = infos_table(call.infos, n)
    if table is None:
        st.write(
            f"`infos` is `{{}}`, an empty dict: {settings.env} reports no extra information, "
            "and in gymnasium's default auto-reset mode (NEXT_STEP) the vector env adds none "
            "when an episode ends either. (Older gymnasium put `final_observation` there; see "
            "the Auto-reset page.)"
        )
    else:
        st.write(
            "`infos` is one dict for all envs. Each key `k` holds an array with one value per "
            "env, and `_k` is a True/False mask: True where that env reported `k` in this call."
        )
        if ENVS[settings.env].infos_about:
            st.write(ENVS[settings.env].infos_about)
        show_table(table, hidden, "envs", width="content")
        if other:
            st.caption("Keys that are not one-value-per-env: " + ", ".join(other))

    st.markdown("**Spaces: one env vs the whole batch**")
    st.dataframe(spaces_table(envs), hide_index=True)
    st.caption(
        "`single_observation_space` and `single_action_space` describe one env. The batched "
        f"`observation_space` and `action_space` put NUM_ENVS ({n}) in front, on axis 0."
    )
    for note in space_type_notes(envs):
        st.caption(note)

    show_pictures(call)

    with st.expander(f"Recent calls (the last {HISTORY_LENGTH} are kept)"):
        st.dataframe(history_table(run), hide_index=True)

    ui.code_expander(snippet_for(settings, run.steps))


@st.cache_data(max_entries=8, show_spinner=False)
def chart_spec(kind: str, title: str, _sample: pd.DataFrame) -> dict:
    """A chart's Vega-Lite spec without its data, made once per server.

    Building and validating an altair chart costs a few hundred milliseconds on a small
    machine; from one step to the next only the data change, so each step passes its new
    data alongside this cached spec.
    """
    chart = cell_count_heatmap(_sample, title) if kind == "cells" else pole_angle_chart(_sample)
    spec = chart.to_dict()
    spec.pop("data")
    spec.pop("datasets")
    return spec


def draw(kind: str, title: str, data: pd.DataFrame, width: str = "content") -> None:
    st.vega_lite_chart(data, chart_spec(kind, title, data), width=width)


def show_pictures(call) -> None:
    obs = call.observations
    n = len(obs)
    if settings.env == "BurgerBot":
        if n <= MAX_PICTURES:
            st.markdown("**The robots, one picture per env** (orange: robot, dark tab: its nose)")
            images = [world.render_rgb(r, c, h) for r, c, h in obs[:, :3].tolist()]
            st.image(images, caption=[f"env {i}" for i in range(n)], width=112)
        else:
            st.markdown(
                f"**Where the {n} robots stand** (more than {MAX_PICTURES}: counted per cell)"
            )
            title = "Robots per cell (O obstacle, G goal, S start)"
            draw("cells", title, burgerbot_cell_counts(obs))
    elif settings.env == "FrozenLake-v1":
        st.markdown(
            f"**Where the {n} walkers stand** on the 4x4 lake (the state numbers 0..15, row by row)"
        )
        draw("cells", "Walkers per tile (S start, H hole, G goal)", frozenlake_cell_counts(obs))
        st.caption(
            "Walkers on a hole (H) or on the goal (G) have just ended their episode: the next "
            "step puts them back on the start (S)."
        )
    else:
        first = "" if n <= MAX_TABLE_ROWS else f", the first {MAX_TABLE_ROWS} envs"
        st.markdown(
            f"**Pole angle per env** (column 2 of the batch{first}). Beyond the dashed lines "
            "(±12°) the pole has fallen and that env's episode ends."
        )
        draw("poles", "", pole_angles(call), width="stretch")


@st.fragment(run_every=PLAY_INTERVAL_SECONDS if playing else None)
def live_view() -> None:
    """The latest call; while playing, Streamlit reruns just this part on a timer."""
    if slot.env is not envs:  # closed after an error: the full page builds a new one
        st.rerun(scope="app")
    if slot.state.get("playing"):
        play_one_step(slot, run)
    show_latest_call(run)


live_view()
