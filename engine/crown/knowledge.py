"""What one player may know, as a file: the "ftc-position-view" format.

A game record (engine/crown/record.py) names every chance outcome, so it reveals the opponent's hidden
cards and cannot be handed to a player before the game ends. A *position view* can: it holds one
full state that the player cannot tell from the real one (a determinization,
``engine.crown.observation.resample_hidden``), serialized completely, so the engine loads it back
exactly and can search or analyse it from the player's seat.

What is sampled (never the real thing): the opponent's unrevealed Hand cards, their Deck and the
Deck-top cards the player does not know, an army behind the Point-Buy screen, and the chance
generator (a fresh one). What is left out: the game's history (its chance outcomes are the real
draws), the repetition counts (their keys hash the real hidden cards) and the set-up's secret seed
(``config.seed`` is written as 0: it would replay every shuffle). Everything else (the board with its
status flags, guarded squares and clocks, every public zone and counter, the player's own cards, the
pending card effects and the decision) is the game's own.

Format (version 1)::

    {"format": "ftc-position-view", "version": 1, "engine": "0.1.0",
     "seat": 0 | 1,                 # whose information set this is (the player who downloaded it)
     "config": {...GameConfig, the Supply resolved, seed 0...},
     "sampled": {"player": 1 - seat, "hand": [positions in the Hand that were redrawn],
                 "deck": true, "top": [positions of redrawn Deck-top cards], "army": bool,
                 "rng": true},
     "observation": {...engine.crown.observation.observation(state, seat)...},   # for people; checked
     "state": {
        "board": {...BoardCore.state()..., "guarded": [bits, bits], "clock_reset": bool},
        "zones": [{"deck": [count per card id], "top": [[card, known], ...], "hand": [...],
                   "discard": [...], "played": [...], "known_hand": [...]}, x2],
        "supply": [count per card id], "supply_ids": [...], "supply_names": [...], "trash": [...],
        "set_aside": [...],            # The Last Stand's set-aside starting cards (C22); optional, [] if absent
        "current", "turn", "turns_taken", "extra_turns", "phase", "orders", "actions", "buys",
        "gold", "discount", "treasures_played", "bought", "card_order_ban", "card_order_ban_next",
        "barracks_ordered": [[[type, n], ...], x2], "setup_state": <value>, "chance": <value>,
        "winner", "over_reason",
        "frames": [{"card", "index", "player", "step", "choice", "data": <value>}, ...],
        "tasks": [{"task": "draw", "player", "count"} | {"task": "reveal", "player", "frame", "reshuffle"}
                  | {"task": "run", "frame"} | {"task": "end"}, ...],       # bottom first
        "decision": null | {"player", "actions", "prompt", "frame", "labels": [[action, text], ...] | null,
                            "labeler": "engine.crown.phases.phase_label" | null, "zone"},
        "rng": [version, [624 words + index], gauss]},
     "fingerprint": "<record.fingerprint of the state>",
     "digest": "<SHA-256 of the state section as canonical JSON (sorted keys, no spaces)>"}

Card ids index the default card catalog, unit types the default unit catalog; a frame's ``data``,
``setup_state`` and ``chance`` are values tagged by type: JSON scalars as they are, ``{"tuple": [..]}``,
``{"list": [..]}``, ``{"frozenset": [..]}``, ``{"dict": [[key, value], ..]}``. Loading checks the format,
the version, every field, the fingerprint and that the state shows ``seat`` the stored observation;
a :class:`ViewError` names the format and the field. ``load_game_file`` reads either format (a record
or a view) for ``ftc analyze``.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from engine import __version__
from engine.catalog import default_catalog
from engine.crown.cards import default_cards
from engine.crown.config import ConfigError, GameConfig
from engine.crown.core import END_TURN, Ask, Draw, EndTurn, Frame, GameCore, PlayerZones, Reveal, RunFrame
from engine.crown.effects import has_steps
from engine.crown.observation import behind_screen, observation, resample_hidden
from engine.crown.phases import phase_label
from engine.crown.record import FORMAT as RECORD_FORMAT
from engine.crown.record import RecordError, fingerprint, read_json_file, rng_from_json, rng_to_json
from engine.crown.schema import Any, Bool, Choice, Int, Items, ListOf, Maybe, Num, Obj, SchemaError, Str, Tagged, check
from engine.crown.state import GameState, replay
from engine.crown.variants import variant_rules

__all__ = ["FORMAT", "VERSION", "ViewError", "position_view", "dump_state", "load_state", "load_view",
           "load_game_file", "state_digest"]

FORMAT = "ftc-position-view"
VERSION = 1

#: The functions that may name a decision's actions (``Ask.labeler``), by their stored name. A file
#: can only name one of these: loading never imports or calls anything else.
LABELERS = {f"{fn.__module__}.{fn.__qualname__}": fn for fn in (phase_label,)}
_LABELER_NAMES = {fn: name for name, fn in LABELERS.items()}
#: The names files of earlier versions stored for the same functions (For the Crown's package was
#: engine/game/ before the layout of commit d2fc3fb): such a file still loads; a file is always written
#: with the name above.
LABELERS_EARLIER = {"engine.game.phases.phase_label": phase_label}

#: The GameCore attributes this format writes, and those it deliberately leaves out (module
#: docstring); a state with any other attribute cannot be written (the format would be incomplete).
_WRITTEN = {"board", "zones", "supply", "supply_ids", "supply_names", "trash", "set_aside", "current", "turn",
            "turns_taken", "extra_turns", "phase", "orders", "actions", "buys", "gold", "discount", "treasures_played",
            "bought", "card_order_ban", "card_order_ban_next", "barracks_ordered", "setup_state", "chance", "winner",
            "over_reason", "tasks", "decision", "_rng", "_rng_shared", "config"}
_LEFT_OUT = {"history", "repetitions", "determinized", "cards", "units", "variant", "auto_chance"}


class ViewError(RecordError):
    """A position view that cannot be written or loaded; the message names the format and the field."""


def _fail(where: str, what: str) -> ViewError:
    return ViewError(f"{FORMAT}: field '{where}': {what}")


# -- tagged values (frame data, set-up state, chance) ---------------------------------------------
def _encode(value, where: str):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, tuple):
        return {"tuple": [_encode(v, where) for v in value]}
    if isinstance(value, list):
        return {"list": [_encode(v, where) for v in value]}
    if isinstance(value, frozenset):
        return {"frozenset": sorted((_encode(v, where) for v in value), key=json.dumps)}
    if isinstance(value, dict):
        return {"dict": [[_encode(k, where), _encode(v, where)] for k, v in value.items()]}
    raise _fail(where, f"a value of type {type(value).__name__} cannot be written")


def _decode(data, where: str):
    if data is None or isinstance(data, (bool, int, str)):
        return data
    if isinstance(data, dict) and len(data) == 1:
        (tag, inner), = data.items()
        if tag == "float" and isinstance(inner, str):
            try:
                return float(inner)
            except ValueError:
                raise _fail(where, f"{inner!r} is not a number") from None
        if isinstance(inner, list):
            if tag == "tuple":
                return tuple(_decode(v, where) for v in inner)
            if tag == "list":
                return [_decode(v, where) for v in inner]
            if tag == "frozenset":
                return frozenset(_decode(v, where) for v in inner)
            if tag == "dict" and all(isinstance(p, list) and len(p) == 2 for p in inner):
                return {_decode(k, where): _decode(v, where) for k, v in inner}
    raise _fail(where, "expected a JSON scalar or one of {tuple|list|frozenset|dict|float: ...}")


# -- writing -----------------------------------------------------------------------------------
def _board_json(g: GameCore) -> dict:
    board = g.board.state()
    board["units"] = [list(u) for u in board["units"]]
    board["guarded"] = [g.board.guarded(0), g.board.guarded(1)]
    # The kernel keeps "this turn captured, deployed or trained" (the no-progress clock restarts at
    # the turn's end) without a getter: ending the turn on a copy shows it.
    probe = g.board.copy()
    probe.end_turn()
    board["clock_reset"] = probe.halfmove == 0
    return board


def dump_state(g: GameCore) -> dict:
    """Every part of ``g`` as JSON-ready data (the ``state`` of the format), but its history and
    repetition counts. ViewError when ``g`` holds something the format cannot write."""
    unknown = set(g.__dict__) - _WRITTEN - _LEFT_OUT
    if unknown:
        raise _fail("state", f"the state has attributes this format does not know: {', '.join(sorted(unknown))}")
    frames: list[Frame] = []
    index: dict[int, int] = {}

    def frame_ref(frame: Frame) -> int:
        if id(frame) not in index:
            index[id(frame)] = len(frames)
            frames.append(frame)
        return index[id(frame)]

    tasks = []
    for task in g.tasks:
        cls = task.__class__
        if cls is Draw:
            tasks.append({"task": "draw", "player": task.player, "count": task.count})
        elif cls is Reveal:
            tasks.append({"task": "reveal", "player": task.player, "frame": frame_ref(task.frame),
                          "reshuffle": task.reshuffle})
        elif cls is RunFrame:
            tasks.append({"task": "run", "frame": frame_ref(task.frame)})
        elif cls is EndTurn:
            tasks.append({"task": "end"})
        else:
            raise _fail("state.tasks", f"a task of type {cls.__name__} cannot be written")
    decision = None
    ask = g.decision
    if ask is not None:
        labeler = None
        if ask.labels is None:
            labeler = _LABELER_NAMES.get(ask.labeler)
            if labeler is None:
                raise _fail("state.decision.labeler", f"{ask.labeler!r} is not one of the known labelers")
        decision = {"player": ask.player, "actions": list(ask.actions), "prompt": ask.prompt,
                    "frame": None if ask.frame is None else frame_ref(ask.frame),
                    "labels": None if ask.labels is None else [[a, t] for a, t in ask.labels.items()],
                    "labeler": labeler, "zone": ask.zone}
    return {
        "board": _board_json(g),
        "zones": [{"deck": list(z.deck), "top": [[c, bool(k)] for c, k in z.top], "hand": list(z.hand),
                   "discard": list(z.discard), "played": list(z.played), "known_hand": list(z.known_hand)}
                  for z in g.zones],
        "supply": list(g.supply), "supply_ids": list(g.supply_ids), "supply_names": list(g.supply_names),
        "trash": list(g.trash), "set_aside": list(g.set_aside), "current": g.current, "turn": g.turn,
        "turns_taken": list(g.turns_taken),
        "extra_turns": list(g.extra_turns), "phase": g.phase, "orders": g.orders, "actions": g.actions,
        "buys": g.buys, "gold": g.gold, "discount": g.discount, "treasures_played": g.treasures_played,
        "bought": g.bought, "card_order_ban": list(g.card_order_ban),
        "card_order_ban_next": list(g.card_order_ban_next),
        "barracks_ordered": [[[t, n] for t, n in d.items()] for d in g.barracks_ordered],
        "setup_state": _encode(g.setup_state, "state.setup_state"),
        "chance": _encode(g.chance, "state.chance"),
        "winner": g.winner, "over_reason": g.over_reason,
        "frames": [{"card": f.card, "index": f.index, "player": f.player, "step": f.step, "choice": f.choice,
                    "data": _encode(f.data, f"state.frames[{i}].data")} for i, f in enumerate(frames)],
        "tasks": tasks,
        "decision": decision,
        "rng": rng_to_json(g.rng.getstate()),
    }


def _public_config(g: GameCore) -> dict:
    config = g.config.to_dict()
    config["seed"] = 0                           # the set-up's seed would replay every shuffle
    if g.variant.resolves_supply:
        config["supply"] = list(g.supply_names)
    return config


def position_view(g: GameCore, seat: int, rng: random.Random) -> dict:
    """The "ftc-position-view" document of what ``seat`` may know of ``g``: a determinization drawn
    with ``rng`` (seed it from a secret), written completely. ViewError when it cannot be written
    (behind the Point-Buy screen, where the opponent's picks in progress are not resampled)."""
    if seat not in (0, 1):
        raise _fail("seat", f"must be 0 (Blue) or 1 (Yellow), got {seat!r}")
    if behind_screen(g):
        raise _fail("state", "the armies are being picked behind the screen: a view is written once both are done")
    sample = resample_hidden(g, seat, rng)
    state = json.loads(json.dumps(dump_state(sample)))       # as it will be read back (tuples become lists)
    theirs, real = sample.zones[1 - seat], g.zones[1 - seat]
    known = len(theirs.known_hand)
    return {
        "format": FORMAT,
        "version": VERSION,
        "engine": __version__,
        "seat": seat,
        "config": _public_config(g),
        "sampled": {"player": 1 - seat, "hand": list(range(known, len(theirs.hand))), "deck": True,
                    "top": [i for i, (_, k) in enumerate(real.top) if not k],
                    "army": g.config.secret_picks and g.phase == "setup", "rng": True},
        "observation": observation(sample, seat),
        "state": state,
        "fingerprint": fingerprint(sample),
        "digest": state_digest(state),
    }


def state_digest(state: dict) -> str:
    """SHA-256 of the state section as canonical JSON: any change to it (a frame, a task) shows."""
    return hashlib.sha256(json.dumps(state, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# -- loading -----------------------------------------------------------------------------------


def _int(data: dict, key: str, where: str, low: int | None = None, high: int | None = None) -> int:
    value = data.get(key) if isinstance(data, dict) else None
    name = f"{where}.{key}" if where else key
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(name, f"expected an integer, got {value!r}"[:120])
    if (low is not None and value < low) or (high is not None and value > high):
        raise _fail(name, f"{value} is out of range {low}..{'' if high is None else high}")
    return value


def _ints(value, where: str, n_max: int, length: int | None = None) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n_max
                                              for v in value):
        raise _fail(where, f"expected a list of integers in 0..{n_max - 1}")
    if length is not None and len(value) != length:
        raise _fail(where, f"expected {length} entries, got {len(value)}")
    return list(value)


def _counts(value, where: str, length: int) -> list[int]:
    if not isinstance(value, list) or len(value) != length or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        raise _fail(where, f"expected {length} counts (integers >= 0)")
    return list(value)


def _bools(value, where: str) -> list[bool]:
    if not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, bool) for v in value):
        raise _fail(where, "expected two booleans")
    return list(value)


