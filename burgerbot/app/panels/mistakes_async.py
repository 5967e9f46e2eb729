"""Drawing blocks of the mistakes page's AsyncVectorEnv mistakes (5 and 6), run as files."""

from __future__ import annotations

import multiprocessing
import platform
import sys

import streamlit as st

from burgerbot.app.glossary import term_link
from burgerbot.app.panels.mistakes import script_tabs
from burgerbot.app.views.mistakes import Demo
from burgerbot.app.views.mistakes_workers import ASYNC_NUM_ENVS, leak_sentences, workers_frame

__all__ = ["async_mistake", "main_guard_mistake"]


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
        f"With the {term_link('spawn')} start method, each worker is a fresh Python that "
        "imports your main script again before it builds its env. Without "
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
