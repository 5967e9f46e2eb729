"""One stepper for a vector env's calls: it pages through calls the server has computed.

A Streamlit button's click goes to the server and back, and the browser then redraws the
page's whole tree of blocks. The stepper avoids the wait: the browser holds the views (HTML)
of the calls the server has already computed, and its own buttons (Reset, Step back,
Step once, Step xN, Play/Pause, as a page asks) swap the view in the page, so a click runs
no script at all. A page whose run goes on (``more``) is asked for the next stretch of calls
when fewer than ``low`` are left, or when a click goes past the last call it holds: the
stepper sends one request (a trigger value) and the page answers it in one script run.
Presses that come while it waits add up (every press counts: the stepper goes on to the
call pressed once the answer arrives), and a line under the buttons says what it waits for;
Reset always answers. A request with no answer after 15 s is sent again.

The call a learner has reached is kept in the browser tab, per stepper and per run: a rerun
of the page keeps it, a new run starts at the call the page names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

__all__ = ["BUTTONS", "LOW", "Request", "call_stepper"]

BUTTONS = {
    "reset": "Reset",
    "back": "Step back",
    "step": "Step once",
    "steps": "Step ×10",
    "play": "▶ Play",
    "pause": "⏸ Pause",
}
"""The stepper's buttons by their ``data-call`` attribute, which tests and the benchmark select."""

LOW = 5
"""A stepper whose run goes on asks for more when fewer calls than this are left ahead."""

_HTML = (
    '<div class="bb-stepper">'
    '<div class="bb-stepper-row" role="group" aria-label="Step through the run"></div>'
    '<p class="bb-stepper-status" role="status"></p>'
    '<div class="bb-call-view" aria-live="polite"></div></div>'
)

# Scoped to .bb-stepper and .bb-call-view: the component is mounted in the page's own DOM
# (no shadow root), so its text is the page's text (find in page, screen readers, the
# tests' main-area text).
_CSS = """
.bb-stepper-row { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-bottom: 0.75rem; }
.bb-stepper button {
  font-family: var(--st-font, inherit); font-size: 1rem; line-height: 1.6;
  min-height: 2.5rem; padding: 0.25rem 0.75rem; cursor: pointer;
  color: var(--st-text-color, #31333f); background: var(--st-background-color, #fff);
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
  border-radius: var(--st-button-radius, var(--st-base-radius, 0.5rem));
}
.bb-stepper button:hover:not([aria-disabled="true"]), .bb-stepper button:focus-visible {
  border-color: var(--st-primary-color, #ff4b4b); color: var(--st-primary-color, #ff4b4b);
}
.bb-stepper button[aria-disabled="true"] { opacity: 0.4; cursor: not-allowed; }
.bb-call-view[tabindex]:focus-visible, .bb-call-view div[tabindex]:focus-visible {
  outline: 2px solid var(--st-primary-color, #ff4b4b); outline-offset: 2px;
}
.bb-stepper-status { margin: 0; color: var(--st-text-color, inherit); }
.bb-stepper-status:not(:empty) { margin-bottom: 0.5rem; }
.bb-call-view {
  font-family: var(--st-font, inherit); color: var(--st-text-color, inherit); overflow-x: auto;
}
.bb-call-view h3 { font-size: 1.5rem; font-weight: 600; margin: 0.5rem 0 0.75rem; }
.bb-call-view p { margin: 0 0 1rem; }
.bb-call-view table { border-collapse: collapse; margin: 0 0 1rem; }
.bb-call-view th, .bb-call-view td {
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
  padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; white-space: nowrap;
}
/* A table's last column may be a sentence; on a narrow screen the table scrolls sideways. */
.bb-stepper .bb-call-view td:last-child { white-space: normal; min-width: 14rem; }
.bb-call-view summary { cursor: pointer; margin-bottom: 0.5rem; }
.bb-stepper .bb-call-view details td:last-child { min-width: 0; }
/* Side-by-side tables hold numbers only: each as narrow as its cells, so two fit a row. */
.bb-stepper .bb-call-view .bb-columns td:last-child { min-width: 0; }
.bb-call-view code {
  font-family: var(--st-code-font, monospace); font-size: 0.85em; padding: 0.1em 0.25em;
  background: var(--st-secondary-background-color, #f0f2f6); border-radius: 0.25rem;
}
"""

