"""Crownfall's expert bot ("expert"): a rule-based player, the yardstick of the search (issue 27). Each
decision it tries every legal action on a copy of the table (battles are deterministic, 9.0, so one
action later is known exactly; chance is not drawn), judges the copy with ``table_value`` and adds the
rules of thumb below; the best sum is played, ties broken by its seeded generator.

The rules of thumb and the rules they come from (section numbers of the Crownfall rulebook, "X.E" its
folio; RULINGS I-entries the project's rulings):

1. **Chase two tracks, keep the third as leverage** (18.0: "won by focus"). At its first decision the
   bot picks two focus tracks from its House's school and passive (``FOCUS``: Emberglass Crown and
   Dominion, Briar Arcana and Dominion, Redwall Dominion and Crown, Tidebound Arcana and Crown); the
   projected points of a focus track weigh ``FOCUS_WEIGHT``, the third ``LEVERAGE_WEIGHT``. A win
   needs the threshold in two tracks (15.0); the round limit's tie-break is the sum of all three
   (I8), so the third still counts.
2. **Score what the table will give, not only what it gave** (14.0, 6.0): ``table_value`` projects
   each track as the points already scored plus this round's end-of-round points (``score_round``)
   for the rounds left, discounted; income is valued the same way.
3. **Keep and Ruins first** (18.0: "Keep and Ruins create Arcana and Crown pressure"; 6.0 income):
   Ruins and the Keep are worth more than other regions in the table's value.
4. **Dominion wins tie-breakers** (18.0, 15.0): every Tower counts (the second tie-break) and the
   connected realm counts toward the five regions of 14.0.
5. **Networks before Towers** (18.0: "A Tower without a network is often just a defensive rock";
   11.0: Beacons and Sanctums are stronger when linked): a Fortify outside the player's active
   networks (I12) is marked down by ``UNLINKED_TOWER``; a Sanctum or Beacon there is never built.
6. **Do not research too broadly** (18.0; X.A: Emberglass "loses by over-researching"): Research
   only in the House's own school, at most to level ``RESEARCH_CAP``, and only when ``RESERVE_MANA``
   mana would be left for a spell of it.
7. **The opening template** (X.E): in round 1 a turn takes one expansion action (March, Raise Banner,
   Summon), one structure action (Fortify, Anchor) and one mana or research action; an action of a
   kind not yet taken this turn gets ``OPENING_BONUS``.
8. **Fight only battles that win** (9.0: deterministic, ties to the defender): the copy shows the
   battle's result, so a lost attack is simply a worse table; a region an adjacent enemy Banner or
   Archmage would take next (``CrownfallCore.strengths``) costs ``THREAT_SHARE`` of its worth, so the
   bot defends (a Stronghold, a Ward, a second Banner) before it is attacked.
9. **Play the House** (X.A): Redwall's Towers are Strongholds (``HOUSE_ROLE``: "strongholds, stable
   lines"), Briar's Sanctums and Beacons link its network, Tidebound's outer regions are worth
   ``OUTER_BONUS`` more ("threaten from edges"), Emberglass values an enemy Tower damaged or
   destroyed ("an anvil of damage") through the opponents' lower table.
10. **Play against the leader** (15.0: one winner): the table's value is the player's own minus a mix
    of the best and the mean of the opponents' (``LEADER_SHARE``), so hurting the leader pays.
"""

from __future__ import annotations

import math
import random

from engine.crownfall import actions as A
from engine.crownfall.core import BEACON, SANCTUM, STRONGHOLD, WATCHTOWER, CrownfallCore
from engine.crownfall.phases import score_round
from engine.games.bots import Bot

__all__ = ["ExpertBot", "FOCUS", "table_value", "table_values", "player_worth", "projected_tracks", "rounds_left", "threats",
           "region_worth", "action_category", "turn_actions_so_far"]

