"""Drawing blocks of the "Shapes, dtypes and common mistakes" page: the spaces, mistakes 1-4."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import partial

import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS
from burgerbot.app.script_runner import CapturedError, ScriptRun
from burgerbot.app.views.mistakes import Demo, changed_lines, line_ranges, shape_mentioned
from burgerbot.app.views.mistakes_sentences import spaces_bullets, vector_env_label
from burgerbot.app.views.mistakes_spaces import SpaceRow, returns_frame, spaces_frame

__all__ = [
    "actions_mistake",
    "factory_mistake",
    "final_obs_mistake",
    "scalar_mistake",
    "script_tabs",
    "show_run",
    "spaces_section",
]


def show_run(
    run: ScriptRun, title: str = "", compare_with: ScriptRun | None = None, *, name: str
) -> None:
    """A whole script as it ran: the code (with downloads), what it printed, its error.

    With ``compare_with`` (the script with the mistake), say which lines differ from it.
    ``name`` names the download files.
    """
    if title:
        st.markdown(title)
    if compare_with is not None:
        lines = changed_lines(compare_with.code, run.code)
        if lines:
            label = "Line" if len(lines) == 1 else "Lines"
            st.caption(f"{label} {line_ranges(lines)}: what changed from ❌.")
    learning.script_block(run.code, name=name, line_numbers=True)
    if run.output:
        st.caption("It printed:")
        st.code(run.output, language="text", wrap_lines=True)
    if run.error is not None:
        st.error(
            f"It raised **{run.error.type}** at `{run.error.where}`:\n\n`` {run.error.headline} ``",
            icon="🚫",
        )
        if len(run.error.path) > 1:
            st.caption("Call path: " + " → ".join(f"`{frame}`" for frame in run.error.path))
    else:
        st.success("It ran without an error.", icon="✅")


def script_tabs(scripts: Sequence[tuple[str, ScriptRun, ScriptRun | None, str]]) -> None:
    """Scripts side by side as tabs, each full width: (tab label, run, compared with, name).

    Only the open tab is drawn (`ui.lazy_tabs`); the set of tabs is named after its first
    script.
    """
    ui.lazy_tabs(
        "mistakes_" + re.sub(r"\W+", "_", scripts[0][3]),
        [
            (label, partial(show_run, run, "", compare_with, name=name))
            for label, run, compare_with, name in scripts
        ],
    )


def spaces_section(rows: Sequence[SpaceRow], num_envs: int) -> None:
    """What reset/step returned and the spaces behind them (tabs), then the rows in words."""
    *bullets, agreement = spaces_bullets(rows, num_envs)

    def spaces() -> None:
        st.caption(
            "One copy's space, what `gymnasium.vector.utils.batch_space(single, N)` predicts "
            "for the batch, and whether the vector env's own `observation_space` / "
            f"`action_space` are the same. {agreement}"
        )
        st.dataframe(spaces_frame(rows), hide_index=True, width="stretch")

    def reprs() -> None:
        for row in rows:
            st.caption(f"{row.env} ({vector_env_label(row.vector_env)})")
            st.code(row.batched_observation_repr, language="text")

    ui.lazy_tabs(
        "mistakes_spaces",
        [
            (
                "What `reset` and `step` returned",
                lambda: st.dataframe(returns_frame(rows), hide_index=True, width="stretch"),
            ),
            ("The spaces behind them", spaces),
            ("Full reprs", reprs),
        ],
    )
    st.markdown("\n".join(f"- {bullet}" for bullet in bullets))


def factory_mistake(demo: Demo) -> None:
    """Mistake 1, one of the lesson's common issues."""
    runs = demo.runs
    st.write(
        f"A {term_link('factory')} such as `make_env(seed)` takes arguments and returns a "
        "function with no arguments (a *thunk*) that builds the env. The "
        f"{term_link('vector-env')} calls each item of its list with no arguments, so the list "
        "must hold what `make_env(seed)` returns, not `make_env` itself."
    )
    error = runs["defaults"].error
    st.caption(
        "The third tab: this project's `burgerbot.factories.make_env` has a default for every "
        "argument, so calling it with no arguments works and the vector env receives a "
        "*function* where it expected an env"
        + (f": {error.type} at `{error.where}`." if error else ".")
    )
    script_tabs(
        [
            ("❌ `make_env` itself in the list", runs["wrong"], None, "factory mistake"),
            ("✅ `make_env(seed)` in the list", runs["fixed"], runs["wrong"], "factory fixed"),
            ("❌ a factory with defaults", runs["defaults"], None, "factory defaults mistake"),
        ]
    )


