"""Stable-Baselines3: how it vectorises, how its VecEnv API differs from Gymnasium's, live."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.charts.why_batches import ppo_episode_chart
from burgerbot.app.scripts import sb3 as snippets
from burgerbot.app.views import sb3 as sb3_demo
from burgerbot.app.views.sb3 import (
    GYM_NEXT_STEP,
    GYM_SAME_STEP,
    INSTALL_COMMAND,
    PPO_N_STEPS,
    SB3,
    SPECS,
    CallResult,
    PPOResult,
    SideBySide,
)

PAGE = "sb3"
KEY = {spec.key: ui.widget_key(PAGE, spec) for spec in SPECS}
STARTED = f"_{PAGE}_started_ppo"


@st.cache_data(max_entries=8, show_spinner=False)
def api_table(num_envs: int, live_sb3: bool) -> str:
    return sb3_demo.api_markdown(sb3_demo.api_rows(num_envs, live_sb3=live_sb3))


@st.cache_data(max_entries=8, show_spinner=False)
def compared(num_envs: int, steps: int, seed: int, with_sb3: bool) -> SideBySide:
    return sb3_demo.side_by_side(num_envs, steps, seed, with_sb3=with_sb3)


@st.cache_data(max_entries=4, show_spinner=False)
def lesson_calls(num_envs: int) -> dict[str, CallResult]:
    return sb3_demo.invalid_calls(num_envs)


@st.cache_data(max_entries=4, show_spinner=False)
def ppo_run(num_envs: int, total_timesteps: int, seed: int) -> PPOResult:
    # The bar lives inside the cached function: a cache hit replays it and clears it again.
    bar = st.empty()

    def report(fraction: float, message: str) -> None:
        bar.progress(min(1.0, max(0.0, fraction)), text=f"{message} ({fraction:.0%})")

    try:
        return sb3_demo.train_ppo(num_envs, PPO_N_STEPS, total_timesteps, seed, report)
    finally:
        bar.empty()


def show_call(result: CallResult, title: str) -> None:
    """A script as it ran: the code, then the error it raised or what it printed."""
    st.markdown(title)
    st.code(result.code, language="python")
    if result.raised:
        st.error(f"It raised **{result.error_type}** at `{result.where}`:", icon="🚫")
        st.code(f"{result.error_type}: {result.error_message}", language="text", wrap_lines=True)
    else:
        st.success("It ran without an error and printed:", icon="✅")
        st.code(result.output, language="text")


st.title("Stable-Baselines3 and vector environments")
ui.sidebar(
    topics=[
        "How Stable-Baselines3 uses vector envs: its own VecEnv wrapper",
        "make_vec_env builds one from a factory",
        "DummyVecEnv vs SubprocVecEnv",
        "Where the lesson's SB3 calls no longer work",
    ],
    links=["Stable-Baselines3 vectorised envs", "Gymnasium vector API", "Auto-reset modes"],
)
notes = list(ui.load_settings(PAGE, SPECS))

version = sb3_demo.sb3_version()
have_sb3 = version is not None
if have_sb3:
    st.success(
        f"stable-baselines3 **{version}** is installed here: everything on this page runs live.",
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

st.write(
    "Stable-Baselines3 (SB3) is the library of the next lesson. Its algorithms, such as PPO, "
    "always work on a batch of environments, but not Gymnasium's vector envs: SB3 has its "
    "own vector-env classes, with an older API. This page shows the two side by side."
)

# --- 1. How SB3 vectorises ---------------------------------------------------------------------
st.header("1. How SB3 vectorises")
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

# --- 2. The two APIs ------------------------------------------------------------------------------
st.header("2. Two vector-env APIs")
(n_spec, steps_spec, seed_spec, ppo_envs_spec, ppo_steps_spec) = SPECS
c_n, c_steps, c_seed = st.columns(3)
c_n.slider(n_spec.label, n_spec.low, n_spec.high, key=KEY["n"], help="Copies in each vector env.")
c_steps.slider(
    steps_spec.label,
    steps_spec.low,
    steps_spec.high,
    key=KEY["steps"],
    help="How many step() calls the side-by-side run in section 3 makes.",
)
c_seed.number_input(seed_spec.label, seed_spec.low, seed_spec.high, step=1, key=KEY["seed"])
num_envs = int(st.session_state[KEY["n"]])
steps = int(st.session_state[KEY["steps"]])
seed = int(st.session_state[KEY["seed"]])
ui.show_notes(notes)
ui.sync_query_params(PAGE, SPECS)

st.write(
    "The same questions, answered by each library. Cells marked *✓ live* were measured "
    f"just now on {num_envs} BurgerBots; the others come from each library's documentation."
)
with st.spinner("Importing stable-baselines3 and torch (slow the first time)…"):
    try:
        st.markdown(api_table(num_envs, have_sb3))
    except Exception as error:  # the page keeps working; the message says what broke
        st.error(f"Could not build the table: {type(error).__name__}: {error}")

# --- 3. Side by side ------------------------------------------------------------------------------
st.header("3. The same actions, side by side")
runs = "SB3's `DummyVecEnv` and " if have_sb3 else ""
st.write(
    f"{runs}Gymnasium's `SyncVectorEnv` in two auto-reset modes get the same random actions "
    f"for {steps} `step()` calls on {num_envs} BurgerBots. Below: one env around the first "
    "moment an episode ends."
)
try:
    result = compared(num_envs, steps, seed, have_sb3)
except Exception as error:
    st.error(f"Could not run the comparison: {type(error).__name__}: {error}")
    result = None

if result is not None:
    pairs = result.pairs
    if have_sb3:
        m1, m2, m3 = st.columns(3)
        m1.metric("episodes that ended", result.episodes_ended)
        m2.metric(
            "SAME_STEP = SB3",
            f"{result.agree[GYM_SAME_STEP]} of {pairs}",
            help="(step, env) pairs where observation, reward and done flag are the same as SB3's.",
        )
        m3.metric(
            "NEXT_STEP = SB3",
            f"{result.agree[GYM_NEXT_STEP]} of {pairs}",
            help="(step, env) pairs where observation, reward and done flag are the same as SB3's.",
        )
        first = result.first_difference[GYM_NEXT_STEP]
        same_first = result.first_difference[GYM_SAME_STEP]
        st.markdown(
            (
                "**SAME_STEP mode behaves exactly like SB3** on every pair: same "
                "observations, rewards and episode ends."
                if same_first is None
                else f"SAME_STEP first differs from SB3 at step {same_first[0]}, env "
                f"{same_first[1]}."
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
    around = sb3_demo.around_first_end(result)
    if around is None:
        st.warning("No episode ended in this run: try more step() calls or another seed.")
    else:
        end_step, end_env, tables = around
        st.markdown(
            f"**Env {end_env}, steps {max(1, end_step - 1)} to {end_step + 2}.** Its episode "
            f"ends at step {end_step}. *obs* is what `step()` returned for this env; *last obs* "
            "is the ended episode's final observation, where each library puts it."
        )
        captions = {
            SB3: "`dones[i]` is True and `obs[i]` is already the next start. The last "
            'observation is in `infos[i]["terminal_observation"]`.',
            GYM_SAME_STEP: "Same as SB3, but the flags are `terminated` / `truncated` and "
            'the last observation is in `infos["final_obs"][i]`.',
            GYM_NEXT_STEP: "Gymnasium's default: the ending step returns the last "
            "observation itself; the next call resets (reward 0, action ignored).",
        }
        for library, table in tables.items():
            table_column, text_column = st.columns([3, 2], vertical_alignment="center")
            with table_column:
                st.markdown(f"**{library}**")
                st.dataframe(table, hide_index=True)
            text_column.markdown(captions[library])
        if not have_sb3:
            st.caption(
                "With stable-baselines3 installed, a third table shows SB3's `DummyVecEnv` "
                "on the same actions: it matches the SAME_STEP table row for row."
            )
    code = snippets.side_by_side_script(num_envs, steps, seed)
    with st.expander("Code: this comparison as a script you can run (needs stable-baselines3)"):
        st.code(code, language="python")

# --- 4. The lesson's invalid calls -------------------------------------------------------------
st.header("4. Two calls that do not work")
st.write(
    "Two ways of combining PPO with several environments look reasonable but fail with "
    "today's SB3. The scripts below are exactly what runs."
)
if have_sb3:
    with st.spinner("Running the scripts…"):
        try:
            calls = lesson_calls(num_envs)
        except Exception as error:
            st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
            calls = None
    if calls is not None:
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
else:
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

# --- 5. Train PPO ------------------------------------------------------------------------------
st.header("5. Train PPO on BurgerBot")
st.write(
    f"A short PPO run on the CPU: `n_envs` copies, `n_steps={PPO_N_STEPS}` `step()` calls "
    "per env between two updates, so each update learns from "
    f"`n_steps x n_envs` transitions. It is far too short to master BurgerBot; it shows the "
    "pieces working together."
)
p_envs, p_steps = st.columns(2)
p_envs.slider(ppo_envs_spec.label, ppo_envs_spec.low, ppo_envs_spec.high, key=KEY["ppo_envs"])
p_steps.number_input(
    ppo_steps_spec.label,
    min_value=ppo_steps_spec.low,
    max_value=ppo_steps_spec.high,
    step=512,
    key=KEY["ppo_steps"],
    help=(
        f"At most {CAPS.max_ppo_timesteps:,} here: PPO steps about a thousand times slower than "
        "the numpy examples on the other pages."
    ),
)
ppo_envs = int(st.session_state[KEY["ppo_envs"]])
ppo_steps = int(st.session_state[KEY["ppo_steps"]])
ppo_code = snippets.ppo_training_script(ppo_envs, PPO_N_STEPS, ppo_steps, seed)
if not have_sb3:
    st.info(
        f"Training needs stable-baselines3: `{INSTALL_COMMAND}`. This is the script the "
        "page would run:",
        icon="📦",
    )
    st.code(ppo_code, language="python")
else:
    st.caption(
        f"{ppo_envs} env{'s' if ppo_envs > 1 else ''} x {PPO_N_STEPS} steps = "
        f"{ppo_envs * PPO_N_STEPS:,} transitions per update; {ppo_steps:,} env-steps in all "
        f"(seed {seed}, from section 2)."
    )
    settings = (ppo_envs, ppo_steps, seed)
    started: set = st.session_state.setdefault(STARTED, set())
    if st.button("Train PPO", key=f"{PAGE}_train", type="primary", icon="▶️"):
        try:
            ppo_run(*settings)
            started.add(settings)
        except Exception as error:  # the page keeps working; the message says what broke
            st.error(f"Training failed: {type(error).__name__}: {error}")
    if settings in started:
        ppo = ppo_run(*settings)
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
    else:
        st.info("Press **Train PPO** to start.", icon="👆")
    with st.expander("Code: this training run as a script you can run"):
        st.code(ppo_code, language="python")
