"""What a computed sentence tells the learner, read without depending on its wording.

Tests of computed sentences check these facts (the verdict the page stresses, the figures it
quotes) against the data the sentence was built from, and keep at most one wording check per
sentence family, so rewording a sentence breaks one test while a wrong number breaks many.
"""

from __future__ import annotations

import re

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`]+)`")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")


def bold(text: str) -> list[str]:
    """The spans the sentence stresses (``**...**``), in order: where a page puts its verdicts.

    >>> bold("NUM_ENVS=16 needed **more** env-steps; **10.7x** as many")
    ['more', '10.7x']
    """
    return _BOLD.findall(text)


def code_spans(text: str) -> list[str]:
    """The code the sentence names (between backticks), in order: dtypes, shapes, class names.

    >>> code_spans("`float64` from `SyncVectorEnv`; `float32` from `CartPoleVectorEnv`")
    ['float64', 'SyncVectorEnv', 'float32', 'CartPoleVectorEnv']
    """
    return _CODE.findall(text)


def numbers(text: str) -> list[float]:
    """Every figure quoted in ``text``, in order, thousands separators removed (``3,168`` is
    3168.0; ``10.7x`` 10.7; ``NUM_ENVS=16`` 16.0; ``0.00%`` 0.0).

    >>> numbers("NUM_ENVS=1 needed 200 to 3,168 env-steps, **10.7x** in 0.110 s")
    [1.0, 200.0, 3168.0, 10.7, 0.11]
    """
    return [float(m.replace(",", "")) for m in _NUMBER.findall(text)]


def quotes(text: str, *figures: float) -> bool:
    """Whether ``text`` quotes every one of ``figures`` (as `numbers` reads them)."""
    shown = numbers(text)
    return all(any(abs(s - f) <= 1e-9 * max(1.0, abs(f)) for s in shown) for f in figures)
