"""Hidden information through the server: whole games in every variant, every HTTP answer and every
WebSocket push checked against what the human may know at that moment (RULINGS C4, C12).

Three checks, each able to fail on its own kind of leak:
1. Resampling: the view built from any full state consistent with the human's information (the
   AI's hidden cards redrawn, its screened army re-picked) is byte-for-byte the view that was sent.
2. The AI's hidden decisions: the text of every AI decision that the human cannot see (a card chosen
   from a hidden zone, a pick or placement behind the Point-Buy screen) appears in no log entry or
   AI-turn entry of any answer, and the JSON of such an entry names no card and nothing of a pick.
3. The screened board: while the screen is up, no unit, Barracks entry or log text shows the AI's
   army.
And randomness: the client's seed fixes the Supply only; the AI's cards cannot be predicted from it.
"""

import json
import random

import pytest
from fastapi.testclient import TestClient

from engine.crown import actions as A
from engine.crown.cards import default_cards
from engine.crown.config import GameConfig
from engine.crown.observation import behind_screen
from engine.crown.state import GameState
from engine.crown.web import HIDDEN_CARD, HIDDEN_PICK
from engine.games import registry
from engine.games.view import game_view
from engine.interfaces.server.app import Limits, create_app
from engine.interfaces.server.seats import game_part
from tests.server.support import auth, record_commits

GAMES = [
    pytest.param({"supply": "random", "options": {"max_turns": 40}}, 0, id="standard-random-supply-human-blue"),
    pytest.param({"supply": "random", "options": {"max_turns": 40, "expansion": True}}, 1, id="standard-human-yellow"),
    pytest.param({"supply": ["Astrology", "False Orders", "Far Sight", "Scribes", "Vigilance", "Stables", "Academy",
                             "Armor", "Wish", "Bureaucracy"], "options": {"max_turns": 40}}, 0,
                 id="revealing-and-put-back-cards"),
    pytest.param({"variant": "last-stand", "options": {"max_turns": 30}, "ai": {"bot": "greedy"}}, 0, id="last-stand"),
    pytest.param({"variant": "point-buy", "options": {"max_turns": 30}}, 0, id="point-buy-open"),
    pytest.param({"variant": "point-buy", "options": {"secret_picks": True, "max_turns": 30}}, 1,
                 id="point-buy-screened-human-yellow"),
    pytest.param({"variant": "point-buy", "options": {"secret_picks": True, "max_turns": 30}}, 0,
                 id="point-buy-screened-human-blue"),
]


def _hidden_kind(state: GameState, action: int) -> bool:
    """Whether the human may not see which action the AI took in ``state`` (the test's own rule)."""
    return behind_screen(state) or (not A.is_order(action) and A.decode(action)[0] == A.K_CARD)


