"""`pip install .`, `pip install -e .` and the app's download install the library only."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from burgerbot.app.library_wheel import library_wheel

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.sweep]

# Run from a folder outside the project: only an installed burgerbot can be imported there.
USE_THE_LIBRARY = """
import json
import gymnasium as gym
import numpy as np
import burgerbot
from burgerbot.experiments import goal_scaling

env = gym.make("BurgerBot-v0")
obs, _ = env.reset(seed=0)
envs = gym.make_vec("BurgerBot-v0", num_envs=3, vectorization_mode="vector_entry_point")
batch, _ = envs.reset(seed=0)
envs.close()
frame = goal_scaling([1, 2], steps_per_env=50, seeds=[0], backend="native")
try:
    import burgerbot.app
    has_app = True
except ImportError:
    has_app = False
print(json.dumps({
    "file": burgerbot.__file__,
    "obs": obs.tolist(),
    "batch_shape": list(batch.shape),
    "vector_class": type(envs.unwrapped).__name__ if hasattr(envs, "unwrapped") else "",
    "rows": len(frame),
    "has_app": has_app,
}))
"""


def make_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    return where / "bin" / "python"


def pip_install(python: Path, *args: str) -> None:
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
        check=True,
        timeout=600,
    )


def use_library(python: Path, folder: Path) -> dict:
    script = folder / "use_burgerbot.py"
    script.write_text(USE_THE_LIBRARY)
    out = subprocess.run(
        [str(python), script.name],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def project_copy(target: Path) -> Path:
    """The project's files as a clone would have them (nothing built or cached)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in listed:
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def git(folder: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=test", "-c", "user.email=test@example.com", *args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, check=True).stdout


def check_works(result: dict, installed_under: Path) -> None:
    assert Path(result["file"]).resolve().is_relative_to(installed_under.resolve())
    assert result["obs"] == [0, 0, 1, 1]
    assert result["batch_shape"] == [3, 4]
    assert result["rows"] == 2


def test_pip_install_and_editable_install_give_the_library_only(tmp_path):
    project = project_copy(tmp_path / "project")
    # A repository of its own, as a clone is: what the installs leave must all be ignored.
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "the project as cloned")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    venv = tmp_path / "venv"
    python = make_venv(venv)

    pip_install(python, str(project))
    result = use_library(python, elsewhere)
    check_works(result, venv)
    assert not result["has_app"]  # burgerbot.app, the Streamlit code, is not installed
    site = Path(result["file"]).parent.parent
    assert not (site / "app_pages").exists() and not (site / "tests").exists()
    assert not (site / "burgerbot" / "app").exists()
    assert git(project, "status", "--porcelain") == "", "pip install . left untracked files"

    pip_install(python, "-e", str(project))
    check_works(use_library(python, elsewhere), project)
    assert git(project, "status", "--porcelain") == "", "pip install -e left untracked files"


def test_the_apps_download_installs_into_a_fresh_venv(tmp_path):
    wheel = library_wheel()
    path = tmp_path / wheel.file_name
    path.write_bytes(wheel.data)
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    assert "burgerbot/vector.py" in names
    assert not any(name.startswith("burgerbot/app/") for name in names)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    venv = tmp_path / "venv"
    python = make_venv(venv)
    pip_install(python, str(path))
    result = use_library(python, elsewhere)
    check_works(result, venv)
    assert not result["has_app"]
