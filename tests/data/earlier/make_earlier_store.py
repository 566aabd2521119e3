"""Run in a checkout of 04970b3: an SQLite store with a game in progress of each of the four games,
the seat tokens and the views the server of that version gave (tests/test_earlier_files.py)."""
import json
import random
import sys
import time
from pathlib import Path

from fastapi.testclient import TestClient

from engine.interfaces.server.app import create_app

out = Path(sys.argv[1])

db = out / "store.db"
if db.exists():
    db.unlink()
games = []
app = create_app(str(db), ai_pool="thread", ai_workers=1)
with TestClient(app) as c:
    for body in ({"seed": 3}, {"variant": "kings-ransom", "seed": 3}, {"game": "crusade", "seed": 3},
                 {"game": "crownfall", "options": {"players": 3}}):
        r = c.post("/api/games", json={**body, "ai": {"bot": "random"}})
        assert r.status_code == 201, r.text
        view = r.json()
        token = view.pop("token")
        h = {"Authorization": f"Bearer {token}"}
        rng = random.Random(5)
        for _ in range(6):
            deadline = time.time() + 30
            while (view["thinking"] or not view.get("your_turn")) and view["status"] != "over" and time.time() < deadline:
                time.sleep(0.05)
                view = c.get(f"/api/games/{view['id']}", headers=h).json()
            if view["status"] == "over" or not view.get("your_turn"):
                break
            r = c.post(f"/api/games/{view['id']}/actions", json={"action": rng.choice(view["actions"])["id"], "version": view["version"]}, headers=h)
            assert r.status_code == 200, r.text
            view = r.json()
        deadline = time.time() + 30
        while view["thinking"] and time.time() < deadline:
            time.sleep(0.05)
            view = c.get(f"/api/games/{view['id']}", headers=h).json()
        view = c.get(f"/api/games/{view['id']}", headers=h).json()
        games.append({"body": body, "token": token, "view": view})
(out / "store.json").write_text(json.dumps(games, indent=1) + "\n")
print("ok", db.stat().st_size, [g["view"]["version"] for g in games])
