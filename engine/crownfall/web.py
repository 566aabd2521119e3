"""Crownfall on the web server (docs/crownfall.md, "The web board"; registry ``WebBoard``,
engine/crownfall/entry.py): the board's drawing data (engine/data/crownfall_board.toml, checked on
load), the human's view, the log entries with every battle explained term by term, the new-game
form and new games.

The view's actions carry, beside the state's text and fields, a ``label`` (the text without the
seat: the board shows whose decision it is) and ``mana``, what the action spends (phases.mana_cost),
so the board can ask before an action that spends mana or ends the turn without computing a rule.
The view also says that the map is PROVISIONAL (RULINGS I1) and how to load one's own.

Crownfall is open (RULINGS I9): the view carries the whole table (``observation``, the same for every
seat) and nothing of the chance generator (its seed and state never leave the server: the order of
the Omens and Objectives still to come is its only secret).

>>> layout = board_layout(default_rules().map)
>>> [(c["key"], c["x"], c["y"]) for c in layout["regions"][:2]]
[('keep', 50.0, 50.0), ('dawnmere', 50.0, 28.0)]
>>> ring_layout(default_rules().map)[default_rules().map.index("highmoor")]
(50.0, 9.0)
"""

from __future__ import annotations

import functools
import math
import random
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.crownfall import phases
from engine.crownfall.config import GAME_NAME, CrownfallConfig
from engine.crownfall.core import CHANCE, SEATS, TRACKS
from engine.crownfall.rules import CrownfallMap, CrownfallRules, default_rules
from engine.crownfall.state import CrownfallState
from engine.games.view import view_frame
from engine.quiet import shown

__all__ = ["BoardData", "BoardDataError", "load_board_text", "default_board", "ring_layout", "voronoi_cells",
           "board_layout", "layout_for", "explain_battle", "crownfall_step", "build_crownfall_view", "new_game", "new_game_form",
           "action_label", "provisional_note", "MODULE", "BOARD_SIZE", "DISC_RADIUS"]

#: The board module (engine/interfaces/server/static/).
MODULE = "crownfall.js"
#: The board's drawing coordinates: 0..BOARD_SIZE both ways; regions fill a disc of DISC_RADIUS.
BOARD_SIZE = 100.0
DISC_RADIUS = 49.0
#: The ring layout's radii (a region without drawing coordinates: the file's header).
RING_RADIUS = {"inner": 22.0, "outer": 41.0}
#: The round limits the new-game form offers (RULINGS I8: the data's 6 by default).
FORM_ROUNDS = (6, 5, 4, 3, 2, 1)
#: How to play on one's own map, and the links of the note under the map (``provisional_note``).
PROVISIONAL_EDIT = ("To play on your own map, edit engine/data/crownfall_map.toml (the regions and their borders) "
                    "and engine/data/crownfall_board.toml (where each region is drawn), then restart the server.")
PROVISIONAL_LINKS = ({"text": "ruling I1", "href": "/rules/rulings#ruling-I1"},
                     {"text": "the map in the rules", "href": "/rules/crownfall#sec-3-0"})


class BoardDataError(ValueError):
    """A board drawing file that cannot be used; the message names the file, the entry and the field."""


@dataclass(frozen=True)
class BoardData:
    """The drawing data: ``places`` (region key -> (x, y)) for the regions the file places, and the
    texts of the Houses, spells, Omens and Objectives by key."""

    places: dict
    texts: dict
    source: str


_SECTIONS = ("region", "house", "spell", "omen", "objective")


