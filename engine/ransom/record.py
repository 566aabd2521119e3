"""King's Ransom's game records: a JSON document (seed, start position when the game was not dealt,
every decision and chance outcome, the result, the chance generator's state) that replays to the
identical game; the checks that name what is wrong with a bad one; and the state's fingerprint.
The driver's ``replay`` (engine/ransom/state.py) reads a record with these: ``check_header``, a new
state, ``replay_steps``, ``restore_generator``.

Format::

    {"format": "ftc-ransom-record", "variant": "kings-ransom", "seed": 1, "start": null,
     "rules": "<where the rules came from>",
     "actions": [[player, action], ...],    # player -1 = chance (action = the card type dealt or
                                            # drawn); [player, RESIGN]: that player resigned
     "result": {"winner": 0, "reason": "..."}, "rng": [version, [...], gauss], "auto_chance": true}
"""

from __future__ import annotations

from engine import codes
from engine.ransom.core import RECORD_FORMAT, RESIGN, VARIANT, RansomCore, RansomError
from engine.ransom.position import RansomPosition
from engine.ransom.rules import BLUE, RED, RansomRules

__all__ = ["make_record", "check_header", "replay_steps", "restore_generator", "fingerprint"]


def make_record(g: RansomCore) -> dict:
    """The game as a JSON record: seed, start position (if not dealt), every decision and chance
    outcome in order, the result, and the generator's state (a loaded game goes on the same way)."""
    if g.start_text is None and g.from_position:
        raise RansomError("a game started from a position whose Deck order is unknown has no record "
                          "(write the Decks in order in the position text)")
    version, internal, gauss = g.rng.getstate()
    return {"format": RECORD_FORMAT, "variant": VARIANT, "seed": g.seed, "start": g.start_text,
            "rules": g.rules.source, "actions": [list(step) for step in g.history],
            "result": {"winner": g.winner, "reason": g.over_reason},
            "rng": [version, list(internal), gauss], "auto_chance": g.auto_chance}


def check_header(record: dict, rules: RansomRules | None = None) -> tuple[int, RansomPosition | None, list]:
    """The seed, the start position (None: a dealt game) and the steps of a record, checked;
    RansomError names the field that is wrong."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise RansomError(f"not a King's Ransom record (expected format {RECORD_FORMAT!r})")
    seed = record.get("seed")
    if not isinstance(seed, int):
        raise RansomError("record: 'seed' must be an integer")
    start = record.get("start")
    position = None
    if start is not None:
        if not isinstance(start, str):
            raise RansomError("record: 'start' must be a position text or null")
        try:
            position = RansomPosition.parse(start, rules)
        except ValueError as exc:
            raise RansomError(f"record: 'start': {exc}") from None
    steps = record.get("actions")
    if not isinstance(steps, list):
        raise RansomError("record: 'actions' must be a list")
    return seed, position, steps


def replay_steps(g, steps: list) -> None:
    """Take a record's steps on ``g`` (a new state without automatic chance), each checked: its
    shape, who acts, and that the action is legal; RansomError names the step."""
    for i, step in enumerate(steps):
        if not (isinstance(step, list) and len(step) == 2 and all(isinstance(x, int) for x in step)):
            raise RansomError(f"record: actions[{i}]: expected [player, action], got {step!r}")
        who, action = step
        if action == RESIGN:
            try:
                g.resign(who)
            except RansomError as exc:
                raise RansomError(f"record: actions[{i}]: {exc}") from None
            continue
        expected = g.current_player()
        if who != expected:
            raise RansomError(f"record: actions[{i}]: {who} acts but {expected} is to act")
        try:
            g.apply(action)
        except RansomError as exc:
            raise RansomError(f"record: actions[{i}]: {exc}") from None


def restore_generator(g: RansomCore, record: dict) -> None:
    """Give ``g`` the record's chance generator state (when it has one) and its ``auto_chance``."""
    state = record.get("rng")
    if state is not None:
        try:
            g.rng.setstate((state[0], tuple(state[1]), state[2]))
        except (TypeError, ValueError, IndexError):
            raise RansomError("record: 'rng' is not a generator state") from None
    g.auto_chance = bool(record.get("auto_chance", True))


def fingerprint(g: RansomCore) -> str:
    """The complete state as text (tests, replays): position, step and options."""
    pos = g.pos
    decks = [list(pos.decks[s]) + [(t, n) for t, n in enumerate(pos.pools[s]) if n] for s in (RED, BLUE)]
    board = [(sq,) + tuple(pos.core.unit_on(sq)) for sq in codes.squares(pos.core.occupied())]
    return repr((board, pos.face_down, pos.hands, decks, pos.discards, pos.side, pos.no_capture, pos.turn,
                 g.step, g.actions, g.chance, g.over_reason, g.winner))
