"""One vocabulary: env-steps (rows a vector env returns) versus transitions (rows a learner may
train on). The glossary defines both that way, and no page, shown script or takeaway counts a
vector env's rows (calls x N) as transitions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from burgerbot.app.glossary import TERMS
from burgerbot.buffers import rollout_buffer
from burgerbot.speed import loop_speeds

ROOT = Path(__file__).resolve().parent.parent
# Everything a learner reads: the pages, their logic (sentences) and the scripts they show.
SOURCES = sorted(
    [
        *(ROOT / "app_pages").glob("*.py"),
        *(ROOT / "burgerbot" / "app" / "logic").glob("*.py"),
        *(ROOT / "burgerbot" / "app" / "scripts").glob("*.py"),
    ]
)

# Phrases that make a vector env's rows (N per call, calls x N) transitions.
# (A figure of SB3's, "n_steps x n_envs transitions", is right: SB3's VecEnvs leave no reset
# rows; those sentences name no vector env's call.)
ROWS_AS_TRANSITIONS = [
    r"(?i)transitions? per (step\(\) )?call",
    r"(?i)one transition per env",
    r"(?i)(returns?|collects?|hands back) (\{[^}]*\}|N|this many) transitions",
    r"\bN transitions",
    r"(?i)transitions \(env-steps\)",
    r"(?i)env-steps \(transitions\)",
    r"\{[^}\-]*calls?[^}\-]*\*[^}\-]*num_envs[^}\-]*\} transitions",
    # a count of envs (rows per call), of env-steps or of rows, labelled transitions (a count
    # with something subtracted, "{rows - resets:,} transitions", is the right one)
    r"\{[^}\-]*\b(num_envs|env_steps|rows)\b[^}\-]*\} transitions",
    r"(?i)(gives?|yields?) (\{[^}\-]*\}|N) transitions",
]


def test_the_glossary_defines_env_steps_as_rows_and_transitions_as_trainable_rows():
    env_step, transition = TERMS["env-step"].meaning, TERMS["transition"].meaning
    assert "row" in env_step and "N env-steps per call" in env_step
    # each entry names the rows that are one but not the other: NEXT_STEP's auto-reset rows
    assert re.search(r"not every env-step is a transition.*auto-reset.*is not", env_step, re.I)
    assert "train on" in transition and "auto-reset rows" in transition
    assert "masked out" in transition


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_page_counts_a_vector_envs_rows_as_transitions(path):
    text = re.sub(r"\s*\"\s*\n\s*(f?)\"", " ", path.read_text())  # join implicit concatenation
    found = [
        match.group(0) for pattern in ROWS_AS_TRANSITIONS for match in re.finditer(pattern, text)
    ]
    assert not found, f"{path.name} counts rows as transitions: {found}"


@pytest.mark.parametrize(
    "sentence",
    [
        # Home's takeaway, Why batches' metric and explanation, as they read before issue 22
        "One `step()` call of a vector env takes N actions and returns N transitions",
        '"transitions per call"',
        "Each `step()` call returns one transition per env, {num_envs} per call",
        "each step() call collects N transitions",
        # the same mistake in words no page used
        "Each `step()` call gives {num_envs} transitions",
        "A call of N envs yields N transitions",
        "{num_envs:,} transitions in every call",
        "the vector env's {rows:,} transitions per second",
        "{env_steps:,} env-steps, that is {env_steps:,} transitions",
    ],
)
def test_the_phrase_checks_catch_rows_counted_as_transitions(sentence):
    assert any(re.search(p, sentence) for p in ROWS_AS_TRANSITIONS), sentence


@pytest.mark.parametrize(
    "right",
    [
        # what Why batches says now: the rows less the reset rows
        "those 512 calls held {calls * num_envs - resets:,} transitions",
        "those calls held {rows - resets:,} transitions",
        # SB3's updates are counted in transitions rightly (its VecEnvs leave no reset rows)
        "n_steps=2048 with 4 envs gives 8,192 transitions",
    ],
)
def test_the_phrase_checks_pass_transitions_counted_rightly(right):
    assert not any(re.search(p, right) for p in ROWS_AS_TRANSITIONS), right


def test_transitions_are_the_rows_less_the_auto_reset_rows_where_pages_count_them():
    # Why batches' batch: 512 calls of 4 envs, 169 of the 2,048 rows are reset rows (seed 0)
    frame = rollout_buffer(2048, 4, seed=0)
    assert len(frame) == 2048 and int((frame["event"] == "reset").sum()) == 169
    # Home's rates: a vector env's transitions are its rows less its reset rows
    df = loop_speeds([8], seconds=0.005, repeats=2)
    vector = df[df["loop"] != "plain"]
    assert (vector["reset_row_share"] > 0).all()
    assert (vector["transitions_per_s"] < vector["env_steps_per_s"]).all()
