"""Seeded random games of any registered game through the state protocol, with the protocol's
invariants checked at every decision (`ftc selfplay --game NAME` for a game whose registry entry has
no selfplay of its own): a player to decide or chance or the end, dense distinct legal actions,
chance outcomes whose probabilities sum to 1, a determinization the player cannot tell from the
state, returns in [-1, 1] per player, and the record replaying to the same record. Game i has the
seed ``seed + i``; its random decisions come from ``Random(seed * 7919 + 1)``, as both shipped
games' selfplay does."""

from __future__ import annotations

import math
import os
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.execution import parse_cluster, run_units
from engine.games import registry
from engine.games.protocol import CHANCE, TERMINAL
from engine.games.recordfiles import RecordFolder

__all__ = ["MAX_DECISIONS", "SelfPlayStats", "run_seeds", "run_seed_chunks", "check_step", "play_checked",
           "protocol_seeds", "run_protocol_selfplay"]

#: A game that has not ended after this many decisions is an error (a rules loop).
MAX_DECISIONS = 200_000


@dataclass
class SelfPlayStats:
    games: int = 0
    decisions: int = 0
    errors: int = 0
    violations: int = 0
    seconds: float = 0.0
    results: Counter = field(default_factory=Counter)
    messages: list[str] = field(default_factory=list)
    #: (seed, record) of the finished games not yet written, when the run writes records (None: it
    #: does not). A unit keeps them for the process that writes (:func:`run_seeds`); merging leaves
    #: them out, since they are written as soon as they arrive.
    records: list[tuple[int, dict]] | None = None

    def keep(self, seed: int, state) -> None:
        """Keep the record of the finished game ``state`` of ``seed`` when records are kept."""
        if self.records is not None:
            self.records.append((seed, state.record()))

    def merge(self, other: SelfPlayStats) -> None:
        """Add ``other``'s games (those of later seeds) to these: counts and results summed, messages
        appended. ``seconds`` is left alone (the caller's wall clock), records too."""
        self.games += other.games
        self.decisions += other.decisions
        self.errors += other.errors
        self.violations += other.violations
        self.results.update(other.results)
        self.messages.extend(other.messages)

    def summary(self) -> str:
        return f"games: {self.games}, decisions: {self.decisions}, errors: {self.errors}, invariant violations: {self.violations}"


def run_seeds(unit: Callable[..., SelfPlayStats], rest: tuple, games: int, seed: int = 0, progress=None,
              cluster="local", workers: int | None = 1, records: str | os.PathLike | None = None) -> SelfPlayStats:
    """The games of seeds ``seed`` .. ``seed + games - 1``, each game's selfplay run:
    ``unit(first seed, count, *rest, keep)`` -> SelfPlayStats plays consecutive seeds (``keep``:
    whether it keeps each game's record, :meth:`SelfPlayStats.keep`). On one local worker the games
    are played here, one unit per game, ``progress(stats so far, seconds)`` after each; otherwise in
    chunks on ``cluster`` (:func:`run_seed_chunks`). With a folder ``records``, every finished game's
    record is written there as ``game-<seed>.json`` by this process as soon as its unit returns
    (engine/games/recordfiles.py), so a stop keeps the finished games. The statistics are the same
    on any cluster and worker count."""
    start = time.perf_counter()
    folder = None if records is None else RecordFolder(records)
    rest = (*rest, folder is not None)
    if parse_cluster(cluster).kind != "local" or workers != 1:
        return run_seed_chunks(unit, rest, games, seed, progress, cluster, workers, start, folder)
    stats = SelfPlayStats()
    for first in range(seed, seed + games):
        one = unit(first, 1, *rest)
        _write(one, folder)
        stats.merge(one)
        if progress:
            progress(stats, time.perf_counter() - start)
    stats.seconds = time.perf_counter() - start
    return stats


def _write(stats: SelfPlayStats, folder: RecordFolder | None) -> None:
    """Write the records ``stats`` keeps into ``folder`` (this process's) and forget them."""
    if folder is not None and stats.records:
        for seed, record in stats.records:
            folder.write_selfplay(seed, record)
        stats.records.clear()


def run_seed_chunks(unit: Callable[..., SelfPlayStats], rest: tuple, games: int, seed: int, progress, cluster,
                    workers: int | None, start: float, folder: RecordFolder | None = None) -> SelfPlayStats:
    """Seeds ``seed`` .. ``seed + games - 1`` in chunks of consecutive seeds, each a unit of
    engine.execution.run_units on ``cluster`` (``unit(first seed, count, *rest)`` -> SelfPlayStats),
    merged in seed order (the same statistics on any cluster), ``progress(stats so far, seconds)``
    and the chunk's records written into ``folder`` after each chunk; ``start``: the caller's clock."""
    # About four chunks per worker (an even load), at most 25 games each (progress, lost work).
    size = max(1, min(25, math.ceil(games / (4 * (workers or os.cpu_count() or 1)))))
    units = [(seed + first, min(size, games - first)) + tuple(rest) for first in range(0, games, size)]
    stats, live = SelfPlayStats(), SelfPlayStats()

    def finished(done: int, total: int, index: int, chunk: SelfPlayStats) -> None:
        _write(chunk, folder)
        live.merge(chunk)
        if progress:
            progress(live, time.perf_counter() - start)

    for chunk in run_units(unit, units, cluster, workers, finished):
        stats.merge(chunk)
    stats.seconds = time.perf_counter() - start
    return stats



