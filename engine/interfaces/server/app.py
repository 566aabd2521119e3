"""The AI opponent backend: an ASGI app (FastAPI) that plays For the Crown against a human.

- Games live in SQLite (store.py): every change is committed before the answer, so a restarted
  server resumes every game exactly.
- The AI thinks in a process pool with a time limit; the event loop never blocks on it.
- A player only ever receives their own observation (C4): the opponent's hand, the Deck orders and
  the AI's hidden choices never leave the server while the game is on.
- Bad requests get 4xx with a reason and change nothing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from engine import __version__
from engine.game import actions as A
from engine.game.config import ConfigError, GameConfig
from engine.game.record import RecordError, make_record, replay
from engine.game.state import GameError, GameState
from engine.interfaces.server.store import GameStore
from engine.notation import square_name

__all__ = ["create_app", "MAX_BODY_BYTES"]

MAX_BODY_BYTES = 64 * 1024
STATIC = Path(__file__).parent / "static"
STATUS_FLAGS = ("ordered", "banned", "immune until Blue's turn", "immune until Yellow's turn")


# -- request bodies ------------------------------------------------------------------------------
class AISettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bot: Literal["ismcts", "greedy", "random", "alphabeta"] = "ismcts"
    iterations: int | None = Field(default=300, ge=1, le=200_000)
    seconds: float | None = Field(default=None, gt=0, le=60)
    depth: int | None = Field(default=None, ge=1, le=8, description="alpha-beta depth (Point-Buy Chess)")

    def spec(self) -> str:
        if self.bot == "ismcts":
            return f"ismcts:{self.seconds}s" if self.seconds else f"ismcts:{self.iterations or 300}"
        if self.bot == "alphabeta":
            return f"alphabeta:{self.seconds}s" if self.seconds else f"alphabeta:{self.depth or 3}"
        return self.bot


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    variant: Literal["standard", "point-buy", "last-stand"] = "standard"
    seed: int | None = Field(default=None, ge=0, le=2**62)
    supply: str | list[str] = "random"
    human: Literal[0, 1] = Field(default=0, description="the side the human plays: 0 Blue (moves first), 1 Yellow")
    ai: AISettings = AISettings()
    options: dict[str, Any] = Field(default_factory=dict, description="further GameConfig options (engine/game/config.py)")


class ActionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: int = Field(ge=0, description="an action id from the game's legal actions")
    version: int | None = Field(default=None, description="the game version this action was chosen in")


# -- live games ----------------------------------------------------------------------------------
@dataclass
class Live:
    id: str
    state: GameState
    human: int
    ai: AISettings
    log: list
    version: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set = field(default_factory=set)
    thinking: bool = False
    ai_last_turn: list = field(default_factory=list)
    ai_task: asyncio.Task | None = None


def ai_decisions(record: dict, bot_spec: str, seed: int, human: int, limit: int = 2000) -> list[int]:
    """Run in a worker process: replay the game and let the bot decide until the human must."""
    from engine.search.bots import make_bot

    state = replay(record)
    bot = make_bot(bot_spec, seed)
    chosen = []
    while not state.is_terminal() and state.current_player() != human and len(chosen) < limit:
        action = bot.choose(state)
        state.apply(action)
        chosen.append(action)
    return chosen


def public_text(state: GameState, player: int, action: int, viewer: int) -> str:
    """What ``viewer`` may read of ``player``'s action: choices of cards the viewer cannot see (put
    back on a Deck, kept in hand) are hidden when they are the opponent's."""
    text = state.action_text(action)
    if player == viewer or A.is_order(action):
        return text
    kind, _ = A.decode(action)
    if kind == A.K_CARD:
        return "(a hidden choice of card)"
    return text


