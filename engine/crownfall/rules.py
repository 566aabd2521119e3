"""Crownfall's data: the map (engine/data/crownfall_map.toml, RULINGS I1, PROVISIONAL) and the game's
numbers (engine/data/crownfall.toml: pieces, costs, Houses, spells, Tower roles, Omens, Objectives,
scoring, the automated set-ups of RULINGS I2). Both are checked on load: a malformed file raises
CrownfallRulesError naming the file, the entry and the field (``crownfall_map.toml: region[3]
'old-abbey'.adjacent: unknown region 'eastfjord'``), so an owner can enter the printed map safely.

>>> rules = default_rules()
>>> rules.map.name(rules.map.index("keep")), len(rules.map), [rules.map.key(r) for r in rules.map.ruins]
('Starfall Keep', 13, ['dawnmere', 'old-abbey', 'south-barrow'])
>>> load_map_text('[[region]]\\nkey = "a"\\nname = "A"\\nring = "keep"\\nadjacent = ["b"]\\n', "m.toml")
Traceback (most recent call last):
...
engine.crownfall.rules.CrownfallRulesError: m.toml: region[0] 'a'.adjacent: unknown region 'b'
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["CrownfallRulesError", "CrownfallMap", "CrownfallRules", "Spell", "House", "Card", "load_map_text",
           "load_rules_text", "default_rules", "load_rules", "ROLES", "SCHOOLS", "PASSIVES", "OMENS", "OBJECTIVES",
           "SPELLS"]

#: What the code knows how to do: each data entry's key must be one of these (its behaviour is code).
ROLES = ("stronghold", "sanctum", "watchtower", "beacon")
SCHOOLS = ("war", "travel", "warding", "summoning")
SPELLS = ("fireball", "siege-flame", "scorch-ward", "blink", "rift-step", "gatewalk", "ward-seal",
          "bastion-sigil", "ley-shield", "summon-host", "oathbound-retainers", "phantom-garrison")
PASSIVES = ("tower-assault", "ruin-arcana", "redwall", "outer-march")
OMENS = ("ash-winter", "bright-surge", "red-harvest", "silent-roads", "open-veins", "gloam-tide",
         "ash-wind", "bell-echo", "ruin-bloom", "coastal-pull", "cracked-roads", "long-dusk")
OBJECTIVES = ("hold-keep", "two-ruins", "largest-realm", "largest-network", "three-towers", "linked-outer",
              "tower-battle", "keep-and-inner", "sanctum-chain", "bell-and-banner", "broken-gate",
              "ward-the-heart", "outer-dominion", "four-corners", "high-arcana")
RINGS = ("keep", "inner", "outer")
_KEY = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class CrownfallRulesError(ValueError):
    """A Crownfall data file that cannot be used; the message names the file, the entry and the field."""


class _Reader:
    """Typed field access with located errors."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, message: str):
        raise CrownfallRulesError(f"{self.source}: {where}: {message}")

    def table(self, data: Any, where: str) -> dict:
        if not isinstance(data, dict):
            self.fail(where, f"expected a table, got {type(data).__name__}")
        return data

    def field(self, data: dict, name: str, kind, where: str, default: Any = ...):
        if name not in data:
            if default is ...:
                self.fail(f"{where}.{name}" if where else name, "missing")
            return default
        value = data[name]
        ok = (isinstance(value, bool) if kind is bool else
              isinstance(value, int) and not isinstance(value, bool) if kind is int else isinstance(value, kind))
        if not ok:
            self.fail(f"{where}.{name}" if where else name,
                      f"expected {kind.__name__ if kind is not list else 'a list'}, got {value!r}")
        return value

    def count(self, data: dict, name: str, where: str, low: int = 0, default: Any = ...) -> int:
        value = self.field(data, name, int, where, default)
        if value < low:
            self.fail(f"{where}.{name}", f"expected an integer >= {low}, got {value}")
        return value

    def unknown(self, data: dict, known: tuple, where: str):
        for name in data:
            if name not in known:
                self.fail(f"{where}.{name}" if where else name, f"unknown field (known: {', '.join(known)})")


