"""A recorded run, one call per click, paged in the browser: a click runs no script at all.

A Streamlit button's click goes to the server and back, and the browser then redraws the
page's whole tree of blocks (about 3 to 4 times a trivial app's click on a full page, even
inside a fragment). A run that is already recorded needs none of that: `call_stepper` hands
the browser every call's view at once (HTML), and its Reset, Step back and Step once buttons
swap the view in the page itself, in one frame.

The call a learner has reached is kept in the browser tab, per stepper and per run: a rerun
of the page keeps it, a new run (other settings) starts again from the reset.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

__all__ = ["BUTTONS", "call_stepper"]

BUTTONS = {"reset": "Reset", "back": "Step back", "step": "Step once"}
"""The stepper's buttons by their ``data-call`` attribute (tests and the benchmark click them)."""

_HTML = (
    '<div class="bb-stepper">'
    '<div class="bb-stepper-row" role="group" aria-label="Step through the run">'
    + "".join(
        f'<button type="button" data-call="{name}">{label}</button>'
        for name, label in BUTTONS.items()
    )
    + '</div><div class="bb-stepper-call" aria-live="polite"></div></div>'
)

# Scoped to .bb-stepper: the component is mounted in the page's own DOM (no shadow root), so
# its text is the page's text (find in page, screen readers, the tests' main-area text).
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
.bb-stepper-call {
  font-family: var(--st-font, inherit); color: var(--st-text-color, inherit); overflow-x: auto;
}
.bb-stepper-call h3 { font-size: 1.5rem; font-weight: 600; margin: 0.5rem 0 0.75rem; }
.bb-stepper-call p { margin: 0 0 1rem; }
.bb-stepper-call table { border-collapse: collapse; margin: 0 0 1rem; }
.bb-stepper-call th, .bb-stepper-call td {
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
  padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; white-space: nowrap;
}
/* The last column is the sentence; on a narrow screen the table scrolls sideways. */
.bb-stepper-call td:last-child { white-space: normal; min-width: 14rem; }
.bb-stepper-call code {
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
  const view = root.querySelector(".bb-stepper-call");
  const button = (name) => root.querySelector(`button[data-call="${name}"]`);
  const last = data.calls.length - 1;
  const before = reached.get(key);
  let call = before && before.run === data.run ? Math.min(before.call, last) : 0;
  const show = () => {
    reached.set(key, { run: data.run, call });
    view.innerHTML = data.calls[call];
    root.dataset.call = String(call);
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
