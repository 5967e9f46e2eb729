"""Exact Poisson intervals and mean ± z standard errors (`burgerbot.statistics`)."""

from __future__ import annotations

import doctest
import math

import pytest

from burgerbot import statistics
from burgerbot.statistics import (
    mean_interval,
    poisson_interval,
    poisson_rate_interval,
    poisson_zero_chance,
)


@pytest.mark.parametrize(
    ("count", "low", "high"),
    [  # Garwood intervals, from the chi-square quantiles (scipy.stats.chi2.ppf)
        (0, 0.0, 3.688879),
        (1, 0.025318, 5.571643),
        (2, 0.242209, 7.224688),
        (10, 4.795389, 18.390356),
        (100, 81.363991, 121.626794),
        (1000, 938.973018, 1063.952136),
    ],
)
def test_poisson_interval_is_garwoods(count, low, high):
    got_low, got_high = poisson_interval(count)
    assert got_low == pytest.approx(low, abs=1e-5)
    assert got_high == pytest.approx(high, rel=1e-6)


def test_poisson_interval_checks_its_arguments_and_widens_with_confidence():
    assert poisson_interval(5, 0.99)[1] > poisson_interval(5, 0.95)[1]
    assert poisson_interval(5, 0.99)[0] < poisson_interval(5, 0.95)[0]
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="count"):
            poisson_interval(bad)
    with pytest.raises(ValueError, match="confidence"):
        poisson_interval(3, 1.0)


def test_poisson_rate_interval_divides_by_the_exposure():
    assert poisson_rate_interval(27, 1_000_000) == tuple(
        x / 1_000_000 for x in poisson_interval(27)
    )
    low, high = poisson_rate_interval(3, 3)
    assert (low, high) == pytest.approx(tuple(x / 3 for x in poisson_interval(3)))
    for bad in (0, -1.0):
        with pytest.raises(ValueError, match="exposure"):
            poisson_rate_interval(3, bad)


def test_poisson_zero_chance_is_exp_of_minus_the_mean():
    assert poisson_zero_chance(0.0) == 1.0
    assert poisson_zero_chance(0.054) == pytest.approx(math.exp(-0.054))
    with pytest.raises(ValueError, match="mean"):
        poisson_zero_chance(-0.1)


def test_mean_interval_is_mean_plus_minus_z_standard_errors():
    half = 1.96 * 10 / math.sqrt(3)  # standard deviation of 180, 190, 200 is 10
    assert mean_interval([180, 190, 200]) == pytest.approx((190, 190 - half, 190 + half))
    assert mean_interval([180, 190, 200], z=1.0) == pytest.approx(
        (190, 190 - 10 / 3**0.5, 190 + 10 / 3**0.5)
    )
    mean, low, high = mean_interval([7.0])
    assert mean == 7.0 and math.isnan(low) and math.isnan(high)
    with pytest.raises(ValueError, match="at least one"):
        mean_interval([])


def test_docstring_examples_run():
    assert doctest.testmod(statistics, optionflags=doctest.ELLIPSIS).failed == 0
