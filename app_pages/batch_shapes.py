"""Batch shapes: what one reset() or step() call of a vector env returns for N envs at once."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import pyarrow as pa
import streamlit as st
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv

from burgerbot.app import learning, ui
from burgerbot.app.call_stepper import Request, call_stepper
from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.glossary import term_link
from burgerbot.app.logic.batch_shapes import (
    CARTPOLE_LIMITS,
    DTYPE_OPTIONS,
    ENV_NAMES,
    ENVS,
    HISTORY_LENGTH,
    MAX_PICTURES,
    MAX_TABLE_ROWS,
    PICTURE_WIDTH,
    PLAY_INTERVAL_SECONDS,
    SHAPE_OPTIONS,
    SPECS,
    BatchCall,
    BatchRun,
    BatchSettings,
    array_summary,
    backend_option,
    build_vector_env,
    burgerbot_cell_counts,
    cell_count_grid,
    dtype_explanation,
    ended_envs,
    frozenlake_cell_counts,
    heading,
    history_rows,
    info_cast_sentence,
    info_casts,
    infos_table,
    observation_table,
    pictures_html,
    pole_angle_svg,
    pole_angles,
    prediction_ids,
    resolve_settings,
    reveal_id,
    robot_picture,
    shape_explanation,
    shape_truth,
    side_by_side,
    small,
    spaces_table,
    step_table,
    table_block,
    takeaways,
)
from burgerbot.app.markdown import markdown_html, markdown_table
from burgerbot.app.pacing import STEPPING, Turn
from burgerbot.app.scripts.batch_shapes import PROB_PITFALL, snippet_for
from burgerbot.app.slots import BudgetExceeded, EnvSlot, dead_workers
from burgerbot.checks import MAX_SEED
from burgerbot.factories import BACKENDS

PAGE = "batch_shapes"
KEPT_NOTES = f"_{PAGE}_adjust_notes"


def resolve_keeping_notes(values: Mapping[str, Any]) -> tuple[BatchSettings, list[str]]:
    """`resolve_settings`, whose notes stay while the adjusted settings stay in use.

    The widgets show the adjusted value from then on, so the next run alone would not know
    why it was adjusted.
    """
    settings, notes = resolve_settings(values)
    if notes:
        st.session_state[KEPT_NOTES] = (settings.key, notes)
        return settings, notes
    kept_key, kept_notes = st.session_state.get(KEPT_NOTES, (None, []))
    return settings, (kept_notes if kept_key == settings.key else [])


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Batch shapes: one call, N environments",
    intro=(
        f"You will learn what one `reset()` or `step()` call of a {term_link('vector-env')} "
        f"returns for all its {term_link('sub-environment', 'sub-environments')} "
        f"at once. `SyncVectorEnv` builds them from {term_link('factory', 'factory functions')}"
        " (each builds one env when called with no arguments)."
    ),
    topics=[
        "SyncVectorEnv built from zero-argument factory functions",
        "Batched observations, actions, rewards and flags",
        "observation_space vs single_observation_space",
        "Batches of scalar observations",
        "Exercise 3: the batched dtype",
    ],
    links=["Gymnasium vector API", "Gymnasium spaces and batching", "Auto-reset modes"],
)
# The caps apply before the widgets exist, so the widgets show the values really used.
settings = frame.resolve(
    resolve_keeping_notes,
    lambda s: {"env": s.env, "n": s.num_envs, "backend": s.backend, "seed": s.seed},
)


# --- The settings' controls -----------------------------------------------------------------------
# The "Batch shapes" page's settings: environment, NUM_ENVS, seed and backend, and the env.


def settings_controls(key: Mapping[str, str], settings: BatchSettings, caps: Caps) -> None:
    """Environment, NUM_ENVS and seed side by side, the backend below, and what the env is."""
    col_env, col_n, col_seed = st.columns([4, 2, 2])
    col_env.selectbox("Environment", ENV_NAMES, key=key["env"])
    col_n.number_input(
        "NUM_ENVS",
        min_value=1,
        max_value=caps.max_envs,
        step=1,
        key=key["n"],
        help=f"1 to {caps.max_envs}; Async at most {caps.max_async_envs} (one process per env).",
    )
    col_seed.number_input("Seed", min_value=0, max_value=MAX_SEED, step=1, key=key["seed"])
    st.radio(
        "Vector env class (backend)",
        BACKENDS,
        key=key["backend"],
        format_func=lambda backend: backend_option(settings.env, backend),
        horizontal=True,
    )
    st.caption(ENVS[settings.env].about)


settings_controls(frame.key, settings, CAPS)
frame.settings_done()


# --- The live env ------------------------------------------------------------------------------


def fail(slot: EnvSlot, message: str) -> NoReturn:
    """Show what went wrong, drop the env (the next run builds a fresh one) and stop here."""
    slot.close()
    slot.idle_note = None  # ``message`` says it
    st.error(message)
    st.stop()


def call_env(slot: EnvSlot, action: Callable[[], Any], what: str) -> None:
    """Run ``action`` on the env; if it raises (e.g. an Async worker died), close the env."""
    slot.touch()
    try:
        action()
    except Exception as exc:  # e.g. an Async worker that died
        fail(slot, slot.failure_message(what, exc))


def _set_playing(slot: EnvSlot, on: bool) -> None:
    slot.state["playing"] = on
    slot.state["play_steps"] = 0


def answer_request(slot: EnvSlot, run: BatchRun, seed: int, request: Request) -> None:
    """Do what the stepper asked for (before the script run its request starts).

    The stepper's Reset, Step once, Step ×10 and Play run in the browser as long as it
    holds the calls they show; it asks here for the rest, saying which call the learner
    reached. A failure is kept for the live view, which shows it.
    """
    if slot.env is not run.envs:  # closed (e.g. idle): the live view's full run rebuilds it
        return
    slot.touch()
    slot.state["serial"] = slot.state.get("serial", 0) + 1
    what = f"reset(seed={seed})" if request.kind == "reset" else "step()"
    # A reset, or a call past those taken ahead, calls the env here: in the server-wide gate
    # (see `latest_call_panel`). Showing calls taken ahead needs no turn.
    shows = max(request.reached, request.target) if request.kind == "go" else request.reached
    calls_env = request.kind == "reset" or (
        request.kind in ("go", "more", "play") and shows > run.steps + len(run.ahead)
    )
    try:
        with STEPPING.turn(id(slot)) if calls_env else contextlib.nullcontext():
            if request.kind == "reset":
                run.reset()
                slot.state["resets"] = slot.state.get("resets", 0) + 1
            elif request.kind == "go":
                run.advance_to(max(request.reached, request.target))
            elif request.kind in ("more", "play"):
                run.advance_to(request.reached)
            if request.kind in ("play", "pause"):
                _set_playing(slot, request.kind == "play")
    except Exception as exc:  # e.g. an Async worker that died
        slot.state["failed"] = (
            f"`{what}` failed: {exc}. The env was closed; the page builds a new one."
        )


def step_buttons(slot: EnvSlot, seed: int) -> dict[str, Any]:
    """The stepper's buttons: Reset, Step once, Step ×N and Play or Pause."""
    playing = bool(slot.state.get("playing"))
    return {
        "buttons": ("reset", "step", "steps", "pause" if playing else "play"),
        "helps": {
            "reset": f"envs.reset(seed={seed})",
            "play": f"Step on its own every {PLAY_INTERVAL_SECONDS} s until paused.",
        },
        "disabled": ("step", "steps") if playing else (),
        "step_times": min(10, CAPS.max_steps_per_run),
        "reset_here": False,
    }


