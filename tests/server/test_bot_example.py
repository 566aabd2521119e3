"""examples/bot.py, the documented external bot, run as a real program against a real server
(`ftc serve` in its own process): it plays whole games through the HTTP API with a seat's token."""

import json
import subprocess
import sys

import httpx

from tests.server.support import ServerProcess
from tests.support import ROOT, child_env

BOT = [sys.executable, str(ROOT / "examples" / "bot.py")]


def _bot(base, game_id, token, *extra):
    return subprocess.Popen(BOT + [base, game_id, "--poll", "0.05", *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**child_env(), "FTC_BOT_TOKEN": token}, cwd=ROOT)


def _finished(proc) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    return json.loads(out)


def test_the_example_bot_plays_whole_games_against_the_ai_and_on_a_bot_seat(tmp_path):
    server = ServerProcess(tmp_path / "g.sqlite3")
    try:
        # Against the AI: the bot plays the seat of a game's token like a human.
        created = httpx.post(server.base + "/api/games", json={"variant": "kings-ransom", "ai": {"bot": "greedy"}})
        assert created.status_code == 201, created.text
        game = created.json()
        result = _finished(_bot(server.base, game["id"], game["token"], "--seed", "3"))
        assert result["over"] and result["decisions"] > 5 and result["seat"] == 0
        view = httpx.get(f"{server.base}/api/games/{game['id']}",
                         headers={"Authorization": f"Bearer {game['token']}"}).json()
        assert view["status"] == "over" and view["over"] == result["over"]
        # On a bot seat of For the Crown, its bot token against the creator's seat (a second bot).
        created = httpx.post(server.base + "/api/games", json={"seed": 4, "supply": "first-game",
                                                               "options": {"max_turns": 16},
                                                               "seats": [{"kind": "creator"}, {"kind": "bot"}]})
        assert created.status_code == 201, created.text
        game = created.json()
        assert [b["seat"] for b in game["bots"]] == [1] and game["invites"] == []
        bot = _bot(server.base, game["id"], game["bots"][0]["token"], "--first")
        creator = _bot(server.base, game["id"], game["token"], "--seed", "5")
        results = [_finished(bot), _finished(creator)]
        assert [r["seat"] for r in results] == [1, 0]
        assert all(r["over"] and r["decisions"] > 0 for r in results)
        # A wrong token: the bot says why and exits 1.
        refused = _bot(server.base, game["id"], "x" * 43)
        _, err = refused.communicate(timeout=60)
        assert refused.returncode == 1 and "404" in err
    finally:
        server.kill()
