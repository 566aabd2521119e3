#!/usr/bin/env python3
"""The ladder of For the Crown's full-game AI: this checkout's AI against frozen earlier versions of
itself, each version running its own code (docs/ladder.md).

    python tools/ladder.py play dc56811 --spec ismcts:50 --pairs 4 --workers 1
    python tools/ladder.py play dc56811 HEAD~20 --spec ismcts:200 --sprt -10,10 --pairs 200
    python tools/ladder.py gate --base HEAD --spec ismcts:200 --sprt 0,10     # exit 0: the change passes
    python tools/ladder.py render                                              # docs/ladder.md again

**A frozen version** is a commit, checked out and built under the cache folder
(``~/.cache/ftc-ladder/<commit>``, ``--cache``; tools/checkouts.py: a build is reused when ``ext/``
and ``setup.py`` are those of a checkout already built). Its AI runs in a subprocess started in that
checkout (its own ``engine`` first on the path), driven through a small line protocol on
stdin/stdout, one JSON object a line:

- the driver starts with ``{"ok": true, "engine": VERSION, "path": ENGINE_FILE}``;
- ``{"cmd": "bot", "spec": SPEC, "seed": N}``: a fresh bot of that version (its own ``make_bot``)
  for the next game;
- ``{"cmd": "choose", "seat": S, "record": RECORD}``: the game so far as a record of this engine
  (configuration, seed, every step; ``engine/crown/record.py``), which the version replays with its
  own rules, checking the record's fingerprint; it answers ``{"ok": true, "action": A}``, the
  action its bot chooses for seat S;
- ``{"cmd": "quit"}``. A refused request answers ``{"ok": false, "error": ...}``.

The record crosses instead of a text so that nothing is lost; the chance generator's state (which
would tell the future draws) is left out. The frozen bot gets the game as an in-process bot gets its
state, and it sees only its seat's information the same way: the full-game AI searches
determinizations of its seat's observation (engine/crown/players.py). The JSON-lines protocol of
``ftc engine`` (engine/interfaces/protocol.py) can load a record and search too, but its ``search`` is
a fresh searcher per request without the bot's guide and tree reuse, so it is not the AI that plays
``ftc match``; the driver asks each version for its own bot.

**A rung** is a match of pairs: pair k plays games 2k (this checkout's AI first) and 2k + 1 (the
frozen one first) from set-up seed ``seed + k``, as ``ftc match`` does (engine/search/match.py).
With ``--sprt ELO0,ELO1`` the pairs feed an SPRT in pair order (engine/search/sprt.py, docs/sprt.md)
and the rung stops when it decides; ``--pairs`` is then the most it plays. Each rung is appended to
the ladder file (docs/results/ladder.json) and docs/ladder.md is written again with its table and
plot (Elo by version).

**The gate** (``gate --base COMMIT``): the working tree's AI (the candidate) against the AI of
``COMMIT`` (the current one) by SPRT; exit 0 when H1 is accepted (the candidate is at least ELO1
stronger), 1 when H0 is accepted or the test ends undecided, 2 on an error.

**A journal** (``--journal FILE``, engine/journal.py): every pair is written to FILE as it finishes,
and a rung started again with the same FILE counts the pairs it holds and plays only the others, so
a gate of hundreds of pairs can span sessions (commit the journal beside the change it judges). The
file's header names the test: the frozen commit, both specs, the seed, the opening, the turn limit,
the SPRT and a digest of this checkout's engine (tools/checkouts.py ``engine_digest``); a FILE of
another test, or one whose candidate's code has changed since, is refused with a line naming what
differs.

A frozen process that dies, answers nonsense or gives no action within ``--timeout`` seconds stops
the run with one line naming the version and what happened. Ctrl-C stops the run; a rung not
finished is not recorded (with ``--journal`` its finished pairs are kept).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.execution import UnitFailed, run_units  # noqa: E402
from engine.games import registry  # noqa: E402
from engine.games.bots import Bot  # noqa: E402
from engine.journal import Journal, JournalError  # noqa: E402
from engine.search.match import MatchResult, is_game_result, play_seats, seat_of_a, setup_seed, share_of  # noqa: E402
from engine.search.sprt import SPRT, add_sprt_options  # noqa: E402
from tools.checkouts import DEFAULT_CACHE, CheckoutError, cached_checkout, engine_digest, resolve_commit  # noqa: E402

GAME = "crown"
LADDER = ROOT / "docs" / "results" / "ladder.json"
DOCS = ROOT / "docs" / "ladder.md"
PLOT = "ladder.png"
FORMAT = "ftc-ladder"
VERSION = 1
STARTUP_SECONDS = 120.0          # importing an engine (a cold disk, a loaded machine)

#: The driver, run by ``python -c`` in a frozen checkout: its own engine answers (module notes).
#: It only uses what every version since issue 12 has: make_bot and replay, in their pre- or
#: post-issue-41 homes.
DRIVER = r'''
import json, os, sys

OUT = sys.stdout
sys.stdout = sys.stderr          # what the engine prints does not mix with the answers
HERE = os.path.realpath(os.getcwd())
# An editable install of the engine (pip install -e) adds an import finder that maps engine.* to its
# own folder: a module this version lacks would be taken from there. Only this checkout's count.
sys.meta_path[:] = [f for f in sys.meta_path if not (getattr(f, "__module__", None) or "").startswith("__editable__")]

def answer(value):
    OUT.write(json.dumps(value) + "\n")
    OUT.flush()

def foreign():
    """The engine modules loaded from outside this checkout."""
    return sorted(name for name, module in list(sys.modules.items())
                  if (name == "engine" or name.startswith("engine.")) and getattr(module, "__file__", None)
                  and not os.path.realpath(module.__file__).startswith(HERE + os.sep))

try:
    import engine
    try:
        from engine.crown.players import make_bot
        from engine.crown.state import replay
        from engine.crown import actions as A
        from engine.crown.record import fingerprint
    except ImportError:                            # before issue 41
        from engine.search.bots import make_bot
        from engine.game.state import replay
        from engine.game import actions as A
        from engine.game.record import fingerprint
except Exception as exc:
    answer({"ok": False, "error": f"cannot load its engine: {type(exc).__name__}: {exc}"})
    sys.exit(1)
if foreign():
    answer({"ok": False, "error": f"engine modules from outside {HERE}: {', '.join(foreign()[:5])}"})
    sys.exit(1)
answer({"ok": True, "engine": getattr(engine, "__version__", "?"), "path": engine.__file__})

bot = None
state, applied, config = None, [], None

def advanced(record):
    """The record's state: the last one with the new steps applied when the record continues it (its
    fingerprint checked), else the record replayed from the start."""
    global state, applied, config
    steps = record["steps"]
    n = len(applied)
    if state is not None and record["config"] == config and steps[:n] == applied:
        try:
            state.auto_chance = False
            for player, action in steps[n:]:
                if action == A.RESIGN and player in (0, 1) and not state.is_terminal():
                    state.resign(player)
                else:
                    state.apply(action)
            state.auto_chance = True
            if fingerprint(state) == record.get("fingerprint", fingerprint(state)):
                applied = [list(s) for s in steps]
                return state
        except Exception:
            pass
    state = replay(record)
    applied, config = [list(s) for s in steps], record["config"]
    return state

for line in sys.stdin:
    try:
        request = json.loads(line)
        cmd = request.get("cmd")
        if cmd == "quit":
            break
        if cmd == "bot":
            bot = make_bot(request["spec"], request["seed"])
            state, applied, config = None, [], None
            answer({"ok": True})
        elif cmd == "choose":
            if bot is None:
                raise ValueError("no bot yet (send bot first)")
            g = advanced(request["record"])
            if g.is_terminal():
                raise ValueError("the game is over")
            if g.current_player() != request["seat"]:
                raise ValueError(f"player {g.current_player()} is to act, not seat {request['seat']}")
            action = int(bot.choose(g))
            if foreign():
                raise ImportError(f"engine modules from outside {HERE}: {', '.join(foreign()[:5])}")
            answer({"ok": True, "action": action})
        else:
            raise ValueError(f"unknown command {cmd!r}")
    except Exception as exc:
        answer({"ok": False, "error": f"{type(exc).__name__}: {exc}"})
'''


class LadderError(ValueError):
    """What stops a rung, in one line."""


# -- a frozen version in a subprocess ---------------------------------------------------------------
class FrozenProcess:
    """The driver (DRIVER) running in ``checkout``; ``label`` names the version in errors. Every
    answer is awaited at most ``timeout`` seconds (``startup`` for the first)."""

    def __init__(self, checkout: Path, label: str, timeout: float = 300.0, startup: float = STARTUP_SECONDS,
                 python: str = sys.executable):
        self.label, self.timeout, self.checkout = label, timeout, Path(checkout).resolve()
        self._buffer = b""
        self._stderr = tempfile.TemporaryFile()
        env = {**os.environ, "PYTHONPATH": str(self.checkout), "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            self.proc = subprocess.Popen([python, "-u", "-c", DRIVER], cwd=self.checkout, env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)
        except OSError as exc:
            self._stderr.close()
            raise LadderError(f"{label}: cannot start its process in {self.checkout} ({exc})") from None
        hello = self._answer(startup, "its start")
        engine_file = Path(hello.get("path") or "").resolve()
        if self.checkout not in engine_file.parents:
            self.close()
            raise LadderError(f"{label}: its process loaded the engine from {engine_file}, not from {self.checkout}")
        self.engine = hello.get("engine")

    def _stderr_tail(self) -> str:
        """The last line the process wrote to stderr ("" when none, or once it is closed)."""
        try:
            self._stderr.seek(0)
            lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        except ValueError:
            return ""
        return lines[-1] if lines else ""

    def _line(self, seconds: float, what: str) -> bytes:
        deadline = time.monotonic() + seconds
        out = self.proc.stdout
        assert out is not None
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close(stop=True)
                raise LadderError(f"{self.label}: no answer to {what} within {seconds:g} s (the process was stopped)")
            ready, _, _ = select.select([out], [], [], left)
            if not ready:
                continue
            chunk = os.read(out.fileno(), 65536)
            if not chunk:
                code = self.proc.wait()
                tail = self._stderr_tail()
                self.close()
                raise LadderError(f"{self.label}: its process ended (exit {code}) before answering {what}"
                                  + (f": {tail}" if tail else ""))
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _answer(self, seconds: float, what: str) -> dict:
        line = self._line(seconds, what)
        try:
            value = json.loads(line)
        except ValueError:
            self.close()
            raise LadderError(f"{self.label}: not a JSON answer to {what}: {line[:120]!r}") from None
        if not isinstance(value, dict) or not value.get("ok"):
            error = value.get("error") if isinstance(value, dict) else value
            if what == "its start":
                self.close()
            raise LadderError(f"{self.label}: {what} refused: {error}")
        return value

    def request(self, value: dict, what: str) -> dict:
        """Send one request and return its answer (LadderError when refused, late or never)."""
        if self.proc.poll() is not None:
            tail = self._stderr_tail()
            raise LadderError(f"{self.label}: its process has ended (exit {self.proc.returncode})"
                              + (f": {tail}" if tail else ""))
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(value) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            code = self.proc.wait()
            tail = self._stderr_tail()
            raise LadderError(f"{self.label}: its process ended (exit {code}) before {what}"
                              + (f": {tail}" if tail else "")) from None
        return self._answer(self.timeout, what)

    def close(self, stop: bool = False) -> None:
        """End the process: asked to quit (up to 5 s), or killed at once with ``stop``."""
        if stop and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(b'{"cmd": "quit"}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self._stderr.close()

    def __enter__(self) -> FrozenProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def sent_record(state) -> dict:
    """The record a frozen version is sent: the game so far, without the chance generator's state
    (the future draws) and without the result."""
    record = state.record()
    return {key: value for key, value in record.items() if key not in ("rng", "result")}


class FrozenBot(Bot):
    """A player of a frozen version: a fresh bot ``spec`` (seeded ``seed``) in its process, asked for
    every decision of its seat."""

    name = "frozen"

    def __init__(self, process: FrozenProcess, spec: str, seed: int):
        self.process = process
        process.request({"cmd": "bot", "spec": spec, "seed": seed}, f"bot {spec}")

    def choose(self, state) -> int:
        seat = state.current_player()
        answer = self.process.request({"cmd": "choose", "seat": seat, "record": sent_record(state)},
                                      f"a decision of turn {state.turn}")
        action = answer.get("action")
        if not isinstance(action, int) or action not in state.legal_actions():
            raise LadderError(f"{self.process.label}: its action {action!r} at turn {state.turn} is not legal here "
                              "(its rules differ from this checkout's?)")
        return action


# -- a rung: pairs of games ---------------------------------------------------------------------------
def play_pair(checkout: str, label: str, spec: str, opponent_spec: str, seed: int, pair: int, opening: int,
              config: dict, timeout: float) -> list[tuple[float, int]]:
    """Pair ``pair`` of a rung: [(this AI's score, turns)] for games 2k (this checkout's AI first) and
    2k + 1, both from set-up seed ``seed + pair``. A unit of engine.execution: its own frozen process."""
    game = registry.get(GAME)
    out = []
    with FrozenProcess(Path(checkout), label, timeout) as process:
        for index in (2 * pair, 2 * pair + 1):
            seat = seat_of_a(index, 2)
            ours = game.bots.make_bot(spec, seed * 7919 + index)
            theirs = FrozenBot(process, opponent_spec, seed * 7919 + index + 100_003)
            bots: list[Bot] = [theirs]
            bots.insert(seat, ours)
            state = play_seats({**config, "seed": setup_seed(seed, index, 2)}, bots, opening)
            out.append((share_of(state.returns(), seat), state.turn))
    return out


class _Decided(Exception):
    pass


def rung_journal(path: Path, kind: str, opponent: str, spec: str, opponent_spec: str, seed: int, opening: int,
                 config: dict, sprt: SPRT | None, candidate: str | None = None) -> Journal:
    """The journal of a rung (engine/journal.py): its pairs survive a stop, and the rung resumes from
    it only when it is the same test: the same frozen commit (``opponent``), specs, seeds, opening,
    turn limit and SPRT, and the same engine in this checkout (``candidate``: tools/checkouts.py ``engine_digest``)."""
    run = {"kind": kind, "opponent": opponent, "candidate": candidate or engine_digest(),
           "spec": spec, "opponent_spec": opponent_spec, "seed": seed, "opening": opening, "config": config,
           "sprt": None if sprt is None else sprt.design()}
    try:
        return Journal(path, "ftc-ladder-rung", run)
    except JournalError as exc:
        raise LadderError(f"--journal {exc}") from None


def _journal_pair(journal: Journal, pair: int, row: dict) -> list[tuple[float, int]]:
    """Pair ``pair``'s two games as the journal holds them; LadderError naming the pair when they are
    not two (score, turns) of a game."""
    games = row.get("games")
    ok = isinstance(games, list) and len(games) == 2 and all(
        isinstance(g, list) and len(g) == 2 and is_game_result(*g) for g in games)
    if not ok:
        raise LadderError(f"--journal {journal.path}: pair {pair + 1}: expected \"games\": [[SCORE, TURNS], "
                          f"[SCORE, TURNS]] with scores 0, 0.5 or 1, found {json.dumps(games)}")
    return [(float(score), turns) for score, turns in games]


def run_rung(checkout: Path, label: str, spec: str, opponent_spec: str, pairs: int, seed: int = 0,
             opening: int = 0, config: dict | None = None, sprt: SPRT | None = None, workers: int = 1,
             timeout: float = 300.0, play: Callable[..., list[tuple[float, int]]] | None = None,
             say: Callable[[str], None] | None = None, journal: Journal | None = None) -> MatchResult:
    """Up to ``pairs`` pairs of this checkout's ``spec`` against the frozen ``opponent_spec`` in
    ``checkout``; with ``sprt`` they feed the test in pair order and the rung stops when it decides
    (the result then holds exactly the pairs counted). ``play``: the unit that plays one pair
    (default :func:`play_pair`). With ``journal`` (:func:`rung_journal`) the pairs it holds are
    counted first and not played again, and every pair played is written to it before it counts."""
    say = say or (lambda line: None)
    result = MatchResult(spec, f"{label} {opponent_spec}")
    waiting: dict[int, list[tuple[float, int]]] = {}
    start = time.perf_counter()
    kept = {} if journal is None else {k: _journal_pair(journal, k, row) for k, row in journal.done.items() if k < pairs}

    def finished(done: int, total: int, index: int, games: list[tuple[float, int]]) -> None:
        if journal is not None and index not in kept:
            journal.add(index, {"games": [[score, turns] for score, turns in games]})
        waiting[index] = games
        while result.games // 2 in waiting:
            k = result.games // 2
            pair = waiting.pop(k)
            for g, (score, turns) in enumerate(pair):
                result.add(score, turns, seat_of_a(2 * k + g, 2))
            result.seconds = time.perf_counter() - start
            line = f"pair {k + 1}/{pairs}: {pair[0][0]:g} {pair[1][0]:g}; {result.summary()}"
            if sprt is not None:
                sprt.add_pair(pair[0][0], pair[1][0])
                line += f"; LLR {sprt.llr():+.2f} {sprt.status()}"
            say(line)
            if sprt is not None and sprt.finished:
                raise _Decided

    try:
        if kept:
            say(f"{len(kept)} pair(s) from the journal {journal.path if journal else ''}")
            for k in sorted(kept):
                finished(len(waiting), pairs, k, kept[k])
        units = [(str(checkout), label, spec, opponent_spec, seed, k, opening, dict(config or {}), timeout)
                 for k in range(pairs) if k not in kept]
        run_units(play or play_pair, units, "local", workers,
                  lambda done, total, i, games: finished(done, total, units[i][5], games))
    except _Decided:
        pass
    except UnitFailed as exc:
        cause = exc.__cause__
        pair = units[exc.index][5]
        if isinstance(cause, LadderError):
            raise LadderError(f"pair {pair + 1}: {cause}") from None
        message = str(exc).removeprefix(f"unit {exc.index}: ").removeprefix("LadderError: ")
        raise LadderError(f"pair {pair + 1}: {message}") from None
    result.seconds = time.perf_counter() - start
    return result


# -- the ladder file and its page ---------------------------------------------------------------------
def read_ladder(path: Path) -> dict:
    """The ladder file (an empty ladder when there is none); LadderError when it is not one."""
    path = Path(path)
    if not path.exists():
        return {"format": FORMAT, "version": VERSION, "rungs": []}
    try:
        ladder = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise LadderError(f"{path}: not a readable ladder file ({exc})") from None
    if not isinstance(ladder, dict) or ladder.get("format") != FORMAT or not isinstance(ladder.get("rungs"), list):
        raise LadderError(f"{path}: not a ladder file (format {FORMAT})")
    return ladder


def append_rung(path: Path, rung: dict) -> dict:
    """Add ``rung`` to the ladder file (numbered after the others); returns the ladder."""
    ladder = read_ladder(path)
    ladder["rungs"].append({"index": len(ladder["rungs"]) + 1, **rung})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(ladder, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)
    return ladder


def _interval(rung: dict) -> str:
    low, high = rung["elo_ci95"]
    return f"{rung['elo']:+.0f} [{low:+.0f}, {high:+.0f}]"


def ladder_markdown(ladder: dict, plot: str | None = None) -> str:
    """The ladder as a markdown page: what it is, the plot, one row per rung."""
    rows = ["| # | kind | AI of | against | budget | games | W-D-L | score | Elo of the AI over it (95%) | SPRT | date |",
            "| --- | --- | --- | --- | --- | ---: | --- | ---: | --- | --- | --- |"]
    for r in ladder["rungs"]:
        sprt = r.get("sprt")
        test = "-" if not sprt else (f"{sprt['decision']}, LLR {sprt['llr']:+.2f} "
                                     f"(H0 {sprt['elo0']:g}, H1 {sprt['elo1']:g})")
        current = f"`{r['current']['commit'][:10]}`" + (" + changes" if r["current"].get("dirty") else "")
        opponent = f"`{r['opponent']['commit'][:10]}` ({r['opponent']['date'][:10]})"
        budget = r["spec"] if r["spec"] == r["opponent_spec"] else f"{r['spec']} vs {r['opponent_spec']}"
        wins, draws, losses = r["wdl"]
        rows.append(f"| {r['index']} | {r['kind']} | {current} | {opponent} | `{budget}` | {r['games']} | "
                    f"{wins}-{draws}-{losses} | {100 * r['score']:.1f}% | {_interval(r)} | {test} | {r['date'][:10]} |")
    text = ["# The ladder of the full-game AI", "",
            "Written by `python tools/ladder.py` from docs/results/ladder.json: For the Crown's full-game AI",
            "of a checkout (\"AI of\") against frozen earlier versions of itself (\"against\"), each version",
            "running its own code: its commit is checked out and built under `~/.cache/ftc-ladder/`, and its",
            "own bot runs in a process started there, sent the game as a record (set-up, seed and every step,",
            "without the chance generator's state) that it replays with its own rules before each of its",
            "decisions (tools/ladder.py's notes give the line protocol). Every game pair is played from one",
            "set-up seed with the seats swapped, as `ftc match` plays them (docs/sprt.md).",
            "The Elo is logistic, of the checkout's AI over the frozen one, with the 95% interval of the",
            "score over the games; a rung of a few pairs says little, its interval shows how little.", "",
            "- `python tools/ladder.py play COMMIT... --spec ismcts:200 --pairs 20 [--sprt ELO0,ELO1]`: a rung",
            "  against each commit, appended to the file and to this page (kind `ladder`).",
            "- `python tools/ladder.py gate --base COMMIT --sprt 0,10`: the working tree's AI (a candidate",
            "  change) against the AI of COMMIT by SPRT; exit 0 when the change passes (H1 accepted),",
            "  1 when it does not; `--record` adds the rung here (kind `gate`). With `--journal FILE`",
            "  every pair is kept in FILE and a gate started again goes on where it stopped (docs/sprt.md,",
            "  \"Resuming a test\").",
            "- `python tools/ladder.py render`: this page again from the file.", ""]
    if plot and ladder["rungs"]:
        text += ["![Elo of each frozen version relative to the AI it was measured against]"
                 f"({plot})", ""]
    if not ladder["rungs"]:
        text += ["No rung has been played yet.", ""]
    notes = [f"- Rung {r['index']}: {r['note']}" for r in ladder["rungs"] if r.get("note")]
    if notes:
        rows += ["", "Notes:", "", *notes]
    return "\n".join(text + (rows if ladder["rungs"] else [])) + "\n"


def ladder_points(ladder: dict) -> tuple[list[str], list[dict]]:
    """What the plot shows: the frozen versions in commit order (oldest first), and per rung its
    point: ``x`` (the version's place, rungs against one version side by side), ``kind`` and the
    version's Elo relative to the AI of its rung with its 95% interval (``elo``, ``low``, ``high``:
    the rung's figures negated, since a rung measures the AI over the version)."""
    rungs = sorted(ladder["rungs"], key=lambda r: (r["opponent"]["date"], r["index"]))
    versions: list[str] = []
    for r in rungs:
        if r["opponent"]["commit"] not in versions:
            versions.append(r["opponent"]["commit"])
    seen: dict[str, int] = {}
    points = []
    for r in rungs:
        commit = r["opponent"]["commit"]
        nth = seen.get(commit, 0)
        seen[commit] = nth + 1
        low, high = r["elo_ci95"]
        points.append({"x": versions.index(commit) + 0.08 * nth, "kind": r["kind"], "elo": -r["elo"],
                       "low": -high, "high": -low})
    return versions, points


def plot_ladder(ladder: dict, path: Path) -> None:
    """Elo by version (:func:`ladder_points`) as a PNG (matplotlib): a point with its 95% bars per
    rung, the AI it was measured against at 0."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    versions, points = ladder_points(ladder)
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for kind, marker in (("ladder", "o"), ("gate", "s")):
        mine = [p for p in points if p["kind"] == kind]
        if mine:
            ax.errorbar([p["x"] for p in mine], [p["elo"] for p in mine],
                        yerr=[[max(0.0, p["elo"] - p["low"]) for p in mine],
                              [max(0.0, p["high"] - p["elo"]) for p in mine]],
                        fmt=marker, ms=5, capsize=3, label=f"{kind} rungs (95% bars)")
    ax.axhline(0.0, color="black", linewidth=0.8, label="the AI measured against them")
    ax.set_xlim(-0.5, len(versions) - 0.5)
    ax.set_xticks(range(len(versions)))
    ax.set_xticklabels([c[:8] for c in versions], rotation=30, ha="right")
    ax.set_xlabel("frozen version (commit, oldest left)")
    ax.set_ylabel("Elo relative to the AI of the rung")
    ax.set_title("Ladder of the full-game AI: Elo by version")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def render(ladder_path: Path = LADDER, docs: Path = DOCS) -> None:
    """The ladder file as its page ``docs`` and the plot ``docs.parent/results/PLOT``."""
    ladder = read_ladder(Path(ladder_path))
    plot = Path(docs).parent / "results" / PLOT
    if ladder["rungs"]:
        plot.parent.mkdir(parents=True, exist_ok=True)
        plot_ladder(ladder, plot)
    tmp = Path(docs).with_name(Path(docs).name + ".tmp")
    tmp.write_text(ladder_markdown(ladder, f"results/{PLOT}"), encoding="utf-8")
    tmp.replace(docs)


# -- the command ------------------------------------------------------------------------------------------
def _git_text(args: list[str]) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def this_checkout() -> dict:
    """This checkout's commit and whether its engine differs from it (changes not committed)."""
    dirty = _git_text(["status", "--porcelain", "--", "engine", "ext", "setup.py"])
    return {"commit": _git_text(["rev-parse", "HEAD"]), "dirty": bool(dirty)}


def version_of(commit: str) -> dict:
    date, _, subject = _git_text(["show", "-s", "--format=%cI %s", commit]).partition(" ")
    return {"commit": commit, "date": date, "subject": subject[:200]}


def rung_entry(kind: str, result: MatchResult, current: dict, opponent: dict, spec: str, opponent_spec: str,
               seed: int, opening: int, sprt: SPRT | None, note: str | None = None, resumed: int = 0) -> dict:
    """The ladder file's entry of a rung; ``current``: :func:`this_checkout` when the rung began;
    ``resumed``: pairs taken from its journal (``seconds`` is the time of this run only)."""
    elo, low, high = result.elo()
    return {"note": note, "resumed_pairs": resumed, "kind": kind, "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "current": current, "opponent": opponent, "spec": spec, "opponent_spec": opponent_spec,
            "seed": seed, "opening": opening, "games": result.games, "pairs": result.games // 2,
            "wdl": [result.wins, result.draws, result.losses], "score": round(result.score, 6),
            "elo": round(elo, 1), "elo_ci95": [round(low, 1), round(high, 1)],
            "sprt": sprt.to_json() if sprt is not None else None, "seconds": round(result.seconds, 1),
            "outcomes": list(result.outcomes), "turns": list(result.turns)}


def gate_passed(sprt: SPRT) -> bool:
    """The gate's verdict: the candidate passes only when the test accepted H1."""
    return sprt.status() == "H1 accepted"


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
        return value
    return parse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tools/ladder.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    def match_options(p: argparse.ArgumentParser, sprt_default: tuple[float, float] | None) -> None:
        p.add_argument("--spec", default="ismcts:200",
                       help="this checkout's player, a bot spec (default ismcts:200: the full-game AI)")
        p.add_argument("--opponent-spec", help="the frozen version's bot spec (default: --spec)")
        p.add_argument("--pairs", type=_positive(int), default=20,
                       help="game pairs per rung (with --sprt: the most; default 20)")
        p.add_argument("--seed", type=int, default=0, help="set-up seed of the first pair (default 0)")
        p.add_argument("--opening", type=int, default=0, metavar="PLIES",
                       help="random decisions at the start of each game (default 0)")
        p.add_argument("--max-turns", type=_positive(int), help="the games' turn limit (default: the game's)")
        p.add_argument("--workers", type=_positive(int), default=1, help="processes playing pairs (default 1)")
        p.add_argument("--timeout", type=_positive(float), default=300.0,
                       help="seconds a frozen version may take for one answer (default 300)")
        p.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                       help=f"where built checkouts of frozen versions are kept (default {DEFAULT_CACHE})")
        add_sprt_options(p, "this checkout's AI over the frozen one", default=sprt_default)
        p.add_argument("--note", help="a line about the rung (the machine, its load, why it was run), shown on its page")
        p.add_argument("--journal", type=Path, metavar="FILE",
                       help="keep every finished pair in FILE and resume from the pairs it holds: a rung "
                            "stopped (Ctrl-C, a crash, the session's end) goes on where it stopped; refused "
                            "when FILE is another test's (docs/sprt.md, \"Resuming a test\")")

    play = commands.add_parser("play", help="rungs against frozen versions, appended to the ladder")
    play.add_argument("commits", nargs="+", metavar="COMMIT", help="the frozen versions (git revisions)")
    match_options(play, None)
    play.add_argument("--ladder", type=Path, default=LADDER, help="the ladder file (default docs/results/ladder.json)")
    play.add_argument("--docs", type=Path, default=DOCS, help="its page (default docs/ladder.md)")

    gate = commands.add_parser("gate", help="the working tree's AI against a commit's by SPRT (exit 0: it passes)")
    gate.add_argument("--base", required=True, metavar="COMMIT", help="the current AI's commit")
    match_options(gate, (0.0, 10.0))
    gate.add_argument("--record", action="store_true", help="add the rung to the ladder file and its page")
    gate.add_argument("--ladder", type=Path, default=LADDER, help="the ladder file (default docs/results/ladder.json)")
    gate.add_argument("--docs", type=Path, default=DOCS, help="its page (default docs/ladder.md)")

    again = commands.add_parser("render", help="the ladder's page and plot again from its file")
    again.add_argument("--ladder", type=Path, default=LADDER, help="the ladder file (default docs/results/ladder.json)")
    again.add_argument("--docs", type=Path, default=DOCS, help="its page (default docs/ladder.md)")
    return parser


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _rung(args, revision: str, option: str, kind: str) -> tuple[dict, SPRT | None]:
    opponent_spec = args.opponent_spec or args.spec
    try:                                   # the frozen version judges its own spec when it makes its bot
        registry.get(GAME).bots.make_bot(args.spec, 0)
    except ValueError as exc:
        raise LadderError(f"--spec: {exc}") from None
    commit, checkout = cached_checkout(revision, args.cache, ROOT, _say, option)
    label = f"version {commit[:10]}"
    current = this_checkout()          # the AI playing: this checkout as the rung begins
    sprt = None
    if args.sprt is not None:
        sprt = SPRT(*args.sprt, alpha=args.sprt_alpha or 0.05, beta=args.sprt_beta or 0.05,
                    max_games=2 * args.pairs)
    config = {"max_turns": args.max_turns} if args.max_turns else {}
    journal = None
    if args.journal is not None:
        journal = rung_journal(args.journal, kind, commit, args.spec, opponent_spec, args.seed, args.opening, config,
                               sprt)
    resumed = 0 if journal is None else sum(1 for k in journal.done if k < args.pairs)
    _say(f"{args.spec} of this checkout against {opponent_spec} of {label}: up to {args.pairs} pairs")
    result = run_rung(checkout, label, args.spec, opponent_spec, args.pairs, args.seed, args.opening, config, sprt,
                      args.workers, args.timeout, say=_say, journal=journal)
    print(result.details())
    if sprt is not None:
        print(sprt.summary())
    return rung_entry(kind, result, current, version_of(commit), args.spec, opponent_spec, args.seed, args.opening, sprt,
                      args.note, min(resumed, result.games // 2)), sprt


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "render":
            render(args.ladder, args.docs)
            print(f"wrote {args.docs}")
            return 0
        read_ladder(args.ladder)                 # an unreadable ladder file stops the run before any game
        if ROOT.resolve() not in Path(engine.__file__).resolve().parents:
            raise LadderError(f"this checkout's AI would come from {engine.__file__}, not from {ROOT}")
        if args.command == "play":
            if args.journal is not None and len(args.commits) > 1:
                raise LadderError("--journal keeps one rung's pairs: give one COMMIT with it")
            for revision in args.commits:
                resolve_commit(revision, ROOT, "COMMIT")
            for revision in args.commits:
                rung, _ = _rung(args, revision, "COMMIT", "ladder")
                append_rung(args.ladder, rung)
                render(args.ladder, args.docs)
                print(f"rung added to {args.ladder} and {args.docs}")
            return 0
        rung, sprt = _rung(args, args.base, "--base", "gate")
        assert sprt is not None
        if args.record:
            append_rung(args.ladder, rung)
            render(args.ladder, args.docs)
        passed = gate_passed(sprt)
        print(f"gate: {'PASS' if passed else 'FAIL'} ({sprt.status()})")
        return 0 if passed else 1
    except (LadderError, CheckoutError) as exc:
        print(f"ladder: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ladder: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
