"""Crownfall positions as JSON (the format of tests/reference/crownfall.py's module docstring, so the
engine and the independent reference can be compared position by position) and the action count.

- ``read_position(data, where="position")``: a CrownfallState at that position; a bad field is a
  PositionError naming it (``position.players[1].mana: expected an integer >= 0, got -1``).
- ``write_position(state)``: the JSON object of a state in a turn, a chance step or a placement.
- ``count(state, depth, chance)``: the number of sequences of ``depth`` player decisions. A decision
  is a turn action, a retreat or a return choice; a March with its continuation steps (RULINGS I13) is
  one decision, as the player chooses the whole path. Chance steps are not decisions: "expanded" sums
  over every outcome (an Omen not yet out; an unordered pair of the Objectives left), "fixed" takes
  the next card of the position's fixed decks (``omen_next`` / ``objective_next``).
- ``divide(state, depth, chance)``: {decision text: count of depth - 1 after it}, the decision texts
  in the reference's grammar (``march banner a>b +blink``, ``cast fireball r tower``, ...).
"""

from __future__ import annotations

from itertools import combinations

from engine.crownfall import actions as A
from engine.crownfall.actions import BONUSES
from engine.crownfall.config import CrownfallConfig, CrownfallConfigError
from engine.crownfall.core import CrownfallCore, CrownfallError
from engine.crownfall.rules import ROLES, CrownfallRules, default_rules
from engine.crownfall.state import CrownfallState

__all__ = ["PositionError", "read_position", "write_position", "count", "divide", "decisions", "chance_children",
           "CHANCE_MODES"]

CHANCE_MODES = ("expanded", "fixed")
PHASES = ("omen", "objectives", "turn", "retreat", "return", "over")
FLAG_NAMES = {"ember": "ember", "tide": "tide", "silent": "silent", "harvest": "harvest", "tower_win": "tower-win"}
BONUS_WORDS = {"blink": "+blink", "tidebound": "+tide"}


class PositionError(ValueError):
    """A position that cannot be read; the message starts with the field at fault."""


