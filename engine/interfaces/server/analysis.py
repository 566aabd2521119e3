"""The analysis board's server side (docs/server.md, "The analysis board"): set up and check a board
position, walk through a game record with its evaluations, and analyse a position live. The board's
game pieces (reading and describing a position, walking through a record) are a game's, found through
the registry (``WebBoard.analysis``: For the Crown's engine/crown/analysis_board.py); the page, the
endpoints and the live board search are the server's, here.

- ``POST /api/analysis/position``: position text (or a named position) in, the parsed position out
  (units, Barracks, Stock, side to move, how many orders): the page's editor shows what the engine
  reads, and a bad text is answered 422 with the parser's message (it names the field and column).
- ``POST /api/analysis/record``: a game record (engine/crown/record.py) in, its decisions with their
  texts and fields, the board after each, and the board evaluation at the start of every turn
  (``engine.crown.analysis.evaluation_history``). Records hold every hidden card, so only a record
  the client already has is read: a game's own record endpoint serves it only once the game is over.
  A position view (engine/crown/knowledge.py, the game page's "Download what I know" file) is read
  too: its one board, to analyse a game in progress from what the player may know.
- ``WS /api/analysis/ws``: the page sends ``{"type": "analyze", "position", "compass", "depth",
  "seconds", "top"}`` or ``{"type": "stop"}``; the server runs the board search
  (``engine.board.alphabeta.AlphaBeta``, iterative deepening, multi-PV) in a worker thread and
  pushes every finished depth, then the result. A new position or a closed socket stops the running
  search first (``AlphaBeta.stop``): a socket never has more than one search, and none is left running.

Nothing here holds a secret, but everything is bounded (``Limits.analysis_*`` in models.py): sockets at
once per client and overall, the size and rate of socket messages, depth, seconds and lines of a
search, the size, steps and rate of record uploads. Hostile input is answered with a message naming
what is wrong, never with a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request, WebSocket
from fastapi.responses import FileResponse

from engine.board.alphabeta import MATE, MAX_DEPTH, AlphaBeta, format_score
from engine.board.analysis import analyze_position
from engine.board.evaluate import EVALUATIONS, choose_network, evaluation_name
from engine.games import registry
from engine.games.view import named
from engine.interfaces.server.ai import below_game_turns
from engine.interfaces.server.game_analysis import (
    GAME_POSITION_PATH,
    GAME_RECORD_PATH,
    MAX_POSITION_CHARS,
    GameAnalysis,
)
from engine.interfaces.server.guard import JSONBodyError, RateLimiter, client_key, parsed_body, strict_json
from engine.position import IllegalOrderError, OrderTextError, Position

__all__ = ["Analysis", "RECORD_PATH", "AnalysisRequestError", "parse_request", "board_pieces"]

log = logging.getLogger("ftc.server")

RECORD_PATH = "/api/analysis/record"
#: Lines of a search shown by default (the page's "lines" box).
DEFAULT_TOP = 3
_ANALYZE_FIELDS = {"type", "position", "compass", "depth", "seconds", "top", "eval"}


class AnalysisRequestError(ValueError):
    """A socket message or request that cannot be served; the message names the field and what is wrong."""


def board_pieces() -> dict | None:
    """The position board's game pieces: those of the first registered game whose analysis pieces
    (``WebBoard.analysis``) are of the "board" page, None when no game has."""
    for game in registry.games():
        if game.web is not None and game.web.analysis:
            pieces = named(game.web.analysis)()
            if pieces.get("page") == "board":
                return pieces
    return None


def page_of(game: str | None) -> str:
    """The analysis page of ``game`` (a name from the registry; None: the position board's game):
    "analysis.html" (the position board) or "game-analysis.html" (the record board);
    AnalysisRequestError names the query field."""
    if game is None:
        return "analysis.html"
    try:
        entry = registry.get(game)
    except ValueError as exc:
        raise AnalysisRequestError(f"query 'game': {exc}") from None
    page = named(entry.web.analysis)().get("page") if entry.web is not None and entry.web.analysis else None
    if page is None:
        raise AnalysisRequestError(f"query 'game': {entry.title} has no analysis board")
    return "analysis.html" if page == "board" else "game-analysis.html"


def read_position(pieces: dict, text: Any) -> Position:
    """The position of ``text`` as the game's pieces read it; AnalysisRequestError names what is wrong."""
    try:
        return pieces["read_position"](text)
    except ValueError as exc:
        raise AnalysisRequestError(str(exc)) from None


# -- socket messages -------------------------------------------------------------------------------
def parse_request(data: Any, limits, pieces: dict) -> dict:
    """A socket message, checked: ``{"type": "stop"}`` or ``{"type": "analyze", "position",
    "compass", "depth", "seconds", "top"}`` with the search's limits filled in (the seconds never
    past ``limits.analysis_max_seconds``; ``pieces``: the game's, which read the position).
    AnalysisRequestError names the field."""
    if not isinstance(data, dict):
        raise AnalysisRequestError(f"a message must be a JSON object with a 'type', got {_kind(data)}")
    kind = data.get("type")
    if kind == "stop":
        extra = sorted(set(data) - {"type"})
        if extra:
            raise AnalysisRequestError(f"message 'stop': it has no field but 'type' ({len(extra)} unknown)")
        return {"type": "stop"}
    if kind != "analyze":
        raise AnalysisRequestError(f"field 'type': expected 'analyze' or 'stop', got {_kind(kind)} that is neither")
    extra = sorted(set(data) - _ANALYZE_FIELDS)
    if extra:
        raise AnalysisRequestError(f"message 'analyze': an unknown field ({len(extra)} in all; "
                                   f"known: {', '.join(sorted(_ANALYZE_FIELDS))})")
    if "position" not in data:
        raise AnalysisRequestError("message 'analyze': missing field 'position' (position text)")
    compass = data.get("compass", False)
    if not isinstance(compass, bool):
        raise AnalysisRequestError(f"field 'compass': expected true or false, got {_kind(compass)}")
    depth = data.get("depth")
    if depth is not None and (not _is_int(depth) or not 1 <= depth <= MAX_DEPTH):
        raise AnalysisRequestError(f"field 'depth': expected a whole number 1..{MAX_DEPTH} or null, got {_kind(depth)} "
                                   "outside that")
    cap = limits.analysis_max_seconds
    seconds = data.get("seconds")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not math.isfinite(seconds) or not 0 < seconds <= cap):
        raise AnalysisRequestError(f"field 'seconds': expected a number over 0 and at most {cap:g}, or null, "
                                   f"got {_kind(seconds)} outside that")
    top = data.get("top", min(DEFAULT_TOP, limits.analysis_max_top))
    if not _is_int(top) or not 1 <= top <= limits.analysis_max_top:
        raise AnalysisRequestError(f"field 'top': expected a whole number 1..{limits.analysis_max_top}, got "
                                   f"{_kind(top)} outside that")
    evaluation = data.get("eval")
    if evaluation is not None and evaluation not in EVALUATIONS:
        raise AnalysisRequestError(f"field 'eval': expected one of {', '.join(EVALUATIONS)} or null, got "
                                   f"{_kind(evaluation)} that is neither")
    position = read_position(pieces, data["position"])
    return {"type": "analyze", "position": position, "compass": compass, "depth": depth,
            "seconds": float(seconds) if seconds is not None else float(cap), "top": top, "eval": evaluation}


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _blue(score: int, side: str) -> int:
    """A side-to-move score from Blue's view."""
    return score if side == "w" else -score


