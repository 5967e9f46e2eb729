"""Altair chart builders, one module per page; each returns an altair chart."""
