"""Drawing blocks of the Stable-Baselines3 page (what the page shows; the page says when)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from burgerbot.app.charts.why_batches import ppo_episode_chart
from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.scripts import sb3 as snippets
from burgerbot.app.views.sb3 import INSTALL_COMMAND, PPO_N_STEPS
from burgerbot.app.views.sb3_side_by_side import GYM_NEXT_STEP, GYM_SAME_STEP, SB3, SideBySide
from burgerbot.app.views.sb3_training import PPOResult

__all__ = [
    "agreement",
    "around_first_end",
    "how_sb3_vectorises",
    "install_status",
    "lesson_calls",
    "lesson_calls_described",
    "ppo_outcome",
    "show_call",
]

_AGREE_HELP = "(step, env) pairs where observation, reward and done flag are the same as SB3's."

_CAPTIONS = {
    SB3: "`dones[i]` is True and `obs[i]` is already the next start. The last "
    'observation is in `infos[i]["terminal_observation"]`.',
    GYM_SAME_STEP: "Same as SB3, but the flags are `terminated` / `truncated` and "
    'the last observation is in `infos["final_obs"][i]`.',
    GYM_NEXT_STEP: "Gymnasium's default: the ending step returns the last "
    "observation itself; the next call resets (reward 0, action ignored).",
}


def install_status(version: str | None) -> None:
    """Whether SB3 is here: its version, or how to install it."""
    if version is not None:
        st.success(
            f"stable-baselines3 **{version}** is installed here: everything on this page runs "
            "live.",
            icon="✅",
        )
    else:
        st.info(
            "**stable-baselines3 is not installed here**, so the SB3 parts of this page are "
            "described, not run. The Gymnasium parts still run live. To run everything, install "
            "the optional extra (CPU-only torch: about 190 MB to download, 900 MB on disk) and "
            "restart the app:\n\n"
            f"```\n{INSTALL_COMMAND}\n```",
            icon="📦",
        )


def how_sb3_vectorises() -> None:
    """Section 1: make_vec_env, DummyVecEnv and SubprocVecEnv, with a short example."""
    left, right = st.columns([1, 1])
    with left:
        st.markdown(
            """
- **`make_vec_env(make_env(), n_envs=4)`** takes the same kind of factory as Gymnasium
  (a function with no arguments that builds one env), calls it 4 times and wraps every
  copy in a `Monitor` (which records episode returns and lengths).
- By default the copies go into a **`DummyVecEnv`**: all in this process, stepped one after
  another. That is SB3's counterpart of Gymnasium's `SyncVectorEnv`, and the right choice
  for a cheap env like BurgerBot.
- With `vec_env_cls=SubprocVecEnv` each copy runs in its own worker process, like
  Gymnasium's `AsyncVectorEnv`. It only pays off when one `step()` is expensive.
- Even with `n_envs=1`, SB3 wraps a single env in a `DummyVecEnv`: its algorithms only ever
  see vector envs.
"""
        )
    with right:
        st.code(
            """from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

from burgerbot.factories import make_env

