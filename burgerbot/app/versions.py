"""Versions of the installed libraries, read live: what the app teaches is what these do."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from functools import cache
from importlib import metadata

__all__ = [
    "SB3_MODULE",
    "installed_version",
    "installed_versions",
    "running_versions",
    "sb3_available",
]

SB3_MODULE = "stable_baselines3"


def installed_version(package: str) -> str | None:
    """The installed version of the distribution ``package``, or None when it is absent.

    >>> installed_version("gymnasium") is not None
    True
    >>> installed_version("no-such-package-here") is None
    True
    """
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def installed_versions(packages: Sequence[str] = ("gymnasium", "numpy", "streamlit")) -> dict:
    """``{package: version or None}`` for each of ``packages``, in order."""
    return {name: installed_version(name) for name in packages}


@cache
def running_versions() -> dict:
    """`installed_versions` read once per process: the libraries this server has imported.

    A library upgraded while the server runs is not the one its pages use until a restart, so
    the first reading stays true (and each page no longer scans the installed packages).
    """
    return installed_versions()


def sb3_available() -> bool:
    """True when ``stable_baselines3`` can be imported (checked without importing torch)."""
    try:
        return importlib.util.find_spec(SB3_MODULE) is not None
    except (ImportError, ValueError):
        return False