# The call reached is kept per stepper (Streamlit's key for it) in the tab's memory, so that
# a rerun, which may mount the component again, keeps it; a different run starts at data.at.
# A request is one trigger value; the page's answer is new data (its serial changes), which
# calls this function again.
_JS = """
const reached = (window.__burgerbotStepper = window.__burgerbotStepper || new Map());
const current = (window.__burgerbotStepperData = window.__burgerbotStepperData || new Map());
const WATCHDOG_MS = 15000;

export default function ({ parentElement, data, key, setTriggerValue }) {
  const root = parentElement.querySelector(".bb-stepper");
  const row = root.querySelector(".bb-stepper-row");
  const status = root.querySelector(".bb-stepper-status");
  const view = root.querySelector(".bb-call-view");
  const token = {};
  current.set(key, token);
  const signature = JSON.stringify(data.buttons);
  if (row.dataset.buttons !== signature) {
    // Play turning into Pause is a new button in the same place: the keyboard's focus
    // moves to it instead of falling to the page.
    const focusedAt = [...row.children].indexOf(document.activeElement);
    row.replaceChildren(...data.buttons.map(([name, label, help]) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.call = name;
      button.textContent = label;
      if (help) button.title = help;
      return button;
    }));
    row.dataset.buttons = signature;
    if (focusedAt >= 0) row.children[Math.min(focusedAt, row.children.length - 1)].focus();
  }
  const button = (name) => row.querySelector(`button[data-call="${name}"]`);
  const first = data.first;
  const last = first + data.calls.length - 1;
  const before = reached.get(key);
  const same = before && before.run === data.run;
  let call = same ? Math.max(before.call, data.at) : data.at;
  call = Math.min(Math.max(call, first), last);
  // A call pressed for past those held: presses while the page fetches add to it, and the
  // stepper goes on to it when the answer arrives (every press counts).
  let want = same && before.want > call ? before.want : 0;
  let pending = false;
  const show = () => {
    reached.set(key, { run: data.run, call, want });
    // A fold the learner opened (a chart's data as a table) stays open on the next call.
    const open = new Set(
      [...view.querySelectorAll("details[data-name][open]")].map((d) => d.dataset.name));
    view.innerHTML = data.calls[call - first];
    for (const fold of view.querySelectorAll("details[data-name]")) {
      if (open.has(fold.dataset.name)) fold.open = true;
    }
    // A box whose content is wider than the screen scrolls sideways: by keyboard too, once
    // it takes the focus (Tab to it, then the arrow keys).
    for (const box of [view, ...view.querySelectorAll("div")]) {
      const scrolls = ["auto", "scroll"].includes(getComputedStyle(box).overflowX)
        && box.scrollWidth > box.clientWidth + 1;
      if (scrolls) {
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", "Wide content: scroll sideways with the arrow keys");
      } else if (box.hasAttribute("tabindex")) {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    }
    // aria-disabled rather than disabled: a disabled button drops the keyboard's focus
    // (pressing Play, or Pause, would lose the learner's place).
    const off = (name, disabled) => {
      const b = button(name);
      if (b) b.setAttribute("aria-disabled", disabled ? "true" : "false");
    };
    const end = call >= last && !data.more;
    off("back", call <= first);
    off("step", end);
    off("steps", end);
    off("play", pending);
    off("pause", pending);
    for (const name of data.disabled) off(name, true);
    // What a waiting button waits for, in words (read out by screen readers too).
    status.textContent = !pending ? ""
      : want > last ? `Going to step ${want}: the server is taking the steps…`
      : "Waiting for the server…";
  };
  const ask = (kind, target, force = false) => {
    if (pending && !force) return;
    pending = true;
    show();
    const value = { kind, reached: call, target, run: data.run, serial: data.serial };
    setTriggerValue("request", value);
    // An answer that never comes (a request lost on the way): ask again, once in a while.
    setTimeout(() => {
      if (current.get(key) === token && pending) ask(kind, Math.max(target, want), true);
    }, WATCHDOG_MS);
  };
  const go = (target) => {
    if (target > last) {
      if (data.more) {
        want = Math.max(want, target);
        ask("go", want);
        show();
        return;
      }
      target = last;
    }
    want = 0;
    call = Math.max(first, target);
    show();
    if (data.more && last - call < data.low) ask("more", last + 1);
  };
  const ahead = () => Math.max(call, want);
  const click = {
    reset: () => {
      want = 0;
      if (data.resetHere) go(first);
      else ask("reset", 0, true);  // Reset always answers, even while the page fetches
    },
    back: () => go(call - 1),
    step: () => go(ahead() + 1),
    steps: () => go(ahead() + data.stepTimes),
    play: () => ask("play", call),
    pause: () => ask("pause", call),
  };
  for (const [name] of data.buttons) {
    const b = button(name);
    b.onclick = () => { if (b.getAttribute("aria-disabled") !== "true") click[name](); };
  }
  show();
  if (want > call) go(want);
  else if (data.more && last - call < data.low) ask("more", last + 1);
}
"""

