"""BurgerBot vector-env teaching app: the router (pages live in `pages/`)."""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="BurgerBot: vectorised environments", page_icon="🍔", layout="wide")

pages = [st.Page("pages/home.py", title="Home", icon="🏠", default=True)]
st.navigation(pages).run()
