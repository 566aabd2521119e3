"""Matches between bots: seeded games with alternating sides, win/draw/loss with confidence
intervals, an Elo estimate, progress, and an optional plot (`ftc match`).

Games of more than two players (a configuration with ``"players": N``, e.g. Crownfall's): bot A takes
one seat and bot B every other one; A's seat rotates over the games (game i: seat i mod N) and each
set-up seed is played N times, once with A in each seat, so A sits in every seat equally often. A's
score in a game is 1 for a sole victory, 1/k for a victory shared by k players (the game's own
tie-breaks decide who wins: the players with the highest return win), 0 otherwise; a game nobody
wins counts as shared by all. Two players are the same rule: a shared victory is a draw (0.5).
Elo is given for two players only; with N players the fair share of wins is 1/N.

With a records folder (`ftc match --records DIR`), every game's record is written there by the
process that runs the match, with an index of who sat where (engine/games/recordfiles.py).

With an SPRT (`ftc match --sprt ELO0,ELO1`, engine/search/sprt.py; docs/sprt.md) the games are pairs:
pair k is games 2k (A moves first) and 2k + 1 (B moves first), both from set-up seed ``seed + k`` and
so from the same opening. Pairs are counted in pair order (pair k once pairs 0..k-1 are), so the test
decides after the same pairs on every cluster and worker count; the match stops as soon as it
decides. Games still running then are stopped, and they and every finished game of a pair not yet
counted are dropped: the result holds exactly the games the test counted. The SPRT needs two-player
games (its model is a score of 0, 1/2 or 1 against one opponent): with more players it is refused."""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.execution import Cluster, run_units
from engine.games.bots import Bot
from engine.games.recordfiles import RecordFolder
from engine.games.registry import for_variant
from engine.journal import Journal, JournalError, package_digest
from engine.search.sprt import SPRT

__all__ = ["MatchResult", "play_game", "play_seats", "play_match", "play_match_game", "match_journal", "is_game_result", "run_match", "plot_match",
           "match_players", "seat_of_a", "setup_seed", "share_of", "check_sprt_match"]


