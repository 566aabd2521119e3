"""`ftc engine`: a line-based JSON protocol on stdin/stdout for bots and other GUIs.

One request per line, one response per line (docs/protocol.md)::

    > {"id": 1, "cmd": "position", "text": "startpos"}
    < {"id":1,"ok":true,"mode":"position","position":"rnbqkbnr/... w - - 0 1","side":"w","over":false}
    > {"id": 2, "cmd": "apply", "action": "e2e5"}
    < {"id":2,"ok":false,"error":"field 'action': order e2e5: Pawn on e2 cannot reach ...","field":"action","line":2}

A game is any game of the registry (engine/games/registry.py: ``new`` with ``{"game": NAME}``;
For the Crown, "crown", when none is named; ``{"config": {"variant": "kings-ransom"}}``, a game's
name as its variant, still chooses King's Ransom): the same commands serve every game, which the
session reaches through the state protocol and its registry entry only (its seats' names, how an
action text is read, its search and analysis, its perft of a given position), never by testing
which game it is. Position mode is the board of For the Crown (Point-Buy Chess turns).

``Session`` is the whole protocol as a pure object (``handle(line) -> response line``, testable
without processes); ``run(stdin, stdout)`` is the loop around it. Guarantees: every input line gets
exactly one response line; a bad request gets ``"ok": false`` with an error naming the field and
value, and the input line number; a failed request changes nothing (new states are built completely
before they replace the old one, actions are tried on a clone); no input ends the process but
``quit`` or the end of the input.
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import dataclass
from typing import Any

from engine import NAMED_POSITIONS, __version__
from engine.board import analysis
from engine.board.alphabeta import MAX_DEPTH, AlphaBeta
from engine.games import registry
from engine.games.registry import DEFAULT_GAME, UnknownGameError
from engine.perft import divide as divide_counts
from engine.position import Position

__all__ = ["COMMANDS", "MAX_LINE_BYTES", "PROTOCOL_VERSION", "Limits", "ProtocolError", "Session", "read_line", "run"]

#: 2: a King's Ransom observation's ``check`` names the player in check (0, 1 or null), announced when
#: the Move step ends (ruling G9); in 1 it was a boolean for the side to move.
PROTOCOL_VERSION = 2
MAX_LINE_BYTES = 1024 * 1024
ENGINE_NAME = "ftc-engine"
DEFAULT_ITERATIONS = 1000          # game search: ISMCTS iterations when no budget is given
DEFAULT_ANALYZE_ITERATIONS = 2000  # game analysis (as `ftc analyze`)



def _search_body(g, player: int, stats, top: int) -> dict:
    """The answer of ``search`` (either game): the best action, its value, the budget spent and,
    with ``top``, the most visited root actions."""
    body = {"player": player, "best": stats.best,
            "text": g.action_text(stats.best) if stats.best is not None else None,
            "value": round(stats.value, 4), "iterations": stats.iterations, "seconds": round(stats.seconds, 4),
            "source": stats.source}
    if top:
        ranked = sorted(stats.children.items(), key=lambda item: (-item[1][0], item[0]))[:top]
        body["top"] = [{"action": a, "text": g.action_text(a), "visits": v, "value": round(val, 4)}
                       for a, (v, val) in ranked]
    return body

class ProtocolError(ValueError):
    """A request that cannot be served; ``field`` names the offending request field, if any."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Limits:
    """Upper bounds a host may put on one session's requests (a request above one is an error)."""

    max_iterations: int = 10_000_000
    max_seconds: float = 24 * 3600.0
    max_depth: int = MAX_DEPTH          # the search's own limit (engine/board/alphabeta.py)
    max_nodes: int = 10**12
    max_perft_depth: int = 7
    max_processes: int = max(1, os.cpu_count() or 1)
    max_top: int = 1000


# -- field validation -------------------------------------------------------------------------------
_JSON_TYPE = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "an integer",
              float: "a number", type(None): "null"}


