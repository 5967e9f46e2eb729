"""A shown script as a Jupyter notebook (nbformat 4.5 JSON), for learners who work in Jupyter.

Built by hand (the format is small and stable); the tests check every notebook with
nbformat's own validator and run its cells.
"""

from __future__ import annotations

import hashlib
import json

__all__ = ["script_notebook"]


def _cell_id(text: str, index: int) -> str:
    return hashlib.sha1(f"{index}:{text}".encode()).hexdigest()[:12]


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and lines[-1].endswith("\n"):
        lines[-1] = lines[-1][:-1]
    return lines


def script_notebook(code: str, title: str) -> str:
    """``code`` as a notebook: a title cell, then the script as one code cell.

    The script runs unchanged in a notebook: ``__name__`` is ``"__main__"`` in a Jupyter
    kernel, so a script's ``if __name__ == "__main__":`` block runs too.

    Example:
        >>> notebook = json.loads(script_notebook("print(1)", "One"))
        >>> [cell["cell_type"] for cell in notebook["cells"]], notebook["nbformat"]
        (['markdown', 'code'], 4)
    """
    intro = (
        f"# {title}\n\n"
        "From the BurgerBot vector-env app. Needs gymnasium, numpy and the `burgerbot` "
        "library (download it from the app's sidebar, then `pip install` the file)."
    )
    cells = [
        {
            "cell_type": "markdown",
            "id": _cell_id(intro, 0),
            "metadata": {},
            "source": _lines(intro),
        },
        {
            "cell_type": "code",
            "execution_count": None,
            "id": _cell_id(code, 1),
            "metadata": {},
            "outputs": [],
            "source": _lines(code.rstrip("\n")),
        },
    ]
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(notebook, indent=1) + "\n"
