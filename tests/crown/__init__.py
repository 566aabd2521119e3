"""The full card-and-board game (helpers: tests/crown/support.py)."""
