"""Bad input: malformed and hostile query strings on every page.

Every page must render (defaults, or what it could use) with a visible note whenever it
ignored or changed part of the URL, and never show a traceback. The bulk (more than 50
query strings per page) runs through AppTest, which needs no browser; a sample goes
through the real server and Chromium, raw, including things only a real URL can carry
(`%00`, broken percent-escapes).
"""

from __future__ import annotations

import re
import time
from urllib.parse import quote

import pytest
from app_driver import ROOT, AppPage, AppView, planned_pages
from streamlit.testing.v1 import AppTest

from burgerbot.app.caps import CAPS

PAGES = planned_pages()
ROOT_SCRIPT = str(ROOT / "streamlit_app.py")
NOTE_HEADING = "Some settings were adjusted"
# A run that takes longer than this is a hang, not a slow page.
RUN_TIMEOUT_S = 300

HOSTILE_VALUES = [
    "-1",
    "0",
    "-0",
    "-2147483649",
    "9" * 30,
    str(CAPS.max_envs * 1000),
    "1e9",
    "1e400",
    "1.5",
    "-0.5",
    ".5",
    "",
    " ",
    "abc",
    "NaN",
    "inf",
    "-inf",
    "0x10",
    "1_000",
    "١٢",  # Arabic-Indic digits: int() accepts them, the app must not
    "１２",  # full-width digits
    "½",
    ",",
    ",,,",
    "1,,2",
    "1;2",
    "[1, 2]",
    "null",
    "true",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "**bold** [link](javascript:alert(1))",
    "\x00",
    "1\x002",
    "\u202e4",  # right-to-left override
    "🍔",
    "'; DROP TABLE users; --",
    "../../etc/passwd",
    "{{7*7}}",
    "\n1",
    "\t",
    "9" * 5000,
    "1," * 3000,
    "x" * 20000,
]


def structural_cases(keys: list[str], defaults: dict[str, str]) -> list[list[tuple[str, str]]]:
    """Query strings that are odd in shape rather than in value."""
    first = keys[0]
    return [
        [],
        [("zzz", "1")],
        [(f"unknown{i}", "x") for i in range(200)],
        [("<script>alert(1)</script>", "1")],
        [("", "1")],
        [("ключ", "значение")],
        [(first.upper(), "3")],
        [(key, defaults.get(key, "1")) for key in keys] + [(key, "-5") for key in keys],
        [(first, str(i)) for i in range(100)],
        [(key, "") for key in keys],
        [("embed", "true"), ("embed_options", "show_toolbar")],
        [(key, "9" * 30) for key in keys] + [("zzz", "<b>x</b>")],
    ]


def equivalent(raw: str, used: str) -> bool:
    """Does the page's value say the same as the URL's (same numbers, or same word)?"""

    def canonical(text: str):
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if parts and all(re.fullmatch(r"[+-]?[0-9]{1,30}", part) for part in parts):
            return sorted({int(part) for part in parts})
        return text.strip().lower()

    return canonical(raw) == canonical(used)


def run_page(page: AppPage, query: list[tuple[str, str]]) -> tuple[AppTest, float]:
    app = AppTest.from_file(ROOT_SCRIPT, default_timeout=RUN_TIMEOUT_S)
    for key in dict.fromkeys(key for key, _ in query):
        app.query_params[key] = [value for k, value in query if k == key]
    app.switch_page(page.path)
    start = time.monotonic()
    app.run()
    return app, time.monotonic() - start


def shows_note(app: AppTest) -> bool:
    return any(NOTE_HEADING in str(box.value) for box in [*app.info, *app.warning])


@pytest.fixture(params=PAGES, ids=[page.stem for page in PAGES])
def app_page(request):
    page = request.param
    return page