def scalar_mistake(demo: Demo) -> None:
    """Mistake 2, the lesson's other common issue."""
    runs = demo.runs
    wrong, fixed = (runs[key].values.get("obs.shape") for key in ("wrong", "fixed"))
    st.write(
        "If each env returns one plain number, stacking N of them gives shape `(N,)`, not "
        "`(N, k)`, and code written for `(N, k)` (such as `obs[:, 0]`) fails. Either make the "
        "env return an array of shape `(k,)`, or write the code for `(N,)` batches. "
        f"Here the batch came back as **`{wrong}`** with the mistake and **`{fixed}`** fixed."
    )
    script_tabs(
        [
            ("❌ `observation()` returns an `int`", runs["wrong"], None, "scalar obs mistake"),
            (
                "✅ it returns an array of shape `(2,)`",
                runs["fixed"],
                runs["wrong"],
                "scalar fixed",
            ),
        ]
    )


def _outcomes(outcomes: Mapping[str, CapturedError | None]) -> None:
    for name, outcome in outcomes.items():
        if outcome is None:
            st.warning(f"{name}: no error. The wrong actions were accepted silently.", icon="⚠️")
        else:
            st.error(
                f"{name}: **{outcome.type}** at `{outcome.where}`:\n\n`` {outcome.headline} ``",
                icon="🚫",
            )


def actions_mistake(demo: Demo, num_envs: int) -> None:
    """Mistake 3: actions of shape (N, 1), then the same actions given to other vector envs."""
    runs = demo.runs
    st.write(
        f"`step` wants one action per {term_link('sub-environment')}: shape `({num_envs},)`. "
        f"A policy network can easily give `({num_envs}, 1)` instead (one column). "
        "`SyncVectorEnv` does not check the shape: it hands row *i* (an array holding one "
        "number) to env *i*, and what happens next depends on that env (third tab)."
    )

    def elsewhere() -> None:
        outcomes = runs["elsewhere"].values.get("outcomes", {})
        _outcomes(outcomes)
        sync_errors = [runs["wrong"].error] + [
            error for name, error in outcomes.items() if name.startswith("SyncVectorEnv")
        ]
        native = [error for name, error in outcomes.items() if "BurgerBotVectorEnv" in name]
        st.caption(
            "The Sync errors come from inside one sub-environment and "
            + ("mention a shape" if shape_mentioned(sync_errors) else "never mention a shape")
            + "; the native `BurgerBotVectorEnv` (this project's, not Gymnasium's) "
            + (
                "checks the whole batch and names the shape it expected."
                if shape_mentioned(native)
                else "does not name the shape either."
            )
            + " `envs.action_space.contains(actions)` tells before stepping."
        )
        show_run(runs["elsewhere"], "The script that gave these:", name="actions elsewhere")

    ui.lazy_tabs(
        "mistakes_actions",
        [
            (
                "❌ actions of shape `(N, 1)`",
                lambda: show_run(runs["wrong"], name="action shape mistake"),
            ),
            (
                "✅ `actions.reshape(N)` first",
                lambda: show_run(runs["fixed"], "", runs["wrong"], name="action shape fixed"),
            ),
            ("Other vector envs", elsewhere),
        ],
    )


def final_obs_mistake(demo: Demo, gymnasium_version: str) -> None:
    """Mistake 4: the lesson's ``infos["final_observation"]``, changed in gymnasium 1.0."""
    runs = demo.runs
    keys = runs["wrong_same_step"].output.partition("infos keys: ")[2].strip()
    wrong_runs = (runs["wrong_same_step"], runs["wrong_next_step"])
    gone = all(run.error is not None and run.error.type == "KeyError" for run in wrong_runs)
    st.markdown(
        f"{VERDICTS['changed'].badge()} Gymnasium 0.29 (the lesson's) put the "
        f"{term_link('final-observation')} of an ending episode in "
        f'`infos["final_observation"]`. The installed gymnasium {gymnasium_version} '
        + (
            f"writes no such key in either mode below (`SAME_STEP` gives `{keys or 'no keys'}`). "
            if gone
            else "still wrote it in one of the modes below. "
        )
        + "In `SAME_STEP` mode the last observation is in `final_obs` (masked by "
        "`_final_obs`); in the default `NEXT_STEP` mode the ending step returns it in `obs` "
        f"itself, and the *next* step does the {term_link('autoreset', 'auto-reset')}."
    )
    script_tabs(
        [
            ("❌ `SAME_STEP`, the old key", runs["wrong_same_step"], None, "final obs same step"),
            ("❌ `NEXT_STEP`, the old key", runs["wrong_next_step"], None, "final obs next step"),
            (
                "✅ `SAME_STEP`: `final_obs`",
                runs["fixed_same_step"],
                runs["wrong_same_step"],
                "final obs same step fixed",
            ),
            (
                "✅ `NEXT_STEP`: read `obs`",
                runs["fixed_next_step"],
                runs["wrong_next_step"],
                "final obs next step fixed",
            ),
        ]
    )
