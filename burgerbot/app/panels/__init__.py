"""Streamlit drawing code for parts of a page, one module per page (named like the page)."""
