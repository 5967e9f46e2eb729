"""Click and page-switch latency of the app, measured against a trivial Streamlit app.

Run it with ``python -m tools.latency`` (``--quick``, ``--clicks N``, ``--json``). It
starts two ``streamlit run`` servers on free localhost ports, the trivial one-button app
(`trivial_app.py`) and this app (`streamlit_app.py`), drives Debian's Chromium through
Playwright (a development dependency), and prints each figure with its ratio to the trivial
app measured in the same run, on the same machine, in the same browser. This is a benchmark,
not a test: the figures are printed, never asserted.

`stats` holds the pure parts (percentiles, the table), `browser`
the tabs and their in-page stopwatch, `bench` the sequence of measurements; the servers are
`tools.streamlit_server`'s, as the browser tests' are.
"""

from __future__ import annotations

__all__: list[str] = []
