"""Crownfall's turn: the round (6.0: Omen, Income, turns, end of round), every action (7.0, 10.0),
battles (9.0), scoring (14.0) and the end (15.0), with the readings of RULINGS I1-I20 and of
docs/crownfall.md. ``legal_actions(g)`` lists the decision's actions, ``apply_action`` /
``apply_chance`` change the state, ``settle`` runs what needs nobody (income, turn ends, scoring, an
automatic draw) until the next decision.
"""

from __future__ import annotations

from engine.crownfall import actions as A
from engine.crownfall.core import SANCTUM, SEATS, CrownfallCore, battle_totals

__all__ = ["legal_actions", "apply_action", "apply_chance", "settle", "objective_met", "spell_cost", "anchor_cost",
           "mana_cost", "march_steps", "score_round"]

BLINK, TIDE, SILENT, COASTAL = range(4)
#: The order a March spends its bonuses in (march_steps).
BONUS_ORDER = (SILENT, BLINK, TIDE, COASTAL)


# -- what may be done ------------------------------------------------------------------------------
def spell_cost(g: CrownfallCore, p: int, spell) -> int:
    cost = spell.cost
    if g.omen_key() == "ash-wind" and spell.school == 0 and not g.flags[p]["ash-wind"]:
        cost = max(0, cost - 1)
    return cost


def _step_cost(g: CrownfallCore, t: int) -> int:
    """Ash Winter: a March step into a Ruin costs 1 mana (RULINGS I16)."""
    return 1 if g.omen_key() == "ash-winter" and g.rules.map.ruin[t] else 0


def anchor_cost(g: CrownfallCore) -> int:
    """An Anchor's price: the data's (RULINGS I4, PROVISIONAL), nothing under Open Veins."""
    return 0 if g.omen_key() == "open-veins" else g.rules.anchor_cost


def mana_cost(g: CrownfallCore, action: int) -> int:
    """The mana the deciding player's legal ``action`` spends when played (what ``apply_action``
    takes): a March's step into a Ruin under Ash Winter, an Anchor, a Research, a spell; 0 else."""
    kind = A.decode(action, g.R)
    name = kind[0]
    if name in ("march-banner", "step"):
        return _step_cost(g, kind[2])
    if name == "march-mage":
        return _step_cost(g, kind[1])
    if name == "anchor":
        return anchor_cost(g)
    if name == "research":
        return g.rules.research_cost
    if name == "cast":
        return spell_cost(g, g.deciding_player(), g.rules.spells[kind[1]])
    return 0


def march_steps(g: CrownfallCore) -> list[int]:
    """The ways the pending March may go on (RULINGS I13); empty when it cannot."""
    mv = g.march
    if mv is None or mv.get("fixed") or mv.get("done"):
        return []
    p, m = g.current, g.rules.map
    path, used = mv["path"], mv["bonuses"]
    available = []
    if g.blink > 0 and BLINK not in used:
        available.append(BLINK)
    if g.houses[p].passive == "outer-march" and not g.flags[p]["tide"] and TIDE not in used and m.outer[path[0]]:
        available.append(TIDE)
    if mv["silent"] and SILENT not in used:
        available.append(SILENT)
    if (g.omen_key() == "coastal-pull" and not g.flags[p]["coastal"] and COASTAL not in used
            and (g.houses[p].passive == "outer-march" or g.owner(g.rules.coastal_region) == p)
            and m.outer[path[0]] and len(path) > 1 and m.outer[path[1]]):
        available.append(COASTAL)
    # The bonuses a March uses are a set: spending them in another order changes nothing, so they are
    # spent in one order (BONUS_ORDER), Silent Roads' first since it is lost if this March skips it.
    if SILENT in available:
        available = [SILENT]
    elif used:
        last = max(BONUS_ORDER.index(u) for u in used)
        available = [b for b in available if BONUS_ORDER.index(b) > last]
    out = []
    at = mv["at"]
    for b in available:
        cracked = g.omen_key() == "cracked-roads" and (mv["cracked"] or (b == BLINK and not g.flags[p]["first-blink"]))
        if cracked and m.keep in path[1:]:
            continue                    # the round's first Blink may not pass through the Keep
        for t in m.adjacent[at]:
            if t not in path and g.mana[p] >= _step_cost(g, t):      # a path never revisits a region
                out.append(A.encode_step(b, t, g.R))
    return out