#: The two tracks each House chases (rule 1): indices into core.TRACKS (crown, arcana, dominion).
FOCUS = {"emberglass": (0, 2), "briar": (1, 2), "redwall": (2, 0), "tidebound": (1, 0)}
FOCUS_WEIGHT, LEVERAGE_WEIGHT = 1.2, 0.8
#: A round's points count fully now and DISCOUNT as much for each later round (rule 2).
DISCOUNT = 0.6
TRACK_POINT = 3.0          # one projected track point in the table's value
WIN_BONUS = 4.0            # projected to reach the threshold in two tracks
REGION, RUIN, KEEP, INNER, TOWER, DAMAGED_TOWER = 1.0, 1.2, 1.5, 0.3, 1.6, 0.8
OUTER_BONUS = 0.3          # Tidebound (rule 9)
NETWORK_NODE = 0.5
MANA, MANA_CAP = 0.35, 6
INCOME = 0.3               # per mana of income, per round left (capped at 3 rounds)
LEVEL = 0.5                # a research level of the House's school (rule 6)
THREAT_SHARE = 0.6         # rule 8
UNLINKED_TOWER = 2.5       # rule 5
RESEARCH_CAP = 2           # rule 6
RESERVE_MANA = 1
OPENING_BONUS = 0.8        # rule 7
LEADER_SHARE = 0.6         # rule 10: the best opponent's share, the mean's is the rest
HOUSE_ROLE = {"redwall": {STRONGHOLD: 1.5}, "briar": {SANCTUM: 0.4, BEACON: 0.3}}


def rounds_left(g: CrownfallCore) -> int:
    """End-of-round scorings still to come (this round's included unless it was scored already)."""
    scored = bool(g.events) and "scoring" in g.events[-1] and g.events[-1]["round"] == g.round
    return max(0, g.config.rounds - g.round + (0 if scored else 1))


def projected_tracks(g: CrownfallCore, scores: list[dict] | None = None) -> list[list[float]]:
    """Each player's tracks with this round's end-of-round points added for the rounds left, the
    later ones discounted (rule 2)."""
    scores = score_round(g) if scores is None else scores
    left = rounds_left(g)
    horizon = sum(DISCOUNT ** i for i in range(left))
    return [[g.tracks[p][t] + horizon * s[name] for t, name in enumerate(("crown", "arcana", "dominion"))]
            for p, s in enumerate(scores)]


def region_worth(g: CrownfallCore, p: int, r: int) -> float:
    """What holding region r is worth to p on its own (rules 3, 4, 9)."""
    m = g.rules.map
    value = REGION + RUIN * m.ruin[r] + KEEP * (r == m.keep) + INNER * m.inner[r]
    if m.outer[r] and g.houses[p].passive == "outer-march":
        value += OUTER_BONUS
    if g.tower_owner[r] == p:
        value += DAMAGED_TOWER if g.damaged[r] else TOWER
    return value


def threats(g: CrownfallCore, p: int) -> list[int]:
    """p's regions an adjacent enemy Banner or Archmage would win a battle against now (rule 8)."""
    adj, out = g.rules.map.adjacency, []
    for r in range(g.R):
        if g.owner(r) != p:
            continue
        for s in adj[r]:
            q = g.occupant(s)
            if q < 0 or q == p:
                continue
            pieces = (["banner"] if g.banners[s] and g.banner_owner[s] == q else []) + (["mage"] if g.mage[q] == s else [])
            if any(_wins(g, q, piece, r) for piece in pieces):
                out.append(r)
                break
    return out


def _wins(g: CrownfallCore, q: int, piece: str, r: int) -> bool:
    att, dfn = g.strengths(q, piece, r)
    return att["total"] > dfn["total"]


def player_worth(g: CrownfallCore, p: int, projected: list[list[float]], focus: tuple[int, int] | None) -> float:
    """One player's worth of the table (rules 1-4, 8, 9), before the opponents are subtracted."""
    rules = g.rules
    focus = FOCUS.get(g.houses[p].key, (0, 2)) if focus is None else focus
    tracks = projected[p]
    value = TRACK_POINT * sum((FOCUS_WEIGHT if t in focus else LEVERAGE_WEIGHT) * min(v, rules.threshold + 2)
                              for t, v in enumerate(tracks))
    if sum(v >= rules.threshold for v in tracks) >= rules.tracks_to_win:
        value += WIN_BONUS
    mine = g.controlled(p)
    value += sum(region_worth(g, p, r) for r in mine)
    value += NETWORK_NODE * g.network_size(p)
    value += MANA * min(g.mana[p], MANA_CAP)
    value += INCOME * g.income(p)["total"] * min(3, max(0, rounds_left(g) - 1))
    house_school = g.houses[p].school
    value += LEVEL * min(g.levels[p][house_school], RESEARCH_CAP)
    lost = threats(g, p)
    value -= THREAT_SHARE * sum(region_worth(g, p, r) for r in lost)
    return value


