"""Where the lesson and the installed libraries agree or differ, each claim checked by a script.

Every claim has a whole script (`burgerbot.app.scripts.lesson_vs_today`) that prints what it
checks as ``name: value`` lines. The page runs that script as shown, and a pure function here
judges the claim from what it printed: a verdict kind (`burgerbot.app.labels.VERDICTS`, plus
the few kinds below for what a run cannot settle) and a sentence that follows the numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from burgerbot.app import sb3_recording, versions
from burgerbot.app.labels import ALL_VERDICTS, OTHER_VERDICTS, Verdict
from burgerbot.app.sb3_recording import Recording
from burgerbot.app.script_runner import printed, run_script
from burgerbot.app.scripts.lesson_vs_today import SCRIPTS
from burgerbot.random_agent import goal_odds

__all__ = [
    "CLAIMS",
    "COUNT_OPTIONS",
    "Claim",
    "Outcome",
    "count_explanation",
    "count_truth",
    "recorded_scripts",
    "run_claim",
    "table_rows",
    "takeaways",
    "verdict",
]

SB3_MISSING = (
    "stable-baselines3 is not installed here. Install the optional extra "
    "(`pip install -r requirements-sb3.txt`) to run this check."
)
ONE_MILLION = 1_000_000
PAGE = "lesson_vs_today"


def verdict(kind: str) -> Verdict:
    """The label, icon and colour of a verdict kind (a lesson verdict or one of the others)."""
    return ALL_VERDICTS[kind]


Judgement = tuple[str, str]
"""(verdict kind, the sentence saying what happened here)."""


def judge_factory_pattern(v: Mapping[str, str]) -> Judgement:
    shapes = [v["observations shape"], v["sampled actions shape"], v["rewards shape"]]
    shapes.append(v["terminated shape"])
    holds = shapes == ["(4, 4)", "(4,)", "(4,)", "(4,)"]
    return ("holds" if holds else "changed"), f"Shapes here: {', '.join(shapes)}."


def judge_autoreset_timing(v: Mapping[str, str]) -> Judgement:
    start, ending, after = (
        v["first observation after a reset"],
        v["ending call, env 0 obs"],
        (v["next call, env 0 obs"]),
    )
    if ending == start:
        return "holds", f"The ending call already returned the start observation {start}."
    if after == start and float(v["next call, env 0 reward"]) == 0.0:
        return "changed", (
            f"Since gymnasium 1.0 it returns the final one, {ending}; the next call resets "
            "(reward 0.0)."
        )
    return "not_confirmed", f"The ending call returned {ending}, the next one {after}."


def judge_final_observation_key(v: Mapping[str, str]) -> Judgement:
    keys = {name.split()[0]: value for name, value in v.items() if "infos keys" in name}
    listed = "; ".join(f"{mode}: {value}" for mode, value in keys.items())
    if any("'final_observation'" in value for value in keys.values()):
        return "holds", f"`infos` keys on the ending call: {listed}."
    return "changed", (
        'Gone since 1.0: `obs` of the ending call (NEXT_STEP) or `infos["final_obs"]` (SAME_STEP).'
    )


def judge_goal_counts(v: Mapping[str, str]) -> Judgement:
    """Decided by the live simulation (does doubling fit, do most learners see 0?); the
    figures in the sentence are the exact ones (`burgerbot.random_agent`), as on Goal scaling."""
    zero4 = float(v["N=4 share of learners who saw 0 goals"])
    zero8 = float(v["N=8 share of learners who saw 0 goals"])
    low, high = float(v["95% interval low"]), float(v["95% interval high"])
    four, eight = goal_odds(500, 4), goal_odds(500, 8)
    exact = f"Exact: {four.expected_goals:.4f} vs {eight.expected_goals:.4f} goals expected"
    if not low <= 2.0 <= high:
        return "not_confirmed", f"{exact}; this run's ratio ({low:.2f} to {high:.2f}) missed 2."
    if zero4 > 0.5 and zero8 > 0.5:
        return "not_visible", (
            f"{exact}; one run shows none {four.chance_of_none:.1%} / "
            f"{eight.chance_of_none:.1%} of the time."
        )
    return "holds", f"{exact}: one run often shows it."


def judge_speed(v: Mapping[str, str]) -> Judgement:
    plain = float(v["straightforward BurgerBot, steps/s"])
    # The straightforward loop's rate in each round: the verdict follows their spread.
    rounds = [
        float(x) for x in v.get("straightforward BurgerBot, steps/s in each round", "").split()
    ]
    rounds = rounds or [plain]
    low, high = min(rounds), max(rounds)
    spread = f" ({low:,.0f} to {high:,.0f} over {len(rounds)} rounds)" if len(rounds) > 1 else ""
    rates = f"Here: {plain:,.0f} steps a second{spread}."
    line = ABOUT_A_MILLION[0]
    if low < line <= high:
        return "depends", rates + " Too close to call."
    return speed_verdict(plain, rates)


ABOUT_A_MILLION = (750_000, 1_500_000)
"""Rates that read as "about a million" (they round to one million at one significant figure,
give or take): below, the lesson's figure does not hold here; above, it is beaten."""


