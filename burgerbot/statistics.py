"""Intervals for counts and means: exact Poisson (Garwood) intervals and mean ± z standard errors.

Rare events such as a random BurgerBot reaching the goal are Poisson counts: a run that saw
none still tells you something, and an exact interval says how much. Plentiful counts (finished
episodes) are summarised by their mean over seeds with a normal-approximation interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

__all__ = ["mean_interval", "poisson_interval", "poisson_rate_interval", "poisson_zero_chance"]


def _lower_regularized_gamma(a: float, x: float) -> float:
    """P(a, x), the regularized lower incomplete gamma function (Numerical Recipes 6.2)."""
    if x <= 0:
        return 0.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:  # series
        term = total = 1.0 / a
        denominator = a
        for _ in range(100_000):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return min(1.0, total * math.exp(log_front))
    # continued fraction for Q(a, x) (modified Lentz)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return max(0.0, 1.0 - math.exp(log_front) * h)


def _solve_increasing(f: Callable[[float], float], target: float, high: float) -> float:
    """The x in [0, high] where the increasing function f reaches target (bisection)."""
    low = 0.0
    for _ in range(200):
        middle = (low + high) / 2
        if f(middle) < target:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


def poisson_interval(count: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Garwood) interval for the mean of a Poisson count that came out as ``count``.

    The lower end is the mean under which a count of at least ``count`` has probability
    (1 - confidence) / 2, the upper end the mean under which at most ``count`` has it.

    Args:
        count: The observed count, a whole number >= 0.
        confidence: The interval's coverage, strictly between 0 and 1.

    Returns:
        ``(low, high)``; ``low`` is 0 when ``count`` is 0.

    Raises:
        ValueError: If ``count`` is not a whole number >= 0 or ``confidence`` is not in (0, 1).

    Example:
        >>> [round(x, 4) for x in poisson_interval(0)]
        [0.0, 3.6889]
        >>> [round(x, 4) for x in poisson_interval(10)]
        [4.7954, 18.3904]
    """
    if isinstance(count, bool) or int(count) != count or count < 0:
        raise ValueError(f"`count` must be a whole number >= 0, got {count!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"`confidence` must lie strictly between 0 and 1, got {confidence!r}")
    count = int(count)
    tail = (1 - confidence) / 2
    high_bound = count + 20 + 20 * math.sqrt(count + 1)
    # P(X >= k; mean) = P(k, mean); P(X <= k; mean) = 1 - P(k + 1, mean).
    upper = _solve_increasing(
        lambda m: _lower_regularized_gamma(count + 1, m), 1 - tail, high_bound
    )
    if count == 0:
        return 0.0, upper
    lower = _solve_increasing(lambda m: _lower_regularized_gamma(count, m), tail, high_bound)
    return lower, upper


def poisson_rate_interval(
    count: int, exposure: float, confidence: float = 0.95
) -> tuple[float, float]:
    """Exact interval of a rate: `poisson_interval` of ``count`` divided by ``exposure``.

    ``exposure`` is what the count was collected over: env-steps for goals per env-step,
    or the number of runs for the mean count per run.

    Example:
        >>> [round(x, 3) for x in poisson_rate_interval(0, exposure=10)]
        [0.0, 0.369]
    """
    if not exposure > 0:
        raise ValueError(f"`exposure` must be > 0, got {exposure!r}")
    low, high = poisson_interval(count, confidence)
    return low / exposure, high / exposure


def poisson_zero_chance(mean: float) -> float:
    """The chance that a Poisson count with this ``mean`` comes out as 0: exp(-mean).

    Example:
        >>> round(poisson_zero_chance(0.05), 3)
        0.951
    """
    if mean < 0:
        raise ValueError(f"`mean` must be >= 0, got {mean!r}")
    return math.exp(-mean)


def mean_interval(values: Iterable[float], z: float = 1.96) -> tuple[float, float, float]:
    """The mean of ``values`` and its normal-approximation interval: mean ± z standard errors.

    The standard error is the sample standard deviation (ddof=1) over sqrt(n). With a single
    value there is no spread to estimate, so both ends are NaN.

    Args:
        values: At least one number (e.g. one count per seed).
        z: Standard errors on each side; 1.96 gives about 95% for a roughly normal mean.

    Returns:
        ``(mean, low, high)``.

    Example:
        >>> [round(x, 2) for x in mean_interval([180, 190, 200])]
        [190.0, 178.68, 201.32]
        >>> mean_interval([5.0])
        (5.0, nan, nan)
    """
    array = np.asarray(list(values), dtype=float)
    if array.size == 0:
        raise ValueError("`values` must hold at least one number")
    mean = float(array.mean())
    if array.size == 1:
        return mean, math.nan, math.nan
    half = z * float(array.std(ddof=1)) / math.sqrt(array.size)
    return mean, mean - half, mean + half
