"""A page of another site cannot use a visitor's browser against the server (docs/server.md,
"Security model"): every WebSocket (a game's, a spectator's, the analysis board's) and every request
that changes something or costs work (any method but GET, HEAD and OPTIONS) is refused when the
browser says it comes from another site (its ``Origin``, or ``Sec-Fetch-Site: cross-site``): 403,
close code 4403 for a socket, nothing changed, the origin not echoed. A body must say it is JSON
(``Content-Type: application/json``: 415 otherwise), so a form or a ``text/plain`` request, the
kinds a page may send anywhere without asking, never reaches an endpoint. The server's own pages
(their Origin is the Host they were served from), a proxy's origin named with ``--allow-origin``,
and clients that send no Origin (bots, curl) are served as before.

Each test runs a real ``ftc serve``.
"""

import json
import subprocess

import httpx
import pytest

from tests.server.support import ServerProcess, auth
from tests.support import FTC, ROOT, child_env

EVIL = "http://evil.example"
PROXY = "https://games.example.org"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = ServerProcess(tmp_path_factory.mktemp("cross") / "g.sqlite3", "--allow-origin", PROXY + "/")
    yield server
    server.kill()


def _socket(url: str, headers: dict, first: str | None = None) -> tuple[str, object]:
    """Open a WebSocket with ``headers``, send ``first`` if given: ("message", the first message) or
    ("closed", (code, reason))."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    try:
        with connect(url, additional_headers=headers, open_timeout=30) as ws:
            if first is not None:
                ws.send(first)
            return "message", json.loads(ws.recv(timeout=30))
    except ConnectionClosed as exc:
        return "closed", (exc.rcvd.code, exc.rcvd.reason) if exc.rcvd is not None else (None, "")


def _game(base: str, headers: dict | None = None) -> httpx.Response:
    return httpx.post(base + "/api/games", json={"variant": "kings-ransom", "ai": {"bot": "greedy"}},
                      headers=headers or {}, timeout=60)


def test_every_socket_refuses_another_sites_page_and_serves_the_servers_own(served):
    created = _game(served.base).json()
    ws = served.base.replace("http://", "ws://")
    same = {"Origin": served.base}
    paths = {"analysis": ("/api/analysis/ws", None), "game": (f"/api/games/{created['id']}/ws",
                                                              json.dumps({"token": created["token"]})),
             "watch": (f"/api/games/{created['id']}/watch/ws", None)}
    for name, (path, first) in paths.items():
        for origin in (EVIL, "null", f"http://127.0.0.1:{served.port}.evil.example", f"https://{served.port}"):
            kind, got = _socket(ws + path, {"Origin": origin}, first)
            assert (kind, got[0] if kind == "closed" else got) == ("closed", 4403), (name, origin, kind, got)
            assert "another site" in got[1] and origin not in got[1], got
        kind, got = _socket(ws + path, {"Sec-Fetch-Site": "cross-site"}, first)
        assert kind == "closed" and got[0] == 4403, (name, kind, got)
        for headers in (same, {"Origin": PROXY}, {}):      # the server's own page, the named proxy's, a bot
            kind, got = _socket(ws + path, headers, first)
            assert kind == "message" and (got.get("type") == "hello" if name == "analysis" else
                                          got["id"] == created["id"]), (name, headers, kind, got)


def test_cross_site_requests_are_refused_and_change_nothing(served):
    def health():
        return httpx.get(served.base + "/api/health", timeout=30).json()["games_in_memory"]
    before = health()
    text = {"content-type": "text/plain"}
    body = json.dumps({"text": "crown"})
    # A text/plain POST (what a page may send anywhere without asking) from another site.
    refused = httpx.post(served.base + "/api/analysis/position", content=body, headers={**text, "Origin": EVIL},
                         timeout=30)
    assert refused.status_code == 403 and "another site" in refused.text and EVIL not in refused.text, refused.text
    # Neither as JSON, nor creating a game, nor with Sec-Fetch-Site alone, nor from an opaque origin.
    for headers in ({"Origin": EVIL}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"},
                    {"Origin": f"http://127.0.0.1:{served.port + 1}"}, {"Origin": served.base.replace("http", "ftp")}):
        assert _game(served.base, headers).status_code == 403, headers
        answer = httpx.post(served.base + "/api/analysis/position", json={"text": "crown"}, headers=headers, timeout=30)
        assert answer.status_code == 403, (headers, answer.text)
    assert health() == before                              # nothing was created
    # A game's own paths too (a page that learnt a token still cannot resign it from another site).
    game = _game(served.base).json()
    resign = httpx.post(f"{served.base}/api/games/{game['id']}/resign",
                        headers={**auth(game["token"]), "Origin": EVIL}, timeout=30)
    assert resign.status_code == 403
    view = httpx.get(f"{served.base}/api/games/{game['id']}", headers=auth(game["token"]), timeout=30).json()
    assert view["status"] != "over" and view["version"] == game["version"], view
    # A body that does not say it is JSON is refused, whoever sends it; empty bodies need no type.
    for headers in (text, {"content-type": "application/x-www-form-urlencoded"}, {}):
        answer = httpx.post(served.base + "/api/analysis/position", content=body, headers=headers, timeout=30)
        assert answer.status_code == 415 and "application/json" in answer.text, (headers, answer.text)
    assert httpx.post(f"{served.base}/api/games/{game['id']}/ai", headers=auth(game["token"]),
                      timeout=30).status_code == 409                # no body: checked as before


def test_the_servers_own_pages_a_named_proxy_and_bots_are_served(served):
    def position(headers):
        return httpx.post(served.base + "/api/analysis/position", json={"text": "crown"},
                          headers=headers, timeout=30)
    for headers in ({"Origin": served.base, "Sec-Fetch-Site": "same-origin"},     # the server's own page
                    {"Origin": served.base.upper()},                            # origins are case-blind
                    {"Origin": f"https://127.0.0.1:{served.port}"},            # behind a TLS-terminating proxy
                    {"Origin": PROXY, "Host": "10.0.0.5:8001"},                # the proxy named with --allow-origin
                    {"Origin": "https://games.example.org:443"},               # its default port written out
                    {"Origin": "http://games.example.org", "Host": "games.example.org"},   # its Host passed on
                    {"Sec-Fetch-Site": "none"},                                # typed into the address bar
                    {}):                                                        # a bot, curl
        answer = position(headers)
        assert answer.status_code == 200 and answer.json()["position"], (headers, answer.text)
    assert _game(served.base, {"Origin": served.base}).status_code == 201
    # Reading stays open to links from anywhere (a shared invitation opens the page).
    page = httpx.get(served.base + "/", headers={"Sec-Fetch-Site": "cross-site", "Origin": EVIL}, timeout=30)
    assert page.status_code == 200


@pytest.mark.parametrize("value", ["games.example.org", "https://games.example.org/play", "ftp://x.example",
                                   "https://", "https://user@games.example.org", "https://games.example.org?x=1"])
def test_an_allowed_origin_that_is_no_origin_is_a_one_line_error(tmp_path, value):
    run = subprocess.run(FTC + ["serve", "--db", str(tmp_path / "g.sqlite3"), "--port", "0", "--allow-origin", value],
                         capture_output=True, text=True, env=child_env(), cwd=ROOT, timeout=60)
    assert run.returncode == 2 and run.stdout == "", (run.stdout, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ftc: error: --allow-origin {value}: not an origin"), lines