@dataclass(frozen=True)
class CrownfallMap:
    """The regions in map order: ``keys``, ``names``, ``rings``, ``ruin`` flags, ``adjacent`` (a sorted
    tuple of region ids per region), the Keep's id and the ids of the inner and outer regions."""

    keys: tuple[str, ...]
    names: tuple[str, ...]
    rings: tuple[str, ...]
    ruin: tuple[bool, ...]
    adjacent: tuple[tuple[int, ...], ...]
    source: str

    def __len__(self) -> int:
        return len(self.keys)

    def index(self, key: str) -> int:
        return self.keys.index(key)

    def key(self, region: int) -> str:
        return self.keys[region]

    def name(self, region: int) -> str:
        return self.names[region]

    @functools.cached_property
    def keep(self) -> int:
        return self.rings.index("keep")

    @functools.cached_property
    def ruins(self) -> tuple[int, ...]:
        return tuple(r for r in range(len(self)) if self.ruin[r])

    @functools.cached_property
    def outer(self) -> tuple[bool, ...]:
        return tuple(ring == "outer" for ring in self.rings)

    @functools.cached_property
    def inner(self) -> tuple[bool, ...]:
        return tuple(ring == "inner" for ring in self.rings)

    @functools.cached_property
    def adjacency(self) -> tuple[frozenset, ...]:
        return tuple(frozenset(a) for a in self.adjacent)

    @functools.cached_property
    def rings4(self) -> tuple[frozenset, ...]:
        """Every set of four regions that forms a cycle of the map (Four Corners' "ring path")."""
        found = set()
        n, adj = len(self), self.adjacency
        for a in range(n):
            for b in adj[a]:
                for c in adj[b]:
                    if c == a:
                        continue
                    for d in adj[c]:
                        if d not in (a, b) and a in adj[d]:
                            found.add(frozenset((a, b, c, d)))
        return tuple(sorted(found, key=sorted))


