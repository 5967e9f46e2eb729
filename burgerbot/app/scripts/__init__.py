"""Self-contained scripts equivalent to what a page shows, one module per page; tests run them."""
