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
from burgerbot.random_agent import episode_odds, goal_odds, long_run_goal_rate

__all__ = [
    "CLAIMS",
    "COUNT_OPTIONS",
    "ERRATA",
    "Claim",
    "Erratum",
    "Outcome",
    "count_explanation",
    "count_truth",
    "errata",
    "goal_erratum",
    "recorded_scripts",
    "run_claim",
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
    return (
        "holds" if holds else "changed",
        f"Observations {shapes[0]}, sampled actions {shapes[1]}, rewards {shapes[2]}, "
        f"terminated {shapes[3]}: {'as the lesson says' if holds else 'not what the lesson says'}.",
    )


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
            f"The ending call returned {ending} (reward {v['ending call, env 0 reward']}), the "
            f"episode's final observation, not the start {start}. The next call returned {after} "
            "with reward 0.0: that call reset env 0 and ignored its action. Gymnasium 0.29 reset "
            "inside the ending call; since 1.0 the default (NEXT_STEP) waits for the next one."
        )
    return "not_confirmed", f"The ending call returned {ending}, the next one {after}."


def judge_final_observation_key(v: Mapping[str, str]) -> Judgement:
    keys = {name.split()[0]: value for name, value in v.items() if "infos keys" in name}
    listed = "; ".join(f"{mode}: {value}" for mode, value in keys.items())
    if any("'final_observation'" in value for value in keys.values()):
        return "holds", f"`infos` keys on the ending call: {listed}."
    return "changed", (
        f"`infos` keys on the ending call: {listed}. `final_observation` is gone (it was "
        'gymnasium 0.29\'s key): in SAME_STEP mode the final observation is `infos["final_obs"]`; '
        "in the default NEXT_STEP mode it is the `obs` the ending call returns."
    )


def judge_goal_counts(v: Mapping[str, str]) -> Judgement:
    mean4, mean8 = float(v["N=4 mean goals per learner"]), float(v["N=8 mean goals per learner"])
    zero4 = float(v["N=4 share of learners who saw 0 goals"])
    zero8 = float(v["N=8 share of learners who saw 0 goals"])
    ratio = float(v["ratio of the averages, 8 envs / 4 envs"])
    low, high = float(v["95% interval low"]), float(v["95% interval high"])
    doubles = low <= 2.0 <= high
    average = (
        f"Over 5,000 simulated learners, 8 envs gave {ratio:.2f}x the goals of 4 ({mean8:.3f} "
        f"vs {mean4:.3f} per learner; 95% interval {low:.2f} to {high:.2f}): "
        + ("doubling fits." if doubles else "doubling does not fit this run.")
    )
    seen = f" But {zero4:.0%} of learners with 4 envs and {zero8:.0%} with 8 saw 0 goals: one run "
    if not doubles:
        return "not_confirmed", average
    if zero4 > 0.5 and zero8 > 0.5:
        return "not_visible", average + seen + "almost never shows it."
    return "holds", average + seen + "often shows it."


def judge_speed(v: Mapping[str, str]) -> Judgement:
    plain = float(v["straightforward BurgerBot, steps/s"])
    table = float(v["BurgerBotEnv (table look-ups), steps/s"])
    native = float(v["BurgerBotVectorEnv with 4096 envs, env-steps/s"])
    # The straightforward loop's rate in each round: the verdict follows their spread.
    rounds = [
        float(x) for x in v.get("straightforward BurgerBot, steps/s in each round", "").split()
    ]
    rounds = rounds or [plain]
    low, high = min(rounds), max(rounds)
    spread = (
        f" (medians of {len(rounds)} rounds taken in turns; the straightforward one ranged from "
        f"{low:,.0f} to {high:,.0f})"
        if len(rounds) > 1
        else ""
    )
    rates = (
        f"Steps a second in a plain loop here: {plain:,.0f} for a straightforward BurgerBot (as "
        f"a learner writes it), {table:,.0f} for this app's table-driven `BurgerBotEnv`. This "
        f"project's batched `BurgerBotVectorEnv` (not Gymnasium's): {native:,.0f} env-steps a "
        f"second at 4,096 envs{spread}."
    )
    line = ABOUT_A_MILLION[0]
    if low < line <= high:
        return "depends", rates + (
            f" Its rounds fell either side of {line:,.0f}: too close to call on this machine, now."
        )
    return speed_verdict(plain, rates)


