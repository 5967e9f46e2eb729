"""A session's predictions: what the learner locked in, what the live run gave, the tally.

Pure Python (the Streamlit side is `burgerbot.app.learning`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Prediction", "Tally", "tally"]


@dataclass(frozen=True)
class Prediction:
    """One locked-in prediction; ``truth`` is None until a live run has checked it."""

    choice: str
    truth: str | None = None

    @property
    def right(self) -> bool | None:
        """True or False once checked, None before."""
        return None if self.truth is None else self.choice == self.truth


@dataclass(frozen=True)
class Tally:
    """How many predictions were made, checked and right."""

    made: int
    checked: int
    right: int

    def line(self) -> str:
        """The sidebar's line.

        >>> Tally(3, 2, 1).line()
        'Predictions: 3 made, 1 of 2 checked right'
        >>> Tally(0, 0, 0).line()
        'Predictions: none yet. Each page asks for one before its live run.'
        """
        if not self.made:
            return "Predictions: none yet. Each page asks for one before its live run."
        return f"Predictions: {self.made} made, {self.right} of {self.checked} checked right"


def tally(predictions: Mapping[str, Prediction]) -> Tally:
    """Count ``predictions`` (one per question).

    >>> tally({"a": Prediction("x", "x"), "b": Prediction("y", "x"), "c": Prediction("z")})
    Tally(made=3, checked=2, right=1)
    """
    checked = [p for p in predictions.values() if p.truth is not None]
    return Tally(len(predictions), len(checked), sum(bool(p.right) for p in checked))
