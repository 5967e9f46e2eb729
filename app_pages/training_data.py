"""From batches to training data (being written: see issue 11)."""

from __future__ import annotations

from burgerbot.app import ui

frame = ui.PageFrame(
    "training_data",
    title="🧺 From batches to training data",
    intro="You will learn which rows of a collected batch are real transitions.",
)
