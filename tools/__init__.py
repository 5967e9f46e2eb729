"""Developer tools, run from the project's root (``python -m tools.latency``).

Neither the library (`burgerbot`) nor the app (`burgerbot.app`) imports them, and they are not
installed with the library; the tests may import them.
"""
