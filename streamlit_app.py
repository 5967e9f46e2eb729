"""BurgerBot vector-env teaching app: the router (each page lives in `app_pages/`).

The pages' folder must not be called `pages/`: Streamlit treats a folder of that name beside
the entry file as its older automatic multipage mode, and a deep link opened on a freshly
started server then runs the page without this router (wrong sidebar, no page config).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent

# (section, file, title, icon), in the lesson's order.
PAGES = [
    ("Start", "home.py", "Home: the speed problem", "🏠"),
    ("The lesson", "batch_shapes.py", "Batch shapes", "🧮"),
    ("The lesson", "autoreset.py", "Auto-reset", "🔁"),
    ("The lesson", "training_data.py", "From batches to training data", "🧺"),
    ("The lesson", "why_batches.py", "Why batches help", "📦"),
    ("The lesson", "sb3.py", "Stable-Baselines3", "🧠"),
    ("Try it yourself", "goal_scaling.py", "Goal scaling", "🍔"),
    ("Try it yourself", "sync_vs_async.py", "Sync vs Async", "⏱️"),
    ("Try it yourself", "mistakes.py", "Shapes, dtypes and common mistakes", "🩺"),
    ("Today's libraries", "lesson_vs_today.py", "The lesson vs today's libraries", "🔍"),
    ("Going further", "vector_wrappers.py", "Wrapping a vector env", "🧩"),
    ("Going further", "cost_sweeps.py", "Cost sweeps: when Async wins", "🏋️"),
    ("Reference", "glossary.py", "Glossary", "📖"),
]


def main() -> None:
    # Imported here: AsyncVectorEnv's spawn workers import this file too (as __mp_main__),
    # and should not pay for loading Streamlit.
    import streamlit as st

    st.set_page_config(
        page_title="BurgerBot: vectorised environments", page_icon="🍔", layout="wide"
    )
    sections: dict[str, list] = {}
    for section, file, title, icon in PAGES:
        page = st.Page(f"app_pages/{file}", title=title, icon=icon, default=file == "home.py")
        sections.setdefault(section, []).append(page)
    st.navigation(sections).run()


# Streamlit runs this file as __main__. AsyncVectorEnv's "spawn" workers re-import the
# parent's main module as __mp_main__: the guard keeps them from running the app.
if __name__ == "__main__":
    main()
