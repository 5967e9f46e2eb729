"""What the pages' Stable-Baselines3 scripts printed when they last ran with SB3 installed.

stable-baselines3 (and torch) are an optional extra, absent on the hosted demo. So that a
learner without them still sees what SB3 really does, ``tools/record_sb3.py`` runs each SB3
script the pages show, on a machine with the extra installed, and stores what it printed (or
the error it raised) in ``sb3_recording.json`` beside this module, with the date and the
library versions. The pages show that output labelled as recorded; a test (marker ``sb3``)
runs the scripts again and checks they still print what was recorded.
"""

from __future__ import annotations

import json
import platform
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from burgerbot.app.script_runner import CapturedError, ScriptRun, run_script
from burgerbot.app.versions import installed_version

__all__ = ["PACKAGES", "RECORDING_PATH", "Recording", "comparable", "load", "record"]

RECORDING_PATH = Path(__file__).with_name("sb3_recording.json")
PACKAGES = ("stable-baselines3", "gymnasium", "torch", "numpy")
"""The libraries whose versions a recording names (and Python's)."""

_SECONDS = re.compile(r"\d+(\.\d+)? s\b")


def comparable(output: str) -> str:
    """A script's output with its timings blanked: two runs differ only there.

    >>> comparable("trained 4096 env-steps in 12.3 s")
    'trained 4096 env-steps in ... s'
    """
    return _SECONDS.sub("... s", output)


@dataclass(frozen=True)
class Recording:
    """Scripts as they ran with stable-baselines3 installed: when, with which versions, and
    each one's code, output and error by name (``"sb3.ppo_fixed"``, ...)."""

    recorded_on: str
    """The date, ``YYYY-MM-DD`` (UTC)."""
    versions: dict[str, str]
    """The version of each of `PACKAGES`, and ``"python"``."""
    runs: dict[str, ScriptRun]

    def run(self, name: str) -> ScriptRun:
        """The recorded run of script ``name``."""
        return self.runs[name]

    def has(self, name: str, code: str) -> bool:
        """Whether script ``name`` was recorded exactly as ``code`` (a changed script was not)."""
        return name in self.runs and self.runs[name].code == code

    @property
    def sb3_version(self) -> str:
        return self.versions["stable-baselines3"]

    def label(self) -> str:
        """When and with what it was recorded, for the learner.

        >>> Recording("2026-12-02", {"stable-baselines3": "2.9.2", "gymnasium": "1.4.0",
        ...     "torch": "2.13.0", "numpy": "2.4.0", "python": "3.11.7"}, {}).label()
        'recorded on 2026-12-02 with stable-baselines3 2.9.2, gymnasium 1.4.0, torch 2.13.0 (CPU) and Python 3.11.7'
        """  # noqa: E501
        v = self.versions
        return (
            f"recorded on {self.recorded_on} with stable-baselines3 {v['stable-baselines3']}, "
            f"gymnasium {v['gymnasium']}, torch {v['torch'].split('+')[0]} (CPU) and "
            f"Python {v['python']}"
        )


def _run_to_json(run: ScriptRun) -> dict[str, Any]:
    error = None if run.error is None else asdict(run.error)
    return {"code": run.code, "output": run.output, "error": error}


def _run_from_json(data: Mapping[str, Any]) -> ScriptRun:
    error = data["error"]
    captured = None
    if error is not None:
        captured = CapturedError(**{**error, "path": tuple(error["path"])})
    return ScriptRun(code=data["code"], output=data["output"], error=captured)


def record(scripts: Mapping[str, str], path: Path = RECORDING_PATH) -> dict[str, Any]:
    """Run each of ``scripts`` (``{name: code}``) here, as the pages do, and write what they did
    to ``path``. Needs stable-baselines3; returns what it wrote."""
    data = {
        "recorded_on": datetime.now(UTC).date().isoformat(),
        "versions": {
            **{name: installed_version(name) for name in PACKAGES},
            "python": platform.python_version(),
        },
        "runs": {name: _run_to_json(run_script(code)) for name, code in scripts.items()},
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return data


@cache
def load(path: Path = RECORDING_PATH) -> Recording:
    """The recording stored in the repository."""
    data = json.loads(path.read_text())
    runs = {name: _run_from_json(run) for name, run in data["runs"].items()}
    return Recording(data["recorded_on"], data["versions"], runs)
