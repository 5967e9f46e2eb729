"""Small tables as Markdown text (where a dataframe widget would not wrap), and Markdown as
HTML for the views drawn in the browser rather than by ``st.markdown``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
from markdown_it import MarkdownIt

__all__ = ["markdown_html", "markdown_rows", "markdown_table"]


def markdown_table(frame: pd.DataFrame) -> str:
    """A small frame as a Markdown table (cells wrap and keep their `code` formatting).

    Example:
        >>> print(markdown_table(pd.DataFrame({"a": ["x | y"], "b": [1]})))
        | a | b |
        |---|---|
        | x \\| y | 1 |
    """
    return markdown_rows(frame.columns, frame.to_numpy())


def markdown_rows(header: Iterable[Any], rows: Iterable[Iterable[Any]]) -> str:
    """A header and rows of cells as a Markdown table (`markdown_table` without a frame).

    Example:
        >>> print(markdown_rows(["env", "reward"], [[0, "0.0"], [1, "1.0"]]))
        | env | reward |
        |---|---|
        | 0 | 0.0 |
        | 1 | 1.0 |
    """

    def cell(value: Any) -> str:
        # A pipe would end the cell and a newline the row.
        return str(value).replace("|", "\\|").replace("\n", " ")

    names = [cell(c) for c in header]
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


# CommonMark with GitHub's pipe tables. HTML stays HTML: the text is the app's own, never a
# visitor's (call_stepper trusts it the same way).
_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable("table")


def markdown_html(text: str) -> str:
    r"""The app's Markdown as HTML, for a view drawn in the browser rather than by
    ``st.markdown``: markdown-it-py's CommonMark, with pipe tables as `markdown_table` makes.

    Example:
        >>> markdown_html("See **`obs`** & [a term](glossary#obs).")
        '<p>See <strong><code>obs</code></strong> &amp; <a href="glossary#obs">a term</a>.</p>\n'
        >>> table = markdown_html(markdown_table(pd.DataFrame({"a": ["x | y"], "b": ["`1`"]})))
        >>> "<td>x | y</td>" in table and "<td><code>1</code></td>" in table
        True
    """
    return _MARKDOWN.render(text)
