"""Small tables as Markdown text (where a dataframe widget would not wrap), and Markdown as
HTML for the views drawn in the browser rather than by ``st.markdown``."""

from __future__ import annotations

from typing import Any

import pandas as pd
from markdown_it import MarkdownIt

__all__ = ["markdown_html", "markdown_table"]


def markdown_table(frame: pd.DataFrame) -> str:
    """A small frame as a Markdown table (cells wrap and keep their `code` formatting).

    Example:
        >>> print(markdown_table(pd.DataFrame({"a": ["x | y"], "b": [1]})))
        | a | b |
        |---|---|
        | x \\| y | 1 |
    """

    def cell(value: Any) -> str:
        # A pipe would end the cell and a newline the row.
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = [
        "| " + " | ".join(cell(c) for c in frame.columns) + " |",
        "|" + "---|" * len(frame.columns),
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.to_numpy()]
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
