"""The version ranges in requirements.txt are the ones CI tests: the newest releases they admit
(the main run) and the oldest (requirements-oldest.txt, a run of its own in `.ci/run`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def requirements(name: str) -> dict[str, Requirement]:
    lines = (ROOT / name).read_text().splitlines()
    found = [Requirement(line.split("#")[0]) for line in lines if line.split("#")[0].strip()]
    return {req.name.lower(): req for req in found}


def lower_bound(req: Requirement) -> Version:
    (bound,) = [Version(spec.version) for spec in req.specifier if spec.operator == ">="]
    return bound


def test_every_app_requirement_has_a_tested_oldest_release():
    app, oldest = requirements("requirements.txt"), requirements("requirements-oldest.txt")
    assert set(oldest) == set(app)
    for name, req in app.items():
        (pin,) = [Version(spec.version) for spec in oldest[name].specifier]
        assert pin == lower_bound(req), f"{name}: oldest {pin}, requirements.txt {req}"
        assert req.specifier.contains(pin), f"{name}: {pin} is outside {req.specifier}"


def test_ci_runs_the_tests_against_the_oldest_releases():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "-c requirements-oldest.txt" in ci


def test_the_librarys_dependencies_match_the_apps_bounds():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    library = {req.name.lower(): req for req in map(Requirement, project["dependencies"])}
    app = requirements("requirements.txt")
    assert set(library) == {"gymnasium", "numpy", "pandas"}
    for name, req in library.items():
        assert req.specifier == app[name].specifier, f"{name}: {req} vs {app[name]}"
