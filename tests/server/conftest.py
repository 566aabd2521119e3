"""Fixtures of the server tests (helpers: support.py)."""

import pytest
from fastapi.testclient import TestClient

from engine.interfaces.server.app import create_app


@pytest.fixture
def client(tmp_path):
    app = create_app(tmp_path / "games.sqlite3", ai_pool="thread")
    with TestClient(app) as c:
        yield c


# -- the stores: SQLite and a real PostgreSQL (tests/server/postgres.py) -----------------------------
@pytest.fixture(scope="session")
def postgres_cluster():
    """One throwaway PostgreSQL server for the test session (FAILS, saying how to install it, when
    its binaries are missing)."""
    from tests.server.postgres import PostgresCluster

    cluster = PostgresCluster()
    yield cluster
    cluster.close()


@pytest.fixture
def private_cluster():
    """A PostgreSQL server of one test's own, for tests that stop it."""
    from tests.server.postgres import PostgresCluster

    cluster = PostgresCluster()
    yield cluster
    cluster.close()


@pytest.fixture
def pg_url(postgres_cluster):
    """The URL of a new empty database (with its password)."""
    return postgres_cluster.database()


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request, tmp_path):
    """Where a test's games are kept, once per backend: an SQLite file, then a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return request.getfixturevalue("postgres_cluster").database()
