"""Each page's Streamlit-free logic: runs, tables, computed sentences, charts."""
