"""The theme's colours meet WCAG AA contrast (4.5:1 for text), as .streamlit/config.toml says."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

THEME = tomllib.loads((Path(__file__).parents[1] / ".streamlit/config.toml").read_text())["theme"]
CAPTION_FADE = 0.6
"""Streamlit draws captions in the text colour at 60% opacity (its `fadedText60`)."""


def luminance(colour: str) -> float:
    """WCAG relative luminance of ``#RRGGBB``."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def faded(colour: str, over: str, alpha: float) -> str:
    mixed = (
        round(int(colour[i : i + 2], 16) * alpha + int(over[i : i + 2], 16) * (1 - alpha))
        for i in (1, 3, 5)
    )
    return "#" + "".join(f"{c:02X}" for c in mixed)


def test_contrast_of_known_pairs():
    assert contrast("#FFFFFF", "#000000") == pytest.approx(21)
    assert contrast("#D9661F", "#FFFFFF") == pytest.approx(3.58, abs=0.01)  # the old primary


@pytest.mark.parametrize("background", ["backgroundColor", "secondaryBackgroundColor"])
def test_text_captions_links_and_the_primary_colour_read_at_aa(background):
    behind = THEME[background]
    assert contrast(THEME["textColor"], behind) >= 4.5
    assert contrast(faded(THEME["textColor"], behind, CAPTION_FADE), behind) >= 4.5
    assert contrast(THEME["linkColor"], behind) >= 4.5
    assert contrast(THEME["primaryColor"], behind) >= 4.5  # the slider's value label
    # Inline code, in a caption too (the code background is a little darker than ``behind``).
    assert contrast(faded(THEME["codeTextColor"], behind, CAPTION_FADE), behind) >= 4.5


def test_white_text_on_a_primary_button_reads_at_aa():
    assert contrast("#FFFFFF", THEME["primaryColor"]) >= 4.5