def legal_actions(g: CrownfallCore) -> list[int]:
    if g.stage == "place":
        return [A.encode_place(r, g.R) for r in g.place_options]
    if g.stage == "march":
        return [A.STOP] + march_steps(g)
    if g.stage != "turn":
        return []
    p, R, m, rules = g.current, g.R, g.rules.map, g.rules
    out = [A.END]
    for s in range(R):
        if g.banner_owner[s] == p and g.banners[s]:
            out += [A.encode_march_banner(s, t, R) for t in m.adjacent[s] if g.mana[p] >= _step_cost(g, t)]
    if g.mage[p] >= 0:
        out += [A.encode_march_mage(t, R) for t in m.adjacent[g.mage[p]] if g.mana[p] >= _step_cost(g, t)]
    mine = set(g.controlled(p))
    if g.reserve_banners[p]:
        out += [A.encode_raise(r, R) for r in range(R) if g.empty_for(p, r) and mine & m.adjacency[r]]
    if g.reserve_towers[p]:
        for r in range(R):
            if g.banner_owner[r] == p and g.banners[r] and g.tower_owner[r] < 0:
                out += [A.encode_fortify(r, role, R) for role in range(4)]
    if g.reserve_anchors[p] and g.mana[p] >= anchor_cost(g):
        out += [A.encode_anchor(r, R) for r in sorted(mine) if g.anchor[r] < 0
                and (m.ruin[r] or r == m.keep or g.tower_owner[r] == p)]
    if g.mana[p] >= rules.research_cost:
        out += [A.encode_research(s, R) for s in range(len(rules.schools)) if g.levels[p][s] < 3]
    for spell in rules.spells:
        if g.levels[p][spell.school] >= spell.level and g.mana[p] >= spell_cost(g, p, spell):
            out += [A.encode_cast(spell.index, a, b, o, R) for a, b, o in _targets(g, p, spell, mine)]
    return out


def _targets(g: CrownfallCore, p: int, spell, mine: set) -> list[tuple[int, int, int]]:
    m, key = g.rules.map, spell.key
    if key in ("fireball", "siege-flame", "scorch-ward"):
        reach = sorted(r for r in g.spell_range(p) if not g.shielded_against(p, r))
        if key == "fireball":
            return ([(r, 0, 0) for r in reach if g.banners[r] and g.banner_owner[r] != p]
                    + [(r, 0, 1) for r in reach if g.tower_owner[r] not in (-1, p) and g.damaged[r]])
        if key == "siege-flame":
            return [(r, 0, 0) for r in reach if g.tower_owner[r] not in (-1, p)]
        return [(r, 0, 0) for r in reach]
    if key == "blink":
        return [(0, 0, 0)]
    if key in ("rift-step", "gatewalk"):
        out = []
        for group in g.networks(p):
            nodes = g.network_nodes(p, group)
            for a in nodes:
                if (key == "rift-step" and g.banner_owner[a] == p and g.banners[a]) or (key == "gatewalk" and g.mage[p] == a):
                    out += [(a, b, 0) for b in nodes if b != a]
        return out
    if key == "ward-seal":
        return [(r, 0, 0) for r in sorted(mine) if g.ward[r] is None]
    if key == "bastion-sigil":
        return ([(r, 0, 0) for r in sorted(mine) if g.tower_owner[r] == p and g.damaged[r]]
                + [(r, 0, 1) for r in sorted(mine) if g.tower_owner[r] == p and g.ward[r] is None])
    if key == "ley-shield":
        return [(r, 0, 0) for r in sorted(mine) if g.is_node(p, r)]
    if key == "summon-host":
        if not g.reserve_banners[p]:
            return []
        near = set()
        for c in g.towers_of(p) + ([g.mage[p]] if g.mage[p] >= 0 else []):
            near |= m.adjacency[c]
        return [(r, 0, 0) for r in sorted(near) if g.empty_for(p, r)]
    if key == "oathbound-retainers":
        if not g.reserve_banners[p]:
            return []
        left = g.mana[p] - spell_cost(g, p, spell)
        return [(a, b, 0) for a in sorted(mine) for b in m.adjacent[a] if left >= _step_cost(g, b)]
    if key == "phantom-garrison":
        return [(r, 0, 0) for r in sorted(mine)]            # RULINGS I18: any region the caster controls
    raise AssertionError(key)


