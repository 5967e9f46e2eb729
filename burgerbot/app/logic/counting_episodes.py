"""The "Counting finished episodes" page's Streamlit-free logic: its settings, the counting run
in both auto-reset modes, what it shows in words, and its chart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import altair as alt
import numpy as np
import pandas as pd

from burgerbot import checks
from burgerbot.app.caps import CAPS
from burgerbot.app.labels import counted
from burgerbot.app.palette import OKABE_ITO, SHAPES, colour_scale
from burgerbot.app.settings import IntSetting, parse_values
from burgerbot.checks import MAX_SEED
from burgerbot.experiments import MAX_ROLLOUT_ROWS, Progress, rollout
from burgerbot.random_agent import episode_odds

__all__ = [
    "BACKEND",
    "COUNTING_HEIGHT",
    "MODES",
    "MODE_SHAPES",
    "OPTIONS",
    "SPECS",
    "CountingSettings",
    "count_finished_by_mode",
    "counting_sentence",
    "counts_table",
    "fewer_from",
    "finished_episodes_chart",
    "finished_per_env",
    "prediction_truth",
    "question",
    "resolve_settings",
    "takeaway_bullets",
    "totals",
    "widget_values",
]

MODES = ("NEXT_STEP", "SAME_STEP")
"""The two auto-reset modes that restart a robot by themselves (DISABLED has its own page)."""

BACKEND = "sync"
"""The counting runs use gymnasium's own ``SyncVectorEnv``, as the page's script does."""

_MAX_ENVS = min(64, CAPS.max_envs)

# The lesson's size (2 envs x 200 calls) leaves the answer a coin toss: NEXT_STEP finishes fewer
# for about 74% of seeds. At 8 x 500 it does for 99.5% (tests/test_counting_episodes.py).
SPECS = (
    IntSetting("n", "NUM_ENVS", 8, 1, _MAX_ENVS),
    IntSetting("steps", "step() calls", 500, 1, CAPS.max_steps_per_run),
    IntSetting("seed", "Seed", 0, 0, MAX_SEED),
)


@dataclass(frozen=True)
class CountingSettings:
    """What the page runs: ``steps`` calls of ``num_envs`` robots in each mode."""

    num_envs: int
    steps: int
    seed: int

    @property
    def env_steps(self) -> int:
        """The rows both runs return together (a run per mode)."""
        return len(MODES) * self.num_envs * self.steps


def resolve_settings(values: Mapping[str, Any]) -> tuple[CountingSettings, list[str]]:
    """Turn the page's values into runnable settings, with a note for each change made.

    Example:
        >>> resolve_settings({"n": "3", "steps": "90", "seed": "7"})
        (CountingSettings(num_envs=3, steps=90, seed=7), [])
    """
    picked, notes = parse_values(SPECS, values)
    num_envs, steps = picked["n"], picked["steps"]
    # Only matters when BURGERBOT_MAX_STEPS_PER_RUN is raised: rollout refuses bigger runs.
    if num_envs * steps > MAX_ROLLOUT_ROWS:
        steps = MAX_ROLLOUT_ROWS // num_envs
        notes.append(
            f"The run would record {num_envs * picked['steps']:,} steps; this page records at "
            f"most {MAX_ROLLOUT_ROWS:,}: using {steps:,} step() calls."
        )
    return CountingSettings(num_envs, steps, picked["seed"]), notes


def widget_values(settings: CountingSettings) -> dict[str, int]:
    """The settings by URL key, so that each widget shows the value really used."""
    return {"n": settings.num_envs, "steps": settings.steps, "seed": settings.seed}


# --- The run ------------------------------------------------------------------------------------


def finished_per_env(frame: pd.DataFrame, num_envs: int) -> pd.DataFrame:
    """Finished episodes per env in a ``rollout`` frame, split by cause.

    Columns: ``env``, ``finished episodes`` (terminated or truncated), ``goals``,
    ``hits``, ``truncations`` (truncated without terminating).
    """
    ended = frame["terminated"] | frame["truncated"]
    parts = {
        "finished episodes": ended,
        "goals": ended & (frame["event"] == "goal"),
        "hits": ended & (frame["event"] == "hit"),
        "truncations": ended & (frame["event"] == "truncated"),
    }
    table = pd.DataFrame({"env": frame["env"], **parts}).groupby("env").sum()
    table = table.reindex(range(num_envs), fill_value=0).astype(np.int64)
    return table.reset_index()


def count_finished_by_mode(
    backend: str,
    num_envs: int,
    steps: int,
    seed: int,
    progress: Progress | None = None,
    modes: Sequence[str] = MODES,
) -> pd.DataFrame:
    """The lesson's counting experiment in each of ``modes``: finished episodes per env after
    ``steps`` calls.

    Long form, one row per (mode, env): ``mode``, ``env``, ``finished episodes``,
    ``goals``, ``hits``, ``truncations``. Every mode sees the same random actions.
    """
    parts = []
    for index, mode in enumerate(modes):

        def report(fraction: float, message: str, index: int = index, mode: str = mode) -> None:
            if progress is not None:
                progress((index + fraction) / len(modes), f"{mode}: {message}")

        frame = rollout(
            backend, num_envs, steps, seed, checks.autoreset_mode(mode), progress=report
        )
        counts = finished_per_env(frame, num_envs)
        counts.insert(0, "mode", mode)
        parts.append(counts)
    return pd.concat(parts, ignore_index=True)


def counts_table(counts: pd.DataFrame) -> pd.DataFrame:
    """The chart's numbers as a table: one row per env, one column of finished episodes per mode.

    Example:
        >>> counts = pd.DataFrame({"mode": ["NEXT_STEP", "SAME_STEP"], "env": [0, 0],
        ...     "finished episodes": [3, 4], "goals": [0, 0], "hits": [3, 4],
        ...     "truncations": [0, 0]})
        >>> counts_table(counts).values.tolist()
        [[0, 3, 4]]
    """
    modes = list(dict.fromkeys(counts["mode"]))
    table = counts.pivot(index="env", columns="mode", values="finished episodes")[modes]
    table.columns.name = None
    return table.reset_index()


def totals(counts: pd.DataFrame) -> pd.DataFrame:
    """The counts added up over the envs: one row per mode."""
    return counts.groupby("mode", sort=False)[
        ["finished episodes", "goals", "hits", "truncations"]
    ].sum()


# --- The prediction and what the run shows --------------------------------------------------------

FEWER, SAME, MORE = OPTIONS = (
    "NEXT_STEP finishes fewer",
    "both finish as many",
    "NEXT_STEP finishes more",
)
"""How NEXT_STEP's total compares with SAME_STEP's, as the prediction's options."""


