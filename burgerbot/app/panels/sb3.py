"""Drawing blocks of the Stable-Baselines3 page (what the page shows; the page says when)."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.charts.why_batches import ppo_episode_chart
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS
from burgerbot.app.markdown import markdown_table
from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.scripts import sb3 as snippets
from burgerbot.app.views.sb3 import INSTALL_COMMAND
from burgerbot.app.views.sb3_learning import (
    agreement_sentence,
    n_envs_sentence,
    n_steps_sentence,
    printed,
)
from burgerbot.app.views.sb3_side_by_side import GYM_NEXT_STEP, GYM_SAME_STEP, SB3, SideBySide
from burgerbot.app.views.sb3_training import PPOResult

__all__ = [
    "agreement",
    "around_first_end",
    "how_sb3_vectorises",
    "install_status",
    "lesson_calls",
    "ppo_outcome",
    "show_outcome",
]

_AGREE_HELP = "(step, env) pairs where observation, reward and done flag are the same as SB3's."

_CAPTIONS = {
    SB3: "`dones[i]` is True and `obs[i]` is already the next start. The last "
    'observation is in `infos[i]["terminal_observation"]`.',
    GYM_SAME_STEP: "Same as SB3, but the flags are `terminated` / `truncated` and "
    'the last observation is in `infos["final_obs"][i]`.',
    GYM_NEXT_STEP: "Gymnasium's default since 1.0: the ending step returns the last "
    "observation itself; the next call resets (reward 0, action ignored).",
}


def install_status(version: str | None) -> None:
    """Whether SB3 is here: its version, or how to install it."""
    if version is not None:
        st.caption(
            f"✅ stable-baselines3 **{version}** is installed here: everything on this page runs "
            "live."
        )
    else:
        st.info(
            "**stable-baselines3 is not installed here**, so the SB3 parts of this page are "
            "described, not run. The Gymnasium parts still run live. To run everything, install "
            "the optional extra (CPU-only torch: about 190 MB to download, 900 MB on disk) and "
            f"restart the app: `{INSTALL_COMMAND}`",
            icon="📦",
        )


def show_outcome(result: ScriptRun) -> None:
    """What a script did when the page ran it: the error it raised or what it printed."""
    if result.error is not None:
        error = result.error
        st.error(f"It raised **{error.type}** at `{error.location}`: `{error.headline}`", icon="🚫")
    else:
        st.success("It ran without an error and printed:", icon="✅")
        st.code(result.output, language="text")


def _call_tab(code: str, name: str, result: ScriptRun | None, without_sb3: str) -> None:
    learning.script_block(code, name=name)
    if result is None:
        st.caption(without_sb3)
    else:
        show_outcome(result)


def lesson_calls(calls: dict[str, ScriptRun] | None, num_envs: int) -> None:
    """The lesson's two PPO calls and the fix, in tabs: as they ran, or (without SB3) as
    scripts with what they do."""
    never = VERDICTS["never_valid"].badge()

    def n_envs_tab() -> None:
        sentence = (
            n_envs_sentence(calls["n_envs"])
            if calls
            else "PPO's constructor has no `n_envs` parameter in any SB3 release, so Python "
            "raises a `TypeError` about an unexpected keyword argument."
        )
        st.markdown(f"{never} {sentence}")
        _call_tab(
            snippets.n_envs_wrong(num_envs),
            "the lesson's n_envs call",
            calls and calls["n_envs"],
            "Not run here (stable-baselines3 is not installed).",
        )

    def vector_tab() -> None:
        st.markdown(
            f"{never} PPO trains on SB3's own {term_link('vecenv', 'VecEnv')} classes and treats "
            "any other env as *one* env: no release ever trained on a Gymnasium vector env as N "
            "envs. Today's SB3 refuses it at once, with a message about the old OpenAI `gym` "
            "package: misleading, but the fix is the same."
        )
        st.caption(
            "With the lesson's gymnasium 0.29, stable-baselines3 2.3.2 built a model on it as "
            "one env with a (4, 4) observation, which crashed as soon as it trained (checked "
            "once for this app, not live here)."
        )
        _call_tab(
            snippets.gymnasium_vector_wrong(num_envs),
            "a SyncVectorEnv given to PPO",
            calls and calls["gymnasium_vector"],
            f"Not run here: stable-baselines3 2.9 stops with {snippets.GYMNASIUM_VECTOR_ERROR}.",
        )

    def fixed_tab() -> None:
        if calls and not calls["fixed"].raised:
            values = printed(calls["fixed"].output)
            st.markdown(f"{VERDICTS['imprecise'].badge()} {n_steps_sentence(values)}")
        else:
            st.markdown(
                f"{VERDICTS['imprecise'].badge()} The lesson's \"2048 steps in 512 calls with 4 "
                "envs\": SB3's `n_steps` counts `step()` calls *per env* (its default 2048 gives "
                "8,192 transitions with 4 envs); pass `n_steps=512` for the lesson's numbers."
            )
        _call_tab(
            snippets.ppo_fixed(num_envs),
            "the lesson's PPO call fixed",
            calls and calls["fixed"],
            "Not run here (stable-baselines3 is not installed).",
        )

    ui.lazy_tabs(
        "sb3_lesson_calls",
        [
            (f"❌ PPO(..., n_envs={num_envs})", n_envs_tab),
            ("❌ A Gymnasium SyncVectorEnv given to PPO", vector_tab),
            ("✅ The fix: make_vec_env", fixed_tab),
        ],
    )


def how_sb3_vectorises() -> None:
    """make_vec_env, DummyVecEnv and SubprocVecEnv, with a short whole script."""
    st.markdown(
        f"""
