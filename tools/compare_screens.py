"""Screenshots of every page at given commits, and how much two sets of them differ.

A developer tool for "every page looks the same in Chromium before and after" (issue 20):

    python tools/compare_screens.py shoot 6385861 0d244a1 --out shots/
    python tools/compare_screens.py compare shots/6385861 shots/0d244a1

``shoot`` checks each commit out in a temporary git worktree (removed afterwards), runs its
app with this venv's Python, and takes a full-page PNG of every page in a fresh session
(1280 px wide, predictions untouched), then more of each page whose main interaction is
deterministic, done the same way at every commit (Batch shapes with seed 0 and Auto-reset,
each stepped five times; Batch shapes at its first episode end). ``compare`` prints, per
picture present in both folders, the share of pixels that differ (a different height counts
the rows only one picture has) and the bands of rows that differ, and writes a picture of
the differences per pair into ``<second folder>/../diff-<first>-<second>/`` (changed pixels
in red over a faded copy of the second picture).

Pillow and numpy are imported inside functions: neither is an app dependency.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: `tools` is imported from the project root
    sys.path.insert(0, str(ROOT))

from tools.browser_runs import SETTLED_JS, launch_chromium, new_context  # noqa: E402
from tools.latency.bench import AUTORESET_SKIP_KEY  # noqa: E402
from tools.streamlit_server import StreamlitServer  # noqa: E402

WIDTH = 1280
MAX_HEIGHT = 16000
RUN_TIMEOUT_MS = 180_000
STEPS = 5
# After the run has settled: Vega draws its charts, images and fonts arrive.
SETTLE_PAUSE_S = 1.5

CHARTS_DRAWN_JS = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
  .every((chart) => chart.querySelector('.vega-embed canvas, .vega-embed svg'))"""
CONTENT_HEIGHT_JS = """() => Math.max(...[...document.querySelectorAll(
    '[data-testid="stMain"], [data-testid="stAppViewContainer"], section'
  )].map((el) => el.scrollHeight), document.body.scrollHeight)"""
LATEST_CALL_JS = """(step) => document.body.innerText.includes(
  `Latest call: step ${step} since the reset`)"""

# The Step button of each stepped page, as each version of the app draws it: the in-page
# stepper (`call_stepper`, a button with data-call="step") and, before Batch shapes used
# it, a Streamlit button keyed `batch_shapes_step`.
STEP_BUTTONS = {
    "batch_shapes": [
        '.st-key-batch_shapes_live button[data-call="step"]',
        ".st-key-batch_shapes_step button",
    ],
    "autoreset": ['.st-key-autoreset_stepper button[data-call="step"]'],
}
QUERIES = {"batch_shapes": "?seed=0"}
SKIP_BUTTONS = {
    "batch_shapes": '[class*="st-key-batch_shapes_batch_"][class*="_skip"] button',
    "autoreset": f".st-key-{AUTORESET_SKIP_KEY} button",
}
# Batch shapes' view of a call in which an episode ends links "auto-reset" to the glossary;
# before markdown-it-py rendered it, the learner read the Markdown itself (issue 20).
AUTORESET_LINKS_JS = """() => document.querySelectorAll('a[href*="glossary#autoreset"]').length
  + (document.body.innerText.split('](glossary#autoreset)').length - 1)"""
EPISODE_END_MOST_STEPS = 60
# The pictures taken of each page: "" as it opens, "stepped" after STEPS steps,
# "episode-end" at the first call in which an episode ended.
SHOTS = {"batch_shapes": ("", "stepped", "episode-end"), "autoreset": ("", "stepped")}


def page_stems(tree: Path) -> list[str]:
    """The pages of the app checked out in ``tree``, in the router's order."""
    text = (tree / "streamlit_app.py").read_text()
    stems = []
    for line in text.splitlines():
        if '.py", "' in line and line.strip().startswith("("):
            stems.append(line.split('"')[3].removesuffix(".py"))
    return stems