def speed_verdict(plain: float, rates: str = "") -> Judgement:
    """The speed claim's verdict and sentence from a plain loop's steps a second.

    Example:
        >>> speed_verdict(550_000)
        ('depends', ' 55% of a million, on this machine.')
        >>> speed_verdict(900_000)[1], speed_verdict(2_400_000)[1]
        (' About a million.', ' 2.4 million: more.')
    """
    low, high = ABOUT_A_MILLION
    if plain < low:
        return "depends", rates + f" {plain / ONE_MILLION:.0%} of a million, on this machine."
    if plain < high:
        return "holds", rates + " About a million."
    return "holds", rates + f" {plain / ONE_MILLION:.1f} million: more."


def judge_sb3_n_envs(v: Mapping[str, str]) -> Judgement:
    result = v["PPO(..., n_envs=4)"]
    if result == "accepted":
        return "holds", "PPO accepted `n_envs=4`."
    return "never_valid", (
        f"`{result.split(':', 1)[0]}` here: PPO has no `n_envs`. Use `make_vec_env(..., n_envs=4)`."
    )


def judge_sb3_gymnasium_vector(v: Mapping[str, str]) -> Judgement:
    result = v["PPO(..., SyncVectorEnv)"]
    if result.startswith("accepted"):
        n_envs = int(result.rsplit("=", 1)[1])
        if n_envs == 4:
            return "holds", "PPO accepted the SyncVectorEnv as 4 envs."
        return "never_valid", f"PPO took it for {n_envs} env, not 4."
    return "never_valid", (
        f"`{result.split(':', 1)[0]}` here: PPO needs SB3's own `VecEnv` "
        "(`make_vec_env` builds one)."
    )


def judge_sb3_n_steps(v: Mapping[str, str]) -> Judgement:
    """The lesson's example (2,048 steps in 512 calls with 4 envs) holds when ``n_steps=512``
    fills 2,048 transitions in 512 calls; beside it, what SB3's default does."""
    default = int(v["PPO's default n_steps"])
    calls = int(v[f"n_steps={default}, step() calls per update"])
    transitions = int(v[f"n_steps={default}, transitions per update"])
    example = (
        int(v["n_steps=512, step() calls per update"]),
        int(v["n_steps=512, transitions per update"]),
    )
    beside = (
        f"SB3's default n_steps={default} counts per env: {calls:,} calls, {transitions:,} "
        "transitions with 4 envs."
    )
    if example == (512, 2048):
        return "holds", f"Yes (n_steps=512). {beside}"
    return "not_confirmed", f"n_steps=512 gave {example[1]:,} in {example[0]:,} calls. {beside}"


@dataclass(frozen=True)
class Claim:
    """A claim of the lesson, the script that checks it, and how to judge what it printed."""

    name: str
    topic: str
    short: str
    lesson_says: str
    judge: Callable[[Mapping[str, str]], Judgement]
    page: str
    """The file in app_pages/ that shows it."""
    packages: tuple[str, ...] = ("gymnasium",)

    @property
    def script(self) -> str:
        """The whole script the page shows and runs."""
        return SCRIPTS[self.name]

    @property
    def needs_sb3(self) -> bool:
        return "stable-baselines3" in self.packages


