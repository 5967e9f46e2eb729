"""Count the test assertions that look for prose: string literals of 20+ characters used in an
``in`` / ``not in`` comparison inside an ``assert`` (issue 20, item 6).

Such assertions break when a sentence is reworded and pass when a number in it is wrong; tests
should check computed sentences through the data they are built from (tests/sentence_facts.py).

Usage: ``python -m tools.wording_asserts [-v] [PATH_PART]`` from the project's root: the count
per test file, most first, and the total; ``-v`` lists each assertion (of files whose path
contains PATH_PART, if given).
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

MIN_LENGTH = 20


def long_substring_asserts(path: Path) -> list[tuple[int, str]]:
    """(line, the first long literal) of each such assertion in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Assert):
            continue
        for compare in ast.walk(node.test):
            if not isinstance(compare, ast.Compare):
                continue
            if not any(isinstance(op, (ast.In, ast.NotIn)) for op in compare.ops):
                continue
            literals = [
                c.value
                for operand in (compare.left, *compare.comparators)
                for c in ast.walk(operand)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
                if len(c.value) >= MIN_LENGTH
            ]
            if literals:  # each such comparison counts, even several in one assert
                found.append((node.lineno, literals[0]))
    return found


def main(argv: list[str]) -> None:
    verbose = "-v" in argv
    only = next((a for a in argv if a != "-v"), "")
    counts: Counter[str] = Counter()
    for path in sorted(Path("tests").rglob("*.py")):
        for line, literal in long_substring_asserts(path):
            counts[str(path)] += 1
            if verbose and only in str(path):
                print(f"{path}:{line} {literal[:60]!r}")
    for name, count in counts.most_common():
        print(count, name)
    print("TOTAL", sum(counts.values()))


if __name__ == "__main__":
    main(sys.argv[1:])
