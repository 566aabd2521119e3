"""Slow, independent reference rules for Crownfall: legal actions, their effects, and action counts.

Written from the Crownfall rulebook (crownfall.txt) and RULINGS I1-I20 only, WITHOUT looking at the
engine's code (engine/crownfall/, ext/): it exists so that the engine can be checked against it.
Speed does not matter; every rule is one small, plain function that names the rule it implements.
Rule numbers are the rulebook's sections ("(9.0)" = 9. BATTLES, "(17.0)" = the example round).
The base Omens (12.0) and base Objectives (13.0) are modelled; the advanced pools (X.C, X.D) are
off by default (RULINGS I19) and are not part of this reference.

How the engine should be checked against this
---------------------------------------------
tests/data/crownfall_counts.jsonl holds positions with their action counts from this module, one
JSON object per line: {"position": <position>, "covers": <text>, "fixed": {"1": n, "2": n, "3": n},
"expanded": {"1": n, "2": n, "3": n}}.  `count(position, depth, chance)` must agree for every depth
of both modes; a mismatch is located with `divide` (per-action counts), descending into the first
action whose counts differ.  `python -m tests.reference.crownfall check tests/data/crownfall_counts.jsonl`
recounts the file; `... generate` rebuilds it.

Map (RULINGS I1, PROVISIONAL, data)
-----------------------------------
REGIONS lists the 13 regions in map order (id, printed name, ring, Ruin); ADJACENT lists the
borders.  Region ids are the names in lower case with "-" for spaces: starfall-keep; the inner
ring dawnmere, old-abbey, south-barrow, westhollow; the outer ring highmoor, frostmark, greywater,
eastford, saltmere, thorn-coast, westwatch, briarwood.  "Map order" (used where RULINGS I18 picks the
first two Watchtowers) is the order of REGIONS.  A corrected map is passed in as data
(`GameMap(regions, adjacent)`, checked on construction with located errors) and set with
`use_map`, never coded.

Position (JSON)
---------------
A position is a JSON object (a Python dict of lists, dicts, strings, integers, booleans, null):

* "game": "crownfall".
* "round": the current round, from 1.  "rounds": the round limit (RULINGS I8; default 6).
* "phase": what happens next:
    - "omen": a chance step, the Omen of the round is revealed (RULINGS I7, I16);
    - "objectives": a chance step, two public Objectives are drawn (RULINGS I7);
    - "turn": player "seat" acts, "actions_left" (1-3) actions remain in the turn (RULINGS I4);
    - "retreat": player pending.seat chooses where a beaten Archmage goes (RULINGS I5, I11);
    - "return": player pending.seat chooses where their out-of-play Archmage returns at the end of
      the round (RULINGS I11);
    - "over": the game has ended, "winners" lists the winning seats (15.0, RULINGS I8).
  Income (6.0) and scoring (14.0) are automatic and never a phase of their own.
* "seat": the seat whose turn it is (0-based; seat order is turn order, RULINGS I16).
* "actions_left": actions left in that turn.
* "blinks": Blinks cast this turn and not yet used (10.0 Travel I; cleared at the end of the turn).
* "scorched": regions under Scorch Ward until the end of this turn (10.0 War III, RULINGS I18).
* "pending": null, or {"seat": s, "options": [region, ...]} in the phases "retreat" and "return"
  (options in map order, at least two).
* "omen": the Omen of the current round (null before it is revealed).  Omen ids: ash-winter,
  bright-surge, red-harvest, silent-roads, open-veins, gloam-tide.
* "omens_seen": the Omens revealed so far, in order, at most six: the shuffled stack; once all six
  are out the stack cycles, round r having omens_seen[(r - 1) % 6] (RULINGS I7).
* "objectives": the two public Objectives (empty while being replaced).  Objective ids (13.0):
  hold-keep, two-ruins, largest-realm, largest-network, three-towers, linked-outer, tower-battle,
  keep-and-inner.
* "objective_deck": the Objectives left in the current shuffle (catalog order; when it is empty
  the next draw reshuffles all eight, see Readings).
* "omen_next", "objective_next": null, or the fixed future order of the decks for the "fixed"
  chance mode: omen_next is the rest of the Omen stack (first revealed first), objective_next the
  next Objective cards in draw order, several shuffles of eight in a row.  Revealing an outcome
  that is the head of the list pops it; any other outcome clears the list to null.
* "winners": [] until the game is over.
* "players": one object per seat:
    "house" (emberglass, briar, redwall, tidebound), "home" (a region id), "mana", "crown",
    "arcana", "dominion" (integers >= 0), "spells": {"war": L, "travel": L, "warding": L,
    "summoning": L} with L = 0-3 the highest level unlocked, "archmage": a region id or null (out
    of play, RULINGS I11), and "flags", the once-a-round marks:
      "ember": Emberglass's first battle against a Tower this round has happened (4.0, RULINGS I17);
      "tide": Tidebound's extra region used this round (4.0);
      "silent": Silent Roads' March has happened this round (12.0, RULINGS I13);
      "harvest": Red Harvest's Crown taken this round (12.0, RULINGS I16);
      "tower_win": won a battle as attacker against a region holding an enemy Tower this round
      (Objective tower-battle).
  Pieces in reserve are not stored: 6 Banners, 3 Towers and 4 Anchors (2.0) minus those on the map.
* "regions": {region id: record} for the CONTROLLED regions only (RULINGS I3): a region with a Banner
  or a Tower.  Record: "player" (seat), "banners" (>= 0), "tower": null or {"role": "none" |
  "stronghold" | "sanctum" | "watchtower" | "beacon", "damaged": bool, "spent": bool (this
  Watchtower has supported a battle this round, RULINGS I5)}, "anchor": bool (the controller's
  Anchor; RULINGS I11), "ward": null or {"turns": n} (a Ward Seal Ward that goes at the start of
  its owner's n-th next turn) or {"turns": null} (a Bastion Sigil Ward, until used), "garrison":
  0 or the owner's turn starts until Phantom Garrison ends (1), "shield": bool (Ley Shield this
  round), "steps": structure steps (damage or destruction) the region's Tower has taken this round.
  Archmages are in "players", never in "regions".

`new_game(n, ...)` makes the set-up position (phase "omen" of round 1, RULINGS I2 defaults);
`parse(json text or dict)` checks a position and names what is wrong and where; `dump(position)`
writes the canonical JSON text.

Actions (text grammar)
----------------------
A region is written by its id; a path is region ids joined by ">" (the start first).

    end                                   end the turn early (RULINGS I4)
    march banner <path> [+blink] [+tide]  March one Banner along <path> (7.0, RULINGS I13)
    march archmage <path> [+blink] [+tide]
    raise <region>                        Raise Banner (7.0)
    fortify <region> <role>               role: stronghold, sanctum, watchtower, beacon (7.0, 8.0)
    anchor <region>                       (7.0, RULINGS I4)
    research <school>                     school: war, travel, warding, summoning (7.0, RULINGS I4)
    cast fireball <region> banner|tower   (10.0 War I)
    cast siege-flame <region>             (War II)
    cast scorch-ward <region>             (War III)
    cast blink                            (Travel I)
    cast rift-step <from> <to>            (Travel II)
    cast gatewalk <to>                    (Travel III; the Archmage's region is the start)
    cast ward-seal <region>               (Warding I)
    cast bastion-sigil <region> repair|ward  (Warding II)
    cast ley-shield <region>              (Warding III)
    cast summon-host <region>             (Summoning I)
    cast oathbound-retainers <place> <to> (Summoning II: place in <place>, March to <to>)
    cast phantom-garrison <region>        (Summoning III)
    retreat <region>                      phase "retreat"
    return <region>                       phase "return"
    omen <omen>                           chance outcome of phase "omen"
    objectives <a> <b>                    chance outcome of phase "objectives" (catalog order)

"+blink" / "+tide" name the extra regions a March spends (RULINGS I13): a March of k regions needs
k - 1 extras; Silent Roads' extra, when the March qualifies, is spent first and is not written;
the rest must be named, "+blink" before "+tide".

Counting
--------
`count(position, depth, chance="expanded"|"fixed")` is the number of sequences of `depth` player
decisions (turn actions, retreat and return choices) from the position.  Chance steps are not
decisions: "expanded" sums over every outcome of each chance step (each Omen not yet out; each
unordered pair of the Objectives left), "fixed" takes the one outcome the position's omen_next /
objective_next lists give (an error if they are missing).  A finished game has no sequences
(count 0 for depth >= 1); count(position, 0) is 1.  Automatic steps (Income, scoring, a chance step
or a choice with a single outcome) happen inside `apply` and are not counted.
`divide(position, depth, chance)` gives {action: count of depth - 1 after it}.

Readings (where the rules and RULINGS I are silent; each is a decision of this reference)
----------------------------------------------------------------------------------------
1.  A March's path visits distinct regions and ends away from its start: moving "2 regions" back to
    where one started is not a move (7.0, RULINGS I13).  Two paths to the same end are two actions:
    the path is what the player chooses (Ash Winter's cost depends on it, RULINGS I16).
2.  A March may use at most one Blink (10.0 Travel I: a March moves 2 regions "instead of 1"; a
    second Blink cannot make it 3).  Several Blinks cast in one turn serve several Marches.
3.  A Blink or Tidebound's extra is spent only by a March that uses the extra region (RULINGS I13:
    bonuses are optional); Silent Roads' extra belongs to the first qualifying March and is spent by
    it whether used or not (RULINGS I13 names that March).
4.  Oathbound Retainers' March is one region and no movement bonus applies to it or is spent by it
    (RULINGS I13); it is otherwise a March (battles, Ash Winter, Emberglass, Red Harvest).  The
    March is part of the spell: the spell cannot be cast if the March cannot be made.
5.  An attacker that wins but may not enter (a Tower remains, RULINGS I10) stays in the region its
    last step started from (a March resolves step by step, RULINGS I13) and controls it if it is a
    Banner there.
6.  A beaten Archmage's "adjacent" region is adjacent to the battle region (9.0 RESULTS).  Its
    owner's choice (RULINGS I11) is a decision of that player (phase "retreat") when there are two
    or more regions; with one it goes there, with none it is out of play until the end of the round.
    The end-of-round return (RULINGS I11) is the same: a "return" decision only with two or more
    choices, processed in seat order after scoring.
7.  A Ward token, Phantom Garrison and Ley Shield belong to the region's controller and go when the
    region stops being controlled by that player, like an Anchor (RULINGS I11).
8.  Scorch Ward switches off only the Stronghold and Watchtower bonuses of the Towers in the region
    (10.0 War III); the "+1 a Tower" defence term still counts.  It may target any region in range
    except an enemy's Ley-Shielded one (RULINGS I18).
9.  Phantom Garrison, Ley Shield and a spell on a region that already has that effect are legal (the
    rules allow any controlled region) and change nothing but the mana; Ward Seal and Bastion
    Sigil's Ward need a region without a Ward (RULINGS I15: at most one Ward a region).
10. A damaged Tower keeps its role and all of its functions (16.0: it still controls; X.B: repair
    keeps the role); a damaged Watchtower still supports, a damaged Stronghold still defends.
11. Objective tower-battle: the player won, as attacker, a battle against a region that held an
    enemy Tower (13.0; a defender's win is against the attacking piece, not a Tower).
12. Objective largest-network compares the size (node regions, RULINGS I12) of each player's
    largest active network; a player without an active network has size 0.  Arcana (14.0) is
    scored on the player's best active network (RULINGS I12: groups never add up); Briar's extra
    Arcana (4.0) is +1 whenever that score is at least 1, since all Arcana comes from a network
    with a Ruin.
13. When the Objective deck is empty at a draw, all eight are reshuffled (the two outgoing cards are
    discarded first, so the new pair may repeat them; RULINGS I7).  With eight cards and draws of
    two the deck never holds one card.
14. A Tower's "structure step" count (RULINGS I18) includes spell damage and counts every step the
    round, also those before the Ley Shield was cast.
15. Research past level III is not an action (10.0 prints three levels).
16. Ending the turn ("end") is legal with any number of actions left, including three (RULINGS I4).
17. A Watchtower is spent only when it actually counts (one of the first two eligible in map order,
    RULINGS I5, I18); Watchtowers of both sides count in every battle in which they are eligible.
"""