_BB = 1 << 64          # bitboards: 64-bit unsigned
_COUNT = 1 << 15       # the kernel keeps Barracks and Stock counts in 16 bits
_CLOCK = 1 << 31


def _bits(value, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < _BB:
        raise _fail(where, "expected a 64-bit bitboard (an integer 0..2**64-1)")
    return value


_BIG = 2**31                                     # counters of the state: far beyond any game's
_N = Int(0, 4095)                                # a card id, a unit type or a count of one kind
_IDS = ListOf(_N, max_len=4096)
_BITS = Int(0, 2**64 - 1)
_TWO_COUNTS = ListOf(Int(0, _BIG), length=2)
_TASK = Obj({"task": Choice("draw", "reveal", "run", "end")},
            {"player": Int(0, 1), "count": Int(0, 4095), "frame": Int(0, 4095), "reshuffle": Bool()})
#: The "state" section of the format (module docstring), every field: ``load_view`` checks a document
#: against VIEW_SCHEMA before it reads any of it (engine/crown/schema.py), so a forged field is
#: refused with its JSON path; ``load_state`` then checks what the schema cannot say (ranges that
#: depend on the catalogs, consistency).
STATE_SCHEMA = Obj({
    "board": Obj({"units": ListOf(Items(Int(0, 63), _N, Int(0, 1)), max_len=64),
                  "barracks": ListOf(ListOf(Int(0, _COUNT - 1), max_len=4096), length=2),
                  "stock": ListOf(Int(0, _COUNT - 1), max_len=4096), "promote_types": _BITS, "side": Int(0, 1),
                  "halfmove": Int(0, _CLOCK - 1), "fullmove": Int(0, _CLOCK - 1), "status": ListOf(_BITS, max_len=64),
                  "guarded": ListOf(_BITS, length=2), "clock_reset": Bool()}),
    "zones": ListOf(Obj({"deck": ListOf(Int(0, _BIG), max_len=4096), "top": ListOf(Items(_N, Bool()), max_len=4096),
                         "hand": _IDS, "discard": _IDS, "played": _IDS, "known_hand": _IDS}), length=2),
    "supply": ListOf(Int(0, _BIG), max_len=4096), "supply_ids": _IDS, "supply_names": ListOf(Str(100), max_len=4096),
    "trash": _IDS, "current": Int(0, 1), "turn": Int(0, _BIG), "turns_taken": _TWO_COUNTS,
    "extra_turns": _TWO_COUNTS, "phase": Choice("setup", "order", "action", "buy", "housekeeping"),
    **{name: Int(-_BIG, _BIG) for name in ("orders", "actions", "buys", "gold", "discount", "treasures_played")},
    "bought": Bool(), "card_order_ban": ListOf(Bool(), length=2), "card_order_ban_next": ListOf(Bool(), length=2),
    "barracks_ordered": ListOf(ListOf(Items(_N, Int(0, _BIG)), max_len=4096), length=2),
    "setup_state": Tagged(), "chance": Tagged(), "winner": Maybe(Int(0, 1)), "over_reason": Maybe(Str(1000)),
    "frames": ListOf(Obj({"card": _N, "index": Int(0, 64), "player": Int(0, 1), "step": Int(-_BIG, _BIG),
                          "choice": Maybe(Int(0, _BIG)), "data": Tagged()}), max_len=4096),
    "tasks": ListOf(_TASK, max_len=4096),
    "decision": Maybe(Obj({"player": Int(0, 1), "actions": ListOf(Int(0, 2**62), min_len=1, max_len=100_000),
                           "prompt": Str(), "frame": Maybe(Int(0, 4095)),
                           "labels": Maybe(ListOf(Items(Int(0, 2**62), Str()), max_len=100_000)),
                           "labeler": Maybe(Str(200)), "zone": Maybe(Str(40))})),
    "rng": Items(Int(0, 16), ListOf(Int(0, 2**32 - 1), length=625), Maybe(Num())),
}, {"set_aside": _IDS})                          # The Last Stand's set-aside starting cards (C22); older files lack it
#: The document around it (its ``state`` is checked against STATE_SCHEMA once its digest matches).
VIEW_SCHEMA = Obj({"format": Str(100), "version": Int(), "seat": Int(0, 1), "config": Obj(extra=True),
                   "state": Obj(extra=True), "fingerprint": Str(200), "digest": Str(200)},
                  {"engine": Str(100), "sampled": Any(), "observation": Any()})


def _load_board(g: GameCore, board, n_units: int) -> None:
    """Check every field of the board before the kernel sees it (it trusts its input), then set it
    up and check the kernel holds exactly what the file says."""
    where = "state.board"
    if not isinstance(board, dict):
        raise _fail(where, "expected a JSON object")
    units, seen = board.get("units"), set()
    if not isinstance(units, list):
        raise _fail(f"{where}.units", "expected a list of [square, type, colour]")
    for i, unit in enumerate(units):
        if not (isinstance(unit, list) and len(unit) == 3 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                  for v in unit)
                and 0 <= unit[0] < 64 and 0 <= unit[1] < n_units and unit[2] in (0, 1) and unit[0] not in seen):
            raise _fail(f"{where}.units[{i}]", f"expected [square 0..63 (each once), type 0..{n_units - 1}, colour 0|1]")
        seen.add(unit[0])
    barracks = board.get("barracks")
    if not isinstance(barracks, list) or len(barracks) != 2:
        raise _fail(f"{where}.barracks", "expected two lists of counts")
    barracks = [_counts(side, f"{where}.barracks[{c}]", n_units) for c, side in enumerate(barracks)]
    stock = _counts(board.get("stock"), f"{where}.stock", n_units)
    if any(n >= _COUNT for n in stock + barracks[0] + barracks[1]):
        raise _fail(where, f"a Barracks or Stock count of {_COUNT} or more")
    status = board.get("status")
    expected = len(g.board.state()["status"])
    if not isinstance(status, list) or len(status) != expected:
        raise _fail(f"{where}.status", f"expected {expected} bitboards")
    status = [_bits(v, f"{where}.status[{i}]") for i, v in enumerate(status)]
    guarded = board.get("guarded")
    if not isinstance(guarded, list) or len(guarded) != 2:
        raise _fail(f"{where}.guarded", "expected two bitboards")
    guarded = [_bits(v, f"{where}.guarded[{c}]") for c, v in enumerate(guarded)]
    promote = _bits(board.get("promote_types"), f"{where}.promote_types")
    side = _int(board, "side", where, 0, 1)
    halfmove = _int(board, "halfmove", where, 0, _CLOCK - 1)
    fullmove = _int(board, "fullmove", where, 1, _CLOCK - 1)
    if not isinstance(board.get("clock_reset"), bool):
        raise _fail(f"{where}.clock_reset", "expected a boolean")
    g.board.setup([tuple(u) for u in units], barracks, stock, promote, side, halfmove, fullmove, status)
    for colour in (0, 1):
        g.board.set_guarded(colour, guarded[colour])
    if board["clock_reset"]:
        g.board.mark_clock_reset()
    if _board_json(g) != {**board, "units": sorted(units)}:
        raise _fail(where, "the engine cannot hold this board as written (a flag on an empty square?)")


