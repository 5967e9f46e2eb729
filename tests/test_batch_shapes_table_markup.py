"""Batch shapes' tables made as HTML directly (`table_markup`, quicker for the stepper's many
calls) render exactly as their Markdown tables did, in every place a view puts them."""

from __future__ import annotations

import pandas as pd
import pytest

from burgerbot.app.logic import batch_shapes
from burgerbot.app.logic.batch_shapes import (
    ENV_NAMES,
    BatchRun,
    build_vector_env,
    infos_table,
    observation_table,
    resolve_settings,
    side_by_side,
    step_table,
    table_block,
    table_markup,
)
from burgerbot.app.markdown import markdown_html, markdown_table


def as_markdown(frame: pd.DataFrame) -> str:
    return markdown_table(batch_shapes._formatted(frame))


def placements(block: str) -> list[str]:
    """The places a view puts a table block: after a paragraph, last, and in a column."""
    return [
        f"**`observations`**: one row per env.\n\n{block}\n\nAfter.",
        f"Before.\n\n{block}",
        side_by_side(f"**Left**\n\n{block}", "**Right**\n\nText."),
    ]


def tables_of_a_run(env: str, n: int) -> list[tuple[pd.DataFrame, int]]:
    settings, _ = resolve_settings({"env": env, "n": n, "backend": "sync", "seed": 7})
    envs = build_vector_env(settings)
    try:
        run = BatchRun(envs, settings.seed)
        calls = [run.reset()] + [run.step(1) for _ in range(12)]
    finally:
        envs.close()
    tables = []
    for call in calls:
        tables.append(observation_table(call, settings.env))
        if call.actions is not None:
            tables.append(step_table(call))
        frame, hidden, _ = infos_table(call.infos, settings.num_envs)
        if frame is not None:
            tables.append((frame, hidden))
    return tables


@pytest.mark.parametrize("env", ENV_NAMES)
@pytest.mark.parametrize("n", [3, 20, 70])  # short, scrolling, and with hidden rows
def test_every_table_of_a_run_renders_as_its_markdown_did(env, n, monkeypatch):
    tables = tables_of_a_run(env, n)
    direct = [table_block(frame, hidden, "envs") for frame, hidden in tables]
    monkeypatch.setattr(batch_shapes, "table_markup", as_markdown)
    markdown = [table_block(frame, hidden, "envs") for frame, hidden in tables]
    for fast, slow in zip(direct, markdown, strict=True):
        for fast_doc, slow_doc in zip(placements(fast), placements(slow), strict=True):
            assert markdown_html(fast_doc) == markdown_html(slow_doc)
    # The direct HTML was used (numbers are plain cells), not only the fallback.
    assert sum("<table>" in block for block in direct) >= len(tables) // 2


@pytest.mark.parametrize(
    "cells",
    [["`code`", "1"], ["a | b", "2"], ["<b>", "3"], ["x_y_", "4"], ["", "5"], [" 1", "6"]],
)
def test_cells_markdown_would_change_fall_back_to_the_markdown_table(cells):
    frame = pd.DataFrame({"key": [cells[0]], "n": [cells[1]]})
    made = table_markup(frame)
    assert not made.startswith("<table>")  # the Markdown table
    assert markdown_html(made) == markdown_html(as_markdown(frame))
