"""Per-page logic behind the Streamlit pages, one module per page (named like the page)."""
