"""The "From batches to training data" page as scripts: the buffer and its mask, TD targets,
seeding, and the masking exercise's answer. Each runs on its own with gymnasium, numpy and the
``burgerbot`` library; the page's tests run them from a file and compare with the page.
"""

from __future__ import annotations

from burgerbot.app.logic.training_data import FACTORY_SEED, SEEDING_ENVS, TrainingSettings
from burgerbot.app.scripts import fragment_header
from burgerbot.targets import GAMMA

__all__ = [
    "BOOTSTRAP_OF",
    "bootstrap_fragment",
    "buffer_script",
    "mask_exercise_answer",
    "seeding_script",
    "targets_script",
]

_SETTINGS = """
import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from burgerbot.factories import burgerbot_factory

MODE = AutoresetMode.__MODE__
NUM_ENVS, STEPS, MAX_STEPS, SEED = __N__, __STEPS__, __MAX__, __SEED__
"""

_COLLECT = """
# max_steps is small so that episodes end (by truncation at the latest) in a short buffer.
envs = gym.vector.SyncVectorEnv(
    [burgerbot_factory(max_steps=MAX_STEPS) for _ in range(NUM_ENVS)], autoreset_mode=MODE
)
envs.action_space.seed(SEED)  # the random actions
obs, infos = envs.reset(seed=SEED)  # the sub-envs: seeds SEED, SEED + 1, ...

shape = (STEPS, NUM_ENVS)
rewards = np.zeros(shape)
terminated = np.zeros(shape, dtype=bool)
truncated = np.zeros(shape, dtype=bool)
next_obs = np.zeros((*shape, 4), dtype=np.int64)  # the observation each action led to
for t in range(STEPS):
    actions = envs.action_space.sample()
    obs, rewards[t], terminated[t], truncated[t], infos = envs.step(actions)
    next_obs[t] = obs
    if "_final_obs" in infos:
        # SAME_STEP: obs[i] of an env that just ended is already its next start;
        # the episode's final observation is in infos["final_obs"][i].
        for i in np.flatnonzero(infos["_final_obs"]):
            next_obs[t, i] = infos["final_obs"][i]
envs.close()
"""

_MASK = """
# NEXT_STEP: the step() call after an episode ended resets that env (it ignores the
# action, returns the start and reward 0.0): that row is not a transition.
ended = terminated | truncated
mask = np.ones(shape, dtype=bool)
if MODE == AutoresetMode.NEXT_STEP:
    mask[1:] = ~ended[:-1]
"""

_BUFFER_PRINT = """
print("rewards (a row per step() call, a column per env):")
print(rewards)
print("ended (terminated or truncated):")
print(ended.astype(int))
print("mask (1 = a transition to keep, 0 = a reset row to drop):")
print(mask.astype(int))
print(f"not transitions: {int((~mask).sum())} of {mask.size} rows")
"""

_TARGETS = '''

def value(observations):
    """A fixed, hand-made V(obs): minus the rows + columns from the robot to the burger (6, 6)."""
    return -(np.abs(6 - observations[..., 0]) + np.abs(6 - observations[..., 1])).astype(float)


# One-step TD target: no bootstrap after termination (nothing follows); after
# truncation the world would go on, so bootstrap from the final observation's value.
targets = rewards + GAMMA * (1.0 - terminated) * value(next_obs)
masked_targets = np.where(mask, targets, np.nan)
'''

_TARGETS_PRINT = """
np.set_printoptions(precision=2, suppress=True)
print("TD targets without the mask:")
print(targets)
print("TD targets with the mask (nan = dropped):")
print(masked_targets)
# nan != anything, so this lists the rows the two tables disagree on.
differ = [(int(t) + 1, int(i)) for t, i in np.argwhere(targets != masked_targets)]
print("the two differ at (step() call, env):", differ)
print(f"batch mean without the mask: {targets.mean():.4f}")
print(f"batch mean with the mask: {np.nanmean(masked_targets):.4f}")
"""


def _fill(template: str, settings: TrainingSettings) -> str:
    return (
        template.replace("__MODE__", settings.mode)
        .replace("__N__", str(settings.num_envs))
        .replace("__STEPS__", str(settings.steps))
        .replace("__MAX__", str(settings.max_steps))
        .replace("__SEED__", str(settings.seed))
    )


