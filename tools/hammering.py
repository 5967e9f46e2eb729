"""The hostile tier's hammering scenario alone, against this checkout's app (no fresh venv).

Five tabs press Batch shapes' Step x10 (CartPole, 1,024 Sync envs) every 50 ms beside a
visitor (BurgerBot, 16 native envs) pressing Step x10 once a second; prints the visitor's
timed clicks alone and beside the hammering (`tests/test_hostile_load.hammering`), about a
minute a run. Run: ``python tools/hammering.py [--port 8621] [--repeat 1]``; with
``PROBE_PATH`` set, the server starts with that folder on its path (a sitecustomize probe).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "browser")]

import tools.streamlit_server as streamlit_server  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if args.port:
        streamlit_server.free_port = lambda: args.port
    from test_hostile_load import hammering

    server = streamlit_server.StreamlitServer.start(
        log_path=ROOT / "test-artifacts" / "hammering-server.log",
        test_options=False,
        extra_env={"PYTHONPATH": os.environ["PROBE_PATH"]} if "PROBE_PATH" in os.environ else None,
    )
    try:
        base = f"ws://127.0.0.1:{server.port}"
        for _ in range(args.repeat):
            result = hammering(server, base)
            result["load_average"] = [round(x, 2) for x in os.getloadavg()]
            print(json.dumps(result), flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
