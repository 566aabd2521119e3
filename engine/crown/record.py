"""Game records: a JSON document (set-up, seed, every decision and chance outcome) that replays to
the identical state. Saving a state is saving its record; loading is replaying it
(``engine.crown.state.replay`` / ``load``), so a loaded state is exactly the saved one (its
fingerprint is checked).

Format (version 1)::

    {"format": "ftc-game-record", "version": 1, "engine": "0.1.0",
     "config": {...GameConfig, with the Supply resolved...},
     "steps": [[player, action], ...],      # player -1 = chance (action = the card id drawn);
                                            # [player, actions.RESIGN]: that player resigned
     "fingerprint": "<sha256 of the final state>", "result": {...}}
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from engine import __version__
from engine.crown.config import ConfigError, GameConfig
from engine.crown.core import GameCore, GameError
from engine.crown.schema import Any, Int, Items, ListOf, Maybe, Num, Obj, SchemaError, Str, check
from engine.games.records import MAX_GAME_FILE_BYTES, GameFileError, read_game_file

__all__ = ["RecordError", "make_record", "check_header", "save", "read_json_file", "fingerprint", "rng_to_json",
           "rng_from_json", "MAX_RECORD_BYTES", "MAX_STEPS"]

FORMAT = "ftc-game-record"
VERSION = 1
MAX_RECORD_BYTES = MAX_GAME_FILE_BYTES
MAX_STEPS = 1_000_000


class RecordError(GameError):
    """A record that is corrupt or inconsistent; the message names the field or the step."""


def fingerprint(g: GameCore) -> str:
    """A hash of everything in the state (board, every zone, counters, phase, pending work)."""
    zones = [
        {"deck": z.deck, "top": z.top, "hand": sorted(z.hand), "discard": z.discard, "played": z.played,
         "known": sorted(z.known_hand)}
        for z in g.zones
    ]
    board = g.board.state()
    summary = {
        "board": board, "zones": zones, "supply": g.supply, "trash": g.trash, "current": g.current,
        "turn": g.turn, "phase": g.phase, "counters": [g.orders, g.actions, g.buys, g.gold, g.discount,
                                                       g.treasures_played, g.bought],
        "bans": [g.card_order_ban, g.card_order_ban_next],
        "barracks_ordered": [sorted(d.items()) for d in g.barracks_ordered], "over": g.over_reason, "winner": g.winner,
        "decision": None if g.decision is None else [g.decision.player, sorted(g.decision.actions)],
        "chance": g.chance,
    }
    if g.set_aside:
        # Only when there is any (The Last Stand, C22): fingerprints of other states stay as they were.
        summary["set_aside"] = g.set_aside
    return hashlib.sha256(json.dumps(summary, sort_keys=True, default=str).encode()).hexdigest()


def make_record(g: GameCore) -> dict:
    if g.determinized:
        raise GameError("a state sampled by resample_hidden has no record (its history is not the game's)")
    config = g.config.to_dict()
    if g.variant.resolves_supply:
        config["supply"] = list(g.supply_names)   # resolved: a replay draws no random Supply
    return {
        "format": FORMAT,
        "version": VERSION,
        "engine": __version__,
        "config": config,
        "steps": [[player, action] for player, action in g.history],
        "fingerprint": fingerprint(g),
        # The chance generator's state, so a loaded game goes on drawing exactly as the saved one.
        "rng": rng_to_json(g.rng.getstate()),
        "result": {"over": g.over_reason, "winner": g.winner, "returns": g.returns(), "turns": g.turn},
    }


#: The fields of a record (engine/crown/schema.py), checked before any is used; each step is checked
#: as it is replayed (``engine.crown.state.replay``). Fields this engine does not write are ignored.
RECORD_SCHEMA = Obj({"format": Str(100), "version": Int(), "config": Obj(extra=True),
                     "steps": ListOf(Any(), max_len=MAX_STEPS)},
                    {"engine": Str(100), "fingerprint": Str(200), "result": Any(),
                     "rng": Items(Int(0, 16), ListOf(Int(0, 2**32 - 1), length=625), Maybe(Num()))}, extra=True)


def check_header(record) -> tuple[GameConfig, list]:
    """The configuration and the steps of a record, after checking its format and version; the
    steps themselves are checked while they are replayed (``engine.crown.state.replay``)."""
    if not isinstance(record, dict):
        raise RecordError("record: expected a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"record: field 'format' must be {FORMAT!r}")
    if record.get("version") != VERSION:
        raise RecordError(f"record: unsupported version (this engine reads {VERSION})")
    try:
        check(record, RECORD_SCHEMA, "$")
    except SchemaError as exc:
        raise RecordError(f"record: field '{exc.path.removeprefix('$.')}': {exc.problem}") from None
    try:
        config = GameConfig.from_dict(record.get("config"))
    except ConfigError as exc:
        raise RecordError(f"record: field 'config': {exc}") from None
    steps = record.get("steps")
    if not isinstance(steps, list) or len(steps) > MAX_STEPS:
        raise RecordError("record: field 'steps' must be a list of [player, action] pairs")
    return config, steps


def rng_to_json(state) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def rng_from_json(data) -> tuple:
    if not (isinstance(data, list) and len(data) == 3 and isinstance(data[1], list)):
        raise ValueError("expected [version, [624 words + index], gauss]")
    return (data[0], tuple(data[1]), data[2])


def read_json_file(path: str | Path, what: str = "record"):
    """The JSON document in the file ``path`` (engine.games.records.read_game_file: at most
    MAX_RECORD_BYTES); RecordError naming the file (and ``what`` it should be) when it is too big or
    not JSON."""
    try:
        return read_game_file(path, what)
    except GameFileError as exc:
        raise RecordError(str(exc)) from None


def save(g: GameCore, path: str | Path) -> None:
    """Write the record atomically (a crash never leaves half a file)."""
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(make_record(g), separators=(",", ":")), encoding="utf-8")
    tmp.replace(path)
