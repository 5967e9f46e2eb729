"""Streamlit helpers for the learner's path: predictions, key takeaways, scripts, charts.

Every page uses them the same way:

- `prediction` asks a question before the live run, `check` compares the locked-in answer with
  what the run gave (the sidebar counts them: `score`); `revealed` keeps the answer off the
  screen until the learner locks in or skips;
- `script_block` shows a whole script with `.py` and `.ipynb` downloads, `fragment_block` a
  part of a script shown beside it, labelled as such;
- `chart_with_table` shows a chart with its data one click away;
- `lazy_expander` draws an expander's content only while it is open;
- `takeaways` ends the page.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

import altair as alt
import pandas as pd
import pyarrow as pa
import streamlit as st

from burgerbot.app.kept_state import keep_state
from burgerbot.app.notebook import script_notebook
from burgerbot.app.predictions import Prediction, tally
from burgerbot.app.scripts import fragment_header, is_fragment

__all__ = [
    "chart_spec",
    "chart_with_table",
    "check",
    "exercise",
    "fragment_block",
    "is_locked",
    "is_revealed",
    "prediction",
    "revealed",
    "score",
    "script_block",
    "takeaways",
    "was_skipped",
]

_PREDICTIONS = "_predictions"
_OPTIONS = "_prediction_options"


def _predictions() -> dict[str, Prediction]:
    return st.session_state.setdefault(_PREDICTIONS, {})


def _skipped(pid: str) -> bool:
    """Whether the answer to ``pid`` is shown by "Skip, show me" now."""
    return bool(st.session_state.get(f"{pid}_skipped"))


def was_skipped(pid: str) -> bool:
    """Whether "Skip, show me" ever showed the answer to ``pid`` (hidden again or not)."""
    return bool(st.session_state.get(f"{pid}_seen")) or _skipped(pid)


def _lock(pid: str, choice_key: str) -> None:
    choice = st.session_state.get(choice_key)
    # Once "Skip, show me" has shown the answer, locking one in would score a copied answer.
    if choice is not None and not was_skipped(pid):
        _predictions()[pid] = Prediction(str(choice))


def _skip(pid: str, covers: Sequence[str]) -> None:
    """Show the answer to ``pid`` (and to the questions it ``covers``), or hide it again."""
    show = not _skipped(pid)
    for each in (pid, *covers):
        if each not in _predictions():  # a locked-in answer stays as it is
            st.session_state[f"{each}_skipped"] = show
            st.session_state[f"{each}_seen"] = True


def prediction(
    pid: str, question: str, options: Sequence[str], *, help: str | None = None
) -> str | None:
    """Ask ``question`` before the reveal; returns the locked-in answer, or None.

    ``pid`` names the question across the session (use ``"<page>_<question>"``).
    """
    locked = _predictions().get(pid)
    if locked is not None and locked.choice not in options:
        # The options changed under the same question (new settings): ask again.
        del _predictions()[pid]
        st.session_state.pop(f"{pid}_choice", None)
        locked = None
    st.session_state.setdefault(_OPTIONS, {})[pid] = tuple(options)
    skipped = locked is None and was_skipped(pid)
    with st.container(border=True, key=f"prediction_{pid}"):
        st.markdown(f"**🔮 Predict first.** {question}")
        if help:
            st.caption(help)
        choice_key = f"{pid}_choice"
        if choice_key not in st.session_state and locked is not None:
            st.session_state[choice_key] = locked.choice
        if skipped:  # no greyed-out radio (its faded label fails AA contrast): a plain note
            st.caption("Skipped: this question is not scored.")
            return None
        st.radio("Your prediction", list(options), index=None, key=choice_key, horizontal=True)
        # The button on a row of its own: beside the radio, in a narrow column, its label was cut.
        # One type before and after: a primary button turning secondary is a new element in
        # the browser, and the keyboard's focus fell to the page; only the label changes.
        st.button(
            "Lock in" if locked is None else "Change it",
            key=f"{pid}_lock",
            on_click=_lock,
            args=(pid, choice_key),
            disabled=st.session_state.get(choice_key) is None,
            type="primary",
        )
        if locked is not None:
            st.caption(f"Locked in: **{locked.choice}**. The check is with the live run.")
    return None if locked is None else locked.choice


def check(pid: str, truth: str | None, explanation: str, run: str = "the live run") -> bool | None:
    """Compare the locked-in answer to ``pid`` with ``truth`` from the live run, and explain.

    ``truth`` is one of the question's options, or None when the run could not decide between
    them (timings too close to call, say): then nothing is scored and ``explanation`` says why.
    Returns whether the prediction was right, or None when none was made or scored (then it
    only invites one). The result counts in the sidebar's score. ``run`` names where ``truth``
    came from when it is not a live run ("the recorded run").
    """
    options = st.session_state.get(_OPTIONS, {}).get(pid)
    if truth is not None and options is not None and truth not in options:
        raise ValueError(f"`truth` must be one of the options {options}, got {truth!r}")
    predictions = _predictions()
    locked = predictions.get(pid)
    Run = f"{run[0].upper()}{run[1:]}"
    if truth is None and (locked is not None or _skipped(pid)):
        if locked is not None:
            predictions[pid] = Prediction(locked.choice)
        st.info(f"**{Run} could not decide this question, so it is not scored.** {explanation}")
        return None
    if locked is None and _skipped(pid):
        st.info(f"**{Run} gave: {truth}.** {explanation}", icon="🔎")
        return None
    if locked is None:
        st.caption(f"🔮 Lock in a prediction above and it is checked here against {run}.")
        return None
    predictions[pid] = Prediction(locked.choice, truth)
    if locked.choice == truth:
        st.success(f"**Your prediction was right:** {truth}. {explanation}", icon="🎯")
        return True
    st.warning(f"**You predicted {locked.choice}; {run} gave {truth}.** {explanation}", icon="🔎")
    return False


def is_revealed(pid: str) -> bool:
    """Whether the learner has locked in an answer to ``pid`` or skipped it (draws nothing)."""
    return pid in _predictions() or bool(st.session_state.get(f"{pid}_skipped"))


def revealed(pid: str, covers: Sequence[str] = ()) -> bool:
    """Whether the page may show what answers ``pid``: locked in, or the learner skipped it.

    Until an answer is locked in it offers a button to skip the prediction (not every learner
    wants to guess), which then offers to hide the answer again: one button whose label
    changes, so the keyboard's focus stays on it. Returns False while the answer is hidden:
    the page keeps its results, verdicts and takeaways off the screen. One skip can stand for
    several questions, ``covers`` (none of them is then scored).
    """
    if pid in _predictions():
        return True
    shown = _skipped(pid)
    st.button(
        "Hide the answer" if shown else "Skip, show me",
        key=f"{pid}_skip",
        on_click=_skip,
        args=(pid, tuple(covers)),
    )
    if not shown:
        st.caption("🔮 The live results appear once you lock in a prediction or skip it.")
    return shown


def is_locked(pid: str) -> bool:
    """Whether the learner has locked in an answer to ``pid`` (draws nothing)."""
    return pid in _predictions()


def score(container=None) -> None:
    """The session's prediction score (in ``container``, by default the sidebar)."""
    (container or st.sidebar).caption("🔮 " + tally(_predictions()).line())


