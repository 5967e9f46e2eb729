"""Small tables as Markdown text, for the places where a dataframe widget would not wrap.

`markdown_html` turns the few kinds of Markdown these views write (headings, paragraphs,
pipe tables, `code` and **bold**) into HTML, for a view drawn in the browser rather than by
``st.markdown``.
"""

from __future__ import annotations

import html
import re
from typing import Any

import pandas as pd

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


_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`]+)`")
_HELD = re.compile(r"\x00(\d+)\x00")
_TAG = re.compile(r"(</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>)")
_BLOCK_TAG = re.compile(r"</?(?:div|figure|table|p|h[1-6]|ul|ol|details|summary)[\s>/]")


def _inline(text: str) -> str:
    """`code` spans and **bold** as HTML, inline HTML tags kept; the rest escaped."""
    codes: list[str] = []

    def keep(match: re.Match) -> str:
        codes.append(html.escape(match.group(1), quote=False))
        return f"\x00{len(codes) - 1}\x00"

    parts = _TAG.split(_CODE.sub(keep, text))
    text = "".join(
        part if i % 2 else html.escape(part, quote=False) for i, part in enumerate(parts)
    )
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    return _HELD.sub(lambda match: f"<code>{codes[int(match.group(1))]}</code>", text)


def _table(lines: list[str]) -> str:
    rows = [
        [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(line.strip()[1:-1])]
        for line in lines
    ]
    header, _rule, *body = rows
    head = "".join(f"<th>{_inline(c)}</th>" for c in header)
    rows_html = "".join(
        "<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in body
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows_html}</tbody></table>"


def markdown_html(text: str) -> str:
    r"""HTML for the Markdown these views write: blocks apart by blank lines, each a
    ``###`` heading, a pipe table (as `markdown_table` makes), a paragraph, or an HTML block
    (a line opening or closing a block tag such as ``<div>``), kept as it is. As in
    CommonMark, Markdown between an HTML block's lines is still read as Markdown, and HTML
    tags inside a paragraph stay tags. For the app's own text only: its HTML is trusted.

    Example:
        >>> markdown_html("### Call 1\n\nSee **`obs`** & 1 < 2.")
        '<h3>Call 1</h3><p>See <strong><code>obs</code></strong> &amp; 1 &lt; 2.</p>'
        >>> table = markdown_html(markdown_table(pd.DataFrame({"a": ["x | y"], "b": ["`1`"]})))
        >>> table.removeprefix("<table><thead><tr><th>a</th><th>b</th></tr></thead>")
        '<tbody><tr><td>x | y</td><td><code>1</code></td></tr></tbody></table>'
        >>> markdown_html('<div class="c">\n\nSee <small>**`x`** < 1</small>\n\n</div>')
        '<div class="c"><p>See <small><strong><code>x</code></strong> &lt; 1</small></p></div>'
    """
    blocks = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.strip().splitlines()
        if not lines:
            continue
        if _BLOCK_TAG.match(lines[0]):
            blocks.append(block.strip())
        elif len(lines) >= 2 and all(line.startswith("|") for line in lines):
            blocks.append(_table(lines))
        elif lines[0].startswith("### ") and len(lines) == 1:
            blocks.append(f"<h3>{_inline(lines[0][4:])}</h3>")
        else:
            blocks.append(f"<p>{_inline(' '.join(line.strip() for line in lines))}</p>")
    return "".join(blocks)
