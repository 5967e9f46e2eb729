"""The latency floor: a one-button Streamlit app whose click only bumps a counter."""

from __future__ import annotations

__all__ = ["BUTTON_KEY", "TITLE", "counter_text", "main"]

TITLE = "Trivial app"
BUTTON_KEY = "trivial_click"


def counter_text(clicks: int) -> str:
    """The text the app shows after ``clicks`` clicks.

    The full stop ends the number, so the text for 1 click is not part of the one for 10.

    Example:
        >>> counter_text(3)
        'Clicks: 3.'
        >>> counter_text(1) in counter_text(10)
        False
    """
    return f"Clicks: {clicks}."


def _count() -> None:
    import streamlit as st

    st.session_state.clicks += 1


def main() -> None:
    """A title, a button and the click counter: the least a Streamlit rerun can do."""
    import streamlit as st

    st.session_state.setdefault("clicks", 0)
    st.title(TITLE)
    # A callback counts the click before the script runs, so this very run shows it.
    st.button("Click me", key=BUTTON_KEY, on_click=_count)
    st.write(counter_text(st.session_state.clicks))


# `streamlit run` executes this file as __main__; importing it (docs, doctests) does nothing.
if __name__ == "__main__":
    main()
