"""What must never reach a learner's eyes: the app's internals and slips of the pen.

Used by the browser tests on every page's prose (Markdown, captions, messages; code blocks
are scripts and may name anything).
"""

from __future__ import annotations

import re

# (what it is, the pattern that finds it)
PATTERNS = [
    ("an environment variable", re.compile(r"\bBURGERBOT_[A-Z0-9_]+")),
    ("Streamlit's machinery", re.compile(r"\bst\.\w+|\bsession[ _]state\b|\bfragments?\b")),
    ("how the page works", re.compile(r"\b(the page|this page) (sends|reruns|caches|keeps)\b")),
    ("how the page works", re.compile(r"\breruns?\b", re.IGNORECASE)),
    # "the the", "Changed since Changed since", "spawn (start method) start method": a word
    # or a phrase said twice in a row (a phrase may close a bracket between; "The mask
    # (mask[t, i]...)" names a variable, not a slip)
    # One pattern: a word twice, or a phrase of two or three words twice.
    (
        "a doubled phrase",
        re.compile(r"\b(?:([A-Za-z][\w-]*) \1|([A-Za-z][\w-]*(?: [\w-]+){1,2})\)? \(?\2)\b"),
    ),
    # "1 BurgerBots", "all 1 episodes": a count of one with a plural noun (labels.counted)
    (
        "a plural for one",
        re.compile(r"(?<![\d.,])\b1 (?:BurgerBot|CartPole|env|episode|call|goal|hit|row|step)s\b"),
    ),
]


def internals(text: str) -> list[str]:
    """Each problem found in ``text``: what it is and the words that show it.

    >>> internals("Changed since Changed since gymnasium 1.0; see BURGERBOT_MAX_ENVS.")
    ['an environment variable: BURGERBOT_MAX_ENVS', 'a doubled phrase: Changed since Changed since']
    >>> internals("4 envs give 4 rows per call, at 0.33 ms a call.")
    []
    >>> internals("Steps 1 BurgerBots; all 1 episodes right; 1 env, 21 envs, 0.1 calls.")
    ['a plural for one: 1 BurgerBots', 'a plural for one: 1 episodes']
    """
    return [
        f"{what}: {match.group(0)}"
        for what, pattern in PATTERNS
        for match in pattern.finditer(text)
    ]
