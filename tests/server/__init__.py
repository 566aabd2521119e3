"""The AI opponent server (helpers: tests/server/support.py, fixtures: conftest.py)."""
