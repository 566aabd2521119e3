"""The analysis board's record board (docs/server.md, "The analysis board"): a saved game or record of
any registered game whose analysis pieces are of the "record" page (registry ``WebBoard.analysis``)
stepped through as one seat saw it, each point drawn by the game's own board module and analysed by
the game's own analysis (``Game.analysis.analyze``) in the analysis pool. Nothing here knows a game.

- ``POST /api/analysis/game-record``: ``{"record", "player", "game"?}`` in (the record is checked by
  its game's replay); its decisions as ``player`` saw them (each decision's text from the game's
  ``WebBoard.step`` for that seat: hidden choices stay hidden), the evaluation graph where the game
  has one, and an ``id`` naming the loaded record for the calls below. The record stays in memory on
  the server (MAX_LOADED_PER_CLIENT per client, its oldest dropped first, and MAX_LOADED in all,
  taken from the client holding the most); only its uploader knows its id.
- ``POST /api/analysis/game-position``: ``{"game", "text", "player"?}`` in, for a game whose analysis
  pieces read a position text (``read_state``): the text read by the game's own reader (a bad one is
  a 422 naming what is wrong) and loaded as a record of one point, decision 1, seen as ``player``
  (default: the side to move), under an ``id`` as a record is. A position text names every card,
  the hidden ones too: it is what the one pasting it says, and no secret of the server's is in it.
- ``POST /api/analysis/game-point``: ``{"id", "decision"}`` -> the view of the game just before that
  decision (``decision`` = the number of decisions + 1: the game's end; a position's one point is
  1) built for the loaded seat by engine.games.view.game_view, which shows that seat only what it
  may know.
- ``POST /api/analysis/game-review``: ``{"id"}`` -> the review of the loaded record's decisions of
  its seat (routes_review.py ``Reviews``: the AI's pool at hint priority, the same limits, cache and
  seed as a finished game's review, so it is `ftc review --player P --seed 0` on the server's
  budget); asked again it answers how far it is (202 while it runs, 200 when done). An unfinished
  record is reviewed as far as it goes. A loaded record is the client's own: nothing in it is secret.
- ``WS /api/analysis/game-ws``: ``{"type": "analyze", "id", "decision", "seconds", "top"}`` or
  ``{"type": "stop"}``; the game at the decision as the loaded seat saw it (every card hidden from
  that seat sampled again: engine.games.records.state_at) is analysed off the event loop and the
  answer pushed as ``{"type": "done", "choices": [...], "value", ...}`` (the game's ``choices``).
  ``stop`` (or a new ``analyze``, or a closed socket) ends the running search, the socket waiting for
  it before it answers (the stopped search's answer is dropped): a socket never has two. A game whose
  analysis takes the stop signal (registry ``Analysis.stoppable``: every game here does) gets it as
  ``stop`` and ends within moments; any other stops at its next ``progress`` report, and one that
  reports nothing before its end runs out its seconds.

A record of a game analysed on another board (For the Crown's position board) is answered with the
address of that board (``/analysis?game=NAME``). The limits are the board's (``Limits.analysis_*``):
sockets, message sizes and rate, seconds and lines of an analysis, record bytes, steps and rate (a
position text shares the records' rate and is at most MAX_POSITION_CHARS characters). Ids are
random (``secrets``): only the client that loaded a record or position knows its id. Bad input is
answered with a message naming the field, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, HTTPException, Request, WebSocket

from engine.games import registry
from engine.games.records import RecordPoint, log_for, record_points, state_at, state_before
from engine.games.view import game_view, generic_step, named, web_piece
from engine.interfaces.server.guard import JSONBodyError, RateLimiter, client_key, parsed_body, strict_json

__all__ = ["GAME_RECORD_PATH", "GAME_POSITION_PATH", "GAME_REVIEW_PATH", "MAX_LOADED", "MAX_LOADED_PER_CLIENT", "MAX_POSITION_CHARS",
           "GameAnalysis", "record_pieces", "parse_game_request"]

log = logging.getLogger("ftc.server")

GAME_RECORD_PATH = "/api/analysis/game-record"
GAME_POSITION_PATH = "/api/analysis/game-position"
GAME_REVIEW_PATH = "/api/analysis/game-review"
#: The longest position text read (Crownfall's JSON of four players is under 4,000 characters).
MAX_POSITION_CHARS = 16_384
#: Records loaded at once on a server (the oldest is dropped first; its page then loads it again).
MAX_LOADED = 32
#: Records and positions one client keeps loaded at once (its oldest is dropped first).
MAX_LOADED_PER_CLIENT = 4
#: An analysis's seconds when the message names none.
DEFAULT_SECONDS = 2.0
_ANALYZE_FIELDS = {"type", "id", "decision", "seconds", "top"}


class GameAnalysisError(ValueError):
    """A request that cannot be served; the message names the field and what is wrong."""


class _Halted(Exception):
    """Raised by a stopped analysis's progress report, ending its search."""


