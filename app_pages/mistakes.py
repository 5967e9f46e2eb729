"""Shapes, dtypes and common mistakes: batched spaces and the usual errors, run live."""

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
from burgerbot.app.logic.mistakes import (
    ASYNC_NUM_ENVS,
    FACTORY_OPTIONS,
    MISTAKES,
    MORE_MISTAKES,
    SPECS,
    SYNC_MISTAKES,
    Demo,
    SpaceRow,
    changed_lines,
    factory_explanation,
    factory_outcome,
    leak_sentences,
    line_ranges,
    returns_frame,
    shape_mentioned,
    spaces_bullets,
    spaces_frame,
    spaces_table,
    takeaways,
    unclosed_async_mistake,
    vector_env_label,
    workers_frame,
)
from burgerbot.app.logic.mistakes import main_guard_mistake as run_main_guard_mistake
from burgerbot.app.script_runner import CapturedError, ScriptRun
from burgerbot.app.scripts.mistakes import dtype_exercise, spaces_script
from burgerbot.app.settings import clamp_num_envs
from burgerbot.app.slots import WORKER_BUDGET, BudgetExceeded, WorkerBudget

PAGE = "mistakes"
PREDICTION = "mistakes_factory"
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


# --- Drawing the spaces and mistakes 1-4 ----------------------------------------------------------
# Drawing blocks of the "Shapes, dtypes and common mistakes" page: the spaces, mistakes 1-4.


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

    ui.tabs(
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


def factory_mistake(demo: Demo) -> None:
    """Mistake 1, one of the lesson's common issues."""
    runs = demo.runs
    st.write(
        f"A {term_link('factory', 'factory')} such as `make_env(seed)` takes arguments and "
        "returns a function with no arguments (a *thunk*) that builds the env. The "
        f"{term_link('vector-env')} calls each item of its list with no arguments, so the list "
        "must hold what `make_env(seed)` returns, not `make_env` itself."
    )
    error = runs["defaults"].error
    st.caption(
        "The third tab: this project's `burgerbot.factories.burgerbot_factory` has a default for "
        "every "
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
    """Mistake 4: the lesson's ``infos["final_observation"]``, changed in gymnasium 1.0."""
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


# --- Drawing mistakes 5 and 6; the page's top and its settings ------------------------------------
# Drawing blocks of the mistakes page's AsyncVectorEnv mistakes (5 and 6), run as files.


def async_mistake(demo: Demo) -> None:
    """Mistake 5: the scripts as files, the worker counts both ways, and why ``with`` fails."""
    runs, facts = demo.runs, demo.facts
    st.write(
        f"An {term_link('async')} runs each sub-environment in its own worker process (here "
        f"{ASYNC_NUM_ENVS}) until `envs.close()`. What happens to them after an error before "
        "`close()` depends on where the code runs: each script ran as a file (`python "
        "script.py`, what each tab shows), and the first three again inside a process that "
        "goes on after the error, as a notebook's kernel does (here: this server's process)."
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
        "The KeyError of mistake 4 stays in the ✅ scripts on purpose: the fix is not about "
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
    """Mistake 6: ``spawn`` workers and a script without ``if __name__ == "__main__":``."""
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
    title="Common mistakes with vector envs",
    intro=(
        "You will learn to recognise and fix the lesson's two common issues: giving a vector "
        "env the factory instead of the function it returns, and code written for `(N, k)` "
        "batches meeting a scalar observation. Each is a whole script run on this server, "
        "shown with the exact error it raised, and its fixed version in the next tab."
    ),
    topics=[
        "Common issue 1: the factory instead of the function it returns",
        "Common issue 2: a scalar observation's batch",
        "Actions of shape (N, 1); closing Async; spawn; the lesson's `final_observation`",
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
    """The runs of mistake ``key`` (1-4), or None after saying why they could not run."""
    try:
        return sync_demo(key, num_envs, visit.visitor)
    except Exception as error:  # the page keeps working; the message says what broke
        st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
        return None


# --- Predict: the lesson's first common issue ------------------------------------------------
learning.prediction(
    PREDICTION,
    f"`make_env(seed)` is a {term_link('factory', 'factory')}: it returns a function with no "
    "arguments that builds one env. This line gives the vector env the factory itself: "
    "`SyncVectorEnv([make_env for _ in range(N)])`. What happens when the script runs?",
    FACTORY_OPTIONS,
)
shown = learning.revealed(PREDICTION)
factory = scalar = None
if shown:
    factory = sync_mistake("factory")
    if factory is not None:
        demo, record = factory
        wrong = demo.runs["wrong"]
        learning.check(PREDICTION, factory_outcome(wrong), factory_explanation(wrong))
        st.subheader(f"Mistake {MISTAKES['factory']}")
        factory_mistake(demo)
        st.caption(
            record.caption(f"These scripts (N = {num_envs}) ran", visit=visit),
            help=record.detail(),
        )
    scalar = sync_mistake("scalar")
    if scalar is not None:
        st.subheader(f"Mistake {MISTAKES['scalar']}")
        scalar_mistake(scalar[0])
        st.caption(
            scalar[1].caption(f"These scripts (N = {num_envs}) ran", visit=visit),
            help=scalar[1].detail(),
        )

    # --- More mistakes, one at a time ----------------------------------------------------------
    st.header("More mistakes, reproduced live")
    st.write(
        "Pick one. ❌ is a whole script with the mistake, ✅ the fixed one; the errors are the "
        "real messages the installed libraries raised."
    )
    chosen = st.segmented_control(
        "Mistake",
        list(MORE_MISTAKES),
        format_func=MISTAKES.get,
        key=frame.key["mistake"],
        required=True,
        label_visibility="collapsed",
    )
    st.subheader(f"Mistake {MISTAKES[chosen]}")
    if chosen in SYNC_MISTAKES:
        result = sync_mistake(chosen)
        if result is not None:
            demo, record = result
            if chosen == "actions":
                actions_mistake(demo, num_envs)
            else:
                final_obs_mistake(demo, gymnasium.__version__)
            st.caption(
                record.caption(f"These scripts (N = {num_envs}) ran", visit=visit),
                help=record.detail(),
            )
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
            "The tables show what real vector envs returned after `reset` and one `step`: "
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
                spaces_record.caption("These tables were made", visit=visit),
                help=spaces_record.detail(),
            )
        learning.exercise(
            "mistakes_dtype",
            "which dtype? (the lesson's exercise 3)",
            f"Build a `SyncVectorEnv` of {counted(num_envs, 'BurgerBot')} and one of "
            f"{counted(num_envs, 'CartPole')}, "
            "reset both, and print each batched observation's `shape` and "
            f"{term_link('dtype')}. Is BurgerBot's `int64`? What does CartPole give, whose "
            "observation space is a `float32` `Box`? (The table above has the answer too; the "
            "script is how you would check it on your own machine.)",
            dtype_exercise(num_envs),
            answer_name="batched dtypes",
        )
        ui.code_expander(
            spaces_script(num_envs),
            label="Code: the tables above as a script you can run",
            name="batched spaces",
        )
lesson_runs = {key: got[0] for key, got in (("factory", factory), ("scalar", scalar)) if got}
frame.takeaways(takeaways(lesson_runs) if shown else [], after=PREDICTION)
