"""CrownfallCore: a Crownfall game's state as data, the read-only questions about it (control,
realms, ley networks, spell range, battle strengths, the protocol's queries) and clone. The turn's
changes are engine/crownfall/phases.py; the driver is engine/crownfall/state.py.

Pieces (RULINGS I3, I11): a region holds the pieces of one player only: ``banners[r]`` of
``banner_owner[r]``, at most one Tower (``tower_owner``, ``tower_role`` -1 for none or an index of
ROLES, ``damaged``), at most one Anchor (``anchor``: its owner, a region's controller), Archmages
(``mage[p]``: a region or -1 while out). Reserves are counted (``reserve_*``); the selfplay checks
that board plus reserve is always each player's set (piece conservation).
"""

from __future__ import annotations

import copy
import random

from engine.crownfall import actions as A
from engine.crownfall.config import CrownfallConfig
from engine.crownfall.rules import ROLES, CrownfallRules, default_rules
from engine.games.protocol import CHANCE, TERMINAL

__all__ = ["CrownfallCore", "CrownfallError", "battle_totals", "NAME", "RECORD_FORMAT", "SEATS", "STRONGHOLD", "SANCTUM",
           "WATCHTOWER", "BEACON", "TRACKS"]

NAME = "crownfall"
RECORD_FORMAT = "ftc-crownfall-record"
#: The seats' names: the rules' example calls the players by colour (17.0).
SEATS = ("Blue", "Red", "Green", "Yellow")
STRONGHOLD, SANCTUM, WATCHTOWER, BEACON = range(4)
TRACKS = ("crown", "arcana", "dominion")


def battle_totals(terms: dict) -> tuple[dict, dict]:
    """The attack's and the defence's values of ``CrownfallCore.battle_terms``, each with its ``total``."""
    out = []
    for side in ("attack", "defense"):
        values = {term: detail["value"] for term, detail in terms[side].items()}
        values["total"] = sum(values.values())
        out.append(values)
    return out[0], out[1]


class CrownfallError(ValueError):
    """An illegal action or a bad record; the message says which and why."""


