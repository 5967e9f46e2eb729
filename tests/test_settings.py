"""URL settings: good values round-trip, bad ones fall back or are clamped with a note."""

from __future__ import annotations

import pytest

from burgerbot.app.caps import Caps, load_caps
from burgerbot.app.settings import (
    ChoiceSetting,
    IntListSetting,
    IntSetting,
    clamp_num_envs,
    parse_settings,
    to_query,
)

N = IntSetting("n", "NUM_ENVS", 4, 1, 1024)
MODE = ChoiceSetting("mode", "Mode", "next_step", ("next_step", "same_step", "disabled"))
SIZES = IntListSetting("sizes", "Sizes", (1, 2, 4), 1, 256)
SPECS = [N, MODE, SIZES]


def test_missing_settings_take_defaults_silently():
    assert parse_settings(SPECS, {}) == ({"n": 4, "mode": "next_step", "sizes": (1, 2, 4)}, [])


def test_good_settings_round_trip():
    values = {"n": 64, "mode": "same_step", "sizes": (1, 8, 32)}
    query = {k: [v] for k, v in to_query(SPECS, values).items()}
    assert parse_settings(SPECS, query) == (values, [])


@pytest.mark.parametrize(
    ("raw", "value", "fragment"),
    [
        ("-3", 1, "outside 1..1024"),
        ("0", 1, "outside"),
        ("99999999", 1024, "outside"),
        ("abc", 4, "not a whole number"),
        ("4.5", 4, "not a whole number"),
        ("", 4, "not a whole number"),
        ("٤", 4, "not a whole number"),  # a non-ASCII digit is not accepted
        ("1e3", 4, "not a whole number"),
        ("<script>alert(1)</script>", 4, "not a whole number"),
        ("9" * 5000, 4, "characters long"),
    ],
)
def test_bad_numbers_fall_back_with_a_note(raw, value, fragment):
    values, notes = parse_settings([N], {"n": [raw]})
    assert values["n"] == value
    assert len(notes) == 1 and fragment in notes[0]


def test_notes_are_inert():
    _, notes = parse_settings([MODE], {"mode": ["`[x](javascript:alert(1))`\n# big"]})
    assert "`" not in notes[0].split("`mode=", 1)[1].split("` is")[0]
    assert "\n" not in notes[0]


def test_choices_ignore_case_and_unknown_words_fall_back():
    assert parse_settings([MODE], {"mode": ["SAME_STEP"]})[0]["mode"] == "same_step"
    values, notes = parse_settings([MODE], {"mode": ["sometimes"]})
    assert values["mode"] == "next_step" and "not one of" in notes[0]


def test_repeated_and_unknown_keys_are_noted():
    values, notes = parse_settings(SPECS, {"n": ["2", "8"], "colour": ["red"], "embed": ["true"]})
    assert values["n"] == 8
    assert any("given 2 times" in n for n in notes)
    assert any("unknown" in n and "colour" in n for n in notes)
    assert not any("embed" in n for n in notes)


@pytest.mark.parametrize(
    ("raw", "value"),
    [("8,1,8,2", (1, 2, 8)), ("0,4,1000", (1, 4, 256)), ("x,2", (1, 2, 4)), (",,", (1, 2, 4))],
)
def test_lists_are_sorted_deduplicated_and_clamped(raw, value):
    values, notes = parse_settings([SIZES], {"sizes": [raw]})
    assert values["sizes"] == value
    assert bool(notes) == (raw != "8,1,8,2")


def test_num_envs_caps_per_backend():
    caps = Caps(max_envs=100, max_async_envs=4)
    assert clamp_num_envs("native", 50, caps) == (50, None)
    assert clamp_num_envs("native", 500, caps)[0] == 100
    value, note = clamp_num_envs("async", 16, caps)
    assert value == 4 and "caps it at 4" in note and "BURGERBOT" not in note


def test_caps_can_be_raised_by_environment_variables():
    caps, notes = load_caps({"BURGERBOT_MAX_ENVS": "65_536", "BURGERBOT_MAX_SEEDS": "lots"})
    assert caps.max_envs == 65536 and caps.max_seeds == Caps().max_seeds
    assert notes == ["Ignored BURGERBOT_MAX_SEEDS='lots': it must be a positive whole number."]