from __future__ import annotations

import itertools
import json
import random
import sys

# --------------------------------------------------------------------------------------------
# Map data (RULINGS I1, PROVISIONAL)
# --------------------------------------------------------------------------------------------

#: (id, printed name, ring, is a Ruin) in map order.
REGIONS = [
    ("starfall-keep", "Starfall Keep", "keep", False),
    ("dawnmere", "Dawnmere", "inner", True),
    ("old-abbey", "Old Abbey", "inner", True),
    ("south-barrow", "South Barrow", "inner", True),
    ("westhollow", "Westhollow", "inner", False),
    ("highmoor", "Highmoor", "outer", False),
    ("frostmark", "Frostmark", "outer", False),
    ("greywater", "Greywater", "outer", False),
    ("eastford", "Eastford", "outer", False),
    ("saltmere", "Saltmere", "outer", False),
    ("thorn-coast", "Thorn Coast", "outer", False),
    ("westwatch", "Westwatch", "outer", False),
    ("briarwood", "Briarwood", "outer", False),
]

ADJACENT = [
    # the Keep and the inner ring
    ("starfall-keep", "dawnmere"), ("starfall-keep", "old-abbey"),
    ("starfall-keep", "south-barrow"), ("starfall-keep", "westhollow"),
    ("dawnmere", "old-abbey"), ("old-abbey", "south-barrow"),
    ("south-barrow", "westhollow"), ("westhollow", "dawnmere"),
    # the outer ring, clockwise from the north
    ("highmoor", "frostmark"), ("frostmark", "greywater"), ("greywater", "eastford"),
    ("eastford", "saltmere"), ("saltmere", "thorn-coast"), ("thorn-coast", "westwatch"),
    ("westwatch", "briarwood"), ("briarwood", "highmoor"),
    # between the rings
    ("highmoor", "dawnmere"), ("frostmark", "dawnmere"), ("frostmark", "old-abbey"),
    ("greywater", "old-abbey"), ("eastford", "old-abbey"), ("eastford", "south-barrow"),
    ("saltmere", "south-barrow"), ("thorn-coast", "south-barrow"),
    ("thorn-coast", "westhollow"), ("westwatch", "westhollow"), ("briarwood", "westhollow"),
    ("briarwood", "dawnmere"),
]

KEEP = "starfall-keep"


class MapError(ValueError):
    pass


class PositionError(ValueError):
    pass


class ActionError(ValueError):
    pass


class GameMap:
    """The map as data, checked on construction (every error names the entry at fault)."""

    def __init__(self, regions, adjacent):
        ids = []
        for i, entry in enumerate(regions):
            if len(entry) != 4:
                raise MapError(f"region entry {i}: needs (id, name, ring, ruin), got {entry!r}")
            rid, name, ring, ruin = entry
            if not isinstance(rid, str) or not rid or " " in rid or ">" in rid:
                raise MapError(f"region entry {i}: bad id {rid!r}")
            if rid in ids:
                raise MapError(f"region entry {i}: id {rid!r} appears twice")
            if ring not in ("keep", "inner", "outer"):
                raise MapError(f"region {rid!r}: ring must be keep, inner or outer, got {ring!r}")
            if not isinstance(ruin, bool):
                raise MapError(f"region {rid!r}: ruin must be true or false, got {ruin!r}")
            ids.append(rid)
        if KEEP not in ids:
            raise MapError(f"the map needs the region {KEEP!r} (3.0)")
        self.order = ids
        self.index = {r: i for i, r in enumerate(ids)}
        self.name = {e[0]: e[1] for e in regions}
        self.ring = {e[0]: e[2] for e in regions}
        self.ruins = [e[0] for e in regions if e[3]]
        adj = {r: set() for r in ids}
        for i, pair in enumerate(adjacent):
            if len(pair) != 2:
                raise MapError(f"border entry {i}: needs two regions, got {pair!r}")
            a, b = pair
            for r in (a, b):
                if r not in adj:
                    raise MapError(f"border entry {i} ({a}, {b}): unknown region {r!r}")
            if a == b:
                raise MapError(f"border entry {i}: region {a!r} bordering itself")
            if b in adj[a]:
                raise MapError(f"border entry {i}: {a}-{b} listed twice")
            adj[a].add(b)
            adj[b].add(a)
        for r in ids:
            if not adj[r]:
                raise MapError(f"region {r!r} borders nothing")
        self.adj = {r: sorted(adj[r], key=self.index.__getitem__) for r in ids}


MAP = GameMap(REGIONS, ADJACENT)


def use_map(game_map: GameMap) -> None:
    """Replace the map (a corrected I1) for every function of this module."""
    global MAP
    MAP = game_map


# --------------------------------------------------------------------------------------------
# Catalogs (4.0, 8.0, 10.0, 12.0, 13.0; RULINGS I2)
# --------------------------------------------------------------------------------------------

HOUSES = {"emberglass": "war", "briar": "warding", "redwall": "warding", "tidebound": "travel"}
SCHOOLS = ["war", "travel", "warding", "summoning"]
ROLES = ["stronghold", "sanctum", "watchtower", "beacon"]
#: spell id -> (school, level, mana cost) (10.0)
SPELLS = {
    "fireball": ("war", 1, 2), "siege-flame": ("war", 2, 3), "scorch-ward": ("war", 3, 3),
    "blink": ("travel", 1, 1), "rift-step": ("travel", 2, 2), "gatewalk": ("travel", 3, 3),
    "ward-seal": ("warding", 1, 1), "bastion-sigil": ("warding", 2, 2), "ley-shield": ("warding", 3, 3),
    "summon-host": ("summoning", 1, 2), "oathbound-retainers": ("summoning", 2, 3),
    "phantom-garrison": ("summoning", 3, 3),
}
OMENS = ["ash-winter", "bright-surge", "red-harvest", "silent-roads", "open-veins", "gloam-tide"]
OBJECTIVES = ["hold-keep", "two-ruins", "largest-realm", "largest-network", "three-towers",
              "linked-outer", "tower-battle", "keep-and-inner"]
