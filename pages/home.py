"""Home page (placeholder until the app's pages land)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from burgerbot import BurgerBotVectorEnv

st.title("BurgerBot: vectorised environments")
st.write("One `step()` call, many robots. Pick how many and take a step.")
num_envs = st.slider("NUM_ENVS", 1, 64, 4, key="num_envs")
envs = BurgerBotVectorEnv(num_envs)
try:
    obs, _ = envs.reset(seed=0)
    obs, rewards, terminated, truncated, _ = envs.step(np.zeros(num_envs, dtype=np.int64))
finally:
    envs.close()
st.write(f"Observation batch: shape `{obs.shape}`, dtype `{obs.dtype}`")
st.dataframe(obs, column_config=None)
