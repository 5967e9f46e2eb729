"""Streamlit-only helpers shared by the pages (the rest of `burgerbot` never imports streamlit)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import pandas as pd
import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from burgerbot.app import learning
from burgerbot.app.caps import CAPS_NOTES
from burgerbot.app.kept_state import keep_state
from burgerbot.app.library_wheel import library_wheel
from burgerbot.app.rates import NUM_ENVS_CHOICES
from burgerbot.app.settings import IntSetting, Setting, parse_settings, to_query
from burgerbot.app.slots import EnvSlot
from burgerbot.app.versions import running_versions

__all__ = [
    "DOC_LINKS",
    "TABS_KEY_PREFIX",
    "PageFrame",
    "code_expander",
    "env_slot",
    "lazy_tabs",
    "library_download",
    "load_settings",
    "number_setting",
    "race_controls",
    "show_notes",
    "sidebar",
    "sync_query_params",
    "tabs",
    "widget_key",
]

DOC_LINKS = {
    "Gymnasium vector API": "https://gymnasium.farama.org/api/vector/",
    "Auto-reset modes": "https://farama.org/Vector-Autoreset-Mode",
    "Gymnasium spaces and batching": "https://gymnasium.farama.org/api/spaces/vector_utils/",
    "Stable-Baselines3 vectorised envs": (
        "https://stable-baselines3.readthedocs.io/en/master/guide/vec_envs.html"
    ),
}


def sidebar(topics: Sequence[str] = (), links: Sequence[str] = ()) -> None:
    """Installed versions (what the app teaches is what these do) and this page's topics."""
    with st.sidebar:
        versions = running_versions()
        st.caption(
            "Running live on "
            + ", ".join(f"{name} **{version}**" for name, version in versions.items())
        )
        if topics:
            st.markdown("**Lesson topics on this page**\n" + "".join(f"\n- {t}" for t in topics))
        for name in links:
            st.markdown(f"[{name}]({DOC_LINKS[name]})")
        st.page_link("app_pages/glossary.py", label="Glossary of terms", icon="📖")
        for note in CAPS_NOTES:
            st.warning(note)
        library_download()


def library_download() -> None:
    """The library as a wheel, so the scripts the pages show run on a learner's own machine."""
    wheel = library_wheel()
    st.download_button(
        "Download the burgerbot library",
        data=wheel.data,
        file_name=wheel.file_name,
        mime="application/zip",
        key="library_wheel",
        on_click="ignore",
        icon=":material/download:",
        help=(
            f"`pip install {wheel.file_name}` installs BurgerBot, its vector env and the "
            "experiments (with gymnasium, numpy and pandas): every script on these pages then "
            "runs on your machine."
        ),
    )


def widget_key(page: str, spec: Setting) -> str:
    """The session-state key of a setting's widget (AppTest finds widgets by it)."""
    return f"{page}_{spec.key}"


def load_settings(page: str, specs: Sequence[Setting]) -> list[str]:
    """On a page's first run in a session, put URL settings into its widgets' state; on every
    run, give back the settings a run of another page dropped (`keep_state`).

    Returns the notes about bad URL values (kept for the session, shown every run).
    """
    loaded_flag = f"_{page}_loaded_from_url"
    if not st.session_state.get(loaded_flag):
        query = {key: st.query_params.get_all(key) for key in st.query_params}
        values, notes = parse_settings(specs, query)
        for spec in specs:
            st.session_state[widget_key(page, spec)] = values[spec.key]
        st.session_state[f"_{page}_url_notes"] = notes
        st.session_state[loaded_flag] = True
    for spec in specs:
        keep_state(widget_key(page, spec))
    return st.session_state.get(f"_{page}_url_notes", [])


def sync_query_params(page: str, specs: Sequence[Setting]) -> None:
    """Mirror the widgets' current values in the URL, so the link reopens this view."""
    values = {
        spec.key: st.session_state.get(widget_key(page, spec), spec.default) for spec in specs
    }
    wanted = to_query(specs, values)
    # get_all: a repeated key (?n=1&n=2) must be rewritten to the one value in use.
    current = {key: st.query_params.get_all(key) for key in st.query_params}
    if current != {key: [value] for key, value in wanted.items()}:
        st.query_params.from_dict(wanted)


