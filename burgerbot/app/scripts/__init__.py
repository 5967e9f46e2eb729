"""Self-contained scripts equivalent to what a page shows, one module per page; tests run them.

Every Python block a page shows is one of three kinds, told apart by its first line so that a
learner sees it too (and `tests/shown_scripts.py` runs each the matching way):

- a whole script, which runs when saved to a file and run with ``python file.py``;
- a whole script that fails on purpose, whose first line is `fails_header` (the test runs it
  and checks the error it names);
- a fragment of a script shown beside it, whose first line is `fragment_header`.
"""

from __future__ import annotations

import re

__all__ = [
    "FAILS_MARK",
    "FRAGMENT_MARK",
    "LESSON_MAKE_ENV",
    "expected_error",
    "fails_header",
    "fragment_header",
    "is_fragment",
]

LESSON_MAKE_ENV = """def make_env(seed):
    def thunk():  # the zero-argument function a vector env calls
        env = BurgerBotEnv()
        env.reset(seed=seed)
        return env

    return thunk
"""
"""The lesson's factory, as the scripts that build BurgerBots from it define it (each script
imports ``BurgerBotEnv`` itself)."""

FRAGMENT_MARK = "# Fragment of "
FAILS_MARK = "# This script fails on purpose with "


def fragment_header(of: str) -> str:
    """The first line of a fragment: which whole script it is part of.

    >>> fragment_header("the auto-reset script")
    '# Fragment of the auto-reset script (not a whole script: run that one)\\n'
    """
    return f"{FRAGMENT_MARK}{of} (not a whole script: run that one)\n"


def fails_header(error: str) -> str:
    """The first line of a script that stops with ``error`` on purpose (an exception's name).

    >>> fails_header("TypeError")
    '# This script fails on purpose with TypeError: run it to see the error\\n'
    """
    return f"{FAILS_MARK}{error}: run it to see the error\n"


def is_fragment(code: str) -> bool:
    """Whether ``code`` is labelled as a fragment of another script."""
    return code.startswith(FRAGMENT_MARK)


def expected_error(code: str) -> str | None:
    """The exception a script says it stops with, or None for a script that should succeed.

    >>> expected_error(fails_header("ValueError") + "raise ValueError"), expected_error("1")
    ('ValueError', None)
    """
    if not code.startswith(FAILS_MARK):
        return None
    match = re.match(re.escape(FAILS_MARK) + r"([A-Za-z_][\w.]*)", code)
    return match.group(1) if match else None
