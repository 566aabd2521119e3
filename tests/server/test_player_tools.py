"""The player's tools (engine/interfaces/server/player_tools.py): hints that cannot peek, saved games
that survive a restart, deleting, and the download of what the player may know (a position view
that `ftc analyze` reads and that holds nothing the human has not seen)."""

import asyncio
import json
import random
import subprocess
from collections import Counter
from math import comb

import httpx
import pytest
from fastapi.testclient import TestClient

from engine.crown.config import GameConfig
from engine.crown.knowledge import FORMAT, load_view, state_digest
from engine.crown.observation import hidden_pool, resample_hidden
from engine.crown.players import ISMCTSBot
from engine.crown.record import fingerprint
from engine.crown.scenario import scenario
from engine.crown.state import GameState
from engine.interfaces.server import ai
from engine.interfaces.server.app import Limits, create_app
from tests.server.support import act, auth, new_game, play_some
from tests.support import FTC, ROOT, child_env

NO_LIMITS = Limits(requests_per_second=10_000, request_burst=10_000, games_per_minute=10_000, game_burst=10_000)
HINT_BOT = "ismcts:30"


def app_for(path, **kwargs):
    return create_app(path, ai_pool="thread", hint_bot=HINT_BOT, **{"limits": NO_LIMITS, **kwargs})


# -- a hint cannot peek --------------------------------------------------------------------------
BOARD = "r3k3/pp3n2/8/8/8/2N5/PP6/R3K3 w - - 0 1"
MY_HAND = ["Peon", "Peon", "Guard", "Armor", "Peon"]


def hidden_variant(opponent_hand, opponent_deck):
    return scenario(BOARD, hands=(MY_HAND, opponent_hand), decks=(["Peon", "Guard", "Peon"], opponent_deck),
                    discards=(["Guard"], ["Peon"]), supply=["Armor", "Stables"])


def other_hidden_cards(g, seed):
    """``g`` with other hidden cards of the opponent (drawn from the same pool: hand, Deck and unknown
    Deck tops) and another chance generator: the human to decide cannot tell it from ``g``."""
    human = g.current_player()
    other = g.clone()
    sample = resample_hidden(g, human, random.Random(seed))
    other.zones[1 - human] = sample.zones[1 - human].copy()
    other.rng = random.Random(seed)
    return other


def state_pairs():
    """States at the human's decision, each with a twin that differs only in what the human cannot see."""
    pairs = [(hidden_variant(["Peon", "Peon", "Guard"], ["Guard", "Armor", "Peon"]),
              hidden_variant(["Guard", "Armor", "Peon"], ["Peon", "Peon", "Guard"]))]
    for seed in range(300):
        rng = random.Random(seed)
        g = GameState(GameConfig(seed=seed))
        for _ in range(rng.randrange(30, 160)):
            if g.is_terminal():
                break
            g.apply(rng.choice(g.legal_actions()))
        if g.is_terminal():
            continue
        twin = next((t for t in (other_hidden_cards(g, k) for k in range(20))
                     if sorted(t.zones[1 - g.current_player()].hand) != sorted(g.zones[1 - g.current_player()].hand)),
                    None)
        if twin is not None:
            pairs.append((g, twin))
        if len(pairs) == 8:
            break
    return pairs


def hints_and_search_inputs(a, b, monkeypatch):
    """The hints for ``a`` and ``b`` under one seed, and what the search was given for each (the
    fingerprint of its state and that state's generator)."""
    seen = []
    original = ISMCTSBot.search_within

    def spy(self, state, seconds):
        seen.append((fingerprint(state), state.rng.getstate()))
        return original(self, state, seconds)

    monkeypatch.setattr(ISMCTSBot, "search_within", spy)
    human = a.current_player()
    answers = []
    for g in (a, b):
        hint = ai.hint_for(g, human, HINT_BOT, 7, 60.0)
        hint.pop("seconds")                              # wall time, the only thing allowed to differ
        answers.append(hint)
    return answers, seen


def test_a_hint_depends_only_on_the_humans_information_set(monkeypatch):
    pairs = state_pairs()
    assert len(pairs) == 8
    sources = set()
    for a, b in pairs:
        human = a.current_player()
        assert a.observation(human) == b.observation(human)
        assert fingerprint(a) != fingerprint(b) and a.observation(1 - human) != b.observation(1 - human)
        (hint_a, hint_b), seen = hints_and_search_inputs(a, b, monkeypatch)
        assert hint_a == hint_b
        assert hint_a["action"] in a.legal_actions() and hint_a["text"] == a.action_text(hint_a["action"])
        assert seen[0] == seen[1]                    # the search was given the very same state both times
        sources.add(hint_a["source"])
    assert len(sources) >= 2