@dataclass(frozen=True)
class Outcome:
    """What one claim's script did here, and the verdict drawn from it."""

    kind: str
    summary: str
    output: str = ""
    error: str | None = None
    recorded: bool = False
    """Judged from the recorded run (stable-baselines3 is not installed here)."""


def _sb3_available() -> bool:
    # Looked up on each call so that tests can hide SB3 by patching versions.sb3_available.
    return versions.sb3_available()


def recorded_scripts() -> dict[str, str]:
    """The claims' scripts that need stable-baselines3, by recording name
    (`burgerbot.app.sb3_recording`): visitors without SB3 are judged from their recorded run."""
    return {f"{PAGE}.{claim.name}": claim.script for claim in CLAIMS if claim.needs_sb3}


def run_claim(claim: Claim, recording: Recording | None = None) -> Outcome:
    """Run a claim's script as shown and judge it; whatever breaks becomes a 'not_run' outcome.

    A claim that needs stable-baselines3, where it is not installed, is judged from
    ``recording`` (the stored run of the same script; by default the repository's) and its
    outcome says so (``recorded``); without such a run it is 'not_run'.
    """
    run = None
    if claim.needs_sb3 and not _sb3_available():
        recording = recording or sb3_recording.load()
        name = f"{PAGE}.{claim.name}"
        if not recording.has(name, claim.script):
            return Outcome("not_run", SB3_MISSING)
        run = recording.run(name)
    recorded = run is not None
    run = run or run_script(claim.script)
    if run.error is not None:
        return Outcome(
            "not_run", f"The script stopped: {run.error.headline}", run.output, run.error.headline
        )
    try:
        kind, summary = claim.judge(printed(run.output))
    except (KeyError, ValueError, IndexError, SyntaxError) as error:
        return Outcome(
            "not_run", f"Its output was not what the check expects ({error!r}).", run.output
        )
    return Outcome(kind, summary, run.output, recorded=recorded)


COUNT_OPTIONS = ("none", "1 or 2", "3 or 4", "5 or more")
"""Answers to "how many of the lesson's claims still hold?"."""