@dataclass
class MatchResult:
    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    outcomes: list[float] = field(default_factory=list)   # A's score per game: 1, 1/k (shared), 0
    turns: list[int] = field(default_factory=list)
    seconds: float = 0.0
    players: int = 2
    seats: list[int] = field(default_factory=list)        # A's seat per game

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, outcome: float, turns: int, seat: int | None = None) -> None:
        """Count one game: A's score in it (1 win, 1/k a victory shared by k (a two-player draw: 0.5),
        0 loss), its length and A's seat."""
        if outcome == 1.0:
            self.wins += 1
        elif outcome == 0.0:
            self.losses += 1
        else:
            self.draws += 1
        self.outcomes.append(outcome)
        self.turns.append(turns)
        if seat is not None:
            self.seats.append(seat)

    @property
    def score(self) -> float:
        if not self.games:
            return 0.0
        shared = (sum(o for o in self.outcomes if 0.0 < o < 1.0) if len(self.outcomes) == self.games
                  else 0.5 * self.draws)
        return (self.wins + shared) / self.games

    def seat_scores(self) -> list[dict]:
        """A's games, score and 95% interval in each seat."""
        out = []
        for seat in range(self.players):
            part = MatchResult(self.a, self.b, players=self.players)
            for outcome, turns, where in zip(self.outcomes, self.turns, self.seats):
                if where == seat:
                    part.add(outcome, turns, seat)
            low, high = part.interval()
            out.append({"seat": seat, "games": part.games, "score": part.score, "score_ci95": [low, high]})
        return out


    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval of A's score (draws count half), 95% by default."""
        n = self.games
        if n == 0:
            return 0.0, 1.0
        p = self.score
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def elo(self) -> tuple[float, float, float]:
        """Elo difference of A over B with its 95% interval (from the score interval)."""

        def to_elo(p: float) -> float:
            p = min(max(p, 1e-4), 1 - 1e-4)
            return -400 * math.log10(1 / p - 1)

        low, high = self.interval()
        return to_elo(self.score), to_elo(low), to_elo(high)

    def summary(self) -> str:
        if self.players > 2:
            return (f"A wins {self.wins}, shares {self.draws}, losses {self.losses}, score {100 * self.score:.1f}% "
                    f"(fair share {100 / self.players:.1f}%)")
        return f"A wins {self.wins}, draws {self.draws}, losses {self.losses}, score {100 * self.score:.1f}%"

    def details(self) -> str:
        low, high = self.interval()
        if self.players > 2:
            seats = ", ".join(f"seat {row['seat'] + 1} {100 * row['score']:.0f}% of {row['games']}"
                              for row in self.seat_scores())
            return (f"{self.a} vs {self.b} x{self.players - 1}: {self.games} games of {self.players} players, A's "
                    f"score {100 * self.score:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}%; fair share "
                    f"{100 / self.players:.1f}%), by A's seat: {seats}, mean length "
                    f"{sum(self.turns) / max(1, len(self.turns)):.1f} turns, {self.seconds:.1f} s")
        elo, elo_low, elo_high = self.elo()
        return (f"{self.a} vs {self.b}: {self.games} games, score {100 * self.score:.1f}% "
                f"(95% CI {100 * low:.1f}-{100 * high:.1f}%), Elo {elo:+.0f} ({elo_low:+.0f} to {elo_high:+.0f}), "
                f"mean length {sum(self.turns) / max(1, len(self.turns)):.1f} turns, {self.seconds:.1f} s")

    def to_json(self) -> dict:
        low, high = self.interval()
        out = {"a": self.a, "b": self.b, "games": self.games, "wins": self.wins, "draws": self.draws,
               "losses": self.losses, "score": self.score, "score_ci95": [low, high]}
        if self.players == 2:
            elo = self.elo()
            out |= {"elo": elo[0], "elo_ci95": [elo[1], elo[2]]}
        else:
            out |= {"players": self.players, "fair_share": 1 / self.players, "seats": self.seats,
                    "by_seat": self.seat_scores()}
        return out | {"outcomes": self.outcomes, "turns": self.turns}


def play_game(config, blue: Bot, yellow: Bot, opening_plies: int = 0):
    """One game (a configuration dict of any game, engine.games.registry, or a game's own
    configuration object with ``variant`` and ``seed``, such as For the Crown's GameConfig); the
    first ``opening_plies`` decisions are random (seeded by the game's seed), so that deterministic
    bots do not replay one game over and over. ``blue`` moves first (King's Ransom: Red)."""
    return play_seats(config, [blue, yellow], opening_plies)


def play_seats(config, bots: list[Bot], opening_plies: int = 0):
    """One game of ``len(bots)`` players, ``bots[i]`` in seat i (see :func:`play_game`)."""
    if isinstance(config, dict):
        variant, seed = config.get("variant"), config.get("seed") or 0
    else:
        variant, seed = config.variant, config.seed
    state = for_variant(variant).start(config)
    opening = random.Random(seed * 31 + 7)
    for _ in range(opening_plies):
        if state.is_terminal():
            break
        state.apply(opening.choice(state.legal_actions()))
    for bot in bots:
        bot.reset()
    while not state.is_terminal():
        state.apply(bots[state.current_player()].choose(state))
    return state


def match_players(config: dict | None) -> int:
    """The players of a match's games: the configuration's "players", else two."""
    return (config or {}).get("players", 2) if isinstance(config, dict) else 2


def seat_of_a(index: int, players: int) -> int:
    """A's seat in game ``index`` of a match of ``players``-player games (it rotates)."""
    return index % players


