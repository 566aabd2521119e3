"""The server on each store (SQLite and a real PostgreSQL, tests/server/postgres.py): today's games
play, survive a restart and refuse a stale action the same way; with PostgreSQL stopped mid-game a
request answers 503, changes nothing and the game goes on once it is back; `ftc serve --store` checks
the store before serving (one line, exit 2, never the password)."""

import logging
import random
import subprocess

import pytest
from fastapi.testclient import TestClient

from engine.interfaces.server.app import Limits, create_app
from tests.server.postgres import PASSWORD
from tests.server.support import act, auth, new_game, play_some
from tests.support import FTC, ROOT, child_env

NO_LIMITS = Limits(requests_per_second=1e6, request_burst=10**6, games_per_minute=1e6, game_burst=10**6)


def _end_phase(view):
    return next(a["id"] for a in view["actions"] if a["fields"]["type"] == "done")


def test_games_play_and_survive_a_restart_on_each_store(store_url):
    rng = random.Random(7)
    with TestClient(create_app(store_url, ai_pool="thread", limits=NO_LIMITS)) as c:
        view, token = new_game(c, supply="random")
        view = play_some(c, view, token, 12, rng)
        assert view["status"] == "playing" and view["your_turn"]
        stale = c.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                       json={"action": view["actions"][0]["id"], "version": view["version"] - 1})
        assert stale.status_code == 409
        assert c.app.state.server.store.get(view["id"])["version"] == view["version"]
    with TestClient(create_app(store_url, ai_pool="thread", limits=NO_LIMITS)) as c:
        again = c.get(f"/api/games/{view['id']}", headers=auth(token)).json()
        assert again == view
        if again["status"] == "playing":
            act(c, again, token, again["actions"][0]["id"])


def test_with_postgresql_stopped_a_request_answers_503_changes_nothing_and_the_game_goes_on(private_cluster, caplog):
    caplog.set_level(logging.DEBUG)
    url = private_cluster.database()
    with TestClient(create_app(url, ai_pool="thread", limits=NO_LIMITS, busy_timeout=1.0)) as c:
        view, token = new_game(c)
        private_cluster.stop("immediate")                    # as if the database server crashed
        refused = c.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                         json={"action": _end_phase(view), "version": view["version"]})
        assert refused.status_code == 503, refused.text
        detail = refused.json()["detail"]
        assert detail.startswith(f"storage is unavailable, nothing was changed: saving game {view['id']}: ")
        assert f"127.0.0.1:{private_cluster.port}/" in detail and PASSWORD not in detail
        assert c.get(f"/api/games/{view['id']}", headers=auth(token)).json() == view      # nothing applied
        created = c.post("/api/games", json={"seed": 1, "ai": {"bot": "greedy"}})
        assert created.status_code == 503
        private_cluster.start()
        after = act(c, view, token, _end_phase(view))           # the same request goes through now
        assert after["version"] == view["version"] + 1
        assert c.app.state.server.store.get(view["id"])["version"] == after["version"]
    assert PASSWORD not in caplog.text


def _serve(*args):
    return subprocess.run(FTC + ["serve", "--port", "0", *args], capture_output=True, text=True, timeout=60,
                          env=child_env(), cwd=ROOT)


@pytest.mark.parametrize("case, message", [
    ("unreachable", "cannot reach PostgreSQL at 127.0.0.1:{port}/postgres"),
    ("password", "refused the credentials"),
    ("database", "the database does not exist"),
    ("scheme", "--store mysql://ftc:***@127.0.0.1:{port}/x: not a store this server knows"),
    ("both", "--db and --store both name the games' database"),
])
def test_a_bad_store_is_a_one_line_error_without_the_password(postgres_cluster, tmp_path, case, message):
    from tests.server.support import free_port

    port = postgres_cluster.port
    if case == "unreachable":
        port = free_port()
        args = ["--store", postgres_cluster.url().replace(f":{postgres_cluster.port}/", f":{port}/")]
    elif case == "password":
        args = ["--store", postgres_cluster.url(password=PASSWORD + "x")]
    elif case == "database":
        args = ["--store", postgres_cluster.url("missing")]
    elif case == "scheme":
        args = ["--store", postgres_cluster.url("x").replace("postgresql://", "mysql://")]
    else:
        args = ["--db", str(tmp_path / "g.sqlite3"), "--store", postgres_cluster.url()]
    result = _serve(*args)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr and not result.stdout
    assert result.stderr.startswith("ftc: error: serve: ") and result.stderr.count("\n") == 1, result.stderr
    assert message.format(port=port) in result.stderr
    assert PASSWORD not in result.stderr and "s3cret" not in result.stderr


def test_sqlite_urls_and_paths_are_the_same_store(tmp_path):
    rng = random.Random(3)
    path = tmp_path / "g.sqlite3"
    with TestClient(create_app(f"sqlite:///{path}", ai_pool="thread", limits=NO_LIMITS)) as c:
        view, token = new_game(c)
        view = play_some(c, view, token, 5, rng)
    with TestClient(create_app(path, ai_pool="thread", limits=NO_LIMITS)) as c:
        assert c.get(f"/api/games/{view['id']}", headers=auth(token)).json() == view
    result = _serve("--store", f"sqlite:///{tmp_path}/no/such/folder/g.sqlite3")
    assert result.returncode == 2 and "serve: --store " in result.stderr and "does not exist" in result.stderr
