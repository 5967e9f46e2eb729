"""`python -m tools.latency`: step-click and page-switch latency vs a trivial app."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence

from tools.browser_runs import missing_browser

__all__ = ["main", "parse_args"]

DEFAULT_CLICKS = 30
QUICK_CLICKS = 5


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line; ``--quick`` lowers the defaults, an explicit ``--clicks`` wins.

    Example:
        >>> parse_args(["--quick"]).clicks, parse_args([]).clicks
        (5, 30)
        >>> parse_args(["--quick", "--clicks", "3"]).clicks
        3
    """
    parser = argparse.ArgumentParser(
        prog="python -m tools.latency",
        description=(
            "Start a trivial one-button Streamlit app and this app side by side, drive "
            "Chromium, and print the Batch shapes step-click latency (p50, p95) and each "
            "page's warm switch time as ratios to the trivial app, plus the server's CPU "
            "time per click. Needs Playwright (requirements-dev.txt) and /usr/bin/chromium."
        ),
    )
    parser.add_argument(
        "--clicks",
        type=int,
        default=None,
        help=f"measured clicks per target (default {DEFAULT_CLICKS}, {QUICK_CLICKS} with --quick)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one warm-up click and one round of page switches (a few minutes on 2 cores)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.clicks is None:
        args.clicks = QUICK_CLICKS if args.quick else DEFAULT_CLICKS
    if args.clicks < 1:
        parser.error("--clicks must be at least 1")
    return args


def _stop_on_sigterm(signum: int, frame: object) -> None:
    # Turned into an exception so that the `finally` blocks stop the servers and browser.
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its table (or JSON); returns the exit code."""
    args = parse_args(argv)
    problem = missing_browser()
    if problem:
        print(f"latency benchmark: {problem}; it drives a real Chromium.", file=sys.stderr)
        return 2
    from tools.latency.bench import Options, run_benchmark
    from tools.latency.stats import format_table

    options = Options(
        clicks=args.clicks,
        warmup=1 if args.quick else 3,
        switch_rounds=1 if args.quick else 5,
    )
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        result = run_benchmark(options)
    except KeyboardInterrupt:
        print(
            "latency benchmark: interrupted; every process it started was stopped.", file=sys.stderr
        )
        return 130
    except RuntimeError as error:
        print(str(error), file=sys.stderr)
        return 1
    result["quick"] = args.quick
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