def _with_squares(lines: list[dict], position: Position, cylindrical: bool) -> list[dict]:
    """Lines with the squares of their first order (``origin``: None for a deploy; ``dest``), its
    ``kind`` and ``unit``, so the page can draw it as an arrow, and their score for Blue (``blue``,
    ``blue_text``)."""
    side = position.turn
    out = []
    for line in lines:
        try:
            order = position.parse_order(line["order"], cylindrical)
            squares = {"origin": order.origin, "dest": order.dest, "kind": order.kind, "unit": order.unit}
        except (IllegalOrderError, OrderTextError):     # not expected: the search's own order
            squares = {"origin": None, "dest": None, "kind": None, "unit": None}
        blue = _blue(line["score"], side)
        out.append({**line, **squares, "blue": blue, "blue_text": format_score(blue)})
    return out


# -- the service -----------------------------------------------------------------------------------
class Analysis:
    """The analysis page and endpoints (``router``), their limits and their searches. ``close`` stops
    every search (the app's shutdown). ``static``: the server's static folder (analysis.html)."""

    #: The app's ``state.analysis``.
    name = "analysis"

    def __init__(self, limits, static: Path | None = None, pieces: dict | None = None):
        self.limits = limits
        #: The game's pieces of the board (``board_pieces``: found through the registry when not given).
        self.pieces = board_pieces() if pieces is None else pieces
        self.static = static
        self.closing = False
        self.sockets = 0
        self.per_client: dict[str, int] = {}
        self.searchers: set[AlphaBeta] = set()
        #: Searches running now, counted on the event loop (at most one per socket).
        self.running = 0
        # One worker per socket allowed: a socket waits for its stopped search before it starts another.
        self.pool = ThreadPoolExecutor(max_workers=limits.analysis_sockets, thread_name_prefix="ftc-analysis",
                                       initializer=below_game_turns)        # game turns go first
        self.records = RateLimiter(limits.analysis_records_per_minute / 60.0, limits.analysis_record_burst)
        #: The record board of every other game (game_analysis.py), on these limits, sockets and pool.
        self.games = GameAnalysis(self)
        self.router = self._routes()
        self.router.include_router(self.games.router)
        #: Record uploads are larger than other bodies: bytes and JSON values at most, and their rate
        #: taken before the body is read (the server's RequestGuard). A position text shares the
        #: records' rate; its commas count as values there (a Crownfall position is JSON in a string).
        self.bodies = {RECORD_PATH: (min(limits.analysis_record_bytes, self.pieces["max_record_bytes"]),
                                     limits.analysis_record_values, self.records),
                       GAME_RECORD_PATH: (limits.analysis_record_bytes, limits.analysis_record_values, self.records),
                       GAME_POSITION_PATH: (4 * MAX_POSITION_CHARS + 1024, MAX_POSITION_CHARS + 16, self.records)}

    def close(self) -> None:
        """Stop every search and the worker threads."""
        self.closing = True
        for searcher in list(self.searchers):
            searcher.stop()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def limits_json(self) -> dict:
        """The limits a page needs (depth, seconds, lines, message and record sizes)."""
        lim = self.limits
        return {"max_depth": MAX_DEPTH, "max_seconds": lim.analysis_max_seconds, "max_top": lim.analysis_max_top,
                "message_bytes": lim.analysis_message_bytes, "record_bytes": lim.analysis_record_bytes,
                "record_steps": lim.analysis_record_steps}

    def _routes(self) -> APIRouter:
        router = APIRouter()
        lim = self.limits

        if self.static is not None:
            @router.get("/analysis", include_in_schema=False)
            def analysis_board(game: str | None = None):
                try:
                    return FileResponse(self.static / page_of(game))
                except AnalysisRequestError as exc:
                    raise HTTPException(404, str(exc)) from None

        @router.get("/api/analysis/limits", summary="The analysis board's limits (search depth, seconds, lines, sizes)")
        def limits():
            return self.limits_json()

        @router.post("/api/analysis/position", summary="Check position text; the parsed position, or 422 naming the problem")
        async def position(request: Request):
            data = await parsed_body(request)
            if not isinstance(data, dict) or set(data) - {"text", "compass"} or "text" not in data:
                raise HTTPException(422, "expected {\"text\": position text, \"compass\": true|false}")
            compass = data.get("compass", False)
            if not isinstance(compass, bool):
                raise HTTPException(422, f"field 'compass': expected true or false, got {_kind(compass)}")
            try:
                return self.pieces["describe_position"](read_position(self.pieces, data["text"]), compass)
            except AnalysisRequestError as exc:
                raise HTTPException(422, str(exc)) from None

        @router.post(RECORD_PATH, summary="A game record's decisions, boards and evaluations (the body: the record)")
        async def record(request: Request):
            # The RequestGuard has taken this client's record rate (``self.records``) and bounded the
            # body's bytes and values before reading and parsing it (off the loop) into scope[PARSED].
            data = await parsed_body(request)

            def walk() -> dict:            # replaying a record of thousands of steps: off the loop
                return self.pieces["record_walkthrough"](data, lim.analysis_record_steps)

            try:
                return await asyncio.to_thread(walk)
            except JSONBodyError as exc:
                raise HTTPException(422, f"request body: {exc}") from None
            except self.pieces["record_error"] as exc:
                raise HTTPException(422, str(exc)) from None

        @router.websocket("/api/analysis/ws")
        async def socket(websocket: WebSocket):
            async with self.admitted(websocket) as admitted:
                if admitted:
                    await _Session(self, websocket).run()

        return router

    @contextlib.asynccontextmanager
    async def admitted(self, websocket: WebSocket):
        """Accept an analysis socket (either board's) and yield whether it may stay: within the
        sockets at once overall and per client (else closed with 4429 naming the limit)."""
        lim = self.limits
        await websocket.accept()
        client = client_key(websocket.scope)
        if self.sockets >= lim.analysis_sockets or self.closing:
            await websocket.close(code=4429, reason=f"at most {lim.analysis_sockets} analysis sockets at once")
            yield False
            return
        if self.per_client.get(client, 0) >= lim.analysis_sockets_per_client:
            await websocket.close(code=4429, reason=f"at most {lim.analysis_sockets_per_client} analysis "
                                                    "sockets per client")
            yield False
            return
        self.sockets += 1
        self.per_client[client] = self.per_client.get(client, 0) + 1
        try:
            yield True
        finally:
            self.sockets -= 1
            self.per_client[client] -= 1
            if not self.per_client[client]:
                del self.per_client[client]


