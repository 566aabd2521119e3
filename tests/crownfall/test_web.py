"""Crownfall's web pieces (engine/crownfall/web.py): the drawing data and its checks, the view (what it
carries; nothing of the chance generator), the log entries with battles explained term by term, and
new games from the form."""

import json
import random

import pytest

from engine.crownfall import actions as A
from engine.crownfall.config import CrownfallConfig
from engine.crownfall.rules import default_rules
from engine.crownfall.state import CrownfallState
from engine.crownfall.web import (
    BoardDataError,
    build_crownfall_view,
    crownfall_step,
    default_board,
    layout_for,
    load_board_text,
    new_game,
    new_game_form,
    ring_layout,
)
from tests.crownfall.support import banner, begin, reg, tower, unstarted

RULES = default_rules()
MAP = RULES.map


def inside(point, polygon) -> bool:
    """Ray casting: whether ``point`` lies inside ``polygon``."""
    x, y = point
    hit = False
    for i, (ax, ay) in enumerate(polygon):
        bx, by = polygon[(i + 1) % len(polygon)]
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            hit = not hit
    return hit


def view_of(state, human=0, log=()):
    return build_crownfall_view("g", 3, state, human, False, list(log), [], None)


def test_the_board_places_every_region_in_its_own_cell_and_draws_each_edge_once():
    board = view_of(CrownfallState(CrownfallConfig(seed=5)))["board"]
    assert [r["key"] for r in board["regions"]] == list(MAP.keys)
    for r in board["regions"]:
        assert inside((r["x"], r["y"]), r["cell"]), r["key"]
        assert r["placed"] and r["ring"] == MAP.rings[MAP.index(r["key"])]
        others = [q for q in board["regions"] if q is not r]
        assert not any(inside((q["x"], q["y"]), r["cell"]) for q in others)
    assert len(board["edges"]) == sum(len(a) for a in MAP.adjacent) // 2
    assert {tuple(sorted(e)) for e in board["edges"]} == {tuple(sorted((MAP.key(a), MAP.key(b))))
                                                          for a in range(len(MAP)) for b in MAP.adjacent[a]}


def test_a_region_the_drawing_file_leaves_out_is_placed_by_the_ring_layout():
    text = "[region.keep]\nx = 50\ny = 50\n"
    layout = layout_for(MAP, load_board_text(text, RULES, "b.toml"))
    ring = ring_layout(MAP)
    westwatch = layout["regions"][MAP.index("westwatch")]
    # The outer ring's seventh region in map order, clockwise from the top: due west (derived by hand).
    assert (westwatch["x"], westwatch["y"]) == ring[MAP.index("westwatch")] == (9.0, 50.0)
    assert not westwatch["placed"] and layout["regions"][0]["placed"]


@pytest.mark.parametrize("text, message", [
    ("[region.eastfjord]\nx = 1\ny = 2\n", "b.toml: region.eastfjord: unknown region 'eastfjord'"),
    ("[region.keep]\nx = 1\n", "b.toml: region.keep: give both x and y, or neither"),
    ("[region.keep]\nx = 1\ny = 120\n", "b.toml: region.keep.y: expected a number 0..100, got 120"),
    ("[region.keep]\nx = 1\ny = 1\nz = 3\n", "b.toml: region.keep.z: unknown field (known: x, y)"),
    ("[omen.ash-winter]\ntext = ''\n", "b.toml: omen.ash-winter.text: expected a line of text, got ''"),
    ("[spell.fireball]\nwords = 'x'\n", "b.toml: spell.fireball.words: unknown field (known: text)"),
    ("[shapes]\n", "b.toml: shapes: unknown table"),
    ("[region.keep]\nx = 5\ny = 5\n[region.dawnmere]\nx = 5\ny = 5\n", "b.toml: region.dawnmere: placed on 'keep'"),
    ("region = [", "b.toml: not valid TOML"),
])
def test_a_bad_drawing_file_is_refused_with_the_place(text, message):
    with pytest.raises(BoardDataError) as err:
        load_board_text(text, RULES, "b.toml")
    assert str(err.value).startswith(message)


def test_every_house_spell_omen_and_objective_has_a_text():
    texts = default_board().texts
    assert set(texts["house"]) == {h.key for h in RULES.houses}
    assert set(texts["spell"]) == {s.key for s in RULES.spells}
    assert set(texts["omen"]) == {c.key for c in RULES.omens}
    assert set(texts["objective"]) == {c.key for c in RULES.objectives}