def load_board_text(text: str, rules: CrownfallRules, source: str = "crownfall_board.toml") -> BoardData:
    """The drawing data from TOML text for ``rules``; BoardDataError names what is wrong and where."""
    def fail(where: str, message: str):
        raise BoardDataError(f"{source}: {where}: {message}")

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BoardDataError(f"{source}: not valid TOML ({exc})") from None
    for name in data:
        if name not in _SECTIONS:
            fail(name, f"unknown table (known: {', '.join(_SECTIONS)})")
    known = {"region": rules.map.keys, "house": tuple(h.key for h in rules.houses),
             "spell": tuple(s.key for s in rules.spells), "omen": tuple(c.key for c in rules.omens),
             "objective": tuple(c.key for c in rules.objectives)}
    places, texts = {}, {name: {} for name in _SECTIONS[1:]}
    for section in _SECTIONS:
        table = data.get(section, {})
        if not isinstance(table, dict):
            fail(section, f"expected tables [{section}.<key>], got {type(table).__name__}")
        for key, entry in table.items():
            where = f"{section}.{key}"
            if key not in known[section]:
                fail(where, f"unknown {section} {key!r} (known: {', '.join(known[section])})")
            if not isinstance(entry, dict):
                fail(where, f"expected a table, got {type(entry).__name__}")
            fields = ("x", "y") if section == "region" else ("text",)
            for name in entry:
                if name not in fields:
                    fail(f"{where}.{name}", f"unknown field (known: {', '.join(fields)})")
            if section == "region":
                if set(entry) not in (set(), {"x", "y"}):
                    fail(where, "give both x and y, or neither")
                if entry:
                    for name in ("x", "y"):
                        value = entry[name]
                        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= BOARD_SIZE:
                            fail(f"{where}.{name}", f"expected a number 0..{BOARD_SIZE:g}, got {value!r}")
                    places[key] = (float(entry["x"]), float(entry["y"]))
            else:
                value = entry.get("text")
                if not isinstance(value, str) or not value.strip():
                    fail(f"{where}.text", f"expected a line of text, got {value!r}")
                texts[section][key] = value.strip()
    seen: dict[tuple, str] = {}
    for key, point in places.items():
        if point in seen:
            fail(f"region.{key}", f"placed on {seen[point]!r}'s centre {point}")
        seen[point] = key
    return BoardData(places, texts, source)


@functools.cache
def default_board() -> BoardData:
    """The shipped drawing data (engine/data/crownfall_board.toml) for the shipped rules."""
    text = resources.files("engine.data").joinpath("crownfall_board.toml").read_text(encoding="utf-8")
    return load_board_text(text, default_rules(), "engine/data/crownfall_board.toml")


def ring_layout(game_map: CrownfallMap) -> list[tuple[float, float]]:
    """Every region's place by its ring: the Keep in the centre, each ring on its circle in map order,
    clockwise from the top (the layout of a region the drawing file does not place)."""
    centre = BOARD_SIZE / 2
    out = []
    for r in range(len(game_map)):
        ring = game_map.rings[r]
        if ring == "keep":
            out.append((centre, centre))
            continue
        members = [q for q in range(len(game_map)) if game_map.rings[q] == ring]
        angle = 2 * math.pi * members.index(r) / len(members)
        radius = RING_RADIUS[ring]
        out.append((round(centre + radius * math.sin(angle), 3), round(centre - radius * math.cos(angle), 3)))
    return out


def _clip(polygon: list, a: float, b: float, c: float) -> list:
    """The part of a convex ``polygon`` where a*x + b*y <= c."""
    out = []
    for i, p in enumerate(polygon):
        q = polygon[(i + 1) % len(polygon)]
        fp, fq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def voronoi_cells(points: list[tuple[float, float]], sides: int = 72) -> list[list[tuple[float, float]]]:
    """Each point's Voronoi cell inside the board's disc (a polygon of ``sides`` sides): the part of
    the disc nearer to that point than to any other, as a convex polygon (points in order)."""
    centre = BOARD_SIZE / 2
    disc = [(centre + DISC_RADIUS * math.cos(2 * math.pi * k / sides), centre + DISC_RADIUS * math.sin(2 * math.pi * k / sides))
            for k in range(sides)]
    cells = []
    for i, (px, py) in enumerate(points):
        cell = list(disc)
        for j, (qx, qy) in enumerate(points):
            if j != i:
                # nearer to p than to q: (q - p) . x <= (|q|^2 - |p|^2) / 2
                cell = _clip(cell, qx - px, qy - py, (qx * qx + qy * qy - px * px - py * py) / 2)
        cells.append([(round(x, 2), round(y, 2)) for x, y in cell])
    return cells


@functools.cache
def board_layout(game_map: CrownfallMap) -> dict:
    """``layout_for`` the shipped drawing data (computed once per map)."""
    return layout_for(game_map, default_board())


def layout_for(game_map: CrownfallMap, board: BoardData) -> dict:
    """What the board draws of the map: each region's key, name, ring, Ruin, neighbours, centre and
    cell (points), whether the drawing data placed it, and the map's edges (pairs of keys, each once)."""
    m = game_map
    fallback = ring_layout(m)
    centres = [board.places.get(m.key(r), fallback[r]) for r in range(len(m))]
    cells = voronoi_cells(centres)
    regions = [{"key": m.key(r), "name": m.name(r), "ring": m.rings[r], "ruin": m.ruin[r],
                "adjacent": [m.key(q) for q in m.adjacent[r]], "x": centres[r][0], "y": centres[r][1],
                "cell": [list(p) for p in cells[r]], "placed": m.key(r) in board.places} for r in range(len(m))]
    edges = [[m.key(a), m.key(b)] for a in range(len(m)) for b in m.adjacent[a] if a < b]
    return {"size": BOARD_SIZE, "regions": regions, "edges": edges}