def table_value(g: CrownfallCore, p: int, focus: tuple[int, int] | None = None) -> float:
    """p's worth of the table minus the opponents' (rule 10); a finished game: its returns, scaled."""
    if g.stage == "over":
        return 1000.0 * g.returns()[p]
    projected = projected_tracks(g)
    worth = [player_worth(g, q, projected, focus if q == p else None) for q in range(g.num_players)]
    return _against_others(worth, p)


def table_values(g: CrownfallCore) -> list[float]:
    """``table_value(g, p)`` for every player p (each with its House's focus), the table projected
    and each player's worth found once for all of them."""
    if g.stage == "over":
        return [1000.0 * r for r in g.returns()]
    projected = projected_tracks(g)
    worth = [player_worth(g, q, projected, None) for q in range(g.num_players)]
    return [_against_others(worth, p) for p in range(g.num_players)]


def _against_others(worth: list[float], p: int) -> float:
    others = [w for q, w in enumerate(worth) if q != p]
    return worth[p] - (LEADER_SHARE * max(others) + (1 - LEADER_SHARE) * sum(others) / len(others))


# -- the rules of thumb on single actions ----------------------------------------------------------------
EXPANSION = ("march-banner", "raise", "step")
STRUCTURE = ("fortify", "anchor")


def action_category(g: CrownfallCore, action: int) -> str:
    """The opening template's kind of an action (rule 7): "expansion", "structure", "mana" or "other"."""
    kind = A.decode(action, g.R)[0]
    if kind in EXPANSION:
        return "expansion"
    if kind in STRUCTURE:
        return "structure"
    if kind == "research":
        return "mana"
    if kind == "cast":
        key = g.rules.spells[A.decode(action, g.R)[1]].key
        return "expansion" if key in ("summon-host", "oathbound-retainers") else "other"
    return "other"


def turn_actions_so_far(g: CrownfallCore) -> list[int]:
    """The actions the current player took in the turn in play (the history back to its start)."""
    p, out = g.current, []
    for player, action in reversed(g.history):
        if player != p:
            break
        out.append(action)
    return out[::-1]


class ExpertBot(Bot):
    """The rule-based player of the module's docstring; ``choose(state)`` returns a legal action."""

    name = "expert"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        scored = self.rank(state)
        best = max(v for _, v in scored)
        return self.rng.choice([a for a, v in scored if v >= best - 1e-9])

    def rank(self, state) -> list[tuple[int, float]]:
        """Every legal action with its value (the table one action later plus the rules' terms)."""
        p = state.current_player()
        focus = FOCUS.get(state.houses[p].key, (0, 2))
        opening = None
        if state.round == 1 and state.stage == "turn":
            opening = {action_category(state, a) for a in turn_actions_so_far(state)}
        out = []
        for a in state.legal_actions():
            child = state.clone()
            child.auto_chance = False           # the table before any draw
            child.apply(a)
            value = table_value(child, p, focus) + self.adjust(state, child, p, a, opening)
            out.append((a, value))
        return out

    def adjust(self, before, after, p: int, action: int, opening: set | None) -> float:
        """The rules of thumb on the action itself (rules 5, 6, 7, 9)."""
        kind = A.decode(action, before.R)
        name = kind[0]
        value = 0.0
        if name == "fortify":
            r, role = kind[1], kind[2]
            linked = any(r in grp for grp in after.networks(p))
            if not linked:
                value -= UNLINKED_TOWER + (10.0 if role in (SANCTUM, BEACON) else 0.0)
            value += HOUSE_ROLE.get(before.houses[p].key, {}).get(role, 0.0)
            if role == WATCHTOWER and not any(before.owner(s) == p for s in before.rules.map.adjacent[r]):
                value -= 1.0                     # a Watchtower supports neighbours: none of them is ours
        elif name == "research":
            school = kind[1]
            level = before.levels[p][school]
            if school != before.houses[p].school or level >= RESEARCH_CAP:
                value -= 10.0
            else:
                spell = before.rules.spell_at(school, level + 1)
                if before.mana[p] - before.rules.research_cost < min(spell.cost, RESERVE_MANA + 1):
                    value -= 1.0
        elif name == "end" and before.actions_left > 0:
            value -= 0.2                         # an action left unused is a tempo given away
        if opening is not None and name not in ("end", "stop", "place"):
            category = action_category(before, action)
            if category != "other" and category not in opening:
                value += OPENING_BONUS
        if math.isnan(value):
            raise AssertionError(action)
        return value