def takeaways(bullets: Sequence[str], after: str | None = None) -> None:
    """The page's "Key takeaways": 3-5 short bullets a learner could copy onto a card.

    ``after`` names the page's prediction: until it is locked in or skipped the bullets stay
    hidden (they state the results).
    """
    st.header("Key takeaways", anchor="key-takeaways")
    if after is not None and not is_revealed(after):
        st.caption("🔮 They appear once you answer the prediction above, or skip it.")
        return
    with st.container(border=True):
        st.markdown("\n".join(f"- {b}" for b in bullets))


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:60] or "script"


def script_block(
    code: str, *, name: str, line_numbers: bool = False, key: str | None = None
) -> None:
    """A whole script, with buttons to download it as ``<name>.py`` and as a notebook.

    ``name`` says what the script is ("the auto-reset timeline"); it names the files.
    """
    if is_fragment(code):
        raise ValueError("a fragment has no downloads: use fragment_block")
    st.code(code, language="python", line_numbers=line_numbers)
    stem = _slug(name)
    digest = key or hashlib.sha1(code.encode()).hexdigest()[:10]
    row = st.container(horizontal=True)  # buttons as wide as their labels, in any column
    row.download_button(
        "Download .py",
        data=code,
        file_name=f"{stem}.py",
        mime="text/x-python",
        key=f"dl_py_{stem}_{digest}",
        on_click="ignore",
        icon=":material/download:",
        help="Save it, then `python " + stem + ".py` (with the burgerbot library installed).",
    )
    row.download_button(
        "Download .ipynb",
        data=script_notebook(code, name[:1].upper() + name[1:]),
        file_name=f"{stem}.ipynb",
        mime="application/x-ipynb+json",
        key=f"dl_nb_{stem}_{digest}",
        on_click="ignore",
        icon=":material/download:",
        help="The same script as a Jupyter notebook (Jupyter, VS Code, Colab).",
    )


def fragment_block(code: str, *, of: str) -> None:
    """Part of a script shown beside it, labelled on its first line as a fragment of ``of``."""
    st.code(code if is_fragment(code) else fragment_header(of) + code, language="python")