# -- changing the state ------------------------------------------------------------------------------
def _cleanup(g: CrownfallCore) -> None:
    """What follows a change of control: Anchors go back to reserve (RULINGS I11), Wards, Garrisons and
    Shields of a player who lost the region end, a spent Watchtower that is gone is forgotten."""
    for r in range(g.R):
        o = g.owner(r)
        if g.anchor[r] >= 0 and g.anchor[r] != o:
            g.reserve_anchors[g.anchor[r]] += 1
            g.anchor[r] = -1
        if g.ward[r] is not None and g.ward[r][0] != o:
            g.ward[r] = None
        if g.garrison[r] is not None and g.garrison[r][0] != o:
            g.garrison[r] = None
        if g.shield[r] >= 0 and g.shield[r] != o:
            g.shield[r] = -1
        if o < 0:
            g.shield_steps[r] = 0
        if g.tower_owner[r] < 0:
            g.watch_used.discard(r)


def _gained(g: CrownfallCore, p: int, r: int, before: int) -> None:
    """Ruin Bloom: the first player this round to newly control a Ruin gains 1 mana (X.C)."""
    if (g.omen_key() == "ruin-bloom" and not g.ruin_bloom_done and g.rules.map.ruin[r] and before != p
            and g.owner(r) == p):
        g.ruin_bloom_done = True
        g.mana[p] += 1


def _put_banner(g: CrownfallCore, p: int, r: int) -> None:
    before = g.owner(r)
    g.banners[r] += 1
    g.banner_owner[r] = p
    _gained(g, p, r, before)


def _put_back(g: CrownfallCore, p: int, r: int) -> None:
    """The Banner lifted from r for a March step goes back there (a won battle it could not enter,
    RULINGS I10). p held r before the step and holds it after: no change of control, so nothing is
    newly controlled (Ruin Bloom, X.C), even when the lifted Banner was p's only piece in r."""
    g.banners[r] += 1
    g.banner_owner[r] = p


def _take_banner(g: CrownfallCore, r: int) -> None:
    g.banners[r] -= 1
    if not g.banners[r]:
        g.banner_owner[r] = -1


def _structure_step(g: CrownfallCore, by: int, r: int) -> None:
    """Damage the Tower in r, or destroy it when already Damaged; a Ley Shield of its owner lets it lose
    one step a round (RULINGS I18)."""
    owner = g.tower_owner[r]
    if g.shield[r] == owner and g.shield_steps[r] >= 1:
        return                                  # the round's steps count, also those before the Shield
    g.shield_steps[r] += 1
    if g.damaged[r]:
        g.tower_owner[r], g.tower_role[r], g.damaged[r] = -1, -1, False
        g.reserve_towers[owner] += 1
        g.flags[by]["tower-kill"] = True
        if g.owner(r) < 0:
            g.shield_steps[r] = 0               # the region's count ends with its control
    else:
        g.damaged[r] = True


def _send_out(g: CrownfallCore, q: int, around: int) -> None:
    """q's Archmage leaves ``around`` for an adjacent region q controls, q's choice; with none it is out
    until the end of the round (9.0, RULINGS I5, I11)."""
    g.mage[q] = -1
    options = [r for r in g.rules.map.adjacent[around] if g.owner(r) == q]
    if len(options) == 1:
        g.mage[q] = options[0]
    elif options:
        g.places.append((q, "retreat", tuple(options)))