def show_notes(notes: Sequence[str]) -> None:
    """Bad-input notes in one quiet box (the page keeps working with what it used instead)."""
    if notes:
        st.info("**Some settings were adjusted**\n" + "".join(f"\n- {n}" for n in notes), icon="ℹ️")


def number_table(table: pd.DataFrame, formats: Mapping[str, tuple[str, str | None]]) -> None:
    """A table with its numbers formatted: ``formats`` maps a column to (heading, format)."""
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            heading: st.column_config.NumberColumn(format=number_format)
            for heading, number_format in formats.values()
            if number_format and heading in table.columns
        },
    )


def number_setting(
    where: Any, label: str, spec: IntSetting, key: Mapping[str, str], step: int = 1, **options: Any
) -> None:
    """``where.number_input`` for an integer setting: within the setting's bounds, keyed as
    the page frame keys its widgets (``key`` is `PageFrame.key`); ``options`` as Streamlit's."""
    where.number_input(
        label, min_value=spec.low, max_value=spec.high, step=step, key=key[spec.key], **options
    )


TABS_KEY_PREFIX = "tabs_"
"""Lazy tabs' keys start with this (tests find and open each tab by it)."""


def lazy_tabs(name: str, tabs: Sequence[tuple[str, Callable[[], None]]]) -> None:
    """Tabs whose content ``draw()`` makes only while its tab is open: ``[(label, draw)]``.

    Streamlit sends every tab's content and the browser builds all of it on each visit of
    the page, open or not (a dataframe costs about 40 ms on a small machine, a chart about
    45). Here only the open tab is drawn; choosing another tab reruns only these tabs (a
    fragment). The open tab's label is kept in session state under ``"tabs_" + name``, so it
    stays open across reruns, those that do not draw the tabs included (`keep_state`).
    """
    labels = tuple(label for label, _ in tabs)
    if len(set(labels)) != len(labels):
        raise ValueError(f"tab labels must differ: {labels}")
    _lazy_tabs(TABS_KEY_PREFIX + name, labels, tuple(draw for _, draw in tabs))


def tabs(labelled: Sequence[tuple[str, Callable[[], None]]]) -> None:
    """Plain ``st.tabs``, each drawn by its ``draw()``: ``[(label, draw)]``, as `lazy_tabs`
    takes them, for tabs whose laziness did not pay (the browser switches them itself)."""
    for container, (_, draw) in zip(
        st.tabs([label for label, _ in labelled]), labelled, strict=True
    ):
        with container:
            draw()


@st.fragment
def _lazy_tabs(key: str, labels: tuple[str, ...], draws: tuple[Callable[[], None], ...]) -> None:
    keep_state(key, allowed=labels)
    for container, draw in zip(st.tabs(labels, key=key, on_change="rerun"), draws, strict=True):
        if container.open:
            with container:
                draw()


def code_expander(
    code: str,
    label: str = "Code: this view as a script you can run",
    *,
    name: str = "this view as a script",
    lazy: bool = False,
) -> None:
    """A self-contained script equivalent to the page's current settings, with downloads.

    Plain by default: a closed expander's script cost no measurable warm page switch time on
    most pages (tools.latency). ``lazy``: drawn only while open (`learning.lazy_expander`),
    where a page's closed scripts did cost: Wrapping a vector env's four, about 15% of its
    warm switch once its results are shown.
    """

    def draw() -> None:
        st.caption(
            "Needs only gymnasium, numpy and this project's `burgerbot` library (download it "
            "from the sidebar and `pip install` the file). Save it and run `python file.py`."
        )
        learning.script_block(code, name=name)

    if lazy:
        learning.lazy_expander(label, draw, icon="🐍")
    else:
        with st.expander(label, icon="🐍"):
            draw()


def _connection_probe() -> Callable[[], bool] | None:
    """Whether this session's browser tab is connected, askable from any thread (the reaper's).

    None where no Streamlit server runs (AppTest, bare mode).
    """
    context = get_script_run_ctx()
    if context is None or not runtime.exists():
        return None
    server, session_id = runtime.get_instance(), context.session_id
    return lambda: server.is_active_session(session_id)


