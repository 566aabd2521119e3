"""Seeded random games of King's Ransom with every invariant checked (``ftc selfplay --variant
kings-ransom``). The statistics are For the Crown's (engine.crown.selfplay.SelfPlayStats); an
invariant that fails is counted with its message, an exception is an error.

Checked after every decision (``check=True``):

- every card is somewhere: per side, arena + Hand + Deck + Discard pile = the deck of G2;
- face-down cards are cards on the arena; both Kings stand, face up, while the game goes on;
- no King is left threatened by a face-up card of the side that just moved (G6);
- the no-capture count and the side to move follow the turn;
- a clone is identical and independent; the kernel's Zobrist key equals a recomputed one;
- the observation of each player shows none of the other's hidden cards (face-down identities,
  Hand), and a determinization for a player looks the same to that player as the game;
- at the end, the record replays to the same state.
"""

from __future__ import annotations

import random
import re

from engine import codes
from engine.games.selfplay import SelfPlayStats, play_seeds, run_seeds
from engine.ransom.rules import BLUE, PLAYER_NAMES, RED
from engine.ransom.state import RansomState, replay

__all__ = ["check_invariants", "play_one", "ransom_seeds", "run_ransom_selfplay"]

MAX_DECISIONS = 20_000


def check_invariants(g: RansomState, rng: random.Random) -> list[str]:
    """What is wrong with ``g`` (empty when nothing is)."""
    bad = []
    pos, rules = g.pos, g.rules
    for side in (RED, BLUE):
        counts = pos.card_counts(side)
        if counts != list(rules.deck):
            bad.append(f"{PLAYER_NAMES[side]}'s cards {counts} differ from the deck {list(rules.deck)}")
    if pos.face_down & ~pos.core.occupied():
        bad.append("a face-down mark without a card")
    if pos.core.status_bits(codes.ST_BANNED) != pos.face_down:
        bad.append("the kernel's face-down (banned) flags differ from the face-down cards")
    if pos.core.key != pos.core.recomputed_key():
        bad.append("the Zobrist key differs from a recomputed one")
    if g.over_reason is None and g.step != "deal":
        for side in (RED, BLUE):
            king = pos.king_square(side)
            if king < 0:
                bad.append(f"{PLAYER_NAMES[side]} has no King but the game goes on")
            elif pos.face_down >> king & 1:
                bad.append(f"{PLAYER_NAMES[side]}'s King is face down")
        mover = 1 - pos.side
        turn_start = g.step == "flip" or (g.step == "move" and g.flipped is None)
        if turn_start and pos.in_check(mover):
            bad.append(f"{PLAYER_NAMES[mover]} ended its turn with its King threatened by a face-up card")
    copy = g.clone()
    if copy.fingerprint() != g.fingerprint():
        bad.append("a clone differs from its original")
    if g.legal_actions() and not g.is_terminal():
        copy.apply(g.legal_actions()[0])
        if copy.fingerprint() == g.fingerprint():
            bad.append("an action on a clone left the state unchanged")
    for player in (RED, BLUE):
        obs = g.observation(player)
        other = 1 - player
        hidden = [c for c in obs["arena"] if c["owner"] == other and c["face_down"] and c["card"] is not None]
        if hidden and g.over_reason is None:
            bad.append(f"{PLAYER_NAMES[player]}'s observation shows {len(hidden)} hidden cards of {PLAYER_NAMES[other]}")
        if g.current_player() >= 0:
            d = g.resample_hidden(player, rng)
            if d.information_key(player) != g.information_key(player):
                bad.append(f"a determinization for {PLAYER_NAMES[player]} looks different to {PLAYER_NAMES[player]}")
            if d.pos.card_counts(other) != list(rules.deck):
                bad.append("a determinization lost or made cards")
    return bad


def play_one(seed: int, rng: random.Random, check: bool = True, stats: SelfPlayStats | None = None) -> RansomState:
    """One game of uniformly random decisions (chance by the game's own generator)."""
    g = RansomState(seed)
    decisions = 0
    while not g.is_terminal():
        if decisions >= MAX_DECISIONS:
            raise RuntimeError(f"no end after {MAX_DECISIONS} decisions")
        action = rng.choice(g.legal_actions())
        g.apply(action)
        decisions += 1
        if check:
            problems = check_invariants(g, rng)
            if problems and stats is not None:
                stats.violations += len(problems)
                stats.messages.extend(f"seed {seed}, decision {decisions}: {p}" for p in problems)
    if stats is not None:
        stats.decisions += decisions
    if check:
        again = replay(g.record())
        if again.fingerprint() != g.fingerprint() and stats is not None:
            stats.violations += 1
            stats.messages.append(f"seed {seed}: the record does not replay to the same state")
    return g


def ransom_seeds(first: int, games: int, check: bool, keep: bool = False) -> SelfPlayStats:
    """The statistics of seeds first .. first + games - 1 (a unit of engine.execution), with the
    games' records when ``keep``."""
    def one(seed: int, stats: SelfPlayStats) -> None:
        g = play_one(seed, random.Random(seed * 7919 + 1), check, stats)
        # Grouped by ending and player ("Red captures the King", "draw: Blue is stalemated"), the
        # ruling ID left out.
        kind = re.sub(r" \(G\d+\)$", "", g.over_reason) if g.over_reason else "unfinished"
        stats.results[kind] += 1
        stats.keep(seed, g)

    return play_seeds(first, games, keep, one)


def run_ransom_selfplay(games: int, seed: int = 0, check: bool = True, progress=None, cluster="local",
                        workers: int | None = 1, records=None) -> SelfPlayStats:
    """``games`` seeded random games (game i has seed ``seed + i``), locally with ``progress`` after
    each game, or in chunks on ``cluster`` (engine.execution): the same statistics either way; each
    game's record written into the folder ``records`` when given (engine.games.selfplay.run_seeds)."""
    return run_seeds(ransom_seeds, (check,), games, seed, progress, cluster, workers, records)