def load_state(config: GameConfig, data: dict) -> GameState:
    """The state ``dump_state`` wrote, for ``config`` (a determinization: no history, no record)."""
    if not isinstance(data, dict):
        raise _fail("state", "expected a JSON object")
    g = GameState.__new__(GameState)
    GameCore.__init__(g, config, default_cards(), default_catalog(), True,
                      variant_rules(config.variant))
    n_cards, n_units = len(g.cards), len(g.units)
    _load_board(g, data.get("board"), n_units)
    zones = data.get("zones")
    if not isinstance(zones, list) or len(zones) != 2:
        raise _fail("state.zones", "expected two players' zones")
    for player, z in enumerate(zones):
        where = f"state.zones[{player}]"
        if not isinstance(z, dict):
            raise _fail(where, "expected a JSON object")
        pz = PlayerZones(n_cards)
        pz.deck = _counts(z.get("deck"), f"{where}.deck", n_cards)
        top = z.get("top")
        if not isinstance(top, list) or not all(isinstance(t, list) and len(t) == 2 and isinstance(t[1], bool)
                                                for t in top):
            raise _fail(f"{where}.top", "expected a list of [card, known]")
        pz.top = [(c, k) for c, k in zip(_ints([t[0] for t in top], f"{where}.top", n_cards), (t[1] for t in top))]
        for name in ("hand", "discard", "played", "known_hand"):
            setattr(pz, name, _ints(z.get(name), f"{where}.{name}", n_cards))
        g.zones[player] = pz
    g.supply = _counts(data.get("supply"), "state.supply", n_cards)
    g.supply_ids = tuple(_ints(data.get("supply_ids"), "state.supply_ids", n_cards))
    names = data.get("supply_names")
    if not isinstance(names, list) or not all(isinstance(s, str) for s in names):
        raise _fail("state.supply_names", "expected a list of card names")
    g.supply_names = tuple(names)
    g.trash = _ints(data.get("trash"), "state.trash", n_cards)
    g.set_aside = _ints(data.get("set_aside", []), "state.set_aside", n_cards)     # absent in older files
    g.current = _int(data, "current", "state", 0, 1)
    g.turn = _int(data, "turn", "state", 0)
    g.turns_taken = _counts(data.get("turns_taken"), "state.turns_taken", 2)
    g.extra_turns = _counts(data.get("extra_turns"), "state.extra_turns", 2)
    phase = data.get("phase")
    if phase not in ("setup", "order", "action", "buy", "housekeeping"):
        raise _fail("state.phase", f"unknown phase {phase!r}"[:80])
    g.phase = phase
    for name in ("orders", "actions", "buys", "gold", "discount", "treasures_played"):
        setattr(g, name, _int(data, name, "state"))
    if not isinstance(data.get("bought"), bool):
        raise _fail("state.bought", "expected a boolean")
    g.bought = data["bought"]
    g.card_order_ban = _bools(data.get("card_order_ban"), "state.card_order_ban")
    g.card_order_ban_next = _bools(data.get("card_order_ban_next"), "state.card_order_ban_next")
    ordered = data.get("barracks_ordered")
    if not isinstance(ordered, list) or len(ordered) != 2:
        raise _fail("state.barracks_ordered", "expected two lists of [type, count]")
    try:
        g.barracks_ordered = [{_ints([t], "state.barracks_ordered", n_units)[0]: int(n) for t, n in side}
                              for side in ordered]
    except (TypeError, ValueError):
        raise _fail("state.barracks_ordered", "expected two lists of [type, count]") from None
    setup_state = _decode(data.get("setup_state"), "state.setup_state")
    if not isinstance(setup_state, dict):
        raise _fail("state.setup_state", "expected a dict")
    g.setup_state = setup_state
    chance = _decode(data.get("chance"), "state.chance")
    if chance is not None and not (isinstance(chance, tuple) and len(chance) == 2 and chance[0] in (0, 1)):
        raise _fail("state.chance", "expected null or (player, kind)")
    g.chance = chance
    winner = data.get("winner")
    if winner not in (None, 0, 1):
        raise _fail("state.winner", "expected null, 0 or 1")
    g.winner = winner
    reason = data.get("over_reason")
    if reason is not None and not isinstance(reason, str):
        raise _fail("state.over_reason", "expected null or a text")
    g.over_reason = reason
    frames = []
    for i, f in enumerate(data.get("frames") if isinstance(data.get("frames"), list) else [None]):
        where = f"state.frames[{i}]"
        if not isinstance(f, dict):
            raise _fail(where, "expected a JSON object")
        frame = Frame(_int(f, "card", where, 0, n_cards - 1), _int(f, "index", where, 0),
                      _int(f, "player", where, 0, 1))
        if not has_steps(g, frame.card, frame.index):
            raise _fail(where, f"effect {frame.index} of {g.card_name(frame.card)} has no steps to resume")
        frame.step = _int(f, "step", where)
        choice = f.get("choice")
        if choice is not None:
            choice = _int(f, "choice", where, 0)
        frame.choice = choice
        frame.data = _decode(f.get("data"), f"{where}.data")
        if not isinstance(frame.data, dict):
            raise _fail(f"{where}.data", "expected a dict")
        frames.append(frame)

    def frame_at(ref, where: str) -> Frame:
        if not isinstance(ref, int) or isinstance(ref, bool) or not 0 <= ref < len(frames):
            raise _fail(where, f"expected a frame index in 0..{len(frames) - 1}")
        return frames[ref]

    tasks = []
    raw_tasks = data.get("tasks")
    if not isinstance(raw_tasks, list):
        raise _fail("state.tasks", "expected a list")
    for i, t in enumerate(raw_tasks):
        where = f"state.tasks[{i}]"
        kind = t.get("task") if isinstance(t, dict) else None
        if kind == "draw":
            tasks.append(Draw(_int(t, "player", where, 0, 1), _int(t, "count", where)))
        elif kind == "reveal":
            if not isinstance(t.get("reshuffle"), bool):
                raise _fail(f"{where}.reshuffle", "expected a boolean")
            tasks.append(Reveal(_int(t, "player", where, 0, 1), frame_at(t.get("frame"), f"{where}.frame"),
                                t["reshuffle"]))
        elif kind == "run":
            tasks.append(RunFrame(frame_at(t.get("frame"), f"{where}.frame")))
        elif kind == "end":
            tasks.append(END_TURN)
        else:
            raise _fail(where, "expected a task: draw, reveal, run or end")
    g.tasks = tasks
    g.decision = _load_decision(data.get("decision"), frame_at)
    if g.decision is None and g.over_reason is None and g.chance is None:
        raise _fail("state.decision", "null, but the game is neither over nor waiting for a chance outcome")
    try:
        g.rng = random.Random()
        g.rng.setstate(rng_from_json(data.get("rng")))
    except (TypeError, ValueError) as exc:
        raise _fail("state.rng", f"not a generator state: {exc}") from None
    g.determinized = True
    return g


