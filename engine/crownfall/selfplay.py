"""Seeded random Crownfall games of 2, 3 or 4 players with the state protocol's invariants
(engine.games.selfplay.check_step) and the game's own checked at every decision: piece conservation
(board plus reserve is each player's set), control (a region holds one player's pieces; Anchors,
Wards, Garrisons and Shields only where their owner controls), the ley networks recomputed from
scratch by another algorithm, mana and tracks never negative; and the record replaying to the same
record. Game i has the seed ``seed + i`` and its random decisions come from ``Random(seed * 7919 + 1)``
as in every game's selfplay."""

from __future__ import annotations

from engine.crownfall.config import CrownfallConfig
from engine.crownfall.core import CrownfallCore
from engine.crownfall.state import CrownfallState
from engine.games.selfplay import SelfPlayStats, play_checked, play_seeds, run_seeds

__all__ = ["game_invariants", "networks_from_scratch", "run_crownfall_selfplay", "crownfall_seeds"]


def networks_from_scratch(g: CrownfallCore, p: int) -> list[frozenset]:
    """p's active networks by union-find over the map's edges (a second way to RULINGS I12's groups)."""
    m = g.rules.map
    mine = [r for r in range(g.R) if (g.banners[r] and g.banner_owner[r] == p) or g.tower_owner[r] == p]
    parent = {r: r for r in mine}

    def find(r):
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    for a in mine:
        for b in m.adjacent[a]:
            if b in parent:
                parent[find(a)] = find(b)
    groups: dict[int, set] = {}
    for r in mine:
        groups.setdefault(find(r), set()).add(r)
    out = []
    for group in groups.values():
        nodes = [r for r in group if m.ruin[r] or r == m.keep or g.anchor[r] == p
                 or (g.tower_owner[r] == p and (g.tower_role[r] in (1, 3) or r == g.home[p]))]
        home = g.home[p] in group and g.tower_owner[g.home[p]] == p
        if home or len(nodes) >= 2:
            out.append(frozenset(group))
    return sorted(out, key=min)


def game_invariants(g: CrownfallCore) -> list[str]:
    problems = []
    rules = g.rules
    for p in range(g.num_players):
        banners = sum(g.banners[r] for r in range(g.R) if g.banner_owner[r] == p) + g.reserve_banners[p]
        towers = sum(g.tower_owner[r] == p for r in range(g.R)) + g.reserve_towers[p]
        anchors = sum(g.anchor[r] == p for r in range(g.R)) + g.reserve_anchors[p]
        if (banners, towers, anchors) != (rules.banners, rules.towers, rules.anchors) or min(
                g.reserve_banners[p], g.reserve_towers[p], g.reserve_anchors[p]) < 0:
            problems.append(f"player {p}'s pieces are not conserved: banners {banners}, towers {towers}, "
                            f"anchors {anchors}")
        if g.mana[p] < 0 or min(g.tracks[p]) < 0:
            problems.append(f"player {p} has mana {g.mana[p]} and tracks {g.tracks[p]}")
        if [frozenset(x) for x in g.networks(p)] != networks_from_scratch(g, p):
            problems.append(f"player {p}'s networks {g.networks(p)} differ from a recomputation")
    for r in range(g.R):
        if (g.banners[r] > 0) != (g.banner_owner[r] >= 0):
            problems.append(f"region {r}: {g.banners[r]} Banners of player {g.banner_owner[r]}")
        owners = {q for q in (g.banner_owner[r] if g.banners[r] else -1, g.tower_owner[r]) if q >= 0}
        owners |= set(g.mages_at(r))
        if len(owners) > 1:
            problems.append(f"region {r} holds pieces of players {sorted(owners)}")
        if g.tower_owner[r] < 0 and (g.tower_role[r] != -1 or g.damaged[r]):
            problems.append(f"region {r}: a role or Damaged token without a Tower")
        o = g.owner(r)
        for what, holder in (("Anchor", g.anchor[r]), ("Shield", g.shield[r]),
                             ("Ward", g.ward[r][0] if g.ward[r] else -1),
                             ("Garrison", g.garrison[r][0] if g.garrison[r] else -1)):
            if holder >= 0 and holder != o:
                problems.append(f"region {r}: player {holder}'s {what} where player {o} controls")
    return problems


def _play(config: CrownfallConfig, seed: int, check: bool, stats: SelfPlayStats) -> None:
    state = play_checked(CrownfallState(config), seed, check, stats, game_invariants)
    winners = state.winners
    stats.results["shared" if len(winners) > 1 else f"seat {winners[0]} wins"] += 1
    stats.keep(seed, state)


def crownfall_seeds(first: int, games: int, options: dict, check: bool, keep: bool = False) -> SelfPlayStats:
    """Seeds first .. first + games - 1 (a unit of engine.execution); ``options``: the configuration
    but the seed; the games' records kept when ``keep``."""
    return play_seeds(first, games, keep,
                      lambda seed, stats: _play(CrownfallConfig.from_json({**options, "seed": seed}), seed, check, stats))


def run_crownfall_selfplay(games: int, seed: int = 0, options: dict | None = None, check: bool = True,
                           progress=None, cluster="local", workers: int | None = 1, records=None) -> SelfPlayStats:
    """``games`` seeded random games of the configuration ``options`` (players, houses, pools...);
    each game's record written into the folder ``records`` when given (engine.games.selfplay.run_seeds)."""
    options = dict(options or {})
    CrownfallConfig.from_json({**options, "seed": 0}, "options")        # a bad option fails before any game
    return run_seeds(crownfall_seeds, (options, check), games, seed, progress, cluster, workers, records)