@pytest.mark.slow
@pytest.mark.sweep
def test_hostile_query_strings_apptest(app_page, report):
    """50+ bad query strings per page: no exception, a note whenever the URL was not used
    as given, only clean values mirrored back, and the values used are valid settings."""
    app, _ = run_page(app_page, [])
    assert not app.exception, [e.value for e in app.exception]
    defaults = dict(app.query_params)
    keys = list(defaults) or ["n"]  # a page without settings still gets them thrown at it
    cases = [[(key, value) for key in keys] for value in HOSTILE_VALUES]
    cases += structural_cases(keys, defaults)
    assert len(cases) >= 50
    failures, seconds = [], []
    for query in cases:
        label = repr(query)[:200]
        app, took = run_page(app_page, query)
        seconds.append(took)
        if app.exception:
            failures.append(f"{label}: exception {app.exception[0].value}")
            continue
        if not app.title:
            failures.append(f"{label}: no title")
        used = dict(app.query_params)
        given = {key: values for key, values in _grouped(query).items()}
        changed = [
            key
            for key, values in given.items()
            if key not in used or not equivalent(values[-1], str(used[key]))
        ]
        if changed and defaults and not shows_note(app):
            failures.append(f"{label}: {changed} were not used as given, and no note says so")
        for key in defaults:
            value = used.get(key, "")
            if isinstance(value, list):
                failures.append(
                    f"{label}: the URL keeps {len(value)} values for {key!r} (the page uses one)"
                )
                continue
            value = str(value)
            if len(value) > 200 or not value.isprintable() or re.search(r"[<>]", value):
                failures.append(f"{label}: mirrors an unclean value back: {key}={value[:60]!r}")
    # The values a hostile URL ended up using are settings the page accepts as they are.
    for value in ("9" * 30, "-1", "abc"):
        app, _ = run_page(app_page, [(key, value) for key in keys])
        used = list(app.query_params.items())
        again, _ = run_page(app_page, [(k, str(v)) for k, v in used])
        if defaults and (shows_note(again) or dict(again.query_params) != dict(used)):
            failures.append(f"{value!r} led to {used}, which is not a clean setting")
    report.record(
        "bad_input_apptest",
        app_page.stem,
        {
            "query_strings": len(cases) + 6,
            "slowest_run_s": round(max(seconds), 2),
            "mean_run_s": round(sum(seconds) / len(seconds), 2),
        },
    )
    assert not failures, "\n".join(failures)


def _grouped(query: list[tuple[str, str]]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for key, value in query:
        grouped.setdefault(key, []).append(value)
    return grouped


# --- The real thing, in Chromium -------------------------------------------------------------

# Each query string packs several kinds of trouble, to keep the number of page loads low.
RAW_QUERIES = [
    # NUL bytes, and markup in values and in a key
    "n=%00&seed=%00%00&steps=1%002&zzz=%3Cscript%3Ealert(1)%3C%2Fscript%3E"
    "&%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E=1",
    # broken percent-escapes, right-to-left override, a path, an emoji
    "n=%ZZ&seed=%&steps=%E0%A4%A&backend=%E2%80%AEcnys&env=..%2F..%2Fetc%2Fpasswd&mode=%F0%9F%8D%94",
    # repeated keys, negative, zero, huge and decimal numbers, very long values
    "n=-1&n=0&n=99999999999999999999&n=1.5&seed=" + "9" * 3000 + "&zzz=" + quote("🍔" * 200),
    # empty keys and values
    "&&&==&n==&=1&seed=&steps",
]


@pytest.mark.browser
@pytest.mark.parametrize("raw", RAW_QUERIES, ids=[f"q{i}" for i in range(len(RAW_QUERIES))])
def test_hostile_urls_in_browser(raw, view: AppView, report):
    """One tab visits every existing page with the raw query string."""
    dialogs = []
    view.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    slowest = 0.0
    for page in PAGES:
        slowest = max(slowest, view.goto(page.url_path, raw))
        view.assert_no_exception()
        assert view.title(), f"{page.file} with ?{raw[:80]} shows no title"
        assert view.page.locator("img[src='x']").count() == 0, "markup from the URL was rendered"
    assert not dialogs, f"a script from the URL ran: {dialogs}"
    assert not view.console_errors, view.console_errors
    report.record("bad_input_browser_slowest_page_s", raw[:40], round(slowest, 2))
