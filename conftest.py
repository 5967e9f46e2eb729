"""Makes `burgerbot` importable from the project root when running pytest."""