def test_the_peek_test_catches_a_hint_that_searches_the_true_state(monkeypatch):
    def peeking(state, player, rng):                # a planted peek: "determinize" by copying the real state
        d = state.clone(history=False)
        d.rng = random.Random(rng.getrandbits(64))
        return d

    monkeypatch.setattr(ai, "resample_hidden", peeking)
    a, b = state_pairs()[0]
    _, seen = hints_and_search_inputs(a, b, monkeypatch)
    assert seen[0] != seen[1]


# -- hints through the API -------------------------------------------------------------------------
def test_a_hint_suggests_a_legal_action_as_the_view_shows_it_and_changes_nothing(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as c:
        view, token = new_game(c)
        view = play_some(c, view, token, 8, random.Random(2))
        stored = c.app.state.server.store.get(view["id"])
        seen_sources = set()
        for _ in range(3):
            hint = c.post(f"/api/games/{view['id']}/hint", headers=auth(token))
            assert hint.status_code == 200, hint.text
            hint = hint.json()
            shown = {a["id"]: a for a in view["actions"]}
            assert hint["action"] in shown and hint["text"] == shown[hint["action"]]["text"]
            assert hint["fields"] == shown[hint["action"]]["fields"] and hint["version"] == view["version"]
            assert hint["source"] in ("win", "plan", "prior", "search")
            for alt in hint["alternatives"]:
                assert alt["action"] in shown and alt["text"] == shown[alt["action"]]["text"] and 0 < alt["share"] <= 1
            assert sum(alt["share"] for alt in hint["alternatives"]) <= 1.0001
            seen_sources.add(hint["source"])
            view = act(c, view, token, hint["action"])
        # Hints change no game: the stored game moved only by the three actions and the AI's answers.
        again = c.get(f"/api/games/{view['id']}", headers=auth(token)).json()
        assert again == view and again["version"] > stored["version"]
        assert c.post(f"/api/games/{view['id']}/hint").status_code == 401
        assert c.post(f"/api/games/{view['id']}/hint", headers=auth("x" * 43)).status_code == 404


def test_a_tree_decision_lists_alternatives_with_visit_shares():
    g = hidden_variant(["Peon", "Peon", "Guard"], ["Guard", "Armor", "Peon"])
    hint = ai.hint_for(g, 0, "ismcts-plain:60", 3, 60.0)         # the plain tree takes every decision
    assert hint["source"] == "search" and len(hint["alternatives"]) >= 2
    assert hint["alternatives"][0]["action"] == hint["action"]
    shares = [alt["share"] for alt in hint["alternatives"]]
    assert shares == sorted(shares, reverse=True) and sum(shares) <= 1.0001


def test_hints_are_refused_out_of_turn_one_at_a_time_and_rate_limited(tmp_path):
    limits = Limits(requests_per_second=10_000, request_burst=10_000, hints_per_minute=2, hint_burst=2)
    with TestClient(app_for(tmp_path / "g.sqlite3", limits=limits)) as c:
        view, token = new_game(c)
        path = f"/api/games/{view['id']}/hint"
        assert c.post(path, headers=auth(token)).status_code == 200
        assert c.post(path, headers=auth(token)).status_code == 200
        refused = c.post(path, headers=auth(token))
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        assert "hints" in refused.json()["detail"]
        resigned = c.post(f"/api/games/{view['id']}/resign", headers=auth(token)).json()
        over = c.post(path, headers=auth(token))
        assert over.status_code == 409 and "over" in over.json()["detail"]
        assert c.get(f"/api/games/{view['id']}", headers=auth(token)).json() == resigned


def test_one_hint_at_a_time_per_game(tmp_path, monkeypatch):
    app = app_for(tmp_path / "g.sqlite3")
    original = ai.hint_turn

    def slow_hint(*args):
        import time
        time.sleep(0.5)
        return original(*args)

    monkeypatch.setattr("engine.interfaces.server.player_tools.hint_turn", slow_hint)

    async def main():
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                created = (await c.post("/api/games", json={"seed": 5, "supply": "first-game",
                                                            "ai": {"bot": "greedy"}})).json()
                path = f"/api/games/{created['id']}/hint"
                answers = await asyncio.gather(*(c.post(path, headers=auth(created["token"])) for _ in range(3)))
                return sorted(r.status_code for r in answers), [r.json() for r in answers]

    codes, bodies = asyncio.run(main())
    assert codes == [200, 409, 409], bodies
    assert all("being searched" in b["detail"] for b in bodies if "detail" in b)


def test_a_failed_hint_search_falls_back_to_the_greedy_bot(tmp_path, monkeypatch):
    def broken(*args):
        raise RuntimeError("planted")

    monkeypatch.setattr("engine.interfaces.server.player_tools.hint_turn", broken)
    with TestClient(app_for(tmp_path / "g.sqlite3")) as c:
        view, token = new_game(c)
        hint = c.post(f"/api/games/{view['id']}/hint", headers=auth(token)).json()
        assert hint["source"] == "greedy" and hint["action"] in {a["id"] for a in view["actions"]}
        assert c.get("/api/health").json()["ai_fallbacks"] == 1


# -- saved games ----------------------------------------------------------------------------------
def test_saved_games_survive_a_restart_and_play_on(tmp_path):
    db = tmp_path / "games.sqlite3"
    with TestClient(app_for(db)) as c:
        first, first_token = new_game(c)
        first = play_some(c, first, first_token, 10, random.Random(4))
        second, second_token = new_game(c, variant="last-stand", supply="random")
        over = c.post(f"/api/games/{second['id']}/resign", headers=auth(second_token)).json()
    # A new server on the same database file: the browser's list comes back, every game as it was.
    with TestClient(app_for(db)) as c:
        listed = c.post("/api/games/saved", json={"games": [
            {"id": first["id"], "token": first_token}, {"id": second["id"], "token": second_token},
            {"id": first["id"], "token": second_token}, {"id": "0" * 16, "token": first_token}]})
        assert listed.status_code == 200
        games = listed.json()["games"]
        assert games[2] == {"id": first["id"], "found": False} and games[3] == {"id": "0" * 16, "found": False}
        assert {k: games[0][k] for k in ("variant", "turn", "status", "your_turn", "version", "human")} == {
            "variant": "standard", "turn": first["turn"], "status": "playing", "your_turn": True,
            "version": first["version"], "human": 0}
        assert games[0]["to_move"] == first["to_move"] and games[0]["updated"] > 0
        assert games[1]["status"] == "over" and games[1]["variant"] == "last-stand" and games[1]["to_move"] is None
        resumed = c.get(f"/api/games/{first['id']}", headers=auth(first_token)).json()
        assert resumed == first                                   # the view is identical
        assert c.get(f"/api/games/{second['id']}", headers=auth(second_token)).json() == over
        after = act(c, resumed, first_token, resumed["actions"][0]["id"])
        assert after["version"] > first["version"]


def test_the_saved_games_request_is_validated_and_bounded(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as c:
        too_many = {"games": [{"id": f"{i:016x}", "token": "x" * 43} for i in range(51)]}
        answer = c.post("/api/games/saved", json=too_many)
        assert answer.status_code == 422 and answer.json()["detail"][0]["loc"][:2] == ["body", "games"]
        assert c.post("/api/games/saved", json={"games": [{"id": "a"}]}).status_code == 422
        assert c.post("/api/games/saved", json={"games": []}).json() == {"games": []}


def test_a_deleted_game_is_gone_for_good(tmp_path):
    db = tmp_path / "g.sqlite3"
    with TestClient(app_for(db)) as c:
        view, token = new_game(c)
        assert c.delete(f"/api/games/{view['id']}").status_code == 401
        assert c.delete(f"/api/games/{view['id']}", headers=auth("y" * 43)).status_code == 404
        assert c.get(f"/api/games/{view['id']}", headers=auth(token)).status_code == 200
        assert c.delete(f"/api/games/{view['id']}", headers=auth(token)).json() == {"deleted": view["id"]}
        assert c.get(f"/api/games/{view['id']}", headers=auth(token)).status_code == 404
        assert c.app.state.server.store.get(view["id"]) is None
    with TestClient(app_for(db)) as c:
        assert c.get(f"/api/games/{view['id']}", headers=auth(token)).status_code == 404


# -- the download of what the player may know -------------------------------------------------------
def test_the_knowledge_file_loads_and_shows_the_human_their_own_view(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as c:
        # The server's secrets seeded: the same game every run, still in play after 25 decisions
        # (a game the AI has already won would be analysed as over).
        c.app.state.server.entropy = random.Random(2)
        view, token = new_game(c, seed=11, supply="random")
        view = play_some(c, view, token, 25, random.Random(5))
        assert view["status"] == "playing" and view["your_turn"]
        answer = c.get(f"/api/games/{view['id']}/knowledge", headers=auth(token))
        assert answer.status_code == 200
        assert answer.headers["content-disposition"] == (
            f'attachment; filename="ftc-{view["id"]}-turn{view["turn"]}.view.json"')
        doc = answer.json()
        assert doc["format"] == FORMAT and doc["seat"] == view["human"]
        g = load_view(doc)
        assert json.loads(json.dumps(g.observation(view["human"]))) == view["observation"]
        assert {a: g.action_text(a) for a in g.legal_actions()} == {a["id"]: a["text"] for a in view["actions"]}
        real = c.app.state.server.games[view["id"]].snap.state
        assert doc["config"]["seed"] == 0 and str(real.config.seed) not in answer.text
        assert c.get(f"/api/games/{view['id']}/knowledge").status_code == 401
        path = tmp_path / "knowledge.json"
        path.write_text(answer.text, encoding="utf-8")
        # `ftc analyze` reads it (a child process) and analyses for the player to move.
        run = subprocess.run(FTC + ["analyze", str(path), "--iterations", "30"], capture_output=True, text=True,
                             env=child_env(), cwd=ROOT, timeout=300)
        assert run.returncode == 0, run.stderr
        name = "Blue" if view["to_move"] == 0 else "Yellow"
        assert run.stdout.startswith(f"{name} to decide: {view['prompt']}")
        assert "position view from Blue's seat" in run.stderr
        # A corrupt or edited one is one line naming the format and the field.
        doc["state"]["zones"][1]["hand"] = "nothing"
        for digest, field in ((doc["digest"], "digest"), (state_digest(doc["state"]), "state.zones[1].hand")):
            path.write_text(json.dumps({**doc, "digest": digest}), encoding="utf-8")
            bad = subprocess.run(FTC + ["analyze", str(path)], capture_output=True, text=True, env=child_env(),
                                 cwd=ROOT, timeout=120)
            assert bad.returncode != 0 and bad.stderr.count("\n") == 1
            assert f"ftc-position-view: field '{field}'" in bad.stderr and "Traceback" not in bad.stderr


def test_the_knowledge_file_never_holds_the_ais_true_hidden_cards_more_often_than_chance(tmp_path):
    runs, same = 150, 0
    with TestClient(app_for(tmp_path / "g.sqlite3")) as c:
        server = c.app.state.server
        view, token = new_game(c)
        rng = random.Random(8)
        while True:                                      # on to a moment the true hand is unlikely to be guessed
            view = play_some(c, view, token, 3, rng)
            assert view["status"] == "playing"
            real = server.games[view["id"]].snap.state
            human = view["human"]
            true_hand = Counter(real.zones[1 - human].hand)
            pool = Counter(hidden_pool(real, human))
            # The probability that a uniform draw of the hand's size from the pool is the true hand.
            chance = 1.0
            for card, n in true_hand.items():
                chance *= comb(pool[card], n)
            chance /= comb(sum(pool.values()), sum(true_hand.values()))
            if chance < 0.2:
                break
        names_in_hand = {real.card_name(card) for card in true_hand}
        for seed in range(runs):
            server.entropy = random.Random(seed)         # many server secrets
            doc = c.get(f"/api/games/{view['id']}/knowledge", headers=auth(token)).json()
            hand = Counter(doc["state"]["zones"][1 - human]["hand"])
            same += hand == true_hand
            if not (set(hand) & set(true_hand)):         # a sample all distinct from the true hand
                text = json.dumps(doc["observation"]) + json.dumps(doc["state"]["decision"])
                for name in names_in_hand - set(doc["observation"]["you"]["hand"]) - set(
                        doc["observation"]["opponent"]["discard"]):
                    assert name not in text
        sd = (runs * chance * (1 - chance)) ** 0.5
        assert same <= runs * chance + 4 * sd + 1, (same, runs * chance)


def test_no_knowledge_file_while_the_ai_decides(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as c:
        server = c.app.state.server
        view, token = new_game(c, human=1)                # Blue is the AI: it has moved already
        live = server.games[view["id"]]
        live.thinking = True                              # as while its turn is searched
        refused = c.get(f"/api/games/{view['id']}/knowledge", headers=auth(token))
        assert refused.status_code == 409 and "AI is deciding" in refused.json()["detail"]
        hint = c.post(f"/api/games/{view['id']}/hint", headers=auth(token))
        assert hint.status_code == 409
        live.thinking = False
        assert c.get(f"/api/games/{view['id']}/knowledge", headers=auth(token)).status_code == 200


def test_behind_the_point_buy_screen_the_download_waits(tmp_path):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as c:
        view, token = new_game(c, variant="point-buy", supply="random", options={"secret_picks": True})
        refused = c.get(f"/api/games/{view['id']}/knowledge", headers=auth(token))
        assert refused.status_code == 409 and "behind the screen" in refused.json()["detail"]


@pytest.mark.parametrize("variant", ["standard", "last-stand"])
def test_the_finished_game_offers_the_record_and_the_view(tmp_path, variant):
    with TestClient(app_for(tmp_path / "g.sqlite3")) as c:
        view, token = new_game(c, variant=variant, supply="random")
        assert c.get(f"/api/games/{view['id']}/record", headers=auth(token)).status_code == 409
        c.post(f"/api/games/{view['id']}/resign", headers=auth(token))
        assert c.get(f"/api/games/{view['id']}/record", headers=auth(token)).json()["format"] == "ftc-game-record"
        doc = c.get(f"/api/games/{view['id']}/knowledge", headers=auth(token)).json()
        assert load_view(doc).is_terminal()