def settle(page: Any) -> None:
    """Wait until the app is idle and connected, its charts drawn, then a little more."""
    page.wait_for_function(SETTLED_JS, arg=None, timeout=RUN_TIMEOUT_MS, polling=100)
    page.wait_for_function(CHARTS_DRAWN_JS, timeout=RUN_TIMEOUT_MS, polling=100)
    time.sleep(SETTLE_PAUSE_S)
    page.wait_for_function(SETTLED_JS, arg=None, timeout=RUN_TIMEOUT_MS, polling=100)


def full_page_png(page: Any, path: Path) -> None:
    """The whole page: Streamlit scrolls inside its main container, so the viewport is
    stretched to the content first."""
    height = min(int(page.evaluate(CONTENT_HEIGHT_JS)), MAX_HEIGHT)
    page.set_viewport_size({"width": WIDTH, "height": height})
    time.sleep(0.5)  # charts redraw at the new size
    page.wait_for_function(CHARTS_DRAWN_JS, timeout=RUN_TIMEOUT_MS, polling=100)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size({"width": WIDTH, "height": 900})


def step_page(page: Any, stem: str, steps: int = STEPS) -> None:
    """Click the page's Step button ``steps`` times, each time until the call is shown."""
    skip_questions(page, stem)
    for step in range(1, steps + 1):
        step_once(page, stem, step)


def skip_questions(page: Any, stem: str) -> None:
    """Where the stepper waits for the page's questions (later versions of Batch shapes and
    Auto-reset), press "Skip, show me" first: the only way to step there."""
    skip = page.locator(SKIP_BUTTONS.get(stem, "#none"))
    if not any(page.locator(s).count() for s in STEP_BUTTONS[stem]) and skip.count():
        skip.first.click()
        page.wait_for_function(
            f"() => !!document.querySelector('{STEP_BUTTONS[stem][0]}')",
            timeout=RUN_TIMEOUT_MS,
            polling=100,
        )
        settle(page)


def step_once(page: Any, stem: str, step: int) -> None:
    """Click the page's Step button once and wait until it shows call ``step``."""
    selectors: list[str] = STEP_BUTTONS[stem]
    found = [s for s in selectors if page.locator(s).count() > 0]
    if not found:
        raise RuntimeError(f"{stem}: no Step button ({', '.join(selectors)})")
    page.locator(found[0]).first.click()
    page.wait_for_function(LATEST_CALL_JS, arg=step, timeout=RUN_TIMEOUT_MS, polling=50)
    settle(page)


def step_to_episode_end(page: Any, stem: str, most: int = EPISODE_END_MOST_STEPS) -> int:
    """Step until the latest call links to the glossary's auto-reset entry (the view of a
    call in which an episode ended) or shows the link's Markdown unrendered; the step."""
    skip_questions(page, stem)
    links = page.evaluate(AUTORESET_LINKS_JS)
    for step in range(1, most + 1):
        step_once(page, stem, step)
        if page.evaluate(AUTORESET_LINKS_JS) > links:
            return step
    raise RuntimeError(f"{stem}: no episode ended within {most} steps")


