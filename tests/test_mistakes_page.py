"""The "Shapes, dtypes and common mistakes" page through the router, via AppTest."""

from __future__ import annotations

import multiprocessing
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/mistakes.py"
N_KEY = "mistakes_n"

# Each mistake's captured error: the type shown in st.error, a phrase of the message in st.code.
EXPECTED_ERRORS = [
    ("TypeError", "missing 1 required positional argument"),
    ("AttributeError", "no attribute 'metadata'"),
    ("IndexError", "too many indices"),
    ("TypeError", "only 0-dimensional arrays"),
    ("AssertionError", "invalid"),
    ("ValueError", "must have shape"),
    ("KeyError", "'final_observation'"),
    ("TypeError", "does not support the context manager protocol"),
]


def open_page(query: dict[str, str] | None = None) -> AppTest:
    """Open the page through the router, as a link to it (with ``query``) would.

    The first run goes straight to this page: in AppTest the query parameters survive
    ``switch_page``, and the home page mirrors its own ``n`` setting in the URL, so a
    first run on the home page would replace the ``n`` under test.
    """
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
    for key, value in (query or {}).items():
        app.query_params[key] = value
    app.switch_page(PAGE_FILE)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def obs_shapes(app: AppTest) -> list[str]:
    return app.dataframe[0].value["obs shape (real reset)"].tolist()


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page()


def test_page_renders_the_table_and_every_mistake(page):
    assert page.title[0].value == "Shapes, dtypes and common mistakes"
    assert page.slider(key=N_KEY).value == 4
    assert obs_shapes(page) == [
        "(4, 4)",
        "(4, 4)",
        "(4,)",
        "cell (4, 2), heading (4,), sensor (4,)",
        "(4, 4)",
    ]
    assert page.dataframe[0].value["obs dtype"].tolist()[:3] == ["int64", "float32", "int64"]
    subheaders = [s.value for s in page.subheader]
    assert [s.split(":")[0] for s in subheaders] == [f"Mistake {i}" for i in range(1, 6)]
    errors, codes = texts(page.error), texts(page.code)
    for error_type, phrase in EXPECTED_ERRORS:
        assert f"**{error_type}**" in errors, error_type
        assert phrase in codes, phrase
    assert "BurgerBot: (4, 4) int64\nCartPole:  (4, 4) float32" in codes
    assert "Some settings were adjusted" not in texts(page.info)
    assert not page.warning


def test_the_async_demo_reports_workers_and_leaves_none(page):
    markdown = texts(page.markdown)
    assert "still running after the crash: **2** (pids" in markdown
    assert markdown.count("still running after the crash: **0**") == 2
    assert "After the page called `envs.close()`: **0**" in markdown
    assert not multiprocessing.active_children()


def test_changing_n_updates_the_table_the_scripts_and_the_url(page):
    page.slider(key=N_KEY).set_value(7).run()
    assert not page.exception
    assert obs_shapes(page)[0] == "(7, 4)" and obs_shapes(page)[2] == "(7,)"
    assert page.query_params["n"] == "7"
    codes = texts(page.code)
    assert "N = 7\n" in codes and "N = 4\n" not in codes
    assert "must have shape (7,)" in codes
    page.slider(key=N_KEY).set_value(1).run()
    assert obs_shapes(page)[0] == "(1, 4)"
    assert page.query_params["n"] == "1"


def test_run_again_starts_new_workers(page):
    def worker_pids() -> str:
        found = re.search(r"after the crash: \*\*2\*\* \(pids ([0-9, ]+)\)", texts(page.markdown))
        assert found
        return found.group(1)

    before = worker_pids()
    page.button(key="mistakes_rerun_async").click().run()
    assert not page.exception, [e.value for e in page.exception]
    assert worker_pids() != before
    assert not multiprocessing.active_children()


def record_captions(app: AppTest) -> list[tuple[str, str]]:
    """Each shared result's caption (when and where it ran) with its exact start time."""
    return [(c.value, c.proto.help) for c in app.caption if "on this server (" in c.value]


def test_results_are_shared_between_visitors_and_say_when_they_ran():
    first = record_captions(open_page())
    second_visitor = open_page()
    second = record_captions(second_visitor)
    assert [text.split(" on this server")[0] for text, _ in second] == [
        "These tables were made",
        "The scripts of sections 2 and 3 (N = 4) ran",
        "This demo ran",
    ]
    assert [when for _, when in second] == [when for _, when in first]
    for text, _ in second:
        assert "just now" not in text and " ago, with Python " in text, text
    second_visitor.button(key="mistakes_rerun_async").click().run()
    assert not second_visitor.exception, [e.value for e in second_visitor.exception]
    after = record_captions(second_visitor)
    assert [when for _, when in after[:2]] == [when for _, when in second[:2]]
    assert after[2][1] != second[2][1]
    assert after[2][0].startswith("This demo ran just now, started by your visit, on this server")
    assert not multiprocessing.active_children()


@pytest.mark.parametrize(
    ("raw", "used", "note"),
    [
        ("abc", 4, "`n=abc` is not a whole number: using 4."),
        ("-1", 1, "`n=-1` is outside 1..64: using 1."),
        ("10000", 64, "`n=10000` is outside 1..64: using 64."),
    ],
)
def test_bad_query_params_show_a_note(raw, used, note):
    app = open_page({"n": raw})
    assert note in texts(app.info)
    assert app.slider(key=N_KEY).value == used
    assert obs_shapes(app)[0] == f"({used}, 4)"
    assert app.query_params["n"] == str(used)


def test_a_good_query_param_is_used_silently():
    app = open_page({"n": "9"})
    assert app.slider(key=N_KEY).value == 9
    assert obs_shapes(app)[2] == "(9,)"
    assert "Some settings were adjusted" not in texts(app.info)


def test_reached_from_the_home_page():
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
    app.run()
    app.switch_page(PAGE_FILE)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.title[0].value == "Shapes, dtypes and common mistakes"
    n = app.slider(key=N_KEY).value  # whatever the URL held, clamped to the slider's range
    assert 1 <= n <= 64 and obs_shapes(app)[0] == f"({n}, 4)"
