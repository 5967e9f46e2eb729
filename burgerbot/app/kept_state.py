"""A widget's state kept across the runs that do not draw it (Streamlit drops it then)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import streamlit as st

__all__ = ["keep_state"]

_PREFIX = "_kept_"


def keep_state(key: str, allowed: Collection[Any] | None = None) -> None:
    """Before drawing the widget ``key``: give it back the value it had when last drawn.

    Streamlit drops a widget's state when a run does not draw it, and a keyed expander or
    set of tabs drawn under another label is a new widget: either way a lazy expander the
    learner opened would close, or the tab they chose would go back to the first. Call this
    right before the widget: it records the widget's current value, or, when there is none,
    puts the last recorded one back (only if it is in ``allowed``, when given: a set of
    tabs may have other labels now).
    """
    kept = _PREFIX + key
    if key in st.session_state:
        st.session_state[kept] = st.session_state[key]
    if kept in st.session_state and (allowed is None or st.session_state[kept] in allowed):
        st.session_state[key] = st.session_state[kept]
