"""The Streamlit app's own code; the library modules of `burgerbot` never import it.

`caps`, `settings` (URL settings), `slots` (env slots, the Async worker budget) and `ui`
(Streamlit helpers) serve every page; `views/`, `charts/` and `scripts/` hold one module per
page, named like the page's file in `app_pages/`.
"""