def _describe(value: Any) -> str:
    """A short description of a JSON value for error messages: its type and (abridged) text."""
    kind = _JSON_TYPE.get(type(value), type(value).__name__)
    try:
        text = json.dumps(value, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        text = "?"
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{kind} {text}" if value is not None else "null"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _want_int(name: str, value: Any, low: int | None = None, high: int | None = None, why: str = "") -> int:
    if not _is_int(value):
        raise ProtocolError(f"field {name!r}: expected an integer, got {_describe(value)}", name)
    if low is not None and value < low:
        raise ProtocolError(f"field {name!r}: expected >= {low}, got {value}", name)
    if high is not None and value > high:
        raise ProtocolError(f"field {name!r}: {value} is above the limit of {high}{why}", name)
    return value


def _want_seconds(name: str, value: Any, high: float) -> float:
    if not (_is_int(value) or isinstance(value, float)) or not math.isfinite(value):
        raise ProtocolError(f"field {name!r}: expected a number of seconds, got {_describe(value)}", name)
    if value <= 0:
        raise ProtocolError(f"field {name!r}: expected a positive number of seconds, got {value}", name)
    if value > high:
        raise ProtocolError(f"field {name!r}: {value} is above the limit of {high} seconds", name)
    return float(value)


def _want(name: str, value: Any, kind: type, what: str) -> Any:
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ProtocolError(f"field {name!r}: expected {what}, got {_describe(value)}", name)
    return value


def _config_error(exc: ValueError, where: str) -> ProtocolError:
    """A game's configuration error (its entry's ``config``, or what only the set-up can tell) as a
    ProtocolError naming the field: "field 'config.extra_turns[0]': expected ...". An error that
    carries its option, place and detail (For the Crown's ConfigError) is read from those; any
    other reads "<where>.<option>: <detail>" (the registry's rule for configuration errors)."""
    option, detail = getattr(exc, "option", None), getattr(exc, "detail", None)
    if detail is not None:
        if option is None:
            return ProtocolError(f"field {where!r}: {detail}", where)
        return ProtocolError(f"field '{where}.{exc.path}': {detail}", f"{where}.{option}")
    place, sep, rest = str(exc).partition(": ")
    if not sep or not place.startswith(where):
        return ProtocolError(f"field {where!r}: {exc}", where)
    return ProtocolError(f"field {place!r}: {rest}", f"{where}.{option}" if option is not None else place)


def _start(game, data: Any, where: str):
    """A new state of ``game`` from JSON configuration ``data``; its errors name the field."""
    try:
        return game.start(data, where)
    except ValueError as exc:
        raise _config_error(exc, where) from None


def _game_field(args: dict, name: str = "game"):
    """The registered game a request's ``game`` field names."""
    try:
        return registry.get(_want(name, args[name], str, f"a game name ({', '.join(registry.names())})"))
    except UnknownGameError as exc:
        raise ProtocolError(f"field {name!r}: {exc}", name) from None


def _game_of_config(data: Any):
    """The game a configuration chooses without a ``game`` field: its ``variant`` when that is a
    game's name or alias (the old way to choose King's Ransom), else the default game (whose
    configuration check then names a bad variant)."""
    variant = data.get("variant") if isinstance(data, dict) else None
    try:
        return registry.get(variant) if isinstance(variant, str) else registry.get(DEFAULT_GAME)
    except UnknownGameError:
        return registry.get(DEFAULT_GAME)


# -- commands --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Command:
    name: str
    fields: tuple[str, ...]        # the request fields it accepts besides "id" and "cmd"
    mode: str | None               # "game", "position", or None (any, or no state needed)
    help: str


COMMANDS: dict[str, Command] = {c.name: c for c in (
    Command("hello", (), None, "engine name, version, protocol version, commands"),
    Command("new", ("game", "config"), None, "start a full game of a registered game (its options in config)"),
    Command("position", ("text", "promote", "variant"), None, "set up a board position (Point-Buy Chess turns)"),
    Command("load", ("record",), None, "load a game record"),
    Command("state", ("player",), "any", "what a player may know (game) / the position and its orders"),
    Command("observe", ("player",), "any", "the same as state"),
    Command("actions", ("player",), "any", "legal actions with ids and texts (game) / legal orders"),
    Command("apply", ("action", "player"), "any", "take one decision (action id or text) / play an order"),
    Command("search", ("iterations", "seconds", "seed", "processes", "top", "plan", "depth", "nodes"), "any",
            "best decision: ISMCTS (game) / alpha-beta (position)"),
    Command("analyze", ("iterations", "seconds", "seed", "processes", "top", "depth"), "any",
            "best turn plan and top actions (game) / best orders with lines (position)"),
    Command("perft", ("depth", "divide", "game", "variant", "position"), None,
            "count order sequences (position mode) / a game's move sequences from a given position (game, position)"),
    Command("record", ("full",), "game", "the game record (refused before the end unless full)"),
    Command("quit", (), None, "end the session"),
)}

GAME_ONLY_FIELDS = {"search": {"iterations", "seed", "processes", "plan"}, "analyze": {"iterations", "seed", "processes"}}
#: Fields a game's search reads only when its registry entry lists them (``Game.search.search_fields``).
SEARCH_FIELDS = {"search": {"processes", "plan"}, "analyze": {"processes"}}


def _board_variants() -> tuple[str, ...]:
    """The variants whose board the position command sets up (the default game's: For the Crown's)."""
    return registry.get(DEFAULT_GAME).variants

POSITION_ONLY_FIELDS = {"search": {"depth", "nodes"}, "analyze": {"depth"}}


class Session:
    """One protocol session: at most one current state, a full game ("game" mode) or a board
    position ("position" mode). ``handle`` never raises: every line gets one JSON response line."""

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits()
        self.mode: str | None = None
        self.game = None                 # a game state (engine/games/protocol.py) in game mode
        self.position = None             # Position in position mode
        self.line = 0                    # number of the last input line handled (1-based)
        self.finished = False            # set by quit
        self._searcher = None            # AlphaBeta, created on first use (keeps its table)

    # -- the entry point ---------------------------------------------------------------------
    def handle(self, line: str | bytes) -> str:
        """Serve one input line; returns one JSON line (without the newline)."""
        self.line += 1
        request_id = None
        try:
            request = self._parse(line)
            request_id = request.get("id")
            body = self._dispatch(request)
            response = {"id": request_id, "ok": True}
            response.update(body)
        except ProtocolError as exc:
            response = self._error(request_id, str(exc), exc.field)
        except Exception as exc:  # noqa: BLE001 - the process must survive any request
            response = self._error(request_id, f"internal error ({type(exc).__name__}): {exc}", None)
        return self._dump(response)

    def oversized(self) -> str:
        """The response to a line longer than MAX_LINE_BYTES (run() does not keep such a line)."""
        self.line += 1
        return self._dump(self._error(None, f"line longer than {MAX_LINE_BYTES} bytes: ignored", None))

    def _error(self, request_id, message: str, field: str | None) -> dict:
        response = {"id": request_id, "ok": False, "error": message}
        if field is not None:
            response["field"] = field
        response["line"] = self.line
        return response

    def _dump(self, response: dict) -> str:
        try:
            return json.dumps(response, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            # An id that cannot be echoed (too deeply nested to write back): answer without it.
            fallback = self._error(None, f"response not serializable ({exc}); the request id is not echoed", None)
            if response.get("ok") is False:
                fallback["error"] = f"{response['error']} (the request id could not be echoed)"
            return json.dumps(fallback, separators=(",", ":"))

    # -- parsing ---------------------------------------------------------------------------------
    def _parse(self, line: str | bytes) -> dict:
        if isinstance(line, (bytes, bytearray)):
            if len(line) > MAX_LINE_BYTES + 2:
                raise ProtocolError(f"line longer than {MAX_LINE_BYTES} bytes: ignored")
            try:
                line = bytes(line).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ProtocolError(f"line is not valid UTF-8 (byte {exc.start + 1}): {exc.reason}") from None
        if not isinstance(line, str):
            raise ProtocolError(f"a line must be text, got {type(line).__name__}")
        line = line.rstrip("\r\n")
        if len(line) > MAX_LINE_BYTES or len(line.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
            raise ProtocolError(f"line longer than {MAX_LINE_BYTES} bytes: ignored")
        if not line.strip():
            raise ProtocolError('empty line: expected a JSON object such as {"cmd": "hello"}')
        try:
            request = json.loads(line, parse_constant=_reject_constant, parse_float=_finite_float)
        except json.JSONDecodeError as exc:
            raise ProtocolError(f"invalid JSON at column {exc.colno}: {exc.msg}") from None
        except (ValueError, RecursionError) as exc:
            raise ProtocolError(f"invalid JSON: {exc if not isinstance(exc, RecursionError) else 'nested too deeply'}") from None
        if not isinstance(request, dict):
            raise ProtocolError(f"expected a JSON object, got {_describe(request)}")
        return request

    def _dispatch(self, request: dict) -> dict:
        if "cmd" not in request:
            raise ProtocolError(f"missing field 'cmd'; commands: {', '.join(COMMANDS)}", "cmd")
        name = request["cmd"]
        if not isinstance(name, str):
            raise ProtocolError(f"field 'cmd': expected a command name (string), got {_describe(name)}", "cmd")
        command = COMMANDS.get(name)
        if command is None:
            raise ProtocolError(f"field 'cmd': unknown command {name!r}; commands: {', '.join(COMMANDS)}", "cmd")
        args = {k: v for k, v in request.items() if k not in ("id", "cmd")}
        for key in args:
            if key not in command.fields:
                known = ", ".join(command.fields) if command.fields else "none"
                raise ProtocolError(f"field {key!r}: unknown field for command {name!r} (its fields: {known})", key)
        if command.mode is not None:
            if self.mode is None:
                need = "new, load or position" if command.mode == "any" else ("new or load" if command.mode == "game" else "position")
                raise ProtocolError(f"command {name!r}: no state yet; start one with {need}", "cmd")
            if command.mode != "any" and command.mode != self.mode:
                raise ProtocolError(f"command {name!r} needs {command.mode} mode; the session is in {self.mode} mode", "cmd")
            wrong = (GAME_ONLY_FIELDS if self.mode == "position" else POSITION_ONLY_FIELDS).get(name, set())
            for key in args:
                if key in wrong:
                    raise ProtocolError(f"field {key!r}: not used by {name!r} in {self.mode} mode", key)
            if self.mode == "game":
                entry = self._entry()
                for key in args:
                    if key in SEARCH_FIELDS.get(name, set()) and key not in entry.search.search_fields:
                        takers = " or ".join(g.title for g in registry.games() if key in g.search.search_fields)
                        raise ProtocolError(f"field {key!r}: not used by {name!r} in a {entry.name} game "
                                            f"(a {takers} option)", key)
        return getattr(self, "_cmd_" + name)(args)

    # -- set-up ------------------------------------------------------------------------------------
    def _cmd_hello(self, args: dict) -> dict:
        return {"name": ENGINE_NAME, "version": __version__, "protocol": PROTOCOL_VERSION,
                "commands": list(COMMANDS), "mode": self.mode}

    def _cmd_quit(self, args: dict) -> dict:
        self.finished = True
        return {"bye": True}

    def _entry(self):
        """The registry entry of the session's game."""
        return registry.for_state(self.game)

    def _cmd_new(self, args: dict) -> dict:
        data = args.get("config", {})
        game = _game_field(args) if "game" in args else _game_of_config(data)
        self._set_game(_start(game, data, "config"))
        return self._game_summary()

    def _cmd_load(self, args: dict) -> dict:
        if "record" not in args:
            raise ProtocolError("missing field 'record' (a game record object, as the record command returns)", "record")
        record = _want("record", args["record"], dict, "a game record object")
        try:
            entry = registry.for_record(record)
        except UnknownGameError:            # not recognised: the default game's replay says what is wrong
            entry = registry.get(DEFAULT_GAME)
        if "config" in record:              # the same check replay makes, with the field named in full
            try:
                entry.config(record["config"], "record.config")
            except ValueError as exc:
                raise _config_error(exc, "record.config") from None
        try:
            game = entry.replay(record)
        except ValueError as exc:
            raise ProtocolError(f"field 'record': {exc}", "record") from None
        self._set_game(game)
        return self._game_summary()

    def _cmd_position(self, args: dict) -> dict:
        if "text" not in args:
            raise ProtocolError(f"missing field 'text' (position text or a name: {', '.join(NAMED_POSITIONS)})", "text")
        if "variant" in args and args["variant"] not in _board_variants():
            other = args["variant"] if isinstance(args["variant"], str) and args["variant"] in registry.names() else None
            if other is not None:
                raise ProtocolError(f"field 'variant': position mode is For the Crown's board (Point-Buy Chess turns), "
                                    f"not {other}; for {other} start a game with new "
                                    f"{{\"config\": {{\"variant\": \"{other}\"}}}} or count a position with perft "
                                    f"{{\"variant\": \"{other}\", \"position\": ..., \"depth\": n}}", "variant")
            raise ProtocolError(f"field 'variant': expected one of {', '.join(_board_variants())}, got "
                                f"{_describe(args['variant'])}", "variant")
        text = _want("text", args["text"], str, "a position text")
        promote = args.get("promote")
        if promote is not None:
            _want("promote", promote, str, "promotion tokens such as \"NBRQ\" (or \"-\" for none)")
            try:
                Position().promote_mask_from_tokens(promote)
            except ValueError as exc:
                raise ProtocolError(f"field 'promote': {exc}", "promote") from None
        try:
            position = Position.from_text(NAMED_POSITIONS.get(text.strip(), text), promote=promote)
        except ValueError as exc:
            raise ProtocolError(f"field 'text': {exc}", "text") from None
        self.mode, self.game, self.position = "position", None, position
        if self._searcher is not None:
            self._searcher.new_game()
        return self._position_summary()

    def _set_game(self, game) -> None:
        self.mode, self.game, self.position = "game", game, None

    # -- reading the state ---------------------------------------------------------------------------
    def _game_summary(self) -> dict:
        g = self.game
        player = g.current_player()
        summary = {"mode": "game", "to_move": _who(player), "turn": g.turn_number, "phase": g.phase,
                   "over": g.is_terminal()}
        entry = self._entry()
        if not entry.variants:              # a game without variants of its own is named as its variant
            summary = {"mode": "game", "variant": entry.name, **{k: v for k, v in summary.items() if k != "mode"}}
        if g.is_terminal():
            summary.update(reason=g.over_reason, winner=g.winner, returns=g.returns())
        return summary

    def _position_summary(self) -> dict:
        p = self.position
        return {"mode": "position", "position": p.to_text(), "side": p.turn, "over": p.is_over()}

    def _player_field(self, args: dict, default: int) -> int:
        if "player" not in args or args["player"] is None:
            return default
        value = args["player"]
        seats = range(self.game.num_players)
        if not _is_int(value) or value not in seats:
            expected = " or ".join(f"{p} ({self._name(p)})" for p in seats)
            raise ProtocolError(f"field 'player': expected {expected}, got {_describe(value)}", "player")
        return value

    def _name(self, player: int) -> str:
        """A seat's name (the game's registry entry: Blue/Yellow in For the Crown, Red/Blue in King's Ransom)."""
        return self._entry().seat(player)

    def _who_text(self, player: int) -> str:
        return "chance" if player == -1 else f"player {player} ({self._name(player)})"

    def _cmd_state(self, args: dict) -> dict:
        if self.mode == "position":
            if "player" in args:
                raise ProtocolError("field 'player': not used in position mode (no hidden information)", "player")
            p = self.position
            body = self._position_summary()
            body["orders"] = [o.text() for o in p.legal_orders()]
            return body
        g = self.game
        decider = g.current_player()
        player = self._player_field(args, decider if decider >= 0 else g.current)
        body = self._game_summary()
        body["player"] = player
        body["observation"] = g.observation(player)
        return body

    _cmd_observe = _cmd_state

    def _cmd_actions(self, args: dict) -> dict:
        if self.mode == "position":
            if "player" in args:
                raise ProtocolError("field 'player': not used in position mode", "player")
            p = self.position
            return {"side": p.turn, "orders": [o.text() for o in p.legal_orders()]}
        g = self.game
        decider = g.current_player()
        if g.is_terminal():
            return {"to_move": None, "over": True, "actions": []}
        player = self._player_field(args, decider)
        if player != decider:
            raise ProtocolError(f"field 'player': player {player} is not to decide now ({self._who_text(decider)} is); "
                                "a player sees only their own options", "player")
        if g.is_chance_node():
            return {"to_move": "chance", "prompt": f"chance: {self._chance_text()} (one of {len(g.chance_outcomes())})",
                    "actions": [{"action": t, "text": g.action_text(t), "probability": round(p, 6)}
                                for t, p in g.chance_outcomes()]}
        if self._entry().cli.lists_action_fields:
            return {"to_move": decider, "prompt": g.prompt(),
                    "actions": [{"action": a, "text": t, "fields": g.action_fields(a)}
                                for a, t in g.legal_action_texts().items()]}
        return {"to_move": _who(decider), "prompt": g.prompt(),
                "actions": [{"action": a, "text": t} for a, t in g.legal_action_texts().items()]}

    # -- changing the state -------------------------------------------------------------------------------
    def _cmd_apply(self, args: dict) -> dict:
        if "action" not in args:
            raise ProtocolError("missing field 'action' (an action id or text; an order text in position mode)", "action")
        action = args["action"]
        if self.mode == "position":
            return self._apply_order(args, action)
        g = self.game
        if g.is_terminal():
            raise ProtocolError(f"field 'action': the game is over ({g.over_reason}); no action is legal", "action")
        decider = g.current_player()
        if "player" in args:
            player = self._player_field(args, decider)
            if player != decider:
                raise ProtocolError(f"field 'player': player {player} is not to decide now ({self._who_text(decider)} is)", "player")
        if g.is_chance_node():                # the protocol's chance outcomes are what may be applied
            legal = [t for t, _ in g.chance_outcomes()]
        else:
            legal = g.legal_actions()   # listed once: an id is looked up in it, a text by its fields
        if _is_int(action):
            if action not in legal:
                raise ProtocolError(f"field 'action': {action} is not a legal action now ({g.prompt()}); "
                                    f"{len(legal)} legal actions (see the actions command)", "action")
        elif isinstance(action, str):
            found = (self._entry().cli.read_action or _text_reading)(g, legal, action.strip())
            if found is None:
                raise ProtocolError(f"field 'action': no legal action reads {action!r} now ({g.prompt()})", "action")
            action = found
        else:
            raise ProtocolError(f"field 'action': expected an action id (integer) or its text, got {_describe(action)}", "action")
        text = g.action_text(action)
        trial = g.clone()               # the state changes only if the whole action succeeds
        trial.apply(action)
        self.game = trial
        body = {"applied": {"action": action, "text": text, "player": _who(decider)}}
        body.update(self._game_summary())
        return body

    def _apply_order(self, args: dict, action: Any) -> dict:
        if "player" in args:
            raise ProtocolError("field 'player': not used in position mode", "player")
        if not isinstance(action, str):
            raise ProtocolError(f"field 'action': expected an order text such as \"e2e4\" in position mode, got {_describe(action)}", "action")
        p = self.position
        side = p.turn
        try:
            p.push(action.strip())      # looked up among the legal orders once, pushed as found
        except ValueError as exc:
            raise ProtocolError(f"field 'action': {exc}", "action") from None
        body = {"applied": {"order": p.move_stack[-1].text(), "side": side}}
        body.update(self._position_summary())
        return body

    # -- search and analysis ---------------------------------------------------------------------------------
    def _budget(self, args: dict, default_iterations: int) -> tuple[int | None, float | None, int, int]:
        lim = self.limits
        iterations = seconds = None
        if "iterations" in args:
            iterations = _want_int("iterations", args["iterations"], 1, lim.max_iterations)
        if "seconds" in args:
            seconds = _want_seconds("seconds", args["seconds"], lim.max_seconds)
        if iterations is None and seconds is None:
            iterations = min(default_iterations, lim.max_iterations)
        seed = _want_int("seed", args["seed"]) if "seed" in args else 0
        processes = _want_int("processes", args["processes"], 1, lim.max_processes) if "processes" in args else 1
        return iterations, seconds, seed, processes

    def _board_limits(self, args: dict) -> tuple[int | None, float | None, int | None]:
        lim = self.limits
        depth = _want_int("depth", args["depth"], 1, lim.max_depth) if "depth" in args else None
        seconds = _want_seconds("seconds", args["seconds"], lim.max_seconds) if "seconds" in args else None
        nodes = _want_int("nodes", args.get("nodes"), 1, lim.max_nodes) if "nodes" in args else None
        return depth, seconds, nodes

    def _top(self, args: dict, default: int, low: int = 1) -> int:
        return _want_int("top", args["top"], low, self.limits.max_top) if "top" in args else default

    def _alphabeta(self):
        if self._searcher is None:
            self._searcher = AlphaBeta()
        return self._searcher

    def _cmd_search(self, args: dict) -> dict:
        if self.mode == "position":
            depth, seconds, nodes = self._board_limits(args)
            top = self._top(args, 1)
            result = self._alphabeta().search(self.position.copy(), depth=depth, seconds=seconds, nodes=nodes, top=top)
            data = result.to_json()
            body = {"best": data["best"], "score": data["score"], "score_text": data["score_text"],
                    "pv": data["lines"][0]["pv"] if data["lines"] else [], "depth": data["depth"],
                    "seldepth": data["seldepth"], "nodes": data["nodes"], "seconds": data["seconds"],
                    "complete": result.complete}
            if top > 1:
                body["lines"] = data["lines"]
            return body
        g = self.game
        if g.is_terminal():
            raise ProtocolError(f"command 'search': the game is over ({g.over_reason})", "cmd")
        self._refuse_chance("search")
        entry = self._entry()
        if entry.search.searcher is None:
            raise ProtocolError(f"command 'search': not available for {entry.name} (its registry entry has no "
                                "search)", "cmd")
        iterations, seconds, seed, processes = self._budget(args, DEFAULT_ITERATIONS)
        top = self._top(args, 0, low=0)
        plan = _want("plan", args["plan"], bool, "true or false") if "plan" in args else False
        searcher = entry.search.searcher(iterations, seconds, seed, processes)
        player = g.current_player()
        body = _search_body(g, player, searcher.search(g.clone()), top)
        if plan:
            turn = searcher.plan_turn(g.clone())
            body["plan"] = [{"action": a, "text": t} for a, t in zip(turn.actions, turn.texts)]
            body["plan_value"] = round(turn.value, 4)
        return body

    def _refuse_chance(self, command: str) -> None:
        """A search or analysis asked where chance, not a player, is to decide: refused, naming what
        chance decides (a game that is over is refused by the command itself)."""
        if self.game.is_chance_node() and not self.game.is_terminal():
            raise ProtocolError(f"command '{command}': chance is to decide ({self._chance_text()}); apply one of "
                                "its outcomes (see the actions command)", "cmd")

    def _chance_text(self) -> str:
        """What chance decides, from its outcomes' texts, whatever the game: the words they all begin
        with ("Red draws", "draw the Omen")."""
        g = self.game
        texts = [g.action_text(outcome).split() for outcome, _ in g.chance_outcomes()]
        shared = texts[0]
        for words in texts[1:]:
            n = 0
            while n < min(len(shared), len(words)) and shared[n] == words[n]:
                n += 1
            shared = shared[:n]
        return " ".join(shared) or "an outcome"

    def _cmd_analyze(self, args: dict) -> dict:
        if self.mode == "position":
            depth, seconds, _ = self._board_limits(args)
            top = self._top(args, 3)
            return {"analysis": analysis.analyze_position(self.position.copy(), depth=depth, seconds=seconds, top=top,
                                                          searcher=self._alphabeta())}
        entry = self._entry()
        if entry.analysis.analyze is None:
            planners = " or ".join(g.title for g in registry.games() if g.analysis.analyze is not None)
            raise ProtocolError(f"command 'analyze': not available for {entry.name} (the analysis plans {planners} "
                                "turns); use search with top, e.g. {\"cmd\": \"search\", \"top\": 3}", "cmd")
        self._refuse_chance("analyze")
        iterations, seconds, seed, processes = self._budget(args, DEFAULT_ANALYZE_ITERATIONS)
        top = self._top(args, 3)
        report = entry.analysis.analyze(self.game.clone(), iterations, seconds, top, seed, processes)
        return {"analysis": report}

    def _cmd_perft(self, args: dict) -> dict:
        if "game" in args or "variant" in args or "position" in args:
            return self._perft_given(args)
        if "depth" not in args:
            raise ProtocolError(f"missing field 'depth' (plies, 0..{self.limits.max_perft_depth})", "depth")
        if self.mode != "position":
            why = f" (or give variant {' or '.join(json.dumps(n) for n in _perft_games())} and a position)"
            if self.mode is None:
                raise ProtocolError(f"command 'perft': no state yet; start one with position{why}", "cmd")
            raise ProtocolError(f"command 'perft' needs position mode; the session is in game mode{why}", "cmd")
        depth = _want_int("depth", args["depth"], 0, self.limits.max_perft_depth,
                          why=" (deeper counts can take hours; use `ftc perft`)")
        divide = _want("divide", args["divide"], bool, "true or false") if "divide" in args else False
        p = self.position.copy()
        if divide and depth >= 1:
            counts = divide_counts(p, depth)
            return {"depth": depth, "nodes": sum(counts.values()), "divide": counts}
        return {"depth": depth, "nodes": p.perft(depth)}

    def _perft_given(self, args: dict) -> dict:
        """perft / divide of a position given in the request, of a game whose registry entry counts
        them in the protocol (``perft_limit``; King's Ransom: complete turns, G8); the session's state
        is not used or changed. The game: ``game``, or ``variant`` naming it."""
        counting = _perft_games()
        if "game" in args:
            entry = _game_field(args)
            field = "game"
        else:
            variant = args.get("variant")
            entry = registry.get(variant) if isinstance(variant, str) and variant in registry.names() else None
            field = "variant"
        limit = None if entry is None or entry.positions.position is None else entry.positions.perft_limit
        if limit is None:
            got = _describe(args.get(field))
            raise ProtocolError(f"field {field!r}: perft of a given position is for {_or_names(counting)} only, got "
                                f"{got} (For the Crown positions: the position command, then perft)", field)
        if "depth" not in args:
            unit = "complete turns" if entry.positions.perft_unit == "turns" else "plies"
            raise ProtocolError(f"missing field 'depth' ({unit}, 0..{min(limit, self.limits.max_perft_depth)})",
                                "depth")
        depth = _want_int("depth", args["depth"], 0, min(limit, self.limits.max_perft_depth),
                          why=f" (deeper counts can take hours; use `ftc perft --game {entry.name}`)")
        divide = _want("divide", args["divide"], bool, "true or false") if "divide" in args else False
        text = _want("position", args.get("position", "startpos"), str, f"a {entry.title} position text or \"startpos\"")
        try:
            start = entry.positions.position(text)
        except ValueError as exc:
            raise ProtocolError(f"field 'position': {exc}", "position") from None
        body = {"variant": entry.name, "position": start, "depth": depth}
        if divide and depth >= 1:
            counts = entry.positions.divide(start, depth)
            body.update(nodes=sum(counts.values()), divide=counts)
        else:
            body["nodes"] = entry.positions.perft(start, depth)
        return body

    def _cmd_record(self, args: dict) -> dict:
        full = _want("full", args["full"], bool, "true or false") if "full" in args else False
        g = self.game
        if not g.is_terminal() and not full:
            raise ProtocolError("command 'record': the game is not over and its record may reveal what the players "
                                "may not see (hidden cards, the draws to come); send {\"cmd\": \"record\", \"full\": "
                                "true} to get it anyway", "full")
        return {"record": g.record()}


def _text_reading(g, legal: list[int], text: str) -> int | None:
    """The first of the ``legal`` actions (or chance outcomes) whose text is ``text``, or None (a
    game whose registry entry has no faster ``read_action``)."""
    return next((a for a in legal if g.action_text(a) == text), None)


def _perft_games() -> list[str]:
    """The games whose perft of a given position the protocol serves (``Game.positions.perft_limit``)."""
    return [g.name for g in registry.games() if g.positions.perft_limit is not None and g.positions.position is not None]


def _or_names(names: list[str]) -> str:
    return " or ".join(repr(n) for n in names) if names else "no game"


def _who(player: int):
    """A player number for responses: 0 or 1, "chance", or None when the game is over."""
    if player >= 0:
        return player
    return "chance" if player == -1 else None


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


# -- the stdio loop ------------------------------------------------------------------------------------------
def run(stdin, stdout, session: Session | None = None) -> int:
    """Serve requests from ``stdin`` until ``quit`` or end of input; returns 0. Reads bytes when the
    stream has them (so line length is counted in bytes and bad UTF-8 is reported, not fatal)."""
    session = session or Session()
    source = getattr(stdin, "buffer", stdin)
    sink = stdout
    # Only responses go to the protocol stream: anything else printed meanwhile goes to stderr.
    redirected = stdout is sys.stdout
    if redirected:
        sys.stdout = sys.stderr
    try:
        while not session.finished:
            line, too_long = read_line(source)
            if line is None:
                break
            response = session.oversized() if too_long else session.handle(line)
            sink.write(response + "\n")
            sink.flush()
    finally:
        if redirected:
            sys.stdout = sink
    return 0


def read_line(source) -> tuple[Any, bool]:
    """One line (without the newline) and whether it was too long; (None, False) at end of input.
    A line longer than MAX_LINE_BYTES is read through to its end without being kept (the UCI loop
    reads its input with this too)."""
    chunk = source.readline(MAX_LINE_BYTES + 2)
    if not chunk:
        return None, False
    newline = b"\n" if isinstance(chunk, bytes) else "\n"
    if chunk.endswith(newline):
        body = chunk[:-1]
        return body, len(body.rstrip(b"\r" if isinstance(chunk, bytes) else "\r")) > MAX_LINE_BYTES
    if len(chunk) <= MAX_LINE_BYTES:
        return chunk, False           # the last line, without a newline
    while True:                       # too long: skip the rest of the line
        chunk = source.readline(MAX_LINE_BYTES)
        if not chunk or chunk.endswith(newline):
            return b"" if isinstance(chunk, bytes) else "", True
