"""The mistakes page's sentences about batches, each computed from the spaces table's live rows.

Nothing here states a shape or a dtype it did not read from a row: when the installed
libraries change, the sentences change with them.
"""

from __future__ import annotations

from collections.abc import Sequence

from burgerbot.app.glossary import term_link
from burgerbot.app.views.mistakes import shape_pattern
from burgerbot.app.views.mistakes_spaces import SpaceRow

__all__ = [
    "SHAPE_OPTIONS",
    "VECTOR_ENV_NOTES",
    "rewards_sentence",
    "row_for",
    "shape_explanation",
    "shape_truth",
    "spaces_bullets",
    "takeaways",
    "vector_env_label",
]

VECTOR_ENV_NOTES = {
    "SyncVectorEnv": "Gymnasium's",
    "CartPoleVectorEnv": "Gymnasium's own batched CartPole",
    "BurgerBotVectorEnv": "this project's, not Gymnasium's",
}

SHAPE_OPTIONS = ("(N,)", "(N, 1)", "(N, 16)")
"""The prediction's choices for N FrozenLakes: one number each, one column, or one-hot."""


def vector_env_label(name: str) -> str:
    """``"BurgerBotVectorEnv"`` -> ``"BurgerBotVectorEnv (this project's, not Gymnasium's)"``."""
    note = VECTOR_ENV_NOTES.get(name)
    return f"{name} ({note})" if note else name


def row_for(rows: Sequence[SpaceRow], env: str, vector_env: str = "SyncVectorEnv") -> SpaceRow:
    """The row of ``env`` stepped in ``vector_env``."""
    for row in rows:
        if (row.env, row.vector_env) == (env, vector_env):
            return row
    raise LookupError(f"no row for {env!r} in {vector_env!r}")


def shape_truth(rows: Sequence[SpaceRow], num_envs: int) -> str:
    """What N FrozenLakes in a SyncVectorEnv returned, as the prediction's options write it."""
    return shape_pattern(row_for(rows, "FrozenLake-v1").obs_shape, num_envs)


def shape_explanation(rows: Sequence[SpaceRow], num_envs: int) -> str:
    """Why FrozenLake's batch has the shape it has, from the row (Markdown)."""
    lake = row_for(rows, "FrozenLake-v1")
    shape = tuple(lake.obs_shape)
    if shape == (num_envs,):
        how = (
            f"`reset` returned `{shape}`: one observation is one whole number (which of the 16 "
            "squares), and stacking N numbers gives one value per sub-environment, with no "
            "second axis. Code written for `(N, k)`, such as `obs[:, 0]`, fails on it "
            "(mistake 2)."
        )
    else:
        space = lake.single_observation_space
        how = f"`reset` returned `{shape}` for {num_envs} copies of `{space}`."
    return (
        f"{how} `batch_space` gives the same: `{lake.batched_observation_space}`, not a one-hot "
        f"`({num_envs}, 16)`."
    )


def rewards_sentence(rows: Sequence[SpaceRow]) -> str:
    """Which vector envs gave which reward dtype (Markdown), grouped by dtype."""
    by_dtype: dict[str, list[str]] = {}
    for row in rows:
        names = by_dtype.setdefault(row.reward_dtype, [])
        if row.vector_env not in names:
            names.append(row.vector_env)
    shapes = sorted({str(row.reward_shape) for row in rows})
    shape_text = " and ".join(f"`{shape}`" for shape in shapes)
    if len(by_dtype) == 1:
        (dtype,) = by_dtype
        return (
            f"Rewards came back as {shape_text} `{dtype}` from every vector env here: one "
            "number per sub-environment."
        )
    parts = [
        f"`{dtype}` from {', '.join(f'`{name}`' for name in names)}"
        for dtype, names in by_dtype.items()
    ]
    return (
        f"Rewards came back as {shape_text}, one per sub-environment, but their dtype depends "
        f"on the vector env: {'; '.join(parts)}. Do not assume one dtype: convert "
        "(`rewards.astype(np.float32)`) where it matters."
    )


def _flags_sentence(rows: Sequence[SpaceRow]) -> str:
    dtypes = sorted({row.terminated_dtype for row in rows} | {row.truncated_dtype for row in rows})
    one_per_copy = all(len(row.reward_shape) == 1 for row in rows)
    return f"`terminated` / `truncated` came back as {' or '.join(f'`{d}`' for d in dtypes)}" + (
        ", one per sub-environment." if one_per_copy else "."
    )


def spaces_bullets(rows: Sequence[SpaceRow], num_envs: int) -> list[str]:
    """The spaces table in words (Markdown bullets), each read from its rows."""
    burgerbot = row_for(rows, "BurgerBot")
    cartpole = row_for(rows, "CartPole-v1")
    lake = row_for(rows, "FrozenLake-v1")
    as_dict = row_for(rows, "BurgerBot, Dict observation")
    single_kind, batched_kind = burgerbot.space_kinds.split(" → ")
    kind_note = f", not a bigger {single_kind}" if batched_kind != single_kind else ""
    same_shape = cartpole.obs_shape == burgerbot.obs_shape
    agree = all(row.spaces_agree for row in rows)
    keys = ", ".join(f"`{key}` → `{shape}`" for key, shape in as_dict.obs_shape.items())
    return [
        f"**BurgerBot** gives `{burgerbot.obs_shape}`: {num_envs} robots (first axis), each "
        f"`[row, col, heading, sensor]`. Batching its `{single_kind}` space gives a "
        f"**`{batched_kind}`**{kind_note}.",
        f"**CartPole** gives `{cartpole.obs_shape}`"
        + (" as well" if same_shape else "")
        + f", but as `{cartpole.obs_dtype}` (BurgerBot: `{burgerbot.obs_dtype}`). "
        f"**FrozenLake**'s observation is one number, so its batch is `{lake.obs_shape}`. "
        f"A **Dict** observation is batched key by key: {keys}.",
        rewards_sentence(rows) + " " + _flags_sentence(rows),
        "`batch_space` and the real vector envs "
        + ("agree on every row." if agree else "**disagree** on some rows (see the table)."),
    ]


def takeaways(rows: Sequence[SpaceRow], num_envs: int) -> list[str]:
    """The page's key takeaways; those about shapes and dtypes read from the live rows."""
    burgerbot = row_for(rows, "BurgerBot")
    cartpole = row_for(rows, "CartPole-v1")
    lake = row_for(rows, "FrozenLake-v1")
    reward_dtypes = sorted({row.reward_dtype for row in rows})
    return [
        f"The first axis of every batch is the sub-environment: observations of shape "
        f"`{shape_pattern(burgerbot.obs_shape, num_envs)}` for BurgerBot, "
        f"`{shape_pattern(lake.obs_shape, num_envs)}` for a scalar observation such as "
        "FrozenLake's.",
        f"A batch keeps its env's {term_link('dtype')}: BurgerBot `{burgerbot.obs_dtype}`, "
        f"CartPole `{cartpole.obs_dtype}`"
        + (
            f"; rewards came as {' or '.join(f'`{d}`' for d in reward_dtypes)}, by vector env."
            if len(reward_dtypes) > 1
            else f"; rewards `{reward_dtypes[0]}`."
        ),
        "Give a vector env a list of zero-argument functions: `make_env(seed)`, not `make_env`.",
        "Actions go in as one per sub-environment, shape `(N,)`; "
        "`envs.action_space.contains(actions)` checks that before stepping.",
        "Close an `AsyncVectorEnv` in `finally` (or `contextlib.closing`), and with `spawn` keep "
        'the script\'s work under `if __name__ == "__main__":`.',
    ]
