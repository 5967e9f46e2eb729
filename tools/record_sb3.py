"""Record what the pages' Stable-Baselines3 scripts print, for visitors without SB3.

Run on a machine with the optional extra installed, from the repository root:

    OMP_NUM_THREADS=1 python tools/record_sb3.py

It runs every script the "Stable-Baselines3" and "The lesson vs today" pages show that needs
stable-baselines3, as the pages run them, and writes ``burgerbot/app/sb3_recording.json``
(`burgerbot.app.sb3_recording`). Record again whenever one of those scripts or the pinned
versions in requirements-sb3.txt change: a test fails until then.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from burgerbot.app import sb3_recording
from burgerbot.app.logic import lesson_vs_today, sb3


def main() -> None:
    sb3.load_sb3()  # stops here, saying how to install it, when SB3 is missing
    scripts = {**sb3.recorded_scripts(), **lesson_vs_today.recorded_scripts()}
    data = sb3_recording.record(scripts)
    for name, run in data["runs"].items():
        print(f"{name}: {'raised ' + run['error']['type'] if run['error'] else 'ran'}")
    print("written to", sb3_recording.RECORDING_PATH)


if __name__ == "__main__":
    main()
