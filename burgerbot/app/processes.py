"""Processes as Linux's /proc shows them: which are still alive in a session.

The Mistakes page uses it to see which worker processes a learner's script left running; the
latency benchmark (`tools/latency`) to check that a server left nothing behind.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["session_members", "stat_fields"]


def stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name, or None if it is gone.

    The list starts at field 3 of proc(5) (the state), so field ``k`` is at index ``k - 3``.
    """
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may itself contain spaces or parentheses.
    return text[text.rindex(")") + 2 :].split()


def session_members(session_id: int) -> list[int]:
    """Living (non-zombie) processes in the session ``session_id`` (field 6 of stat)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_fields(int(entry))
            if fields and fields[0] != "Z" and int(fields[3]) == session_id:
                found.append(int(entry))
    return found