def actions_note() -> None:
    """Where the live view's actions come from, and what happens when an episode ends (drawn
    once, above it: auto-reset is first named on the lesson path here). Markdown, not a
    caption: a link at a caption's fade fails AA contrast."""
    st.markdown(
        "Actions are random (`envs.action_space.sample()`, seeded as in the script). An env "
        "whose episode ends starts a new one by itself "
        f"({term_link('autoreset', 'auto-reset')})."
    )


def play_one_step(slot: EnvSlot, run: BatchRun, caps: Caps) -> None:
    """While playing, every run of the live view takes one step (up to the per-click cap)."""
    if slot.state.get("play_steps", 0) >= caps.max_steps_per_run:
        slot.state["playing"] = False
        slot.state["play_note"] = (
            f"Paused after {caps.max_steps_per_run} steps, the most Play takes in a row. "
            "Press Play again to go on."
        )
        st.rerun(scope="app")
    slot.state["play_steps"] = slot.state.get("play_steps", 0) + 1
    with STEPPING.turn(id(slot)):
        call_env(slot, lambda: run.step(1), "step()")


# --- The vector env, kept between runs in this session's slot ----------------------------------
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
        envs = slot.get(
            settings.key,
            lambda: build_vector_env(settings),
            settings.workers,
            sync_envs=settings.num_envs if settings.backend == "sync" else 0,
        )
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


