"""The full card-and-board game (helpers: tests/game/support.py)."""