def _load_decision(d, frame_at) -> Ask | None:
    if d is None:
        return None
    where = "state.decision"
    if not isinstance(d, dict):
        raise _fail(where, "expected null or a JSON object")
    player = _int(d, "player", where, 0, 1)
    actions = d.get("actions")
    if not isinstance(actions, list) or not actions or not all(
            isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in actions):
        raise _fail(f"{where}.actions", "expected a non-empty list of action ids")
    prompt, zone = d.get("prompt"), d.get("zone")
    if not isinstance(prompt, str) or not (zone is None or isinstance(zone, str)):
        raise _fail(where, "'prompt' must be a text and 'zone' a text or null")
    frame = None if d.get("frame") is None else frame_at(d.get("frame"), f"{where}.frame")
    labels, labeler = d.get("labels"), None
    if labels is not None:
        if not isinstance(labels, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[1], str)
                                                   for p in labels):
            raise _fail(f"{where}.labels", "expected a list of [action, text]")
        labels = {a: t for a, t in labels}
        if set(labels) != set(actions):
            raise _fail(f"{where}.labels", "must name exactly the decision's actions")
    else:
        labeler = LABELERS.get(d.get("labeler")) or LABELERS_EARLIER.get(d.get("labeler"))
        if labeler is None:
            raise _fail(f"{where}.labeler", f"expected one of {', '.join(LABELERS)} when there are no labels")
    return Ask(player, list(actions), prompt, frame, labels=labels, labeler=labeler, zone=zone)