def _battle(g: CrownfallCore, p: int, piece: str, src: int, t: int) -> None:
    d = g.occupant(t)
    terms = g.battle_terms(p, piece, t)
    att, dfn = battle_totals(terms)
    tower = g.tower_owner[t] == d
    if tower and not g.flags[p]["ember"] and g.houses[p].passive == "tower-assault":
        g.flags[p]["ember"] = True
    g.watch_used.update(g.watchtowers(p, t))
    g.watch_used.update(g.watchtowers(d, t))
    if dfn["spell-or-ward"] and not (g.garrison[t] is not None and g.garrison[t][0] == d):
        g.ward[t] = None                      # the Ward supplied the +1: used up (a Garrison is not, RULINGS I15)
    won = att["total"] > dfn["total"]
    winner = p if won else d
    if g.omen_key() == "red-harvest" and not g.flags[winner]["harvest"]:
        g.flags[winner]["harvest"] = True
        g.tracks[winner][0] += 1
    entered = False
    if won:
        if tower:
            g.flags[p]["tower-win"] = True
        g.reserve_banners[d] += g.banners[t]
        g.banners[t], g.banner_owner[t] = 0, -1
        if tower:
            _structure_step(g, p, t)
        entered = g.owner(t) < 0
        if entered:
            if piece == "banner":
                _put_banner(g, p, t)
            else:
                g.mage[p] = t
            if g.mage[d] == t:
                _send_out(g, d, t)
        elif piece == "banner":
            _put_back(g, p, src)                # it stays where it came from (RULINGS I10)
    elif piece == "banner":
        g.reserve_banners[p] += 1
    else:
        _send_out(g, p, t)
    g.events.append({"round": g.round, "battle": g.rules.map.key(t), "attacker": p, "defender": d, "piece": piece,
                     "attack": att, "defense": dfn, "terms": terms, "winner": winner, "entered": entered})
    _cleanup(g)


def _enter(g: CrownfallCore, p: int, t: int) -> None:
    """The marching piece (lifted from march["at"]) steps into t: a battle when an enemy is there."""
    mv = g.march
    g.mana[p] -= _step_cost(g, t)
    if g.enemy_in(p, t):
        mv["done"] = True
        _battle(g, p, mv["piece"], mv["at"], t)
        return
    if mv["piece"] == "banner":
        _put_banner(g, p, t)
    else:
        g.mage[p] = t
    mv["at"] = t
    mv["path"].append(t)
    _cleanup(g)


def _lift(g: CrownfallCore, p: int) -> None:
    mv = g.march
    if mv["piece"] == "banner":
        _take_banner(g, mv["at"])


def _start_march(g: CrownfallCore, p: int, piece: str, s: int, t: int, fixed: bool = False) -> None:
    silent = False
    if (not fixed and g.omen_key() == "silent-roads" and not g.flags[p]["silent"] and g.owner(s) == p
            and g.owner(t) == p):
        g.flags[p]["silent"] = silent = True
    g.march = {"piece": piece, "at": s, "path": [s], "bonuses": [], "silent": silent, "fixed": fixed,
               "cracked": False, "done": False}
    _lift(g, p)
    _enter(g, p, t)


