"""Developer tools, run from the project's root (``python -m tools.latency``).

`browser_runs` is the Chromium set-up and in-page run counter that the latency benchmark and
the browser tests (`tests/browser/app_driver.py`) share. Neither the library (`burgerbot`) nor
the app (`burgerbot.app`) imports these, and they are not installed with the library.
"""