# -- battles explained ---------------------------------------------------------------------------
_TERM_NAMES = {"banner": "Banner", "tower": "Tower", "archmage": "Archmage", "watchtowers": "Watchtower support",
               "stronghold": "Stronghold", "spell": "spell", "spell-or-ward": "spell or Ward", "house": "House ability"}


def _term_note(rules: CrownfallRules, term: str, detail: dict) -> str:
    """What a battle term's sources and caps were, in words."""
    m = rules.map
    if term == "watchtowers":
        names = ", ".join(m.name(m.index(k)) for k in detail["regions"])
        note = f"from {names}" if names else "none adjacent and unspent"
        if detail["eligible"] > detail["cap"]:
            note += f" ({detail['eligible']} eligible, at most {detail['cap']} count)"
        return note
    if term == "spell-or-ward":
        if not detail["sources"]:
            return ""
        named = " and ".join("Phantom Garrison" if s == "phantom-garrison" else "a Ward" for s in detail["sources"])
        return named + (f" (at most {detail['cap']} counts)" if len(detail["sources"]) > detail["cap"] else "")
    if term == "stronghold" and "redwall" in detail:
        note = "Redwall Stronghold" if detail["redwall"] else "Stronghold"
        return note + (": switched off by Scorch Ward" if detail["scorched"] else "")
    if term == "house" and detail["value"]:
        return f"{rules.house(detail['house']).name}: first battle against a Tower this round"
    return ""


def explain_battle(rules: CrownfallRules, event: dict) -> dict:
    """A battle event (CrownfallCore.battle_terms kept by phases) for the log: where, who, each
    side's terms ``[{term, name, value, note}]`` with totals, the winner and what followed."""
    sides = {}
    for side in ("attack", "defense"):
        terms = event["terms"][side]
        sides[side] = {"terms": [{"term": term, "name": _TERM_NAMES[term], "value": d["value"],
                                  "note": _term_note(rules, term, d)} for term, d in terms.items()],
                       "total": event[side]["total"]}
    m = rules.map
    region = m.name(m.index(event["battle"]))
    attacker, defender, winner = event["attacker"], event["defender"], event["winner"]
    piece = "Banner" if event["piece"] == "banner" else "Archmage"

    def line(side):
        parts = [f"{t['name']} {t['value']}" for t in sides[side]["terms"] if t["value"]]
        return f"{' + '.join(parts) or '0'} = {sides[side]['total']}"

    tie = sides["attack"]["total"] == sides["defense"]["total"]
    text = (f"Battle in {region}: {SEATS[attacker]}'s {piece} attacks {SEATS[defender]}. "
            f"Attack {line('attack')}; defence {line('defense')}. "
            f"{SEATS[winner]} wins{' (a tie goes to the defender)' if tie else ''}"
            f"{'; the attacker enters' if event['entered'] else ''}.")
    return {"kind": "battle", "region": event["battle"], "attacker": attacker, "defender": defender,
            "piece": event["piece"], "attack": sides["attack"], "defense": sides["defense"], "winner": winner,
            "entered": event["entered"], "text": text}


def _explain(state: CrownfallState, event: dict) -> dict:
    rules = state.rules
    if "battle" in event:
        return explain_battle(rules, event)
    scores = event["scoring"]
    parts = []
    for p, s in enumerate(scores):
        gained = ", ".join(f"{TRACKS[i].capitalize()} +{s[t]}" for i, t in enumerate(TRACKS) if s[t]) or "nothing"
        met = [rules.objectives[rules.objective(k)].name for k in s["objectives"]]
        parts.append(f"{SEATS[p]} {gained}" + (f" (Objectives: {', '.join(met)})" if met else ""))
    return {"kind": "scoring", "round": event["round"], "scores": scores,
            "text": f"End of round {event['round']}: " + "; ".join(parts) + "."}


def _draw(state: CrownfallState, card: int, stage: str) -> dict:
    cards = state.rules.omens if stage == "omen" else state.rules.objectives
    return {"kind": f"draw-{stage}", "card": cards[card].key,
            "text": f"{'Omen' if stage == 'omen' else 'Objective'} drawn: {cards[card].name}"}


