"""A visitor without a browser: speaks Streamlit's websocket protocol with its own protobufs.

One `StreamlitSession` is one browser tab: it opens pages, keeps the elements the server
sent (by delta path, as the frontend does), and clicks buttons or sets widgets the way the
frontend does (a `rerun_script` BackMsg carrying every current widget value, plus the
fragment id when the widget lives in an `st.fragment`). Dozens of sessions fit in one
asyncio loop, so a load test measures the server rather than dozens of browsers.

Example:
    >>> async def visit(port):  # doctest: +SKIP
    ...     async with StreamlitSession(f"ws://127.0.0.1:{port}") as tab:
    ...         await tab.open("batch_shapes", "backend=native&n=16")
    ...         return (await tab.press("batch_shapes_live", "step")).seconds
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect

__all__ = ["ALERT_FORMATS", "Node", "RunResult", "StreamlitSession", "latest_step"]

# ForwardMsg.script_finished values (ForwardMsg.ScriptFinishedStatus).
FINISHED = 0
COMPILE_ERROR = 1
EARLY_FOR_RERUN = 2
FRAGMENT_FINISHED = 3
ALERT_FORMATS = {1: "error", 2: "warning", 3: "info", 4: "success"}
# Keep at most this many cacheable messages (the frontend evicts old ones too).
CACHE_LIMIT = 2000
RUN_TIMEOUT_S = 120.0
CONNECT_TIMEOUT_S = 15.0


@dataclass
class Node:
    """One element or block the page shows, at its delta path."""

    kind: str  # the Element's type ("button", "heading", ...) or "block"
    proto: Any
    fragment_id: str
    run: int  # the session's run number that last sent it


@dataclass
class RunResult:
    """What one script run (full or fragment) did, seen from the client."""

    seconds: float
    status: int
    exceptions: list[str] = field(default_factory=list)

    @property
    def fragment(self) -> bool:
        return self.status == FRAGMENT_FINISHED

    @property
    def in_page(self) -> bool:
        """The click was answered in the page: nothing was sent, no script ran."""
        return self.status == IN_PAGE


IN_PAGE = -2
"""`RunResult.status` of a stepper click answered in the page (no script run)."""
LOW = 5
"""`burgerbot.app.call_stepper.LOW`, the stepper's default (the page sends its own)."""


def _widget_value(kind: str, proto: Any) -> WidgetState | None:
    """The value the frontend would hold for a widget on first sight or when the server sets
    it (``set_value``), as a WidgetState; None for triggers (buttons) and unknown kinds."""
    state = WidgetState(id=proto.id)
    if kind in ("selectbox", "radio"):
        if proto.set_value and proto.HasField("raw_value"):
            state.string_value = proto.raw_value
        elif proto.HasField("default") and 0 <= proto.default < len(proto.options):
            state.string_value = proto.options[proto.default]
        else:
            return None  # no selection (index=None): the frontend sends nothing either
    elif kind == "number_input":
        present = proto.HasField("value") if proto.set_value else proto.HasField("default")
        if not present:
            return None
        number = proto.value if proto.set_value else proto.default
        if proto.data_type == proto.INT:
            state.int_value = int(number)
        else:
            state.double_value = number
    elif kind in ("text_input", "text_area"):
        if proto.set_value and proto.HasField("value"):
            state.string_value = proto.value
        elif proto.HasField("default"):
            state.string_value = proto.default
        else:
            return None
    elif kind == "checkbox":
        state.bool_value = proto.value if proto.set_value else proto.default
    elif kind == "slider":
        state.double_array_value.data.extend(proto.value if proto.set_value else proto.default)
    elif kind == "multiselect":
        chosen = proto.raw_values if proto.set_value else [proto.options[i] for i in proto.default]
        state.string_array_value.data.extend(chosen)
    else:
        return None
    return state


def latest_step(texts: list[str]) -> int | None:
    """The step number Batch shapes shows ("Latest call: step 3 ..." -> 3, reset -> 0).

    ``texts``: the page's headings, Markdown bodies and live views (a live view's text opens
    with its heading, "Latest call: ...").
    """
    for text in texts:
        text = text.removeprefix("## ")
        if text.startswith("Latest call: reset"):
            return 0
        match = re.match(r"Latest call: step (\d+)", text)
        if match:
            return int(match.group(1))
    return None


