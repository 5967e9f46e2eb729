"""BurgerBot vector-env teaching app: the router (each page lives in `app_pages/`).

The pages' folder must not be called `pages/`: Streamlit treats a folder of that name beside
the entry file as its older automatic multipage mode, and a deep link opened on a freshly
started server then runs the page without this router (wrong sidebar, no page config).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent

# (section, file, title, icon). "The lesson" follows the lesson's points in order and closes
# with what changed since it was written; "Going further" is optional, deeper material.
PAGES = [
    ("The lesson", "home.py", "Home: the speed problem", "🏠"),
    ("The lesson", "batch_shapes.py", "Batch shapes", "🧮"),
    ("The lesson", "mistakes.py", "Common mistakes", "🩺"),
    ("The lesson", "autoreset.py", "Auto-reset", "🔁"),
    ("The lesson", "counting_episodes.py", "Counting finished episodes", "🔢"),
    ("The lesson", "why_batches.py", "Why batches help", "📦"),
    ("The lesson", "sync_vs_async.py", "Sync vs Async", "⏱️"),
    ("The lesson", "sb3.py", "Stable-Baselines3", "🧠"),
    ("The lesson", "goal_scaling.py", "Goal scaling", "🍔"),
    ("The lesson", "lesson_vs_today.py", "What changed since the lesson", "🔍"),
    ("Going further", "speed_breakdown.py", "Speed breakdown", "🔬"),
    ("Going further", "disabled_mode.py", "DISABLED mode and reset_mask", "🛑"),
    ("Going further", "more_mistakes.py", "More mistakes", "🩹"),
    ("Going further", "training_data.py", "From batches to training data", "🧺"),
    ("Going further", "vector_wrappers.py", "Wrapping a vector env", "🧩"),
    ("Going further", "learning_speed.py", "Batches and learning speed", "🏃"),
    ("Going further", "cost_sweeps.py", "Cost sweeps: when Async wins", "🏋️"),
    ("Going further", "goal_statistics.py", "Goal counts: the statistics", "📊"),
    ("Reference", "glossary.py", "Glossary", "📖"),
]


def main() -> None:
    # Imported here: AsyncVectorEnv's spawn workers import this file too (as __mp_main__),
    # and should not pay for loading Streamlit.
    import streamlit as st

    from burgerbot.app import widget_values

    st.set_page_config(
        page_title="BurgerBot: vectorised environments", page_icon="🍔", layout="wide"
    )
    widget_values.guard()  # a value Streamlit cannot read is dropped, not a broken session
    if widget_values.dropped():
        st.warning(
            "**A value sent for one of the page's controls could not be read** (text or NaN "
            "where a number belongs, say), so it was ignored: that control kept its last "
            "value, or its default. Everything else works as before."
        )
    sections: dict[str, list] = {}
    for section, file, title, icon in PAGES:
        page = st.Page(f"app_pages/{file}", title=title, icon=icon, default=file == "home.py")
        sections.setdefault(section, []).append(page)
    # expanded: past a dozen pages Streamlit folds the list behind 'View N more' (the Going
    # further pages would be hidden, and the sidebar links to them missing).
    st.navigation(sections, expanded=True).run()


# Streamlit runs this file as __main__. AsyncVectorEnv's "spawn" workers re-import the
# parent's main module as __mp_main__: the guard keeps them from running the app.
if __name__ == "__main__":
    main()
