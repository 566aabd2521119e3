"""Seeded random self-play with every invariant checked after every decision (`ftc selfplay`).

Invariants:
- card conservation: Decks + Hands + Discards + played + cards an effect holds aside + Trash + Supply
  + the starting cards set aside in The Last Stand (C22) is constant;
- unit conservation: board + both Barracks + Stock = the catalog's inventory, per type;
- one order per unit per turn: an order decision never moves a unit already ordered (or banned) this
  turn, except through an action (Fog), which may;
- no leaks: a player's observation is unchanged when the hidden cards are resampled;
- replay: the game's record replays through the identical sequence of states;
- every game ends (within max_turns, C3).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

from engine import codes
from engine.codes import ST_BANNED, ST_ORDERED
from engine.crown import actions as A
from engine.crown.config import GameConfig
from engine.crown.core import CHANCE, RunFrame
from engine.crown.record import fingerprint, make_record
from engine.crown.state import GameState
from engine.execution import Cluster
from engine.games.selfplay import MAX_DECISIONS, SelfPlayStats, play_seeds, run_seed_chunks, run_seeds

__all__ = ["SelfPlayStats", "check_invariants", "run_selfplay", "run_seed_chunks", "selfplay_seeds", "card_total",
           "unit_totals"]


def card_total(g: GameState) -> Counter:
    total = Counter()
    for zones in g.zones:
        total.update(zones.all_cards())
    total.update(g.trash)
    total.update(g.set_aside)
    for card, n in enumerate(g.supply):
        total[card] += n
    for task in g.tasks:
        if isinstance(task, RunFrame):
            total.update(task.frame.data.get("aside", ()))
    return +total


def unit_totals(g: GameState) -> list[int]:
    state = g.board.state()
    totals = list(state["stock"])
    for t, n in enumerate(state["barracks"][0]):
        totals[t] += n + state["barracks"][1][t]
    for _, t, _ in state["units"]:
        totals[t] += 1
    return totals


def check_invariants(g: GameState, cards0: Counter, rng: random.Random) -> list[str]:
    problems = []
    if card_total(g) != cards0:
        diff = (card_total(g) - cards0) + (cards0 - card_total(g))
        problems.append(f"card conservation broken: {dict((g.card_name(c), n) for c, n in diff.items())}")
    inventory = [u.stock for u in g.units]
    if unit_totals(g) != inventory:
        problems.append(f"unit conservation broken: {unit_totals(g)} != {inventory}")
    if not g.is_terminal() and not g.is_chance_node():
        for player in (0, 1):
            obs = g.observation(player)
            if g.resample_hidden(player, rng).observation(player) != obs:
                problems.append(f"observation of player {player} changes when hidden cards are resampled (leak)")
    return problems


def _order_violation(g: GameState, action: int) -> str | None:
    """One order per unit per turn (6.0): a chosen order must not move an ordered or banned unit,
    unless an action (Fog) moves it."""
    if not A.is_order(action) or g.is_chance_node():
        return None
    frame = g.decision.frame
    if frame is not None and g.cards.cards[frame.card].effects[frame.index].kind not in ("order", "alternate-order"):
        return None
    origin = codes.order_origin(action)
    if codes.order_kind(action) == codes.DEPLOY:          # deploys have no origin unit
        return None
    own = frame is None or g.board.unit_on(origin) is not None and g.board.unit_on(origin)[1] == frame.player
    flagged = g.board.has_status(origin, ST_ORDERED) or (own and g.board.has_status(origin, ST_BANNED))
    if flagged:
        return f"order {action} moves a unit already ordered or banned this turn"
    return None


def play_one(config: GameConfig, rng: random.Random, check: bool = True, stats: SelfPlayStats | None = None) -> GameState:
    stats = stats if stats is not None else SelfPlayStats()
    check_rng = random.Random(config.seed)      # the checks never change the game's own choices
    g = GameState(config)
    cards0 = card_total(g)
    prints = [fingerprint(g)] if check else []
    decisions = 0
    while not g.is_terminal():
        legal = g.legal_actions()
        action = rng.choice(legal)
        if check:
            problem = _order_violation(g, action)
            if problem:
                stats.violations += 1
                stats.messages.append(f"seed {config.seed}: {problem}")
        g.apply(action)
        decisions += 1
        if check:
            for problem in check_invariants(g, cards0, check_rng):
                stats.violations += 1
                stats.messages.append(f"seed {config.seed}, decision {decisions}: {problem}")
            prints.append(fingerprint(g))
        if decisions > MAX_DECISIONS:
            stats.violations += 1
            stats.messages.append(f"seed {config.seed}: the game did not end within {MAX_DECISIONS} decisions")
            break
    stats.decisions += decisions
    if check:
        _check_replay(g, prints, stats, config.seed)
    return g


def _check_replay(g: GameState, prints: list[str], stats: SelfPlayStats, seed: int) -> None:
    """Replay the record in explicit-chance mode and compare the state at every decision point
    (after each decision and the chance events it caused) with the one seen while playing."""
    record = make_record(g)
    steps = record["steps"]
    replayed = GameState(GameConfig.from_dict(record["config"]), auto_chance=False)
    decisions = 0
    for k in range(len(steps) + 1):
        at_decision_point = k == len(steps) or steps[k][0] != CHANCE
        if at_decision_point:
            if decisions >= len(prints) or fingerprint(replayed) != prints[decisions]:
                stats.violations += 1
                stats.messages.append(f"seed {seed}: the replayed state differs at decision point {decisions}")
                return
        if k == len(steps):
            return
        if steps[k][0] != CHANCE:
            decisions += 1
        replayed.apply(steps[k][1])


def selfplay_seeds(first_seed: int, games: int, variant: str, supply, check: bool, options: dict,
                   keep: bool = False) -> SelfPlayStats:
    """The statistics of the games of seeds first_seed .. first_seed + games - 1, with the games'
    records when ``keep`` (written by the caller, engine.games.selfplay.run_seeds). A unit of
    engine.execution: the same games wherever it runs."""
    def one(game_seed: int, stats: SelfPlayStats) -> None:
        config = GameConfig(variant=variant, seed=game_seed, supply=supply, **options)
        g = play_one(config, random.Random(game_seed * 7919 + 1), check, stats)
        # Group results by kind: "draw", "... has no Sovereign ..." (turn counts folded to N).
        kind = re.sub(r"after \d+", "after N", g.over_reason.split(":")[0]) if g.over_reason else "unfinished"
        stats.results[kind] += 1
        stats.keep(game_seed, g)

    return play_seeds(first_seed, games, keep, one)


def run_selfplay(games: int, seed: int = 0, variant: str = "standard", supply="random",
                 records: Path | None = None, check: bool = True, progress=None,
                 cluster: str | Cluster = "local", workers: int | None = 1, **options) -> SelfPlayStats:
    """Play ``games`` seeded random games (game i has seed ``seed + i``); ``options`` are further
    GameConfig fields. On one local worker (the default) they are played here, with
    ``progress(stats, seconds)`` after each game; otherwise chunks of consecutive seeds are the units
    of engine.execution.run_units on ``cluster`` by ``workers`` workers (None: every core or CPU),
    ``progress`` after each chunk, and their statistics are merged in seed order: the same
    statistics whatever the cluster and the workers. With a folder ``records``, each game's record
    is written there as ``game-<seed>.json`` by this process (engine.games.selfplay.run_seeds)."""
    return run_seeds(selfplay_seeds, (variant, supply, check, dict(options)), games, seed, progress, cluster,
                     workers, records)