def _cast(g: CrownfallCore, p: int, spell, a: int, b: int, option: int) -> None:
    g.mana[p] -= spell_cost(g, p, spell)
    if spell.school == 0 and g.omen_key() == "ash-wind":
        g.flags[p]["ash-wind"] = True
    g.flags[p]["casts"] += 1
    key = spell.key
    if key == "fireball":
        if option == 0:
            owner = g.banner_owner[a]
            _take_banner(g, a)
            g.reserve_banners[owner] += 1
        else:
            _structure_step(g, p, a)
    elif key == "siege-flame":
        _structure_step(g, p, a)
    elif key == "scorch-ward":
        g.scorch.add(a)
    elif key == "blink":
        g.blink += 1
    elif key == "rift-step":
        _take_banner(g, a)
        _put_banner(g, p, b)
    elif key == "gatewalk":
        g.mage[p] = b
    elif key == "ward-seal":
        extra = 0
        if g.omen_key() == "bell-echo" and not g.flags[p]["bell-echo"]:
            g.flags[p]["bell-echo"] = True
            extra = 1
        g.ward[a] = (p, g.turns_started[p] + 1 + extra)
    elif key == "bastion-sigil":
        if option == 0:
            g.damaged[a] = False
        else:
            g.ward[a] = (p, None)
    elif key == "ley-shield":
        g.shield[a] = p
    elif key == "summon-host":
        g.reserve_banners[p] -= 1
        _put_banner(g, p, a)
    elif key == "oathbound-retainers":
        g.reserve_banners[p] -= 1
        _put_banner(g, p, a)
        _start_march(g, p, "banner", a, b, fixed=True)
    elif key == "phantom-garrison":
        g.garrison[a] = (p, g.turns_started[p] + 1)
    _cleanup(g)


def apply_action(g: CrownfallCore, action: int) -> None:
    """Play a legal ``action`` (the caller checked it) of the deciding player."""
    p = g.deciding_player()
    kind = A.decode(action, g.R)
    name = kind[0]
    if name == "place":
        g.mage[p] = kind[1]
        g.places.pop(0)
        return
    if name == "stop":
        g.march["done"] = True
        return
    if name == "step":
        bonus, t = kind[1], kind[2]
        mv = g.march
        mv["bonuses"].append(bonus)
        if bonus == BLINK:
            g.blink -= 1
            if g.omen_key() == "cracked-roads" and not g.flags[p]["first-blink"]:
                mv["cracked"] = True
            g.flags[p]["first-blink"] = True
        elif bonus == TIDE:
            g.flags[p]["tide"] = True
        elif bonus == COASTAL:
            g.flags[p]["coastal"] = True
        _lift(g, p)
        _enter(g, p, t)
        return
    if name == "end":
        g.actions_left = 0
        return
    g.actions_left -= 1
    rules = g.rules
    if name == "march-banner":
        _start_march(g, p, "banner", kind[1], kind[2])
    elif name == "march-mage":
        _start_march(g, p, "mage", g.mage[p], kind[1])
    elif name == "raise":
        g.reserve_banners[p] -= 1
        _put_banner(g, p, kind[1])
    elif name == "fortify":
        r, role = kind[1], kind[2]
        _take_banner(g, r)
        g.reserve_banners[p] += 1
        g.reserve_towers[p] -= 1
        g.tower_owner[r], g.tower_role[r], g.damaged[r] = p, role, False
    elif name == "anchor":
        g.mana[p] -= anchor_cost(g)
        g.reserve_anchors[p] -= 1
        g.anchor[kind[1]] = p
    elif name == "research":
        g.mana[p] -= rules.research_cost
        g.levels[p][kind[1]] += 1
    elif name == "cast":
        _cast(g, p, rules.spells[kind[1]], kind[2], kind[3], kind[4])
    else:
        raise AssertionError(kind)


def apply_chance(g: CrownfallCore, card: int) -> None:
    if g.stage == "omen":
        g.omen = card
        g.omen_seen.append(card)
        if g.setup_done:
            _round_body(g)
        else:
            _enter_objectives(g)
        return
    g.objectives.append(card)
    g.objective_pile.remove(card)
    if len(g.objectives) < 2:
        _refill(g)
        return
    if not g.setup_done:
        g.setup_done = True
        _round_body(g)
    else:
        g.round += 1
        _start_round(g)


def _refill(g: CrownfallCore) -> None:
    """The Objective deck reshuffled when it runs out: every card but the face-up ones (RULINGS I7)."""
    if not g.objective_pile:
        g.objective_pile = [c for c in g.objective_deck if c not in g.objectives]


def _enter_objectives(g: CrownfallCore) -> None:
    g.objectives = []
    _refill(g)
    g.stage = "objective"


