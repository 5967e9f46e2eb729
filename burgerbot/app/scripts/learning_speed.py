"""Scripts equivalent to the "Does batching make learning faster?" page's current settings
(numpy and burgerbot only)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["q_learning_script", "training_script"]


def _fill(template: str, **values: object) -> str:
    text = template.strip("\n")
    for name, value in values.items():
        text = text.replace(f"__{name.upper()}__", str(value))
    return text + "\n"


_TRAINING = """
from burgerbot.training import QLearningConfig, compare_num_envs, summarise_runs

# Tabular Q-learning on N BurgerBots at once, for each N, with the same seeds.
runs = compare_num_envs(
    __NUM_ENVS__,
    seeds=range(__FIRST_SEED__, __END_SEED__),
    config=QLearningConfig(env_steps=__ENV_STEPS__),
)
summary = summarise_runs(runs)  # medians over the seeds
columns = ["num_envs", "seeds", "reached", "env_steps", "episodes", "step_calls", "seconds"]
print("When the greedy policy starts reaching the goal for good (medians over seeds):")
print(summary[columns].to_string(index=False))
print("env-steps per second:", summary["env_steps_per_s"].round().astype(int).tolist())
"""


def training_script(
    num_envs_list: Sequence[int], env_steps: int, seeds: int, first_seed: int = 0
) -> str:
    """Run the page's Q-learning comparison and print its summary table."""
    sizes = [int(n) for n in num_envs_list]
    return _fill(
        _TRAINING,
        num_envs=sizes,
        first_seed=int(first_seed),
        end_seed=int(first_seed) + int(seeds),
        env_steps=f"{int(env_steps):_}",
    )


_Q_LEARNING = """
\"\"\"Tabular Q-learning with N BurgerBots stepping together: the loop the page runs, written out.

It draws the same random numbers as burgerbot.training.train_q_learning, so for the same
NUM_ENVS, env-steps and seed it learns at the same env-step as the page's run.
\"\"\"

import math

import numpy as np

from burgerbot import BurgerBotEnv, BurgerBotVectorEnv

NUM_ENVS, ENV_STEPS, SEED = __NUM_ENVS__, __ENV_STEPS__, __SEED__
LEARNING_RATE, GAMMA, EPSILON = 0.5, 0.95, 0.1
EVAL_EVERY = 100  # env-steps between two looks at the greedy policy
NUM_STATES, NUM_ACTIONS = 7 * 7 * 4, 4  # (row, col, heading) states; 4 actions


def state_of(obs):
    \"\"\"Observations [row, col, heading, sensor] -> state numbers 0..195.\"\"\"
    return obs[..., 0] * 28 + obs[..., 1] * 4 + obs[..., 2]


def greedy_reaches_goal(q, env):
    \"\"\"Follow the table's best action from the start (the world is deterministic).\"\"\"
    obs, _ = env.reset()
    while True:
        obs, reward, terminated, truncated, _ = env.step(int(np.argmax(q[state_of(obs)])))
        if terminated or truncated:
            return reward == 50.0


rng = np.random.default_rng(SEED)
q = np.zeros((NUM_STATES, NUM_ACTIONS))
calls = math.ceil(ENV_STEPS / NUM_ENVS)  # each step() call gives NUM_ENVS transitions
look_every = max(1, round(EVAL_EVERY / NUM_ENVS))
learned_at = None  # env-steps from which the greedy policy reaches the goal at every look
envs = BurgerBotVectorEnv(NUM_ENVS)  # this project's native vector env, NEXT_STEP auto-reset
judge = BurgerBotEnv()  # one robot to try the greedy policy on
try:
    obs, _ = envs.reset(seed=SEED)
    states = state_of(obs)
    resetting = np.zeros(NUM_ENVS, dtype=bool)  # True: this env's next call only resets it
    for call in range(1, calls + 1):
        # Epsilon-greedy, ties broken at random so untried actions get tried.
        values = q[states]
        best = values == values.max(axis=1, keepdims=True)
        greedy = np.argmax(np.where(best, rng.random(values.shape), -1.0), axis=1)
        explore = rng.random(NUM_ENVS) < EPSILON
        actions = np.where(explore, rng.integers(0, NUM_ACTIONS, NUM_ENVS), greedy)

        obs, rewards, terminated, truncated, _ = envs.step(actions)
        next_states = state_of(obs)

        # A NEXT_STEP reset row is not a transition: mask it out of the update.
        learn = ~resetting
        keys = states[learn] * NUM_ACTIONS + actions[learn]
        targets = rewards[learn] + GAMMA * q[next_states[learn]].max(axis=1) * ~terminated[learn]
        # One batched update: each distinct (state, action) moves towards the mean of its
        # targets in this batch, so N copies of one transition count once, never N times.
        flat = q.reshape(-1)
        sums, counts = np.zeros(flat.size), np.zeros(flat.size)
        np.add.at(sums, keys, targets - flat[keys])
        np.add.at(counts, keys, 1.0)
        flat[keys] += LEARNING_RATE * sums[keys] / counts[keys]

        resetting = terminated | truncated
        states = next_states
        if call % look_every == 0 or call == calls:
            if not greedy_reaches_goal(q, judge):
                learned_at = None
            elif learned_at is None:
                learned_at = call * NUM_ENVS
finally:
    envs.close()
    judge.close()

print(f"NUM_ENVS={NUM_ENVS}, seed {SEED}, {calls * NUM_ENVS:,} env-steps in {calls:,} calls")
if learned_at is None:
    print("not learned: the greedy policy still misses the goal at the last look")
else:
    print(f"learned at {learned_at:,} env-steps ({learned_at // NUM_ENVS:,} step() calls)")
"""


def q_learning_script(num_envs: int = 4, env_steps: int = 5_000, seed: int = 0) -> str:
    """One run of the page's Q-learning loop, written out in full (`train_q_learning`'s maths)."""
    return _fill(
        _Q_LEARNING,
        num_envs=int(num_envs),
        env_steps=f"{int(env_steps):_}",
        seed=int(seed),
    )
