"""Views of a vector env's calls that change in the browser itself, in one frame.

A Streamlit button's click goes to the server and back, and the browser then redraws the
page's whole tree of blocks (about 3 to 4 times a trivial app's click on a full page, even
inside a fragment). Two components avoid the wait:

- `call_stepper`: a run that is already recorded. The browser gets every call's view at
  once (HTML), and the stepper's Reset, Step back and Step once swap the view in the page; a
  click runs no script at all. The call a learner has reached is kept in the browser tab,
  per stepper and per run: a rerun of the page keeps it, a new run starts at its reset.
- `call_view`: a live run. The browser gets the latest call's view and the next call's,
  which the server has already taken (`BatchRun.prepare`). A click on the page's own Step
  once button shows the next call at once; the button's script run then takes the step on
  the server, which sends the same call as the latest (and prepares the one after).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

__all__ = ["BUTTONS", "call_stepper", "call_view"]

BUTTONS = {"reset": "Reset", "back": "Step back", "step": "Step once"}
"""The stepper's buttons by their ``data-call`` attribute, which tests and the benchmark select."""

_HTML = (
    '<div class="bb-stepper">'
    '<div class="bb-stepper-row" role="group" aria-label="Step through the run">'
    + "".join(
        f'<button type="button" data-call="{name}">{label}</button>'
        for name, label in BUTTONS.items()
    )
    + '</div><div class="bb-call-view" aria-live="polite"></div></div>'
)

# Scoped to .bb-stepper and .bb-call-view: the components are mounted in the page's own DOM
# (no shadow root), so their text is the page's text (find in page, screen readers, the
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
.bb-stepper button:hover:not(:disabled), .bb-stepper button:focus-visible {
  border-color: var(--st-primary-color, #ff4b4b); color: var(--st-primary-color, #ff4b4b);
}
.bb-stepper button:disabled { opacity: 0.4; cursor: not-allowed; }
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
/* The stepper's last column is a sentence; on a narrow screen the table scrolls sideways. */
.bb-stepper .bb-call-view td:last-child { white-space: normal; min-width: 14rem; }
.bb-call-view code {
  font-family: var(--st-code-font, monospace); font-size: 0.85em; padding: 0.1em 0.25em;
  background: var(--st-secondary-background-color, #f0f2f6); border-radius: 0.25rem;
}
"""

# The call reached is kept per stepper (Streamlit's key for it) in the tab's memory, so that
# a rerun, which may mount the component again, keeps it; a different run starts at 0.
_JS = """
const reached = (window.__burgerbotStepper = window.__burgerbotStepper || new Map());

export default function ({ parentElement, data, key }) {
  const root = parentElement.querySelector(".bb-stepper");
  const view = root.querySelector(".bb-call-view");
  const button = (name) => root.querySelector(`button[data-call="${name}"]`);
  const last = data.calls.length - 1;
  const before = reached.get(key);
  let call = before && before.run === data.run ? Math.min(before.call, last) : 0;
  const show = () => {
    reached.set(key, { run: data.run, call });
    view.innerHTML = data.calls[call];
    button("back").disabled = call === 0;
    button("step").disabled = call >= last;
  };
  button("reset").onclick = () => { call = 0; show(); };
  button("back").onclick = () => { if (call > 0) { call -= 1; show(); } };
  button("step").onclick = () => { if (call < last) { call += 1; show(); } };
  button("reset").title = data.resetHelp || "";
  show();
}
"""

_component = st.components.v2.component(
    "burgerbot.call_stepper", html=_HTML, css=_CSS, js=_JS, isolate_styles=False
)


def call_stepper(calls: Sequence[str], run: str, *, key: str, reset_help: str = "") -> None:
    """Page through ``calls`` (each one call's view, as HTML) in the browser.

    Args:
        calls: The views, call 0 (the reset) first. Trusted HTML made by the app's own views
            (`burgerbot.app.markdown.markdown_html`), never a visitor's text.
        run: Names the recorded run (e.g. its settings): a new name starts at call 0.
        key: The stepper's Streamlit key; its element has the class ``st-key-<key>``.
        reset_help: The Reset button's tooltip.
    """
    if not calls:
        raise ValueError("a stepper needs at least one call")
    _component(data={"calls": list(calls), "run": run, "resetHelp": reset_help}, key=key)


# One click listener per view and tab, on the document: the Step once button is Streamlit's
# own (its element has the class st-key-<key>), so that its click also runs the step on the
# server. The listener sees the click first (capture) and shows the prepared call.
_VIEW_JS = """
const views = (window.__burgerbotCallView = window.__burgerbotCallView || new Map());

export default function ({ parentElement, data, key }) {
  const view = parentElement.querySelector(".bb-call-view");
  view.innerHTML = data.now;
  let entry = views.get(key);
  if (!entry) {
    entry = {};
    views.set(key, entry);
    document.addEventListener("click", (event) => {
      const target = event.target instanceof Element ? event.target : null;
      const button = target && target.closest(entry.data.revealOn);
      if (!button || button.disabled || entry.data.next == null) return;
      if (entry.view.isConnected) entry.view.innerHTML = entry.data.next;
    }, true);
  }
  entry.data = data;
  entry.view = view;
}
"""

_view_component = st.components.v2.component(
    "burgerbot.call_view",
    html='<div class="bb-call-view" aria-live="polite"></div>',
    css=_CSS,
    js=_VIEW_JS,
    isolate_styles=False,
)


def call_view(now: str, upcoming: str | None, *, key: str, reveal_on: str) -> None:
    """The latest call's view (HTML), and the next call's, shown at once when a click lands
    on ``reveal_on`` (a CSS selector, e.g. ``.st-key-batch_shapes_step button``).

    Args:
        now: The latest call's view. Trusted HTML made by the app's own views.
        upcoming: The next call's view, already taken on the server; None when there is
            none (the page then updates when the click's script run answers).
        key: The view's Streamlit key.
        reveal_on: The button whose click shows ``upcoming``; a disabled one shows nothing.
    """
    _view_component(data={"now": now, "next": upcoming, "revealOn": reveal_on}, key=key)