def _count_option(held: int) -> str:
    return COUNT_OPTIONS[min(3, (held + 1) // 2)]


def count_truth(outcomes: Sequence[Outcome]) -> str | None:
    """Which of `COUNT_OPTIONS` the checks gave, or ``None`` when claims that could not be run
    here might change the answer (a learner is not marked on what was not run).

    >>> count_truth([Outcome("holds", ""), Outcome("changed", ""), Outcome("holds", "")])
    '1 or 2'
    >>> count_truth([Outcome("holds", ""), Outcome("holds", ""), Outcome("not_run", "")]) is None
    True
    """
    held = sum(outcome.kind == "holds" for outcome in outcomes)
    # A claim not run, machine-dependent or not confirmed could be either: it may change it.
    open_ = sum(outcome.kind in OTHER_VERDICTS for outcome in outcomes)
    answer = _count_option(held)
    return answer if _count_option(held + open_) == answer else None


def _grouped(claims: Sequence[Claim], outcomes: Sequence[Outcome]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for claim, outcome in zip(claims, outcomes, strict=True):
        groups.setdefault(outcome.kind, []).append(claim.short)
    return groups


def count_explanation(claims: Sequence[Claim], outcomes: Sequence[Outcome]) -> str:
    """How many claims hold here, and how many this run could not settle."""
    groups = _grouped(claims, outcomes)
    held = len(groups.get("holds", []))
    unsettled = sum(len(groups.get(kind, [])) for kind in OTHER_VERDICTS)
    return f"{held} of {len(claims)} hold here" + (
        f"; {unsettled} could go either way." if unsettled else "."
    )


_ADVICE = {
    "changed": "auto-reset waits for the next call; `final_observation` is gone",
    "never_valid": "PPO takes SB3's own vector env, from `make_vec_env`",
    "not_visible": "compare averages over many runs, not one small run",
}


def takeaways(claims: Sequence[Claim], outcomes: Sequence[Outcome]) -> list[str]:
    """The page's "Key takeaways", one per verdict kind this run gave (at most 5)."""
    groups = _grouped(claims, outcomes)
    bullets = [
        f"**{verdict(kind).label}**: {_ADVICE[kind]}."
        for kind in ("changed", "never_valid", "not_visible")
        if kind in groups
    ]
    return bullets


PAGE_NAMES = {
    "batch_shapes.py": "Batch shapes",
    "autoreset.py": "Auto-reset",
    "goal_scaling.py": "Goal scaling",
    "home.py": "Home",
    "sb3.py": "Stable-Baselines3",
    "why_batches.py": "Why batches help",
}
"""The sidebar's name of each page a row links to."""


def markdown_table(rows: Sequence[Mapping[str, str]]) -> str:
    """Rows (same keys) as one Markdown table, a ``|`` inside a cell escaped, code spans plain.

    >>> print(markdown_table([{"a": "x|y", "b": "z"}]))
    | a | b |
    | --- | --- |
    | x\\|y | z |
    """
    head = list(rows[0])
    # Code spans do not wrap: on a phone a long one would push the table past the screen.
    cells = [[str(row[key]).replace("|", "\\|").replace("`", "") for key in head] for row in rows]
    lines = [head, ["---"] * len(head), *cells]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def _url(page: str) -> str:
    """A page's address relative to the app (Home is the app's default page: its root)."""
    return "./" if page == "home.py" else page.removesuffix(".py")


def table_rows(claims: Sequence[Claim], outcomes: Sequence[Outcome]) -> list[dict[str, str]]:
    """One row per claim: the lesson's claim with the page that shows it (a Markdown link),
    and today: its kind (a badge) and the live check's sentence. Two columns fit a phone."""
    return [
        {
            "The lesson": f"{claim.lesson_says} ([{PAGE_NAMES[claim.page]}]({_url(claim.page)}))",
            "Today": f"{verdict(outcome.kind).badge()} {outcome.summary}",
        }
        for claim, outcome in zip(claims, outcomes, strict=True)
    ]


CLAIMS = [
    Claim(
        "factory_pattern",
        "The factory pattern and batch shapes",
        "the factory pattern and batch shapes",
        "4 CartPoles from factories: observations (4, 4), actions (4,), 4 rewards, 4 flags.",
        judge_factory_pattern,
        "batch_shapes.py",
    ),
    Claim(
        "autoreset_timing",
        "When an episode ends, what does step() return?",
        "auto-reset timing",
        "The step that ends an episode already returns the next episode's first observation.",
        judge_autoreset_timing,
        "autoreset.py",
    ),
    Claim(
        "final_observation_key",
        "Where is the last observation of an episode?",
        '`infos["final_observation"]`',
        'The ended episode\'s last observation is kept in infos, under "final_observation".',
        judge_final_observation_key,
        "autoreset.py",
    ),
    Claim(
        "goal_counts",
        "Goal counts with 4 and 8 environments",
        "goals doubling in 500 steps",
        "500 random steps with 8 BurgerBots give roughly double the goals of 4.",
        judge_goal_counts,
        "goal_scaling.py",
        ("numpy",),
    ),
    Claim(
        "speed",
        "How fast is BurgerBot?",
        "a million steps a second",
        "BurgerBot can step about a million times a second.",
        judge_speed,
        "home.py",
        ("gymnasium", "numpy"),
    ),
    Claim(
        "sb3_n_envs",
        "Telling PPO how many environments to use",
        "`PPO(..., n_envs=4)`",
        '`PPO("MlpPolicy", env, n_envs=4)` trains on 4 envs.',
        judge_sb3_n_envs,
        "sb3.py",
        ("stable-baselines3",),
    ),
    Claim(
        "sb3_gymnasium_vector",
        "Giving PPO a Gymnasium vector env",
        "a `SyncVectorEnv` given to PPO",
        "A vector env of N copies can go straight to PPO.",
        judge_sb3_gymnasium_vector,
        "sb3.py",
        ("stable-baselines3", "gymnasium"),
    ),
    Claim(
        "sb3_n_steps",
        "How many step() calls fill a PPO update",
        "2048 steps in 512 calls",
        "If PPO collects, say, 2048 steps per update, 4 envs need 512 `step()` calls.",
        judge_sb3_n_steps,
        "why_batches.py",
        ("stable-baselines3",),
    ),
]
"""The lesson's claims, in the lesson's order (the page shows them so)."""