def crownfall_step(state: CrownfallState, player: int, action: int, viewer: int | None) -> dict:
    """Apply ``player``'s ``action`` and return its log entry: the action's text, ``label`` (the text
    without the seat, as the board shows it after the player's name), fields and ``events``, what
    followed in order: battles explained term by term, end-of-round scoring and the Omen and
    Objective draws (all public: nothing is redacted for ``viewer``)."""
    turn = state.round
    text, fields, label = state.action_text(action), state.action_fields(action), _capital(state.action_phrase(action))
    events_before, history_before = len(state.events), len(state.history)
    omens_before = len(state.omen_seen)
    state.apply(action)
    events = [_explain(state, e) for e in state.events[events_before:]]
    draws = [step[1] for step in state.history[history_before + 1:] if step[0] == CHANCE]
    # A round ends with the Objectives' refresh and the next one begins with its Omen (6.0, RULINGS
    # I7): the draws an action brings about are Objectives, then at most one Omen.
    omens = len(state.omen_seen) - omens_before
    stages = ["objective"] * (len(draws) - omens) + ["omen"] * omens
    merged = _in_order(events, [_draw(state, card, stage) for card, stage in zip(draws, stages)])
    return {"turn": turn, "player": player, "text": text, "label": label, "fields": fields, "events": merged}


def _in_order(events: list[dict], draws: list[dict]) -> list[dict]:
    """Battles first (they happen during the action), then the end of round's scoring, then the next
    round's draws: the order a round runs in (6.0)."""
    battles = [e for e in events if e["kind"] == "battle"]
    scoring = [e for e in events if e["kind"] == "scoring"]
    return battles + scoring + draws


# -- the view --------------------------------------------------------------------------------------
def _texts(state: CrownfallState, section: str, key: str) -> str:
    return default_board().texts[section].get(key, "")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def action_label(state: CrownfallState, action: int, mana: int) -> str:
    """What a button of the board says for ``action``: its text without the seat, with what it spends
    when the text does not say it already (a spell's text names its cost)."""
    label = _capital(state.action_phrase(action))
    if mana and state.action_fields(action)["kind"] != "cast":
        label += f" ({mana} mana)"
    return label


def provisional_note(rules: CrownfallRules) -> dict:
    """The note under the map: the rulebook prints no map, so the one drawn is the project's
    (RULINGS I1, I2: PROVISIONAL data), with how to load one's own and links to the ruling and to
    the rules' map section."""
    return {"title": "Provisional map.",
            "text": f"The rulebook plays on a map it does not print: these {len(rules.map)} regions, their borders "
                    "and the homes are this project's choice (rulings I1 and I2) and may differ from the map in "
                    "your box.",
            "edit": PROVISIONAL_EDIT, "links": [dict(link) for link in PROVISIONAL_LINKS]}


def _priced(state: CrownfallState, actions: list[dict]) -> list[dict]:
    """The frame's actions with their ``mana`` and ``label``."""
    out = []
    for a in actions:
        mana = phases.mana_cost(state, a["id"])
        out.append({**a, "label": action_label(state, a["id"], mana), "mana": mana})
    return out


def build_crownfall_view(game_id: str, version: int, state: CrownfallState, human: int | None, thinking: bool, log: list,
                         ai_last_turn: list, ai_note: str | None = None) -> dict:
    """The human's whole view: the frame (engine.games.view) with each action's ``label`` and
    ``mana`` (module docstring), the table (``observation``: the same for every seat, RULINGS I9),
    the board's drawing (``board``), the seats with their Houses, income and objectives met now, the
    Omen and Objectives with their texts, the spells, the tracks' goal, the round as the status line
    says it (``turn_label``) and the note on the PROVISIONAL map (``provisional``)."""
    rules = state.rules
    obs = state.observation(human)
    seats = []
    for p in range(state.num_players):
        house = state.houses[p]
        seats.append({"seat": SEATS[p], "house": house.key, "house_name": house.name,
                      "house_text": _texts(state, "house", house.key), "school": rules.schools[house.school],
                      "income": state.income(p), "network_nodes": state.network_size(p),
                      "realm": state.realm_size(p), "arcana_now": state.arcana_gain(p),
                      "spell_range": sorted(rules.map.key(r) for r in state.spell_range(p))})
    objectives = [{"key": rules.objectives[c].key, "name": rules.objectives[c].name,
                   "text": _texts(state, "objective", rules.objectives[c].key),
                   "met_by": [p for p in range(state.num_players) if phases.objective_met(state, p, rules.objectives[c].key)]}
                  for c in state.objectives]
    omen = None
    if state.omen >= 0:
        card = rules.omens[state.omen]
        omen = {"key": card.key, "name": card.name, "text": _texts(state, "omen", card.key)}
    spells = [{"key": s.key, "name": s.name, "school": rules.schools[s.school], "level": s.level, "cost": s.cost,
               "text": _texts(state, "spell", s.key)} for s in rules.spells]
    frame = view_frame(game_id, version, state, human, thinking, log, ai_last_turn, ai_note)
    return {
        **frame,
        "actions": _priced(state, frame["actions"]),
        "game": GAME_NAME,
        "title": "Crownfall",
        "turn_label": f"round {state.round} of {state.config.rounds}",
        "provisional": provisional_note(rules),
        "module": MODULE,
        "players": [SEATS[p] for p in range(state.num_players)],
        "to_move": None if state.is_terminal() else state.current_player(),
        "turn": state.round,
        "rounds": state.config.rounds,
        "observation": obs,
        "board": board_layout(rules.map),
        "seats": seats,
        "omen": omen,
        "objectives": objectives,
        "spells": spells,
        "schools": [{"key": k, "name": n} for k, n in zip(rules.schools, rules.school_names)],
        "roles": [{"key": k, "name": n} for k, n in zip(rules.roles, rules.role_names)],
        "tracks": {"names": list(TRACKS), "threshold": rules.threshold, "to_win": rules.tracks_to_win},
    }