def _int(data: dict, key: str, where: str, low: int = 0, high: int | None = None) -> int:
    if key not in data:
        raise PositionError(f"{where}.{key}: missing")
    v = data[key]
    if not isinstance(v, int) or isinstance(v, bool) or v < low or (high is not None and v > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise PositionError(f"{where}.{key}: expected an integer {bound}, got {v!r}")
    return v


def _bool(data: dict, key: str, where: str) -> bool:
    v = data.get(key, False)
    if not isinstance(v, bool):
        raise PositionError(f"{where}.{key}: expected true or false, got {v!r}")
    return v


def _list(data: dict, key: str, where: str, default=...) -> list:
    v = data.get(key, default)
    if v is ...:
        raise PositionError(f"{where}.{key}: missing")
    if not isinstance(v, list):
        raise PositionError(f"{where}.{key}: expected a list, got {v!r}")
    return v


def _card(keys, value, where: str, what: str) -> int:
    if value not in keys:
        raise PositionError(f"{where}: unknown {what} {value!r} (known: {', '.join(keys)})")
    return keys.index(value)


def region_id(m, r: int) -> str:
    """A region's id in the position format: its printed name in lower case, "-" for spaces
    ("Starfall Keep" is starfall-keep), so the ids follow the map data's names."""
    return m.name(r).lower().replace(" ", "-")


def _region(m, value, where: str) -> int:
    ids = [region_id(m, r) for r in range(len(m))]
    if not isinstance(value, str) or value not in ids:
        raise PositionError(f"{where}: unknown region {value!r} (the map's: {', '.join(ids)})")
    return ids.index(value)


def read_position(data, where: str = "position", rules: CrownfallRules | None = None) -> CrownfallState:
    """The state of a position in the reference's JSON format (module docstring)."""
    rules = rules or default_rules()
    m = rules.map
    if not isinstance(data, dict):
        raise PositionError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if data.get("game") != "crownfall":
        raise PositionError(f"{where}.game: expected 'crownfall', got {data.get('game')!r}")
    players = _list(data, "players", where)
    if not 2 <= len(players) <= 4:
        raise PositionError(f"{where}.players: expected 2 to 4 players, got {len(players)}")
    for i, p in enumerate(players):
        if not isinstance(p, dict):
            raise PositionError(f"{where}.players[{i}]: expected an object, got {p!r}")
    homes = [m.key(_region(m, p.get("home"), f"{where}.players[{i}].home")) for i, p in enumerate(players)]
    config = {"players": len(players), "houses": [p.get("house") for p in players], "homes": homes, "rounds": data.get("rounds", 6), "chance": "explicit",
              "seed": 0}
    try:
        cfg = CrownfallConfig.from_json(config, where, rules)
    except CrownfallConfigError as exc:
        raise PositionError(str(exc).replace(f"{where}.houses", f"{where}.players[].house")
                            .replace(f"{where}.homes", f"{where}.players[].home")) from None
    g = CrownfallState.__new__(CrownfallState)
    CrownfallCore.__init__(g, cfg, rules)          # the data only: no set-up draws
    n = g.num_players
    g.round = _int(data, "round", where, 1)
    phase = data.get("phase")
    if phase not in PHASES:
        raise PositionError(f"{where}.phase: expected one of {', '.join(PHASES)}, got {phase!r}")
    # players
    schools = rules.schools
    for i, p in enumerate(players):
        w = f"{where}.players[{i}]"
        g.mana[i] = _int(p, "mana", w)
        g.tracks[i] = [_int(p, t, w) for t in ("crown", "arcana", "dominion")]
        spells = p.get("spells")
        if not isinstance(spells, dict) or set(spells) != set(schools):
            raise PositionError(f"{w}.spells: expected levels of {', '.join(schools)}, got {spells!r}")
        g.levels[i] = [_int(spells, s, f"{w}.spells", 0, 3) for s in schools]
        mage = p.get("archmage")
        g.mage[i] = -1 if mage is None else _region(m, mage, f"{w}.archmage")
        flags = p.get("flags", {})
        if not isinstance(flags, dict):
            raise PositionError(f"{w}.flags: expected an object, got {flags!r}")
        unknown = set(flags) - set(FLAG_NAMES)
        if unknown:
            raise PositionError(f"{w}.flags: unknown flag {sorted(unknown)[0]!r} (known: {', '.join(FLAG_NAMES)})")
        g.flags[i] = g._fresh_flags()
        for k, ours in FLAG_NAMES.items():
            g.flags[i][ours] = _bool(flags, k, f"{w}.flags")
    # regions (controlled ones only)
    g.tower_owner = [-1] * g.R
    regions = data.get("regions", {})
    if not isinstance(regions, dict):
        raise PositionError(f"{where}.regions: expected an object of region records, got {regions!r}")
    g.turns_started = [0] * n
    for key, rec in regions.items():
        r = _region(m, key, f"{where}.regions")
        w = f"{where}.regions.{key}"
        if not isinstance(rec, dict):
            raise PositionError(f"{w}: expected an object, got {rec!r}")
        p = _int(rec, "player", w, 0, n - 1)
        b = _int(rec, "banners", w, 0, rules.banners)
        if b:
            g.banners[r], g.banner_owner[r] = b, p
        tower = rec.get("tower")
        if tower is not None:
            if not isinstance(tower, dict):
                raise PositionError(f"{w}.tower: expected null or an object, got {tower!r}")
            role = tower.get("role")
            if role != "none" and role not in ROLES:
                raise PositionError(f"{w}.tower.role: expected none or one of {', '.join(ROLES)}, got {role!r}")
            g.tower_owner[r], g.tower_role[r] = p, (-1 if role == "none" else ROLES.index(role))
            g.damaged[r] = _bool(tower, "damaged", f"{w}.tower")
            if _bool(tower, "spent", f"{w}.tower"):
                g.watch_used.add(r)
        elif not b:
            raise PositionError(f"{w}: a controlled region needs a Banner or a Tower (RULINGS I3)")
        if _bool(rec, "anchor", w):
            g.anchor[r] = p
        ward = rec.get("ward")
        if ward is not None:
            if not isinstance(ward, dict) or "turns" not in ward:
                raise PositionError(f"{w}.ward: expected null or {{\"turns\": n or null}}, got {ward!r}")
            g.ward[r] = (p, None if ward["turns"] is None else _int(ward, "turns", f"{w}.ward", 1))
        garrison = _int(rec, "garrison", w, 0, 1) if "garrison" in rec else 0
        if garrison:
            g.garrison[r] = (p, garrison)
        if _bool(rec, "shield", w):
            g.shield[r] = p
        g.shield_steps[r] = _int(rec, "steps", w) if "steps" in rec else 0
    for p in range(n):
        on_map = [sum(g.banners[r] for r in range(g.R) if g.banner_owner[r] == p),
                  sum(g.tower_owner[r] == p for r in range(g.R)), sum(g.anchor[r] == p for r in range(g.R))]
        limits = [rules.banners, rules.towers, rules.anchors]
        for what, used, limit in zip(("Banners", "Towers", "Anchors"), on_map, limits):
            if used > limit:
                raise PositionError(f"{where}.regions: player {p} has {used} {what} on the map, more than {limit}")
        g.reserve_banners[p] = rules.banners - on_map[0]
        g.reserve_towers[p] = rules.towers - on_map[1]
        g.reserve_anchors[p] = rules.anchors - on_map[2]
    # decks
    omen_keys = [c.key for c in rules.omens]
    obj_keys = [c.key for c in rules.objectives]
    omen = data.get("omen")
    g.omen = -1 if omen is None else _card(omen_keys, omen, f"{where}.omen", "Omen")
    g.omen_seen = [_card(omen_keys, o, f"{where}.omens_seen[{i}]", "Omen")
                   for i, o in enumerate(_list(data, "omens_seen", where))]
    g.objectives = [_card(obj_keys, o, f"{where}.objectives[{i}]", "Objective")
                    for i, o in enumerate(_list(data, "objectives", where))]
    g.objective_pile = [_card(obj_keys, o, f"{where}.objective_deck[{i}]", "Objective")
                        for i, o in enumerate(_list(data, "objective_deck", where))]
    for key, keys in (("omen_next", omen_keys), ("objective_next", obj_keys)):
        nxt = data.get(key)
        if nxt is not None:
            for i, o in enumerate(_list(data, key, where)):
                _card(keys, o, f"{where}.{key}[{i}]", "card")
    g.fixed_decks = (data.get("omen_next"), data.get("objective_next"))
    # the step
    # the set-up (RULINGS I7): an Omen step with no Objectives yet is followed by their first draw
    g.setup_done = not (phase == "omen" and not g.objectives)
    g.blink = _int(data, "blinks", where) if "blinks" in data else 0
    g.scorch = {_region(m, r, f"{where}.scorched[{i}]") for i, r in enumerate(_list(data, "scorched", where, []))}
    seat = _int(data, "seat", where, 0, n - 1) if "seat" in data else 0
    g.current = seat
    g.order_index = (seat - ((g.round - 1) % n if cfg.rotate else 0)) % n
    g.actions_left = 0
    if phase == "turn":
        g.stage = "turn"
        g.actions_left = _int(data, "actions_left", where, 1, rules.actions)
    elif phase == "omen":
        g.stage = "omen"
    elif phase == "objectives":
        g.stage = "objective"
        if not g.objective_pile:
            g.objective_pile = [c for c in g.objective_deck if c not in g.objectives]
    elif phase in ("retreat", "return"):
        pending = data.get("pending")
        if not isinstance(pending, dict):
            raise PositionError(f"{where}.pending: the phase {phase} needs {{\"seat\": s, \"options\": [...]}}")
        who = _int(pending, "seat", f"{where}.pending", 0, n - 1)
        options = tuple(_region(m, r, f"{where}.pending.options[{i}]")
                        for i, r in enumerate(_list(pending, "options", f"{where}.pending")))
        if len(options) < 2:
            raise PositionError(f"{where}.pending.options: a choice needs at least two regions")
        g.stage = "place"
        g.places = [(who, phase, options)]
        g.place_options = list(options)
        g.after_places = "returns" if phase == "return" else "turn"
        g.actions_left = (_int(data, "actions_left", where, 0, rules.actions)
                          if phase == "retreat" and "actions_left" in data else 0)
    else:
        g.stage = "over"
        g.winners = tuple(_int({"winners[]": s}, "winners[]", where, 0, n - 1)
                          for s in _list(data, "winners", where))
    g._legal = None
    return g


def write_position(g: CrownfallState) -> dict:
    """The reference's JSON position of a state (the inverse of read_position)."""
    m, rules = g.rules.map, g.rules
    stage = g.stage
    phase = {"omen": "omen", "objective": "objectives", "turn": "turn", "march": "turn", "over": "over"}.get(stage)
    pending = None
    if stage == "place":
        who, phase, options = g.places[0]
        pending = {"seat": who, "options": [region_id(m, r) for r in options]}
    players = []
    for p in range(g.num_players):
        players.append({
            "house": g.houses[p].key, "home": region_id(m, g.home[p]), "mana": g.mana[p],
            "crown": g.tracks[p][0], "arcana": g.tracks[p][1], "dominion": g.tracks[p][2],
            "spells": {s: g.levels[p][i] for i, s in enumerate(rules.schools)},
            "archmage": region_id(m, g.mage[p]) if g.mage[p] >= 0 else None,
            "flags": {k: bool(g.flags[p][ours]) for k, ours in FLAG_NAMES.items()}})
    regions = {}
    for r in range(g.R):
        p = g.owner(r)
        if p < 0:
            continue
        ward = g.ward[r]
        regions[region_id(m, r)] = {
            "player": p, "banners": g.banners[r],
            "tower": None if g.tower_owner[r] < 0 else {
                "role": ROLES[g.tower_role[r]] if g.tower_role[r] >= 0 else "none", "damaged": g.damaged[r],
                "spent": r in g.watch_used},
            "anchor": g.anchor[r] == p,
            "ward": None if ward is None else {"turns": None if ward[1] is None else ward[1] - g.turns_started[p]},
            "garrison": 0 if g.garrison[r] is None else g.garrison[r][1] - g.turns_started[p],
            "shield": g.shield[r] == p, "steps": g.shield_steps[r]}
    omen_next, objective_next = getattr(g, "fixed_decks", (None, None))
    return {"game": "crownfall", "round": g.round, "rounds": g.config.rounds, "phase": phase,
            "seat": g.current, "actions_left": g.actions_left, "blinks": g.blink,
            "scorched": sorted(region_id(m, r) for r in g.scorch), "pending": pending,
            "omen": None if stage == "omen" else g.omen_key(), "omens_seen": [rules.omens[c].key for c in g.omen_seen],
            "objectives": [rules.objectives[c].key for c in g.objectives],
            "objective_deck": [rules.objectives[c].key for c in sorted(g.objective_pile)],
            "omen_next": None if omen_next is None else list(omen_next),
            "objective_next": None if objective_next is None else list(objective_next),
            "winners": list(g.winners), "players": players, "regions": regions}


# -- decisions and counting ------------------------------------------------------------------------------
def _text(g: CrownfallState, action: int) -> str:
    """One action of a decision in the reference's grammar (a March's start: its first step only)."""
    m, rules = g.rules.map, g.rules
    kind = A.decode(action, g.R)
    name = kind[0]
    if name == "end":
        return "end"
    if name == "march-banner":
        return f"march banner {region_id(m, kind[1])}>{region_id(m, kind[2])}"
    if name == "march-mage":
        return f"march archmage {region_id(m, g.mage[g.current])}>{region_id(m, kind[1])}"
    if name == "raise":
        return f"raise {region_id(m, kind[1])}"
    if name == "fortify":
        return f"fortify {region_id(m, kind[1])} {ROLES[kind[2]]}"
    if name == "anchor":
        return f"anchor {region_id(m, kind[1])}"
    if name == "research":
        return f"research {rules.schools[kind[1]]}"
    if name == "place":
        return f"{g.places[0][1]} {region_id(m, kind[1])}"
    if name == "cast":
        _, spell, a, b, option = kind
        key = rules.spells[spell].key
        if key == "blink":
            return "cast blink"
        if key == "fireball":
            return f"cast fireball {region_id(m, a)} {('banner', 'tower')[option]}"
        if key == "bastion-sigil":
            return f"cast bastion-sigil {region_id(m, a)} {('repair', 'ward')[option]}"
        if key == "gatewalk":
            return f"cast gatewalk {region_id(m, b)}"
        if key in ("rift-step", "oathbound-retainers"):
            return f"cast {key} {region_id(m, a)} {region_id(m, b)}"
        return f"cast {key} {region_id(m, a)}"
    raise AssertionError(kind)


def decisions(g: CrownfallState) -> list[tuple[str, CrownfallState]]:
    """Every complete decision of the player to act, as (text, state after it). A March and the steps
    it goes on with are one decision (its text is the path with the named extras, RULINGS I13)."""
    out = []
    for a in g.legal_actions():
        text = _text(g, a)
        child = g.clone()
        child.apply(a)
        if A.decode(a, g.R)[0] in ("march-banner", "march-mage") and child.stage == "march":
            out += _continue(child, text, [])
        else:
            out.append((text, child))
    return out


def _march_text(text: str, steps: list[tuple[str, str]]) -> str:
    path = text + "".join(f">{to}" for _, to in steps)
    extras = sorted((BONUS_WORDS[b] for b, _ in steps if b in BONUS_WORDS), key=lambda w: w != "+blink")
    return " ".join([path] + extras)


def _continue(g: CrownfallState, text: str, steps: list) -> list[tuple[str, CrownfallState]]:
    out = []
    for a in g.legal_actions():
        child = g.clone()
        child.apply(a)
        if a == A.STOP:
            out.append((_march_text(text, steps), child))
            continue
        _, bonus, to = A.decode(a, g.R)
        more = steps + [(BONUSES[bonus], region_id(g.rules.map, to))]
        if child.stage == "march" and child.current == g.current:
            out += _continue(child, text, more)
        else:
            out.append((_march_text(text, more), child))
    return out


def chance_children(g: CrownfallState, chance: str) -> list[CrownfallState]:
    rules = g.rules
    omen_next, objective_next = getattr(g, "fixed_decks", (None, None))
    if g.stage == "omen":
        if chance == "fixed":
            if not omen_next:
                raise PositionError("position.omen_next: the fixed chance mode needs the Omen stack's order")
            card = rules.omen(omen_next[0])
            if card not in g.chance_cards():
                raise PositionError(f"position.omen_next[0]: {omen_next[0]!r} is not an Omen left to reveal")
            child = g.clone()
            child.fixed_decks = (omen_next[1:], objective_next)
            child.apply(card)
            return [child]
        out = []
        for card in g.chance_cards():
            child = g.clone()
            head = bool(omen_next) and rules.omen(omen_next[0]) == card
            child.fixed_decks = (omen_next[1:] if head else None, objective_next)
            child.apply(card)
            out.append(child)
        return out
    # the Objectives: the two cards of a draw form one unordered outcome
    if chance == "fixed":
        if not objective_next:
            raise PositionError("position.objective_next: the fixed chance mode needs the Objective deck's order")
        child = g.clone()
        child.apply(rules.objective(objective_next[0]))
        rest = objective_next[1:]
        if child.stage == "objective":
            child.apply(rules.objective(rest[0]))
            rest = rest[1:]
        child.fixed_decks = (omen_next, rest)
        return [child]
    pile = g.chance_cards()
    if len(g.objectives) == 1 or len(pile) == 1:
        pairs = [(c,) for c in pile]
    else:
        pairs = list(combinations(sorted(pile), 2))
    out = []
    for pair in pairs:
        child = g.clone()
        head = objective_next is not None and len(objective_next) >= len(pair) and sorted(
            rules.objective(k) for k in objective_next[:len(pair)]) == sorted(pair)
        child.fixed_decks = (omen_next, objective_next[len(pair):] if head else None)
        child.apply(pair[0])
        for c in pair[1:]:
            if child.stage != "objective":
                break
            child.apply(c)
        if child.stage == "objective":                   # a single card left: the reshuffled deck follows
            out += chance_children(child, chance)
        else:
            out.append(child)
    return out


def count(g: CrownfallState, depth: int, chance: str = "expanded") -> int:
    """The number of sequences of ``depth`` player decisions from g (module docstring)."""
    if chance not in CHANCE_MODES:
        raise ValueError(f"chance must be one of {', '.join(CHANCE_MODES)}, got {chance!r}")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"depth must be an integer >= 0, got {depth!r}")
    return _count(g, depth, chance)


def _count(g: CrownfallState, depth: int, chance: str) -> int:
    if depth == 0:
        return 1
    if g.stage == "over":
        return 0
    if g.is_chance_node():
        return sum(_count(c, depth, chance) for c in chance_children(g, chance))
    if depth == 1:
        return len(decisions(g))
    return sum(_count(c, depth - 1, chance) for _, c in decisions(g))


def divide(g: CrownfallState, depth: int, chance: str = "expanded") -> dict[str, int]:
    """{decision text: count of depth - 1 after it} at a player's decision (depth >= 1)."""
    if depth < 1:
        raise ValueError(f"divide needs depth >= 1, got {depth}")
    if g.is_chance_node() or g.stage == "over":
        raise ValueError(f"divide needs a player's decision, the stage is {g.stage!r}")
    out: dict[str, int] = {}
    for text, child in decisions(g):
        if text in out:
            raise CrownfallError(f"two decisions have the text {text!r}")
        out[text] = count(child, depth - 1, chance)
    return out
