"""`ftc perft --game crownfall`: the number of sequences of player decisions from a Crownfall position.

A decision is what a player chooses: a turn action (a March with the steps it goes on with is one
decision, RULINGS I13, as the player chooses the whole path), a beaten Archmage's retreat or an
end-of-round return choice (RULINGS I11). The depth counts decisions of all players; the chance steps
(the Omen and the Objective draws, RULINGS I7) are not plies, as in the independent reference
(tests/reference/crownfall.py, "Counting"). Two chance modes:

- ``expanded`` (the default): every outcome of a chance step is a branch (each Omen not yet out; each
  unordered pair of the Objectives left);
- ``fixed``: each chance step has the one outcome the position fixes: a JSON position's
  ``omen_next`` / ``objective_next`` deck orders (the reference's convention), or, for ``startpos``
  and a saved game, the draw the game's own seeded generator makes (the same ``randrange`` over the
  cards left as a game with automatic chance, engine/crownfall/state.py).

The position (``read``): ``startpos`` (the set-up, phase "omen" of round 1, RULINGS I2's default
Houses and homes; ``--players`` 2-4, default 2, and ``--seed``, default 0), a position JSON text (the
format of engine/crownfall/position.py), or the name of a file holding a position JSON or a saved game
(an ``ftc-crownfall-record``, replayed to its last step). ``--divide`` gives the count below every
first decision by its text in the reference's grammar; when the position starts with chance steps,
the text starts with their outcomes (``omen gloam-tide; objectives hold-keep two-ruins; end``).

The count is Python over the engine's state (engine/crownfall/position.py ``decisions`` and
``chance_children``); it polls its PerftControl at every decision, so a signal stops it at once
(PerftStopped with the first decisions counted in full).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

from engine.crownfall.config import CrownfallConfig, CrownfallConfigError
from engine.crownfall.core import RECORD_FORMAT, CrownfallError
from engine.crownfall.position import PositionError, chance_children, decisions, read_position, write_position
from engine.crownfall.state import CrownfallState, replay
from engine.perft import PerftControl, PerftProgress, PerftStopped

__all__ = ["CHANCE_MODES", "DEFAULT_CHANCE", "PROTOCOL_LIMIT", "PerftPosition", "read", "perft", "divide", "perft_run",
           "position_text", "text_perft", "text_divide"]

CHANCE_MODES = ("expanded", "fixed")
DEFAULT_CHANCE = "expanded"
#: The deepest perft of a given position one protocol request may ask (depth 2 of the start, every Omen
#: and Objective pair expanded, takes seconds; depth 3 minutes).
PROTOCOL_LIMIT = 2
#: Seconds between progress reports while one first decision is counted.
INTERVAL = 0.5


@dataclass
class PerftPosition:
    """A state to count from; ``seeded``: the fixed chance mode draws with the state's own generator
    (startpos, a saved game) instead of following the position's deck orders."""

    state: CrownfallState
    seeded: bool
    source: str


def _fail(text: str, why: str) -> ValueError:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return ValueError(f"Crownfall position {shown!r}: {why}")


def _document(doc, where: str) -> PerftPosition:
    if isinstance(doc, dict) and doc.get("format") == RECORD_FORMAT:
        state = replay(doc)
        if state.stage == "march":
            raise CrownfallError(f"{where}: the record ends inside a March (its next steps are part of the same "
                                 "decision); count from the record before the March began")
        state.auto_chance = False
        return PerftPosition(state, True, "record")
    return PerftPosition(read_position(doc, where), False, "position")


def read(text: str, players: int | None = None, seed: int | None = None, files: bool = True) -> PerftPosition:
    """The position of a `ftc perft --game crownfall` argument (module docstring); a ValueError names
    what is wrong and where (``Crownfall position 'x.json': position.players[1].mana: ...``).
    ``files``: whether a file name is read (the protocol gives texts only)."""
    name = text.strip()
    if name == "startpos":
        try:
            cfg = CrownfallConfig.from_json({"players": 2 if players is None else players,
                                             "seed": 0 if seed is None else seed, "chance": "explicit"}, "startpos")
        except CrownfallConfigError as exc:
            field, why = str(exc).split(":", 1)
            raise ValueError(f"{field.replace('startpos.', '--')}:{why}") from None
        return PerftPosition(CrownfallState(cfg), True, "startpos")
    for option, value in (("--players", players), ("--seed", seed)):
        if value is not None:
            raise ValueError(f"{option}: only for startpos (a position or a saved game has its own)")
    if name.startswith("{"):
        body, where = name, "position"
    elif not files:
        raise _fail(text, "expected startpos or a position JSON text (or a saved game's JSON)")
    elif os.path.isfile(name):
        try:
            with open(name, encoding="utf-8") as fh:
                body = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise _fail(text, f"cannot read the file ({exc})") from None
        where = "position"
    else:
        raise _fail(text, "expected startpos, a position JSON text or the name of a position or saved-game file "
                          "(no such file)")
    try:
        doc = json.loads(body)
    except json.JSONDecodeError as exc:
        raise _fail(text, f"not JSON ({exc})") from None
    try:
        return _document(doc, "record" if isinstance(doc, dict) and doc.get("format") == RECORD_FORMAT else where)
    except (PositionError, CrownfallError) as exc:
        raise _fail(text, str(exc)) from None