# --- Predict -------------------------------------------------------------------------------------


SHAPE_HELP = "k: how many numbers one env's observation holds."


def guess_panel(run: BatchRun, envs: VectorEnv, env: str) -> bool:
    """Ask for the observation batch's shape and dtype before anything shows them; returns
    whether the page may show the batch (both answered, or the learner skipped).

    Each answer is checked against the batch this run's env returned (shape and dtype are
    the same for every call of one env, so the reset's batch will do), outside the live view:
    a step click does not redo it. Each check waits for both answers: the shape's explanation
    names the single space, whose repr tells its dtype.
    """
    observations = run.latest.observations
    single = envs.single_observation_space
    shape_id, dtype_id = prediction_ids(env)
    skip = reveal_id(env)
    left, right = st.columns(2)
    with left:
        learning.prediction(
            shape_id, "What is `observations.shape`?", SHAPE_OPTIONS, help=SHAPE_HELP
        )
    with right:
        learning.prediction(dtype_id, "What is `observations.dtype`?", DTYPE_OPTIONS)
    locked = learning.is_locked(shape_id) and learning.is_locked(dtype_id)
    # One skip stands for both questions (neither is then scored).
    if not (locked or learning.revealed(skip, covers=(shape_id, dtype_id))):
        return False
    left, right = st.columns(2)
    with left:
        truth = shape_truth(observations.shape, len(observations))
        natively_batched = not isinstance(envs, (SyncVectorEnv, AsyncVectorEnv))
        # A batch of none of the offered shapes (truth None) is shown, not scored.
        learning.check(
            shape_id, truth, shape_explanation(observations, single, env, natively_batched)
        )
    with right:
        learning.check(dtype_id, str(observations.dtype), dtype_explanation(observations, single))
    return True


# --- Predict, then step ------------------------------------------------------------------------
shown = guess_panel(run, envs, settings.env)
playing = bool(slot.state.get("playing"))


# --- The live view: the latest call, and the calls taken ahead of clicks --------------------------
# The "Batch shapes" page's live view: the latest call's arrays, infos and robots.


@st.cache_data(max_entries=32, show_spinner=False)
def _summary(env: str, signature: tuple, _call: BatchCall) -> str:
    """``array_summary`` as a Markdown table, made once per env and array shapes and dtypes.

    It tells shapes, dtypes and axes only, so every step of a run has the same one. Markdown
    rather than a dataframe widget: it joins the call's line in one element, and each element
    of the live view is redrawn in the browser on every click.
    """
    return markdown_table(array_summary(_call))


def _signature(call: BatchCall) -> tuple:
    arrays = (call.observations, call.actions, call.rewards, call.terminated, call.truncated)
    return tuple((a.shape, a.dtype.str) for a in arrays if a is not None)


STRETCH = 20  # calls the page takes ahead of the learner's clicks, at most
STRETCH_BYTES = 600_000  # about the most view HTML one answer sends: big views, short stretch
BUSY_STRETCH = 10  # while a hammering tab waits for the gate; Step ×10 still shows in the page