# -- new games -------------------------------------------------------------------------------------
def new_game_form() -> list[dict]:
    """The new-game form's fields (GET /api/games/kinds ``form``): the number of players, the human's
    seat and House, the round limit (RULINGS I8), the advanced pools (I19); each field's choices are
    JSON values the form sends in ``options`` (``human`` at the top level)."""
    rules = default_rules()
    return [
        {"name": "players", "label": "Players", "title": "how many players: you and 1 to 3 AI opponents",
         "choices": [{"value": n, "label": f"{n} ({n - 1} AI)"} for n in (2, 3, 4)]},
        {"name": "human", "label": "You play", "title": "your seat: Blue plays first each round",
         "choices": [{"value": p, "label": SEATS[p] + (" (plays first)" if p == 0 else "")} for p in range(4)]},
        {"name": "house", "label": "Your House", "title": "the House you lead; the others get the default set-up's",
         "choices": [{"value": None, "label": "the default set-up's"}]
         + [{"value": h.key, "label": h.name} for h in rules.houses]},
        {"name": "rounds", "label": "Rounds", "title": "the round limit (the rules recommend 6)",
         "choices": [{"value": n, "label": str(n)} for n in FORM_ROUNDS]},
        {"name": "advanced_omens", "label": "Advanced Omens", "title": "add the advanced Omen pool",
         "choices": [{"value": False, "label": "no"}, {"value": True, "label": "yes"}]},
        {"name": "advanced_objectives", "label": "Advanced Objectives", "title": "add the advanced Objective pool",
         "choices": [{"value": False, "label": "no"}, {"value": True, "label": "yes"}]},
    ]


def new_game(form: dict, entropy: random.Random) -> CrownfallState:
    """A Crownfall game from the new-game form: its ``options`` are the configuration's
    (engine/crownfall/config.py) plus ``house``, the human's House (the seat holding it in the
    default set-up gets the human's default House instead); the draws come from ``entropy`` (a
    server secret: the order of the Omens and Objectives to come is the game's one secret), so
    ``seed``, ``chance`` and a Supply are refused. A ValueError names what is wrong."""
    options: dict[str, Any] = dict(form["options"])
    if form.get("seed") is not None:
        raise ValueError("seed: Crownfall's draws come from a server secret; leave 'seed' out")
    if form.get("supply", "random") != "random":
        raise ValueError("supply: Crownfall has no Supply; leave 'supply' out")
    for name in ("seed", "chance"):
        if name in options:
            raise ValueError(f"options.{name}: set by the server (the draws are its secret)")
    human = form.get("human", 0)
    players = options.get("players", 2)
    house = options.pop("house", None)
    if house is not None:
        if "houses" in options:
            raise ValueError("options.house: give either house (yours) or houses (every seat's), not both")
        base = CrownfallConfig.from_json({"players": players, "seed": 0}, "options")   # players checked here
        known = [h.key for h in default_rules().houses]
        if house not in known:
            raise ValueError(f"options.house: unknown House {shown(house)} (known: {', '.join(known)})")
        if not 0 <= human < players:
            raise ValueError(f"human: seat {human} is not a seat of a {players}-player game (0..{players - 1})")
        houses = list(base.houses)
        if house in houses:
            other = houses.index(house)
            houses[other] = houses[human]
        houses[human] = house
        options["houses"] = houses
    config = CrownfallConfig.from_json({**options, "seed": entropy.getrandbits(63), "chance": "auto"}, "options")
    return CrownfallState(config)
