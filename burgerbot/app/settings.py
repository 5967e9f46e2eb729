"""Page settings that round-trip through a URL: parsing, clamping and notes on bad values."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from burgerbot.app.caps import CAPS, Caps

__all__ = [
    "ChoiceSetting",
    "IntListSetting",
    "IntSetting",
    "clamp_num_envs",
    "parse_settings",
    "parse_values",
    "powers_of_two",
    "quote_for_note",
    "to_query",
]

_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,18}")
_MAX_RAW_LENGTH = 200
# Query parameters that Streamlit itself reads; never reported as unknown.
_STREAMLIT_PARAMS = frozenset({"embed", "embed_options"})


def quote_for_note(raw: str, limit: int = 40) -> str:
    """A short, inert rendering of a user-supplied value for a note (no markup survives)."""
    text = raw if len(raw) <= limit else raw[:limit] + "…"
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return "`" + text.replace("`", "'") + "`"


@dataclass(frozen=True)
class IntSetting:
    """A whole number between ``low`` and ``high``; out-of-range values are clamped."""

    key: str
    label: str
    default: int
    low: int
    high: int

    def parse(self, raw: str) -> tuple[int, str | None]:
        text = raw.strip()
        if not _WHOLE_NUMBER.fullmatch(text):
            return self.default, (
                f"`{self.key}={quote_for_note(raw)[1:-1]}` is not a whole number: "
                f"using {self.default}."
            )
        value = int(text)
        if value < self.low or value > self.high:
            clamped = min(max(value, self.low), self.high)
            return clamped, (
                f"`{self.key}={value}` is outside {self.low}..{self.high}: using {clamped}."
            )
        return value, None

    def encode(self, value: int) -> str:
        return str(int(value))


@dataclass(frozen=True)
class ChoiceSetting:
    """One of a fixed set of words (matched without regard to case)."""

    key: str
    label: str
    default: str
    choices: tuple[str, ...]

    def parse(self, raw: str) -> tuple[str, str | None]:
        by_lower = {choice.lower(): choice for choice in self.choices}
        value = by_lower.get(raw.strip().lower())
        if value is None:
            options = ", ".join(self.choices)
            return self.default, (
                f"`{self.key}={quote_for_note(raw)[1:-1]}` is not one of {options}: "
                f"using {self.default}."
            )
        return value, None

    def encode(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class IntListSetting:
    """A comma-separated list of whole numbers, each clamped, duplicates dropped, sorted."""

    key: str
    label: str
    default: tuple[int, ...]
    low: int
    high: int
    max_items: int = 16

    def parse(self, raw: str) -> tuple[tuple[int, ...], str | None]:
        parts = [p for p in raw.split(",") if p.strip()]
        if not parts or len(parts) > self.max_items:
            return self.default, (
                f"`{self.key}={quote_for_note(raw)[1:-1]}` must list 1 to {self.max_items} "
                f"whole numbers separated by commas: using {self.encode(self.default)}."
            )
        values, clamped = [], False
        for part in parts:
            if not _WHOLE_NUMBER.fullmatch(part.strip()):
                return self.default, (
                    f"`{self.key}={quote_for_note(raw)[1:-1]}` is not a list of whole "
                    f"numbers: using {self.encode(self.default)}."
                )
            value = int(part)
            bounded = min(max(value, self.low), self.high)
            clamped |= bounded != value
            values.append(bounded)
        result = tuple(sorted(set(values)))
        if clamped:
            return result, (
                f"Some of `{self.key}` lay outside {self.low}..{self.high}: "
                f"using {self.encode(result)}."
            )
        return result, None

    def encode(self, value: Sequence[int]) -> str:
        return ",".join(str(int(v)) for v in value)


Setting = IntSetting | ChoiceSetting | IntListSetting


def parse_values(
    specs: Sequence[Setting], values: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Each setting's value from a page's current values (its widgets' or its URL's), parsed
    and kept in range, with a note for each one that had to change; a missing key takes its
    default.

    Example:
        >>> parse_values([IntSetting("n", "NUM_ENVS", 4, 1, 8)], {"n": 99})
        ({'n': 8}, ['`n=99` is outside 1..8: using 8.'])
    """
    picked: dict[str, Any] = {}
    notes: list[str] = []
    for spec in specs:
        picked[spec.key], note = spec.parse(str(values.get(spec.key, spec.default)))
        if note:
            notes.append(note)
    return picked, notes


def parse_settings(
    specs: Sequence[Setting], query: Mapping[str, Sequence[str]]
) -> tuple[dict[str, Any], list[str]]:
    """Read settings from query parameters (each key mapped to all its values).

    Missing keys take their defaults silently; bad, repeated and unknown keys produce a
    note saying what was used instead. Never raises.
    """
    values: dict[str, Any] = {}
    notes: list[str] = []
    for spec in specs:
        raws = [str(v) for v in query.get(spec.key, [])]
        if not raws:
            values[spec.key] = spec.default
            continue
        raw = raws[-1]
        if len(raws) > 1:
            notes.append(f"`{spec.key}` was given {len(raws)} times: using the last one.")
        if len(raw) > _MAX_RAW_LENGTH:
            values[spec.key] = spec.default
            notes.append(f"`{spec.key}` was {len(raw)} characters long: using the default.")
            continue
        values[spec.key], note = spec.parse(raw)
        if note:
            notes.append(note)
    known = {spec.key for spec in specs} | _STREAMLIT_PARAMS
    unknown = [key for key in query if key not in known]
    if unknown:
        shown = ", ".join(quote_for_note(k, 20) for k in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        notes.append(f"Ignored unknown URL settings: {shown}{more}.")
    return values, notes


def to_query(specs: Sequence[Setting], values: Mapping[str, Any]) -> dict[str, str]:
    """Encode settings for ``st.query_params``."""
    return {spec.key: spec.encode(values[spec.key]) for spec in specs if spec.key in values}


def clamp_num_envs(backend: str, num_envs: int, caps: Caps = CAPS) -> tuple[int, str | None]:
    """Apply the per-backend NUM_ENVS cap; the note explains why when it bites."""
    if backend == "async" and num_envs > caps.max_async_envs:
        return caps.max_async_envs, (
            f"AsyncVectorEnv starts one worker process per environment, so this app caps it "
            f"at {caps.max_async_envs} (run the app on your own machine to raise the limit: "
            "its README says how)."
        )
    if num_envs > caps.max_envs:
        return caps.max_envs, (
            f"NUM_ENVS is capped at {caps.max_envs} here (run the app on your own machine to "
            "raise the limit: its README says how)."
        )
    return num_envs, None


def powers_of_two(high: int) -> tuple[int, ...]:
    """1, 2, 4, ... up to ``high``: the NUM_ENVS a sweep's multiselect offers.

    >>> powers_of_two(20)
    (1, 2, 4, 8, 16)
    """
    return tuple(2**k for k in range(high.bit_length()) if 2**k <= high)