def share_of(returns: list[float], seat: int) -> float:
    """A seat's score in a finished game from its returns: the players of the highest return won
    (the game's tie-breaks decided); a sole winner 1, each of k winners 1/k, a loser 0."""
    best = max(returns)
    if returns[seat] < best:
        return 0.0
    return 1.0 / sum(1 for r in returns if r == best)


def setup_seed(seed: int, index: int, players: int) -> int:
    """The set-up seed of game ``index`` of a match from ``seed`` (each is played once with A in
    every seat)."""
    return seed + index // players


def _match_game(make_a: Callable[[int], Bot], make_b: Callable[[int], Bot], config: dict | None, seed: int,
                index: int, opening_plies: int):
    """Game ``index`` of a match: (A's score, turns, the finished state). Each set-up seed is played
    once with A in every seat (two players: pairs of games swap colours); the bots are built with a
    per-game seed."""
    n = match_players(config)
    seat = seat_of_a(index, n)
    cfg = {**(config or {}), "seed": setup_seed(seed, index, n)}
    a = make_a(seed * 7919 + index)
    bots = [make_b(seed * 7919 + index + 100_003 * (k + 1)) for k in range(n - 1)]
    bots.insert(seat, a)
    state = play_seats(cfg, bots, opening_plies)
    return share_of(state.returns(), seat), state.turn, state


def play_match(make_a: Callable[[int], Bot], make_b: Callable[[int], Bot], games: int, seed: int = 0,
               config: dict | None = None, names: tuple[str, str] = ("A", "B"),
               progress: Callable[[MatchResult], None] | None = None, opening_plies: int = 0) -> MatchResult:
    """Games in pairs, in this process: each pair shares a set-up seed and swaps colours, so neither
    bot profits from the luck of the Supply or of moving first. Bots are rebuilt with a per-game seed
    (``make_a(seed)``, any callable: nothing is sent anywhere). :func:`run_match` plays the same games
    from bot specs on other processes or a cluster."""
    n = match_players(config)
    result = MatchResult(*names, players=n)
    start = time.perf_counter()
    for index in range(games):
        score, turns, _ = _match_game(make_a, make_b, config, seed, index, opening_plies)
        result.add(score, turns, seat_of_a(index, n))
        result.seconds = time.perf_counter() - start
        if progress:
            progress(result)
    return result


def play_match_game(a_spec: str, b_spec: str, config: dict, seed: int, index: int,
                    opening_plies: int, keep: bool = False) -> tuple[float, int, dict | None]:
    """Game ``index`` of the match of the bots ``a_spec`` and ``b_spec`` (make_bot specs): (A's score
    1 / 0.5 / 0, turns, kept), ``kept`` with ``keep`` the game's record, returns and how it ended
    (``{"record", "returns", "over"}``, for the process that writes the records), else None. A unit
    of engine.execution: the same game wherever it runs."""
    game = for_variant((config or {}).get("variant"))
    score, turns, state = _match_game(lambda s: game.bots.make_bot(a_spec, s), lambda s: game.bots.make_bot(b_spec, s),
                                      config, seed, index, opening_plies)
    kept = {"record": state.record(), "returns": list(state.returns()), "over": state.over_reason} if keep else None
    return score, turns, kept


class _Decided(Exception):
    """Raised from run_match's progress hook when its SPRT decides: engine.execution.run_units stops
    the run (running games are stopped, queued ones cancelled)."""


def check_sprt_match(games: int, players: int) -> None:
    """A clear one-line refusal of an SPRT match that cannot be played: games of more than two players
    (the test's model is a score of 0, 1/2 or 1 against one opponent) or an odd number of games."""
    if players != 2:
        raise ValueError(f"--sprt needs two-player games (a score of 0, 1/2 or 1 against one opponent); "
                         f"these have {players} players")
    if games % 2:
        raise ValueError(f"--sprt plays games in pairs (colours swapped from one opening): --games {games} is odd")


