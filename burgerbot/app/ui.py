"""Streamlit-only helpers shared by the pages (the rest of `burgerbot` never imports streamlit)."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata

import streamlit as st

from burgerbot.app.caps import CAPS_NOTES
from burgerbot.app.settings import Setting, parse_settings, to_query
from burgerbot.app.slots import EnvSlot

__all__ = [
    "DOC_LINKS",
    "code_expander",
    "env_slot",
    "installed_versions",
    "load_settings",
    "show_notes",
    "sidebar",
    "sync_query_params",
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


def installed_versions(packages: Sequence[str] = ("gymnasium", "numpy", "streamlit")) -> dict:
    """Versions of the installed packages, ``None`` for those not installed."""
    versions = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def sidebar(topics: Sequence[str] = (), links: Sequence[str] = ()) -> None:
    """Installed versions (what the app teaches is what these do) and this page's topics."""
    with st.sidebar:
        versions = installed_versions()
        st.caption(
            "Running live on "
            + ", ".join(f"{name} **{version}**" for name, version in versions.items())
        )
        if topics:
            st.markdown("**Lesson topics on this page**\n" + "".join(f"\n- {t}" for t in topics))
        for name in links:
            st.markdown(f"[{name}]({DOC_LINKS[name]})")
        for note in CAPS_NOTES:
            st.warning(note)


def widget_key(page: str, spec: Setting) -> str:
    """The session-state key of a setting's widget (AppTest finds widgets by it)."""
    return f"{page}_{spec.key}"


def load_settings(page: str, specs: Sequence[Setting]) -> list[str]:
    """On a page's first run in a session, put URL settings into its widgets' state.

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


def code_expander(code: str, label: str = "Code: this view as a script you can run") -> None:
    """A self-contained script equivalent to the page's current settings."""
    with st.expander(label, icon="🐍"):
        st.caption("Needs only gymnasium, numpy and this project's `burgerbot` package.")
        st.code(code, language="python")


def env_slot(page: str) -> EnvSlot:
    """This session's env slot for a page (closed when its settings change or the session ends)."""
    key = f"_{page}_env_slot"
    if key not in st.session_state:
        st.session_state[key] = EnvSlot()
    return st.session_state[key]