class _Walk:
    """The count's bookkeeping: leaves so far, the control polled at every decision, progress ticks."""

    def __init__(self, control: PerftControl | None, progress, total: int = 0):
        self.control = control
        self.progress = progress
        self.nodes = 0
        self.done = 0
        self.total = total
        self.start = time.perf_counter()
        self.last = self.start
        self.counts: dict[str, int] = {}

    def poll(self) -> None:
        if self.control is not None and self.control.stopped:
            raise PerftStopped(self.nodes, self.control.reason, dict(self.counts))
        if self.progress is not None:
            now = time.perf_counter()
            if now - self.last >= INTERVAL:
                self.last = now
                self.report(None)

    def report(self, finished) -> None:
        if self.progress is not None:
            self.progress(PerftProgress(self.nodes, self.done, self.total, time.perf_counter() - self.start, finished,
                                        "first decisions"))


def _chance(pos: PerftPosition, g: CrownfallState, chance: str) -> list[CrownfallState]:
    """The states after the chance step at g: one for "fixed", one per outcome for "expanded"."""
    if chance == "fixed" and pos.seeded:
        child = g.clone()
        while child.stage == g.stage:           # both Objective cards of a draw are one step
            cards = child.chance_cards()
            child.apply(cards[child.rng.randrange(len(cards))])     # the draw of state.py's automatic chance
        return [child]
    try:
        return chance_children(g, chance)
    except PositionError as exc:
        raise ValueError(f"--chance fixed: {exc}") from None


def _count(pos: PerftPosition, g: CrownfallState, depth: int, chance: str, walk: _Walk) -> int:
    if depth == 0:
        return 1
    if g.stage == "over":
        return 0
    if g.is_chance_node():
        return sum(_count(pos, c, depth, chance, walk) for c in _chance(pos, g, chance))
    walk.poll()
    found = decisions(g)
    if depth == 1:
        walk.nodes += len(found)
        return len(found)
    return sum(_count(pos, c, depth - 1, chance, walk) for _, c in found)


def _outcome(g: CrownfallState, child: CrownfallState) -> str:
    """A chance outcome in the reference's grammar: ``omen <id>`` or ``objectives <a> <b>``."""
    rules = g.rules
    if g.stage == "omen":
        return f"omen {rules.omens[child.omen_seen[len(g.omen_seen)]].key}"
    return "objectives " + " ".join(rules.objectives[c].key for c in sorted(child.objectives))


def _firsts(pos: PerftPosition, g: CrownfallState, chance: str, prefix: tuple) -> list[tuple[str, CrownfallState]]:
    """(text, state after it) of every first decision, the chance outcomes before it in the text."""
    if g.stage == "over":
        return []
    if g.is_chance_node():
        out = []
        for child in _chance(pos, g, chance):
            out += _firsts(pos, child, chance, prefix + (_outcome(g, child),))
        return out
    return [("; ".join(prefix + (text,)), child) for text, child in decisions(g)]


def _mode(chance: str | None) -> str:
    chance = DEFAULT_CHANCE if chance is None else chance
    if chance not in CHANCE_MODES:
        raise ValueError(f"--chance {chance!r}: expected {' or '.join(CHANCE_MODES)}")
    return chance


def _depth(depth) -> int:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"perft depth must be an integer >= 0, got {depth!r}")
    return depth


def divide(pos: PerftPosition, depth: int, chance: str | None = None, progress=None,
           control: PerftControl | None = None) -> dict[str, int]:
    """{first decision's text: the count of depth - 1 after it} (depth >= 1). ``progress`` gets a
    PerftProgress after each first decision and every INTERVAL seconds inside one; a stopped
    ``control`` raises PerftStopped with the first decisions counted in full."""
    chance = _mode(chance)
    if _depth(depth) < 1:
        raise ValueError(f"divide needs a depth >= 1, got {depth}")
    firsts = _firsts(pos, pos.state, chance, ())
    walk = _Walk(control, progress, len(firsts))
    for text, child in firsts:
        walk.poll()
        before = walk.nodes
        n = 1 if depth == 1 else _count(pos, child, depth - 1, chance, walk)
        if text in walk.counts:
            raise CrownfallError(f"two first decisions have the text {text!r}")
        walk.counts[text] = n
        walk.nodes = before + n
        walk.done += 1
        walk.report((text, n))
    return walk.counts


def perft(pos: PerftPosition, depth: int, chance: str | None = None, control: PerftControl | None = None) -> int:
    """The number of sequences of ``depth`` decisions from the position (perft(p, 0) == 1)."""
    return _count(pos, pos.state, _depth(depth), _mode(chance), _Walk(control, None))


def perft_run(text: str, depth: int, divided: bool, options: dict, progress, control) -> tuple[dict | None, int, float]:
    """`ftc perft --game crownfall`: ({first decision: count} or None, total, seconds). ``options``:
    "chance", "players", "seed" as given; ``control`` stops the count (PerftStopped)."""
    unknown = sorted(set(options) - {"chance", "players", "seed"})
    if unknown:
        raise ValueError(f"--{unknown[0]}: not an option of Crownfall perft")
    chance = _mode(options.get("chance"))
    pos = read(text, options.get("players"), options.get("seed"))
    start = time.perf_counter()
    if _depth(depth) == 0:
        return None, 1, 0.0
    counts = divide(pos, depth, chance, progress, control)
    return counts, sum(counts.values()), time.perf_counter() - start


# -- the protocol's perft of a given position (engine/interfaces/protocol.py, through the registry) ------
def position_text(text: str) -> str:
    """``startpos`` or a position (or saved game) JSON text, written out in full as the position's
    JSON (its chance steps expanded when counted: the protocol has no chance field)."""
    return json.dumps(write_position(read(text, files=False).state), sort_keys=True, separators=(",", ":"))


def text_perft(text: str, depth: int) -> int:
    """perft of a position text, chance expanded."""
    return perft(read(text, files=False), depth)


def text_divide(text: str, depth: int) -> dict[str, int]:
    """divide of a position text, chance expanded."""
    return divide(read(text, files=False), depth)
