"""Colours every chart uses: the Okabe-Ito palette, made to stay distinct for colour-blind viewers.

Charts also tell series apart by marker shape or stroke dash where colour alone would carry
meaning (Okabe & Ito, "Color Universal Design", 2008).
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt

__all__ = ["BACKEND_COLOURS", "OKABE_ITO", "SHAPES", "SHAPE_WORDS", "colour_scale"]

OKABE_ITO = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#F0E442",  # yellow (weak on white: used last)
    "#000000",  # black
)

BACKEND_COLOURS = {"Sync": OKABE_ITO[3], "Async": OKABE_ITO[4], "native": OKABE_ITO[2]}
"""One colour per backend name (as `burgerbot.app.labels.BACKEND_NAMES` spells them)."""

SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "stroke")
"""Vega-Lite point shapes, in the order series get them."""

SHAPE_WORDS = dict(
    zip(
        SHAPES,
        ("circles", "squares", "triangles", "diamonds", "crosses", "upside-down triangles", "bars"),
        strict=True,
    )
)
"""How a chart's description names each shape's markers, for a screen reader."""


def colour_scale(domain: Sequence[str]) -> alt.Scale:
    """An altair colour scale giving ``domain``'s values Okabe-Ito colours, in order.

    Backend names keep their own colour on every chart.

    >>> colour_scale(["Sync", "other"]).to_dict()["range"]
    ['#0072B2', '#E69F00']
    """
    free = iter(c for c in OKABE_ITO if c not in BACKEND_COLOURS.values())
    return alt.Scale(
        domain=list(domain), range=[BACKEND_COLOURS.get(v) or next(free) for v in domain]
    )