- **`make_vec_env(make_env(), n_envs=4)`** calls the thunk `make_env()` returns
  ({term_link("factory", "factory")}) 4 times and wraps each copy in a `Monitor` (it records
  episode returns and lengths).
- By default the copies go into a **`DummyVecEnv`**: one process, stepped one after another,
  like Gymnasium's `SyncVectorEnv`: the usual choice for a cheap env like BurgerBot.
- **`vec_env_cls=SubprocVecEnv`**: one worker process per copy, like `AsyncVectorEnv`. The
  workers start by importing your script again (as with {term_link("spawn", "spawn")}), hence
  `if __name__ == "__main__":`.
- Even one env is wrapped in a `DummyVecEnv`: SB3's algorithms only ever see vector envs.
"""
    )
    ui.lazy_expander(
        "Code: make_vec_env and PPO, as a whole script",
        lambda: learning.script_block(snippets.make_vec_env_script(4), name="make_vec_env and PPO"),
        icon="🐍",
    )


def agreement(result: SideBySide) -> None:
    """With SB3: how many (step, env) pairs each Gymnasium mode shares with SB3, and why."""
    st.markdown(agreement_sentence(result), help=_AGREE_HELP)


def around_first_end(
    around: tuple[int, int, dict[str, pd.DataFrame]] | None, have_sb3: bool
) -> None:
    """One env around the first episode end: a tab per library, each with what it shows."""
    if around is None:
        st.warning("No episode ended in this run: try more step() calls or another seed.")
        return
    end_step, end_env, tables = around
    shown = next(iter(tables.values()))["step"]
    st.markdown(
        f"**Env {end_env}, steps {shown.min()} to {shown.max()}**: its episode ends at step "
        f"{end_step}. *obs* is what `step()` returned for this env; *last obs* is the ended "
        f"episode's {term_link('final-observation')}, where each library puts it."
    )

    def draw(library: str, table: pd.DataFrame) -> None:
        st.caption(_CAPTIONS[library])
        # A few rows: a Markdown table costs the browser far less than a dataframe widget.
        st.markdown(markdown_table(table))

    ui.lazy_tabs(
        "sb3_first_end",
        [(library, partial(draw, library, table)) for library, table in tables.items()],
    )
    if not have_sb3:
        st.caption(
            "With stable-baselines3 installed, a third tab shows SB3's `DummyVecEnv` "
            "on the same actions: it matches the SAME_STEP table row for row."
        )


def ppo_outcome(ppo: PPOResult) -> None:
    """A finished PPO run: its numbers, its episodes' returns, and the greedy policy."""
    r1, r2, r3, r4 = st.columns(4)
    r1.metric("training time", f"{ppo.train_seconds:.1f} s")
    r2.metric("updates", ppo.updates)
    r3.metric("transitions per update", f"{ppo.transitions_per_update:,}")
    r4.metric("episodes finished", len(ppo.episodes))
    st.caption(
        f"Plus {ppo.setup_seconds:.2f} s to build the network (and to import SB3 and torch, "
        "the first time). "
        f"stable-baselines3 {ppo.versions.get('stable-baselines3')}, torch "
        f"{ppo.versions.get('torch')}, one CPU thread, on this server."
    )
    if len(ppo.episodes):
        episodes = ppo.episodes["return"]
        window = min(20, max(1, len(episodes) // 2))
        goals = int(ppo.episodes["reached_goal"].sum())
        first_mean, last_mean = episodes.head(window).mean(), episodes.tail(window).mean()
        learning.chart_with_table(
            learning.chart_spec(ppo_episode_chart, ppo.episodes),
            ppo.episodes,
            caption=f"Mean return of the first {window} episodes: {first_mean:.1f}; of the "
            f"last {window}: {last_mean:.1f}. {goals} of {len(episodes)} training episodes "
            "reached the goal.",
        )
    outcome = "reaches the goal" if ppo.greedy_reaches_goal else "does not reach the goal"
    timed_out = not ppo.greedy_reaches_goal and ppo.greedy_steps >= 150
    st.markdown(
        f"Following the trained policy greedily from the start, the robot **{outcome}**: "
        f"return {ppo.greedy_return:.1f} after {ppo.greedy_steps} steps."
        + (
            " The episode ran into the 150-step time limit: the policy avoids crashing, "
            "but it does not find the goal either."
            if timed_out
            else ""
        )
    )
