"""Charts for the "Sync vs Async" page: env-steps per second, and Async's speed-up over Sync."""

from __future__ import annotations

import altair as alt
import pandas as pd

from burgerbot.app.labels import BACKEND_NAMES
from burgerbot.app.palette import BACKEND_COLOURS, OKABE_ITO, SHAPES

__all__ = ["BACKEND_COLOURS", "BACKEND_SHAPES", "NATIVE_LABEL", "speedup_chart", "throughput_chart"]

BACKEND_SHAPES = dict(zip(BACKEND_COLOURS, SHAPES, strict=False))
"""Each backend's marker shape, so the lines differ by more than colour."""

NATIVE_LABEL = "native (BurgerBotVectorEnv: this project's, not Gymnasium's)"
"""How the legend names the native backend."""


def _x(values: list[int]) -> alt.X:
    return alt.X(
        "num_envs:Q",
        title="NUM_ENVS (log scale)",
        scale=alt.Scale(type="log", base=2, nice=False, padding=12),
        axis=alt.Axis(values=values, format="d"),
    )


def throughput_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Env-steps per second against NUM_ENVS, one line per backend, both axes logarithmic.

    ``frame`` has one row per (backend, num_envs), as made by ``experiments.time_backends``
    (backend "sync" / "async" / "native").
    """
    data = frame[["backend", "num_envs", "env_steps_per_s", "step_s", "env_steps"]].assign(
        backend=frame["backend"].map(BACKEND_NAMES)
    )
    values = sorted(int(n) for n in data["num_envs"].unique())
    present = [name for name in BACKEND_COLOURS if name in set(data["backend"])]
    legend = alt.Legend(
        orient="bottom",
        labelLimit=0,
        labelExpr=f"datum.label == 'native' ? \"{NATIVE_LABEL}\" : datum.label",
    )
    colour = alt.Color(
        "backend:N",
        title="backend",
        scale=alt.Scale(domain=present, range=[BACKEND_COLOURS[name] for name in present]),
        legend=legend,
    )
    shape = alt.Shape(
        "backend:N",
        scale=alt.Scale(domain=present, range=[BACKEND_SHAPES[name] for name in present]),
        legend=legend,
    )
    base = alt.Chart(data).encode(
        x=_x(values),
        y=alt.Y(
            "env_steps_per_s:Q",
            title="env-steps per second (log scale; higher is faster)",
            scale=alt.Scale(type="log"),
        ),
        color=colour,
        tooltip=[
            alt.Tooltip("backend:N"),
            alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
            alt.Tooltip("env_steps_per_s:Q", title="env-steps/s", format=",.0f"),
            alt.Tooltip("step_s:Q", title="stepping time (s)", format=".3f"),
            alt.Tooltip("env_steps:Q", title="env-steps", format=",d"),
        ],
    )
    # Streamlit fits the whole chart (title and axes too) into this height.
    points = base.mark_point(filled=True, size=70).encode(shape=shape)
    return (base.mark_line() + points).properties(
        title="How fast each backend collects env-steps", height=420
    )


def speedup_chart(speedups: pd.DataFrame, kind: str) -> alt.LayerChart:
    """Async's speed-up over Sync against NUM_ENVS, with the ceiling for this kind of cost.

    ``speedups`` has columns num_envs, speedup, ceiling (``views.sync_vs_async.speedups``). A dotted
    line at 1 separates "Async faster" (above) from "Sync faster" (below).
    """
    values = sorted(int(n) for n in speedups["num_envs"].unique())
    measured = "measured speed-up"
    ceiling = "ceiling: min(N, cores)" if kind == "busy" else "ceiling: N"
    long = pd.concat(
        [
            speedups[["num_envs"]].assign(value=speedups["speedup"], what=measured),
            speedups[["num_envs"]].assign(value=speedups["ceiling"], what=ceiling),
        ],
        ignore_index=True,
    )
    lines = (
        alt.Chart(long)
        .mark_line(point=True)
        .encode(
            x=_x(values),
            y=alt.Y(
                "value:Q",
                title="Async speed-up over Sync (×, log scale)",
                scale=alt.Scale(type="log"),
            ),
            color=alt.Color(
                "what:N",
                title=None,
                scale=alt.Scale(
                    domain=[measured, ceiling],
                    range=[BACKEND_COLOURS["Async"], OKABE_ITO[7]],
                ),
                legend=alt.Legend(orient="right", labelLimit=0),
            ),
            strokeDash=alt.StrokeDash(
                "what:N",
                scale=alt.Scale(domain=[measured, ceiling], range=[[1, 0], [6, 4]]),
                legend=None,
            ),
            shape=alt.Shape(
                "what:N", scale=alt.Scale(domain=[measured, ceiling], range=list(SHAPES[:2]))
            ),
            tooltip=[
                alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
                alt.Tooltip("what:N"),
                alt.Tooltip("value:Q", title="×", format=".2f"),
            ],
        )
    )
    even = (
        alt.Chart(pd.DataFrame({"y": [1.0]}))
        .mark_rule(strokeDash=[2, 3], color="black")
        .encode(y="y:Q")
    )
    return (lines + even).properties(
        title="Above 1: Async is faster. Below 1: Sync is faster.", height=400
    )