def record_pieces(game) -> dict | None:
    """The game's analysis pieces of the record board (``WebBoard.analysis`` with page "record"), or
    None when the game has none (or analyses on another board)."""
    if game.web is None or not game.web.analysis or game.walk is None or game.analysis.analyze is None:
        return None
    pieces = named(game.web.analysis)()
    return pieces if pieces.get("page") == "record" else None


def board_of(game) -> str:
    """Where a game whose records this board does not take is analysed, for a message: its own
    board's address, or that it has none."""
    if game.web is not None and game.web.analysis:
        return f"{game.title} records are analysed on its own board, /analysis?game={game.name}"
    return f"{game.title} has no analysis board"


@dataclass
class Loaded:
    """A record loaded on the board: its game, the seat it is seen as, its points and their log; or a
    position (``state``, the record None): one point, decision 1."""

    game: Any
    pieces: dict
    record: dict | None
    player: int
    points: list[RecordPoint]
    log: list[dict] = field(default_factory=list)
    state: Any = None
    #: Who loaded it (``guard.client_key``): a client's loads push out its own, not another's.
    client: str = "local"

    @property
    def decisions(self) -> int:
        """The decisions that can be analysed: the record's, or a position's one (none at its end)."""
        if self.record is None:
            return 0 if self.state.is_terminal() else 1
        return len(self.points)

    @property
    def last(self) -> int:
        """The last point that can be shown: the record's end, or a position's one point."""
        return 1 if self.record is None else len(self.points) + 1

    def shown(self, decision: int):
        """The real game just before ``decision`` (for a view built for the loaded seat only)."""
        if self.record is None:
            return self.state.clone()
        if decision == len(self.points) + 1:
            return self.game.replay(self.record)
        return state_before(self.record, self.points[decision - 1])

    def searched(self, decision: int):
        """The game at ``decision`` as the loaded seat saw it (hidden cards sampled again, seed 0)."""
        if self.record is None:
            state = self.state.clone()
            state.auto_chance = True
            return state.resample_hidden(self.player, random.Random(0))
        return state_at(self.record, self.points[decision - 1], seed=0, viewer=self.player)

    def mover(self, decision: int) -> tuple[int, str]:
        """(player, seat name) deciding at ``decision``."""
        if self.record is None:
            player = self.state.current_player()
            return player, self.game.seat(player)
        point = self.points[decision - 1]
        return point.player, point.name


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_game_request(data: Any, limits) -> dict:
    """A socket message, checked: ``{"type": "stop"}`` or ``{"type": "analyze", "id", "decision",
    "seconds", "top"}``; GameAnalysisError names the field."""
    if not isinstance(data, dict):
        raise GameAnalysisError(f"a message must be a JSON object with a 'type', got {_kind(data)}")
    kind = data.get("type")
    if kind == "stop":
        if set(data) - {"type"}:
            raise GameAnalysisError("message 'stop': it has no field but 'type'")
        return {"type": "stop"}
    if kind != "analyze":
        raise GameAnalysisError(f"field 'type': expected 'analyze' or 'stop', got {_kind(kind)} that is neither")
    if set(data) - _ANALYZE_FIELDS:
        raise GameAnalysisError(f"message 'analyze': an unknown field (known: {', '.join(sorted(_ANALYZE_FIELDS))})")
    if not isinstance(data.get("id"), str):
        raise GameAnalysisError(f"field 'id': expected the loaded record's id (a string), got {_kind(data.get('id'))}")
    if not _is_int(data.get("decision")) or data["decision"] < 1:
        raise GameAnalysisError(f"field 'decision': expected a whole number from 1, got {_kind(data.get('decision'))}")
    cap = limits.analysis_max_seconds
    seconds = data.get("seconds", min(DEFAULT_SECONDS, cap))
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or not 0 < seconds <= cap:
        raise GameAnalysisError(f"field 'seconds': expected a number over 0 and at most {cap:g}, got {_kind(seconds)} "
                                "outside that")
    top = data.get("top", min(3, limits.analysis_max_top))
    if not _is_int(top) or not 1 <= top <= limits.analysis_max_top:
        raise GameAnalysisError(f"field 'top': expected a whole number 1..{limits.analysis_max_top}, got {_kind(top)} "
                                "outside that")
    return {"type": "analyze", "id": data["id"], "decision": data["decision"], "seconds": float(seconds), "top": top}