def check_step(state, rng: random.Random) -> list[str]:
    """The protocol's invariants at one state (an empty list when they hold)."""
    problems = []
    player = state.current_player()
    legal = state.legal_actions()
    if state.is_terminal():
        returns = state.returns()
        if player != TERMINAL or legal:
            problems.append(f"a finished game has player {player} and {len(legal)} legal actions")
        if len(returns) != state.num_players or any(not -1.0 <= r <= 1.0 for r in returns):
            problems.append(f"returns {returns} are not one value in [-1, 1] per player")
        return problems
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        if player != CHANCE or not outcomes or abs(sum(p for _, p in outcomes) - 1.0) > 1e-9:
            problems.append(f"a chance node with player {player} and outcomes {outcomes[:5]}")
        return problems
    if not 0 <= player < state.num_players:
        problems.append(f"player {player} is not a seat, chance or the end")
    if not legal or len(set(legal)) != len(legal):
        problems.append(f"legal actions {legal[:10]} are empty or repeat one")
    sample = state.resample_hidden(player, random.Random(rng.getrandbits(32)))
    if sample.observation(player) != state.observation(player) or sample.legal_actions() != legal:
        problems.append(f"player {player}'s observation or options change when the hidden is resampled (a leak)")
    return problems


def play_checked(state, seed: int, check: bool, stats: SelfPlayStats, invariants=None):
    """Play ``state`` to its end with seeded random decisions (``Random(seed * 7919 + 1)``; chance by
    its probabilities) and return it; with ``check``, the protocol's invariants at every decision,
    a game's own ``invariants(state)`` (a list of problems) when given, and the record replaying to
    the same record. Decisions and violations go to ``stats``."""
    rng, check_rng = random.Random(seed * 7919 + 1), random.Random(seed)
    decisions = 0
    while True:
        if check:
            problems = check_step(state, check_rng) + (invariants(state) if invariants else [])
            for problem in problems:
                stats.violations += 1
                stats.messages.append(f"seed {seed}, decision {decisions}: {problem}")
        if state.is_terminal():
            break
        if decisions >= MAX_DECISIONS:
            raise RuntimeError(f"no end after {MAX_DECISIONS} decisions")
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            continue
        state.apply(rng.choice(state.legal_actions()))
        decisions += 1
    stats.decisions += decisions
    if check and registry.replay(state.record()).record() != state.record():
        stats.violations += 1
        stats.messages.append(f"seed {seed}: the record does not replay to the same record")
    return state


def _play(game, seed: int, check: bool, stats: SelfPlayStats) -> None:
    state = play_checked(game.start({"seed": seed}), seed, check, stats)
    stats.keep(seed, state)
    returns = state.returns()
    best = max(returns)
    stats.results["draw" if returns.count(best) > 1 else f"{game.seat(returns.index(best))} wins"] += 1


def play_seeds(first: int, games: int, keep: bool, play: Callable[[int, SelfPlayStats], None]) -> SelfPlayStats:
    """The statistics of the games of seeds first .. first + games - 1, each played by ``play(seed,
    stats)`` (which counts its result and keeps its record), with the games' records when ``keep``.
    A game that raises is an engine bug: counted as an error with its message, and the chunk goes on.
    Every game's chunk of seeds (a unit of engine.execution) is this loop."""
    stats = SelfPlayStats(records=[] if keep else None)
    start = time.perf_counter()
    for seed in range(first, first + games):
        try:
            play(seed, stats)
        except Exception as exc:  # a game's bug: count it, keep the message, go on
            stats.errors += 1
            stats.messages.append(f"seed {seed}: {type(exc).__name__}: {exc}")
        stats.games += 1
    stats.seconds = time.perf_counter() - start
    return stats


def protocol_seeds(first: int, games: int, name: str, check: bool, keep: bool = False) -> SelfPlayStats:
    """The statistics of seeds first .. first + games - 1 of the game ``name`` (a unit of
    engine.execution; a worker finds a plugin game through FTC_GAMES, inherited), with the games'
    records when ``keep``."""
    game = registry.get(name)
    return play_seeds(first, games, keep, lambda seed, stats: _play(game, seed, check, stats))


def run_protocol_selfplay(name: str, games: int, seed: int = 0, check: bool = True, progress=None,
                          cluster="local", workers: int | None = 1,
                          records: str | os.PathLike | None = None) -> SelfPlayStats:
    """``games`` seeded random games of the registered game ``name``, here (``progress`` after each)
    or in chunks on ``cluster``: the same statistics either way; each game's record written into
    the folder ``records`` when given (:func:`run_seeds`)."""
    return run_seeds(protocol_seeds, (name, check), games, seed, progress, cluster, workers, records)