def question(settings: CountingSettings) -> str:
    """The prediction, for the page's settings."""
    return (
        f"The same random actions drive {counted(settings.num_envs, 'BurgerBot')} for "
        f"{settings.steps:,} `step()` calls, once in NEXT_STEP mode and once in SAME_STEP mode. "
        "Added up over the robots, how many episodes does NEXT_STEP finish?"
    )


def _totals(counts: pd.DataFrame) -> tuple[int, int]:
    finished = totals(counts)["finished episodes"]
    return int(finished["NEXT_STEP"]), int(finished["SAME_STEP"])


def prediction_truth(counts: pd.DataFrame) -> str | None:
    """The option of `OPTIONS` that the counting run bears out; None for a tie.

    A tie cannot decide the question: NEXT_STEP spends a call on every reset, so its
    expected count is lower, and equal totals (0 and 0 after one call, say) say nothing of it.
    """
    nxt, same = _totals(counts)
    return FEWER if nxt < same else MORE if nxt > same else None


def counting_sentence(counts: pd.DataFrame) -> str:
    """What the counting run shows: both totals, in how many envs NEXT_STEP finished fewer,
    and why (every way the totals can compare, ties and zeros included).

    ``counts`` is ``count_finished_by_mode``'s long frame (one row per mode and env).

    Example:
        >>> counts = pd.DataFrame({
        ...     "mode": ["NEXT_STEP"] * 2 + ["SAME_STEP"] * 2,
        ...     "env": [0, 1] * 2, "finished episodes": [20, 25, 19, 18],
        ...     "goals": [0] * 4, "hits": [20, 25, 19, 18], "truncations": [0] * 4})
        >>> counting_sentence(counts)[:52]
        'NEXT_STEP finished **45** episodes, SAME_STEP **37**'
    """
    nxt, same = _totals(counts)
    per_env = counts.pivot(index="env", columns="mode", values="finished episodes")
    fewer_envs = int((per_env["NEXT_STEP"] < per_env["SAME_STEP"]).sum())
    text = (
        f"NEXT_STEP finished **{nxt:,}** episodes, SAME_STEP **{same:,}** (fewer in "
        f"{fewer_envs} of {counted(len(per_env), 'env')}). "
    )
    if nxt < same:
        return text + "NEXT_STEP spends a call on every reset, so it has fewer calls to step in."
    if nxt == same == 0:
        return text + "No episode ended yet: more calls are needed to tell the modes apart."
    if nxt == same:
        # Not "made up for its reset calls": in a short run it may have spent none, or spent
        # them where SAME_STEP could not end one more episode anyway.
        return (
            text + "A tie: this run cannot tell the modes apart. With more calls it finishes fewer."
        )
    return text + (
        "NEXT_STEP spends a call on every reset, yet here it finished more by luck: after a "
        "reset the same actions fall on other moments of the episodes. With more calls it "
        "finishes fewer."
    )