class Server:
    def __init__(self, db_path: str, ai_workers: int, ai_pool: str, ai_timeout: float):
        self.store = GameStore(db_path)
        self.games: dict[str, Live] = {}
        self.ai_timeout = ai_timeout
        if ai_pool == "process":
            self.pool = concurrent.futures.ProcessPoolExecutor(ai_workers, mp_context=multiprocessing.get_context("spawn"))
        elif ai_pool == "thread":
            self.pool = concurrent.futures.ThreadPoolExecutor(ai_workers)
        else:
            raise ValueError(f"ai_pool must be 'process' or 'thread', got {ai_pool!r}")

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.store.close()

    # loading and saving
    def live(self, game_id: str) -> Live:
        game = self.games.get(game_id)
        if game is not None:
            return game
        row = self.store.get(game_id)
        if row is None:
            raise HTTPException(404, f"no game with id {game_id!r}")
        try:
            state = replay(row["record"])
        except RecordError as exc:
            raise HTTPException(500, f"game {game_id} cannot be restored: {exc}") from None
        game = Live(game_id, state, row["human"], AISettings(**row["ai"]), row["log"], row["version"],
                    ai_last_turn=row["ai_last_turn"])
        self.games[game_id] = game
        return game

    def save(self, game: Live) -> None:
        status = "over" if game.state.is_terminal() else "playing"
        game.version = self.store.update(game.id, make_record(game.state), status, game.log, game.ai_last_turn,
                                         game.version)

    # views
    def view(self, game: Live) -> dict:
        state, human = game.state, game.human
        board_state = state.board.state()
        units = []
        for sq, t, colour in board_state["units"]:
            unit = state.units.units[t]
            flags = [STATUS_FLAGS[i] for i in range(4) if board_state["status"][i] >> sq & 1]
            units.append({"square": sq, "name": square_name(sq), "token": unit.token, "unit": unit.name,
                          "colour": colour, "flags": flags})
        deciding = not state.is_terminal() and state.current_player() == human and not game.thinking
        actions = []
        if deciding:
            for action, text in state.legal_action_texts().items():
                actions.append(describe_action(state, action, text))
        return {
            "id": game.id,
            "version": game.version,
            "human": human,
            "status": "over" if state.is_terminal() else "playing",
            "over": state.over_reason,
            "winner": state.winner,
            "to_move": state.current,
            "deciding": state.current_player() if not state.is_terminal() else None,
            "your_turn": deciding,
            "thinking": game.thinking,
            "prompt": state.prompt() if deciding else None,
            "phase": state.phase,
            "turn": state.turn,
            "counters": {"orders": state.orders, "actions": state.actions, "buys": state.buys, "gold": state.gold},
            "units": units,
            "barracks": [{state.units.units[t].token: n for t, n in enumerate(board_state["barracks"][c]) if n}
                         for c in (0, 1)],
            "stock": {state.units.units[t].token: n for t, n in enumerate(board_state["stock"]) if n},
            "supply": [{"name": state.card_name(c), "cost": state.cost(c), "left": state.supply[c]} for c in state.supply_ids],
            "observation": state.observation(human),
            "actions": actions,
            "log": game.log[-200:],
            "ai_last_turn": game.ai_last_turn,
        }

    async def broadcast(self, game: Live) -> None:
        if not game.listeners:
            return
        view = self.view(game)
        for queue in list(game.listeners):
            queue.put_nowait(view)

    def record_action(self, game: Live, player: int, action: int) -> None:
        """Log (for both players, with the viewer's redaction) and apply one action."""
        state = game.state
        game.log.append({"turn": state.turn, "player": player, "text": public_text(state, player, action, game.human)})
        state.apply(action)
        if state.is_terminal():
            game.log.append({"turn": state.turn, "player": None, "text": f"game over: {state.over_reason}"})

    # the AI
    async def ai_move(self, game: Live) -> None:
        """Let the AI decide until the human must (or the game ends), in the worker pool."""
        state = game.state
        if state.is_terminal() or state.current_player() == game.human:
            return
        game.thinking = True
        await self.broadcast(game)
        loop = asyncio.get_running_loop()
        seed = random.Random(f"{game.id}:{len(state.history)}").getrandbits(32)
        try:
            chosen = await asyncio.wait_for(
                loop.run_in_executor(self.pool, ai_decisions, make_record(state), game.ai.spec(), seed, game.human),
                timeout=self.ai_timeout,
            )
        except (asyncio.TimeoutError, concurrent.futures.process.BrokenProcessPool, OSError):
            chosen = None
        game.thinking = False
        turn_log: list[str] = []
        if chosen is None:
            # Out of time (or a broken worker): the greedy bot finishes the AI's decisions here.
            from engine.search.bots import GreedyBot

            fallback = GreedyBot(seed)
            while not state.is_terminal() and state.current_player() != game.human:
                chosen_action = fallback.choose(state)
                turn_log.append(public_text(state, state.current_player(), chosen_action, game.human))
                self.record_action(game, state.current_player(), chosen_action)
        else:
            for action in chosen:
                turn_log.append(public_text(state, state.current_player(), action, game.human))
                self.record_action(game, state.current_player(), action)
        game.ai_last_turn = turn_log
        self.save(game)
        await self.broadcast(game)


