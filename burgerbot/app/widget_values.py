"""A widget value Streamlit cannot read is dropped with a note, instead of breaking the session.

A browser running the app's page only sends values its widgets allow. Anything else speaking
the websocket can send NaN or text for a whole-number input; Streamlit reads (deserializes)
each value before the page's script runs, the error is raised there, and the unreadable value
stays in the session, so every later run of that session fails the same way. The app's own
code cannot catch an error raised before it runs: `guard` wraps the one Streamlit method that
reads a sent value (`WStates.__getitem__`, private) and catches exactly an error raised while
reading a value as sent by the browser. That value is treated as not sent (the control keeps
the value it had, or its default), the run goes on, and `dropped` tells the page to say so.
This module is the app's only use of Streamlit's private session state.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from typing import Any

__all__ = ["dropped", "guard"]

_seen = threading.local()  # the reading and the run it precedes share the script's thread
# The unreadable values already told (each is read again at the next run's start): held, so
# that their ids are not reused, and only the latest few.
_told: OrderedDict[int, object] = OrderedDict()


def guard() -> None:
    """Install the wrapper once per process (every run calls this; later calls do nothing)."""
    from streamlit.runtime.state.session_state import Serialized, WStates

    read = WStates.__getitem__
    if getattr(read, "_burgerbot_guard", False):
        return

    @functools.wraps(read)
    def guarded(self: WStates, key: str) -> Any:
        try:
            return read(self, key)
        except (ValueError, TypeError, OverflowError):
            sent = self.states.get(key)
            if not isinstance(sent, Serialized):
                raise  # not a value as sent: not ours to hide
            if id(sent.value) not in _told:
                _told[id(sent.value)] = sent.value
                while len(_told) > 64:
                    _told.popitem(last=False)
                _seen.keys = [*getattr(_seen, "keys", []), key.rsplit("-", 1)[-1]]
            # To Streamlit's callers, a missing value: the run goes on, and the value is gone
            # at the next run's start (it is not kept as the widget's last value).
            raise KeyError(key) from None

    guarded._burgerbot_guard = True  # type: ignore[attr-defined]  # a mark on our own wrapper
    WStates.__getitem__ = guarded  # type: ignore[method-assign]  # the guard's one patch


def dropped() -> list[str]:
    """The keys of the controls whose sent value could not be read since the last call."""
    keys, _seen.keys = getattr(_seen, "keys", []), []
    return keys