ABOUT_A_MILLION = (750_000, 1_500_000)
"""Rates that read as "about a million" (they round to one million at one significant figure,
give or take): below, the lesson's figure does not hold here; above, it is beaten."""


def speed_verdict(plain: float, rates: str = "") -> Judgement:
    """The speed claim's verdict and sentence from a plain loop's steps a second.

    Example:
        >>> speed_verdict(550_000)
        ('depends', " 55% of the lesson's million: below it on this machine, now.")
        >>> speed_verdict(900_000)[1], speed_verdict(2_400_000)[1]
        (' About a million, as the lesson says.', ' 2.4 million: more than the lesson says.')
    """
    low, high = ABOUT_A_MILLION
    if plain < low:
        return "depends", (
            rates + f" {plain / ONE_MILLION:.0%} of the lesson's million: below it on this "
            "machine, now."
        )
    if plain < high:
        return "holds", rates + " About a million, as the lesson says."
    return "holds", rates + f" {plain / ONE_MILLION:.1f} million: more than the lesson says."


def judge_sb3_n_envs(v: Mapping[str, str]) -> Judgement:
    result = v["PPO(..., n_envs=4)"]
    if result == "accepted":
        return "holds", "PPO accepted `n_envs=4`."
    return "never_valid", (
        f"Here: `{result}`. PPO has no `n_envs` parameter, and no release had one (checked for "
        "this app from stable-baselines3 0.6 to 2.9). Use "
        "`make_vec_env(burgerbot_factory(), n_envs=4)`."
    )


def judge_sb3_gymnasium_vector(v: Mapping[str, str]) -> Judgement:
    result = v["PPO(..., SyncVectorEnv)"]
    if result.startswith("accepted"):
        n_envs = int(result.rsplit("=", 1)[1])
        if n_envs == 4:
            return "holds", "PPO accepted the SyncVectorEnv as 4 envs."
        return "never_valid", f"PPO built a model on it, but as {n_envs} env, not 4."
    error = result.split(":", 1)[0]
    return "never_valid", (
        f"Here PPO refused it with `{error}`: today's SB3 trains only on its own `VecEnv` "
        "classes. No release trained on a Gymnasium vector env as 4 envs: older ones took it "
        "for *one* env, and with the lesson's gymnasium 0.29, stable-baselines3 2.3.2 built a "
        "one-env model on a (4, 4) observation that crashed as soon as it trained (checked once "
        "for this app). Use `make_vec_env`."
    )


def judge_sb3_n_steps(v: Mapping[str, str]) -> Judgement:
    default = int(v["PPO's default n_steps"])
    calls = int(v[f"n_steps={default}, step() calls per update"])
    transitions = int(v[f"n_steps={default}, transitions per update"])
    lesson_calls = int(v["n_steps=512, step() calls per update"])
    lesson_transitions = int(v["n_steps=512, transitions per update"])
    if transitions == 2048:
        return "holds", f"With the default n_steps={default}, an update holds 2,048 transitions."
    return "imprecise", (
        f"With PPO's default n_steps={default} and 4 envs, an update holds {transitions:,} "
        f"transitions from {calls:,} `step()` calls: `n_steps` counts calls per env, as it always "
        f"has. The lesson's numbers need n_steps=512: {lesson_transitions:,} transitions in "
        f"{lesson_calls:,} calls."
    )


@dataclass(frozen=True)
class Claim:
    """A claim of the lesson, the script that checks it, and how to judge what it printed."""

    name: str
    topic: str
    short: str
    lesson_says: str
    judge: Callable[[Mapping[str, str]], Judgement]
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
    not_run = sum(outcome.kind == "not_run" for outcome in outcomes)
    answer = _count_option(held)
    return answer if _count_option(held + not_run) == answer else None