def load_map_text(text: str, source: str = "crownfall_map.toml") -> CrownfallMap:
    """A map from TOML text; CrownfallRulesError names what is wrong and where."""
    r = _Reader(source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CrownfallRulesError(f"{source}: not valid TOML ({exc})") from None
    r.unknown(data, ("provisional", "region"), "")
    regions = r.field(data, "region", list, "")
    if not regions:
        r.fail("region", "no regions")
    keys, names, rings, ruins, lists = [], [], [], [], []
    for i, entry in enumerate(regions):
        where = f"region[{i}]"
        r.table(entry, where)
        key = r.field(entry, "key", str, where)
        where = f"region[{i}] {key!r}"
        r.unknown(entry, ("key", "name", "ring", "ruin", "adjacent"), where)
        if not _KEY.match(key):
            r.fail(f"{where}.key", "use lower case letters, digits and '-'")
        if key in keys:
            r.fail(f"{where}.key", f"duplicate key (also region[{keys.index(key)}])")
        name = r.field(entry, "name", str, where)
        if not name.strip():
            r.fail(f"{where}.name", "empty")
        if name in names:
            r.fail(f"{where}.name", f"duplicate name {name!r} (also region[{names.index(name)}])")
        ring = r.field(entry, "ring", str, where)
        if ring not in RINGS:
            r.fail(f"{where}.ring", f"expected one of {', '.join(RINGS)}, got {ring!r}")
        keys.append(key)
        names.append(name)
        rings.append(ring)
        ruins.append(r.field(entry, "ruin", bool, where, False))
        lists.append(r.field(entry, "adjacent", list, where))
    if rings.count("keep") != 1:
        r.fail("region", f"expected exactly one region with ring = \"keep\", found {rings.count('keep')}")
    adjacent = []
    for i, near in enumerate(lists):
        where = f"region[{i}] {keys[i]!r}.adjacent"
        ids = []
        for other in near:
            if not isinstance(other, str) or other not in keys:
                r.fail(where, f"unknown region {other!r}")
            j = keys.index(other)
            if j == i:
                r.fail(where, "a region cannot touch itself")
            if j in ids:
                r.fail(where, f"{other!r} is listed twice")
            ids.append(j)
        adjacent.append(ids)
    for i, ids in enumerate(adjacent):
        for j in ids:
            if i not in adjacent[j]:
                r.fail(f"region[{i}] {keys[i]!r}.adjacent",
                       f"touches {keys[j]!r} but {keys[j]!r} does not list {keys[i]!r} (an edge is listed on both sides)")
    # Every region reachable: a map in pieces is a typing error.
    seen, todo = {0}, [0]
    while todo:
        for j in adjacent[todo.pop()]:
            if j not in seen:
                seen.add(j)
                todo.append(j)
    if len(seen) != len(keys):
        cut = [keys[i] for i in range(len(keys)) if i not in seen]
        r.fail("region", f"the map is not connected: {', '.join(cut)} cannot be reached from {keys[0]!r}")
    return CrownfallMap(tuple(keys), tuple(names), tuple(rings), tuple(ruins),
                        tuple(tuple(sorted(a)) for a in adjacent), source)


@dataclass(frozen=True)
class Spell:
    index: int
    key: str
    name: str
    school: int
    level: int
    cost: int


@dataclass(frozen=True)
class House:
    key: str
    name: str
    school: int
    passive: str


@dataclass(frozen=True)
class Card:
    """An Omen or an Objective: ``key`` (its behaviour), ``name``, ``advanced`` (X.C / X.D pool),
    ``outer`` (an Objective tied to outer regions)."""

    key: str
    name: str
    advanced: bool
    outer: bool = False


@dataclass(frozen=True)
class CrownfallRules:
    """Everything of Crownfall that is data (engine/data/crownfall.toml's comment explains each field)."""

    map: CrownfallMap
    banners: int
    towers: int
    anchors: int
    towers_placed: int
    start_mana: int
    research_cost: int
    anchor_cost: int
    actions: int
    rounds: int
    income: dict
    threshold: int
    tracks_to_win: int
    realm: int
    tower_goal: int
    watchtower_cap: int
    stronghold: int
    redwall_stronghold: int
    watchtower_support: int
    roles: tuple[str, ...]
    role_names: tuple[str, ...]
    schools: tuple[str, ...]
    school_names: tuple[str, ...]
    spells: tuple[Spell, ...]
    houses: tuple[House, ...]
    omens: tuple[Card, ...]
    objectives: tuple[Card, ...]
    coastal_region: int
    defaults: dict
    source: str

    def house(self, key: str) -> House:
        return next(h for h in self.houses if h.key == key)

    def spell(self, key: str) -> Spell:
        return next(s for s in self.spells if s.key == key)

    def spell_at(self, school: int, level: int) -> Spell:
        return next(s for s in self.spells if s.school == school and s.level == level)

    def omen(self, key: str) -> int:
        return next(i for i, c in enumerate(self.omens) if c.key == key)

    def objective(self, key: str) -> int:
        return next(i for i, c in enumerate(self.objectives) if c.key == key)


def _keyed(r: _Reader, data: dict, table: str, allowed: tuple, fields: tuple) -> list[tuple[str, dict, str]]:
    entries = r.field(data, table, list, "")
    out, keys = [], []
    for i, entry in enumerate(entries):
        where = f"{table}[{i}]"
        r.table(entry, where)
        key = r.field(entry, "key", str, where)
        where = f"{table}[{i}] {key!r}"
        r.unknown(entry, ("key", *fields), where)
        if key not in allowed:
            r.fail(f"{where}.key", f"not a {table} the engine knows (known: {', '.join(allowed)})")
        if key in keys:
            r.fail(f"{where}.key", "duplicate")
        keys.append(key)
        out.append((key, entry, where))
    return out


def load_rules_text(text: str, game_map: CrownfallMap, source: str = "crownfall.toml") -> CrownfallRules:
    """The game's numbers from TOML text on ``game_map``; CrownfallRulesError names what is wrong and where."""
    r = _Reader(source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CrownfallRulesError(f"{source}: not valid TOML ({exc})") from None
    r.unknown(data, ("pieces", "costs", "turn", "income", "scoring", "battle", "omens", "role", "school", "spell",
                     "house", "omen", "objective", "defaults"), "")
    pieces = r.table(r.field(data, "pieces", dict, ""), "pieces")
    r.unknown(pieces, ("banners", "towers", "anchors", "towers_placed", "mana"), "pieces")
    costs = r.field(data, "costs", dict, "")
    r.unknown(costs, ("research", "anchor", "anchor_provisional"), "costs")
    turn = r.field(data, "turn", dict, "")
    r.unknown(turn, ("actions", "rounds"), "turn")
    income = r.field(data, "income", dict, "")
    r.unknown(income, ("base", "per_ruin", "per_sanctum", "keep_network", "bright_surge"), "income")
    scoring = r.field(data, "scoring", dict, "")
    r.unknown(scoring, ("threshold", "tracks_to_win", "realm", "towers"), "scoring")
    battle = r.field(data, "battle", dict, "")
    r.unknown(battle, ("watchtower_cap",), "battle")
    omens_table = r.field(data, "omens", dict, "")
    r.unknown(omens_table, ("coastal_region",), "omens")
    coastal = r.field(omens_table, "coastal_region", str, "omens")
    if coastal not in game_map.keys:
        r.fail("omens.coastal_region", f"unknown region {coastal!r} (the map's: {', '.join(game_map.keys)})")

    roles = _keyed(r, data, "role", ROLES, ("name", "defense", "redwall_defense", "support"))
    if [k for k, _, _ in roles] != list(ROLES):
        r.fail("role", f"expected the roles {', '.join(ROLES)} in this order")
    role_data = {k: e for k, e, _ in roles}
    schools = _keyed(r, data, "school", SCHOOLS, ("name",))
    if [k for k, _, _ in schools] != list(SCHOOLS):
        r.fail("school", f"expected the schools {', '.join(SCHOOLS)} in this order")
    school_keys = [k for k, _, _ in schools]
    spells = []
    for key, entry, where in _keyed(r, data, "spell", SPELLS, ("name", "school", "level", "cost")):
        school = r.field(entry, "school", str, where)
        if school not in school_keys:
            r.fail(f"{where}.school", f"unknown school {school!r}")
        level = r.count(entry, "level", where, 1)
        if level > 3:
            r.fail(f"{where}.level", f"expected 1, 2 or 3, got {level}")
        spells.append(Spell(len(spells), key, r.field(entry, "name", str, where), school_keys.index(school), level,
                            r.count(entry, "cost", where)))
    if [s.key for s in spells] != list(SPELLS):
        r.fail("spell", f"expected the twelve spells {', '.join(SPELLS)} in this order")
    for s in spells:
        if (s.school, s.level) != (SPELLS.index(s.key) // 3, SPELLS.index(s.key) % 3 + 1):
            r.fail(f"spell {s.key!r}", "its school or level differs from the one its behaviour is written for")
    houses = []
    for key, entry, where in _keyed(r, data, "house", ("emberglass", "briar", "redwall", "tidebound"),
                                    ("name", "school", "passive")):
        school = r.field(entry, "school", str, where)
        if school not in school_keys:
            r.fail(f"{where}.school", f"unknown school {school!r}")
        passive = r.field(entry, "passive", str, where)
        if passive not in PASSIVES:
            r.fail(f"{where}.passive", f"unknown passive {passive!r} (known: {', '.join(PASSIVES)})")
        houses.append(House(key, r.field(entry, "name", str, where), school_keys.index(school), passive))
    omens = [Card(k, r.field(e, "name", str, w), r.field(e, "advanced", bool, w, False))
             for k, e, w in _keyed(r, data, "omen", OMENS, ("name", "advanced"))]
    objectives = [Card(k, r.field(e, "name", str, w), r.field(e, "advanced", bool, w, False),
                       r.field(e, "outer", bool, w, False))
                  for k, e, w in _keyed(r, data, "objective", OBJECTIVES, ("name", "advanced", "outer"))]
    if not any(not c.advanced for c in omens) or not any(not c.advanced for c in objectives):
        r.fail("omen/objective", "the base pools (advanced = false) cannot be empty")
    if sum(not c.advanced for c in objectives) < 2:
        r.fail("objective", "at least two base Objectives are needed (two are face up)")
    defaults = {}
    table = r.field(data, "defaults", dict, "")
    house_keys = [h.key for h in houses]
    for count, seats in table.items():
        where = f"defaults.{count}"
        if count not in ("2", "3", "4") or not isinstance(seats, list) or len(seats) != int(count):
            r.fail(where, "expected the player counts 2, 3, 4 with one [house, home] per seat")
        for i, seat in enumerate(seats):
            if (not isinstance(seat, list) or len(seat) != 2 or seat[0] not in house_keys
                    or seat[1] not in game_map.keys or game_map.rings[game_map.index(seat[1])] != "outer"):
                r.fail(f"{where}[{i}]", f"expected [house, outer region], got {seat!r}")
        if len({s[0] for s in seats}) != len(seats) or len({s[1] for s in seats}) != len(seats):
            r.fail(where, "each seat needs a different House and a different home")
        defaults[int(count)] = tuple((s[0], s[1]) for s in seats)
    for count in (2, 3, 4):
        if count not in defaults:
            r.fail("defaults", f"missing the set-up of {count} players")
    threshold = r.count(scoring, "threshold", "scoring", 1)
    tracks = r.count(scoring, "tracks_to_win", "scoring", 1)
    if tracks > 3:
        r.fail("scoring.tracks_to_win", f"there are three tracks, got {tracks}")
    towers = r.count(pieces, "towers", "pieces", 1)
    placed = r.count(pieces, "towers_placed", "pieces", 1)
    if placed != 1 or towers < placed:
        r.fail("pieces.towers_placed", "the set-up places exactly one Tower (the Home Tower) from the Towers")
    return CrownfallRules(
        map=game_map, banners=r.count(pieces, "banners", "pieces"), towers=towers,
        anchors=r.count(pieces, "anchors", "pieces"), towers_placed=placed, start_mana=r.count(pieces, "mana", "pieces"),
        research_cost=r.count(costs, "research", "costs"), anchor_cost=r.count(costs, "anchor", "costs"),
        actions=r.count(turn, "actions", "turn", 1), rounds=r.count(turn, "rounds", "turn", 1),
        income={k: r.count(income, k, "income") for k in ("base", "per_ruin", "per_sanctum", "keep_network",
                                                            "bright_surge")},
        threshold=threshold, tracks_to_win=tracks, realm=r.count(scoring, "realm", "scoring", 1),
        tower_goal=r.count(scoring, "towers", "scoring", 1),
        watchtower_cap=r.count(battle, "watchtower_cap", "battle"),
        stronghold=r.count(role_data["stronghold"], "defense", "role[0] 'stronghold'"),
        redwall_stronghold=r.count(role_data["stronghold"], "redwall_defense", "role[0] 'stronghold'"),
        watchtower_support=r.count(role_data["watchtower"], "support", "role[2] 'watchtower'"),
        roles=ROLES, role_names=tuple(r.field(e, "name", str, w) for _, e, w in roles),
        schools=tuple(school_keys), school_names=tuple(r.field(e, "name", str, w) for _, e, w in schools),
        spells=tuple(spells), houses=tuple(houses), omens=tuple(omens), objectives=tuple(objectives),
        coastal_region=game_map.index(coastal), defaults=defaults, source=source)


def load_rules(rules_path: str | Path, map_path: str | Path) -> CrownfallRules:
    """The rules from two files (an owner's own map, say); errors name the file."""
    game_map = load_map_text(Path(map_path).read_text(encoding="utf-8"), Path(map_path).name)
    return load_rules_text(Path(rules_path).read_text(encoding="utf-8"), game_map, Path(rules_path).name)


@functools.cache
def default_rules() -> CrownfallRules:
    """The shipped data: engine/data/crownfall_map.toml and engine/data/crownfall.toml."""
    folder = resources.files("engine.data")
    game_map = load_map_text(folder.joinpath("crownfall_map.toml").read_text(encoding="utf-8"),
                             "engine/data/crownfall_map.toml")
    return load_rules_text(folder.joinpath("crownfall.toml").read_text(encoding="utf-8"), game_map,
                           "engine/data/crownfall.toml")
