"""The "Auto-reset" page's logic: episode ends in each mode, the lesson vs today, DISABLED live."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot import world
from burgerbot.app.caps import CAPS
from burgerbot.app.settings import ChoiceSetting, IntSetting
from burgerbot.checks import MAX_SEED
from burgerbot.experiments import MAX_ROLLOUT_ROWS, Progress, random_actions, rollout
from burgerbot.factories import make_env
from burgerbot.vector import BurgerBotVectorEnv

__all__ = [
    "BACKEND_CHOICES",
    "END_CAUSES",
    "MAX_SEED",
    "MAX_TIMELINE_ENVS",
    "MODES",
    "READABLE_ENVS",
    "RESET_MARKERS",
    "SPECS",
    "START_OBS",
    "TIMELINE_MAX_CELLS",
    "AutoresetSettings",
    "DisabledDemo",
    "InfosCheck",
    "ResultCache",
    "check_infos_live",
    "count_finished_by_mode",
    "disabled_demo",
    "disabled_demo_table",
    "episode_ends",
    "finished_per_env",
    "gymnasium_version",
    "lesson_vs_installed",
    "markdown_table",
    "mode_of",
    "obs_text",
    "pick_episode_end",
    "resolve_settings",
    "run_page_rollout",
    "timeline_cells",
]

MODES = ("NEXT_STEP", "SAME_STEP", "DISABLED")
"""The auto-reset modes by their ``AutoresetMode`` member names, the default first."""

BACKEND_CHOICES = ("sync", "native")
"""Sync is what the lesson uses; native (BurgerBotVectorEnv) must give the very same run."""

MAX_TIMELINE_ENVS = 64
"""Local cap (not in CAPS): one timeline row per env stops being readable long before this."""

READABLE_ENVS = 16
"""Up to this many envs the timeline rows stay tall enough to read comfortably."""

TIMELINE_MAX_CELLS = 4_800
"""The timeline draws at most this many (step, env) cells (below altair's 5,000-row limit)."""


START_OBS = tuple(int(v) for v in world.observe(*world.START, world.START_HEADING))
"""Every BurgerBot episode starts with this observation: [0, 0, 1, 1]."""

END_CAUSES = ("goal", "hit", "truncated")

RESET_MARKERS = {
    "NEXT_STEP": "reset step (action ignored)",
    "SAME_STEP": "reset inside the ending step",
    "DISABLED": "reset(reset_mask) after the step",
}
"""How the timeline labels the moment a sub-environment is reset, per mode."""

_N_HIGH = min(MAX_TIMELINE_ENVS, CAPS.max_envs)

SPECS = (
    IntSetting("n", "NUM_ENVS", 4, 1, _N_HIGH),
    ChoiceSetting("mode", "Auto-reset mode", "NEXT_STEP", MODES),
    IntSetting("seed", "Seed", 0, 0, MAX_SEED),
    IntSetting("steps", "step() calls", 40, 1, CAPS.max_steps_per_run),
    ChoiceSetting("backend", "Backend", "sync", BACKEND_CHOICES),
    IntSetting("cn", "NUM_ENVS (counting)", 2, 1, _N_HIGH),
    IntSetting("ck", "step() calls (counting)", 200, 1, CAPS.max_steps_per_run),
)

_OBS = ("row", "col", "heading", "sensor")
_FINAL = tuple(f"final_{name}" for name in _OBS)


def mode_of(name: str) -> AutoresetMode:
    """``"NEXT_STEP"`` -> ``AutoresetMode.NEXT_STEP`` (and so on)."""
    if name not in MODES:
        raise ValueError(f"`mode` must be one of {MODES}, got {name!r}")
    return AutoresetMode[name]


def obs_text(values: Any) -> str:
    """An observation as learners see it printed: ``[0, 2, 1, 0]``."""
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def gymnasium_version() -> str:
    """The installed gymnasium's version, read live from the package metadata."""
    try:
        return metadata.version("gymnasium")
    except metadata.PackageNotFoundError:  # pragma: no cover - gymnasium is a dependency
        return "not installed"


@dataclass(frozen=True)
class AutoresetSettings:
    """What the page runs: the timeline run and the episode-counting run."""

    num_envs: int
    mode: str
    seed: int
    steps: int
    backend: str
    count_envs: int
    count_steps: int

    @property
    def autoreset_mode(self) -> AutoresetMode:
        return mode_of(self.mode)


def resolve_settings(values: Mapping[str, Any]) -> tuple[AutoresetSettings, list[str]]:
    """Turn the page's values into runnable settings, with a note for each change made.

    Values come from widgets that already keep to their ranges; this only guards the
    limits that depend on two settings at once (or on caps raised locally).

    Example:
        >>> settings, notes = resolve_settings(
        ...     {"n": 4, "mode": "SAME_STEP", "seed": 0, "steps": 40, "backend": "sync",
        ...      "cn": 2, "ck": 200}
        ... )
        >>> settings.autoreset_mode, notes
        (<AutoresetMode.SAME_STEP: 'SameStep'>, [])
    """
    notes: list[str] = []
    by_key = {spec.key: spec for spec in SPECS}

    def pick(key: str) -> Any:
        spec = by_key[key]
        value, note = spec.parse(str(values.get(key, spec.default)))
        if note:
            notes.append(note)
        return value

    num_envs, steps = pick("n"), pick("steps")
    count_envs, count_steps = pick("cn"), pick("ck")
    # Only matters when BURGERBOT_MAX_STEPS_PER_RUN is raised: rollout refuses bigger runs.
    for label, n, k in (("timeline", num_envs, steps), ("counting", count_envs, count_steps)):
        if n * k > MAX_ROLLOUT_ROWS:
            notes.append(
                f"The {label} run would record {n * k:,} steps; this page records at most "
                f"{MAX_ROLLOUT_ROWS:,}: using {MAX_ROLLOUT_ROWS // n:,} step() calls."
            )
    steps = min(steps, MAX_ROLLOUT_ROWS // num_envs)
    count_steps = min(count_steps, MAX_ROLLOUT_ROWS // count_envs)
    settings = AutoresetSettings(
        num_envs=num_envs,
        mode=pick("mode"),
        seed=pick("seed"),
        steps=steps,
        backend=pick("backend"),
        count_envs=count_envs,
        count_steps=count_steps,
    )
    return settings, notes


def run_page_rollout(
    settings: AutoresetSettings, backend: str | None = None, progress: Progress | None = None
) -> pd.DataFrame:
    """``experiments.rollout`` for the page's timeline settings (on ``backend`` if given)."""
    return rollout(
        backend or settings.backend,
        settings.num_envs,
        settings.steps,
        settings.seed,
        settings.autoreset_mode,
        progress=progress,
    )


class ResultCache:
    """A small, thread-safe, least-recently-used store of results, keyed by settings.

    The page keeps one (shared by every session) so that it can show a progress bar while
    a result is computed the first time, which a cached function cannot do.

    Example:
        >>> cache = ResultCache(max_entries=1)
        >>> cache.get_or_compute("a", lambda: 1), cache.get_or_compute("a", lambda: 2)
        (1, 1)
        >>> cache.get_or_compute("b", lambda: 3), "a" in cache
        (3, False)
    """

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()  # outside the lock: other sessions are not held up meanwhile
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)
        return value


# --- The event table ----------------------------------------------------------------------


def _cause(row: Mapping[str, Any]) -> str:
    cause = str(row["event"])
    if cause != "truncated" and row["truncated"]:
        return f"{cause} (and truncated)"  # terminated on the very step that hit max_steps
    return cause


def episode_ends(frame: pd.DataFrame, mode: str) -> pd.DataFrame:
    """One row per episode end in a ``rollout`` frame: what ended, and where to find what.

    Columns: ``env``, ``step``, ``cause`` (goal / hit / truncated), ``reward``,
    ``final obs`` (the episode's last observation), ``final obs is in`` (where the
    learner's code finds it in this mode), ``next episode's first obs`` and
    ``returned by`` (which call hands it over). NEXT_STEP's first observation is read
    from the run itself (the reset step's row); SAME_STEP's is the ending step's ``obs``;
    DISABLED's comes from the manual ``reset`` call, which always returns the start.

    Example:
        >>> from burgerbot.experiments import rollout
        >>> frame = rollout("native", num_envs=2, steps=12, seed=0)
        >>> episode_ends(frame, "NEXT_STEP")[["env", "step", "cause", "final obs"]].values.tolist()
        [[1, 12, 'hit', '[0, 2, 0, 0]']]
    """
    mode_of(mode)
    steps = int(frame["step"].max()) if len(frame) else 0
    num_envs = int(frame["env"].max()) + 1 if len(frame) else 0
    observations = frame[list(_OBS)].to_numpy()
    positions = np.flatnonzero((frame["terminated"] | frame["truncated"]).to_numpy())
    rows = []
    for position, row in zip(positions, frame.iloc[positions].to_dict("records"), strict=True):
        step, env = int(row["step"]), int(row["env"])
        final = obs_text(row[name] for name in _FINAL)
        # Plain text: a table cell shows no Markdown.
        if mode == "NEXT_STEP":
            where = f"obs[{env}] of step {step}"
            if step < steps:
                # Rows go step by step, env by env: the same env's next step is num_envs on.
                first = obs_text(observations[position + num_envs])
                returned = f"step {step + 1} (the reset step)"
            else:
                first = "not in this run"
                returned = f"step {step + 1}, after this run"
        elif mode == "SAME_STEP":
            where = f'infos["final_obs"][{env}] of step {step}'
            first = obs_text(row[name] for name in _OBS)
            returned = f"step {step} itself, as obs[{env}]"
        else:
            where = f"obs[{env}] of step {step}"
            first = obs_text(START_OBS)
            returned = f"reset(reset_mask) after step {step}"
        rows.append(
            {
                "env": env,
                "step": step,
                "cause": _cause(row),
                "reward": float(row["reward"]),
                "final obs": final,
                "final obs is in": where,
                "next episode's first obs": first,
                "returned by": returned,
            }
        )
    columns = [
        "env",
        "step",
        "cause",
        "reward",
        "final obs",
        "final obs is in",
        "next episode's first obs",
        "returned by",
    ]
    return pd.DataFrame(rows, columns=columns)


def finished_per_env(frame: pd.DataFrame, num_envs: int) -> pd.DataFrame:
    """Finished episodes per env in a ``rollout`` frame, split by cause.

    Columns: ``env``, ``finished episodes`` (terminated or truncated), ``goals``,
    ``hits``, ``truncations`` (truncated without terminating).
    """
    ended = frame["terminated"] | frame["truncated"]
    parts = {
        "finished episodes": ended,
        "goals": ended & (frame["event"] == "goal"),
        "hits": ended & (frame["event"] == "hit"),
        "truncations": ended & (frame["event"] == "truncated"),
    }
    table = pd.DataFrame({"env": frame["env"], **parts}).groupby("env").sum()
    table = table.reindex(range(num_envs), fill_value=0).astype(np.int64)
    return table.reset_index()


def count_finished_by_mode(
    backend: str,
    num_envs: int,
    steps: int,
    seed: int,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """The lesson's counting experiment in every mode: finished episodes per env after K calls.

    Long form, one row per (mode, env): ``mode``, ``env``, ``finished episodes``,
    ``goals``, ``hits``, ``truncations``. Every mode sees the same random actions.
    """
    parts = []
    for index, mode in enumerate(MODES):

        def report(fraction: float, message: str, index: int = index, mode: str = mode) -> None:
            if progress is not None:
                progress((index + fraction) / len(MODES), f"{mode}: {message}")

        frame = rollout(backend, num_envs, steps, seed, mode_of(mode), progress=report)
        counts = finished_per_env(frame, num_envs)
        counts.insert(0, "mode", mode)
        parts.append(counts)
    return pd.concat(parts, ignore_index=True)


# --- The timeline ---------------------------------------------------------------------------


def _row_note(row: Mapping[str, Any], mode: str) -> str:
    env, k = int(row["env"]), int(row["episode"])
    if row["event"] == "reset":
        return (
            f"This call only reset env {env}: its action was ignored, the reward is 0 and obs "
            f"is episode {k}'s first observation."
        )
    if not (row["terminated"] or row["truncated"]):
        return "moved forward" if row["event"] == "move" else "turned or stopped"
    cause = _cause(row)
    if mode == "NEXT_STEP":
        return (
            f"Episode {k} ended ({cause}). obs is its final observation; the next call "
            f"resets env {env}."
        )
    if mode == "SAME_STEP":
        return (
            f"Episode {k} ended ({cause}) and env {env} was reset inside this call: obs is "
            f'already the next episode\'s start; the final observation is in infos["final_obs"].'
        )
    return (
        f"Episode {k} ended ({cause}). obs is its final observation. Nothing resets by itself: "
        f"the page then called reset(options={{'reset_mask': mask}}) for env {env}."
    )


def timeline_cells(
    frame: pd.DataFrame, mode: str, max_cells: int = TIMELINE_MAX_CELLS
) -> tuple[pd.DataFrame, int]:
    """Long-form cells for the timeline chart, and how many steps they cover.

    One row per (step, env) of the first ``max_cells // num_envs`` steps (at least one),
    with display columns: ``action`` ("0 forward"), ``obs`` and ``final obs`` as text,
    ``segment`` (which colour: alternating episodes, or NEXT_STEP's reset step),
    ``end`` (goal / hit / truncated / None), ``reset`` (the mode's reset marker or None)
    and ``note`` (what happened, in words).
    """
    mode_of(mode)
    num_envs = int(frame["env"].max()) + 1 if len(frame) else 1
    shown_steps = max(1, max_cells // num_envs)
    cells = frame[frame["step"] <= shown_steps].copy()
    shown_steps = int(cells["step"].max()) if len(cells) else 0
    ended = cells["terminated"] | cells["truncated"]
    cells["action"] = [f"{a} {world.ACTION_NAMES[a]}" for a in cells["action"]]
    cells["obs"] = [obs_text(v) for v in cells[list(_OBS)].to_numpy()]
    cells["final obs"] = [
        obs_text(v) if end else ""
        for v, end in zip(cells[list(_FINAL)].to_numpy(), ended, strict=True)
    ]
    is_reset = cells["event"] == "reset"
    cells["segment"] = np.where(
        is_reset,
        "reset step",
        np.where(cells["episode"] % 2 == 0, "episodes 0, 2, 4, …", "episodes 1, 3, 5, …"),
    )
    cells["end"] = np.where(ended, cells["event"].astype(str), None)
    resets = is_reset if mode == "NEXT_STEP" else ended
    cells["reset"] = np.where(resets, RESET_MARKERS[mode], None)
    cells["note"] = [_row_note(row, mode) for row in cells.to_dict("records")]
    cells["event"] = cells["event"].astype(str)
    keep = [
        "step",
        "env",
        "episode",
        "action",
        "obs",
        "reward",
        "event",
        "terminated",
        "truncated",
        "final obs",
        "segment",
        "end",
        "reset",
        "note",
    ]
    return cells[keep].reset_index(drop=True), shown_steps


# --- The lesson vs the installed gymnasium ------------------------------------------------


def pick_episode_end(events: pd.DataFrame, steps: int) -> dict[str, Any] | None:
    """The episode end the comparison uses: the first one that still has a step after it."""
    if events.empty:
        return None
    followed = events[events["step"] < steps]
    chosen = followed if not followed.empty else events
    return chosen.sort_values(["step", "env"]).iloc[0].to_dict()


@dataclass(frozen=True)
class InfosCheck:
    """What ``infos`` held, live, on the step where an episode ended."""

    step: int
    env: int
    keys: tuple[str, ...]
    has_final_observation: bool
    """``"final_observation" in infos``: the key the lesson reads (gymnasium 0.29)."""
    has_final_obs: bool
    """``"final_obs" in infos``: the key SAME_STEP uses today."""
    default_mode: str
    """The auto-reset mode a ``SyncVectorEnv`` gets when none is given."""


def _step_sync(
    num_envs: int, seed: int, mode: AutoresetMode, steps: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """Replay the page's random actions on a SyncVectorEnv; return the last step's result."""
    envs = SyncVectorEnv([make_env() for _ in range(num_envs)], autoreset_mode=mode)
    try:
        envs.reset(seed=seed)
        actions = np.concatenate(list(random_actions(seed, num_envs, steps)))
        for t, step_actions in enumerate(actions, start=1):
            result = envs.step(step_actions)
            ended = result[2] | result[3]
            if mode == AutoresetMode.DISABLED and ended.any() and t < steps:
                envs.reset(options={"reset_mask": ended})
        return result
    finally:
        envs.close()


def check_infos_live(num_envs: int, seed: int, mode: str, step: int, env: int) -> InfosCheck:
    """Run the page's actions on a fresh SyncVectorEnv up to ``step`` and look at ``infos``."""
    _, _, _, _, infos = _step_sync(num_envs, seed, mode_of(mode), step)
    default = SyncVectorEnv([make_env()])
    try:
        default_mode = AutoresetMode(default.metadata["autoreset_mode"]).name
    finally:
        default.close()
    return InfosCheck(
        step=step,
        env=env,
        keys=tuple(sorted(infos)),
        has_final_observation="final_observation" in infos,
        has_final_obs="final_obs" in infos,
        default_mode=default_mode,
    )


def lesson_vs_installed(
    frame: pd.DataFrame, end: Mapping[str, Any], mode: str, check: InfosCheck, version: str
) -> pd.DataFrame:
    """For one episode end of the run: what gymnasium 0.29 would hand back, and what we got.

    Three columns: ``you look at``, ``lesson (gymnasium 0.29)`` (derived from the run:
    the start observation on the ending step, the real final observation in
    ``infos["final_observation"]``) and ``installed gymnasium <version>, <mode>`` (the
    values this run really returned).
    """
    step, env = int(end["step"]), int(end["env"])
    steps = int(frame["step"].max())
    by_step_env = frame.set_index(["step", "env"])
    here = by_step_env.loc[(step, env)]
    final = end["final obs"]
    start = obs_text(START_OBS)
    reward = str(float(here["reward"]))
    flags = f"terminated={bool(here['terminated'])}, truncated={bool(here['truncated'])}"
    installed = f"installed gymnasium {version}, {mode}"

    rows: list[tuple[str, str, str]] = [
        (
            f"`obs[{env}]` from step {step}",
            f"{start}: already the next episode's first observation",
            obs_text(here[name] for name in _OBS)
            + (
                ": already the next episode's first observation"
                if mode == "SAME_STEP"
                else ": the episode's final observation"
            ),
        ),
        (f"`rewards[{env}]`, flags at step {step}", f"{reward}, {flags}", f"{reward}, {flags}"),
        (
            "the final observation",
            f'{final} in `infos["final_observation"][{env}]`',
            f'{final} in `infos["final_obs"][{env}]`'
            if mode == "SAME_STEP"
            else f"{final}: it is `obs[{env}]` itself",
        ),
        (
            f"`infos` keys at step {step}",
            '"final_observation", "_final_observation", "final_info", "_final_info"',
            ", ".join(f'"{key}"' for key in check.keys) or "none: `infos` is `{}`",
        ),
        (
            '`"final_observation" in infos`',
            "True",
            f"{check.has_final_observation} (checked live)",
        ),
    ]
    if step < steps:
        after = by_step_env.loc[(step + 1, env)]
        action = int(after["action"])
        after_obs = obs_text(after[name] for name in _OBS)
        after_reward = str(float(after["reward"]))
        if mode == "NEXT_STEP":
            then = (
                f"the reset step: action {action} was ignored; obs {after_obs}, reward "
                f"{after_reward}, both flags False"
            )
        elif mode == "SAME_STEP":
            then = (
                f"an ordinary step of the new episode: action {action} is used, obs {after_obs}, "
                f"reward {after_reward}"
            )
        else:
            then = (
                f"after the manual `reset(options={{'reset_mask': mask}})`, an ordinary step: "
                f"action {action} is used, obs {after_obs}, reward {after_reward} (without that "
                "reset, step() raises an AssertionError)"
            )
        rows.append(
            (
                f"env {env} at step {step + 1}",
                f"an ordinary step of the new episode: action {action} is used",
                then,
            )
        )
    return pd.DataFrame(rows, columns=["you look at", "lesson (gymnasium 0.29)", installed])


def markdown_table(frame: pd.DataFrame) -> str:
    """A small frame as a Markdown table (cells wrap and keep their `code` formatting)."""

    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = [
        "| " + " | ".join(cell(c) for c in frame.columns) + " |",
        "|" + "---|" * len(frame.columns),
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.to_numpy()]
    return "\n".join(lines)


# --- DISABLED: the real error and the fix -------------------------------------------------


@dataclass(frozen=True)
class DisabledDemo:
    """A live DISABLED-mode run: an episode ends, the next step fails, reset_mask fixes it."""

    num_envs: int
    seed: int
    end_step: int
    """The step on which the first episode(s) ended (0 if none ended within the budget)."""
    ended: tuple[int, ...]
    obs_at_end: np.ndarray
    sync_error: str | None
    """``"AssertionError: ..."`` from SyncVectorEnv over BurgerBotEnv (None: no error)."""
    stepped_before_error: tuple[int, ...]
    """Envs that SyncVectorEnv had already stepped when its check failed (measured)."""
    native_error: str | None
    """The same step on ``BurgerBotVectorEnv`` (its message says what to do)."""
    native_stepped_before_error: bool
    """Whether BurgerBotVectorEnv's robots moved in its failed call (they should not)."""
    obs_after_reset: np.ndarray | None
    step_after_fix: dict[str, np.ndarray] | None
    """obs, rewards, terminated, truncated of the step after the fix."""


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _disabled_sync(num_envs: int) -> SyncVectorEnv:
    return SyncVectorEnv(
        [make_env() for _ in range(num_envs)], autoreset_mode=AutoresetMode.DISABLED
    )


def _episode_steps(envs: SyncVectorEnv) -> list[int]:
    """Each BurgerBot's step count in its current episode (it grows on every real step)."""
    return [env.unwrapped._steps for env in envs.envs]


def _try_step(envs: Any, actions: np.ndarray) -> str | None:
    try:
        envs.step(actions)
    except Exception as exc:  # the point of the demo: show what is raised
        return _error_text(exc)
    return None


def disabled_demo(
    num_envs: int, seed: int, max_calls: int = CAPS.max_steps_per_run
) -> DisabledDemo:
    """Step the page's random actions in DISABLED mode until an episode ends, then go on.

    The step after the end is tried, without a reset, on ``SyncVectorEnv`` (over
    ``BurgerBotEnv``) and on ``BurgerBotVectorEnv``; both raise. SyncVectorEnv checks
    env by env, so the envs before the ended one have already taken that step when it
    raises: the demo measures which. The fix then runs on a fresh SyncVectorEnv with the
    same actions: ``reset(options={"reset_mask": ended})`` right after the end, then the
    next step.
    """
    actions = np.concatenate(list(random_actions(seed, num_envs, max_calls + 1)))
    sync, native, fixed = _disabled_sync(num_envs), None, None
    try:
        native = BurgerBotVectorEnv(num_envs, autoreset_mode=AutoresetMode.DISABLED)
        sync.reset(seed=seed)
        native.reset(seed=seed)
        end_step = 0
        for t in range(1, max_calls + 1):
            obs, _, terminated, truncated, _ = sync.step(actions[t - 1])
            native.step(actions[t - 1])
            ended = terminated | truncated
            if ended.any():
                end_step = t
                break
        if end_step == 0:
            return DisabledDemo(num_envs, seed, 0, (), obs, None, (), None, False, None, None)
        retry = actions[end_step]

        before = _episode_steps(sync)
        sync_error = _try_step(sync, retry)
        after = _episode_steps(sync)
        stepped = tuple(i for i in range(num_envs) if after[i] != before[i])
        robots = native.robots.copy()
        native_error = _try_step(native, retry)
        native_moved = not np.array_equal(robots, native.robots)

        # The failed call changed some of `sync`'s envs: show the fix on a clean replay.
        fixed = _disabled_sync(num_envs)
        fixed.reset(seed=seed)
        for t in range(1, end_step + 1):
            fixed.step(actions[t - 1])
        obs_after, _ = fixed.reset(options={"reset_mask": ended})
        obs_next, rewards, terminated_next, truncated_next, _ = fixed.step(retry)
        return DisabledDemo(
            num_envs=num_envs,
            seed=seed,
            end_step=end_step,
            ended=tuple(int(i) for i in np.flatnonzero(ended)),
            obs_at_end=obs.copy(),
            sync_error=sync_error,
            stepped_before_error=stepped,
            native_error=native_error,
            native_stepped_before_error=native_moved,
            obs_after_reset=obs_after.copy(),
            step_after_fix={
                "obs": obs_next.copy(),
                "rewards": rewards.copy(),
                "terminated": terminated_next.copy(),
                "truncated": truncated_next.copy(),
            },
        )
    finally:
        for envs in (sync, native, fixed):
            if envs is not None:
                envs.close()


def disabled_demo_table(demo: DisabledDemo) -> pd.DataFrame:
    """Per env: obs at the end step, in the mask?, obs from the masked reset, the retried step."""
    if demo.obs_after_reset is None or demo.step_after_fix is None:
        return pd.DataFrame()
    fix = demo.step_after_fix
    return pd.DataFrame(
        {
            "env": range(demo.num_envs),
            f"obs after step {demo.end_step}": [obs_text(v) for v in demo.obs_at_end],
            "in reset_mask": [i in demo.ended for i in range(demo.num_envs)],
            "obs returned by reset(reset_mask)": [obs_text(v) for v in demo.obs_after_reset],
            f"step {demo.end_step + 1} obs": [obs_text(v) for v in fix["obs"]],
            f"step {demo.end_step + 1} reward": fix["rewards"],
        }
    )
