"""Position views (engine/crown/knowledge.py, "ftc-position-view"): a state is written completely and
loads back exactly (it plays on identically), and a view of what one player may know holds nothing
else: the opponent's hidden cards are re-sampled, the set-up's seed and the history are left out."""

import json
import random
from collections import Counter
from math import comb

import pytest

from engine.crown.config import VARIANTS, GameConfig
from engine.crown.knowledge import FORMAT, ViewError, dump_state, load_state, load_view, position_view, state_digest
from engine.crown.observation import hidden_pool
from engine.crown.record import fingerprint
from engine.crown.scenario import scenario
from engine.crown.state import GameState


def random_states(variant, seeds, rng_seed=0, per_game=3):
    """Mid-game states of random games (clones), taken at random moments and whenever a card effect
    waits for a choice (rare in random play, and the hardest part of a state to write)."""
    for seed in seeds:
        rng = random.Random(rng_seed * 1000 + seed % 1000)
        g = GameState(GameConfig(variant=variant, seed=seed))
        taken = 0
        for _ in range(600):
            if g.is_terminal() or taken == per_game:
                break
            pending = g.decision is not None and g.decision.frame is not None
            if pending or rng.random() < 1 / 80:
                taken += 1
                yield g.clone()
            g.apply(rng.choice(g.legal_actions()))


def test_a_state_is_written_completely_and_plays_on_identically():
    checked = with_frames = with_tasks = 0
    for variant in VARIANTS:
        for g in random_states(variant, range(40)):
            data = json.loads(json.dumps(dump_state(g)))          # through real JSON text
            h = load_state(g.config, data)
            assert fingerprint(h) == fingerprint(g)
            assert dump_state(h) == dump_state(g)
            with_frames += g.decision is not None and g.decision.frame is not None
            with_tasks += bool(g.tasks)
            # Exact means the future is the same too: the same actions give the same states, the
            # same texts and the same draws (the generator's state is part of the file).
            rng = random.Random(checked)
            for _ in range(60):
                if g.is_terminal():
                    assert h.is_terminal() and h.over_reason == g.over_reason
                    break
                assert h.legal_action_texts() == g.legal_action_texts()
                action = rng.choice(g.legal_actions())
                g.apply(action)
                h.apply(action)
                assert fingerprint(h) == fingerprint(g)
            checked += 1
    assert checked >= 3 * 40
    assert with_frames >= 10 and with_tasks >= 10        # pending card effects were among them


def test_the_no_progress_clock_of_the_turn_survives_the_round_trip():
    # A deploy this turn restarts the no-progress count at the turn's end (C3); the kernel keeps
    # that flag without a getter: the file must still carry it.
    for g in random_states("standard", range(60), rng_seed=3):
        probe = g.board.copy()
        probe.end_turn()
        h = load_state(g.config, dump_state(g))
        again = h.board.copy()
        again.end_turn()
        assert again.halfmove == probe.halfmove


def own_decision_states(count, variant="standard", first_seed=0):
    found = []
    for g in random_states(variant, range(first_seed, first_seed + 200), rng_seed=7):
        if not g.is_terminal() and g.current_player() in (0, 1):
            found.append(g)
        if len(found) == count:
            break
    return found


def test_a_view_loads_exactly_and_shows_the_seat_its_own_information():
    for g in own_decision_states(30, first_seed=2**61 + 12345):     # seeds as long as the server's
        seat = g.current_player()
        doc = json.loads(json.dumps(position_view(g, seat, random.Random(1))))
        assert doc["format"] == FORMAT and doc["seat"] == seat
        h = load_view(doc)
        assert fingerprint(h) == doc["fingerprint"]
        assert json.loads(json.dumps(h.observation(seat))) == json.loads(json.dumps(g.observation(seat)))
        assert h.legal_action_texts() == g.legal_action_texts()
        assert h.determinized and not h.history and not h.repetitions
        assert doc["config"]["seed"] == 0                  # the set-up's seed would replay every shuffle
        assert str(g.config.seed) not in json.dumps(doc)


def test_a_view_depends_only_on_the_seats_information_set():
    """Two states the seat cannot tell apart give the identical file under the same sampling seed."""
    for g in own_decision_states(25):
        seat = g.current_player()
        other = g.resample_hidden(seat, random.Random(99))   # the same information set, other hidden cards
        assert position_view(g, seat, random.Random(5)) == position_view(other, seat, random.Random(5))