def fewer_from() -> int:
    """The fewest calls in which NEXT_STEP's expected count is below SAME_STEP's: two of the
    shortest episodes. Until then a reset call never costs an episode (4 calls).

    Example:
        >>> fewer_from()
        4
    """
    return 2 * int(np.flatnonzero(episode_odds("SAME_STEP").ends_at)[0])


def takeaway_bullets(counts: pd.DataFrame | None) -> list[str]:
    """The page's key takeaways; the one about the run follows its numbers (None: no run)."""
    bullets = [
        "Add up `terminated | truncated` per env to count finished episodes: an episode's end "
        "is flagged once, on the call that ends it, in both modes."
    ]
    if counts is None:
        return bullets
    nxt, same = _totals(counts)
    here = f"here {nxt:,} against SAME_STEP's {same:,}"
    bullets.append(
        "NEXT_STEP spends a call on every reset, so in as many calls it finishes fewer "
        + (
            f"episodes ({here})."
            if nxt < same
            else f"on average, from {fewer_from()} calls on (not always: {here})."
        )
    )
    return bullets


# --- The chart ------------------------------------------------------------------------------

_BLACK = OKABE_ITO[7]

COUNTING_HEIGHT = 130
"""The counting chart's plot height in pixels (its legend and axes come on top)."""

MODE_SHAPES = dict(zip(MODES, SHAPES, strict=False))
"""The chart marks each mode's bar top with its own shape, as well as its colour."""

MODE_DASHES = dict(zip(MODES, ([1, 0], [4, 2]), strict=True))
"""Each mode's bar outline: solid for NEXT_STEP, dashed for SAME_STEP."""


def finished_episodes_chart(counts: pd.DataFrame) -> alt.LayerChart:
    """Bars: finished episodes per env, one bar per auto-reset mode side by side.

    Each mode has its Okabe-Ito colour, a marker of its own shape on its bars' tops and an
    outline of its own dash, so the modes stay apart without colour. ``counts`` is long
    form as made by ``count_finished_by_mode``: columns mode, env, finished episodes, goals,
    hits, truncations.
    """
    modes = [m for m in MODES if m in set(counts["mode"])]
    legend = alt.Legend(orient="top", title="auto-reset mode")
    base = alt.Chart(counts).encode(
        x=alt.X("env:O", title="sub-environment (env index)", axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("mode:N", sort=modes),
        y=alt.Y("finished episodes:Q", title="finished episodes"),
        color=alt.Color("mode:N", sort=modes, scale=colour_scale(modes), legend=legend),
        tooltip=["mode:N", "env:O", "finished episodes:Q", "goals:Q", "hits:Q", "truncations:Q"],
    )
    tops = base.mark_point(filled=True, size=70, stroke=_BLACK, strokeWidth=0.8).encode(
        shape=alt.Shape(
            "mode:N",
            sort=modes,
            scale=alt.Scale(domain=modes, range=[MODE_SHAPES[m] for m in modes]),
            legend=legend,
        )
    )
    bars = base.mark_bar(stroke=_BLACK, strokeWidth=1).encode(
        # No legend of its own: the legend's shapes name the modes, the outline is one cue more.
        strokeDash=alt.StrokeDash(
            "mode:N",
            sort=modes,
            scale=alt.Scale(domain=modes, range=[MODE_DASHES[m] for m in modes]),
            legend=None,
        )
    )
    # `alt.layer` makes a FacetChart only of layers sharing a row, column or facet encoding.
    return cast(alt.LayerChart, alt.layer(bars, tops)).properties(
        description=(
            "Finished episodes (y) of each sub-environment (x), one bar per auto-reset mode "
            "side by side: NEXT_STEP bars have a solid outline and a circle on top, SAME_STEP "
            "bars a dashed outline and a square on top."
        ),
        width="container",
        height=COUNTING_HEIGHT,
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
    )