def shoot_tree(tree: Path, out: Path, log: Path, only: set[str] | None = None) -> list[str]:
    """Screenshot every page of the app in ``tree`` (or those named in ``only``) into
    ``out``; return what went wrong."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    problems = []
    server = StreamlitServer.start(log_path=log, cwd=tree, extra_env={"PYTHONPATH": str(tree)})
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            try:
                for stem in page_stems(tree):
                    if only and stem not in only:
                        continue
                    path = "" if stem == "home" else stem
                    for stepped in SHOTS.get(stem, ("",)):
                        name = f"{stem}-{stepped}" if stepped else stem
                        context = new_context(browser)
                        try:
                            page = context.new_page()
                            page.set_viewport_size({"width": WIDTH, "height": 900})
                            page.goto(server.url(path) + QUERIES.get(stem, ""))
                            settle(page)
                            if stepped == "stepped":
                                step_page(page, stem)
                            elif stepped == "episode-end":
                                print(f"  {name}: step {step_to_episode_end(page, stem)}")
                            full_page_png(page, out / f"{name}.png")
                            print(f"  {name}", flush=True)
                        except Exception as exc:  # one page's failure must not stop the rest
                            problems.append(f"{name}: {exc}")
                            print(f"  {name}: FAILED {exc}", flush=True)
                        finally:
                            context.close()
            finally:
                browser.close()
    finally:
        server.stop()
    return problems


def shoot(commits: list[str], out: Path, only: set[str] | None = None) -> None:
    """Check out each commit in a temporary worktree, screenshot its pages, remove it."""
    for commit in commits:
        short = subprocess.run(
            ["git", "rev-parse", "--short=7", commit],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        tree = Path(f"/tmp/shots-{short}")
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(tree), short], cwd=ROOT, check=True
        )
        try:
            print(f"{short}:", flush=True)
            problems = shoot_tree(tree, out / short, out / f"server-{short}.log", only)
            for problem in problems:
                print(f"  problem: {problem}")
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=True
            )


def differing_share(before: Path, after: Path, diff_path: Path | None = None) -> float:
    """The share of pixels that differ between two PNGs (rows only one has count in full)."""
    import numpy as np
    from PIL import Image

    a = np.asarray(Image.open(before).convert("RGB"), dtype=np.int16)
    b = np.asarray(Image.open(after).convert("RGB"), dtype=np.int16)
    height, width = max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])

    def padded(image: Any) -> Any:
        # Area one picture lacks is filled with a colour no page uses, so it always differs.
        canvas = np.full((height, width, 3), -1, dtype=np.int16)
        canvas[: image.shape[0], : image.shape[1]] = image
        return canvas

    a, b = padded(a), padded(b)
    changed = (a != b).any(axis=2)
    if diff_path is not None:
        faded = (np.clip(b, 0, 255) * 0.3 + 255 * 0.7).astype(np.uint8)
        faded[changed] = (255, 0, 0)
        Image.fromarray(faded).save(diff_path)
    return float(changed.mean())


def changed_rows(before: Path, after: Path) -> list[tuple[int, int]]:
    """Bands of rows (first, last) in which the two pictures differ, over their common area."""
    import numpy as np
    from PIL import Image

    a = np.asarray(Image.open(before).convert("RGB"), dtype=np.int16)
    b = np.asarray(Image.open(after).convert("RGB"), dtype=np.int16)
    rows = min(a.shape[0], b.shape[0])
    differs = (a[:rows] != b[:rows]).any(axis=(1, 2))
    bands: list[tuple[int, int]] = []
    for row in np.flatnonzero(differs):
        if bands and row - bands[-1][1] <= 20:
            bands[-1] = (bands[-1][0], int(row))
        else:
            bands.append((int(row), int(row)))
    return bands


def compare(before: Path, after: Path, out: Callable[[str], None] = print) -> None:
    """Print a Markdown table of the differing share per picture in both folders."""
    from PIL import Image

    diffs = after.parent / f"diff-{before.name}-{after.name}"
    diffs.mkdir(exist_ok=True)
    out(f"| picture | {before.name} size | {after.name} size | differing pixels | changed rows |")
    out("|---|---|---|---|---|")
    for png in sorted(before.glob("*.png")):
        other = after / png.name
        if not other.exists():
            out(f"| {png.stem} | missing in {after.name} | | | |")
            continue
        share = differing_share(png, other, diffs / png.name)
        sizes = ["x".join(map(str, Image.open(p).size)) for p in (png, other)]
        bands = changed_rows(png, other)
        shown = ", ".join(f"{first}-{last}" for first, last in bands[:6])
        more = f" (+{len(bands) - 6})" if len(bands) > 6 else ""
        out(f"| {png.stem} | {sizes[0]} | {sizes[1]} | {share:.4%} | {shown}{more} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    shoot_parser = commands.add_parser("shoot", help="screenshot every page at each commit")
    shoot_parser.add_argument("commits", nargs="+")
    shoot_parser.add_argument("--out", type=Path, default=ROOT / "test-artifacts" / "shots")
    shoot_parser.add_argument("--pages", help="only these pages (comma-separated file stems)")
    compare_parser = commands.add_parser("compare", help="differing pixels between two folders")
    compare_parser.add_argument("before", type=Path)
    compare_parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "shoot":
        shoot(args.commits, args.out, set(args.pages.split(",")) if args.pages else None)
    else:
        compare(args.before, args.after)


if __name__ == "__main__":
    main()