class _Session:
    """One analysis socket: its messages, its searcher and its one running search."""

    def __init__(self, service: Analysis, websocket: WebSocket):
        self.service, self.ws = service, websocket
        self.limits = service.limits
        self.loop = asyncio.get_running_loop()
        self.outbox: asyncio.Queue = asyncio.Queue()
        self.searcher: AlphaBeta | None = None
        self.task: asyncio.Task | None = None
        self.halt: threading.Event | None = None     # set when the running search is to stop
        self.searched: tuple | None = None        # (position key, compass) the searcher's table is about
        self.next_id = 0
        self.messages = RateLimiter(self.limits.analysis_messages_per_second, self.limits.analysis_message_burst)

    async def run(self) -> None:
        sender = asyncio.ensure_future(self._send_all())
        try:
            self.outbox.put_nowait({"type": "hello", "limits": self.service.limits_json()})
            while not self.service.closing and not sender.done():
                receiving = asyncio.ensure_future(self.ws.receive())
                done, _ = await asyncio.wait({receiving, sender}, timeout=self.limits.analysis_idle_seconds,
                                             return_when=asyncio.FIRST_COMPLETED)
                if receiving not in done:
                    receiving.cancel()
                    if not done:                  # idle: nothing sent for too long
                        await self.ws.close(code=4408, reason="idle analysis socket")
                    break
                message = receiving.result()
                if message["type"] == "websocket.disconnect":
                    break
                await self._handle(message)
        except (RuntimeError, OSError):
            pass                                                  # a vanished client
        except Exception as exc:                                  # noqa: BLE001 - never kill the server
            if type(exc).__name__ not in ("WebSocketDisconnect", "ConnectionClosed", "ClientDisconnected"):
                log.warning("analysis socket: %s", exc)
        finally:
            await self._stop()
            if self.searcher is not None:
                self.service.searchers.discard(self.searcher)
            self.outbox.put_nowait(None)
            try:
                await asyncio.wait_for(sender, 5)
            except (TimeoutError, Exception):             # noqa: BLE001 - the socket is gone anyway
                sender.cancel()

    async def _send_all(self) -> None:
        """Send the outbox in order; end on None or on a client that does not read within 10 s."""
        while True:
            item = await self.outbox.get()
            if item is None:
                return
            await asyncio.wait_for(self.ws.send_json(item), 10)

    def _error(self, message: str, request_id: int | None = None) -> None:
        self.outbox.put_nowait({"type": "error", "error": message, "id": request_id})

    async def _handle(self, message: dict) -> None:
        raw = message.get("text") if message.get("text") is not None else message.get("bytes")
        if raw is None:
            return
        size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
        if size > self.limits.analysis_message_bytes:
            self._error(f"a message of {size} bytes is over the {self.limits.analysis_message_bytes} byte limit")
            return
        wait = self.messages.take("socket")
        if wait > 0:
            self._error(f"too many messages; wait {wait:.1f} s")
            return
        try:
            data = strict_json(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)
            request = parse_request(data, self.limits, self.service.pieces)
        except (JSONBodyError, AnalysisRequestError) as exc:
            self._error(str(exc).replace("the body", "the message"))
            return
        await self._stop()
        if request["type"] == "analyze":
            self._start(request)

    async def _stop(self) -> None:
        """Stop the running search, if any, and wait until its thread is free."""
        if self.task is not None and not self.task.done():
            self.halt.set()
            self.searcher.stop()
            await asyncio.shield(self.task)
        self.task = None

    def _start(self, request: dict) -> None:
        position: Position = request["position"]
        compass = request["compass"]
        self.next_id += 1
        search_id = self.next_id
        if self.searcher is None:
            self.searcher = AlphaBeta(evaluation="classical")
            self.service.searchers.add(self.searcher)
        try:          # the server's own evaluations only: a client never names a file here
            network = choose_network(request["eval"])
        except ValueError:
            self._error(f"field 'eval': the {request['eval'] or 'default'} evaluation is not installed on this "
                        "server (no network file)")
            return
        if evaluation_name(network) != self.searcher.evaluation:
            self.searcher.set_network(network)
            self.searched = None
        if self.searched != (position.key, compass):
            self.searcher.new_game()           # a new position: the same search as a fresh searcher's
            self.searched = (position.key, compass)
        side = position.turn
        halt = self.halt = threading.Event()
        searcher = self.searcher
        described = self.service.pieces["describe_position"](position, compass)
        self.outbox.put_nowait({"type": "started", "id": search_id, "position": described["position"],
                                "side": side, "compass": compass, "depth": request["depth"],
                                "seconds": request["seconds"], "top": request["top"], "over": described["over"],
                                "evaluation": searcher.evaluation,
                                "orders": described["orders"]})
        start = time.perf_counter()

        def progress(info: dict) -> None:             # in the worker thread
            if halt.is_set():
                # Stopped before the search began (its start clears a stop): stop it now, after depth 1.
                searcher.stop()
                return
            elapsed = max(time.perf_counter() - start, 1e-9)
            message = {"type": "depth", "id": search_id, "side": side, **info,
                       "nps": round(info["nodes"] / elapsed),
                       "blue": _blue(info["score"], side), "blue_text": format_score(_blue(info["score"], side)),
                       "mate": abs(info["score"]) > MATE - 1000,
                       "lines": _with_squares(info["lines"], position.copy(), compass)}
            self.loop.call_soon_threadsafe(self.outbox.put_nowait, message)

        def work() -> dict:
            return analyze_position(position.copy(), depth=request["depth"], seconds=request["seconds"],
                                    top=request["top"], progress=progress, searcher=searcher, cylindrical=compass)

        async def run() -> None:
            self.service.running += 1
            try:
                report = await self.loop.run_in_executor(self.service.pool, work)
            except RuntimeError:                       # the pool is shut down: the server is closing
                return
            except Exception as exc:                   # noqa: BLE001 - an engine error is reported, not raised
                log.warning("analysis search failed: %s", exc)
                self._error(f"the search failed: {exc}", search_id)
                return
            finally:
                self.service.running -= 1
            report.pop("iterations", None)
            score = report["score"]
            self.outbox.put_nowait({
                "type": "done", "id": search_id, **report, "stopped": halt.is_set(),
                "lines": _with_squares(report["lines"], position, compass),
                "blue": _blue(score, side), "blue_text": format_score(_blue(score, side)),
                "mate": abs(score) > MATE - 1000, "over": described["over"],
            })

        self.task = asyncio.ensure_future(run())