@pytest.mark.parametrize("body, human", GAMES)
def test_no_answer_or_push_of_a_whole_game_shows_what_the_human_may_not_know(tmp_path, body, human):
    limits = Limits(requests_per_second=1e6, request_burst=10**6)
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=limits)
    with TestClient(app) as client:
        server = app.state.server
        server.entropy = random.Random(5)                # the server's secrets, fixed for a replayable test
        snapshots = record_commits(server)         # version -> the true state behind it
        created = client.post("/api/games", json={"seed": 11, "human": human, "ai": {"bot": "random"}, **body})
        assert created.status_code == 201, created.text
        view = created.json()
        token = view.pop("token")
        game = server.games[view["id"]]
        snapshots.setdefault(1, None)
        rng = random.Random(7)
        answers, raw = [view], {id(view): created.text}       # every view sent, and its JSON as sent
        with client.websocket_connect(f"/api/games/{view['id']}/ws", headers=auth(token)) as ws:
            pushes = [json.loads(text := ws.receive_text())]
            raw[id(pushes[0])] = text
            while view["status"] == "playing":
                action = rng.choice(view["actions"])["id"]
                response = client.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                                       json={"action": action, "version": view["version"]})
                assert response.status_code == 200, response.text
                view = response.json()
                answers.append(view)
                raw[id(view)] = response.text
                while True:                              # pushes up to this answer (stale ones may be dropped)
                    pushed = json.loads(text := ws.receive_text())
                    pushes.append(pushed)
                    raw[id(pushed)] = text
                    if pushed["version"] == view["version"] and not pushed["thinking"]:
                        break
        assert len(answers) > 10
        record = client.get(f"/api/games/{view['id']}/record", headers=auth(token)).json()

    # The AI's hidden decisions, from the full record (the game is over): their texts, and which of
    # the AI's steps they are.
    replayed = GameState(GameConfig.from_json(record["config"]), auto_chance=False)
    secret_texts, hidden_steps, ai_steps = set(), [], 0
    for player, action in record["steps"]:
        if player == 1 - human:
            if _hidden_kind(replayed, action):
                secret_texts.add(replayed.action_text(action))
                hidden_steps.append(ai_steps)
            ai_steps += 1
        if action == A.RESIGN:
            replayed.resign(player)
        else:
            replayed.apply(action)
    # The server's whole log holds one entry per AI step: the hidden ones, and only those, redacted.
    ai_log = [e for e in game.snap.log if e["player"] == 1 - human]
    assert len(ai_log) == ai_steps
    assert [i for i, e in enumerate(ai_log) if e["text"] in (HIDDEN_CARD, HIDDEN_PICK)] == hidden_steps
    card_names = [c.name for c in default_cards().cards]
    hidden_seen = set()
    seen = answers + pushes
    for sent in seen:
        for entry in sent["log"] + sent["ai_last_turn"]:
            if entry["player"] != 1 - human:
                continue
            assert entry["text"] not in secret_texts, entry
            if entry["text"] in (HIDDEN_CARD, HIDDEN_PICK):
                sent_json = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
                assert sent_json in raw[id(sent)]                # the entry as it went over the wire
                assert not any(f'"{name}"' in sent_json for name in card_names), sent_json
                assert entry["fields"] == ({"type": "card", "zone": entry["fields"]["zone"]}
                                           if entry["text"] == HIDDEN_CARD else None), sent_json
                hidden_seen.add(entry["text"])
    assert bool(hidden_seen) == bool(hidden_steps)           # a game with hidden AI decisions showed them

    # Resampling: every view sent equals the view of resampled full states.
    sample = random.Random(3)
    checked = 0
    for sent in seen:
        snap = snapshots.get(sent["version"]) or (game.snap if sent["version"] == game.snap.version else None)
        if snap is None:
            continue
        for _ in range(2):
            other = snap.state.resample_hidden(human, sample)
            again = game_view(registry.for_state(other), sent["id"], sent["version"], other, human, sent["thinking"],
                              list(snap.log), list(snap.ai_last_turn), snap.ai_note)
            assert again == game_part(sent), f"version {sent['version']}: the view depends on cards the human cannot see"
        checked += 1
        # The screen: the AI's army never shows while it is up.
        if behind_screen(snap.state):
            ai = 1 - human
            public = set(snap.state.setup_state["public"])
            assert all(u["colour"] == human or u["square"] in public for u in sent["units"])
            assert sent["barracks"][ai] == {}
    assert checked >= len(answers) // 2


def test_the_clients_seed_fixes_the_supply_and_nothing_hidden(tmp_path):
    """The client's seed used to fix every shuffle: replaying it locally predicted the AI's hand. Now
    the Supply follows the seed and the draws follow a server secret."""
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=Limits(game_burst=100))
    with TestClient(app) as client:
        _seed_checks(client)


def _seed_checks(client):
    hands, own = set(), set()
    for _ in range(12):     # 5 of 6 Peons + 4 Guards: 12 equal hands by chance has probability < 0.001
        created = client.post("/api/games", json={"seed": 1234, "supply": "random", "ai": {"bot": "greedy"}}).json()
        state = client.app.state.server.games[created["id"]].snap.state
        local = GameState(GameConfig(seed=1234))                 # what a client could replay locally
        assert state.supply_names == local.supply_names          # the public part follows the seed
        assert state.config.seed != 1234
        hands.add((tuple(sorted(state.zones[1].hand)), tuple(state.zones[1].deck)))
        own.add(tuple(sorted(state.zones[0].hand)))
    assert len(hands) > 1                                        # not predictable from the seed
    assert len(own) > 1


