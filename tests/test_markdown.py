"""Small tables as Markdown (`burgerbot.app.markdown`)."""

from __future__ import annotations

import pandas as pd

from burgerbot.app.markdown import markdown_table


def test_markdown_table_escapes_pipes():
    text = markdown_table(pd.DataFrame({"a": ["x | y"], "b": [1]}))
    assert text.splitlines() == ["| a | b |", "|---|---|", "| x \\| y | 1 |"]


def test_markdown_table_keeps_each_row_on_one_line():
    text = markdown_table(pd.DataFrame({"you look at": ["`obs`\nfrom step 3"], "n": [2]}))
    assert text.splitlines()[2] == "| `obs` from step 3 | 2 |"