def match_journal(path, a_spec: str, b_spec: str, seed: int, config: dict | None, opening_plies: int,
                  sprt: SPRT | None) -> Journal:
    """The journal at ``path`` of :func:`run_match`'s match of these players, seeds, game options,
    opening and SPRT (its bounds and error rates), played by this engine (``package_digest``): a
    journal of any other match, or of the same match played by other code, is refused
    (engine.journal.JournalError naming the first difference) and left as it was. The number of games
    is not part of it: a match may be continued with a larger ``games``."""
    run = {"a": a_spec, "b": b_spec, "seed": seed, "config": dict(config or {}), "opening": opening_plies,
           "sprt": None if sprt is None else sprt.design(),
           "engine": package_digest()}
    return Journal(path, "ftc-match", run)


def is_game_result(score, turns) -> bool:
    """Whether ``score`` and ``turns``, as a journal holds them (JSON values), are one game's: A's score
    0, 0.5 or 1 and a count of turns (booleans are neither). The one check of every runner's journal."""
    return (score in (0, 0.5, 1) and not isinstance(score, bool)
            and isinstance(turns, int) and not isinstance(turns, bool) and turns >= 0)


def _journal_game(journal: Journal, index: int, row: dict) -> tuple[float, int, None]:
    """Game ``index`` as ``journal`` holds it, (A's score, turns, None); a JournalError naming the file
    and the game when the line is not one."""
    score: Any = row.get("score")
    turns: Any = row.get("turns")
    if not is_game_result(score, turns):
        raise JournalError(f"{journal.path}: game {index}: expected {{\"score\": 0, 0.5 or 1, \"turns\": a count}}, "
                           f"got {json.dumps(row)[:200]}")
    return float(score), turns, None


def run_match(a_spec: str, b_spec: str, games: int, seed: int = 0, config: dict | None = None,
              progress: Callable[[MatchResult], None] | None = None, opening_plies: int = 0,
              cluster: str | Cluster = "local", workers: int | None = None, records=None,
              sprt: SPRT | None = None, journal: Journal | None = None) -> MatchResult:
    """The match of :func:`play_match` between two make_bot specs, one game per unit on ``cluster``
    with ``workers`` workers (engine.execution.run_units; one local worker: in this process).
    ``progress`` sees the games as they finish; the result holds them in game order, so it is the
    same on every cluster and worker count. With a folder ``records``, each game's record is written
    there as it finishes, by this process, with its line in the folder's index (seats' bot specs,
    set-up seed, returns; engine/games/recordfiles.py): a stop keeps the finished games.

    With ``sprt`` (a fresh :class:`engine.search.sprt.SPRT`, usually with ``max_games=games``) the
    games are played as pairs and fed to the test in pair order; the match stops when it decides
    (see the module's notes). ``progress`` and ``records`` then see the games as their pair is
    counted.

    With a ``journal`` (engine/journal.py; its header names this match: :func:`match_journal`) every
    finished game is written to it, ``{"unit": INDEX, "score": S, "turns": T}``, before it is counted,
    and the games it already holds are counted first (in game order; with ``sprt``, in pair order) and
    not played again: a match stopped by a Ctrl-C, a crash or the session's end goes on where it
    stopped and decides after the same games. Records are written for the games played in this run."""
    n = match_players(config)
    if sprt is not None:
        check_sprt_match(games, n)
        if sprt.games:
            raise ValueError(f"run_match needs a fresh SPRT; this one has counted {sprt.games} games already")
    live = MatchResult(a_spec, b_spec, players=n)
    start = time.perf_counter()
    folder = None if records is None else RecordFolder(records)
    if folder is not None:
        folder.start_match()
    waiting: dict[int, tuple[float, int, dict | None]] = {}     # finished games of pairs not yet counted
    counted: list[tuple[float, int, dict | None]] = []          # the SPRT's games, in game order

    def count(index: int, game: tuple[float, int, dict | None]) -> None:
        outcome, turns, kept = game
        seat = seat_of_a(index, n)
        if folder is not None and kept is not None:
            seats = [b_spec] * n
            seats[seat] = a_spec
            folder.write_match(index, kept["record"], {
                "seed": setup_seed(seed, index, n), "seats": seats, "a_seat": seat, "returns": kept["returns"],
                "a_score": outcome, "turns": turns, "over": kept["over"]})
        live.add(outcome, turns, seat)
        live.seconds = time.perf_counter() - start
        if progress:
            progress(live)

    games_done: dict[int, tuple[float, int, dict | None]] = {}   # without sprt: every game, by index

    def take(index: int, game: tuple[float, int, dict | None]) -> None:
        if sprt is None:
            games_done[index] = game
            count(index, game)
            return
        waiting[index] = game
        while len(counted) in waiting and len(counted) + 1 in waiting:   # the next pair, both games done
            first, second = waiting.pop(len(counted)), waiting.pop(len(counted) + 1)
            sprt.add_pair(first[0], second[0])
            for game_of_pair in (first, second):
                count(len(counted), game_of_pair)
                counted.append(game_of_pair)
            if sprt.finished:
                raise _Decided

    kept = {} if journal is None else {i: _journal_game(journal, i, row) for i, row in journal.done.items() if i < games}
    todo = [index for index in range(games) if index not in kept]

    def finished(done: int, total: int, position: int, game: tuple[float, int, dict | None]) -> None:
        index = todo[position]
        if journal is not None:
            journal.add(index, {"score": game[0], "turns": game[1]})
        take(index, game)

    units = [(a_spec, b_spec, dict(config or {}), seed, index, opening_plies, folder is not None)
             for index in todo]
    result = MatchResult(a_spec, b_spec, players=n)
    try:
        for index in sorted(kept):              # the journal's games first, as if just finished
            take(index, kept[index])
        run_units(play_match_game, units, cluster, workers, finished)
    except _Decided:
        pass
    played = counted if sprt is not None else [games_done[i] for i in sorted(games_done)]
    for index, (outcome, turns, _) in enumerate(played):
        result.add(outcome, turns, seat_of_a(index, n))
    result.seconds = time.perf_counter() - start
    return result


