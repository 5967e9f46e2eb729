"""Small tables as Markdown text, for the places where a dataframe widget would not wrap."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["markdown_table"]


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
