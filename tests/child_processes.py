"""Which child processes this test process has (read from /proc; psutil is not a dependency)."""

from __future__ import annotations

import os


def worker_pids() -> set[int]:
    """Live child processes of this process, from /proc, except multiprocessing's helper.

    The resource tracker is started once, the first time a spawned process is used, and
    serves every later one until the interpreter exits: it is not left behind by a run.
    """
    pids = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:  # the process ended while we looked
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == os.getpid() and b"resource_tracker" not in cmdline:
            pids.add(int(entry))
    return pids
