"""The "Batch shapes" live view as one Markdown body: the latest call's arrays, infos and robots.

The call's line, its shape summary, the arrays, the infos and the robots' pictures are one
Markdown text with a little HTML for the layout. The page turns it into HTML
(`burgerbot.app.markdown.markdown_html`) and shows it with `burgerbot.app.call_stepper.
call_view`, which swaps in the next call's view in the browser when Step once is clicked.
Every value in it comes from this module's code and the env's arrays, never from what a
visitor typed.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd

from burgerbot.app.markdown import markdown_table

__all__ = [
    "SCROLL_ROWS",
    "ended_envs",
    "heading",
    "number_text",
    "pictures_html",
    "scrolling",
    "side_by_side",
    "small",
    "table_block",
]

SCROLL_ROWS = 12
"""Tables longer than this scroll inside a box instead of stretching the page."""

_SCROLL_STYLE = "max-height: 24rem; overflow: auto; margin-bottom: 1rem;"
_COLUMNS_STYLE = "display: flex; flex-wrap: wrap; gap: 0 2rem; align-items: flex-start;"
# A column is never narrower than its table (min-content), so two that do not fit side by
# side wrap to one under the other instead of one's table running under the other's text.
_COLUMN_STYLE = "flex: 1 1 18rem; min-width: min-content;"
_FIGURES_STYLE = "display: flex; flex-wrap: wrap; gap: 0.75rem;"
_FIGURE_STYLE = "margin: 0; text-align: center;"


def heading(text: str) -> str:
    """A level-3 heading, the size of ``st.subheader``.

    Example:
        >>> heading("Latest call: reset")
        '### Latest call: reset'
    """
    return f"### {text}"


def small(text: str) -> str:
    """Text in the smaller type of a caption (Markdown still works inside).

    Example:
        >>> small("Showing the first 64 envs.")
        '<small>Showing the first 64 envs.</small>'
    """
    return f"<small>{text}</small>"


def scrolling(block: str) -> str:
    """``block`` (Markdown) in a box that scrolls once it is taller than about 12 rows.

    The blank lines let the Markdown inside an HTML block be read as Markdown.
    """
    return f'<div style="{_SCROLL_STYLE}">\n\n{block}\n\n</div>'


def table_block(frame: pd.DataFrame, hidden: int, what: str) -> str:
    """``frame`` as a Markdown table with its index as the first column, and how many rows
    were left out. A long table scrolls in its own box.

    Example:
        >>> frame = pd.DataFrame({"reward": [0.0, 1.0]}, index=pd.RangeIndex(2, name="env"))
        >>> print(table_block(frame, 3, "envs"))
        | env | reward |
        |---|---|
        | 0 | 0.0 |
        | 1 | 1.0 |
        <BLANKLINE>
        <small>Showing the first 2 envs; 3 more are hidden.</small>
    """
    table = markdown_table(_formatted(frame.reset_index()))
    if len(frame) > SCROLL_ROWS:
        table = small(f"Scroll the table to see all {len(frame)} rows.") + "\n\n" + scrolling(table)
    if hidden:
        table += "\n\n" + small(f"Showing the first {len(frame)} {what}; {hidden} more are hidden.")
    return table


def number_text(value: float) -> str:
    """A float with 4 significant digits that still reads as a float.

    Example:
        >>> [number_text(v) for v in (0.0, -0.1, 1.0, 0.0123456, 12345.6)]
        ['0.0', '-0.1', '1.0', '0.01235', '1.235e+04']
    """
    text = f"{value:.4g}"
    return text if any(c in text for c in ".enN") else text + ".0"


def _formatted(frame: pd.DataFrame) -> pd.DataFrame:
    """Each column as text: floats by `number_text`, the rest as they print."""
    return pd.DataFrame(
        {
            name: [number_text(v) for v in column.tolist()]
            if column.dtype.kind == "f"
            else [str(v) for v in column.tolist()]
            for name, column in frame.items()
        }
    )


def side_by_side(left: str, right: str) -> str:
    """Two Markdown blocks in two columns that wrap to one on a narrow screen."""
    columns = "\n\n".join(
        f'<div style="{_COLUMN_STYLE}">\n\n{block}\n\n</div>' for block in (left, right)
    )
    return f'<div style="{_COLUMNS_STYLE}">\n\n{columns}\n\n</div>'


def pictures_html(pictures: Sequence[str], captions: Sequence[str], width: int) -> str:
    """Pictures (``data:`` URLs) side by side, each with its caption below.

    Example:
        >>> block = pictures_html(["data:image/png;base64,AA=="], ["env 0"], 112)
        >>> block.count("<figure"), 'src="data:image/png;base64,AA=="' in block
        (1, True)
    """
    if len(pictures) != len(captions):
        raise ValueError(f"{len(pictures)} pictures but {len(captions)} captions")
    figures = "".join(
        f'<figure style="{_FIGURE_STYLE}"><img src="{html.escape(url, quote=True)}" '
        f'width="{int(width)}" alt="{html.escape(caption, quote=True)}">'
        f"<figcaption>{small(html.escape(caption))}</figcaption></figure>"
        for url, caption in zip(pictures, captions, strict=True)
    )
    return f'<div style="{_FIGURES_STYLE}">{figures}</div>'


def ended_envs(terminated: np.ndarray, truncated: np.ndarray, limit: int = 10) -> str | None:
    """The envs whose episode ended in a step, listed up to ``limit`` (None if none ended).

    Example:
        >>> ended_envs(np.array([False, True, False]), np.array([False, False, True]))
        '1, 2'
        >>> ended_envs(np.zeros(3, bool), np.zeros(3, bool)) is None
        True
    """
    ended = np.flatnonzero(terminated | truncated)
    if not len(ended):
        return None
    return ", ".join(str(i) for i in ended[:limit]) + (" …" if len(ended) > limit else "")
