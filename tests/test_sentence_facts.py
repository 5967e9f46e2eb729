"""The test helper that reads a computed sentence's facts reads them right."""

from __future__ import annotations

import doctest

import sentence_facts
from sentence_facts import bold, numbers, quotes


def test_its_examples_hold():
    assert doctest.testmod(sentence_facts).failed == 0


def test_figures_are_read_whole_and_a_missing_one_is_noticed():
    text = "**cannot tell**: 288 to 3,168 env-steps over 3 seeds; 0.00% of the time; -2.5 µs"
    assert bold(text) == ["cannot tell"]
    assert numbers(text) == [288.0, 3168.0, 3.0, 0.0, -2.5]
    assert quotes(text, 3168, 288) and not quotes(text, 3169) and not quotes(text, 168)