# -- the round -----------------------------------------------------------------------------------------
def _start_round(g: CrownfallCore) -> None:
    g.flags = [g._fresh_flags() for _ in range(g.num_players)]
    g.ruin_bloom_done = False
    step = (g.round - 1) % len(g.omen_deck)
    if step < len(g.omen_seen):              # the stack cycles in the order it was revealed
        g.omen = g.omen_seen[step]
        _round_body(g)
    else:
        g.stage = "omen"


def _round_body(g: CrownfallCore) -> None:
    for p in range(g.num_players):
        g.mana[p] += g.income(p)["total"]
    g.order_index = 0
    _start_turn(g)


def _seat(g: CrownfallCore) -> int:
    first = (g.round - 1) % g.num_players if g.config.rotate else 0
    return (first + g.order_index) % g.num_players


def _start_turn(g: CrownfallCore) -> None:
    p = g.current = _seat(g)
    g.turns_started[p] += 1
    for r in range(g.R):
        if g.ward[r] is not None and g.ward[r][0] == p and g.ward[r][1] is not None and g.ward[r][1] <= g.turns_started[p]:
            g.ward[r] = None
        if g.garrison[r] is not None and g.garrison[r][0] == p and g.garrison[r][1] <= g.turns_started[p]:
            g.garrison[r] = None
    g.actions_left = g.rules.actions
    g.blink = 0
    g.stage = "turn"


def _end_turn(g: CrownfallCore) -> None:
    g.scorch.clear()
    g.blink = 0
    g.actions_left = 0
    g.order_index += 1
    if g.order_index < g.num_players:
        _start_turn(g)
    else:
        _end_round(g)


def objective_met(g: CrownfallCore, p: int, key: str) -> bool:
    """Whether p fulfils the Objective ``key`` now (13.0, X.D, RULINGS I14; docs/crownfall.md)."""
    m, n = g.rules.map, g.num_players
    keep = m.keep
    if key == "hold-keep":
        return g.owner(keep) == p
    if key == "two-ruins":
        return len(g.ruins_of(p)) >= 2
    if key in ("largest-realm", "largest-network"):
        size = g.realm_size if key == "largest-realm" else g.network_size
        mine = size(p)
        return mine > 0 and all(mine > size(q) for q in range(n) if q != p)
    if key == "three-towers":
        return len(g.towers_of(p)) >= g.rules.tower_goal
    if key == "linked-outer":
        return any(sum(m.outer[r] for r in grp) >= 2 for grp in g.groups(p))
    if key == "tower-battle":
        return g.flags[p]["tower-win"]
    if key == "keep-and-inner":
        return g.owner(keep) == p and any(m.inner[r] and g.owner(r) == p for r in m.adjacent[keep])
    if key == "sanctum-chain":
        return any(sum(g.tower_owner[r] == p and g.tower_role[r] == SANCTUM for r in grp) >= 2 for grp in g.networks(p))
    if key == "bell-and-banner":
        return any(g.owner(r) == p and any(m.outer[o] and g.tower_owner[o] == p for o in m.adjacent[r])
                   for r in m.ruins)
    if key == "broken-gate":
        return g.flags[p]["tower-kill"]
    if key == "ward-the-heart":
        return g.owner(keep) == p and g.ward[keep] is not None and g.ward[keep][0] == p
    if key == "outer-dominion":
        return sum(m.outer[r] and g.owner(r) == p for r in range(g.R)) >= 4
    if key == "four-corners":
        mine = set(g.controlled(p))
        return keep not in mine and any(ring <= mine for ring in m.rings4)
    if key == "high-arcana":
        nodes = [r for r in range(g.R) if g.is_node(p, r)]
        return g.flags[p]["casts"] >= 2 and bool(nodes) and any(set(nodes) <= set(grp) for grp in g.networks(p))
    raise AssertionError(key)