def describe_action(state: GameState, action: int, text: str) -> dict:
    """An action with what a board needs to show it: squares of orders, the card of a play or buy."""
    item: dict[str, Any] = {"id": action, "text": text}
    if A.is_order(action):
        kind = (action >> 24) & 7
        item["kind"] = ("march", "attack", "deploy", "shoot", "swap")[kind]
        item["to"] = action & 63
        if kind != 2:
            item["from"] = (action >> 6) & 63
        else:
            item["unit"] = state.units.units[(action >> 12) & 63].token
        return item
    kind, arg = A.decode(action)
    names = {A.K_DONE: "done", A.K_PLAY: "play", A.K_BUY: "buy", A.K_CARD: "card", A.K_SQUARE: "square",
             A.K_UNIT: "unit", A.K_YESNO: "yesno", A.K_NUMBER: "number"}
    item["kind"] = names[kind]
    if kind == A.K_PLAY:
        item["card"] = state.card_name(arg // 2)
        item["effect"] = arg % 2
    elif kind in (A.K_BUY, A.K_CARD):
        item["card"] = state.card_name(arg)
    elif kind == A.K_SQUARE:
        item["square"] = arg if arg < 64 else None
    elif kind == A.K_UNIT:
        item["unit"] = state.units.units[arg].token
    return item


# -- the app -------------------------------------------------------------------------------------
def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "ftc-engine" / "games.sqlite3"


class BodyLimit:
    """Refuse request bodies over MAX_BODY_BYTES with 413, before anything reads them."""

    def __init__(self, app, limit: int = MAX_BODY_BYTES):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                response = JSONResponse({"detail": f"request body of {int(value)} bytes is over the {self.limit} byte limit"}, 413)
                return await response(scope, receive, send)
        received = 0

        async def limited_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise HTTPException(413, f"request body is over the {self.limit} byte limit")
            return message

        return await self.app(scope, limited_receive, send)


def create_app(db_path: str | Path | None = None, ai_workers: int = 2, ai_pool: str = "process",
               ai_timeout: float = 120.0) -> FastAPI:
    server = Server(str(db_path or default_db_path()), ai_workers, ai_pool, ai_timeout)
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(_app):
        yield
        server.close()

    app = FastAPI(
        lifespan=lifespan,
        title="ftc-engine",
        version=__version__,
        description="Play For the Crown against the engine. Every game action is an integer id taken from the "
                    "game's `actions` list; the server only ever sends the human player's own observation.",
    )
    app.state.server = server

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html")

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/catalog", summary="Unit and card catalogs (for boards and glyph legends)")
    def catalog():
        from engine.catalog import default_catalog
        from engine.game.cards import default_cards

        return {"units": [u.to_json() for u in default_catalog()], "cards": [c.to_json() for c in default_cards()]}

    @app.post("/api/games", summary="Create a game; the AI moves first if it plays Blue", status_code=201)
    async def new_game(body: NewGame):
        seed = body.seed if body.seed is not None else random.SystemRandom().getrandbits(31)
        supply = body.supply if isinstance(body.supply, str) else tuple(body.supply)
        try:
            config = GameConfig.from_dict({**body.options, "variant": body.variant, "seed": seed, "supply": supply})
            state = GameState(config)
        except (ConfigError, GameError, TypeError) as exc:
            raise HTTPException(422, str(exc)) from None
        game_id = server.store.new_id()
        game = Live(game_id, state, body.human, body.ai, [], 1)
        server.store.insert(game_id, body.human, body.ai.model_dump(), make_record(state), "playing", [])
        server.games[game_id] = game
        async with game.lock:
            await server.ai_move(game)
        return server.view(game)

    @app.get("/api/games", summary="Recent games")
    def list_games():
        return server.store.list()

    @app.get("/api/games/{game_id}", summary="The human player's view of a game")
    def get_game(game_id: str):
        return server.view(server.live(game_id))

    @app.post("/api/games/{game_id}/actions", summary="Apply one of the human's legal actions, then let the AI answer")
    async def act(game_id: str, body: ActionRequest):
        game = server.live(game_id)
        async with game.lock:
            state = game.state
            if state.is_terminal():
                raise HTTPException(409, f"the game is over: {state.over_reason}")
            if game.thinking or state.current_player() != game.human:
                raise HTTPException(409, "it is not your decision: the AI is to decide")
            if body.version is not None and body.version != game.version:
                raise HTTPException(409, f"stale view: the game is at version {game.version}, not {body.version}")
            if body.action not in state.legal_actions():
                raise HTTPException(409, f"action {body.action} is not legal now ({state.prompt()})")
            server.record_action(game, game.human, body.action)
            server.save(game)
            await server.broadcast(game)
            await server.ai_move(game)
            return server.view(game)

    @app.post("/api/games/{game_id}/ai", summary="Let the AI decide now (when it is its decision)")
    async def ai(game_id: str):
        game = server.live(game_id)
        async with game.lock:
            if game.state.is_terminal() or game.state.current_player() == game.human:
                raise HTTPException(409, "it is not the AI's decision")
            await server.ai_move(game)
            return server.view(game)

    @app.post("/api/games/{game_id}/resign", summary="The human resigns")
    async def resign(game_id: str):
        game = server.live(game_id)
        async with game.lock:
            if game.state.is_terminal():
                raise HTTPException(409, f"the game is over: {game.state.over_reason}")
            from engine.game.phases import finish

            finish(game.state, 1 - game.human, f"{'Blue' if game.human == 0 else 'Yellow'} resigned")
            game.log.append({"turn": game.state.turn, "player": game.human, "text": "resigns"})
            server.save(game)
            await server.broadcast(game)
            return server.view(game)

    @app.get("/api/games/{game_id}/record", summary="The game record (JSON), once the game is over")
    def record(game_id: str):
        game = server.live(game_id)
        if not game.state.is_terminal():
            raise HTTPException(409, "the record reveals hidden cards: it is available when the game is over")
        return make_record(game.state)

    @app.websocket("/api/games/{game_id}/ws")
    async def updates(websocket: WebSocket, game_id: str):
        try:
            game = server.live(game_id)
        except HTTPException:
            await websocket.close(code=4404)
            return
        await websocket.accept()
        queue: asyncio.Queue = asyncio.Queue()
        game.listeners.add(queue)
        try:
            await websocket.send_json(server.view(game))
            while True:
                await websocket.send_json(await queue.get())
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            game.listeners.discard(queue)

    @app.exception_handler(RecordError)
    async def _record_error(request: Request, exc: RecordError):
        return JSONResponse({"detail": str(exc)}, 500)

    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES)
    return app