# 4 copies in this process (a DummyVecEnv):
vec_env = make_vec_env(make_env(), n_envs=4)
# or 4 worker processes:
# vec_env = make_vec_env(
#     make_env(), n_envs=4, vec_env_cls=SubprocVecEnv
# )
model = PPO("MlpPolicy", vec_env)
""",
            language="python",
        )


def agreement(result: SideBySide) -> None:
    """With SB3: how many (step, env) pairs each Gymnasium mode shares with SB3, and why."""
    pairs = result.pairs
    m1, m2, m3 = st.columns(3)
    m1.metric("episodes that ended", result.episodes_ended)
    m2.metric("SAME_STEP = SB3", f"{result.agree[GYM_SAME_STEP]} of {pairs}", help=_AGREE_HELP)
    m3.metric("NEXT_STEP = SB3", f"{result.agree[GYM_NEXT_STEP]} of {pairs}", help=_AGREE_HELP)
    first = result.first_difference[GYM_NEXT_STEP]
    same_first = result.first_difference[GYM_SAME_STEP]
    st.markdown(
        (
            "**SAME_STEP mode behaves exactly like SB3** on every pair: same "
            "observations, rewards and episode ends."
            if same_first is None
            else f"SAME_STEP first differs from SB3 at step {same_first[0]}, env {same_first[1]}."
        )
        + (
            f" **NEXT_STEP** first differs at step {first[0]} (env {first[1]}), where an "
            "episode ends: it returns the episode's last observation there, while SB3 "
            "already returns the next start. Its next call only resets that env and "
            "ignores its action, so from then on that robot is one action behind."
            if first is not None
            else " NEXT_STEP matched too: no episode ended early enough to show a "
            "difference. Try more steps."
        )
    )


def around_first_end(
    around: tuple[int, int, dict[str, pd.DataFrame]] | None, have_sb3: bool
) -> None:
    """One env around the first episode end: a table per library, each with what it shows."""
    if around is None:
        st.warning("No episode ended in this run: try more step() calls or another seed.")
        return
    end_step, end_env, tables = around
    st.markdown(
        f"**Env {end_env}, steps {max(1, end_step - 1)} to {end_step + 2}.** Its episode "
        f"ends at step {end_step}. *obs* is what `step()` returned for this env; *last obs* "
        "is the ended episode's final observation, where each library puts it."
    )
    for library, table in tables.items():
        table_column, text_column = st.columns([3, 2], vertical_alignment="center")
        with table_column:
            st.markdown(f"**{library}**")
            st.dataframe(table, hide_index=True)
        text_column.markdown(_CAPTIONS[library])
    if not have_sb3:
        st.caption(
            "With stable-baselines3 installed, a third table shows SB3's `DummyVecEnv` "
            "on the same actions: it matches the SAME_STEP table row for row."
        )


def show_call(result: ScriptRun, title: str) -> None:
    """A script as it ran: the code, then the error it raised or what it printed."""
    st.markdown(title)
    st.code(result.code, language="python")
    if result.error is not None:
        error = result.error
        st.error(f"It raised **{error.type}** at `{error.location}`:", icon="🚫")
        st.code(error.headline, language="text", wrap_lines=True)
    else:
        st.success("It ran without an error and printed:", icon="✅")
        st.code(result.output, language="text")


def lesson_calls(calls: dict[str, ScriptRun]) -> None:
    """With SB3: the two invalid calls and the fix, as they ran."""
    wrong_a, wrong_b = st.columns(2)
    with wrong_a:
        show_call(calls["n_envs"], "❌ **`n_envs` given to PPO**")
        st.caption("PPO has no `n_envs` argument: the number of envs comes from the env.")
    with wrong_b:
        show_call(calls["gymnasium_vector"], "❌ **A Gymnasium `SyncVectorEnv` given to PPO**")
        st.caption(
            "SB3 checks the env's type. A Gymnasium vector env is neither an SB3 "
            "`VecEnv` nor a single Gymnasium env, so SB3 falls back to its check for the "
            "old `gym` package, whose message talks about OpenAI Gym: misleading, but "
            "the fix is the same: give PPO an SB3 `VecEnv`."
        )
    show_call(calls["fixed"], "✅ **The fix: `make_vec_env(..., n_envs=N)`, then PPO**")


def lesson_calls_described(num_envs: int) -> None:
    """Without SB3: the same three scripts, with what they would do."""
    wrong_a, wrong_b = st.columns(2)
    with wrong_a:
        st.markdown("❌ **`n_envs` given to PPO**")
        st.code(snippets.n_envs_wrong(num_envs), language="python")
        st.caption(
            "PPO's constructor has no `n_envs` parameter, so Python raises a `TypeError` "
            "about an unexpected keyword argument `n_envs`."
        )
    with wrong_b:
        st.markdown("❌ **A Gymnasium `SyncVectorEnv` given to PPO**")
        st.code(snippets.gymnasium_vector_wrong(num_envs), language="python")
        st.caption(
            "SB3 only accepts its own `VecEnv` classes or a single Gymnasium env, so it "
            "rejects this one with an error. Install stable-baselines3 to see the exact "
            "message."
        )
    st.markdown("✅ **The fix: `make_vec_env(..., n_envs=N)`, then PPO**")
    st.code(snippets.ppo_fixed(num_envs, PPO_N_STEPS), language="python")


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
        f"{ppo.versions.get('torch')}, one CPU thread."
    )
    if len(ppo.episodes):
        st.altair_chart(ppo_episode_chart(ppo.episodes), width="stretch")
        episodes = ppo.episodes["return"]
        window = min(20, max(1, len(episodes) // 2))
        goals = int(ppo.episodes["reached_goal"].sum())
        first_mean, last_mean = episodes.head(window).mean(), episodes.tail(window).mean()
        st.markdown(
            f"Mean return of the first {window} episodes: **{first_mean:.1f}**; "
            f"of the last {window}: **{last_mean:.1f}**. "
            f"{goals} of {len(episodes)} training episodes reached the goal."
        )
    outcome = "reaches the goal" if ppo.greedy_reaches_goal else "does not reach the goal"
    timed_out = not ppo.greedy_reaches_goal and ppo.greedy_steps >= 150
    st.markdown(
        f"Following the trained policy greedily from the start, the robot **{outcome}**: "
        f"return {ppo.greedy_return:.1f} after {ppo.greedy_steps} steps."
        + (
            " The episode ran into the 150-step time limit: the policy no longer crashes, "
            "but it does not find the goal either."
            if timed_out
            else ""
        )
    )
