"""The latency benchmark (`python -m tools.latency`): its pure parts, and one real run.

The real run checks that the command measures and reports every figure and stops every
process it started; it never checks how fast anything is (that is the benchmark's output).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from burgerbot.app.processes import session_members
from tools.browser_runs import RUN_TRACKER_JS, missing_browser
from tools.latency import browser as latency_browser
from tools.latency.__main__ import parse_args
from tools.latency.bench import STEP_PATTERN, app_pages, step_text
from tools.latency.stats import format_table, percentile, ratio, summarize
from tools.latency.trivial_app import counter_text
from tools.streamlit_server import cpu_seconds

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "tools.latency"]


# --- The pure parts ------------------------------------------------------------------------


def test_percentiles_interpolate_like_numpy():
    np = pytest.importorskip("numpy")
    values = [120.0, 80.5, 95.0, 300.0, 101.0, 99.9, 87.0]
    for q in (0, 5, 50, 90, 95, 100):
        assert percentile(values, q) == pytest.approx(np.percentile(values, q))
    assert percentile([42.0], 95) == 42.0


def test_percentile_refuses_nonsense():
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_summary_and_ratios():
    summary = summarize([10.0, 40.0, 20.0, 30.0])
    assert summary == {"n": 4, "p50": 25.0, "p95": 38.5, "min": 10.0, "max": 40.0}
    assert ratio(60.0, 40.0) == 1.5
    assert ratio(None, 40.0) is None and ratio(60.0, 0.0) is None


def _result() -> dict:
    def clicks(
        label: str, p50: float, p95: float, cpu: float, runs: float, floor: float = 100.0
    ) -> dict:
        return {
            "label": label,
            "visible_ms": {"n": 30, "p50": p50, "p95": p95, "min": 1.0, "max": p95},
            "settled_ms": {"n": 30, "p50": p50 + 5, "p95": p95 + 5, "min": 1.0, "max": p95},
            "cpu_ms_per_click": cpu,
            "runs_per_click": runs,
            "ratio_p50": ratio(p50, floor),
            "ratio_p95": ratio(p95, 2 * floor),
        }

    return {
        "clicks": 30,
        "machine": {"cpus": 2, "load_average_1min": 1.5},
        "step_click": {
            "trivial": clicks("Trivial app: click", 100.0, 200.0, 3.5, 1.0),
            "batch_shapes": clicks("Batch shapes: Step once", 130.0, 260.0, 27.5, 1.0),
            "autoreset": {"label": "Auto-reset: step", "visible_ms": None, "note": "no button"},
        },
        "warm_switch": {
            "floor_s": 0.105,
            "rounds": 3,
            "pages": [
                {"title": "Home: the speed problem", "seconds": 0.42, "ratio": 4.0},
                {
                    "title": "Batch shapes",
                    "seconds": 0.63,
                    "ratio": 6.0,
                    "run_finished_s": 0.41,
                    "first_switch_s": 2.5,
                    "answered_seconds": 0.84,
                    "answered_ratio": 8.0,
                },
            ],
        },
        "exceptions": [],
    }


def test_the_table_shows_every_figure_with_its_ratio():
    text = format_table(_result())
    lines = text.splitlines()
    trivial = next(line for line in lines if line.startswith("Trivial app: click"))
    assert trivial.split()[3:] == ["100.0", "200.0", "1.00", "1.00", "105.0", "3.5", "1.00"]
    batch = next(line for line in lines if line.startswith("Batch shapes: Step once"))
    assert batch.split()[4:] == ["130.0", "260.0", "1.30", "1.30", "135.0", "27.5", "1.00"]
    autoreset = next(line for line in lines if line.startswith("Auto-reset: step"))
    assert set(autoreset.split()[2:]) == {"-"}
    assert "Auto-reset: step: no button" in lines
    assert "floor: the trivial app's click -> rerun finished and drawn, p50 0.105 s" in lines
    home = next(line for line in lines if line.startswith("Home: the speed problem"))
    assert home.split()[-6:] == ["0.420", "4.0", "-", "-", "-", "-"]
    batch_switch = next(line for line in lines if line.startswith("Batch shapes  "))
    assert batch_switch.split()[-6:] == ["0.630", "6.0", "0.410", "2.50", "0.840", "8.0"]
    # Columns line up: every row of a table is as wide as its header's rule.
    rule = next(line for line in lines if line.startswith("------"))
    assert all(len(line) == len(rule) for line in (trivial, batch, autoreset))


def test_the_table_says_how_the_switches_floor_was_taken():
    result = _result()
    result["warm_switch"]["floor_clicks"] = 55
    lines = format_table(result).splitlines()
    assert (
        "floor: the trivial app's click -> rerun finished and drawn, p50 0.105 s (55 clicks, "
        "one right before each switch)"
    ) in lines


def test_the_table_names_exceptions_the_app_showed():
    result = _result()
    result["exceptions"] = ["http://x/autoreset: ValueError: boom"]
    assert format_table(result).splitlines()[-1] == "http://x/autoreset: ValueError: boom"


def test_texts_awaited_in_the_page_are_unambiguous():
    assert counter_text(1) not in counter_text(10) and counter_text(1) not in counter_text(21)
    assert step_text(1) not in step_text(11)
    assert STEP_PATTERN.search(f"… {step_text(37)} …").group(1) == "37"


def test_every_routed_page_is_switched_to():
    pages = app_pages()
    assert pages[0] == ("", "Home: the speed problem")  # the default page lives at the root
    assert {"batch_shapes", "autoreset"} <= {path for path, _ in pages}
    assert len({title for _, title in pages}) == len(pages)


def test_options():
    assert parse_args([]).clicks == 30 and not parse_args([]).quick
    quick = parse_args(["--quick", "--json"])
    assert quick.quick and quick.json and quick.clicks == 5
    assert parse_args(["--quick", "--clicks", "3"]).clicks == 3
    with pytest.raises(SystemExit):
        parse_args(["--clicks", "0"])


class _FakeBrowser:
    """Records the context options and init scripts a context is made with."""

    def __init__(self) -> None:
        self.options: dict = {}
        self.scripts: list[str] = []

    def new_context(self, **options):
        self.options = options
        return self

    def add_init_script(self, script: str) -> None:
        self.scripts.append(script)


def test_the_benchmark_and_the_browser_tests_count_runs_with_the_same_script():
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    try:
        import app_driver
    finally:
        sys.path.remove(str(ROOT / "tests" / "browser"))
    bench, tests = _FakeBrowser(), _FakeBrowser()
    latency_browser.new_context(bench)
    app_driver.new_context(tests)
    assert tests.scripts == [RUN_TRACKER_JS]
    # The stopwatch runs after the run counter, in the same script (so in order).
    assert bench.scripts == [RUN_TRACKER_JS + latency_browser.PAGE_JS]
    assert bench.options == tests.options


def test_cpu_time_is_read_from_proc():
    before = cpu_seconds(os.getpid())
    deadline = time.process_time() + 0.05
    while time.process_time() < deadline:  # burn a little CPU
        pass
    assert cpu_seconds(os.getpid()) > before >= 0.0
    assert cpu_seconds(2**22 + 12345) == 0.0  # no such process


def test_without_playwright_it_says_so_and_exits_2():
    # Playwright blocked from importing, as where it is not installed.
    code = (
        "import sys\n"
        "sys.modules['playwright'] = None\n"
        "from tools.latency.__main__ import main\n"
        "sys.exit(main(['--quick']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert "Playwright" in done.stderr and "requirements-dev.txt" in done.stderr
    assert done.stdout == ""


# --- A real run ----------------------------------------------------------------------------


def _require_browser() -> None:
    problem = missing_browser()
    if problem and os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but the latency benchmark cannot run: {problem}", pytrace=False)
    if problem:
        pytest.skip(f"latency benchmark skipped: {problem}")


def _assert_gone(pids: list[int]) -> None:
    """Neither the servers nor anything in their sessions (workers, helpers) is alive."""
    for pid in pids:
        assert session_members(pid) == [], f"processes left in server {pid}'s session"
        cmd = Path(f"/proc/{pid}/cmdline")
        alive = cmd.exists() and b"streamlit" in cmd.read_bytes()
        assert not alive, f"streamlit server {pid} still running"


@pytest.mark.browser
@pytest.mark.slow
def test_a_quick_run_reports_every_figure_and_leaves_nothing_behind():
    _require_browser()
    done = subprocess.run(
        [*COMMAND, "--quick", "--json", "--clicks", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert len(result["server_pids"]) == 2
    _assert_gone(result["server_pids"])

    clicks = result["step_click"]
    # Both stepping pages are timed, each click after a trivial-app click.
    expected_n = {"trivial": 6, "batch_shapes": 3, "autoreset": 3}
    for name, n in expected_n.items():
        entry = clicks[name]
        assert entry["visible_ms"]["n"] == n, name
        for figure in ("visible_ms", "settled_ms"):
            assert 0 < entry[figure]["p50"] <= entry[figure]["p95"], (name, entry)
        assert entry["ratio_p50"] > 0 and entry["ratio_p95"] > 0
        assert entry["cpu_ms_per_click"] >= 0
    assert clicks["trivial"]["ratio_p50"] == 1.0
    # A Streamlit button's click runs the script once; both pages' stepper answers in the page
    # from the calls it holds (a quick run's few clicks stay within the first stretch).
    assert clicks["trivial"]["runs_per_click"] == 1.0
    assert clicks["batch_shapes"]["runs_per_click"] == 0.0
    assert clicks["autoreset"]["runs_per_click"] == 0.0

    switch = result["warm_switch"]
    assert switch["floor_s"] > 0
    # The switches' floor: one trivial-app click right before each warm switch (two visitors).
    assert switch["floor_clicks"] == 2 * switch["rounds"] * len(app_pages())
    assert [page["title"] for page in switch["pages"]] == [title for _, title in app_pages()]
    for page in switch["pages"]:
        assert page["seconds"] > 0 and page["ratio"] > 0 and page["first_switch_s"] > 0, page
        # Drawn comes after the run finished (the same switches, two moments of each).
        assert page["seconds"] >= page["run_finished_s"] > 0, page
        # The second visitor sees each page with its predictions answered, results shown.
        assert page["answered_seconds"] > 0 and page["answered_ratio"] > 0, page
        assert page["skips_left"] == 0, page
    skipped = {page["page"]: page["predictions_skipped"] for page in switch["pages"]}
    assert skipped["mistakes"] >= 1 and skipped["training_data"] >= 1, skipped
    assert result["exceptions"] == [], result["exceptions"]
    assert result["page_errors"] == [], result["page_errors"]


@pytest.mark.browser
@pytest.mark.slow
def test_ctrl_c_stops_the_servers():
    _require_browser()
    process = subprocess.Popen(
        [*COMMAND, "--quick", "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids, seen = [], []
    try:
        for line in process.stderr:  # the progress log names each server as it starts
            seen.append(line)
            if ": pid " in line:
                pids.append(int(line.split(": pid ")[1].split(",")[0]))
            if line.startswith("Opening Batch shapes"):  # both up, the browser starting
                break
        assert len(pids) == 2, "".join(seen)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "interrupted" in err
    _assert_gone(pids)