class GameAnalysis:
    """The record board's endpoints (``router``) on the analysis service ``service``
    (engine/interfaces/server/analysis.py ``Analysis``: its limits, sockets and worker pool)."""

    def __init__(self, service):
        self.service = service
        self.limits = service.limits
        self.loaded: OrderedDict[str, Loaded] = OrderedDict()
        self._keeping = threading.Lock()          # loads are kept from worker threads
        self.router = self._routes()

    # -- loading and stepping ----------------------------------------------------------------------
    def games_json(self) -> list[dict]:
        """Every game the analysis board takes: name, title, board module, seats, page and its scale,
        whether a position text is read (``position``) and what one looks like (``position_hint``)."""
        out = []
        for game in registry.games():
            if game.web is None or not game.web.analysis:
                continue
            pieces = named(game.web.analysis)()
            out.append({"name": game.name, "title": game.title, "module": game.web.module,
                        "seats": [game.seat(p) for p in range(max(game.players))], "page": pieces.get("page"),
                        "mark": pieces.get("mark", ""), "scale": pieces.get("scale", ""),
                        "graph": pieces.get("evaluate") is not None,
                        "position": pieces.get("page") == "record" and pieces.get("read_state") is not None,
                        "position_hint": pieces.get("position_hint", "")})
        return out

    def load(self, data: Any, client: str = "local") -> dict:
        """A record loaded as one seat saw it (``POST /api/analysis/game-record``) for ``client``."""
        if not isinstance(data, dict) or set(data) - {"record", "player", "game"} or "record" not in data:
            raise GameAnalysisError('expected {"record": a saved game or record, "player": a seat number, '
                                    '"game": its game (optional)}')
        record = data["record"]
        try:
            game = registry.for_record(record)
        except ValueError as exc:
            raise GameAnalysisError(f"field 'record': {exc}") from None
        wanted = data.get("game")
        if wanted is not None and wanted not in (game.name, *game.aliases):
            raise GameAnalysisError(f"field 'record': a {game.title} record, not one of the game {str(wanted)[:40]!r}")
        pieces = record_pieces(game)
        if pieces is None:
            raise GameAnalysisError(f"field 'record': {board_of(game)}")
        try:
            final = game.replay(record)             # checks every step (and a fingerprint where there is one)
        except ValueError as exc:
            raise GameAnalysisError(f"field 'record': {exc}"[:400]) from None
        player = data.get("player", 0)
        if not _is_int(player) or not 0 <= player < final.num_players:
            raise GameAnalysisError(f"field 'player': expected a seat 0..{final.num_players - 1}, got {_kind(player)} "
                                    "outside that")
        points = record_points(record)
        if len(points) > self.limits.analysis_record_steps:
            raise GameAnalysisError(f"field 'record': {len(points)} decisions; the analysis board reads at most "
                                    f"{self.limits.analysis_record_steps}")
        loaded = Loaded(game, pieces, record, player, points, client=client)
        graph = self._walk(loaded)
        return self._keep(loaded, final, graph,
                          [{"decision": p.decision, "turn": p.turn, "player": p.player, "name": p.name,
                            "text": entry.get("text", "")} for p, entry in zip(points, loaded.log, strict=True)])

    def _keep(self, loaded: Loaded, final, graph: list[dict], points: list[dict]) -> dict:
        """Keep ``loaded`` under a new random id; the load's answer (``final``: the game's last state).
        A client keeps MAX_LOADED_PER_CLIENT loads (its oldest dropped first); over MAX_LOADED in all,
        the oldest load of the client holding the most is dropped: one client's uploads never push
        out another's while it keeps within its share."""
        key = secrets.token_urlsafe(12)
        with self._keeping:
            self.loaded[key] = loaded
            while True:
                held: dict[str, list[str]] = {}
                for k, item in self.loaded.items():              # oldest first
                    held.setdefault(item.client, []).append(k)
                mine = held[loaded.client]
                if len(mine) > MAX_LOADED_PER_CLIENT:
                    del self.loaded[mine[0]]
                elif len(self.loaded) > MAX_LOADED:
                    del self.loaded[max(held.values(), key=len)[0]]
                else:
                    break
        game, pieces = loaded.game, loaded.pieces
        return {"id": key, "game": game.name, "title": game.title, "module": game.web.module,
                "player": loaded.player, "seats": [game.seat(p) for p in range(final.num_players)],
                "position": loaded.record is None, "decisions": loaded.decisions, "last": loaded.last,
                "review": loaded.record is not None and game.analysis.review is not None,
                "points": points, "graph": graph, "scale": pieces.get("scale", ""), "mark": pieces.get("mark", ""),
                "result": {"over": final.is_terminal(), "reason": getattr(final, "over_reason", None)}}

    def load_position(self, data: Any, client: str = "local") -> dict:
        """A position text loaded as one point (``POST /api/analysis/game-position``) for ``client``."""
        if not isinstance(data, dict) or set(data) - {"game", "text", "player"} or not {"game", "text"} <= set(data):
            raise GameAnalysisError('expected {"game": a game\'s name, "text": a position text, "player": a seat '
                                    'number (optional)}')
        try:
            game = registry.get(data["game"])
        except ValueError as exc:
            raise GameAnalysisError(f"field 'game': {exc}") from None
        pieces = record_pieces(game)
        if pieces is None or pieces.get("read_state") is None:
            where = board_of(game) if pieces is None else f"{game.title} has no position text"
            raise GameAnalysisError(f"field 'game': {where}")
        text = data["text"]
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_POSITION_CHARS:
            raise GameAnalysisError(f"field 'text': expected a position text of 1..{MAX_POSITION_CHARS} characters, "
                                    f"got {_kind(text)}" + (f" of {len(text)}" if isinstance(text, str) else ""))
        try:
            state = pieces["read_state"](text)
        except ValueError as exc:
            raise GameAnalysisError(f"field 'text': {exc}".replace("\n", " ")[:400]) from None
        player = data.get("player", None)
        if player is None:
            player = max(0, state.current_player())
        if not _is_int(player) or not 0 <= player < state.num_players:
            raise GameAnalysisError(f"field 'player': expected a seat 0..{state.num_players - 1}, got {_kind(player)} "
                                    "outside that")
        loaded = Loaded(game, pieces, None, player, [], state=state, client=client)
        mover = state.current_player()
        points = [] if state.is_terminal() else [{"decision": 1, "turn": state.turn_number, "player": mover,
                                                   "name": game.seat(mover), "text": "the position"}]
        return self._keep(loaded, state, [], points)

    def _walk(self, loaded: Loaded) -> list[dict]:
        """Fill ``loaded.log`` (the decisions as the seat saw them) and return the evaluation graph
        (``evaluate`` of each point as the seat saw it; none without the game's ``evaluate``)."""
        step = web_piece(loaded.game, "step") or generic_step
        evaluate = loaded.pieces.get("evaluate")
        graph: list[dict] = []

        def seen(state, player, action, viewer):
            if evaluate is not None:
                graph.append({"decision": len(graph) + 1, "value": self._graph_value(evaluate, state, viewer)})
            return step(state, player, action, viewer)

        loaded.log = log_for(loaded.record, loaded.player, seen)
        return graph

    @staticmethod
    def _graph_value(evaluate, state, viewer: int) -> float:
        """The graph's value at a decision of the real game ``state``: the pieces' ``evaluate(game,
        viewer)`` of the game as ``viewer`` saw it (every card hidden from that seat dealt again,
        seeded 0), so the graph reads nothing the loaded seat did not know."""
        return evaluate(state.resample_hidden(viewer, random.Random(0)), viewer)

    def point(self, data: Any) -> dict:
        """The view just before a decision (``POST /api/analysis/game-point``)."""
        if not isinstance(data, dict) or set(data) != {"id", "decision"}:
            raise GameAnalysisError('expected {"id": the loaded record\'s id, "decision": a decision number}')
        loaded = self._loaded(data["id"])
        decision = data["decision"]
        last = loaded.last
        if not _is_int(decision) or not 1 <= decision <= last:
            end = " (the position)" if loaded.record is None else f" ({last}: the game's end)"
            raise GameAnalysisError(f"field 'decision': expected a whole number 1..{last}{end}, "
                                    f"got {_kind(decision)} outside that")
        view = game_view(loaded.game, "analysis", decision, loaded.shown(decision), loaded.player, True,
                         loaded.log[:decision - 1], [], None)
        return {"decision": decision, "of": len(loaded.points), "view": view,
                "to_move": None if decision > loaded.decisions else loaded.mover(decision)[0]}

    async def review(self, request: Request, data: Any):
        """The review of a loaded record for its seat (``POST /api/analysis/game-review``): the
        server's reviews (routes_review.py ``Reviews``, ``app.state.server.reviews``) run it, as
        a finished game's, keyed by the loaded id (kept after the record is dropped from the board)."""
        if not isinstance(data, dict) or set(data) != {"id"} or not isinstance(data["id"], str):
            raise HTTPException(422, 'expected {"id": the loaded record\'s id}')
        reviews = request.app.state.server.reviews
        key = f"loaded {data['id']}"
        job = reviews.get(key)
        if job is None or job.status == "failed":
            try:
                loaded = self._loaded(data["id"])
            except GameAnalysisError as exc:
                raise HTTPException(422, str(exc)) from None
            if loaded.record is None:
                raise HTTPException(409, "a position has no decisions to review: load a record")
            job = await reviews.start_record(key, "the loaded record", loaded.record, (loaded.player,),
                                             client_key(request.scope))
        return reviews.answer(job)

    def _loaded(self, key: Any) -> Loaded:
        loaded = self.loaded.get(key) if isinstance(key, str) else None
        if loaded is None:
            raise GameAnalysisError("field 'id': no record is loaded under that id (load the record again)")
        return loaded

    # -- the routes --------------------------------------------------------------------------------
    def _routes(self) -> APIRouter:
        router = APIRouter()

        @router.get("/api/analysis/games", summary="The games the analysis board takes, with their board modules")
        def games():
            return self.games_json()

        @router.post(GAME_RECORD_PATH, summary="Load a record of any game as one seat saw it; its decisions and graph")
        async def load(request: Request):
            return await _answered(self.load, await parsed_body(request), client_key(request.scope))

        @router.post(GAME_POSITION_PATH, summary="Load a position text of a game that reads one, as one point")
        async def position(request: Request):
            return await _answered(self.load_position, await parsed_body(request), client_key(request.scope))

        @router.post(GAME_REVIEW_PATH, summary="Start the review of a loaded record's seat (or answer the one "
                                               "started); 202 while it runs, 200 when done")
        async def review(request: Request):
            data = await parsed_body(request)
            return await self.review(request, data)

        @router.post("/api/analysis/game-point", summary="The view of a loaded record just before a decision")
        async def point(request: Request):
            return await _answered(self.point, await parsed_body(request))

        @router.websocket("/api/analysis/game-ws")
        async def socket(websocket: WebSocket):
            async with self.service.admitted(websocket) as admitted:
                if admitted:
                    await _GameSession(self, websocket).run()

        return router


