"""The "Batch shapes" page's live view: the latest call's arrays, infos and robots."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import pandas as pd
import pyarrow as pa
import streamlit as st

from burgerbot.app import learning
from burgerbot.app.call_stepper import call_view
from burgerbot.app.charts.batch_shapes import cell_count_heatmap, pole_angle_chart
from burgerbot.app.glossary import term_link
from burgerbot.app.markdown import markdown_html, markdown_table
from burgerbot.app.slots import EnvSlot
from burgerbot.app.views import batch_shapes_live as live
from burgerbot.app.views.batch_shapes import ENVS, BatchSettings
from burgerbot.app.views.batch_shapes_pictures import (
    CARTPOLE_LIMITS,
    MAX_PICTURES,
    PICTURE_WIDTH,
    burgerbot_cell_counts,
    frozenlake_cell_counts,
    pole_angles,
    robot_picture,
)
from burgerbot.app.views.batch_shapes_run import HISTORY_LENGTH, BatchCall, BatchRun
from burgerbot.app.views.batch_shapes_tables import (
    MAX_TABLE_ROWS,
    array_summary,
    history_rows,
    infos_table,
    observation_table,
    step_table,
)

__all__ = ["call_body", "latest_call_panel"]


def _arrow(frame: pd.DataFrame) -> pa.Table:
    """``frame`` as an Arrow table, its index kept (Streamlit shows it as before).

    Streamlit converts a pandas frame itself, through checks these small tables never need;
    pyarrow's own conversion costs a fraction of that, and the live view redraws its chart
    and the chart's data on every step.
    """
    return pa.Table.from_pandas(frame)


@st.cache_data(max_entries=32, show_spinner=False)
def _summary(env: str, signature: tuple, _call: BatchCall) -> str:
    """``array_summary`` as a Markdown table, made once per env and array shapes and dtypes.

    It tells shapes, dtypes and axes only, so every step of a run has the same one. Markdown
    rather than a dataframe widget: it joins the call's line in one element, and each element
    of the live view is redrawn in the browser on every click.
    """
    frame = array_summary(_call, env).rename(columns={"axes": "what each axis means"})
    return markdown_table(frame)


def _signature(call: BatchCall) -> tuple:
    arrays = (call.observations, call.actions, call.rewards, call.terminated, call.truncated)
    return tuple((a.shape, a.dtype.str) for a in arrays if a is not None)


def latest_call_panel(
    run: BatchRun,
    settings: BatchSettings,
    history_key: str,
    *,
    view_key: str,
    step_key: str,
    slot: EnvSlot,
) -> None:
    """The latest call's arrays and infos, a picture of the envs and, on demand, the recent
    calls (``history_key``: the key of the toggle that shows them; ``view_key``: the view's).

    The heading, the arrays, the infos and the robots' pictures are one view (see
    `burgerbot.app.views.batch_shapes_live`), drawn with `call_view` together with the next
    call's, which the run takes now (`BatchRun.prepare`): a click on Step once (the button
    keyed ``step_key``) shows it at once, before its script run takes the step here. Charts
    (more robots than pictures, FrozenLake, CartPole) follow the view, from the server.
    """
    now, chart = _view(slot, run.latest, settings)
    upcoming = None
    if not slot.state.get("playing"):
        # A failed step here shows nothing early: the click's own step meets the error.
        with contextlib.suppress(Exception):
            upcoming = _view(slot, run.prepare(), settings)[0]
    call_view(
        now,
        upcoming,
        key=view_key,
        reveal_on=f".st-key-{step_key} button",
    )
    if chart is not None:
        chart()

    # Drawn only when asked for: every element here is redrawn on each click.
    if st.toggle(f"Show the recent calls (the last {HISTORY_LENGTH} are kept)", key=history_key):
        # Straight from the rows: the newest call (the first row) has every column.
        st.dataframe(pa.Table.from_pylist(history_rows(run)), hide_index=True)


def _step_arrays(call: BatchCall, n: int) -> str:
    if call.actions is None:
        return (
            "**`actions`, `rewards`, `terminated`, `truncated`**\n\n"
            "A reset returns only observations and infos: no actions, rewards or flags."
        )
    text = (
        f"**`actions` → `rewards`, `terminated`, `truncated`**: each of shape `({n},)`, "
        "one value per env.\n\n" + live.table_block(*step_table(call), "envs")
    )
    if ended := live.ended_envs(call.terminated, call.truncated):
        text += "\n\n" + live.small(
            f"Episodes ended in env {ended}. With gymnasium's default "
            f"{term_link('autoreset')} (NEXT_STEP), the next `step()` resets those envs: it "
            "ignores their action and returns reward 0, both flags False and their first "
            "observation."
        )
    return text


def _infos(call: BatchCall, settings: BatchSettings) -> str:
    table, hidden, other = infos_table(call.infos, settings.num_envs)
    if table is None:
        return (
            "**`infos`**\n\n"
            f"`infos` is `{{}}`, an empty dict: {settings.env} reports no extra information, "
            "and in gymnasium's default auto-reset mode (NEXT_STEP) the vector env adds none "
            "when an episode ends either. (Gymnasium 0.29, the lesson's, put "
            "`final_observation` there; see the Auto-reset page.)"
        )
    about = ENVS[settings.env].infos_about
    text = (
        "**`infos`**\n\n"
        "`infos` is one dict for all envs. Each key `k` holds an array with one value per "
        "env, and `_k` is a True/False mask: True where that env reported `k` in this call."
        + (f"\n\n{about}" if about else "")
        + "\n\n"
        + live.table_block(table, hidden, "envs")
    )
    if other:
        text += "\n\n" + live.small("Keys that are not one-value-per-env: " + ", ".join(other))
    return text


@st.cache_data(max_entries=8, show_spinner=False)
def _chart_spec(kind: str, title: str, _sample: pd.DataFrame) -> dict:
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


def _draw(kind: str, title: str, data: pd.DataFrame, width: str = "content") -> None:
    """The chart with its data as a table one click away, from the cached spec (an altair
    chart built per step would make a click slow); the table is drawn once its tab is open."""
    learning.chart_with_table(
        _chart_spec(kind, title, data), data, chart_data=_arrow(data), width=width
    )


def _pictures(call: BatchCall, env: str) -> tuple[str, Callable[[], None] | None]:
    """Where the envs' agents are: Markdown for the live view's body, and a chart to draw
    after it (None when the pictures alone show it)."""
    obs = call.observations
    n = len(obs)
    if env == "BurgerBot":
        if n <= MAX_PICTURES:
            pictures = [robot_picture(r, c, h) for r, c, h in obs[:, :3].tolist()]
            return (
                "**The robots, one picture per env** (orange: robot, dark tab: its nose; "
                "dark grey: obstacle, green: goal)\n\n"
                + live.pictures_html(pictures, [f"env {i}" for i in range(n)], PICTURE_WIDTH)
            ), None
        title = "Robots per cell (O obstacle, G goal, S start)"
        return (
            f"**Where the {n} robots stand** (more than {MAX_PICTURES}: counted per cell)",
            lambda: _draw("cells", title, burgerbot_cell_counts(obs)),
        )
    if env == "FrozenLake-v1":

        def lake() -> None:
            title = "Walkers per tile (S start, H hole, G goal)"
            _draw("cells", title, frozenlake_cell_counts(obs))
            st.caption(
                "Walkers on a hole (H) or on the goal (G) have just ended their episode: the "
                "next step puts them back on the start (S)."
            )

        return (
            f"**Where the {n} walkers stand** on the 4x4 lake (the state numbers 0..15, row "
            "by row)",
            lake,
        )
    first = "" if n <= MAX_TABLE_ROWS else f", the first {MAX_TABLE_ROWS} envs"

    def poles() -> None:
        _draw("poles", "", pole_angles(call), width="stretch")
        st.caption(f"{CARTPOLE_LIMITS.sentence()} (Read from the installed gymnasium's CartPole.)")

    return (
        f"**Pole angle per env** (column 2 of the batch{first}). Beyond the dashed lines "
        f"(±{CARTPOLE_LIMITS.pole_degrees:g}°) the pole has fallen.",
        poles,
    )


def call_body(call: BatchCall, settings: BatchSettings) -> tuple[str, Callable[[], None] | None]:
    """One call's view as Markdown (with a little HTML), and the chart to draw after it."""
    n = settings.num_envs
    if call.kind == "reset":
        title = "Latest call: reset"
        line = (
            f"`observations, infos = envs.reset(seed={settings.seed})`: no step yet. "
            "Press **Step once** to send one action per env."
        )
    else:
        title = f"Latest call: step {call.number} since the reset"
        line = (
            "`observations, rewards, terminated, truncated, infos = envs.step(actions)`, "
            f"with `actions` holding one action for each of the {n} envs."
        )
    observations = (
        f"**`observations`**: shape `{call.observations.shape}`, dtype "
        f"`{call.observations.dtype}`. One row per env.\n\n"
        + live.table_block(*observation_table(call, settings.env), "envs")
    )
    picture, chart = _pictures(call, settings.env)
    body = [
        live.heading(title),
        f"{line} The script below gives this call with `STEPS = {call.number}`.",
        _summary(settings.env, _signature(call), call),
        live.side_by_side(observations, _step_arrays(call, n)),
        _infos(call, settings),
        picture,
    ]
    return "\n\n".join(body), chart


def _view(
    slot: EnvSlot, call: BatchCall, settings: BatchSettings
) -> tuple[str, Callable[[], None] | None]:
    """``call``'s view as HTML and its chart, made once: the next call's view is the latest
    one's after the click. The slot keeps the views of the two calls last asked for."""
    views: list[tuple[BatchCall, str, Callable[[], None] | None]] = slot.state.setdefault(
        "views", []
    )
    for made_for, view, chart in views:
        if made_for is call:
            return view, chart
    body, chart = call_body(call, settings)
    view = markdown_html(body)
    views[:] = [*views[-1:], (call, view, chart)]
    return view, chart
