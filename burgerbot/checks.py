"""Argument checks shared by the library: one rule and one message for each kind of value."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

__all__ = [
    "MAX_SEED",
    "autoreset_mode",
    "positive_int",
    "positive_ints",
    "seed",
    "seeds",
]

MAX_SEED = 2**31 - 1
"""The largest seed the app's widgets offer (any seed in 0..MAX_SEED is accepted here)."""


def _whole(value: Any) -> bool:
    # numpy integers count as whole numbers (an N read from an array is one); bools do not.
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def positive_int(name: str, value: Any) -> int:
    """Return ``value`` as an int if it is a whole number >= 1, else raise a ValueError.

    >>> positive_int("num_envs", np.int64(4))
    4
    >>> positive_int("num_envs", 0)
    Traceback (most recent call last):
    ...
    ValueError: `num_envs` must be a positive whole number, got 0
    """
    if not _whole(value) or value < 1:
        raise ValueError(f"`{name}` must be a positive whole number, got {value!r}")
    return int(value)


def positive_ints(name: str, values: Any) -> list[int]:
    """One whole number or several, each >= 1, as a non-empty list of ints.

    >>> positive_ints("num_envs", [1, np.int64(4)])
    [1, 4]
    """
    values = [values] if _whole(values) else list(values)
    if not values:
        raise ValueError(f"`{name}` must hold at least one value, got {values!r}")
    return [positive_int(name, value) for value in values]


def seed(value: Any, name: str = "seed") -> int:
    """Return ``value`` as an int if it is a whole number in 0..MAX_SEED, else raise.

    >>> seed(7)
    7
    >>> seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: `seed` must be a whole number in 0..2147483647, got -1
    """
    if not _whole(value) or not 0 <= value <= MAX_SEED:
        raise ValueError(f"`{name}` must be a whole number in 0..{MAX_SEED}, got {value!r}")
    return int(value)


def seeds(values: Any) -> list[int]:
    """One seed or several, as a non-empty list of ints.

    >>> seeds(range(3))
    [0, 1, 2]
    """
    values = [values] if _whole(values) else list(values)
    if not values:
        raise ValueError(f"`seeds` must hold at least one seed, got {values!r}")
    return [seed(value) for value in values]


def autoreset_mode(value: AutoresetMode | str) -> AutoresetMode:
    """Accept the mode itself, its name (``"NEXT_STEP"``) or its value (``"NextStep"``).

    >>> autoreset_mode("SAME_STEP") is AutoresetMode.SAME_STEP
    True
    >>> autoreset_mode("NextStep") is AutoresetMode.NEXT_STEP
    True
    """
    if isinstance(value, AutoresetMode):
        return value
    if isinstance(value, str) and value in AutoresetMode.__members__:
        return AutoresetMode[value]
    try:
        return AutoresetMode(value)
    except ValueError:
        names = tuple(AutoresetMode.__members__)
        raise ValueError(f"`autoreset_mode` must be one of {names}, got {value!r}") from None
