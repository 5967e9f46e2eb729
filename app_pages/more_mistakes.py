"""More mistakes with vector envs: five more slips, each a whole script run live with its fix;
and the batches of five vector envs as a reference."""

from __future__ import annotations

import multiprocessing
import platform
import sys
from collections.abc import Mapping, Sequence
from functools import partial

import gymnasium
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS, counted
from burgerbot.app.logic.more_mistakes import (
    ACTION_OPTIONS,
    ASYNC_NUM_ENVS,
    MISTAKES,
    SPECS,
    SYNC_MISTAKES,
    Demo,
    SpaceRow,
    actions_explanation,
    actions_outcome,
    changed_lines,
    leak_sentences,
    line_ranges,
    returns_lines,
    shape_mentioned,
    spaces_bullets,
    spaces_lines,
    spaces_table,
    takeaways,
    unclosed_async_mistake,
    vector_env_label,
    workers_frame,
)
from burgerbot.app.logic.more_mistakes import main_guard_mistake as run_main_guard_mistake
from burgerbot.app.script_runner import CapturedError, ScriptRun
from burgerbot.app.scripts.more_mistakes import dtype_exercise, spaces_script
from burgerbot.app.settings import clamp_num_envs
from burgerbot.app.slots import WORKER_BUDGET, BudgetExceeded, WorkerBudget

PAGE = "more_mistakes"
PREDICTION = "more_mistakes_actions"
PACKAGES = ("gymnasium", "numpy")


# Each result is computed once per server and settings, shared by visitors.
@st.cache_data(max_entries=8, show_spinner=False)
def spaces_rows(num_envs: int, _by: str):
    return measured.measure(lambda: spaces_table(num_envs), PACKAGES, _by)


@st.cache_data(max_entries=16, show_spinner=False)
def sync_demo(key: str, num_envs: int, _by: str):
    return measured.measure(lambda: SYNC_MISTAKES[key](num_envs), PACKAGES, _by)


# The Async demos are the same for every N (always 2 workers) and run only when their mistake
# is chosen: once per server until "Run again" clears it.
@st.cache_data(max_entries=1, show_spinner=False)
def async_demo(_budget: WorkerBudget, _by: str):
    return measured.measure(lambda: unclosed_async_mistake(_budget), PACKAGES, _by)


@st.cache_data(max_entries=1, show_spinner=False)
def main_guard_demo(_budget: WorkerBudget, _by: str):
    return measured.measure(lambda: run_main_guard_mistake(_budget), PACKAGES, _by)


# --- Drawing the reference and the mistakes run inside this process ----------------------------


def spaces_section(rows: Sequence[SpaceRow], num_envs: int) -> None:
    """What reset/step returned and the spaces behind them (tabs), then the rows in words.

    One line per env, not a wide table: on a phone a table hid its last columns."""
    *bullets, agreement = spaces_bullets(rows, num_envs)

    def lines(texts: Sequence[str]) -> None:
        st.markdown("\n".join(f"- {text}" for text in texts))

    def spaces() -> None:
        st.caption(
            "One copy's space → what `gymnasium.vector.utils.batch_space(single, N)` predicts "
            "for the batch; ✅ when the vector env's own `observation_space` / `action_space` "
            f"are the same. {agreement}"
        )
        lines(spaces_lines(rows))

    def reprs() -> None:
        for row in rows:
            st.caption(f"{row.env} ({vector_env_label(row.vector_env)})")
            st.code(row.batched_observation_repr, language="text", wrap_lines=True)

    ui.tabs(
        [
            ("What `reset` and `step` returned", lambda: lines(returns_lines(rows))),
            ("The spaces behind them", spaces),
            ("Full reprs", reprs),
        ],
    )
    lines(bullets)


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
    """Scripts side by side as tabs, each full width: (tab label, run, compared with, name)."""
    ui.tabs(
        [
            (label, partial(show_run, run, "", compare_with, name=name))
            for label, run, compare_with, name in scripts
        ],
    )