def buffer_script(settings: TrainingSettings) -> str:
    """Fill the page's buffer and print its rewards, its episode ends and its mask."""
    head = f'"""A (steps x envs) BurgerBot buffer in {settings.mode} mode, and its mask."""\n'
    return _fill(head + _SETTINGS + _COLLECT + _MASK + _BUFFER_PRINT, settings)


def targets_script(settings: TrainingSettings) -> str:
    """The page's buffer, then its TD targets with and without the mask."""
    head = f'"""TD targets of a BurgerBot buffer ({settings.mode}), with and without the mask."""\n'
    body = _SETTINGS + f"GAMMA = {GAMMA}\n" + _COLLECT + _MASK + _TARGETS + _TARGETS_PRINT
    return _fill(head + body, settings)


BOOTSTRAP_OF = "the TD-targets script (tab TD targets)"


def bootstrap_fragment(mode: str) -> str:
    """Where the final observation comes from in ``mode``, and the bootstrap, in a few lines."""
    where = {
        "NEXT_STEP": [
            "    next_obs[t] = obs  # NEXT_STEP: on an ending row, obs IS the final observation",
        ],
        "SAME_STEP": [
            "    next_obs[t] = obs",
            '    for i in np.flatnonzero(infos.get("_final_obs", [])):',
            "        # SAME_STEP: obs[i] is already the next start. The final observation:",
            '        next_obs[t, i] = infos["final_obs"][i]  # 0.29: "final_observation"',
        ],
    }[mode]
    lines = [
        "for t in range(STEPS):",
        "    obs, rewards[t], terminated[t], truncated[t], infos = envs.step(actions)",
        *where,
        "",
        "# terminated: target = r.  truncated (and not terminated): r + GAMMA * V(final obs).",
        "targets = rewards + GAMMA * (1.0 - terminated) * value(next_obs)",
    ]
    return fragment_header(BOOTSTRAP_OF) + "\n".join(lines) + "\n"


_SEEDING = '''"""Seeding sub-envs: envs.reset(seed=...), the factories' seeds, action_space.seed."""

import gymnasium as gym
import numpy as np

from burgerbot import BurgerBotEnv
from burgerbot.factories import burgerbot_factory

SEED, NUM_ENVS, FACTORY_SEED = __SEED__, __N__, __FACTORY__


def cartpole_start(seed, then_unseeded=False):
    """One CartPole's start after reset(seed=seed) (and one more plain reset if asked)."""
    env = gym.make("CartPole-v1")
    obs, _ = env.reset(seed=seed)
    if then_unseeded:
        obs, _ = env.reset()
    env.close()
    return obs


def cartpoles(thunks=None):
    return gym.vector.SyncVectorEnv(thunks or [lambda: gym.make("CartPole-v1")] * NUM_ENVS)


# 1. envs.reset(seed=SEED) seeds sub-env i with SEED + i (CartPole draws its start from it).
envs = cartpoles()
obs, _ = envs.reset(seed=SEED)
envs.close()
for i in range(NUM_ENVS):
    same = np.array_equal(obs[i], cartpole_start(SEED + i))
    print(f"reset(seed={SEED}): sub-env {i} starts like reset(seed={SEED + i}): {same}")


# 2. The same seed for every sub-env: identical episodes under a policy that reads obs.
def first_episode_lengths(seeds):
    envs = cartpoles()
    obs, _ = envs.reset(seed=seeds)
    lengths, done = np.zeros(NUM_ENVS, dtype=int), np.zeros(NUM_ENVS, dtype=bool)
    while not done.all() and lengths.max() < 500:
        obs, _, terminated, truncated, _ = envs.step((obs[:, 2] > 0).astype(int))
        lengths += ~done
        done |= terminated | truncated
    envs.close()
    return lengths.tolist()


same_seed = [SEED] * NUM_ENVS
print(f"first episode lengths, seed={same_seed}:", first_episode_lengths(same_seed))
print(f"first episode lengths, seed={SEED}:", first_episode_lengths(SEED))


# 3. A lesson-style factory seeds each env inside its thunk; then envs.reset runs.
def make_cartpole(seed):
    def thunk():
        env = gym.make("CartPole-v1")
        env.reset(seed=seed)
        return env

    return thunk


for reset_seed in (SEED, None):
    envs = cartpoles([make_cartpole(FACTORY_SEED + i) for i in range(NUM_ENVS)])
    obs, _ = envs.reset(seed=reset_seed)
    envs.close()
    for i in range(NUM_ENVS):
        by_reset = np.array_equal(obs[i], cartpole_start(SEED + i))
        by_factory = np.array_equal(obs[i], cartpole_start(FACTORY_SEED + i, then_unseeded=True))
        print(
            f"factory seed {FACTORY_SEED + i}, then envs.reset(seed={reset_seed}): sub-env {i} "
            f"starts like reset(seed={SEED + i}): {by_reset}; "
            f"like the factory seed's next start: {by_factory}"
        )

# 4. BurgerBot draws nothing from its seed: same start, and its generator stays untouched.
env = BurgerBotEnv()
start_a, _ = env.reset(seed=SEED)
state = env.np_random.bit_generator.state
for action in [0, 1, 2, 3, 0]:
    env.step(action)
untouched = env.np_random.bit_generator.state == state
start_b, _ = env.reset(seed=SEED + 1)
print(f"BurgerBot starts {start_a.tolist()} and {start_b.tolist()}")
print(f"BurgerBot's generator untouched by its steps: {untouched}")

# 5. On BurgerBot only the actions are random: seed the vector env's action space.
for seeded in (True, False):
    runs = []
    for _ in range(2):
        envs = gym.vector.SyncVectorEnv([burgerbot_factory() for _ in range(NUM_ENVS)])
        envs.reset(seed=SEED)  # does not seed envs.action_space
        if seeded:
            envs.action_space.seed(SEED)
        runs.append([envs.action_space.sample().tolist() for _ in range(5)])
        envs.close()
    print(f"action_space.seed used: {seeded}; same actions both runs: {runs[0] == runs[1]}")
'''