def test_the_view_carries_the_whole_table_the_same_for_every_seat_and_nothing_of_the_generator():
    state = CrownfallState(CrownfallConfig.from_json({"players": 3, "seed": 123456789}))
    rng = random.Random(1)
    for _ in range(12):
        state.apply(rng.choice(state.legal_actions()))
    views = [view_of(state, human) for human in range(3)]
    public = state.public_dict()
    for human, view in enumerate(views):
        assert view["observation"] == {"player": human, **public}
        assert view["module"] == "crownfall.js" and view["players"] == ["Blue", "Red", "Green"]
        assert view["your_turn"] == (state.current_player() == human)
        assert (len(view["actions"]) == len(state.legal_actions())) == view["your_turn"]
    def strip(v):
        return {k: x for k, x in v.items() if k not in ("human", "actions", "your_turn", "prompt", "observation")}
    assert strip(views[0]) == strip(views[1]) == strip(views[2])
    text = json.dumps(views[0])
    assert "123456789" not in text and '"rng"' not in text and '"seed"' not in text
    assert views[0]["omen"]["key"] == public["omen"] and views[0]["omen"]["text"]
    assert [o["key"] for o in views[0]["objectives"]] == public["objectives"]
    assert [s["house"] for s in views[0]["seats"]] == list(state.config.houses)
    assert all(s["income"]["total"] == state.income(p)["total"] for p, s in enumerate(views[0]["seats"]))


def test_an_objective_met_now_names_who_meets_it():
    g = unstarted(objectives=("hold-keep", "two-ruins"))
    banner(g, 1, "keep")
    begin(g)
    met = {o["key"]: o["met_by"] for o in view_of(g)["objectives"]}
    assert met == {"hold-keep": [1], "two-ruins": []}


def test_a_battle_s_log_entry_explains_both_sides_term_by_term():
    g = unstarted(houses=["redwall", "briar"], homes=["saltmere", "eastford"])
    for key in ("old-abbey", "greywater"):
        banner(g, 0, key)
        tower(g, 0, key, "watchtower")
    tower(g, 0, "saltmere", "watchtower")
    banner(g, 0, "south-barrow")
    banner(g, 1, "eastford")
    g.mage[1] = -1
    begin(g)
    entry = crownfall_step(g, 0, A.encode_march_banner(reg("south-barrow"), reg("eastford"), g.R), 0)
    assert entry["text"] == "Blue: March a Banner South Barrow -> Eastford" and entry["player"] == 0
    [battle] = entry["events"]
    assert battle["kind"] == "battle" and battle["region"] == "eastford" and battle["winner"] == 0
    attack = {t["term"]: (t["value"], t["note"]) for t in battle["attack"]["terms"]}
    defense = {t["term"]: (t["value"], t["note"]) for t in battle["defense"]["terms"]}
    assert attack["watchtowers"] == (2, "from Old Abbey, Greywater (3 eligible, at most 2 count)")
    assert attack["banner"] == (1, "") and defense["banner"] == (1, "") and defense["tower"] == (1, "")
    assert battle["attack"]["total"] == sum(v for v, _ in attack.values()) == 3
    assert battle["defense"]["total"] == sum(v for v, _ in defense.values()) == 2
    assert battle["text"] == ("Battle in Eastford: Blue's Banner attacks Red. Attack Banner 1 + Watchtower support 2 = 3; "
                              "defence Banner 1 + Tower 1 = 2. Blue wins.")


def test_the_end_of_a_round_logs_the_scoring_then_the_objectives_then_the_omen():
    state = CrownfallState(CrownfallConfig.from_json({"seed": 9}))
    while True:
        player, before = state.current_player(), state.round
        entry = crownfall_step(state, player, A.END, 0)
        if state.round != before:
            break
    kinds = [e["kind"] for e in entry["events"]]
    assert kinds == ["scoring", "draw-objective", "draw-objective", "draw-omen"]
    assert [e["card"] for e in entry["events"][1:3]] == [RULES.objectives[c].key for c in state.objectives]
    assert entry["events"][3]["card"] == state.omen_key()
    assert entry["events"][0]["text"].startswith("End of round 1: Blue ")


def test_new_game_gives_the_human_their_house_and_keeps_the_draws_secret():
    form = {"options": {"players": 3, "house": "tidebound"}, "seed": None, "supply": "random", "human": 1}
    state = new_game(form, random.Random(7))
    # The 3-player default (RULINGS I2): Tidebound, Emberglass, Briar; the human (seat 1) takes Tidebound,
    # seat 0 gets the human's default House.
    assert state.config.houses == ("emberglass", "tidebound", "briar") and state.auto_chance
    assert state.config.seed == random.Random(7).getrandbits(63)
    assert new_game({**form, "options": {"players": 2, "rounds": 3}}, random.Random(1)).config.rounds == 3
    for bad, message in ((dict(form, seed=4), "seed: Crownfall's draws come from a server secret"),
                         (dict(form, supply="first-game"), "supply: Crownfall has no Supply"),
                         (dict(form, options={"chance": "explicit"}), "options.chance: set by the server"),
                         (dict(form, options={"house": "ironhold"}), "options.house: unknown House 'ironhold'"),
                         (dict(form, human=3), "human: seat 3 is not a seat of a 3-player game"),
                         (dict(form, options={"players": 5}), "options.players: expected 2, 3 or 4")):
        with pytest.raises(ValueError) as err:
            new_game(bad, random.Random(1))
        assert str(err.value).startswith(message), err.value