# -- King's Ransom --------------------------------------------------------------------------------
@pytest.mark.parametrize("human", [0, 1], ids=["human-red", "human-blue"])
def test_king_s_ransom_no_answer_or_push_shows_the_ais_hidden_cards(tmp_path, human):
    """A whole King's Ransom game through the API: every answer and push is checked against the true
    state behind it (server-side): the AI's face-down cards and Hand appear nowhere (structurally and
    in the raw JSON), the AI's face-down plays are never named, and the view is the same for every
    state the human cannot tell from the true one (resampled)."""

    limits = Limits(requests_per_second=1e6, request_burst=10**6)
    app = create_app(tmp_path / "g.sqlite3", ai_pool="thread", limits=limits)
    ai = 1 - human
    with TestClient(app) as client:
        server = app.state.server
        server.entropy = random.Random(9)
        snapshots = record_commits(server)         # version -> the true state behind it
        created = client.post("/api/games", json={"variant": "kings-ransom", "human": human, "ai": {"bot": "random"}})
        assert created.status_code == 201, created.text
        view = created.json()
        token = view.pop("token")
        game = server.games[view["id"]]
        snapshots.setdefault(view["version"], game.snap)
        rng = random.Random(human)
        sent = [(view, created.text)]
        with client.websocket_connect(f"/api/games/{view['id']}/ws", headers=auth(token)) as ws:
            text = ws.receive_text()
            sent.append((json.loads(text), text))
            while view["status"] == "playing":
                response = client.post(f"/api/games/{view['id']}/actions", headers=auth(token),
                                       json={"action": rng.choice(view["actions"])["id"], "version": view["version"]})
                assert response.status_code == 200, response.text
                view = response.json()
                sent.append((view, response.text))
                while True:
                    text = ws.receive_text()
                    pushed = json.loads(text)
                    sent.append((pushed, text))
                    if pushed["version"] == view["version"] and not pushed["thinking"]:
                        break
        record = client.get(f"/api/games/{view['id']}/record", headers=auth(token)).json()

    # The AI's face-down plays, by their own texts ("play n@c5"), from the record after the end.
    from engine.ransom.state import replay
    secret_texts = set()
    steps = record["actions"]
    for i in range(len(steps)):
        before = replay({**record, "actions": steps[:i], "rng": None})
        who, action = steps[i]
        if who == ai and action >= 0 and before.action_fields(action)["kind"] == "play":
            secret_texts.add(before.action_text(action))
    assert secret_texts
    checked = hidden_checked = 0
    sample = random.Random(3)
    for view, raw in sent:
        for entry in view["log"] + view["ai_last_turn"]:
            assert entry["text"] not in secret_texts
            if entry["player"] == ai and entry["fields"] and entry["fields"].get("kind") == "play":
                assert set(entry["fields"]) == {"kind", "square"}, entry
        snap = snapshots.get(view["version"])
        if snap is None or view["status"] == "over":
            continue
        state = snap.state
        truth = state.observation(ai)          # the AI's own view: its face-down cards and Hand
        for card in truth["arena"]:
            if card["owner"] == ai and card["face_down"]:
                shown = next(c for c in view["observation"]["arena"] if c["square"] == card["square"])
                assert shown["card"] is None and shown["face_down"], shown
                leak = (f'"square":"{card["square"]}","owner":{ai},"face_down":true,'
                        f'"card":"{card["card"]}"')
                assert leak not in raw.replace(" ", "")
                hidden_checked += 1
        assert view["observation"]["hand"] == state.observation(human)["hand"]
        assert "own_deck" not in raw or view["observation"]["own_deck"] == state.observation(human)["own_deck"]
        assert view["observation"]["hand_sizes"][ai] == len(truth["hand"])
        for _ in range(2):                     # the view is the same for every state the human cannot tell apart
            other = state.resample_hidden(human, sample)
            again = game_view(registry.for_state(other), view["id"], view["version"], other, human, view["thinking"],
                              list(snap.log), list(snap.ai_last_turn), snap.ai_note)
            assert again == game_part(view), f"version {view['version']}: the view depends on cards the human cannot see"
        checked += 1
    assert checked >= 10 and hidden_checked >= 10