async def _answered(method, *args):
    """``method(*args)`` off the event loop; a GameAnalysisError is the 422 naming the field."""
    try:
        return await asyncio.to_thread(method, *args)
    except GameAnalysisError as exc:
        raise HTTPException(422, str(exc)) from None


class _GameSession:
    """One record-board socket: its messages and its one running analysis."""

    def __init__(self, board: GameAnalysis, websocket: WebSocket):
        self.board, self.ws = board, websocket
        self.service = board.service
        self.limits = board.limits
        self.loop = asyncio.get_running_loop()
        self.task: asyncio.Task | None = None
        self.halt = threading.Event()
        self.next_id = 0
        self.messages = RateLimiter(self.limits.analysis_messages_per_second, self.limits.analysis_message_burst)

    async def run(self) -> None:
        try:
            await self.ws.send_json({"type": "hello", "limits": self.service.limits_json()})
            while not self.service.closing:
                message = await asyncio.wait_for(self.ws.receive(), self.limits.analysis_idle_seconds)
                if message["type"] == "websocket.disconnect":
                    break
                await self._handle(message)
        except TimeoutError:
            await self.ws.close(code=4408, reason="idle analysis socket")
        except (RuntimeError, OSError):
            pass                                                  # a vanished client
        except Exception as exc:                                  # noqa: BLE001 - never kill the server
            if type(exc).__name__ not in ("WebSocketDisconnect", "ConnectionClosed", "ClientDisconnected"):
                log.warning("record analysis socket: %s", exc)
        finally:
            self.halt.set()
            if self.task is not None:
                await asyncio.shield(self.task)

    async def _send(self, item: dict) -> None:
        try:
            await asyncio.wait_for(self.ws.send_json(item), 10)
        except Exception:                                         # noqa: BLE001 - the socket is gone
            self.halt.set()

    async def _handle(self, message: dict) -> None:
        raw = message.get("text") if message.get("text") is not None else message.get("bytes")
        if raw is None:
            return
        data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
        if len(data) > self.limits.analysis_message_bytes:
            await self._send({"type": "error", "error": f"a message of {len(data)} bytes is over the "
                                                        f"{self.limits.analysis_message_bytes} byte limit"})
            return
        wait = self.messages.take("socket")
        if wait > 0:
            await self._send({"type": "error", "error": f"too many messages; wait {wait:.1f} s"})
            return
        try:
            request = parse_game_request(strict_json(data), self.limits)
            if request["type"] == "analyze":
                loaded = self.board._loaded(request["id"])
                if request["decision"] > loaded.decisions:
                    raise GameAnalysisError(f"field 'decision': the record has decisions 1..{loaded.decisions}")
        except (JSONBodyError, GameAnalysisError) as exc:
            await self._send({"type": "error", "error": str(exc).replace("the body", "the message")})
            return
        await self._stop()
        if request["type"] == "analyze":
            self._start(request, loaded)
        else:
            await self._send({"type": "stopped"})

    async def _stop(self) -> None:
        """Stop the running analysis, if any, and wait until its thread is free."""
        if self.task is not None and not self.task.done():
            self.halt.set()
            await asyncio.shield(self.task)
        self.task = None

    def _start(self, request: dict, loaded: Loaded) -> None:
        self.next_id += 1
        search_id = self.next_id
        halt = self.halt = threading.Event()
        decision = request["decision"]
        player, name = loaded.mover(decision)

        def progress(*_args, **_kwargs) -> None:          # in the worker thread
            if halt.is_set():
                raise _Halted

        def work() -> dict:
            state = loaded.searched(decision)
            stop = {"stop": halt} if loaded.game.analysis.stoppable else {}
            report = loaded.game.analysis.analyze(state, None, request["seconds"], request["top"], 0, 1,
                                                  progress=progress, **stop)
            return loaded.pieces["choices"](report, state)

        async def run() -> None:
            await self._send({"type": "started", "id": search_id, "decision": decision,
                              "player": player, "name": name, "seconds": request["seconds"]})
            self.service.running += 1
            try:
                answer = await self.loop.run_in_executor(self.service.pool, work)
            except (_Halted, RuntimeError):              # stopped, or the pool is shut down
                return
            except Exception as exc:                       # noqa: BLE001 - an engine error is reported, not raised
                log.warning("record analysis failed: %s", exc)
                await self._send({"type": "error", "error": f"the analysis failed: {exc}", "id": search_id})
                return
            finally:
                self.service.running -= 1
            if not halt.is_set():
                await self._send({"type": "done", "id": search_id, "decision": decision,
                                  "player": player, **answer})

        self.task = asyncio.ensure_future(run())
