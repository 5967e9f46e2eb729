"""Opening one page of the app in AppTest, as a visitor following a link to it would.

This is the only test module that reaches into Streamlit's private internals; every other test
goes through the helpers here. What it uses, all checked on Streamlit 1.67.0 (installed
here, and the version requirements-oldest.txt pins): `AppTest._tree` (the element
tree, walked for tab containers, fragments' blocks and widget states), `AppTest._fragment_storage`
(the page's registered fragments, to rerun one as a click inside it would) and
`local_script_runner.RerunData` (patched to queue one fragment id). A Streamlit upgrade that
breaks these breaks only this file.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import partial, wraps
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from streamlit.runtime.scriptrunner import RerunData
from streamlit.testing.v1 import AppTest, local_script_runner

from burgerbot.app.ui import TABS_KEY_PREFIX

ROUTER = Path(__file__).resolve().parent.parent / "streamlit_app.py"


def _blocks(node: Any) -> Any:
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _blocks(child)


def _lazy_keys(app: AppTest) -> dict[str, Any]:
    """The keys of the lazy expanders on the page (charts' tables too), with their open value."""
    return {e.key: True for e in app.expander if e.key}


def open_expanders(app: AppTest) -> AppTest:
    """Open every expander that draws its content only while open (`learning.lazy_expander`),
    every chart's "Data as a table" too, as a learner clicking each one would, and rerun;
    again for any that appear inside them."""
    opened: set[str] = set()
    for _ in range(5):
        keys = {k: v for k, v in _lazy_keys(app).items() if k not in opened}
        if not keys:
            return app
        for key, value in keys.items():
            app.session_state[key] = value
        opened |= set(keys)
        app.run()
        assert not app.exception, [e.value for e in app.exception]
    return app


def open_app_page(
    page_file: str, query: dict[str, str] | None, timeout: float, *, expanders: bool = False
) -> AppTest:
    """Run the router (home page first), then switch to ``page_file`` with ``query`` as its URL.

    ``expanders``: open the expanders that draw their content only while open, as
    `open_expanders` does.

    AppTest keeps the home page's URL settings across ``switch_page`` (a browser does not),
    so they are cleared before the page's own query is set.
    """
    app = AppTest.from_file(str(ROUTER), default_timeout=timeout)
    app.run()
    app.query_params.clear()
    for key, value in (query or {}).items():
        app.query_params[key] = value
    app.switch_page(page_file)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return open_expanders(app) if expanders else app


def skip_predictions(app: AppTest) -> AppTest:
    """Click every "Skip, show me" on the page (a learner who skips the questions), so the
    results that wait for an answer are drawn; returns the app once no skip is left."""
    for _ in range(5):  # a skip can reveal a section that asks (and offers a skip) again
        skips = [b for b in app.button if b.label == "Skip, show me"]
        if not skips:
            break
        for button in skips:
            button.click()
        app.run()
        assert not app.exception, [e.value for e in app.exception]
    return app


def setting_notes(app: AppTest) -> list[str]:
    """The "Some settings were adjusted" notes on the page (other messages aside)."""
    return [i.value for i in app.info if i.value.startswith("**Some settings were adjusted**")]


def texts(elements) -> str:
    """The values of some AppTest elements, one per line."""
    return "\n".join(str(e.value) for e in elements)


# The wording of the prediction check (`learning.check_prediction`) and of the sidebar's score
# (`learning` tally) is read here, once, so that page tests compare what was predicted and what
# the live run gave instead of each matching the sentences.
_RIGHT = re.compile(r"\*\*Your prediction was right:\*\* (.+?)\.(?: |$)", re.S)
_WRONG = re.compile(
    r"\*\*You predicted (.+?); (?:the live run|the recorded run|these checks) gave (.+?)\.\*\*",
    re.S,
)
_SCORE = re.compile(r"Predictions: (\d+) made, (\d+) of (\d+) checked right")


def prediction_checks(app: AppTest) -> list[tuple[str, str]]:
    """Each locked-in prediction the page checked, as (what the learner predicted, what the
    live run gave): the two are equal when the page said the prediction was right."""
    checks = []
    for element in app.success:
        if match := _RIGHT.match(element.value):
            checks.append((match.group(1), match.group(1)))
    for element in app.warning:
        if match := _WRONG.match(element.value):
            checks.append((match.group(1), match.group(2)))
    return checks


def invites_prediction(app: AppTest) -> bool:
    """Whether the page's check still waits for a locked-in prediction (and says so)."""
    return "Lock in a prediction above" in texts(app.caption)


def prediction_score(app: AppTest) -> tuple[int, int, int]:
    """The sidebar's score: (predictions made, checked right, checked); zeros before any."""
    if "Predictions: none yet" in texts(app.sidebar.caption):
        return 0, 0, 0
    match = _SCORE.search(texts(app.sidebar.caption))
    assert match, texts(app.sidebar.caption)
    made, right, checked = (int(g) for g in match.groups())
    return made, right, checked


def rerun_fragment(
    app: AppTest, monkeypatch: pytest.MonkeyPatch, name: str | None = None
) -> AppTest:
    """Run ``app`` as a browser does after a widget inside one of the page's own fragments
    changed: the page's only one, or the one whose function is called ``name``.

    The lazy expanders' (charts' tables too) and tabs' fragments do not count.
    """
    # AppTest has no public way to name its fragments: they are told apart by their function.
    helpers = {"_lazy_expander", "_lazy_tabs"}
    (fragment_id,) = [
        fragment_id
        for fragment_id, fragment in app._fragment_storage._fragments.items()
        if not helpers & _closure_names(fragment)
        and (name is None or name in _closure_names(fragment))
    ]
    return _run_fragment(app, monkeypatch, fragment_id)


def _run_fragment(app: AppTest, monkeypatch: pytest.MonkeyPatch, fragment_id: str) -> AppTest:
    with monkeypatch.context() as patch:
        patch.setattr(
            local_script_runner, "RerunData", partial(RerunData, fragment_id_queue=[fragment_id])
        )
        app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def open_lazy_expander(app: AppTest, monkeypatch: pytest.MonkeyPatch, label: str) -> AppTest:
    """Open the lazy expander labelled ``label`` (`learning.lazy_expander`) as a click in a browser
    does: the click reruns that expander's own fragment, and nothing else.

    The fragment redraws with the arguments of the run that last drew it: a page that draws
    the expander outside the fragment a step click reruns shows what the last full run knew.
    """
    (expander,) = [e for e in app.expander if e.label == label]
    app.session_state[expander.key] = True
    (fragment_id,) = [
        fragment_id
        for fragment_id, fragment in app._fragment_storage._fragments.items()
        if "_lazy_expander" in _closure_names(fragment) and label in _closure_args(fragment)
    ]
    return _run_fragment(app, monkeypatch, fragment_id)


def _closure_args(function: Callable[..., Any]) -> list[Any]:
    """The positional arguments a fragment was last called with (kept in its closure)."""
    found: list[Any] = []
    for cell in function.__closure__ or ():
        with contextlib.suppress(ValueError):  # an empty cell has no contents
            if isinstance(cell.cell_contents, tuple):
                found.extend(cell.cell_contents)
    return found


def _closure_names(function: Callable[..., Any]) -> set[str]:
    names = set()
    for cell in function.__closure__ or ():
        with contextlib.suppress(ValueError):  # an empty cell has no contents
            names.add(getattr(cell.cell_contents, "__name__", ""))
    return names


def counted(function: Callable[..., Any], name: str, calls: Counter) -> Callable[..., Any]:
    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return function(*args, **kwargs)

    return wrapper


@contextlib.contextmanager
def page_calls(page_file: str, names: Iterable[str]) -> Iterator[Counter]:
    """Count the calls of the functions ``names`` that the page ``page_file`` defines, in the
    script runs started meanwhile (full runs and fragment runs alike).

    A page is a script, not a module: each full run defines its functions anew, so they cannot
    be patched beforehand. Each script run has a thread of its own, and a trace function set
    for new threads is told of every call there (it traces no lines: it returns None).
    """
    wanted = set(names)
    calls: Counter = Counter()

    def trace(frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        if code.co_name in wanted and code.co_filename.endswith(page_file):
            calls[code.co_name] += 1

    previous = threading.gettrace()
    threading.settrace(trace)
    try:
        yield calls
    finally:
        threading.settrace(previous)


def page_function(app: AppTest, page_file: str, name: str) -> Callable[..., Any]:
    """The function ``name`` as the page ``page_file`` defined it in its latest full run.

    A page is a script, not a module to import: its functions are reached through its own
    fragment (`st.fragment`), whose function keeps the page's globals.
    """
    for fragment in app._fragment_storage._fragments.values():
        for cell in fragment.__closure__ or ():
            with contextlib.suppress(ValueError):  # an empty cell has no contents
                page = getattr(cell.cell_contents, "__globals__", {})
                if page.get("__file__", "").endswith(page_file) and name in page:
                    return page[name]
    raise AssertionError(f"no fragment of {page_file} sees a function {name!r}")


def markdown_tables(text: str) -> list[Any]:
    """Every Markdown pipe table in ``text``, as a DataFrame of its cells' text, in order.

    Example:
        >>> [t.to_dict("list") for t in markdown_tables("x\\n\\n| a | b |\\n|---|---|\\n| 1 | y |")]
        [{'a': ['1'], 'b': ['y']}]
    """
    import pandas as pd

    tables, rows = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
            rows.append([cell.strip().replace("\\|", "|") for cell in cells])
        elif rows:
            header, _rule, *body = rows
            tables.append(pd.DataFrame(body, columns=header))
            rows = []
    return tables


def component_data(app: AppTest, key: str) -> dict[str, Any]:
    """The data a page handed the custom component keyed ``key`` (`call_stepper`), parsed.

    AppTest runs no JavaScript: what the browser would show is checked from this data, and
    the browser tests click the component itself.
    """
    import json

    for node in _blocks(app._tree):
        proto = getattr(node, "proto", None)
        if getattr(node, "key", None) == key and proto is not None and proto.HasField("json"):
            return json.loads(proto.json)
    raise AssertionError(f"no component keyed {key!r} on the page")


def html_tables(text: str) -> list[Any]:
    """Every table in the HTML ``text``, as a DataFrame of its cells' text, in order.

    Example:
        >>> text = "<table><tr><th>a</th></tr><tr><td>1 <b>x</b></td></tr></table>"
        >>> [t.to_dict("list") for t in html_tables(text)]
        [{'a': ['1 x']}]
    """
    from html.parser import HTMLParser

    import pandas as pd

    tables: list[list[list[str]]] = []

    class Cells(HTMLParser):
        def handle_starttag(self, tag: str, attrs: Any) -> None:
            if tag == "table":
                tables.append([])
            elif tag == "tr":
                tables[-1].append([])
            elif tag in ("td", "th"):
                tables[-1][-1].append("")

        def handle_data(self, data: str) -> None:
            if tables and tables[-1] and tables[-1][-1]:
                tables[-1][-1][-1] += data

    Cells().feed(text)
    # markdown-it puts a newline between a row's cells: only a cell's own text counts.
    tables = [[[cell.strip() for cell in row] for row in table] for table in tables]
    return [pd.DataFrame(body, columns=header) for header, *body in tables]


def html_text(text: str) -> str:
    """The text of an HTML fragment, without its tags (entities decoded)."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", text)).strip()


_UNRENDERED = re.compile(r"\*\*|`[^`\n]+`|\]\(")


def unrendered_markdown(html: str) -> list[str]:
    """Markdown left as plain text in ``html``, as a learner would read it: bold marks (``**``),
    a backtick pair, a link's ``](``. The text of code elements does not count (it may hold
    anything).

    Example:
        >>> unrendered_markdown("<p>ends: [auto-reset](glossary#autoreset), **done**</p>")
        ['](', '**', '**']
        >>> unrendered_markdown('<p><a href="g#x">x</a> <code>a**b</code> <strong>y</strong></p>')
        []
    """
    text = re.sub(r"<(code|pre|style|script)\b[^>]*>.*?</\1>", " ", html, flags=re.S | re.I)
    return _UNRENDERED.findall(html_text(text))


def component_texts(app: AppTest) -> list[str]:
    """Every string the page's last run handed a custom component (its views' HTML)."""
    import json

    def strings(value: Any) -> Iterator[str]:
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for item in value.values():
                yield from strings(item)
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)

    found: list[str] = []
    for node in _blocks(app._tree):
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "HasField") and _has_json(proto):
            found.extend(strings(json.loads(proto.json)))
    return found


def _has_json(proto: Any) -> bool:
    try:
        return proto.HasField("json")
    except ValueError:  # a message without that field
        return False


def live_view_html(app: AppTest, key: str = "batch_shapes_live") -> str:
    """The view (HTML) a stepper shows first after a run (`call_stepper`: the call ``at``)."""
    data = component_data(app, key)
    return data["calls"][data["at"] - data["first"]]


def live_heading(app: AppTest, key: str = "batch_shapes_live") -> str:
    """The heading of a live view ("Latest call: ...")."""
    match = re.search(r"<h2>(.*?)</h2>", live_view_html(app, key))
    if match is None:
        raise AssertionError("no live view heading on the page")
    return html_text(match.group(1))


def stepper_request(
    app: AppTest,
    key: str,
    kind: str,
    reached: int | None = None,
    target: int = 0,
    *,
    fragment: bool = True,
) -> AppTest:
    """Send what the stepper keyed ``key`` sends when it asks its page for something
    (`burgerbot.app.call_stepper.Request`), and run its fragment as the browser would
    (``fragment=False``: the whole page, as AppTest's own ``run()``).

    ``reached``: the call the browser shows (by default the one the page last named).
    Checked on Streamlit 1.67: a trigger value is one widget state, keyed by the
    component's id and ``events`` (``bidi_component.main._make_trigger_id``).
    """
    import json

    from streamlit.components.v2.bidi_component.main import _make_trigger_id
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    data = component_data(app, key)
    reached = data["at"] if reached is None else reached
    (proto,) = [
        node.proto
        for node in _blocks(app._tree)
        if getattr(node, "key", None) == key and getattr(node, "proto", None) is not None
    ]
    value = {"kind": kind, "reached": reached, "target": target, "run": data["run"]}
    trigger = WidgetState(
        id=_make_trigger_id(proto.id, "events"),
        json_trigger_value=json.dumps([{"event": "request", "value": value}]),
    )
    states = app._tree.get_widget_states

    def with_trigger() -> Any:
        widgets = states()
        widgets.widgets.append(trigger)
        return widgets

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(app._tree, "get_widget_states", with_trigger)
        if fragment:
            return rerun_fragment(app, patch)
        app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def open_tab(app: AppTest, key: str, label: str) -> AppTest:
    """Choose the tab ``label`` of the lazy tabs ``key`` (`ui.lazy_tabs`), as a click would."""
    app.session_state[key] = label
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def tab_texts(app: AppTest, key: str, labels: list[str], what: str = "markdown") -> str:
    """The ``what`` elements' values (Markdown by default) of each tab in ``labels``, opened
    one after another; the first of ``labels`` is open again afterwards."""
    found = []
    for label in [*labels[1:], labels[0]]:
        open_tab(app, key, label)
        found.append(texts(getattr(app, what)))
    return "\n".join(found)


def lazy_tab_sets(app: AppTest) -> dict[str, list[str]]:
    """Each set of lazy tabs on the page (`ui.lazy_tabs`): its key and its tabs' labels."""
    found = {}
    for block in _blocks(app._tree):
        if getattr(block, "type", None) == "tab_container":
            match = re.search(rf"-({TABS_KEY_PREFIX}\w+)$", block.proto.id)
            if match:
                found[match.group(1)] = [tab.label for tab in block.children.values()]
    return found


def every_tab(app: AppTest):
    """Yield ``app`` once per tab of the page's lazy tabs, that tab open (and its lazy
    expanders too), as a learner clicking through them would; the first tabs are open again
    at the end."""
    yield open_expanders(app)
    for key, labels in lazy_tab_sets(app).items():
        for label in labels[1:]:
            yield open_expanders(open_tab(app, key, label))
        open_tab(app, key, labels[0])


def across_tabs(app: AppTest, what: Callable[[AppTest], Any]) -> list[Any]:
    """``what(view)`` for each view `every_tab` opens, in order."""
    return [what(view) for view in every_tab(app)]


def tabs_text(app: AppTest, kind: str) -> str:
    """The values of every ``kind`` element ("error", "code", ...) of every lazy tab."""
    return "\n".join(across_tabs(app, lambda view: texts(getattr(view, kind))))
