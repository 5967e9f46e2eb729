"""The benchmark's pure parts: percentiles, ratios to the trivial app, and the printed table."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from tools.latency.browser import QUIET_MS

__all__ = ["format_table", "percentile", "ratio", "summarize"]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0 to 100) of ``values``, interpolating between neighbours.

    The same definition as numpy's default (``method="linear"``), without needing numpy.

    Example:
        >>> percentile([10, 20, 30, 40], 50)
        25.0
        >>> percentile([10, 20, 30, 40], 95)
        38.5
        >>> percentile([7], 95)
        7.0
    """
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"q must be between 0 and 100, not {q}")
    ordered = sorted(float(v) for v in values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(samples_ms: Sequence[float]) -> dict[str, Any]:
    """p50, p95, min, max and count of latency samples in milliseconds (rounded to 0.1 ms).

    Example:
        >>> summarize([30.0, 10.0, 20.0])
        {'n': 3, 'p50': 20.0, 'p95': 29.0, 'min': 10.0, 'max': 30.0}
    """
    return {
        "n": len(samples_ms),
        "p50": round(percentile(samples_ms, 50), 1),
        "p95": round(percentile(samples_ms, 95), 1),
        "min": round(min(samples_ms), 1),
        "max": round(max(samples_ms), 1),
    }


def ratio(value: float | None, floor: float | None) -> float | None:
    """``value / floor`` rounded to 0.01, or None when either is missing or the floor is 0.

    Example:
        >>> ratio(45.0, 30.0)
        1.5
        >>> ratio(None, 30.0) is None
        True
    """
    if value is None or not floor:
        return None
    return round(value / floor, 2)


def _cell(value: float | None, spec: str = ".2f") -> str:
    return "-" if value is None else format(value, spec)


def _grid(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            h.ljust(w) if i == 0 else h.rjust(w)
            for i, (h, w) in enumerate(zip(header, widths, strict=True))
        )
    ]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    return lines


def format_table(result: Mapping[str, Any]) -> str:
    """The benchmark's result (as `bench.run_benchmark` returns it) as plain-text tables.

    One row per click target (p50, p95, ratios to the trivial app, server CPU and script
    runs per click),
    then one row per page's warm switch (seconds, ratio to the floor). A missing figure
    shows as "-"; a target that could not be measured shows its note instead of its CPU.
    """
    machine = result.get("machine", {})
    lines = [
        f"Machine: {machine.get('cpus', '?')} CPUs, load average "
        f"{machine.get('load_average_1min', '?')} at the start. All figures from this one run.",
        "",
        f"Click -> visible update ({result['clicks']} measured clicks each, interleaved with "
        "the trivial app's)",
    ]
    rows, notes = [], []
    for entry in result["step_click"].values():
        visible = entry.get("visible_ms")
        if visible is None:
            rows.append([entry["label"], "-", "-", "-", "-", "-", "-", "-"])
            notes.append(f"{entry['label']}: {entry.get('note', 'not measured')}")
            continue
        rows.append(
            [
                entry["label"],
                _cell(visible["p50"], ".1f"),
                _cell(visible["p95"], ".1f"),
                _cell(entry.get("ratio_p50")),
                _cell(entry.get("ratio_p95")),
                _cell(entry.get("settled_ms", {}).get("p50"), ".1f"),
                _cell(entry.get("cpu_ms_per_click"), ".1f"),
                _cell(entry.get("runs_per_click"), ".2f"),
            ]
        )
    header = ["target", "p50 ms", "p95 ms", "x trivial p50", "x trivial p95"]
    lines += _grid(
        [*header, "run finished p50 ms", "server CPU ms/click", "script runs/click"], rows
    )
    lines += notes
    switch = result["warm_switch"]
    lines += [
        "",
        "Warm page switch (click on the sidebar link -> run finished, title shown, and drawn: "
        f"no long task for {QUIET_MS} ms after it; median of {switch.get('rounds', 1)} round(s)); "
        "answered: the same switches by a second visitor, who skipped each page's predictions "
        "and so sees its results",
        "floor: the trivial app's click -> rerun finished and drawn, p50 "
        + _cell(switch["floor_s"], ".3f")
        + " s"
        + (
            f" ({switch['floor_clicks']} clicks, one right before each switch)"
            if switch.get("floor_clicks")
            else ""
        ),
    ]
    rows = [
        [
            p["title"],
            _cell(p["seconds"], ".3f"),
            _cell(p["ratio"], ".1f"),
            _cell(p.get("run_finished_s"), ".3f"),
            _cell(p.get("first_switch_s"), ".2f"),
            _cell(p.get("answered_seconds"), ".3f"),
            _cell(p.get("answered_ratio"), ".1f"),
        ]
        for p in switch["pages"]
    ]
    lines += _grid(
        [
            "page",
            "seconds",
            "x floor",
            "run finished s",
            "first switch s",
            "answered s",
            "answered x floor",
        ],
        rows,
    )
    if result.get("exceptions"):
        lines += ["", "Exceptions shown by the app:", *result["exceptions"]]
    return "\n".join(lines)
