"""Fixtures of the server tests (helpers: support.py)."""

import pytest
from fastapi.testclient import TestClient

from engine.interfaces.server.app import create_app


@pytest.fixture
def client(tmp_path):
    app = create_app(tmp_path / "games.sqlite3", ai_pool="thread")
    with TestClient(app) as c:
        yield c