def env_slot(page: str) -> EnvSlot:
    """This session's env slot for a page (closed when its settings change or the session ends)."""
    key = f"_{page}_env_slot"
    if key not in st.session_state:
        st.session_state[key] = EnvSlot(connected=_connection_probe())
    slot = st.session_state[key]
    slot.close_if_broken()  # an Async worker died: the page starts a new env, with a note
    return slot


Resolved = TypeVar("Resolved")


class PageFrame:
    """What every page does first: its title and aim, the sidebar, its settings from the URL.

    A page makes one frame, resolves its settings before drawing its widgets (so each widget
    shows the value really used), draws the widgets with ``frame.key[...]``, then calls
    `settings_done`, which shows any notes about adjusted values and mirrors the settings in
    the URL::

        frame = ui.PageFrame("goal_scaling", SPECS, title="...", intro="...")
        settings = frame.resolve(resolve_settings, widget_values)
        st.slider(..., key=frame.key["n"])
        frame.settings_done()
    """

    def __init__(
        self,
        page: str,
        specs: Sequence[Setting] = (),
        *,
        title: str,
        intro: str | None = None,
        topics: Sequence[str] = (),
        links: Sequence[str] = (),
    ) -> None:
        self.page = page
        self.specs = tuple(specs)
        self.key = {spec.key: widget_key(page, spec) for spec in self.specs}
        st.title(title)
        if intro:
            st.write(intro)
        sidebar(topics, links)
        self._score = st.sidebar.empty()
        learning.score(self._score)
        self.notes = list(load_settings(page, self.specs))

    def values(self) -> dict[str, Any]:
        """Each setting's current value: its widget's, or its default before the widget exists."""
        return {
            spec.key: st.session_state.get(self.key[spec.key], spec.default) for spec in self.specs
        }

    def resolve(
        self,
        resolve: Callable[[Mapping[str, Any]], tuple[Resolved, list[str]]],
        widget_values: Callable[[Resolved], Mapping[str, Any]] | None = None,
    ) -> Resolved:
        """Apply ``resolve`` (limits, caps) to the current values; keep its notes.

        ``widget_values`` maps the result back to setting keys, whose widgets then show it.
        """
        resolved, notes = resolve(self.values())
        self.notes += notes
        if widget_values is not None:
            for key, value in widget_values(resolved).items():
                st.session_state[self.key[key]] = value
        return resolved

    def takeaways(self, bullets: Sequence[str], after: str | None = None) -> None:
        """End the page: its "Key takeaways" (hidden until prediction ``after`` is answered
        or skipped), and the sidebar's prediction score brought up to date with the checks
        this run made."""
        learning.takeaways(bullets, after)
        learning.score(self._score)

    def settings_done(self, extra_notes: Sequence[str] = ()) -> None:
        """After the widgets: notes on adjusted settings, and the settings mirrored in the URL."""
        show_notes([*self.notes, *extra_notes])
        sync_query_params(self.page, self.specs)


def race_controls(frame: PageFrame, pid: str, duration: str) -> tuple[int, bool, bool]:
    """A speed race's NUM_ENVS slider (the frame's one setting) under its prediction ``pid``
    and, once that is revealed, its "Measure again" button (Home, Speed breakdown).

    Returns NUM_ENVS, whether the answer may show (`learning.revealed`) and whether "Measure
    again" was pressed in this run; ``duration`` says how long measuring takes.
    """
    (spec,) = frame.specs
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    num_envs = left.select_slider(
        "NUM_ENVS for the numbers below (once they are shown, changing it measures again: "
        f"{duration})",
        options=NUM_ENVS_CHOICES,
        key=frame.key[spec.key],
    )
    frame.settings_done()
    if not learning.revealed(pid):
        return num_envs, False, False
    again = right.button("Measure again", key=f"{frame.page}_measure", icon=":material/refresh:")
    if again:
        runs = f"_{frame.page}_run"
        st.session_state[runs] = st.session_state.get(runs, 0) + 1
    return num_envs, True, again