def test_the_opponents_hand_is_the_true_one_no_more_often_than_chance():
    # Blue sees 5 cards of its own; Yellow's hidden pool is 2 Armor + 6 Peon, 3 of them in hand.
    g = scenario("r3k3/pp3n2/8/8/8/2N5/PP6/R3K3 w - - 0 1",
                 hands=(["Peon", "Peon", "Guard", "Armor", "Peon"], ["Armor", "Armor", "Peon"]),
                 decks=(["Peon", "Guard", "Peon"], ["Peon"] * 5), discards=(["Guard"], ["Peon"]),
                 supply=["Armor", "Stables"])
    true_hand = Counter(g.zones[1].hand)
    assert sorted(hidden_pool(g, 0)) == sorted([g.cards["Armor"].id] * 2 + [g.cards["Peon"].id] * 6)
    runs, same = 600, 0
    for seed in range(runs):
        doc = position_view(g, 0, random.Random(seed))
        same += Counter(doc["state"]["zones"][1]["hand"]) == true_hand
    chance = comb(2, 2) * comb(6, 1) / comb(8, 3)        # 6/56: the hypergeometric probability
    sd = (runs * chance * (1 - chance)) ** 0.5
    assert abs(same - runs * chance) < 4 * sd, (same, runs * chance)


def test_hidden_cards_the_seat_cannot_know_are_nowhere_in_the_file():
    # Yellow holds both Stables; the file's sample gave Yellow two Peons: no Stables in any hand,
    # text or label of the file, nor anything of Yellow's true hand order.
    g = scenario("r3k3/pp3n2/8/8/8/2N5/PP6/R3K3 w - - 0 1",
                 hands=(["Peon", "Peon", "Guard", "Armor", "Peon"], ["Stables", "Stables"]),
                 decks=(["Peon", "Guard", "Peon"], ["Peon"] * 8), discards=(["Guard"], ["Peon"]),
                 supply=["Armor"])
    stables = g.cards["Stables"].id
    picked = None
    for seed in range(200):
        doc = position_view(g, 0, random.Random(seed))
        if stables not in doc["state"]["zones"][1]["hand"]:
            picked = doc
            break
    assert picked is not None
    text = json.dumps(picked)
    assert "Stables" not in text                          # no name of it anywhere (labels, observation)
    assert picked["state"]["zones"][1]["deck"][stables] == 2     # the cards went to the sampled Deck
    assert picked["sampled"] == {"player": 1, "hand": [0, 1], "deck": True, "top": [], "army": False, "rng": True}
    # The seat's view of the real game and of the file's state are the same.
    assert json.loads(json.dumps(g.observation(0))) == picked["observation"]


def test_behind_the_point_buy_screen_no_view_is_written():
    g = GameState(GameConfig(variant="point-buy", seed=1, secret_picks=True))
    with pytest.raises(ViewError, match="behind the screen"):
        position_view(g, g.current_player(), random.Random(1))


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.update(format="ftc-game-record"), "format"),
    (lambda d: d.update(version=7), "version"),
    (lambda d: d.update(seat=2), "seat"),
    (lambda d: d["config"].update(variant="chess"), "config"),
    (lambda d: d["state"]["zones"][1].update(hand=[10_000]), "state.zones[1].hand[0]"),
    (lambda d: d["state"].update(tasks=[{"task": "fly"}]), "state.tasks[0].task"),
    (lambda d: d["state"]["decision"].update(labeler="os.system", labels=None), "state.decision.labeler"),
    (lambda d: d["state"].update(setup_state={"set": [1]}), "state.setup_state"),
    (lambda d: d["state"]["board"].update(units=5), "state.board.units"),
    (lambda d: d["state"]["board"]["units"].append([20, 999, 0]), "state.board.units[%d]"),
    (lambda d: d["state"]["board"]["units"].append([99, 1, 0]), "state.board.units[%d][0]"),
    (lambda d: d["state"]["board"]["stock"].__setitem__(0, 2**40), "state.board.stock[0]"),
    (lambda d: d["state"]["board"]["status"].pop(), "state.board.status"),
    (lambda d: d["state"]["board"].update(guarded=[-1, 0]), "state.board.guarded[0]"),
    (lambda d: d["state"]["board"].update(side=7), "state.board.side"),
    (lambda d: d["state"]["frames"].append({"card": 0, "index": 9, "player": 0, "step": 0, "choice": None,
                                            "data": {"dict": []}}), "state.frames[0]"),
    (lambda d: d["state"]["zones"][1]["deck"].__setitem__(0, 3), "fingerprint"),
    (lambda d: d["observation"].update(turn=99), "observation"),
])
def test_a_bad_view_names_the_format_and_the_field(mutate, field):
    g = own_decision_states(1)[0]
    doc = json.loads(json.dumps(position_view(g, g.current_player(), random.Random(1))))
    units = len(doc["state"]["board"]["units"])
    edited = json.loads(json.dumps(doc))
    mutate(edited)
    # An edit that leaves the digest as it was is refused as such ...
    if edited["state"] != doc["state"]:
        with pytest.raises(ViewError, match=f"{FORMAT}: field 'digest'"):
            load_view(edited)
    # ... and one made with its digest (deliberately) is refused by the field it breaks.
    edited["digest"] = state_digest(edited["state"]) if isinstance(edited["state"], dict) else None
    with pytest.raises(ViewError) as caught:
        load_view(edited)
    assert f"{FORMAT}: field '{field.replace('%d', str(units))}'" in str(caught.value)