def view_text(view: str) -> str:
    """A stepper view's HTML as the text a learner reads (tags stripped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", view))


class StreamlitSession:
    """One browser tab's worth of protocol: a websocket session on a running app."""

    def __init__(self, base_url: str, name: str = "") -> None:
        self.url = base_url.rstrip("/") + "/_stcore/stream"
        self.name = name
        self.ws: ClientConnection | None = None
        self.nodes: dict[tuple[int, ...], Node] = {}
        self.pages: dict[str, str] = {}  # url path ("" for the default page) -> page hash
        self.page_hash = ""
        self.query = ""
        self.exceptions: list[str] = []  # every exception element ever received
        self.messages = 0
        self.connect_retries = 0
        self._widgets: dict[str, WidgetState] = {}
        self._reached: dict[str, tuple[str, int]] = {}  # stepper key -> (its run, its call)
        self._cache: dict[str, ForwardMsg] = {}
        self._run = 0
        self._fragment = ""  # the fragment the current run was asked for
        self._run_exceptions: list[str] = []
        self._finished: asyncio.Queue[int] = asyncio.Queue()
        self._reader: asyncio.Task | None = None

    # --- Connection ----------------------------------------------------------------------

    async def connect(self, attempts: int = 4) -> StreamlitSession:
        """Open the websocket; like the frontend, give up on a slow handshake after 15 s and
        try again (``connect_retries`` counts those)."""
        for attempt in range(attempts):
            try:
                # Subprotocol "streamlit" as the frontend offers; permessage-deflate stays on
                # (websockets' default) as in a browser, and, as in a browser, no pings.
                self.ws = await connect(
                    self.url,
                    subprotocols=["streamlit"],
                    max_size=None,
                    open_timeout=CONNECT_TIMEOUT_S,
                    ping_interval=None,
                )
                break
            except TimeoutError:
                self.connect_retries += 1
                if attempt == attempts - 1:
                    raise
        self._reader = asyncio.create_task(self._read_forever())
        return self

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            # The reader ends with the connection; nothing it raises matters on close.
            with suppress(asyncio.CancelledError, Exception):
                await self._reader
        self.ws = None

    async def __aenter__(self) -> StreamlitSession:
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- Receiving -----------------------------------------------------------------------

    async def _read_forever(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                msg = ForwardMsg()
                msg.ParseFromString(frame)
                self.messages += 1
                self._handle(msg)
        finally:
            self._finished.put_nowait(-1)  # wakes a waiting run: the connection is gone

    def _handle(self, msg: ForwardMsg) -> None:
        if msg.HasField("ref_hash"):  # the server sent a reference to a message we cached
            cached = self._cache.get(msg.ref_hash)
            if cached is None:
                self._record_exception(f"unknown cached message {msg.ref_hash}")
                return
            full = ForwardMsg()
            full.CopyFrom(cached)
            full.metadata.CopyFrom(msg.metadata)
            msg = full
        elif msg.metadata.cacheable and msg.hash:
            if len(self._cache) >= CACHE_LIMIT:
                self._cache.pop(next(iter(self._cache)))
            self._cache[msg.hash] = msg
        kind = msg.WhichOneof("type")
        if kind == "delta":
            self._apply_delta(msg)
        elif kind == "script_finished":
            self._finish(msg)
        elif kind == "navigation":
            self.pages = {p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages}
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "new_session":
            self.page_hash = msg.new_session.page_script_hash or self.page_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "page_not_found":
            self._record_exception(f"page not found: {msg.page_not_found.page_name!r}")
        elif kind == "session_event":
            event = msg.session_event
            if event.HasField("script_compilation_exception"):
                self._record_exception(event.script_compilation_exception.message)
        # Other messages (page config, status, auto_rerun timers, ...) change nothing here:
        # this client never plays, so no fragment reruns on a timer.

    def _apply_delta(self, msg: ForwardMsg) -> None:
        delta = msg.delta
        path = tuple(msg.metadata.delta_path)
        kind = delta.WhichOneof("type")
        if kind == "new_element":
            element = delta.new_element
            element_kind = element.WhichOneof("type") or "empty"
            proto = getattr(element, element_kind)
            self.nodes[path] = Node(element_kind, proto, delta.fragment_id, self._run)
            if element_kind == "exception":
                self._record_exception(f"{proto.type}: {proto.message}")
            widget_id = getattr(proto, "id", "")
            if widget_id and (getattr(proto, "set_value", False) or widget_id not in self._widgets):
                value = _widget_value(element_kind, proto)
                if value is not None:
                    self._widgets[widget_id] = value
        elif kind == "add_block":
            self.nodes[path] = Node("block", delta.add_block, delta.fragment_id, self._run)

    def _finish(self, msg: ForwardMsg) -> None:
        status = msg.script_finished
        if status == FINISHED:  # a full run: what it did not send is gone from the page
            self.nodes = {p: n for p, n in self.nodes.items() if n.run == self._run}
        elif status == FRAGMENT_FINISHED:
            fragments = set(msg.metadata.run.fragment_ids) or {self._fragment}
            self.nodes = {
                p: n
                for p, n in self.nodes.items()
                if n.run == self._run or n.fragment_id not in fragments
            }
        if status != EARLY_FOR_RERUN:
            live = {getattr(n.proto, "id", "") for n in self.nodes.values()}
            self._widgets = {k: v for k, v in self._widgets.items() if k in live}
            self._finished.put_nowait(status)

    def _record_exception(self, text: str) -> None:
        self.exceptions.append(text)
        self._run_exceptions.append(text)

    # --- Sending -------------------------------------------------------------------------

    async def rerun(
        self,
        page_hash: str = "",
        page_name: str = "",
        query: str | None = None,
        widgets: list[WidgetState] | None = None,
        fragment_id: str = "",
        timeout: float = RUN_TIMEOUT_S,
    ) -> RunResult:
        """Ask for a script run and wait until it finishes (a run cut short by another
        rerun does not count)."""
        assert self.ws is not None, "not connected"
        back = BackMsg()
        state = back.rerun_script
        state.query_string = self.query if query is None else query
        state.page_script_hash = page_hash
        state.page_name = page_name
        state.fragment_id = fragment_id
        state.widget_states.widgets.extend(widgets or [])
        state.cached_message_hashes.extend(self._cache)
        while not self._finished.empty():  # left over from runs nobody waited for
            self._finished.get_nowait()
        self._run += 1
        self._fragment = fragment_id
        self._run_exceptions = []
        start = time.monotonic()
        await self.ws.send(back.SerializeToString())
        deadline = start + timeout
        while True:
            left = deadline - time.monotonic()
            status = await asyncio.wait_for(self._finished.get(), max(left, 0.001))
            if status == -1:
                raise ConnectionError(f"{self.name}: the server closed the connection")
            if status != EARLY_FOR_RERUN:
                return RunResult(time.monotonic() - start, status, list(self._run_exceptions))

    async def open(self, page: str = "", query: str = "") -> RunResult:
        """Open a page by its URL path ("" is the default page), as a link with ``?query``."""
        page_hash = self.pages.get(page, "")
        self.query = query
        return await self.rerun(page_hash, "" if page_hash else page, query, [])

    def widget_states(self) -> list[WidgetState]:
        """Every current widget value (buttons hold none between clicks)."""
        return list(self._widgets.values())  # extend() copies them into the message

    def find(self, key: str) -> Node:
        """The element of the widget whose user key is ``key`` (its id ends with ``-key``)."""
        for node in self.nodes.values():
            if str(getattr(node.proto, "id", "")).endswith(f"-{key}"):
                return node
        raise LookupError(f"{self.name}: no widget with key {key!r} on the page")

    def has(self, key: str) -> bool:
        try:
            self.find(key)
        except LookupError:
            return False
        return True

    async def click(self, key: str) -> RunResult:
        """Press a button: a trigger for it, every other widget's value, its fragment id."""
        node = self.find(key)
        if getattr(node.proto, "disabled", False):
            raise RuntimeError(f"{self.name}: button {key!r} is disabled")
        trigger = WidgetState(id=node.proto.id, trigger_value=True)
        widgets = [*self.widget_states(), trigger]
        return await self.rerun(self.page_hash, "", None, widgets, node.fragment_id)

    async def press(self, key: str, call: str = "step") -> RunResult:
        """Press a button of the stepper keyed ``key`` as the browser runs it
        (`burgerbot.app.call_stepper`): a click on a call the page holds sends nothing
        (``seconds`` 0, `RunResult.in_page`); a click past the last call held, or one that
        leaves fewer than ``low`` calls ahead, sends one request, timed like a click."""
        node = self.find(key)
        data, at = self._stepper(key)
        last = data["first"] + len(data["calls"]) - 1
        if call in ("step", "steps", "back"):
            target = at + {"step": 1, "steps": data["stepTimes"], "back": -1}[call]
            if call in data["disabled"] or (target > last and not data["more"]):
                raise RuntimeError(f"{self.name}: stepper button {call!r} is disabled")
            if target <= last:
                self._reached[key] = (data["run"], max(data["first"], target))
                if data["more"] and last - target < data["low"]:
                    return await self._request(node, "more", target, last + 1)
                return RunResult(0.0, IN_PAGE)
            return await self._request(node, "go", at, target)
        if call == "reset" and data["resetHere"]:
            self._reached[key] = (data["run"], data["first"])
            return RunResult(0.0, IN_PAGE)
        return await self._request(node, call, at, 0)

    def _stepper(self, key: str) -> tuple[dict[str, Any], int]:
        """A stepper's data and the call the browser shows (the component's own rule)."""
        data = json.loads(self.find(key).proto.json)
        last = data["first"] + len(data["calls"]) - 1
        run, call = self._reached.get(key, ("", -1))
        call = max(call, data["at"]) if run == data["run"] else data["at"]
        call = min(max(call, data["first"]), last)
        self._reached[key] = (data["run"], call)
        return data, call

    async def _request(self, node: Node, kind: str, reached: int, target: int) -> RunResult:
        """The stepper's one trigger value (``request``), with its fragment id."""
        value = {"kind": kind, "reached": reached, "target": target}
        trigger = WidgetState(
            id=f"$$STREAMLIT_INTERNAL_KEY_{node.proto.id}__events",
            json_trigger_value=json.dumps([{"event": "request", "value": value}]),
        )
        widgets = [*self.widget_states(), trigger]
        return await self.rerun(self.page_hash, "", None, widgets, node.fragment_id)

    async def choose(self, key: str, value: str | int | float) -> RunResult:
        """Set a selectbox or radio (by option text) or a number input, then rerun."""
        node = self.find(key)
        state = WidgetState(id=node.proto.id)
        if node.kind in ("selectbox", "radio"):
            state.string_value = str(value)
        elif node.kind == "number_input" and node.proto.data_type == node.proto.INT:
            state.int_value = int(value)
        elif node.kind == "number_input":
            state.double_value = float(value)
        else:
            raise TypeError(f"{self.name}: cannot set a {node.kind} widget")
        self._widgets[state.id] = state
        return await self.rerun(self.page_hash, "", None, self.widget_states(), node.fragment_id)

    # --- Reading -------------------------------------------------------------------------

    def ordered(self) -> Iterator[Node]:
        """The page's nodes in display order (by delta path)."""
        for path in sorted(self.nodes):
            yield self.nodes[path]

    def texts(self, kind: str) -> list[str]:
        """The bodies of every ``kind`` element ("heading", "markdown", ...), in order."""
        return [n.proto.body for n in self.ordered() if n.kind == kind]

    def live_views(self) -> list[str]:
        """The text of the call every stepper on the page shows (`call_stepper`: the call
        the browser reached), tags stripped."""
        views = []
        for node in self.ordered():
            if node.kind == "bidi_component" and node.proto.json:
                data = json.loads(node.proto.json)
                if isinstance(data, dict) and isinstance(data.get("calls"), list):
                    key = str(node.proto.id).rsplit("-", 1)[-1]
                    _, call = self._stepper(key)
                    view = data["calls"][call - data["first"]]
                    views.append(view_text(view))
        return views

    def alerts(self) -> list[tuple[str, str]]:
        """(format, body) of every st.error/warning/info/success box, in order."""
        return [
            (ALERT_FORMATS.get(n.proto.format, "?"), n.proto.body)
            for n in self.ordered()
            if n.kind == "alert"
        ]