def latest_call_panel(
    run: BatchRun, settings: BatchSettings, history_key: str, *, view_key: str, slot: EnvSlot
) -> None:
    """The latest call's arrays and infos, a picture of the envs and, on demand, the recent
    calls (``history_key``: the key of the toggle that shows them; ``view_key``: the
    stepper's).

    The heading, the arrays, the infos and the robots' pictures or chart are one view (see
    `burgerbot.app.logic.batch_shapes`), drawn by `call_stepper` together with the views
    of the next calls, which the run takes now (`BatchRun.take_ahead`): Step once shows
    them in the browser, and the stepper asks for the next stretch when it runs low.
    """
    playing = bool(slot.state.get("playing"))
    # The steps and views are made in the server-wide gate, one call a piece: a session
    # stepping on its own never waits; beside others, the least busy goes first.
    with STEPPING.turn(id(slot)) as turn:
        now = _view(slot, run.latest, settings)
        if not playing:
            take_ahead(
                slot, run, settings, max(1, min(STRETCH, STRETCH_BYTES // max(1, len(now)))), turn
            )
    calls = [run.latest] + ([] if playing else list(run.ahead))
    views = [now] + [_view(slot, call, settings) for call in calls[1:]]
    _keep_views(slot, calls)
    call_stepper(
        views,
        run=f"{settings.key}:{id(run)}:{slot.state.get('resets', 0)}",
        key=view_key,
        first=run.steps,
        at=run.steps,
        more=not playing,
        serial=slot.state.get("serial", 0),
        on_request=lambda request: answer_request(slot, run, settings.seed, request),
        **step_buttons(slot, settings.seed),
    )
    # Drawn only when asked for: every element here is redrawn on each click.
    if st.toggle("Recent calls", key=history_key, help=f"The last {HISTORY_LENGTH} are kept."):
        # Straight from the rows: the newest call (the first row) has every column.
        st.dataframe(pa.Table.from_pylist(history_rows(run)), hide_index=True)


def take_ahead(
    slot: EnvSlot, run: BatchRun, settings: BatchSettings, stretch: int, turn: Turn
) -> None:
    """Take steps ahead of the learner's clicks until ``stretch`` wait, making each one's
    view, and offer the gate to a less busy session after each step and view
    (`Turn.piece_done`). While a hammering session waits for the gate, stop at
    `BUSY_STRETCH`: the answer comes sooner, and the stepper asks for more before it runs
    out. (Not whenever anyone waits: in a busy class, shorter stretches would only mean more
    requests.)"""
    while len(run.ahead) < stretch:
        if len(run.ahead) >= BUSY_STRETCH and turn.hammering_waits():
            return
        # A failed step here shows nothing early: the click's own request meets the error;
        # but an Async env whose worker died cannot step again: say so now, once.
        try:
            call = run.take_ahead(len(run.ahead) + 1)[-1]
        except Exception as exc:
            if dead_workers(slot.env):
                fail(slot, slot.failure_message("step()", exc))
            return
        turn.piece_done()  # a step of many envs, then its view: two pieces
        _view(slot, call, settings)
        turn.piece_done()


def _step_arrays(call: BatchCall, n: int) -> str:
    if call.actions is None:
        return "**`actions` → `rewards`, `terminated`, `truncated`**\n\nNone: a reset."
    text = "**`actions` → `rewards`, `terminated`, `truncated`**\n\n" + table_block(
        *step_table(call), "envs"
    )
    if ended := ended_envs(call.terminated, call.truncated):
        text += "\n\n" + small(f"Episode ended in env{'s' if ',' in ended else ''} {ended}.")
    return text


def _infos(call: BatchCall, settings: BatchSettings) -> str:
    table, hidden, other = infos_table(call.infos, settings.num_envs)
    if table is None:
        return f"**`infos`**: `{{}}` ({settings.env} reports nothing extra here)."
    about = ENVS[settings.env].infos_about
    text = (
        "**`infos`**: one dict; each key `k` holds one value per env, and `_k` is True where "
        "that env reported `k`."
        + (f" {about}" if about else "")
        + "\n\n"
        + table_block(table, hidden, "envs")
    )
    if other:
        text += "\n\n" + small("Keys that are not one-value-per-env: " + ", ".join(other))
    for cast in info_casts(call.infos, call.own_infos):
        text += "\n\n" + info_cast_sentence(cast, call.autoreset_envs)
    return text


def _pictures(call: BatchCall, env: str) -> str:
    """Where the envs' agents are, as part of the call's view: the robots' pictures, or a
    chart (HTML, with its data as a table) built from the call's numbers."""
    obs = call.observations
    n = len(obs)
    if env == "BurgerBot":
        if n <= MAX_PICTURES:
            pictures = [robot_picture(r, c, h) for r, c, h in obs[:, :3].tolist()]
            return (
                "**The robots** (orange, dark tab: nose; grey: obstacle; green: goal)\n\n"
                + pictures_html(pictures, [f"env {i}" for i in range(n)], PICTURE_WIDTH)
            )
        title = "Robots per cell (O obstacle, G goal, S start)"
        return (
            f"**Where the {n} robots stand** (more than {MAX_PICTURES}: counted per cell)\n\n"
            + cell_count_grid(burgerbot_cell_counts(obs), title, "cells")
        )
    if env == "FrozenLake-v1":
        title = "Walkers per tile (S start, H hole, G goal)"
        return f"**Where the {n} walkers stand**\n\n" + cell_count_grid(
            frozenlake_cell_counts(obs), title, "cells"
        )
    first = "" if n <= MAX_TABLE_ROWS else f", the first {MAX_TABLE_ROWS} envs"
    return (
        f"**Pole angle per env** (column 2{first}): past the dashed lines "
        f"(±{CARTPOLE_LIMITS.pole_degrees:g}°) the pole has fallen.\n\n"
        + pole_angle_svg(pole_angles(call), "poles")
    )


def call_body(call: BatchCall, settings: BatchSettings) -> str:
    """One call's view as Markdown (with a little HTML: the layout, pictures and charts)."""
    n = settings.num_envs
    if call.kind == "reset":
        title = "Latest call: reset"
        line = f"`observations, infos = envs.reset(seed={settings.seed})`"
    else:
        title = f"Latest call: step {call.number} since the reset"
        line = "`observations, rewards, terminated, truncated, infos = envs.step(actions)`"
    observations = "**`observations`**\n\n" + table_block(
        *observation_table(call, settings.env), "envs"
    )
    body = [
        heading(title),
        f"{line} (the script below with `STEPS = {call.number}`)",
        _summary(settings.env, _signature(call), call),
        side_by_side(observations, _step_arrays(call, n)),
        _infos(call, settings),
        _pictures(call, settings.env),
    ]
    return "\n\n".join(body)


def _view(slot: EnvSlot, call: BatchCall, settings: BatchSettings) -> str:
    """``call``'s view as HTML, made once: the calls taken ahead are shown later. The slot
    keeps the views of the calls the stepper holds (`_keep_views`)."""
    views: dict[int, tuple[BatchCall, str]] = slot.state.setdefault("views", {})
    made = views.get(id(call))
    if made is not None and made[0] is call:
        return made[1]
    view = markdown_html(call_body(call, settings))
    views[id(call)] = (call, view)
    return view


def _keep_views(slot: EnvSlot, calls: list[BatchCall]) -> None:
    """Drop the views of calls the stepper no longer holds (bounded session memory)."""
    views = slot.state.get("views", {})
    kept = {id(call) for call in calls}
    for made_for in [k for k in views if k not in kept]:
        del views[made_for]


@st.fragment(run_every=PLAY_INTERVAL_SECONDS if playing else None)
def live_view() -> None:
    """The stepper: its step and play buttons and the calls (their charts included).

    A request of the stepper reruns only this part (the settings, the guess and the spaces
    stay as they are); while playing, Streamlit also reruns it on a timer.
    """
    # The timer is set when the page runs in full: Play and Pause need a full run. So does
    # an env closed after an error or for being idle (the full page builds a new one).
    if failed := slot.state.pop("failed", None):
        fail(slot, failed)
    if slot.env is not envs or bool(slot.state.get("playing")) != playing:
        st.rerun(scope="app")
    if note := slot.state.pop("play_note", None):
        st.info(note)
    if playing:
        play_one_step(slot, run, CAPS)
    latest_call_panel(
        run, settings, history_key=f"{PAGE}_history", view_key=f"{PAGE}_live", slot=slot
    )


if shown:
    actions_note()
    live_view()


# --- The latest call -----------------------------------------------------------------------------


def script_panel(settings: BatchSettings) -> None:
    """The live view as a script. Its ``STEPS`` is the one line to change: each call the
    stepper shows names the value that gives it, so the script stays right whichever call
    the learner has stepped to in the browser."""
    ui.code_expander(snippet_for(settings))


def spaces_panel(envs: VectorEnv) -> None:
    """The batched and single spaces: fixed for an env, so drawn outside the live view. A
    Markdown table: its cells wrap on a phone."""
    st.markdown("**Spaces: one env vs the batch**\n\n" + markdown_table(spaces_table(envs)))


if shown:
    script_panel(settings)
    spaces_panel(envs)
if shown and settings.env == "FrozenLake-v1":
    ui.code_expander(
        PROB_PITFALL,
        "Code: the `prob` dtype pitfall, and a safe way to read such infos",
        name="the prob dtype pitfall",
    )
frame.takeaways(
    takeaways(
        settings.env, run.latest.observations, envs.single_observation_space, envs.observation_space
    ),
    # Both questions answered (or skipped): nothing to wait for; else the skip's question.
    after=None if shown else reveal_id(settings.env),
)