def _grouped(claims: Sequence[Claim], outcomes: Sequence[Outcome]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for claim, outcome in zip(claims, outcomes, strict=True):
        groups.setdefault(outcome.kind, []).append(claim.short)
    return groups


def count_explanation(claims: Sequence[Claim], outcomes: Sequence[Outcome]) -> str:
    """Which claims hold, and how many fell under each other verdict, in this run."""
    groups = _grouped(claims, outcomes)
    held = groups.pop("holds", [])
    parts = [f"{len(names)} {verdict(kind).label.lower()}" for kind, names in groups.items()]
    return (
        f"{len(held)} of {len(claims)} hold as written here"
        + (f" ({', '.join(held)})" if held else "")
        + (f"; the others: {', '.join(parts)}." if parts else ".")
    )


_ADVICE = {
    "changed": "Read the final observation from `obs` of the ending call (NEXT_STEP), or set "
    'SAME_STEP and read `infos["final_obs"]`',
    "never_valid": "Build SB3's envs with `make_vec_env(burgerbot_factory(), n_envs=4)`, "
    "then give them "
    "to PPO",
    "imprecise": "An update holds `n_steps x n_envs` transitions",
    "not_visible": "One small run shows noise; compare averages over many runs",
}


def takeaways(claims: Sequence[Claim], outcomes: Sequence[Outcome]) -> list[str]:
    """The page's "Key takeaways", one per verdict kind this run gave (at most 5)."""
    groups = _grouped(claims, outcomes)
    bullets = []
    for kind in ("changed", "never_valid", "imprecise", "not_visible", "holds"):
        if kind in groups:
            advice = f" {_ADVICE[kind]}." if kind in _ADVICE else ""
            bullets.append(f"**{verdict(kind).label}**: {', '.join(groups[kind])}.{advice}")
    others = [name for kind in OTHER_VERDICTS for name in groups.get(kind, [])]
    if others:
        bullets.append(f"Not settled by this run: {', '.join(others)}.")
    return bullets[:5]


CLAIMS = [
    Claim(
        "factory_pattern",
        "The factory pattern and batch shapes",
        "the factory pattern and batch shapes",
        "A list of zero-argument callables goes into SyncVectorEnv; with 4 CartPoles, reset "
        "gives observations of shape (4, 4), a sampled action has shape (4,), and step gives "
        "4 rewards and 4 terminated flags.",
        judge_factory_pattern,
    ),
    Claim(
        "autoreset_timing",
        "When an episode ends, what does step() return?",
        "auto-reset timing",
        "The observation returned on the ending step already belongs to the next episode: the "
        "environment has reset itself inside that same call.",
        judge_autoreset_timing,
    ),
    Claim(
        "final_observation_key",
        "Where is the last observation of an episode?",
        '`infos["final_observation"]`',
        'The ended episode\'s last observation is kept in infos["final_observation"].',
        judge_final_observation_key,
    ),
    Claim(
        "goal_counts",
        "Goal counts with 4 and 8 environments",
        "goals doubling in 500 steps",
        "Run 500 random steps with 4 BurgerBots, then 8: the number of goals should roughly "
        "double.",
        judge_goal_counts,
        ("numpy",),
    ),
    Claim(
        "speed",
        "How fast is BurgerBot?",
        "a million steps a second",
        "BurgerBot can step about a million times per second.",
        judge_speed,
        ("gymnasium", "numpy"),
    ),
    Claim(
        "sb3_n_envs",
        "Telling PPO how many environments to use",
        "`PPO(..., n_envs=4)`",
        'Pass n_envs=4 to PPO: PPO("MlpPolicy", env, n_envs=4).',
        judge_sb3_n_envs,
        ("stable-baselines3",),
    ),
    Claim(
        "sb3_gymnasium_vector",
        "Giving PPO a Gymnasium vector env",
        "a `SyncVectorEnv` given to PPO",
        "Stable-Baselines3 is built on the vector-env pattern, so a vector env of N copies can "
        "be handed to PPO.",
        judge_sb3_gymnasium_vector,
        ("stable-baselines3", "gymnasium"),
    ),
    Claim(
        "sb3_n_steps",
        "How many step() calls fill a PPO update",
        "2048 steps in 512 calls",
        "PPO collects 2048 steps per update; with 4 envs that takes 512 step() calls.",
        judge_sb3_n_steps,
        ("stable-baselines3",),
    ),
]
"""The lesson's claims, in the lesson's order (the page shows them so)."""


# --- The errata: the lesson's code that does not work as written today, each in a line -------

SB3_FIX = "make_vec_env(burgerbot_factory(), n_envs=4)"
TARGET_GOALS = 20
"""Goals expected per setting before a doubling stands out from the noise."""
LESSON_CALLS = 500
"""The lesson's experiment: 500 `step()` calls with 4 envs, then with 8."""


@dataclass(frozen=True)
class Erratum:
    """One place where the lesson does not hold as written today, the fix, and the page that
    runs it."""

    kind: str
    """A key of `burgerbot.app.labels.VERDICTS`."""
    problem: str
    fix: str
    page: str
    """The file in app_pages/ that runs it."""
    link: str
    detail: str = ""
    """More on it, for a tooltip."""


def goal_erratum() -> Erratum:
    """The goal experiment's line, its counts exact from the world's rules (`random_agent`)."""
    odds = episode_odds()
    per_goal = 1 / long_run_goal_rate()
    needed = float(f"{TARGET_GOALS * per_goal:.2g}")
    return Erratum(
        "not_visible",
        f"{LESSON_CALLS} steps with 4 envs, then 8: the goal count roughly doubles",
        f"true on average, but with 4 envs: {goal_odds(LESSON_CALLS, 4).describe()}; with 8: "
        f"{goal_odds(LESSON_CALLS, 8).describe()}",
        "goal_scaling.py",
        "Goal scaling",
        f"A random BurgerBot reaches the goal in 1 episode of {1 / odds.goal_chance:,.0f}. An "
        f"episode takes {odds.mean_rows:.1f} rows of a vector env on average ("
        f"{odds.mean_length:.1f} steps and its auto-reset row), so the long-run rate is one "
        f"goal per {per_goal:,.0f} env-steps (all exact, from the world's rules). Seeing the "
        f"doubling takes about {needed:,.0f} env-steps per setting ({TARGET_GOALS} goals "
        "expected), or many seeds.",
    )


ERRATA = (
    Erratum(
        "changed",
        "the call that ends an episode returns the next episode's first observation",
        "it returns the final one; the *next* call resets that env (NEXT_STEP)",
        "autoreset.py",
        "Auto-reset",
        "Since gymnasium 1.0 the default is `AutoresetMode.NEXT_STEP`: the reset call ignores "
        "that env's action and returns reward 0 with both flags False.",
    ),
    Erratum(
        "changed",
        '`infos["final_observation"]`',
        'gone: `obs` of the ending call (NEXT_STEP), or `infos["final_obs"]` (SAME_STEP)',
        "autoreset.py",
        "Auto-reset",
        "`gym.vector.SyncVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP)` behaves as the "
        "lesson says, with the keys `final_obs` and `final_info` (and masks `_final_obs`, "
        "`_final_info`).",
    ),
    Erratum(
        "never_valid",
        '`PPO("MlpPolicy", env, n_envs=4)`',
        f"`{SB3_FIX}`, then pass that to PPO",
        "sb3.py",
        "SB3",
        "No Stable-Baselines3 release had an `n_envs` argument on PPO: a mistake in the "
        "lesson's text, not a change in the library.",
    ),
    Erratum(
        "never_valid",
        "a Gymnasium `SyncVectorEnv` given to PPO",
        "SB3's own VecEnv (`make_vec_env` builds a `DummyVecEnv`)",
        "sb3.py",
        "SB3",
        "No Stable-Baselines3 release ever trained on a Gymnasium vector env as N envs (older "
        "releases took it for one env with a batched observation and failed in training); "
        "SB3's own VecEnvs reset on the same step and keep the last observation in "
        '`infos[i]["terminal_observation"]`.',
    ),
    Erratum(
        "imprecise",
        "PPO's 2048 steps per update take 512 `step()` calls with 4 envs",
        "only with `n_steps=512`: `n_steps` counts calls *per env* (the default 2048 gives "
        "8,192 transitions)",
        "sb3.py",
        "SB3",
        "An update holds `n_steps x n_envs` transitions, as it always has in SB3.",
    ),
)
"""The lines whose wording is fixed; `goal_erratum` gives the goal experiment's line."""


def errata() -> list[Erratum]:
    """Every erratum, in the lesson's order (the goal experiment before SB3)."""
    return [*ERRATA[:2], goal_erratum(), *ERRATA[2:]]
