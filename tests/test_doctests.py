"""The `>>>` examples in the docstrings of burgerbot and tools/ run, and show what they say."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import burgerbot
import tools

MODULES = sorted(m.name for m in pkgutil.walk_packages(burgerbot.__path__, "burgerbot."))
TOOLS = sorted(m.name for m in pkgutil.walk_packages(tools.__path__, "tools."))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", ["burgerbot", *MODULES, "tools", *TOOLS])
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS, verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_library_documents_itself_with_examples():
    library = [m.name for m in pkgutil.iter_modules(burgerbot.__path__) if not m.ispkg]
    finder = doctest.DocTestFinder()
    examples = {
        name: sum(
            len(test.examples) for test in finder.find(importlib.import_module(f"burgerbot.{name}"))
        )
        for name in library
    }
    # The core a learner imports shows how to use it.
    for name in ("env", "vector", "factories", "experiments", "checks"):
        assert examples[name] > 0, f"burgerbot.{name} has no >>> example"