def test_the_form_offers_two_to_four_players_every_seat_and_house():
    fields = {f["name"]: [c["value"] for c in f["choices"]] for f in new_game_form()}
    assert fields["players"] == [2, 3, 4] and fields["human"] == [0, 1, 2, 3]
    assert fields["house"] == [None] + [h.key for h in RULES.houses] and fields["rounds"][0] == 6


def _spent(state, action) -> int | None:
    """The mana ``action`` takes from its player when played on a copy (None when the round ends or
    Ruin Bloom pays mana back, where the difference is not the price alone)."""
    p = state.current_player()
    child = state.clone()
    child.apply(action)
    if child.round != state.round or state.omen_key() == "ruin-bloom":
        return None
    return state.mana[p] - child.mana[p]


@pytest.mark.parametrize("omen_key", ["open-veins", "ash-winter", "ash-wind", "ruin-bloom"])
def test_the_view_s_choices_name_no_seat_and_say_the_mana_they_spend(omen_key):
    """Each of the view's actions has a ``label`` without the seat (the board shows whose turn it
    is; "Blue: Blue: ..." read twice) and ``mana``, what it spends, checked by playing it on a copy;
    the label names a price the action's text does not already give."""
    for seed in range(3):
        g = begin(unstarted(omen_key=omen_key, advanced_omens=omen_key in ("ash-wind", "ruin-bloom")))
        rng = random.Random(seed)
        for _ in range(14):
            if g.is_terminal() or g.is_chance_node():             # the first round is played
                break
            view = view_of(g, g.current_player())
            seat = view["players"][g.current_player()]
            for a in view["actions"]:
                assert not a["label"].startswith(seat) and a["label"][0].isupper(), a
                assert a["text"].lower().startswith(f"{seat}: {a['label'].split(' (')[0]}".lower()), a
                assert a["mana"] == (_spent(g, a["id"]) if _spent(g, a["id"]) is not None else a["mana"]), a
                if a["mana"] and a["fields"]["kind"] != "cast":
                    assert a["label"].endswith(f"({a['mana']} mana)"), a
            g.apply(rng.choice(g.legal_actions()))


def test_the_prices_the_view_gives_follow_the_omen():
    g = begin(unstarted(omen_key="ash-winter"))
    view = view_of(g)
    anchor = next(a for a in view["actions"] if a["fields"]["kind"] == "anchor")
    assert anchor["mana"] == RULES.anchor_cost == 1 and anchor["label"] == "Anchor in Thorn Coast (1 mana)"
    research = next(a for a in view["actions"] if a["fields"]["kind"] == "research")
    assert research["mana"] == RULES.research_cost
    marches = [a for a in view["actions"] if a["fields"]["kind"] in ("march-banner", "march-mage")]
    assert marches and all(a["mana"] == (1 if MAP.ruin[reg(a["fields"]["to"])] else 0) for a in marches)   # I16
    end = next(a for a in view["actions"] if a["fields"]["kind"] == "end")
    assert end["mana"] == 0 and end["label"] == "End the turn"
    veins = next(a for a in view_of(begin(unstarted(omen_key="open-veins")))["actions"]
                 if a["fields"]["kind"] == "anchor")
    assert veins["mana"] == 0 and veins["label"] == "Anchor in Thorn Coast"


def test_a_log_entry_has_a_label_without_the_seat():
    g = begin(unstarted())
    entry = crownfall_step(g, 0, A.encode_raise(reg("south-barrow"), g.R), 0)
    assert entry["text"] == "Blue: Raise a Banner in South Barrow" and entry["label"] == "Raise a Banner in South Barrow"


def test_the_view_says_the_map_is_provisional_and_where_to_edit_it():
    note = view_of(begin(unstarted()))["provisional"]
    assert "I1" in note["text"] and "engine/data/crownfall_map.toml" in note["edit"]
    assert "engine/data/crownfall_board.toml" in note["edit"]
    assert [link["href"] for link in note["links"]] == ["/rules/rulings#ruling-I1", "/rules/crownfall#sec-3-0"]
    assert view_of(begin(unstarted()))["turn_label"] == "round 1 of 6"
