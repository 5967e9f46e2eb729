"""The record of when and where a shared live result was computed, and the caption it gives."""

from __future__ import annotations

import doctest
import os
import platform
import socket
import sys
from datetime import UTC, datetime, timedelta

import numpy as np

from burgerbot.app import measured
from burgerbot.app.measured import (
    Measured,
    ThrottledProgress,
    Visit,
    age_text,
    library_versions,
    measure,
)
from burgerbot.app.versions import installed_version

AT = datetime(2026, 3, 4, 15, 42, 10, tzinfo=UTC)


def record(by: str = "", versions=(("gymnasium", "1.4.0"), ("numpy", "2.4.6"))) -> Measured:
    return Measured(AT, 0.9, "box", 2, "3.11.7", versions, by)


def test_another_visitor_reads_the_clock_time_and_the_age_never_just_now():
    visit = Visit("someone-else", AT + timedelta(minutes=3))
    text = record(by="first").caption("Measured", visit=visit, now=AT + timedelta(minutes=3))
    assert text == (
        "Measured on this server (box, 2 cores) at 15:42 UTC, 3 minutes ago, "
        "with Python 3.11.7, gymnasium 1.4.0 and numpy 2.4.6."
    )
    seconds_later = AT + timedelta(seconds=2)
    text = record(by="first").caption(visit=Visit("other", AT), now=seconds_later)
    assert "just now" not in text and "less than a minute ago" in text


def test_the_visitor_whose_run_computed_it_reads_just_now_in_that_run_only():
    same_run = Visit("me", AT - timedelta(seconds=1))  # the run began before the measurement
    text = record(by="me").caption("Measured", visit=same_run, now=AT + timedelta(seconds=1))
    assert text.startswith("Measured just now, started by your visit, on this server (box, 2 ")
    assert "15:42 UTC" in text
    later_run = Visit("me", AT + timedelta(minutes=5))
    text = record(by="me").caption("Measured", visit=later_run, now=AT + timedelta(minutes=5))
    assert "just now" not in text
    assert text.startswith("Measured by your visit on this server (box, 2 cores) at 15:42 UTC")
    assert "5 minutes ago" in text


def test_no_visitor_token_is_never_anyones():
    text = record(by="").caption(visit=Visit("", AT - timedelta(seconds=1)), now=AT)
    assert "just now" not in text and "your visit" not in text


def test_caption_on_another_day_gives_the_date_and_absent_packages_say_so():
    versions = (("stable-baselines3", None),)
    text = record(versions=versions).caption("These checks ran", now=AT + timedelta(days=2))
    assert text == (
        "These checks ran on this server (box, 2 cores) at 2026-03-04 15:42 UTC, 2 days ago, "
        "with Python 3.11.7 and stable-baselines3 (not installed)."
    )
    one_core = Measured(AT, 0.1, "box", 1, "3.12.0", ())
    assert "(box, 1 core)" in one_core.caption(now=AT)
    assert one_core.caption(now=AT).endswith(", with Python 3.12.0.")


def test_detail_and_version_lookup():
    assert record().detail() == "Started 2026-03-04T15:42:10.000+00:00, took 0.90 s."
    assert record().version("numpy") == "2.4.6" and record().version("torch") is None


def test_age_text_counts_whole_units():
    assert age_text(0) == "less than a minute ago"
    assert age_text(59.9) == "less than a minute ago"
    assert age_text(60) == "1 minute ago"
    assert age_text(3599) == "59 minutes ago"
    assert age_text(3600) == "1 hour ago"
    assert age_text(86400 * 3 + 5) == "3 days ago"


def test_library_versions_reads_loaded_modules_then_installed_distributions():
    found = dict(library_versions(["numpy", "gymnasium", "no-such-package-here"]))
    assert found["numpy"] == np.__version__
    assert found["gymnasium"] == installed_version("gymnasium")
    assert found["no-such-package-here"] is None
    # A hyphenated distribution is looked up by its module name once imported.
    assert "no_such_package_here" not in sys.modules


def test_measure_records_when_where_with_what_and_for_whom():
    before = datetime.now(UTC)
    result, made = measure(lambda: 41 + 1, ["numpy"], by="visitor-1")
    after = datetime.now(UTC)
    assert result == 42
    assert before <= made.at <= after and made.at.tzinfo is not None
    assert 0 <= made.seconds <= (after - before).total_seconds()
    assert made.host == socket.gethostname()
    assert 1 <= made.cores <= (os.cpu_count() or 1)
    assert made.python == platform.python_version()
    assert made.versions == (("numpy", np.__version__),) and made.by == "visitor-1"


def test_a_package_imported_by_the_computation_reports_the_version_that_ran():
    _, made = measure(lambda: __import__("json"), ["json"])
    assert made.version("json") == sys.modules["json"].__version__


def test_visit_keeps_one_token_per_session():
    state: dict = {}
    first, second = Visit.begin(state), Visit.begin(state)
    assert first.visitor == second.visitor and len(first.visitor) == 32
    assert Visit.begin({}).visitor != first.visitor
    assert first.started <= second.started


def test_throttled_progress_passes_few_reports_and_always_the_last():
    seen = []
    report = ThrottledProgress(lambda f, m: seen.append((f, m)), updates=10)
    for i in range(1, 1001):
        report(i / 1000, f"step {i}")
    assert len(seen) <= 11 and seen[-1] == (1.0, "step 1000")
    before_last = [fraction for fraction, _ in seen[:-1]]
    gaps = np.diff(before_last)
    assert all(gap >= 0.1 - 1e-9 for gap in gaps)


def test_docstring_examples_run():
    assert doctest.testmod(measured).failed == 0