class CrownfallCore:
    """The state's data. Stages (``stage``): "omen" and "objective" (chance: the next card),
    "turn" (the current player's actions), "march" (a March that may go on), "place" (an Archmage's
    owner chooses where it goes, RULINGS I11), "over"."""

    game = NAME

    def __init__(self, config: CrownfallConfig, rules: CrownfallRules | None = None):
        self.rules = rules = rules or default_rules()
        self.config = config
        self.num_players = n = config.players
        m = rules.map
        self.R = R = len(m)
        self.houses = tuple(rules.house(h) for h in config.houses)
        self.home = tuple(m.index(h) for h in config.homes)
        self.banners = [0] * R
        self.banner_owner = [-1] * R
        self.tower_owner = [-1] * R
        self.tower_role = [-1] * R
        self.damaged = [False] * R
        self.anchor = [-1] * R
        self.mage = list(self.home)
        self.reserve_banners = [rules.banners] * n
        self.reserve_towers = [rules.towers - rules.towers_placed] * n
        self.reserve_anchors = [rules.anchors] * n
        self.mana = [rules.start_mana] * n
        self.tracks = [[0, 0, 0] for _ in range(n)]
        self.levels = [[0] * len(rules.schools) for _ in range(n)]
        for p, house in enumerate(self.houses):
            self.levels[p][house.school] = 1
            self.tower_owner[self.home[p]] = p
        # Timed effects: ward[r] = (owner, last turn number it covers or None: until used);
        # garrison[r] = (owner, expiry turn number); scorch: regions switched off this turn;
        # shield[r]: the owner of a Ley Shield this round; shield_steps[r]: structure steps the region's Tower lost this
        # round (all of them, shielded or not; reset when the region is left uncontrolled).
        self.ward: list = [None] * R
        self.garrison: list = [None] * R
        self.scorch: set[int] = set()
        self.shield = [-1] * R
        self.shield_steps = [0] * R
        self.watch_used: set[int] = set()
        self.turns_started = [0] * n
        # The round.
        self.round = 1
        self.order_index = 0
        self.current = 0
        self.actions_left = 0
        self.blink = 0
        self.stage = "omen"
        self.setup_done = False
        self.flags = [self._fresh_flags() for _ in range(n)]
        self.ruin_bloom_done = False
        # Decks (RULINGS I7): omen_deck / objective_deck: the card indices in play; omen_seen: the
        # Omens revealed this cycle in order; objective_pile: not yet drawn in this cycle.
        self.omen_deck = tuple(i for i, c in enumerate(rules.omens)
                               if not c.advanced or c.key in config.advanced_omens)
        self.objective_deck = tuple(i for i, c in enumerate(rules.objectives)
                                    if not c.advanced or c.key in config.advanced_objectives)
        self.omen = -1
        self.omen_seen: list[int] = []
        self.objectives: list[int] = []
        self.objective_pile = list(self.objective_deck)
        self.march: dict | None = None
        self.places: list[tuple[int, str]] = []          # (player, "retreat" | "return") to decide
        self.place_options: list[int] = []
        self.after_places = "turn"
        self.returning: list[int] = []
        self.history: list[list[int]] = []
        self.events: list[dict] = []
        self.winners: tuple[int, ...] = ()
        self.over_reason: str | None = None
        self.seed = config.seed
        self.rng = random.Random(config.seed)
        self.auto_chance = config.chance == "auto"
        self._legal: list[int] | None = None

    @staticmethod
    def _fresh_flags() -> dict:
        return {"ember": False, "tide": False, "silent": False, "coastal": False, "first-blink": False,
                "harvest": False, "ash-wind": False, "bell-echo": False, "tower-win": False, "tower-kill": False,
                "casts": 0}

    # -- pieces and control ------------------------------------------------------------------------
    def owner(self, r: int) -> int:
        """The region's controller (RULINGS I3): the player with a Banner or a Tower there, else -1."""
        return self.banner_owner[r] if self.banners[r] else self.tower_owner[r]

    def controls(self, p: int, r: int) -> bool:
        return self.owner(r) == p

    def controlled(self, p: int) -> list[int]:
        return [r for r in range(self.R) if self.owner(r) == p]

    def mages_at(self, r: int) -> list[int]:
        return [p for p in range(self.num_players) if self.mage[p] == r]

    def occupant(self, r: int) -> int:
        """The player whose pieces stand in r (Banner, Tower or Archmage), else -1."""
        o = self.owner(r)
        if o >= 0:
            return o
        mages = self.mages_at(r)
        return mages[0] if mages else -1

    def enemy_in(self, p: int, r: int) -> bool:
        o = self.occupant(r)
        return o >= 0 and o != p

    def empty_for(self, p: int, r: int) -> bool:
        """RULINGS I18: no Banner, no Tower, no enemy Archmage."""
        return self.owner(r) < 0 and all(q == p for q in self.mages_at(r))

    def towers_of(self, p: int) -> list[int]:
        return [r for r in range(self.R) if self.tower_owner[r] == p]

    def home_tower(self, p: int) -> bool:
        return self.tower_owner[self.home[p]] == p

    def ruins_of(self, p: int) -> list[int]:
        return [r for r in self.rules.map.ruins if self.owner(r) == p]

    # -- realms and ley networks (RULINGS I12, I14) ----------------------------------------------------
    def groups(self, p: int) -> list[list[int]]:
        """The connected groups of p's controlled regions, each in map order, the groups by first region."""
        mine = set(self.controlled(p))
        adj = self.rules.map.adjacency
        out = []
        while mine:
            start = min(mine)
            group, todo = {start}, [start]
            mine.discard(start)
            while todo:
                for q in adj[todo.pop()]:
                    if q in mine:
                        mine.discard(q)
                        group.add(q)
                        todo.append(q)
            out.append(sorted(group))
        return out

    def is_node(self, p: int, r: int) -> bool:
        if self.owner(r) != p:
            return False
        m = self.rules.map
        return (m.ruin[r] or r == m.keep or self.anchor[r] == p
                or (self.tower_owner[r] == p and (self.tower_role[r] in (SANCTUM, BEACON) or r == self.home[p])))

    def networks(self, p: int) -> list[list[int]]:
        """p's active networks: each group holding the Home Tower or at least two node regions, as the
        group's regions (RULINGS I12)."""
        out = []
        for group in self.groups(p):
            nodes = sum(self.is_node(p, r) for r in group)
            if (self.home_tower(p) and self.home[p] in group) or nodes >= 2:
                out.append(group)
        return out

    def network_nodes(self, p: int, group: list[int]) -> list[int]:
        return [r for r in group if self.is_node(p, r)]

    def network_size(self, p: int) -> int:
        """The node count of p's largest active network (0: none)."""
        return max((len(self.network_nodes(p, g)) for g in self.networks(p)), default=0)

    def realm_size(self, p: int, gloam: bool | None = None) -> int:
        """Regions of p's largest connected group, +1 per outer region under Gloam Tide (RULINGS I14)."""
        gloam = self.omen_key() == "gloam-tide" if gloam is None else gloam
        outer = self.rules.map.outer
        return max((len(g) + (sum(outer[r] for r in g) if gloam else 0) for g in self.groups(p)), default=0)

    def keep_in_network(self, p: int) -> bool:
        keep = self.rules.map.keep
        return any(keep in g for g in self.networks(p))

    def arcana_gain(self, p: int) -> int:
        """14.0's Arcana of the best active network, looked at one at a time (RULINGS I12)."""
        best = 0
        keep, ruin = self.rules.map.keep, self.rules.map.ruin
        for g in self.networks(p):
            ruins = sum(ruin[r] for r in g)
            gain = (ruins >= 1) + (ruins >= 2 or (keep in g and ruins >= 1))
            best = max(best, gain)
        return best

    def income(self, p: int) -> dict:
        """6.0's income of p, term by term (RULINGS I12, I15)."""
        inc = self.rules.income
        sanctums = sum(1 for r in self.towers_of(p) if self.tower_role[r] == SANCTUM)
        per_sanctum = inc["per_sanctum"] + (inc["bright_surge"] if self.omen_key() == "bright-surge" else 0)
        terms = {"base": inc["base"], "ruins": inc["per_ruin"] * len(self.ruins_of(p)),
                 "sanctums": per_sanctum * sanctums,
                 "keep": inc["keep_network"] if self.keep_in_network(p) else 0}
        terms["total"] = sum(terms.values())
        return terms

    # -- spells' reach -------------------------------------------------------------------------------
    def spell_range(self, p: int) -> set[int]:
        """The Archmage's region and its neighbours, and each Beacon's (RULINGS I6)."""
        adj = self.rules.map.adjacency
        centres = [r for r in self.towers_of(p) if self.tower_role[r] == BEACON]
        if self.mage[p] >= 0:
            centres.append(self.mage[p])
        out = set()
        for c in centres:
            out.add(c)
            out |= adj[c]
        return out

    def shielded_against(self, p: int, r: int) -> bool:
        """A Ley Shield of another player on r blocks p's spells there (RULINGS I18)."""
        return self.shield[r] >= 0 and self.shield[r] != p

    # -- battles (9.0, RULINGS I10, I15, I18, I20) -----------------------------------------------------
    def eligible_watchtowers(self, p: int, target: int) -> list[int]:
        """p's Watchtowers that may support a battle in ``target``, in map order: adjacent (never in
        it), not spent this round, not switched off by Scorch Ward (RULINGS I5, I18)."""
        adj = self.rules.map.adjacency[target]
        return [r for r in range(self.R) if r in adj and self.tower_owner[r] == p and self.tower_role[r] == WATCHTOWER
                and r not in self.watch_used and r not in self.scorch]

    def watchtowers(self, p: int, target: int) -> list[int]:
        """The Watchtowers that do support: the first ``watchtower_cap`` eligible ones in map order."""
        return self.eligible_watchtowers(p, target)[:self.rules.watchtower_cap]

    def omen_key(self) -> str | None:
        return self.rules.omens[self.omen].key if self.omen >= 0 else None

    def battle_terms(self, attacker: int, piece: str, target: int) -> dict:
        """Both sides' terms of the battle ``attacker``'s ``piece`` ("banner" or "mage") starts in
        ``target`` (9.0, RULINGS I10, I15, I17, I18, I20), each ``{"value": ..., its sources}``: the
        Watchtowers counted (``regions``), how many were eligible and the cap; the defence spells
        or Wards present (``sources``) and the cap of one; the Stronghold's Redwall bonus or Scorch
        Ward; the House. Nothing is spent (phases.battle does that); ``strengths`` sums them."""
        rules, m = self.rules, self.rules.map
        defender = self.occupant(target)

        def watch(p: int) -> dict:
            eligible = self.eligible_watchtowers(p, target) if p >= 0 else []
            used = eligible[:rules.watchtower_cap]
            return {"value": len(used) * rules.watchtower_support, "regions": [m.key(r) for r in used],
                    "eligible": len(eligible), "cap": rules.watchtower_cap}

        tower = defender >= 0 and self.tower_owner[target] == defender
        ember = (self.houses[attacker].passive == "tower-assault" and not self.flags[attacker]["ember"] and tower)
        att = {"banner": {"value": int(piece == "banner")}, "archmage": {"value": int(piece == "mage")},
               "watchtowers": watch(attacker), "spell": {"value": 0},
               "house": {"value": int(ember), "house": self.houses[attacker].key}}
        stronghold = {"value": 0}
        if tower and self.tower_role[target] == STRONGHOLD:
            redwall = self.houses[defender].passive == "redwall"
            scorched = target in self.scorch
            bonus = rules.redwall_stronghold if redwall else rules.stronghold
            stronghold = {"value": 0 if scorched else bonus, "redwall": redwall, "scorched": scorched}
        sources = []
        if self.garrison[target] is not None and self.garrison[target][0] == defender:
            sources.append("phantom-garrison")
        if self.ward[target] is not None and self.ward[target][0] == defender:
            sources.append("ward")
        dfn = {"banner": {"value": int(self.banners[target] > 0)}, "tower": {"value": int(tower)},
               "archmage": {"value": int(defender >= 0 and self.mage[defender] == target)},
               "watchtowers": watch(defender), "stronghold": stronghold,
               "spell-or-ward": {"value": min(1, len(sources)), "sources": sources, "cap": 1}}
        return {"attack": att, "defense": dfn}

    def strengths(self, attacker: int, piece: str, target: int) -> tuple[dict, dict]:
        """Both sides' strength terms as numbers and their ``total`` (the sums of ``battle_terms``)."""
        return battle_totals(self.battle_terms(attacker, piece, target))

    # -- the protocol's queries ------------------------------------------------------------------------
    def deciding_player(self) -> int:
        if self.stage == "over":
            return TERMINAL
        if self.stage in ("omen", "objective"):
            return CHANCE
        if self.stage == "place":
            return self.places[0][0]
        return self.current

    def chance_cards(self) -> list[int]:
        """The cards the pending draw may give (each equally likely)."""
        if self.stage == "omen":
            return [c for c in self.omen_deck if c not in self.omen_seen]
        if self.stage == "objective":
            return list(self.objective_pile)
        return []

    def returns(self) -> list[float]:
        """+1 to a sole winner; k winners share: each (n-k)/(k(n-1)), each loser -1/(n-1), so the
        returns sum to 0; nothing decided yet: zeros."""
        n = self.num_players
        if not self.winners:
            return [0.0] * n
        k = len(self.winners)
        return [(n - k) / (k * (n - 1)) if p in self.winners else -1.0 / (n - 1) for p in range(n)]

    def clone(self):
        other = copy.copy(self)
        for name in ("banners", "banner_owner", "tower_owner", "tower_role", "damaged", "anchor", "mage",
                     "reserve_banners", "reserve_towers", "reserve_anchors", "mana", "ward", "garrison", "shield",
                     "shield_steps", "turns_started", "omen_seen", "objectives", "objective_pile", "places",
                     "place_options", "returning", "history", "events"):
            setattr(other, name, list(getattr(self, name)))
        other.tracks = [list(t) for t in self.tracks]
        other.levels = [list(t) for t in self.levels]
        other.flags = [dict(f) for f in self.flags]
        other.scorch = set(self.scorch)
        other.watch_used = set(self.watch_used)
        other.march = None if self.march is None else {**self.march, "path": list(self.march["path"]),
                                                       "bonuses": list(self.march["bonuses"])}
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other._legal = None if self._legal is None else list(self._legal)
        return other

    def action_kind(self, action: int) -> tuple:
        return A.decode(action, self.R)

    def role_name(self, role: int) -> str:
        return self.rules.role_names[role] if role >= 0 else "none"

    def public_dict(self) -> dict:
        """Everything on the table (the whole state but the generator: Crownfall is open, RULINGS I9)."""
        m, rules = self.rules.map, self.rules
        regions = []
        for r in range(self.R):
            regions.append({
                "key": m.key(r), "name": m.name(r), "owner": self.owner(r), "banners": self.banners[r],
                "tower": None if self.tower_owner[r] < 0 else {
                    "owner": self.tower_owner[r], "role": ROLES[self.tower_role[r]] if self.tower_role[r] >= 0 else None,
                    "damaged": self.damaged[r]},
                "anchor": self.anchor[r], "archmages": self.mages_at(r),
                "ward": None if self.ward[r] is None else list(self.ward[r]),
                "garrison": None if self.garrison[r] is None else list(self.garrison[r]),
                "shield": self.shield[r], "shield_steps": self.shield_steps[r],
                "scorched": r in self.scorch, "watchtower_spent": r in self.watch_used})
        players = []
        for p in range(self.num_players):
            players.append({
                "seat": SEATS[p], "house": self.houses[p].key, "home": m.key(self.home[p]),
                "archmage": m.key(self.mage[p]) if self.mage[p] >= 0 else None, "mana": self.mana[p],
                "crown": self.tracks[p][0], "arcana": self.tracks[p][1], "dominion": self.tracks[p][2],
                "reserve": {"banners": self.reserve_banners[p], "towers": self.reserve_towers[p],
                            "anchors": self.reserve_anchors[p]},
                "spells": {rules.schools[s]: self.levels[p][s] for s in range(len(rules.schools))},
                "networks": [[m.key(r) for r in g] for g in self.networks(p)],
                "flags": dict(self.flags[p]), "turns_started": self.turns_started[p]})
        return {"round": self.round, "stage": self.stage, "current": self.current, "actions_left": self.actions_left,
                "blink": self.blink, "omen": self.omen_key(),
                "omens_seen": [rules.omens[c].key for c in self.omen_seen],
                "omens_unseen": sorted(rules.omens[c].key for c in self.omen_deck if c not in self.omen_seen),
                "objectives": [rules.objectives[c].key for c in self.objectives],
                "objective_pile": sorted(rules.objectives[c].key for c in self.objective_pile),
                "march": None if self.march is None else {**self.march, "path": list(self.march["path"]),
                                                          "bonuses": list(self.march["bonuses"])},
                "places": [list(x) for x in self.places], "ruin_bloom_done": self.ruin_bloom_done,
                "regions": regions, "players": players,
                "winners": list(self.winners), "over_reason": self.over_reason}