def plot_match(result: MatchResult, path: str) -> None:
    """A's running score with its 95% interval over the games, and the game lengths."""
    fig = match_figure(result)
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt
    plt.close(fig)


def match_figure(result: MatchResult):
    """The figure of :func:`plot_match` (a matplotlib Figure): games are counted whole on its x axis."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:  # pragma: no cover - depends on the installation
        raise RuntimeError("plots need matplotlib: pip install 'ftc-engine[plot]'") from None
    xs, mean, low, high = [], [], [], []
    partial = MatchResult(result.a, result.b, players=result.players)
    for i, (outcome, turns) in enumerate(zip(result.outcomes, result.turns), 1):
        partial.add(outcome, turns)
        lo, hi = partial.interval()
        xs.append(i)
        mean.append(100 * partial.score)
        low.append(100 * lo)
        high.append(100 * hi)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True, height_ratios=[3, 1])
    top.fill_between(xs, low, high, alpha=0.25, label="95% interval")
    top.plot(xs, mean, marker="." if len(xs) <= 60 else None, label=f"{result.a} score")
    top.axhline(100 / result.players, color="grey", linewidth=0.8, linestyle="--")
    top.set_ylim(-2, 102)
    top.set_ylabel("score of A (%)")
    top.set_title(f"{result.a} vs {result.b}: {result.summary()}")
    top.legend(loc="lower right")
    bottom.bar(xs, result.turns, color=["tab:green" if o == 1 else "tab:red" if o == 0 else "tab:grey" for o in result.outcomes])
    bottom.set_ylabel("turns")
    bottom.set_xlabel("game")
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))        # game 2, not game 2.5
    fig.tight_layout()
    return fig