def _check_schema(value, schema, path: str) -> None:
    """``value`` against ``schema`` (engine/crown/schema.py); ViewError names the field's JSON path."""
    try:
        check(value, schema, path)
    except SchemaError as exc:
        raise _fail(exc.path.removeprefix("$."), exc.problem) from None


def load_view(doc) -> GameState:
    """The state of an "ftc-position-view" document (a determinization from its ``seat``), after
    checking its format, version, fields, fingerprint and observation; ViewError names the field."""
    if not isinstance(doc, dict):
        raise _fail("(document)", "expected a JSON object")
    if doc.get("format") != FORMAT:
        raise _fail("format", f"must be {FORMAT!r}")
    if doc.get("version") != VERSION:
        raise _fail("version", f"unsupported version (this engine reads {VERSION})")
    _check_schema(doc, VIEW_SCHEMA, "$")
    seat = doc["seat"]
    try:
        config = GameConfig.from_dict(doc.get("config"))
    except ConfigError as exc:
        raise _fail("config", str(exc)) from None
    if not isinstance(doc.get("state"), dict) or doc.get("digest") != state_digest(doc["state"]):
        raise _fail("digest", "it does not match the state (the file is corrupt or was edited)")
    _check_schema(doc["state"], STATE_SCHEMA, "$.state")
    g = load_state(config, doc["state"])
    if doc.get("fingerprint") != fingerprint(g):
        raise _fail("fingerprint", "the loaded state does not match it (the file is corrupt or from another "
                                   "engine version)")
    stored = doc.get("observation")
    if isinstance(stored, dict) and stored.get("turn") == g.turn and g.turn != g.turn_number:
        stored = {**stored, "turn": g.turn_number}     # written before turns were shown from 1 (issue 22)
    if "observation" in doc and json.loads(json.dumps(observation(g, seat))) != stored:
        raise _fail("observation", f"the state does not show seat {seat} what the file says it does")
    return g


def load_game_file(path: str | Path) -> tuple[GameState, dict]:
    """Read a game record ("ftc-game-record": replayed) or a position view ("ftc-position-view":
    loaded) from ``path``. Returns the state and the document. RecordError (ViewError for a view)
    names the file, the format and what is wrong."""
    path = Path(path)
    doc = read_json_file(path, f"game file ({RECORD_FORMAT} or {FORMAT})")
    kind = doc.get("format") if isinstance(doc, dict) else None
    try:
        if kind == FORMAT:
            return load_view(doc), doc
        if kind == RECORD_FORMAT:
            return replay(doc), doc
    except RecordError as exc:
        raise type(exc)(f"{path}: {exc}") from None
    raise RecordError(f"{path}: field 'format' must be {RECORD_FORMAT!r} (a game record) or {FORMAT!r} (a position "
                      f"view), got {kind!r}"[:200])