def defaults_mistake(demo: Demo) -> None:
    """``burgerbot_factory`` itself in the list: a factory whose arguments all have defaults."""
    error = demo.runs["wrong"].error
    st.write(
        "This project's `burgerbot.factories.burgerbot_factory` has a default for every "
        "argument. Put in the list uncalled, it is called with no arguments and works, so the "
        "vector env receives a *function* where it expected an env"
        + (f", and fails later: {error.type} at `{error.where}`." if error else ".")
        + " Call it: `burgerbot_factory()`."
    )
    show_run(demo.runs["wrong"], name="factory defaults mistake")


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
    """Actions of shape (N, 1), then the same actions given to other vector envs."""
    runs = demo.runs
    st.write(
        "What happens after `SyncVectorEnv` hands row *i* to env *i* depends on that env: the "
        "third tab gives the same actions to other vector envs."
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

    ui.tabs(
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
    """The lesson's ``infos["final_observation"]``, changed in gymnasium 1.0."""
    runs = demo.runs
    keys = runs["wrong_same_step"].output.partition("infos keys: ")[2].strip()
    wrong_runs = (runs["wrong_same_step"], runs["wrong_next_step"])
    gone = all(run.error is not None and run.error.type == "KeyError" for run in wrong_runs)
    st.markdown(
        f"{VERDICTS['changed'].badge()} **The lesson** (gymnasium 0.29) put the "
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


# --- Drawing the Async mistakes; the page's top and its settings ----------------------------------
# Drawing blocks of the More mistakes page's AsyncVectorEnv mistakes, run as files.


def async_mistake(demo: Demo) -> None:
    """An Async env left open: the scripts as files, the worker counts both ways, ``with``."""
    runs, facts = demo.runs, demo.facts
    st.write(
        f"An {term_link('async')} runs each sub-environment in its own worker process (here "
        f"{ASYNC_NUM_ENVS}) until `envs.close()`. What happens to them after an error before "
        "`close()` depends on where the code runs: each script ran as a file (`python "
        "script.py`, what each tab shows), and the first three again inside a process that "
        f"goes on after the error, as a notebook's {term_link('kernel', 'kernel')} (the Python "
        "process behind a notebook, which holds its variables between cells) does; here, this "
        "server's process."
    )
    script_tabs(
        [
            ("❌ `close()` only at the end", runs["wrong"], None, "async left open"),
            ("✅ `try` / `finally`", runs["fixed_finally"], runs["wrong"], "async try finally"),
            ("✅ `with closing(...)`", runs["fixed_closing"], runs["wrong"], "async closing"),
            ("❌ `with AsyncVectorEnv(...)`", runs["with"], None, "async with statement"),
        ]
    )
    st.caption(
        "The `final_observation` KeyError stays in the ✅ scripts on purpose: the fix is not about "
        "avoiding every error, it is that an error no longer leaves workers running. "
        + (
            "The last tab: the installed `AsyncVectorEnv` has no `__enter__`, so it cannot "
            "open a `with` block by itself; `contextlib.closing(...)` gives it one."
            if not facts["async_has_enter"]
            else "The installed `AsyncVectorEnv` defines `__enter__`: a plain `with` works too."
        )
    )
    st.table(workers_frame(runs).set_index("script"))
    st.markdown("\n".join(f"- {sentence}" for sentence in leak_sentences(runs, facts)))


def main_guard_mistake(demo: Demo) -> None:
    """``spawn`` workers and a script without ``if __name__ == "__main__":``."""
    default = multiprocessing.get_all_start_methods()[0]
    here = f"{platform.system()}, Python {sys.version_info.major}.{sys.version_info.minor}"
    st.write(
        f"With the {term_link('spawn', '`spawn`')} start method, each worker is a fresh Python "
        "that imports your main script again before it builds its env. Without "
        '`if __name__ == "__main__":`, that import runs the whole script again, so each '
        "worker tries to start workers of its own. `spawn` is the default on macOS and "
        f"Windows; on this server ({here}) the default is `{default}`, so these scripts ask for "
        '`context="spawn"` to show what a Mac or Windows user meets.'
    )
    script_tabs(
        [
            ("❌ no main guard", demo.runs["wrong"], None, "spawn without main guard"),
            ("✅ the work under the guard", demo.runs["fixed"], demo.runs["wrong"], "main guard"),
        ]
    )
    worker_errors = demo.runs["wrong"].values.get("worker_errors", [])
    parent = demo.runs["wrong"].error
    if worker_errors:
        first = worker_errors[0]
        sentence = first.message.split(". ")[0].rstrip(".") + "."
        several = len(worker_errors) > 1
        workers = f"The {len(worker_errors)} worker processes" if several else "The worker process"
        st.markdown(
            f"{workers} printed **{first.type}**: {sentence} "
            + (
                f"The script itself, waiting for its worker{'s' * several}, then stopped with "
                f"**{parent.type}**: the last error on the screen is not where the mistake is."
                if parent is not None
                else ""
            )
        )


ASYNC_DEMOS = {
    "async": (async_demo, async_mistake, "rerun_async"),
    "main_guard": (main_guard_demo, main_guard_mistake, "rerun_guard"),
}

visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="More mistakes with vector envs",
    intro=(
        "This page assumes the lesson's pages up to Sync vs Async (auto-reset modes, "
        "`AsyncVectorEnv` and its worker processes). You will learn five more slips and their "
        "fixes, each a whole script run here with the error it really raised: actions of "
        'shape `(N, 1)`, the lesson\'s `infos["final_observation"]`, an `AsyncVectorEnv` left '
        "open after an error, `spawn` workers without a main guard, and `burgerbot_factory` "
        "put in the list uncalled."
    ),
    topics=[
        "Actions of shape (N, 1)",
        "The lesson's `final_observation`",
        "Closing Async; spawn and the main guard",
        "Reference: the shapes and dtypes of five vector envs",
    ],
    links=["Gymnasium spaces and batching", "Gymnasium vector API", "Auto-reset modes"],
)
n_spec, _ = SPECS
st.slider(
    n_spec.label,
    n_spec.low,
    n_spec.high,
    key=frame.key[n_spec.key],
    help="How many copies of each environment the vector envs hold.",
)
num_envs, cap_note = clamp_num_envs("sync", int(st.session_state[frame.key[n_spec.key]]))
frame.settings_done([cap_note] if cap_note else [])


def sync_mistake(key: str) -> tuple[Demo, measured.Measured] | None:
    """The runs of mistake ``key`` (run inside this process), or None after saying why not."""
    try:
        return sync_demo(key, num_envs, visit.visitor)
    except Exception as error:  # the page keeps working; the message says what broke
        st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
        return None


def draw_sync(key: str, result: tuple[Demo, measured.Measured]) -> None:
    demo, record = result
    if key == "actions":
        actions_mistake(demo, num_envs)
    elif key == "final_obs":
        final_obs_mistake(demo, gymnasium.__version__)
    else:
        defaults_mistake(demo)
    st.caption(
        record.caption(f"These scripts (N = {num_envs}) ran", visit=visit),
        help=record.detail(),
    )


# --- Predict: actions of shape (N, 1) ------------------------------------------------------------
learning.prediction(
    PREDICTION,
    f"A {term_link('policy-network', 'policy network')} often outputs actions of shape "
    f"`({num_envs}, 1)` (one column) where `step` wants `({num_envs},)`. What does a "
    f"`SyncVectorEnv` of {counted(num_envs, 'BurgerBot')} do with them?",
    ACTION_OPTIONS,
)
shown = learning.revealed(PREDICTION)
actions = None
if shown:
    actions = sync_mistake("actions")
    if actions is not None:
        wrong = actions[0].runs["wrong"]
        learning.check(PREDICTION, actions_outcome(wrong), actions_explanation(wrong))

    # --- The mistakes, one at a time ---------------------------------------------------------
    st.header("Five mistakes, reproduced live")
    st.write(
        "Pick one. ❌ is a whole script with the mistake, ✅ the fixed one; the errors are the "
        "real messages the installed libraries raised."
    )
    chosen = st.segmented_control(
        "Mistake",
        list(MISTAKES),
        format_func=MISTAKES.get,
        key=frame.key["mistake"],
        required=True,
        label_visibility="collapsed",
    )
    st.subheader(MISTAKES[chosen])
    if chosen == "actions" and actions is not None:
        draw_sync(chosen, actions)
    elif chosen in SYNC_MISTAKES:
        if (result := sync_mistake(chosen)) is not None:
            draw_sync(chosen, result)
    else:
        run_demo, draw, button = ASYNC_DEMOS[chosen]
        result = None
        with st.spinner("Running the scripts as files, with their worker processes..."):
            try:
                result = run_demo(WORKER_BUDGET, visit.visitor)
            except BudgetExceeded as error:
                st.warning(str(error))
            except Exception as error:
                st.error(f"Could not run the Async scripts: {type(error).__name__}: {error}")
        if result is not None:
            demo, record = result
            draw(demo)
            st.caption(
                record.caption("These scripts ran", visit=visit)
                + " Every visitor sees this run until someone runs it again.",
                help=record.detail(),
            )
            if st.button("Run these scripts again", key=f"{PAGE}_{button}"):
                run_demo.clear()
                st.rerun()

    # --- Reference: what five vector envs return ----------------------------------------------
    st.header("Reference: the batches of five vector envs")
    if st.toggle(
        "Show the shapes and dtypes they returned, and exercise 3 as a script",
        key=f"{PAGE}_reference",
    ):
        st.write(
            f"A {term_link('vector-env')} with N = {num_envs} copies stacks their observations "
            f"along a new first axis: row *i* belongs to {term_link('sub-environment')} *i*. "
            "Below is what real vector envs returned after `reset` and one `step`: "
            "Gymnasium's `SyncVectorEnv` and its own batched `CartPoleVectorEnv`, and "
            f"`BurgerBotVectorEnv`, this project's {term_link('native', 'native vector env')} "
            "(not part of Gymnasium)."
        )
        try:
            rows, spaces_record = spaces_rows(num_envs, visit.visitor)
        except Exception as error:  # the page keeps working; the message says what broke
            st.error(f"Could not build the spaces table: {type(error).__name__}: {error}")
        else:
            spaces_section(rows, num_envs)
            st.caption(
                spaces_record.caption("These were measured", visit=visit),
                help=spaces_record.detail(),
            )
        learning.exercise(
            "more_mistakes_dtype",
            "which dtype? (the lesson's exercise 3)",
            f"Build a `SyncVectorEnv` of {counted(num_envs, 'BurgerBot')} and one of "
            f"{counted(num_envs, 'CartPole')}, "
            "reset both, and print each batched observation's `shape` and "
            f"{term_link('dtype')}. Is BurgerBot's `int64`? What does CartPole give, whose "
            "observation space is a `float32` `Box`? (The lines above have the answer too; the "
            "script is how you would check it on your own machine.)",
            dtype_exercise(num_envs),
            answer_name="batched dtypes",
        )
        ui.code_expander(
            spaces_script(num_envs),
            label="Code: the lines above as a script you can run",
            name="batched spaces",
        )
frame.takeaways(
    takeaways(actions[0].runs["wrong"] if actions else None) if shown else [], after=PREDICTION
)