def lazy_expander(
    label: str,
    draw: Callable[[], object],
    *,
    key: str | None = None,
    icon: str | None = None,
    expanded: bool = False,
) -> None:
    """An expander whose content ``draw()`` makes only while the expander is open.

    Streamlit sends a closed expander's content too, and the browser builds every element of
    it on each visit of the page: a dataframe costs it about 40 ms on a small machine, a code
    block about 12, a download button about 5. Here opening (or closing) the expander reruns
    only this expander (a fragment), which then draws or drops its content.

    ``key`` names the expander's open state; by default it comes from the label, so two lazy
    expanders on one page need different labels or keys. The expander stays open through runs
    that do not draw it and, given a key, when its label changes (`keep_state`).
    """
    _lazy_expander(label, draw, key or _expander_key(label), icon, expanded)


def _expander_key(label: str) -> str:
    return "lazy_" + hashlib.sha1(label.encode()).hexdigest()[:12]


@st.fragment
def _lazy_expander(
    label: str, draw: Callable[[], object], key: str, icon: str | None, expanded: bool
) -> None:
    keep_state(key)
    box = st.expander(label, expanded=expanded, key=key, icon=icon, on_change="rerun")
    if box.open:
        with box:
            draw()


def chart_spec(build: Callable[..., alt.TopLevelMixin], *args: Any) -> dict:
    """``build(*args).to_dict()``, made once per server for the same builder and arguments.

    Building an altair chart and validating its spec costs tens of milliseconds per chart on
    a small machine, on every visit of a page. The spec depends only on the builder's
    arguments (data frames included, hashed by Streamlit), so later visits reuse it.
    """
    return _cached_spec(f"{build.__module__}.{build.__qualname__}", build, args)


@st.cache_data(max_entries=64, show_spinner=False)
def _cached_spec(name: str, _build: Callable[..., alt.TopLevelMixin], args: tuple) -> dict:
    spec = _build(*args).to_dict()
    if "datasets" in spec:
        spec["datasets"] = {key: _arrow_bytes(rows) for key, rows in spec["datasets"].items()}
    return spec


def _arrow_bytes(rows: list[dict]) -> bytes | list[dict]:
    """A chart's inline data (altair's list of rows) as the Arrow bytes Streamlit sends.

    Made once with the cached spec: otherwise Streamlit turns the rows into a data frame and
    then into Arrow on every rerun (Auto-reset's two charts: about 12 ms of its 50 ms script
    run). Rows Arrow cannot type (a column mixing numbers and text) stay rows, which
    Streamlit converts as before.
    """
    try:
        table = pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError):
        return rows
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def chart_with_table(
    chart: alt.TopLevelMixin | dict,
    data: pd.DataFrame,
    *,
    caption: str | None = None,
    key: str | None = None,
    chart_data: Any = None,
    width: Literal["stretch", "content"] = "stretch",
) -> None:
    """``chart`` with its data as a table one click away (an expander under it), for screen
    readers too.

    ``chart`` is an altair chart, or its Vega-Lite spec as a dict (``chart_spec`` caches
    one, so that a rerun does not rebuild and validate it). The table is drawn only while its
    expander is open (`lazy_expander`): a dataframe costs the browser about 40 ms on a small
    machine on every visit of the page, hidden or not. An expander rather than tabs ("Chart",
    "Data as a table"): with tabs, Auto-reset's two charts cost its warm page switch about
    60 ms more (medians 403 and 342 ms over 10 interleaved switches each).

    ``key`` names the expander's open state; by default it comes from the chart and the
    table's columns. ``chart_data`` is the chart's data when ``chart`` is a spec without any
    (a live view sends each step's data beside one cached spec), ``width`` the chart's width
    (``"stretch"`` or ``"content"``).
    """
    spec = chart if isinstance(chart, dict) else chart.to_dict()
    key = key or _table_key(spec, data, caption)
    # A copy of the top level: Streamlit takes the data out of the spec it is given, and the
    # caller may draw the same spec again.
    st.vega_lite_chart(chart_data, dict(spec), width=width)
    lazy_expander(
        TABLE_LABEL, lambda: st.dataframe(data, hide_index=True, width="stretch"), key=key
    )
    if caption:
        st.caption(caption)


TABLE_LABEL = "Data as a table"
TABLE_KEY_PREFIX = "table_"


def _table_key(spec: dict, data: pd.DataFrame, caption: str | None) -> str:
    shape = {k: v for k, v in spec.items() if k not in ("data", "datasets")}
    text = json.dumps([shape, [str(c) for c in data.columns], caption], sort_keys=True, default=str)
    return TABLE_KEY_PREFIX + hashlib.sha1(text.encode()).hexdigest()[:12]


def exercise(eid: str, title: str, task: str, answer: str, *, answer_name: str) -> None:
    """An exercise in an expander, its answer (a whole script) hidden behind a toggle.

    ``eid`` names the exercise across the session (use ``"<page>_<exercise>"``).
    """
    with st.expander(f"Exercise: {title}", icon="✍️"):
        st.markdown(task)
        if st.toggle("Show the answer", key=f"{eid}_answer"):
            st.caption("A whole script: save it to a file and run `python file.py`.")
            script_block(answer, name=answer_name)