def seeding_script(seed: int) -> str:
    """The Seeding tab's checks in one script, printing one line per check."""
    return (
        _SEEDING.replace("__SEED__", str(seed))
        .replace("__N__", str(SEEDING_ENVS))
        .replace("__FACTORY__", str(FACTORY_SEED))
    )


_EXERCISE = '''"""Exercise answer: drop NEXT_STEP's reset rows from a buffer, keep transitions."""

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from burgerbot.factories import burgerbot_factory

NUM_ENVS, STEPS, MAX_STEPS, SEED = 4, 20, 6, 0

envs = gym.vector.SyncVectorEnv(
    [burgerbot_factory(max_steps=MAX_STEPS) for _ in range(NUM_ENVS)],
    autoreset_mode=AutoresetMode.NEXT_STEP,
)
envs.action_space.seed(SEED)
obs, infos = envs.reset(seed=SEED)

shape = (STEPS, NUM_ENVS)
observations = np.zeros((*shape, 4), dtype=np.int64)  # what each action was chosen from
next_observations = np.zeros((*shape, 4), dtype=np.int64)
actions = np.zeros(shape, dtype=np.int64)
rewards = np.zeros(shape)
terminated = np.zeros(shape, dtype=bool)
truncated = np.zeros(shape, dtype=bool)
for t in range(STEPS):
    observations[t] = obs
    actions[t] = envs.action_space.sample()
    obs, rewards[t], terminated[t], truncated[t], infos = envs.step(actions[t])
    next_observations[t] = obs  # NEXT_STEP: on an ending row this is the final observation
envs.close()

# A row is a reset row when the same env's episode ended on the row before.
ended = terminated | truncated
mask = np.ones(shape, dtype=bool)
mask[1:] = ~ended[:-1]

# Keep only the transitions, flattened into one training batch.
batch = {
    "obs": observations[mask],
    "action": actions[mask],
    "reward": rewards[mask],
    "next_obs": next_observations[mask],
    "terminated": terminated[mask],
    "truncated": truncated[mask],
}
print(f"buffer rows: {mask.size}, reset rows dropped: {int((~mask).sum())}, "
      f"transitions kept: {len(batch['reward'])}")

# Checks: BurgerBot never gives reward 0.0, and a kept row never starts from the
# previous episode's final observation with the start as its next observation.
assert not (batch["reward"] == 0.0).any(), "a reset row slipped through"
assert (rewards[~mask] == 0.0).all(), "every dropped row should be a reset (reward 0.0)"
assert (next_observations[~mask] == [0, 0, 1, 1]).all(), "a reset returns the start"
print("all checks passed")
'''


def mask_exercise_answer() -> str:
    """The masking exercise's answer: a whole script that checks itself."""
    return _EXERCISE