def score_round(g: CrownfallCore) -> list[dict]:
    """14.0's points of every player at this end of round, term by term (added by the caller)."""
    rules, keep = g.rules, g.rules.map.keep
    out = []
    for p in range(g.num_players):
        met = [c for c in g.objectives if objective_met(g, p, rules.objectives[c].key)]
        crown = int(g.owner(keep) == p) + int(bool(met))
        if g.omen_key() == "long-dusk":
            crown += sum(rules.objectives[c].outer for c in met)
        arcana = g.arcana_gain(p)
        if arcana and g.houses[p].passive == "ruin-arcana":
            arcana += 1
        dominion = int(g.realm_size(p) >= rules.realm) + int(len(g.towers_of(p)) >= rules.tower_goal)
        out.append({"crown": crown, "arcana": arcana, "dominion": dominion,
                    "objectives": [rules.objectives[c].key for c in met]})
    return out


def _tie_break(g: CrownfallCore, players: list[int]) -> tuple[int, ...]:
    """15.0: the highest total of the three tracks, then most Towers, then most Ruins; still equal: shared."""
    def key(p):
        return (sum(g.tracks[p]), len(g.towers_of(p)), len(g.ruins_of(p)))
    best = max(key(p) for p in players)
    return tuple(p for p in players if key(p) == best)


def _end_round(g: CrownfallCore) -> None:
    scores = score_round(g)
    for p, s in enumerate(scores):
        g.tracks[p][0] += s["crown"]
        g.tracks[p][1] += s["arcana"]
        g.tracks[p][2] += s["dominion"]
    g.events.append({"round": g.round, "scoring": scores})
    rules = g.rules
    reached = [p for p in range(g.num_players) if sum(v >= rules.threshold for v in g.tracks[p]) >= rules.tracks_to_win]
    if reached:
        g.winners = _tie_break(g, reached)
        g.over_reason = (f"round {g.round}: " + " and ".join(SEATS[p] for p in g.winners)
                         + (" wins" if len(g.winners) == 1 else " share the victory")
                         + f" with {rules.threshold} in {rules.tracks_to_win} tracks")
        g.stage = "over"
        return
    if g.round >= g.config.rounds:
        g.winners = _tie_break(g, list(range(g.num_players)))
        g.over_reason = (f"the round limit ({g.config.rounds}): " + " and ".join(SEATS[p] for p in g.winners)
                         + (" wins" if len(g.winners) == 1 else " share the victory") + " on the tie-breaks")
        g.stage = "over"
        return
    g.shield = [-1] * g.R
    g.shield_steps = [0] * g.R
    g.watch_used = set()
    g.returning = [p for p in range(g.num_players) if g.mage[p] < 0]
    g.stage = "returns"


def _return_mages(g: CrownfallCore) -> None:
    """Archmages that were out come back (RULINGS I11): home if no enemy piece is there, else a region
    their owner controls (the owner's choice), else they stay out another round."""
    while g.returning and not g.places:
        p = g.returning.pop(0)
        home = g.home[p]
        if not g.enemy_in(p, home):
            g.mage[p] = home
            continue
        options = g.controlled(p)
        if len(options) == 1:
            g.mage[p] = options[0]
        elif options:
            g.places.append((p, "return", tuple(options)))


def settle(g: CrownfallCore) -> None:
    """Run everything that needs no decision, until a player or chance must act or the game is over."""
    while True:
        if g.stage == "over":
            g.march = None
            return
        if g.places:
            g.stage = "place"
            g.place_options = list(g.places[0][2])
            return
        if g.stage == "place":
            g.stage = "returns" if g.returning or g.after_places == "returns" else "turn"
            g.place_options = []
            continue
        if g.stage == "returns":
            g.after_places = "returns"
            _return_mages(g)
            if g.places:
                continue
            g.after_places = "turn"
            _enter_objectives(g)
            continue
        if g.stage in ("omen", "objective"):
            return                              # chance: the caller answers or draws (state.py)
        if g.march is not None:
            if march_steps(g):
                g.stage = "march"
                return
            g.march = None
            g.stage = "turn"
        if g.stage in ("turn", "march"):
            g.stage = "turn"
            if g.actions_left > 0:
                return
            _end_turn(g)
            continue
        raise AssertionError(g.stage)
