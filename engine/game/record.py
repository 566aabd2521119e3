"""Game records: a JSON document (set-up, seed, every decision and chance outcome) that replays to
the identical state. Saving a state is saving its record; loading is replaying it, so a loaded
state is exactly the saved one (its fingerprint is checked).

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
from engine.game import actions as A
from engine.game.config import ConfigError, GameConfig
from engine.game.state import CHANCE, GameError, GameState

__all__ = ["RecordError", "make_record", "replay", "save", "load", "fingerprint", "MAX_RECORD_BYTES"]

FORMAT = "ftc-game-record"
VERSION = 1
MAX_RECORD_BYTES = 16 * 1024 * 1024
MAX_STEPS = 1_000_000


class RecordError(GameError):
    """A record that is corrupt or inconsistent; the message names the field or the step."""


def fingerprint(g: GameState) -> str:
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
        "decision": None if g.decision is None else [g.decision.player, sorted(g.decision.options)],
        "chance": g.chance,
    }
    return hashlib.sha256(json.dumps(summary, sort_keys=True, default=str).encode()).hexdigest()


def make_record(g: GameState) -> dict:
    if getattr(g, "determinized", False):
        raise GameError("a state sampled by resample_hidden has no record (its history is not the game's)")
    config = g.config.to_dict()
    if g.config.variant != "point-buy":
        config["supply"] = list(g.supply_names)   # resolved: a replay draws no random Supply
    return {
        "format": FORMAT,
        "version": VERSION,
        "engine": __version__,
        "config": config,
        "steps": [[player, action] for player, action in g.history],
        "fingerprint": fingerprint(g),
        # The chance generator's state, so a loaded game goes on drawing exactly as the saved one.
        "rng": _rng_to_json(g.rng.getstate()),
        "result": {"over": g.over_reason, "winner": g.winner, "returns": g.returns(), "turns": g.turn},
    }


def replay(record: dict, check_fingerprint: bool = True) -> GameState:
    """Rebuild the state a record describes; RecordError names the first inconsistency."""
    if not isinstance(record, dict):
        raise RecordError("record: expected a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"record: field 'format' must be {FORMAT!r}, got {record.get('format')!r}")
    if record.get("version") != VERSION:
        raise RecordError(f"record: unsupported version {record.get('version')!r} (this engine reads {VERSION})")
    try:
        config = GameConfig.from_dict(record.get("config"))
    except ConfigError as exc:
        raise RecordError(f"record: field 'config': {exc}") from None
    steps = record.get("steps")
    if not isinstance(steps, list) or len(steps) > MAX_STEPS:
        raise RecordError("record: field 'steps' must be a list of [player, action] pairs")
    try:
        g = GameState(config, auto_chance=False)
    except (ConfigError, GameError) as exc:
        raise RecordError(f"record: the set-up cannot be played: {exc}") from None
    # The set-up's own chance events (opening hands) are the first steps of the record.
    for index, step in enumerate(steps):
        if not (isinstance(step, list) and len(step) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in step)):
            raise RecordError(f"record: step {index} must be [player, action] with integers, got {step!r}")
        player, action = step
        if action == A.RESIGN and player in (0, 1) and not g.is_terminal():
            g.resign(player)
            continue
        expected = g.current_player()
        if player != expected:
            who = "chance" if expected == CHANCE else ("nobody (the game is over)" if g.is_terminal() else f"player {expected}")
            raise RecordError(f"record: step {index}: recorded for {'chance' if player == CHANCE else f'player {player}'}, but {who} is to act")
        try:
            g.apply(action)
        except GameError as exc:
            raise RecordError(f"record: step {index}: {exc}") from None
    if check_fingerprint and "fingerprint" in record and record["fingerprint"] != fingerprint(g):
        raise RecordError("record: the replayed state does not match the recorded fingerprint (corrupt or from another engine version)")
    g.auto_chance = True
    if "rng" in record:
        try:
            g.rng.setstate(_rng_from_json(record["rng"]))
        except (TypeError, ValueError) as exc:
            raise RecordError(f"record: field 'rng' is not a generator state: {exc}") from None
    return g


def _rng_to_json(state) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_from_json(data) -> tuple:
    if not (isinstance(data, list) and len(data) == 3 and isinstance(data[1], list)):
        raise ValueError("expected [version, [624 words + index], gauss]")
    return (data[0], tuple(data[1]), data[2])


def save(g: GameState, path: str | Path) -> None:
    """Write the record atomically (a crash never leaves half a file)."""
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(make_record(g), separators=(",", ":")), encoding="utf-8")
    tmp.replace(path)


def load(path: str | Path) -> GameState:
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_RECORD_BYTES:
        raise RecordError(f"{path}: {size} bytes is more than the {MAX_RECORD_BYTES} a record may have")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordError(f"{path}: not a JSON record: {exc}") from None
    return replay(record)