#: RULINGS I2 defaults: (house, home) per seat
DEFAULT_SEATS = {
    2: [("tidebound", "thorn-coast"), ("emberglass", "frostmark")],
    3: [("tidebound", "thorn-coast"), ("emberglass", "highmoor"), ("briar", "greywater")],
    4: [("tidebound", "thorn-coast"), ("emberglass", "briarwood"), ("briar", "frostmark"),
        ("redwall", "eastford")],
}
PIECES = {"banners": 6, "towers": 3, "anchors": 4}  # 2.0
START_MANA = 1  # 5.0
ACTIONS_PER_TURN = 3  # 6.0
THRESHOLD = 6  # 15.0
FLAGS = ["ember", "tide", "silent", "harvest", "tower_win"]


# --------------------------------------------------------------------------------------------
# Set-up and copying
# --------------------------------------------------------------------------------------------

def _fresh_flags():
    return {f: False for f in FLAGS}


def new_game(players: int = 2, seats=None, rounds: int = 6, seed=None) -> dict:
    """The set-up position (5.0, RULINGS I2): phase "omen" of round 1.  `seats` is a list of
    (house, home) pairs (default RULINGS I2's); `seed` fills omen_next / objective_next with a
    seeded order of both decks (the "fixed" chance mode)."""
    if seats is None:
        if players not in DEFAULT_SEATS:
            raise PositionError(f"players must be 2, 3 or 4, got {players!r}")
        seats = DEFAULT_SEATS[players]
    pos = {
        "game": "crownfall", "round": 1, "rounds": rounds, "phase": "omen", "seat": 0,
        "actions_left": ACTIONS_PER_TURN, "blinks": 0, "scorched": [], "pending": None,
        "omen": None, "omens_seen": [], "objectives": [], "objective_deck": list(OBJECTIVES),
        "omen_next": None, "objective_next": None, "winners": [], "players": [], "regions": {},
    }
    for house, home in seats:
        spells = {s: 0 for s in SCHOOLS}
        if house in HOUSES:
            spells[HOUSES[house]] = 1  # 4.0: each House starts with a level I
        pos["players"].append({
            "house": house, "home": home, "mana": START_MANA, "crown": 0, "arcana": 0,
            "dominion": 0, "spells": spells, "archmage": home, "flags": _fresh_flags()})
        # 5.0: the Home Tower (no role, RULINGS I11) at home
        pos["regions"][home] = _record(len(pos["players"]) - 1, banners=0,
                                       tower={"role": "none", "damaged": False, "spent": False})
    if seed is not None:
        rng = random.Random(seed)
        omens = list(OMENS)
        rng.shuffle(omens)
        stream = []
        for _ in range(1 + (rounds * 2) // len(OBJECTIVES) + 1):
            block = list(OBJECTIVES)
            rng.shuffle(block)
            stream += block
        pos["omen_next"], pos["objective_next"] = omens, stream
    return check(pos)


def _record(seat, banners=0, tower=None):
    return {"player": seat, "banners": banners, "tower": tower, "anchor": False, "ward": None,
            "garrison": 0, "shield": False, "steps": 0}


def clone(x):
    if isinstance(x, dict):
        return {k: clone(v) for k, v in x.items()}
    if isinstance(x, list):
        return [clone(v) for v in x]
    return x


def dump(pos: dict) -> str:
    """The canonical JSON text of a position (keys sorted, no spaces)."""
    return json.dumps(pos, sort_keys=True, separators=(",", ":"))


# --------------------------------------------------------------------------------------------
# Reading and checking a position (every error names the field at fault)
# --------------------------------------------------------------------------------------------

_TOP = {"game": str, "round": int, "rounds": int, "phase": str, "seat": int, "actions_left": int,
        "blinks": int, "scorched": list, "pending": (dict, type(None)), "omen": (str, type(None)),
        "omens_seen": list, "objectives": list, "objective_deck": list,
        "omen_next": (list, type(None)), "objective_next": (list, type(None)), "winners": list,
        "players": list, "regions": dict}
_PLAYER = {"house": str, "home": str, "mana": int, "crown": int, "arcana": int, "dominion": int,
           "spells": dict, "archmage": (str, type(None)), "flags": dict}
_RECORD = {"player": int, "banners": int, "tower": (dict, type(None)), "anchor": bool,
           "ward": (dict, type(None)), "garrison": int, "shield": bool, "steps": int}
PHASES = ["omen", "objectives", "turn", "retreat", "return", "over"]


def _need(cond, where, what):
    if not cond:
        raise PositionError(f"{where}: {what}")


def _fields(obj, spec, where):
    _need(isinstance(obj, dict), where, f"must be an object, got {type(obj).__name__}")
    for key in obj:
        _need(key in spec, where, f"unknown field {key!r}")
    for key, typ in spec.items():
        _need(key in obj, where, f"missing field {key!r}")
        value = obj[key]
        ok = isinstance(value, typ) and not (typ is int and isinstance(value, bool))
        if typ is int or (isinstance(typ, tuple) and int in typ):
            ok = ok and not isinstance(value, bool)
        _need(ok, f"{where}.{key}", f"wrong type {type(value).__name__}")


def _region_id(r, where):
    _need(isinstance(r, str) and r in MAP.index, where, f"unknown region {r!r}")


def parse(text_or_dict) -> dict:
    """A position from its JSON text (or dict), checked; PositionError names what is wrong."""
    if isinstance(text_or_dict, str):
        try:
            obj = json.loads(text_or_dict)
        except json.JSONDecodeError as exc:
            raise PositionError(f"position: not JSON ({exc})") from None
    else:
        obj = clone(text_or_dict)
    return check(obj)


def check(pos: dict) -> dict:
    _fields(pos, _TOP, "position")
    _need(pos["game"] == "crownfall", "position.game", f"must be 'crownfall', got {pos['game']!r}")
    _need(pos["phase"] in PHASES, "position.phase", f"must be one of {PHASES}, got {pos['phase']!r}")
    n = len(pos["players"])
    _need(2 <= n <= 4, "position.players", f"2 to 4 players (1.0), got {n}")
    _need(1 <= pos["rounds"], "position.rounds", "must be >= 1")
    _need(1 <= pos["round"] <= pos["rounds"], "position.round", f"must be 1..{pos['rounds']}")
    _need(0 <= pos["seat"] < n, "position.seat", f"must be 0..{n - 1}")
    _need(0 <= pos["actions_left"] <= ACTIONS_PER_TURN, "position.actions_left", "must be 0..3")
    _need(pos["blinks"] >= 0, "position.blinks", "must be >= 0")
    for i, r in enumerate(pos["scorched"]):
        _region_id(r, f"position.scorched[{i}]")
    homes, houses = set(), set()
    for i, p in enumerate(pos["players"]):
        where = f"position.players[{i}]"
        _fields(p, _PLAYER, where)
        _need(p["house"] in HOUSES, f"{where}.house", f"unknown House {p['house']!r}")
        _need(p["house"] not in houses, f"{where}.house", f"House {p['house']!r} taken twice (RULINGS I2)")
        houses.add(p["house"])
        _region_id(p["home"], f"{where}.home")
        _need(MAP.ring[p["home"]] == "outer", f"{where}.home", "a home is an outer region (5.0)")
        _need(p["home"] not in homes, f"{where}.home", f"{p['home']} is another player's home (5.0)")
        homes.add(p["home"])
        for k in ("mana", "crown", "arcana", "dominion"):
            _need(p[k] >= 0, f"{where}.{k}", "must be >= 0")
        _need(sorted(p["spells"]) == sorted(SCHOOLS), f"{where}.spells", f"needs exactly {SCHOOLS}")
        for s, lv in p["spells"].items():
            _need(isinstance(lv, int) and not isinstance(lv, bool) and 0 <= lv <= 3,
                  f"{where}.spells.{s}", f"level must be 0..3, got {lv!r}")
        if p["archmage"] is not None:
            _region_id(p["archmage"], f"{where}.archmage")
        _need(sorted(p["flags"]) == sorted(FLAGS), f"{where}.flags", f"needs exactly {FLAGS}")
        for f, v in p["flags"].items():
            _need(isinstance(v, bool), f"{where}.flags.{f}", "must be true or false")
    counts = [{"banners": 0, "towers": 0, "anchors": 0} for _ in range(n)]
    for r, rec in pos["regions"].items():
        where = f"position.regions.{r}"
        _region_id(r, where)
        _fields(rec, _RECORD, where)
        s = rec["player"]
        _need(0 <= s < n, f"{where}.player", f"no seat {s}")
        _need(rec["banners"] >= 0, f"{where}.banners", "must be >= 0")
        _need(rec["banners"] > 0 or rec["tower"] is not None, where,
              "a region record needs a Banner or a Tower (only controlled regions are listed, RULINGS I3)")
        if rec["tower"] is not None:
            t = rec["tower"]
            _fields(t, {"role": str, "damaged": bool, "spent": bool}, f"{where}.tower")
            _need(t["role"] in ["none"] + ROLES, f"{where}.tower.role", f"unknown role {t['role']!r}")
            counts[s]["towers"] += 1
        counts[s]["banners"] += rec["banners"]
        counts[s]["anchors"] += rec["anchor"]
        if rec["ward"] is not None:
            _fields(rec["ward"], {"turns": (int, type(None))}, f"{where}.ward")
            _need(rec["ward"]["turns"] is None or rec["ward"]["turns"] >= 1, f"{where}.ward.turns",
                  "must be >= 1 or null")
        _need(rec["garrison"] >= 0 and rec["steps"] >= 0, where, "garrison and steps must be >= 0")
        if rec["anchor"]:
            _need((r in MAP.ruins or r == KEEP or rec["tower"] is not None),
                  f"{where}.anchor", "an Anchor stands on a Ruin, a Tower or the Keep (7.0)")
    for i, c in enumerate(counts):
        for k, most in PIECES.items():
            _need(c[k] <= most, f"position.players[{i}]", f"{c[k]} {k} on the map, only {most} (2.0)")
    for i, p in enumerate(pos["players"]):
        a = p["archmage"]
        if a is not None:
            rec = pos["regions"].get(a)
            _need(rec is None or rec["player"] == i, f"position.players[{i}].archmage",
                  f"{a} holds another player's pieces (RULINGS I3)")
            for j, q in enumerate(pos["players"]):
                _need(j == i or q["archmage"] != a, f"position.players[{i}].archmage",
                      f"{a} also holds seat {j}'s Archmage")
    for i, o in enumerate(pos["omens_seen"]):
        _need(o in OMENS, f"position.omens_seen[{i}]", f"unknown Omen {o!r}")
    _need(len(set(pos["omens_seen"])) == len(pos["omens_seen"]) <= len(OMENS), "position.omens_seen",
          "each Omen at most once")
    _need(pos["omen"] is None or pos["omen"] in OMENS, "position.omen", f"unknown Omen {pos['omen']!r}")
    for key in ("objectives", "objective_deck"):
        for i, o in enumerate(pos[key]):
            _need(o in OBJECTIVES, f"position.{key}[{i}]", f"unknown Objective {o!r}")
        _need(len(set(pos[key])) == len(pos[key]), f"position.{key}", "an Objective twice")
    _need(len(pos["objectives"]) in (0, 2), "position.objectives", "two Objectives or none")
    _need(not set(pos["objectives"]) & set(pos["objective_deck"]), "position.objective_deck",
          "holds a face-up Objective")
    if pos["omen_next"] is not None:
        for i, o in enumerate(pos["omen_next"]):
            _need(o in OMENS and o not in pos["omens_seen"], f"position.omen_next[{i}]",
                  f"{o!r} is not an Omen still in the stack")
    if pos["objective_next"] is not None:
        for i, o in enumerate(pos["objective_next"]):
            _need(o in OBJECTIVES, f"position.objective_next[{i}]", f"unknown Objective {o!r}")
    ph = pos["phase"]
    if ph in ("retreat", "return"):
        pd = pos["pending"]
        _need(isinstance(pd, dict) and sorted(pd) == ["options", "seat"], "position.pending",
              "needs {seat, options} in this phase")
        _need(isinstance(pd["seat"], int) and 0 <= pd["seat"] < n, "position.pending.seat", "bad seat")
        for i, r in enumerate(pd["options"]):
            _region_id(r, f"position.pending.options[{i}]")
        _need(len(pd["options"]) >= 2, "position.pending.options", "at least two choices")
    else:
        _need(pos["pending"] is None, "position.pending", f"must be null in phase {ph!r}")
    if ph == "turn":
        _need(pos["actions_left"] >= 1, "position.actions_left", "a turn needs an action left")
        _need(pos["omen"] is not None and len(pos["objectives"]) == 2, "position",
              "a turn needs the round's Omen and two Objectives")
    for i, w in enumerate(pos["winners"]):
        _need(isinstance(w, int) and 0 <= w < n, f"position.winners[{i}]", "bad seat")
    _need((ph == "over") == bool(pos["winners"]), "position.winners",
          "winners are listed exactly when the phase is 'over'")
    return pos


# --------------------------------------------------------------------------------------------
# Board queries
# --------------------------------------------------------------------------------------------

def controller(pos, r):
    """RULINGS I3: the seat with a Banner or a Tower in r, else None (an Archmage controls nothing)."""
    rec = pos["regions"].get(r)
    if rec is None or (rec["banners"] == 0 and rec["tower"] is None):
        return None
    return rec["player"]


def controlled(pos, seat):
    return [r for r in MAP.order if controller(pos, r) == seat]


def archmage_at(pos, r):
    """The seat whose Archmage stands in r, or None."""
    for i, p in enumerate(pos["players"]):
        if p["archmage"] == r:
            return i
    return None


def enemy_piece(pos, seat, r) -> bool:
    """RULINGS I5: r holds a piece (Banner, Tower, Archmage) of another player."""
    c = controller(pos, r)
    if c is not None and c != seat:
        return True
    a = archmage_at(pos, r)
    return a is not None and a != seat


def empty(pos, seat, r) -> bool:
    """RULINGS I18: no Banner, no Tower, no enemy Archmage."""
    if controller(pos, r) is not None:
        return False
    a = archmage_at(pos, r)
    return a is None or a == seat


def reserve(pos, seat, kind):
    """2.0: the pieces of a kind not on the map."""
    on = 0
    for rec in pos["regions"].values():
        if rec["player"] != seat:
            continue
        on += {"banners": rec["banners"], "towers": rec["tower"] is not None,
               "anchors": rec["anchor"]}[kind]
    return PIECES[kind] - on


def towers_of(pos, seat):
    return [r for r in MAP.order if controller(pos, r) == seat and pos["regions"][r]["tower"]]


def role_at(pos, r):
    rec = pos["regions"].get(r)
    return rec["tower"]["role"] if rec and rec["tower"] else None


def groups(pos, seat):
    """The connected groups of the regions `seat` controls (11.0), each a list in map order."""
    mine = set(controlled(pos, seat))
    seen, out = set(), []
    for r in MAP.order:
        if r in mine and r not in seen:
            stack, g = [r], set()
            seen.add(r)
            while stack:
                x = stack.pop()
                g.add(x)
                for y in MAP.adj[x]:
                    if y in mine and y not in seen:
                        seen.add(y)
                        stack.append(y)
            out.append(sorted(g, key=MAP.index.__getitem__))
    return out


def has_home_tower(pos, seat, r):
    """RULINGS I11: the Tower standing in the player's home region is the Home Tower."""
    rec = pos["regions"].get(r)
    return (r == pos["players"][seat]["home"] and rec is not None and rec["player"] == seat
            and rec["tower"] is not None)


def is_node(pos, seat, r) -> bool:
    """RULINGS I12: a controlled region with a Ruin, Sanctum, Beacon, own Anchor, the Keep or the
    Home Tower."""
    if controller(pos, r) != seat:
        return False
    rec = pos["regions"][r]
    return (r in MAP.ruins or r == KEEP or rec["anchor"] or has_home_tower(pos, seat, r)
            or role_at(pos, r) in ("sanctum", "beacon"))


def active_groups(pos, seat):
    """RULINGS I12: the groups holding the Home Tower or at least two node regions."""
    out = []
    for g in groups(pos, seat):
        nodes = [r for r in g if is_node(pos, seat, r)]
        if any(has_home_tower(pos, seat, r) for r in g) or len(nodes) >= 2:
            out.append((g, nodes))
    return out


def realm_size(pos, seat):
    """RULINGS I14: the largest connected group, +1 per outer region under Gloam Tide (12.0)."""
    best = 0
    for g in groups(pos, seat):
        size = len(g)
        if pos["omen"] == "gloam-tide":
            size += sum(1 for r in g if MAP.ring[r] == "outer")
        best = max(best, size)
    return best


def network_size(pos, seat):
    """Reading 12: the node count of the player's largest active network."""
    return max((len(nodes) for _, nodes in active_groups(pos, seat)), default=0)


def ruins_controlled(pos, seat):
    return sum(1 for r in MAP.ruins if controller(pos, r) == seat)


def income(pos, seat):
    """6.0 Income with RULINGS I12, I15 and Bright Surge (12.0)."""
    gain = 1 + ruins_controlled(pos, seat)
    sanctums = sum(1 for r in towers_of(pos, seat) if role_at(pos, r) == "sanctum")
    gain += sanctums * (2 if pos["omen"] == "bright-surge" else 1)
    if controller(pos, KEEP) == seat and any(KEEP in g for g, _ in active_groups(pos, seat)):
        gain += 1
    return gain


def arcana_gain(pos, seat):
    """14.0 Arcana on the best active network (RULINGS I12), Briar's +1 (4.0, reading 12)."""
    best = 0
    for g, _ in active_groups(pos, seat):
        ruins = sum(1 for r in g if r in MAP.ruins)
        score = (1 if ruins >= 1 else 0) + (1 if ruins >= 2 or (KEEP in g and ruins >= 1) else 0)
        best = max(best, score)
    if best and pos["players"][seat]["house"] == "briar":
        best += 1
    return best


def spell_range(pos, seat):
    """RULINGS I6: the Archmage's region and its neighbours, and each Beacon's (out of play: none)."""
    centres = []
    a = pos["players"][seat]["archmage"]
    if a is not None:
        centres.append(a)
    centres += [r for r in towers_of(pos, seat) if role_at(pos, r) == "beacon"]
    out = set()
    for c in centres:
        out.add(c)
        out.update(MAP.adj[c])
    return sorted(out, key=MAP.index.__getitem__)


def shielded_against(pos, seat, r):
    """RULINGS I18: an enemy's Ley Shield keeps r from being targeted by seat's spells."""
    rec = pos["regions"].get(r)
    return rec is not None and rec["shield"] and rec["player"] != seat and controller(pos, r) is not None


# --------------------------------------------------------------------------------------------
# Legal actions
# --------------------------------------------------------------------------------------------

def _step_cost(pos, r):
    """RULINGS I16 Ash Winter: each March step into a Ruin costs 1 mana."""
    return 1 if pos["omen"] == "ash-winter" and r in MAP.ruins else 0


def _silent_applies(pos, seat, path):
    """RULINGS I13: the first March of the round whose first step joins two controlled regions."""
    return (pos["omen"] == "silent-roads" and not pos["players"][seat]["flags"]["silent"]
            and controller(pos, path[0]) == seat and controller(pos, path[1]) == seat)


def _march_paths(pos, seat, start, longest):
    """Simple paths from start of 1..longest steps; only the last step may enter a region with an
    enemy piece (RULINGS I13); Ash Winter's mana must be payable (RULINGS I16)."""
    mana = pos["players"][seat]["mana"]
    out = []

    def walk(path, cost):
        here = path[-1]
        for nxt in MAP.adj[here]:
            if nxt in path:
                continue  # reading 1
            c = cost + _step_cost(pos, nxt)
            if c > mana:
                continue
            new = path + [nxt]
            out.append(new)
            if len(new) - 1 < longest and not enemy_piece(pos, seat, nxt):
                walk(new, c)

    walk([start], 0)
    return out


def _march_actions(pos, seat, piece, start):
    p = pos["players"][seat]
    blink = pos["blinks"] > 0
    tide = p["house"] == "tidebound" and not p["flags"]["tide"] and MAP.ring[start] == "outer"
    silent_possible = pos["omen"] == "silent-roads" and not p["flags"]["silent"]
    longest = 1 + blink + tide + silent_possible
    out = []
    for path in _march_paths(pos, seat, start, longest):
        extra = len(path) - 2 - (1 if _silent_applies(pos, seat, path) else 0)
        text = f"march {piece} " + ">".join(path)
        if extra <= 0:
            out.append(text)
        elif extra == 1:
            if blink:
                out.append(text + " +blink")
            if tide:
                out.append(text + " +tide")
        elif extra == 2 and blink and tide:
            out.append(text + " +blink +tide")
    return out


def _turn_actions(pos):
    seat = pos["seat"]
    p = pos["players"][seat]
    mana = p["mana"]
    mine = controlled(pos, seat)
    out = ["end"]
    # March (7.0)
    for r in mine:
        if pos["regions"][r]["banners"] > 0:
            out += _march_actions(pos, seat, "banner", r)
    if p["archmage"] is not None:
        out += _march_actions(pos, seat, "archmage", p["archmage"])
    # Raise Banner (7.0)
    if reserve(pos, seat, "banners") > 0:
        near = {y for r in mine for y in MAP.adj[r]}
        out += [f"raise {r}" for r in MAP.order if r in near and empty(pos, seat, r)]
    # Fortify (7.0, 8.0)
    if reserve(pos, seat, "towers") > 0:
        for r in mine:
            rec = pos["regions"][r]
            if rec["banners"] > 0 and rec["tower"] is None:
                out += [f"fortify {r} {role}" for role in ROLES]
    # Anchor (7.0, RULINGS I4; Open Veins 12.0)
    cost = 0 if pos["omen"] == "open-veins" else 1
    if reserve(pos, seat, "anchors") > 0 and mana >= cost:
        for r in mine:
            rec = pos["regions"][r]
            if not rec["anchor"] and (r in MAP.ruins or r == KEEP or rec["tower"] is not None):
                out.append(f"anchor {r}")
    # Research (7.0, RULINGS I4, reading 15)
    if mana >= 1:
        out += [f"research {s}" for s in SCHOOLS if p["spells"][s] < 3]
    # Cast (7.0, 10.0)
    for spell, (school, level, cost) in SPELLS.items():
        if p["spells"][school] >= level and mana >= cost:
            out += [f"cast {spell}" + (f" {t}" if t else "") for t in _targets(pos, seat, spell, cost)]
    return out


def _targets(pos, seat, spell, cost):
    p = pos["players"][seat]
    mine = controlled(pos, seat)
    rng = spell_range(pos, seat)
    if spell == "fireball":
        out = []
        for r in rng:
            rec = pos["regions"].get(r)
            if controller(pos, r) in (None, seat) or shielded_against(pos, seat, r):
                continue
            if rec["banners"] > 0:
                out.append(f"{r} banner")
            if rec["tower"] is not None and rec["tower"]["damaged"]:
                out.append(f"{r} tower")
        return out
    if spell == "siege-flame":
        return [r for r in rng if controller(pos, r) not in (None, seat)
                and pos["regions"][r]["tower"] is not None and not shielded_against(pos, seat, r)]
    if spell == "scorch-ward":
        return [r for r in rng if not shielded_against(pos, seat, r)]
    if spell == "blink":
        return [""]
    if spell in ("rift-step", "gatewalk"):
        out = []
        for g, nodes in active_groups(pos, seat):
            if spell == "rift-step":
                out += [f"{a} {b}" for a in nodes if pos["regions"][a]["banners"] > 0
                        for b in nodes if b != a]
            elif p["archmage"] in nodes:
                out += [b for b in nodes if b != p["archmage"]]
        return out
    if spell == "ward-seal":
        return [r for r in mine if pos["regions"][r]["ward"] is None]
    if spell == "bastion-sigil":
        out = []
        for r in towers_of(pos, seat):
            rec = pos["regions"][r]
            if rec["tower"]["damaged"]:
                out.append(f"{r} repair")
            if rec["ward"] is None:
                out.append(f"{r} ward")
        return out
    if spell == "ley-shield":
        return [r for r in mine if is_node(pos, seat, r)]
    if spell == "summon-host":
        if reserve(pos, seat, "banners") == 0:
            return []
        centres = towers_of(pos, seat) + ([p["archmage"]] if p["archmage"] else [])
        near = {y for c in centres for y in MAP.adj[c]}
        return [r for r in MAP.order if r in near and empty(pos, seat, r)]
    if spell == "oathbound-retainers":
        if reserve(pos, seat, "banners") == 0:
            return []
        return [f"{a} {b}" for a in mine for b in MAP.adj[a]
                if p["mana"] >= cost + _step_cost(pos, b)]
    if spell == "phantom-garrison":
        return list(mine)
    raise AssertionError(spell)


def _chance_outcomes(pos):
    """The outcomes of the chance step (expanded): Omens still in the stack, or unordered pairs of
    the Objectives left (RULINGS I7, reading 13)."""
    if pos["phase"] == "omen":
        if len(pos["omens_seen"]) == len(OMENS):
            return [f"omen {pos['omens_seen'][(pos['round'] - 1) % len(OMENS)]}"]
        return [f"omen {o}" for o in OMENS if o not in pos["omens_seen"]]
    deck = pos["objective_deck"] or list(OBJECTIVES)
    return [f"objectives {a} {b}" for a, b in itertools.combinations(deck, 2)]


def _fixed_outcome(pos):
    """The one outcome of the chance step in the "fixed" mode (the head of omen_next /
    objective_next)."""
    if pos["phase"] == "omen":
        if len(pos["omens_seen"]) == len(OMENS):
            return _chance_outcomes(pos)[0]
        if not pos["omen_next"]:
            raise ActionError("fixed chance: the position has no omen_next to reveal")
        return f"omen {pos['omen_next'][0]}"
    nxt = pos["objective_next"]
    if not nxt or len(nxt) < 2:
        raise ActionError("fixed chance: the position has no objective_next pair to draw")
    a, b = sorted(nxt[:2], key=OBJECTIVES.index)
    return f"objectives {a} {b}"


def is_chance(pos) -> bool:
    return pos["phase"] in ("omen", "objectives")


def legal_actions(pos) -> list:
    """The action texts of the player to decide (phase turn, retreat, return), or the outcomes of
    the chance step (phase omen, objectives); [] when the game is over."""
    ph = pos["phase"]
    if ph == "over":
        return []
    if ph in ("omen", "objectives"):
        return _chance_outcomes(pos)
    if ph in ("retreat", "return"):
        return [f"{ph} {r}" for r in pos["pending"]["options"]]
    return _turn_actions(pos)


def to_move(pos):
    """The seat that decides next, or None at a chance step or the end."""
    ph = pos["phase"]
    if ph == "turn":
        return pos["seat"]
    if ph in ("retreat", "return"):
        return pos["pending"]["seat"]
    return None


# --------------------------------------------------------------------------------------------
# Battles (9.0, RULINGS I5, I10, I15, I17, I18, I20)
# --------------------------------------------------------------------------------------------

def _support(pos, seat, region, events_side):
    """RULINGS I5, I18: seat's unspent Watchtowers adjacent to region, not scorched; the first two
    in map order count and are spent."""
    eligible = []
    for r in MAP.adj[region]:
        rec = pos["regions"].get(r)
        if (controller(pos, r) == seat and rec["tower"] is not None
                and rec["tower"]["role"] == "watchtower" and not rec["tower"]["spent"]
                and r not in pos["scorched"]):
            eligible.append(r)
    used = eligible[:2]
    for r in used:
        pos["regions"][r]["tower"]["spent"] = True
    events_side["watchtowers"] = used
    return len(used)


def _battle(pos, att, piece, region, came_from, events):
    """Resolve a battle: att's `piece` ("banner"/"archmage") enters `region` (holding an enemy
    piece) from `came_from`.  The piece has already left its start."""
    rec = pos["regions"].get(region)
    dfd = controller(pos, region)
    if dfd is None:
        dfd = archmage_at(pos, region)
    ap = pos["players"][att]
    dp = pos["players"][dfd]
    had_tower = dfd == controller(pos, region) and rec is not None and rec["tower"] is not None
    a_terms, d_terms = {}, {}
    # attacker (9.0; RULINGS I10: the Archmage term only when the Archmage itself attacks)
    a_terms["banner"] = 1 if piece == "banner" else 0
    a_terms["archmage"] = 1 if piece == "archmage" else 0
    side = {}
    a_terms["watchtowers"] = _support(pos, att, region, side)
    a_terms["spell"] = 0
    a_terms["house"] = 0
    if ap["house"] == "emberglass" and had_tower and not ap["flags"]["ember"]:
        a_terms["house"] = 1  # 4.0, RULINGS I17
    if had_tower:
        ap["flags"]["ember"] = True
    # defender (9.0, RULINGS I15, I20)
    d_terms["banner"] = 1 if rec is not None and dfd == rec["player"] and rec["banners"] > 0 else 0
    d_terms["tower"] = 1 if had_tower else 0
    d_terms["archmage"] = 1 if dp["archmage"] == region else 0
    dside = {}
    d_terms["watchtowers"] = _support(pos, dfd, region, dside)
    d_terms["stronghold"] = 0
    if had_tower and rec["tower"]["role"] == "stronghold" and region not in pos["scorched"]:
        d_terms["stronghold"] = 2 if dp["house"] == "redwall" else 1
    d_terms["spell"] = 0
    ward_used = False
    if had_tower or d_terms["banner"]:
        if rec["garrison"] > 0:
            d_terms["spell"] = 1
        elif rec["ward"] is not None:
            d_terms["spell"] = 1
            ward_used = True
    attack, defence = sum(a_terms.values()), sum(d_terms.values())
    won = attack > defence  # ties go to the defender (9.0)
    if ward_used:
        rec["ward"] = None
    event = {"battle": region, "attacker": att, "defender": dfd, "piece": piece,
             "attack": attack, "defence": defence, "attack_terms": a_terms,
             "defence_terms": d_terms, "attacker_watchtowers": side["watchtowers"],
             "defender_watchtowers": dside["watchtowers"],
             "winner": "attacker" if won else "defender"}
    events.append(event)
    winner = att if won else dfd
    if pos["omen"] == "red-harvest" and not pos["players"][winner]["flags"]["harvest"]:
        pos["players"][winner]["flags"]["harvest"] = True  # RULINGS I16
        pos["players"][winner]["crown"] += 1
    if not won:
        if piece == "archmage":
            _displace(pos, att, region, events)
        return  # a beaten Banner goes back to the reserve (RULINGS I11)
    if had_tower:
        ap["flags"]["tower_win"] = True
    # RULINGS I10: every matching result of 9.0
    if rec is not None and dfd == rec["player"]:
        rec["banners"] = 0
        if rec["tower"] is not None:
            _structure_step(pos, region, events)
    remains = controller(pos, region) is not None
    if remains:
        _place(pos, att, piece, came_from)  # reading 5
        return
    _drop_if_uncontrolled(pos, region)
    if dp["archmage"] == region:
        _displace(pos, dfd, region, events)
    _place(pos, att, piece, region)


def _structure_step(pos, region, events):
    """9.0: damage an undamaged Tower, destroy a Damaged one; Ley Shield (RULINGS I18) stops a
    second step in the round."""
    rec = pos["regions"][region]
    if rec["shield"] and rec["steps"] >= 1:
        events.append({"shielded": region})
        return
    rec["steps"] += 1
    if rec["tower"]["damaged"]:
        rec["tower"] = None  # back to the reserve, role cleared (RULINGS I11)
        events.append({"destroyed": region})
    else:
        rec["tower"]["damaged"] = True
        events.append({"damaged": region})


def _drop_if_uncontrolled(pos, region):
    """RULINGS I11 and reading 7: a region no longer controlled loses its record (Anchor back to
    the reserve, Ward, Garrison, Shield gone)."""
    rec = pos["regions"].get(region)
    if rec is not None and rec["banners"] == 0 and rec["tower"] is None:
        del pos["regions"][region]


def _cleanup(pos):
    for r in list(pos["regions"]):
        _drop_if_uncontrolled(pos, r)


def _place(pos, seat, piece, region):
    if piece == "archmage":
        pos["players"][seat]["archmage"] = region
        return
    rec = pos["regions"].get(region)
    if rec is None:
        pos["regions"][region] = rec = _record(seat)
    assert rec["player"] == seat, (region, rec, seat)
    rec["banners"] += 1


def _displace(pos, seat, region, events):
    """9.0, RULINGS I5, I11, reading 6: a beaten Archmage goes to an adjacent region its owner
    controls (owner's choice), else out of play until the end of the round."""
    pos["players"][seat]["archmage"] = None
    options = [r for r in MAP.adj[region] if controller(pos, r) == seat and archmage_at(pos, r) in (None, seat)]
    events.append({"archmage_beaten": seat, "options": options})
    if len(options) == 1:
        pos["players"][seat]["archmage"] = options[0]
    elif len(options) >= 2:
        pos["pending"] = {"seat": seat, "options": options}


# --------------------------------------------------------------------------------------------
# Applying actions
# --------------------------------------------------------------------------------------------

def apply(pos, action: str) -> dict:
    """The position after `action` (a legal action text or chance outcome); the argument is not
    changed.  ActionError when the action is not legal here."""
    return apply_with_events(pos, action)[0]


def apply_with_events(pos, action: str):
    """(new position, events): events are dicts describing battles (both sides' terms), damage,
    Archmage displacement, Income and scoring, for tests and explanations."""
    if not isinstance(action, str):
        raise ActionError(f"an action is a text, got {type(action).__name__}")
    legal = legal_actions(pos)
    if action not in legal:
        where = pos["phase"] if pos["phase"] != "turn" else f"turn of seat {pos['seat']}"
        raise ActionError(f"action {action!r} is not legal here ({where}, round {pos['round']}; "
                          f"{len(legal)} legal actions)")
    new = clone(pos)
    events = []
    words = action.split()
    ph = new["phase"]
    if ph == "omen":
        _reveal_omen(new, words[1])
    elif ph == "objectives":
        _draw_objectives(new, words[1:])
    elif ph == "retreat":
        new["players"][new["pending"]["seat"]]["archmage"] = words[1]
        new["pending"] = None
        new["phase"] = "turn"
    elif ph == "return":
        seat = new["pending"]["seat"]
        new["players"][seat]["archmage"] = words[1]
        new["pending"] = None
        _returns(new, seat + 1, events)
    else:
        if words[0] == "end":
            new["actions_left"] = 0
        else:
            _turn_action(new, words, events)
            _cleanup(new)
            new["actions_left"] -= 1
            if new["pending"] is not None:
                new["phase"] = "retreat"
    _advance(new, events)
    return new, events


def _reveal_omen(pos, omen):
    """RULINGS I7, I16."""
    if omen not in pos["omens_seen"]:
        pos["omens_seen"].append(omen)
    pos["omen"] = omen
    if pos["omen_next"] is not None:
        pos["omen_next"] = pos["omen_next"][1:] if pos["omen_next"][:1] == [omen] else None
        if omen in (pos["omen_next"] or []):
            pos["omen_next"] = None
    pos["phase"] = "objectives" if not pos["objectives"] else "income"


def _draw_objectives(pos, pair):
    """RULINGS I7, reading 13."""
    if not pos["objective_deck"]:
        pos["objective_deck"] = list(OBJECTIVES)
    pos["objective_deck"] = [o for o in pos["objective_deck"] if o not in pair]
    pos["objectives"] = sorted(pair, key=OBJECTIVES.index)
    nxt = pos["objective_next"]
    if nxt is not None:
        pos["objective_next"] = nxt[2:] if sorted(nxt[:2]) == sorted(pair) else None
    pos["phase"] = "omen" if pos["omen"] is None else "income"


def _turn_action(pos, words, events):
    seat = pos["seat"]
    p = pos["players"][seat]
    kind = words[0]
    if kind == "march":
        piece, path = words[1], words[2].split(">")
        _march(pos, seat, piece, path, set(words[3:]), events)
    elif kind == "raise":
        _place(pos, seat, "banner", words[1])
    elif kind == "fortify":
        rec = pos["regions"][words[1]]
        rec["banners"] -= 1  # back to the reserve (RULINGS I4)
        rec["tower"] = {"role": words[2], "damaged": False, "spent": False}
    elif kind == "anchor":
        if pos["omen"] != "open-veins":
            p["mana"] -= 1
        pos["regions"][words[1]]["anchor"] = True
    elif kind == "research":
        p["mana"] -= 1
        p["spells"][words[1]] += 1
    elif kind == "cast":
        spell = words[1]
        p["mana"] -= SPELLS[spell][2]
        _cast(pos, seat, spell, words[2:], events)
    else:
        raise AssertionError(words)


def _march(pos, seat, piece, path, bonuses, events):
    """7.0 March with RULINGS I13 (step by step; the last step may start a battle)."""
    p = pos["players"][seat]
    if _silent_applies(pos, seat, path):
        p["flags"]["silent"] = True  # reading 3
    if "+blink" in bonuses:
        pos["blinks"] -= 1
    if "+tide" in bonuses:
        p["flags"]["tide"] = True
    if piece == "banner":
        pos["regions"][path[0]]["banners"] -= 1
    else:
        p["archmage"] = None
    _move_on(pos, seat, piece, path, events)


def _move_on(pos, seat, piece, path, events):
    """The lifted piece walks path[1:], paying Ash Winter per step, and ends there or in battle."""
    for r in path[1:]:
        pos["players"][seat]["mana"] -= _step_cost(pos, r)
    final = path[-1]
    if enemy_piece(pos, seat, final):
        _battle(pos, seat, piece, final, path[-2], events)
    else:
        _place(pos, seat, piece, final)


def _cast(pos, seat, spell, args, events):
    p = pos["players"][seat]
    if spell == "fireball":
        r, what = args
        rec = pos["regions"][r]
        if what == "banner":
            rec["banners"] -= 1
        else:
            rec["steps"] += 1
            rec["tower"] = None
            events.append({"destroyed": r})
    elif spell == "siege-flame":
        _structure_step(pos, args[0], events)
    elif spell == "scorch-ward":
        pos["scorched"].append(args[0])
    elif spell == "blink":
        pos["blinks"] += 1
    elif spell == "rift-step":
        pos["regions"][args[0]]["banners"] -= 1
        pos["regions"][args[1]]["banners"] += 1
    elif spell == "gatewalk":
        p["archmage"] = args[0]
    elif spell == "ward-seal":
        pos["regions"][args[0]]["ward"] = {"turns": 1}
    elif spell == "bastion-sigil":
        rec = pos["regions"][args[0]]
        if args[1] == "repair":
            rec["tower"]["damaged"] = False
        else:
            rec["ward"] = {"turns": None}
    elif spell == "ley-shield":
        pos["regions"][args[0]]["shield"] = True
    elif spell == "summon-host":
        _place(pos, seat, "banner", args[0])
    elif spell == "oathbound-retainers":
        # place, then March that Banner one region (reading 4: no movement bonus applies)
        _move_on(pos, seat, "banner", [args[0], args[1]], events)
    elif spell == "phantom-garrison":
        pos["regions"][args[0]]["garrison"] = 1
    else:
        raise AssertionError(spell)


# --------------------------------------------------------------------------------------------
# The round (6.0, RULINGS I7, I8, I16)
# --------------------------------------------------------------------------------------------

def _advance(pos, events):
    """Run the automatic steps until a decision, a chance step with two or more outcomes, or the
    end of the game."""
    while True:
        ph = pos["phase"]
        if ph in ("omen", "objectives"):
            outcomes = _chance_outcomes(pos)
            if len(outcomes) != 1:
                return
            words = outcomes[0].split()
            if ph == "omen":
                _reveal_omen(pos, words[1])
            else:
                _draw_objectives(pos, words[1:])
        elif ph == "income":
            for seat in range(len(pos["players"])):
                gain = income(pos, seat)
                pos["players"][seat]["mana"] += gain
                events.append({"income": seat, "mana": gain})
            _start_turn(pos, 0)
        elif ph == "turn":
            if pos["actions_left"] > 0:
                return
            pos["blinks"] = 0
            pos["scorched"] = []
            if pos["seat"] + 1 < len(pos["players"]):
                _start_turn(pos, pos["seat"] + 1)
            else:
                _end_of_round(pos, events)
        else:  # retreat, return, over
            return


def _start_turn(pos, seat):
    """A new turn: Wards of Ward Seal and Phantom Garrison of this player end at its start
    (10.0 Warding I, Summoning III)."""
    pos["phase"] = "turn"
    pos["seat"] = seat
    pos["actions_left"] = ACTIONS_PER_TURN
    pos["blinks"] = 0
    pos["scorched"] = []
    for rec in pos["regions"].values():
        if rec["player"] != seat:
            continue
        if rec["ward"] is not None and rec["ward"]["turns"] is not None:
            rec["ward"]["turns"] -= 1
            if rec["ward"]["turns"] == 0:
                rec["ward"] = None
        if rec["garrison"] > 0:
            rec["garrison"] -= 1


def objectives_met(pos, seat):
    """13.0 with RULINGS I14 and readings 11-12: the face-up Objectives the player satisfies."""
    n = len(pos["players"])
    met = []
    for o in pos["objectives"]:
        if o == "hold-keep":
            ok = controller(pos, KEEP) == seat
        elif o == "two-ruins":
            ok = ruins_controlled(pos, seat) >= 2
        elif o in ("largest-realm", "largest-network"):
            size = realm_size if o == "largest-realm" else network_size
            mine = size(pos, seat)
            ok = mine > 0 and all(mine > size(pos, j) for j in range(n) if j != seat)
        elif o == "three-towers":
            ok = len(towers_of(pos, seat)) >= 3
        elif o == "linked-outer":
            ok = any(sum(1 for r in g if MAP.ring[r] == "outer") >= 2 for g in groups(pos, seat))
        elif o == "tower-battle":
            ok = pos["players"][seat]["flags"]["tower_win"]
        elif o == "keep-and-inner":
            ok = controller(pos, KEEP) == seat and any(
                controller(pos, r) == seat and MAP.ring[r] == "inner" for r in MAP.adj[KEEP])
        else:
            raise AssertionError(o)
        if ok:
            met.append(o)
    return met


def _score(pos, seat):
    """14.0: (crown, arcana, dominion) gained at the end of the round."""
    crown = (1 if controller(pos, KEEP) == seat else 0) + (1 if objectives_met(pos, seat) else 0)
    arcana = arcana_gain(pos, seat)
    dominion = (1 if realm_size(pos, seat) >= 5 else 0) + (1 if len(towers_of(pos, seat)) >= 3 else 0)
    return crown, arcana, dominion


def tie_break(pos, seats):
    """15.0: highest total of the tracks, then most Towers, then most Ruins; the rest share."""
    def key(s):
        p = pos["players"][s]
        return (p["crown"] + p["arcana"] + p["dominion"], len(towers_of(pos, s)),
                ruins_controlled(pos, s))
    best = max(key(s) for s in seats)
    return [s for s in seats if key(s) == best]


def _end_of_round(pos, events):
    """6.0 END OF ROUND: score, check the win (15.0, RULINGS I8), bring Archmages back
    (RULINGS I11), refresh the Objectives (RULINGS I7), next round."""
    gains = [_score(pos, s) for s in range(len(pos["players"]))]
    for s, (c, a, d) in enumerate(gains):
        p = pos["players"][s]
        p["crown"] += c
        p["arcana"] += a
        p["dominion"] += d
        events.append({"score": s, "crown": c, "arcana": a, "dominion": d})
    reached = [s for s, p in enumerate(pos["players"])
               if sum(p[t] >= THRESHOLD for t in ("crown", "arcana", "dominion")) >= 2]
    if reached or pos["round"] >= pos["rounds"]:
        pos["winners"] = tie_break(pos, reached or list(range(len(pos["players"]))))
        pos["phase"] = "over"
        return
    # the round's marks end (4.0, 8.0 Watchtower, 10.0 Ley Shield)
    for p in pos["players"]:
        p["flags"] = _fresh_flags()
    for rec in pos["regions"].values():
        rec["shield"] = False
        rec["steps"] = 0
        if rec["tower"] is not None:
            rec["tower"]["spent"] = False
    _returns(pos, 0, events)


def _returns(pos, first, events):
    """RULINGS I11: each out-of-play Archmage returns home if no enemy piece is there, else to a
    region its owner controls (a "return" decision with two or more), else it stays out."""
    for seat in range(first, len(pos["players"])):
        p = pos["players"][seat]
        if p["archmage"] is not None:
            continue
        if not enemy_piece(pos, seat, p["home"]):
            p["archmage"] = p["home"]
            continue
        options = [r for r in controlled(pos, seat) if archmage_at(pos, r) is None]
        if len(options) == 1:
            p["archmage"] = options[0]
        elif len(options) >= 2:
            pos["pending"] = {"seat": seat, "options": options}
            pos["phase"] = "return"
            return
    # RULINGS I7: the Objectives are replaced after scoring; then the next round's Omen
    pos["objectives"] = []
    pos["omen"] = None
    pos["round"] += 1
    pos["phase"] = "objectives"


# --------------------------------------------------------------------------------------------
# Counting, random play, files, command line
# --------------------------------------------------------------------------------------------

CHANCE_MODES = ("expanded", "fixed")


def _children(pos, chance):
    if chance == "fixed":
        return [apply(pos, _fixed_outcome(pos))]
    return [apply(pos, o) for o in _chance_outcomes(pos)]


def count(pos, depth: int, chance: str = "expanded", _memo=None) -> int:
    """The number of sequences of `depth` player decisions from pos (see "Counting" above)."""
    if chance not in CHANCE_MODES:
        raise ValueError(f"chance must be one of {CHANCE_MODES}, got {chance!r}")
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
    if _memo is None:
        _memo = {}
    if depth == 0:
        return 1
    if pos["phase"] == "over":
        return 0
    key = (dump(pos), depth)
    if key in _memo:
        return _memo[key]
    if is_chance(pos):
        n = sum(count(c, depth, chance, _memo) for c in _children(pos, chance))
    else:
        n = sum(count(apply(pos, a), depth - 1, chance, _memo) for a in legal_actions(pos))
    _memo[key] = n
    return n


def divide(pos, depth: int, chance: str = "expanded") -> dict:
    """{action: count after it at depth - 1} for a decision position (depth >= 1)."""
    if depth < 1:
        raise ValueError(f"divide needs depth >= 1, got {depth}")
    if is_chance(pos) or pos["phase"] == "over":
        raise ValueError(f"divide needs a player's decision, the phase is {pos['phase']!r}")
    memo = {}
    return {a: count(apply(pos, a), depth - 1, chance, memo) for a in legal_actions(pos)}


def random_play(pos, steps: int, seed) -> dict:
    """Play `steps` decisions with a seeded random choice; chance steps follow the position's
    fixed deck order when it has one, else are drawn at random too."""
    rng = random.Random(seed)
    done = 0
    while done < steps and pos["phase"] != "over":
        if is_chance(pos):
            try:
                outcome = _fixed_outcome(pos)  # follow the seeded decks when the position has them
            except ActionError:
                outcome = rng.choice(_chance_outcomes(pos))
            pos = apply(pos, outcome)
            continue
        acts = legal_actions(pos)
        # prefer acting to ending, so that the game moves on
        choice = rng.choice([a for a in acts if a != "end"] or acts)
        if "end" in acts and rng.random() < 0.1:
            choice = "end"
        pos = apply(pos, choice)
        done += 1
    return pos


def read_counts(path):
    """[(line number, position, {"fixed": {d: n}, "expanded": {d: n}}, covers)]."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                pos = parse(obj["position"])
                counts = {m: {int(d): n for d, n in obj[m].items()} for m in CHANCE_MODES if m in obj}
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise ValueError(f"{path}:{number}: {exc}") from None
            out.append((number, pos, counts, obj.get("covers", "")))
    return out


def _summary(pos):
    """What a position holds, in words (the "covers" of the counts file)."""
    words = [f"round {pos['round']}, phase {pos['phase']}"]
    if pos["phase"] == "turn":
        words.append(f"seat {pos['seat']} with {pos['actions_left']} actions left")
    if pos["omen"]:
        words.append(f"Omen {pos['omen']}")
    roles = [f"{rec['tower']['role']}{' (Damaged)' if rec['tower']['damaged'] else ''} on {r}"
             for r, rec in sorted(pos["regions"].items(), key=lambda kv: MAP.index[kv[0]])
             if rec["tower"] is not None and rec["tower"]["role"] != "none"]
    if roles:
        words.append("Towers: " + ", ".join(roles))
    anchors = sum(rec["anchor"] for rec in pos["regions"].values())
    wards = sum(rec["ward"] is not None for rec in pos["regions"].values())
    if anchors:
        words.append(f"{anchors} Anchors")
    if wards:
        words.append(f"{wards} Wards")
    out = [str(i) for i, p in enumerate(pos["players"]) if p["archmage"] is None]
    if out:
        words.append("Archmage out: seat " + ", ".join(out))
    spells = [f"{i}:{s} {lv}" for i, p in enumerate(pos["players"]) for s, lv in p["spells"].items()
              if lv >= 2]
    if spells:
        words.append("level II+ schools " + ", ".join(spells))
    return "; ".join(words)


def _generated_positions():
    """The positions of tests/data/crownfall_counts.jsonl, with what each covers."""
    out = []
    for n in (2, 3, 4):
        start = new_game(n, seed=100 + n)
        after = apply(start, _fixed_outcome(start))
        after = apply(after, _fixed_outcome(after))
        out.append((after, f"{n} players: the start of round 1 after the set-up draws (seeded decks), "
                           f"RULINGS I2 default Houses and homes"))
    for n, steps, seed in ((2, 16, 4), (2, 18, 7), (2, 16, 5), (3, 24, 3), (4, 30, 3), (4, 30, 0)):
        pos = random_play(new_game(n, seed=200 + n), steps, seed)
        out.append((pos, f"{n} players, mid-game by random_play(new_game({n}, seed={200 + n}), "
                         f"{steps}, {seed}): {_summary(pos)}"))
    # a pending retreat decision: the first one random play meets
    pos, seed = new_game(2, seed=202), 0
    while pos["phase"] != "retreat":
        seed += 1
        pos = random_play(new_game(2, seed=202), 40, seed)
        for steps in range(1, 40):
            pos = random_play(new_game(2, seed=202), steps, seed)
            if pos["phase"] == "retreat":
                break
    out.append((pos, f"2 players, a beaten Archmage's retreat choice by random_play(new_game(2, "
                     f"seed=202), {steps}, {seed}): {_summary(pos)}"))
    return out


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(prog="python -m tests.reference.crownfall",
                                     description="Slow reference action counts for Crownfall.")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("count", help="count action sequences from a position (JSON file)")
    c.add_argument("file")
    c.add_argument("depth", type=int)
    c.add_argument("--chance", choices=CHANCE_MODES, default="expanded")
    c.add_argument("--divide", action="store_true")
    k = sub.add_parser("check", help="recount every line of a counts file")
    k.add_argument("file")
    g = sub.add_parser("generate", help="write the counts file")
    g.add_argument("file")
    args = parser.parse_args(argv)
    try:
        if args.command == "count":
            with open(args.file, encoding="utf-8") as fh:
                pos = parse(fh.read())
            if args.divide:
                counts = divide(pos, args.depth, args.chance)
                for a in sorted(counts):
                    print(f"{a}: {counts[a]}")
                print(f"total: {sum(counts.values())}")
            else:
                print(count(pos, args.depth, args.chance))
            return 0
        if args.command == "check":
            bad = 0
            for number, pos, counts, covers in read_counts(args.file):
                for mode, by_depth in counts.items():
                    for d, n in sorted(by_depth.items()):
                        got = count(pos, d, mode)
                        bad += got != n
                        print(f"line {number} {mode} D{d}: {'ok' if got == n else f'MISMATCH {got} != {n}'}")
            print("all counts agree" if not bad else f"{bad} mismatches")
            return 1 if bad else 0
        with open(args.file, "w", encoding="utf-8") as fh:
            for pos, covers in _generated_positions():
                line = {"covers": covers, "position": pos}
                for mode in CHANCE_MODES:
                    memo = {}
                    line[mode] = {str(d): count(pos, d, mode, memo) for d in (1, 2, 3)}
                fh.write(json.dumps(line, sort_keys=True) + "\n")
                print(line["covers"], line["fixed"], line["expanded"])
        return 0
    except (PositionError, ActionError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
