"""How the app names the three vector-env backends, in one place for every page and chart."""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "ALL_VERDICTS",
    "BACKEND_CLASSES",
    "BACKEND_LONG_NAMES",
    "BACKEND_NAMES",
    "OTHER_VERDICTS",
    "VERDICTS",
    "Verdict",
    "backend_label",
    "counted",
]

BACKEND_NAMES = {"sync": "Sync", "async": "Async", "native": "native"}
"""Short names, as in tables and chart legends."""

BACKEND_CLASSES = {
    "sync": "SyncVectorEnv",
    "async": "AsyncVectorEnv",
    "native": "BurgerBotVectorEnv",
}
"""The class each backend builds (BurgerBotVectorEnv is this project's, not Gymnasium's)."""

BACKEND_LONG_NAMES = {
    "sync": "SyncVectorEnv (as in the lesson)",
    "async": "AsyncVectorEnv (one worker process per env)",
    "native": "BurgerBotVectorEnv (this project's, not Gymnasium's)",
}
"""The class each backend builds, with what sets it apart, for sentences and selects."""


def backend_label(backend: str, with_class: bool = False) -> str:
    """``"sync"`` -> ``"Sync"``, or ``"Sync (SyncVectorEnv)"`` with ``with_class``.

    >>> backend_label("native", with_class=True)
    'native (BurgerBotVectorEnv)'
    """
    name = BACKEND_NAMES[backend]
    return f"{name} ({BACKEND_CLASSES[backend]})" if with_class else name


class Verdict(NamedTuple):
    """How a claim of the lesson stands against today's libraries (one of `VERDICTS`)."""

    label: str
    icon: str
    colour: str
    meaning: str

    def badge(self) -> str:
        """Streamlit markdown for a coloured badge, e.g. ``:orange-badge[🕰️ Changed since]``."""
        return f":{self.colour}-badge[{self.icon} {self.label}]"


VERDICTS = {
    "changed": Verdict(
        "Changed since",
        "🕰️",
        "orange",
        "True for the gymnasium of the lesson's time (0.29); today's release behaves differently.",
    ),
    "never_valid": Verdict(
        "Never valid",
        "⛔",
        "red",
        "No release ever behaved so: a mistake in the lesson's text, not a change in the library.",
    ),
    "imprecise": Verdict(
        "Imprecise",
        "📏",
        "violet",
        "Not wrong, not changed either: the wording leaves out what the library always did.",
    ),
    "not_visible": Verdict(
        "True, not visible as set up",
        "🔬",
        "blue",
        "True on average, but the lesson's experiment is too small to show it.",
    ),
    "holds": Verdict("Still true", "✅", "green", "Today's libraries behave as the lesson says."),
}
"""The kinds of verdict, each with its own colour and icon (used on every page that judges)."""

OTHER_VERDICTS = {
    "depends": Verdict(
        "Depends on the machine", "⚙️", "gray", "The number depends on the computer it runs on."
    ),
    "not_confirmed": Verdict(
        "Not confirmed here", "❔", "gray", "This run did not show what the lesson says."
    ),
    "not_run": Verdict("Not run here", "⚪", "gray", "A library it needs is not installed here."),
}
"""Outcomes of a check that are not a judgement of the lesson (not kinds of disagreement)."""

ALL_VERDICTS = {**VERDICTS, **OTHER_VERDICTS}
"""Every verdict a page that runs the lesson's checks can give: its legend lists them all."""


def counted(count: int, singular: str, plural: str | None = None, *, bold: bool = False) -> str:
    """A count and its noun, singular for exactly one (``bold`` puts the count in Markdown bold).

    >>> counted(1, "BurgerBot"), counted(1_024, "env"), counted(2, "goal", bold=True)
    ('1 BurgerBot', '1,024 envs', '**2** goals')
    """
    number = f"**{count:,}**" if bold else f"{count:,}"
    return f"{number} {singular if count == 1 else plural or singular + 's'}"
