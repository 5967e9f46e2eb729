"""Auto-reset's stepper: the page's run, one `step()` call at a time.

The run is the page's own (``experiments.rollout``, recorded live), so the stepper's call N
is column N of the timeline. Each call's view is one Markdown text (`call_markdown`);
`stepper_views` makes them all, as HTML, for `burgerbot.app.call_stepper`, which pages
through them in the browser.
"""

from __future__ import annotations

import pandas as pd

from burgerbot.app.markdown import markdown_html, markdown_table
from burgerbot.app.views.autoreset import obs_text

__all__ = [
    "MAX_STEPPER_ENVS",
    "STEPPER_MAX_ROWS",
    "call_markdown",
    "call_rows",
    "call_title",
    "stepper_calls",
    "stepper_views",
]

MAX_STEPPER_ENVS = 16
"""Rows the stepper's table shows; the timeline above shows every env."""
STEPPER_MAX_ROWS = 1_600
"""Table rows the stepper sends the browser at most, over all its calls (about 0.5 MB)."""

_OBS = ("row", "col", "heading", "sensor")
_FINAL = tuple(f"final_{name}" for name in _OBS)


def call_title(step: int) -> str:
    """The stepper's heading for call ``step`` (0: right after the reset).

    Example:
        >>> call_title(0), call_title(3)
        ('Latest call: reset', 'Latest call: step 3 since the reset')
    """
    return "Latest call: reset" if step == 0 else f"Latest call: step {step} since the reset"


def _happened(row: pd.Series, mode: str) -> str:
    event = str(row["event"])
    if event == "reset":
        return "**auto-reset**: its episode ended on the call before; action ignored, reward 0"
    ended = {"hit": "hit an obstacle", "goal": "reached the burger"}.get(event)
    if ended is None and bool(row["truncated"]):
        ended = "cut off by the step limit"
    if ended is None:
        return "moved" if event == "move" else "turned or stopped"
    final = obs_text(row[list(_FINAL)])
    if mode == "SAME_STEP":
        return (
            f"**{ended}: episode ends, and restarts in this call**: `obs` is already the new "
            f'start; the final observation {final} is in `infos["final_obs"]`'
        )
    if mode == "DISABLED":
        return (
            f"**{ended}: episode ends**: `obs` {final} is the final observation; nothing "
            "restarts until the page's `reset(options={'reset_mask': ...})`"
        )
    return (
        f"**{ended}: episode ends**: `obs` {final} is the final observation; the next call "
        "resets this env"
    )


def _call(run: pd.DataFrame, step: int) -> pd.DataFrame:
    """The rows of ``run`` for call ``step``, one per env."""
    rows = run[run["step"] == step]
    if rows.empty:
        raise ValueError(f"the run has no step {step}")
    return rows


def _table(rows: pd.DataFrame, mode: str, max_envs: int) -> tuple[pd.DataFrame, int]:
    shown = rows.head(max_envs)
    table = pd.DataFrame(
        {
            "env": shown["env"].to_numpy(),
            "action": shown["action"].to_numpy(),
            "obs": [obs_text(values) for values in shown[list(_OBS)].to_numpy()],
            "reward": [f"{r:g}" for r in shown["reward"]],
            "terminated": shown["terminated"].to_numpy(),
            "truncated": shown["truncated"].to_numpy(),
            "what happened": [_happened(row, mode) for _, row in shown.iterrows()],
        }
    )
    return table, len(rows) - len(shown)


def call_rows(run: pd.DataFrame, step: int, mode: str, max_envs: int = MAX_STEPPER_ENVS):
    """What call ``step`` of ``run`` returned, one row per env (the first ``max_envs``).

    Returns ``(table, envs left out)``; columns env, action, obs, reward, terminated,
    truncated and what happened.
    """
    return _table(_call(run, step), mode, max_envs)


def _infos_line(rows: pd.DataFrame, mode: str) -> str:
    if mode != "SAME_STEP":
        return "`infos` is `{}`: in this mode the vector env adds nothing to it."
    ended = rows.loc[rows["terminated"] | rows["truncated"], "env"].tolist()
    if not ended:
        return '`infos` is `{}`: no episode ended in this call, so there is no `"final_obs"`.'
    return (
        f'`infos["final_obs"]` holds the final observation of env {", ".join(map(str, ended))} '
        f'(`infos["_final_obs"]` is True there).'
    )


def call_markdown(run: pd.DataFrame, step: int, mode: str, num_envs: int, steps: int) -> str:
    """The stepper's view of call ``step`` (0: the reset) of ``run`` in ``mode``."""
    title = "### " + call_title(step)
    if step == 0:
        return (
            f"{title}\n\n`obs, infos = envs.reset(seed=...)`: all {num_envs} robots stand at "
            "the start, `[0, 0, 1, 1]`. Press **Step once** to send the run's first actions."
        )
    rows = _call(run, step)
    table, hidden = _table(rows, mode, MAX_STEPPER_ENVS)
    ended = int((rows["terminated"] | rows["truncated"]).sum())
    resets = int((rows["event"] == "reset").sum())
    endings = {0: "No episode ended", 1: "1 episode ended"}.get(ended, f"{ended} episodes ended")
    spent = f"{resets} env{'s' if resets > 1 else ''} spent it on an auto-reset"
    summary = (
        f"`obs, rewards, terminated, truncated, infos = envs.step(actions)`: call {step} of "
        f"{steps} in {mode} mode (column {step} of the timeline). {endings} in this call"
        + (f"; {spent}." if resets else ".")
    )
    more = f"\n\n{hidden} more envs are in the timeline above." if hidden else ""
    return f"{title}\n\n{summary}\n\n{markdown_table(table)}{more}\n\n{_infos_line(rows, mode)}"


def stepper_calls(num_envs: int, steps: int) -> int:
    """How many ``step()`` calls the stepper covers: all ``steps``, unless their tables
    would pass `STEPPER_MAX_ROWS` rows.

    Example:
        >>> stepper_calls(4, 40), stepper_calls(16, 2000), stepper_calls(64, 2000)
        (40, 100, 100)
    """
    return min(steps, max(1, STEPPER_MAX_ROWS // min(num_envs, MAX_STEPPER_ENVS)))


def stepper_views(run: pd.DataFrame, mode: str, num_envs: int, steps: int) -> list[str]:
    """Every call's view as HTML, the reset first, up to `stepper_calls`; the last one says
    that it is the last, and where the rest of the run is when the stepper stops early."""
    last = stepper_calls(num_envs, steps)
    texts = [call_markdown(run, step, mode, num_envs, steps) for step in range(last + 1)]
    if last < steps:
        texts[-1] += (
            f"\n\nThe stepper stops at call {last} of {steps:,}: the timeline above and the "
            "episode ends below cover the whole run."
        )
    else:
        texts[-1] += "\n\nThat was the run's last call: raise `step() calls` above for more."
    return [markdown_html(text) for text in texts]