_component = st.components.v2.component(
    "burgerbot.call_stepper", html=_HTML, css=_CSS, js=_JS, isolate_styles=False
)


@dataclass(frozen=True)
class Request:
    """What a stepper asked its page for, in one trigger value.

    ``kind``: "more" (the next stretch; the learner is at ``reached``), "go" (a click went
    past the last call held: show call ``target``), "reset", "play" or "pause".
    """

    kind: str
    reached: int
    target: int


def _request(value: Any) -> Request | None:
    if not isinstance(value, Mapping):
        return None
    try:
        return Request(str(value["kind"]), int(value["reached"]), int(value.get("target", 0)))
    except (KeyError, TypeError, ValueError):
        return None


def call_stepper(
    calls: Sequence[str],
    *,
    run: str,
    key: str,
    first: int = 0,
    at: int = 0,
    more: bool = False,
    serial: int = 0,
    low: int | None = None,
    buttons: Sequence[str] = ("reset", "back", "step"),
    helps: Mapping[str, str] | None = None,
    disabled: Sequence[str] = (),
    step_times: int = 10,
    reset_here: bool = True,
    on_request: Callable[[Request], None] | None = None,
) -> None:
    """Page through ``calls`` (each one call's view, as HTML) in the browser.

    Args:
        calls: The views of calls ``first``, ``first + 1``, ... Trusted HTML made by the
            app's own views (`burgerbot.app.markdown.markdown_html`), never a visitor's text.
        run: Names the run (e.g. its settings and resets): a new name starts at ``at``.
        key: The stepper's Streamlit key; its element has the class ``st-key-<key>``.
        first: The number of the first call held.
        at: The call to show at least (the browser keeps a later one it reached).
        more: The run goes on past the last call held: the stepper asks ``on_request``.
        serial: Changes with every answer to a request, so the browser sees new data.
        low: Ask for more when fewer calls than this are left ahead (`LOW` by default; 0:
            only when a click goes past the last call held).
        buttons: Which of `BUTTONS` to show, in order.
        helps: Tooltips by button.
        disabled: Buttons shown but off (e.g. Step once while playing).
        step_times: The calls one click of Step ×10 moves on.
        reset_here: Reset shows call ``first`` in the browser; otherwise it asks the page.
        on_request: Called with the stepper's `Request` before the script run it starts.
    """
    if not calls:
        raise ValueError("a stepper needs at least one call")
    unknown = set(buttons) - set(BUTTONS)
    if unknown:
        raise ValueError(f"unknown stepper buttons: {sorted(unknown)}")
    helps = helps or {}
    labels = {**BUTTONS, "steps": f"Step ×{step_times}"}
    data = {
        "calls": list(calls),
        "run": run,
        "first": first,
        "at": at,
        "more": more,
        "low": LOW if low is None else low,
        "serial": serial,
        "buttons": [[name, labels[name], helps.get(name, "")] for name in buttons],
        "disabled": list(disabled),
        "stepTimes": step_times,
        "resetHere": reset_here,
    }

    def answer() -> None:
        request = _request((st.session_state[key] or {}).get("request"))
        if request is not None and on_request is not None:
            on_request(request)

    _component(data=data, key=key, on_request_change=answer)
