"""The `burgerbot` library as a wheel built from the code this server runs, for download."""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import burgerbot

__all__ = ["LibraryWheel", "library_wheel"]

PACKAGE_DIR = Path(burgerbot.__file__).resolve().parent
PYPROJECT = PACKAGE_DIR.parent / "pyproject.toml"
# What pyproject.toml's package finder leaves out of `pip install .`: the app's own code.
APP_PACKAGE = "app"


@dataclass(frozen=True)
class LibraryWheel:
    """A pure-Python wheel: the file name pip needs, the archive's bytes, the paths inside."""

    file_name: str
    data: bytes
    files: tuple[str, ...]


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def _library_files() -> list[tuple[str, bytes]]:
    files = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = path.relative_to(PACKAGE_DIR)
        if relative.parts[0] == APP_PACKAGE:
            continue
        files.append((f"burgerbot/{relative.as_posix()}", path.read_bytes()))
    return files


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
        *(f"Requires-Dist: {requirement}" for requirement in project["dependencies"]),
    ]
    return "\n".join(lines) + "\n"


@functools.cache
def library_wheel() -> LibraryWheel:
    """Build the wheel once per server process, from the files on disk and pyproject.toml.

    It holds what `pip install .` installs (the library, not `burgerbot.app`), with the same
    name, version and dependencies, so ``pip install <file>`` works without a clone.
    """
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    entries = _library_files()
    entries.append((f"{dist_info}/METADATA", _metadata(project).encode()))
    wheel_text = "Wheel-Version: 1.0\nGenerator: burgerbot.app\nRoot-Is-Purelib: true\n"
    entries.append((f"{dist_info}/WHEEL", (wheel_text + "Tag: py3-none-any\n").encode()))
    record = [f"{path},{_record_hash(data)},{len(data)}" for path, data in entries]
    record.append(f"{dist_info}/RECORD,,")
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries:
            # A fixed date: the same code gives the same bytes.
            archive.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data)
    file_name = f"{name}-{version}-py3-none-any.whl"
    return LibraryWheel(file_name, buffer.getvalue(), tuple(path for path, _ in entries))
