"""The Streamlit app's own code; the library modules of `burgerbot` never import it.

A page is three files named like it: `app_pages/P.py` (its Streamlit code), `logic/P.py` (its
Streamlit-free runs, tables, sentences and charts) and `scripts/P.py` (the scripts it shows).
The modules here beside those folders serve every page.
"""
