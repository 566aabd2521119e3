"""The AI opponent backend: an ASGI app (FastAPI) that plays any registered game (engine/games/registry.py)
against a human or between humans: the four games of the engine, and whatever game an entry module adds.

The security model and the failure guarantees are stated in docs/server.md, each with the test that
holds it. In short:

- **Who may see and play a game**: creating a game returns the creator's seat's bearer token (256
  random bits from ``secrets``, stored only as its SHA-256); a game may have other seats of humans
  (who join with an invitation code), bots (with a bot token) and AIs at their own settings
  (seats.py). Every game endpoint and the WebSocket require a seat's token and act for that seat;
  without it 401, with another game's token 404, exactly as for an id that does not exist.
  Spectators (docs/server.md "Spectators") need no token: ``/watch`` paths show a game, unless its
  creator closed it to them (``PATCH``), as viewer None sees it: the public observation, the
  spectators' log (the public text of each step), no actions, no note for the seat.
- **Hidden information**: every part of a view is built from the viewing seat's observation (engine/games/view.py);
  shuffles, draws and the AI's own randomness come from a server secret, so neither the client's
  ``seed`` (it fixes only the Supply) nor the game id predicts a hidden card.
- **A refused request changes nothing; an acknowledged one is never lost**: a change is applied to a
  copy of the game, saved (SQLite, synchronous, off the event loop), and only then made current and
  answered. A storage failure answers 503 and leaves the game as it was. Actions must name the
  ``version`` they were chosen in, so a retried or duplicated action is applied at most once.
- **The AI** thinks in worker processes, or as tasks on a Ray cluster (``ai_pool="ray"`` or
  ``"ray://HOST:PORT"``), with a deadline per turn from its start on a worker (ai.py); a task that
  overruns or whose worker dies costs that task alone (its worker replaced, a hung Ray task
  cancelled) and the greedy bot takes that turn; every fallback is logged and shown in ``ai_note``.
  Work is queued per client, game turns before hints; a client's seconds are capped by the server;
  an instant bot's turn (the easy AI) never waits behind a search (the pool's instant lane); a
  seat's clock is charged its turn's time on a worker, never its wait for one.
- **A seat that walks away** (away.py): in a game without resignation the easy bot takes a seat
  that leaves (``POST .../leave``) or, untimed, does not act within ``Limits.idle_seat_seconds``.
- **Games through the registry only**: the game is chosen by name (``game``, or a ``variant`` that
  names one); its views, log entries, new games, records, replays, hidden-card resampling and bots
  come from the state protocol and the game's entry (its ``WebBoard``; engine/games/view.py for a
  game without one). The server imports no game's package.
- **Its parts**: models.py (the limits, request bodies, a game's versions and a game in memory),
  core.py (``Server``: the games in memory, saving, views, clocks' flags, AI turns), newgames.py
  (new games and rematches), one router per concern (routes_games.py: a game and its actions;
  routes_seats.py: joining, rematches, leaving; routes_watch.py: spectators and WebSockets;
  routes_pages.py: the pages, the rules, the API documentation; routes_review.py: the review of a
  finished game; player_tools.py: hints, saved games,
  deleting, knowledge) and this module, which puts them together.
- **Limits**: request bodies, requests and new games per client, live games in memory (idle games
  are evicted and reloaded from SQLite on demand), WebSockets per seat of a game and spectator
  WebSockets per game.
- **Several instances** on one PostgreSQL (instances.py): a game is checked against the database's
  version before a request uses it, changes of other instances are pushed to this one's sockets, an
  AI turn runs under a claim in the database (taken over when its instance dies), and the per-client
  limits kept in memory are shared among the live instances.
"""


from __future__ import annotations

import asyncio
import logging
import os
import re
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine import __version__
from engine.games import registry
from engine.games.view import named
from engine.interfaces.server.analysis import Analysis, board_pieces
from engine.interfaces.server.core import Server
from engine.interfaces.server.guard import RateLimiter, RequestGuard, SameOrigin, SecurityHeaders, origin_of
from engine.interfaces.server.models import AI_LEVELS, CHECKED, Limits, Snapshot, bearer, hash_token
from engine.interfaces.server.newgames import check_levels, game_form, game_levels, kind_of, rematch_of
from engine.interfaces.server.player_tools import tools_router
from engine.interfaces.server.refusals import QuietValues, body_model, validation_errors
from engine.interfaces.server.routes_games import games_router
from engine.interfaces.server.routes_pages import STATIC, pages_router
from engine.interfaces.server.routes_review import review_router
from engine.interfaces.server.routes_seats import seats_router
from engine.interfaces.server.routes_watch import watch_router
from engine.interfaces.server.store import POOL_SIZE, StorageError

__all__ = ["create_app", "Limits", "MAX_BODY_BYTES", "hash_token", "AI_LEVELS", "STATIC", "Snapshot", "Server",
           "check_levels", "game_levels", "game_form", "kind_of", "default_db_path"]

log = logging.getLogger("ftc.server")

MAX_BODY_BYTES = 64 * 1024
#: The paths of one game (its token is checked before the request's body is read).
_GAME_PATH = re.compile(r"/api/games/([^/]+)(?:/[^/]+)?")
#: The paths under /api/games/ that name no game (no token): the saved games' summaries, the games played.
_OPEN_PATHS = ("saved", "kinds")
#: Joining a game (seats.py): by its invitation code, no token.
_JOIN_PATH = re.compile(r"/api/games/[^/]+/join")
#: A spectator's paths of one game (no token: open unless the game's creator closed it).
_WATCH_PATH = re.compile(r"/api/games/[^/]+/watch(?:/[^/]+)?")


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "ftc-engine" / "games.sqlite3"



def create_app(db_path: str | Path | None = None, ai_workers: int = 2, ai_pool: str = "process",
               ai_timeout: float = 120.0, limits: Limits | None = None, busy_timeout: float = 5.0,
               hint_bot: str = AI_LEVELS["normal"], pool_size: int = POOL_SIZE, allow_origins=(),
               site: str | Path | None = None) -> FastAPI:
    """The server app. ``db_path``: where the games are kept: an SQLite file (a path or
    sqlite:///PATH) or a PostgreSQL database (postgresql://USER:PASSWORD@HOST:PORT/DATABASE, a pool of
    ``pool_size`` connections); store.open_store. ``ai_pool``: where the AI thinks: "process" (``ai_workers`` processes of this
    machine), "thread" (tests), "ray" (a local Ray with ``ai_workers`` CPUs, or the one ``RAY_ADDRESS``
    names) or "ray://HOST:PORT" (a Ray cluster; ClusterError when nothing answers there).
    ``ai_timeout``: seconds one whole AI turn may take (its search keeps to it;
    the greedy bot takes what is left). ``busy_timeout``: seconds a save waits for a locked database
    before it answers 503. ``hint_bot``: the ismcts spec hints search with (player_tools.py).
    ``allow_origins``: origins whose pages may use the API besides the server's own (guard.py
    ``SameOrigin``: a reverse proxy's public origin; ValueError names one that is not an origin).
    ``site``: the folder of the built manual (mkdocs build), served at /site/ (site.py); None: no manual.
    Raises StorageError when the database cannot be opened."""
    origins = [origin_of(text) for text in allow_origins]       # checked before anything is opened
    server = Server(str(db_path or default_db_path()), ai_workers, ai_pool, ai_timeout, limits or Limits(),
                    busy_timeout, pool_size)
    # The games' own pages (For the Crown's catalog: WebBoard.pages) and the analysis board (WebBoard.analysis).
    try:
        check_levels(registry.games())
        pages = [named(ref)(server.limits, STATIC) for game in registry.games() if game.web is not None
                 for ref in game.web.pages]
        pieces = board_pieces()             # the analysis board, with its game's pieces (analysis.py)
        if pieces is not None:
            pages.insert(0, Analysis(server.limits, STATIC, pieces))
    except BaseException:
        server.close()
        raise

    app = FastAPI(
        lifespan=_lifespan(server, pages),
        # /docs is served below from vendored Swagger UI files (no CDN: it works offline); ReDoc,
        # which would load from a CDN, is off.
        docs_url=None,
        redoc_url=None,
        # No redirect from /path/ to /path: its Location would be built from the client's Host header.
        redirect_slashes=False,
        title="ftc-engine",
        version=__version__,
        description="Play For the Crown, King's Ransom or any registered game (GET /api/games/kinds) against the "
                    "engine. Create a game to get its token; send it as "
                    "`Authorization: Bearer <token>` on every request of that game. Every game action is an "
                    "integer id taken from the game's `actions` list; the server only ever sends the human "
                    "player's own observation.",
    )
    app.state.server = server
    #: The per-client request limiter (guard.py); instances.py sets its rate to this instance's share.
    server.request_limiter = RateLimiter(server.limits.requests_per_second, server.limits.request_burst)
    for extra in pages:
        setattr(app.state, extra.name, extra)       # app.state.analysis: the analysis board
    _answers(app, server)
    # The routes, one router per concern, in the order they are matched.
    app.include_router(pages_router(server, pages, app.openapi_url, app.title, None if site is None else Path(site)))
    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(games_router(server))
    app.include_router(watch_router(server))
    # The review of a finished game (routes_review.py), for its seats and its spectators.
    app.include_router(review_router(server))
    # The player's tools: hints, saved games, deleting, the download of what the player may know.
    app.include_router(tools_router(server, hint_bot))
    # Joining an open seat, rematches, leaving (seats.py, away.py).
    app.include_router(seats_router(server, lambda game, client: rematch_of(server, game, client)))
    _guards(app, server, pages, origins)
    return app


def _lifespan(server: Server, pages: list):
    """The app's life: the sweepers of idle games and of flags and idle seats, the instances (instances.py)
    while it runs; at its end every task stopped, the games' pages and the server closed."""

    @asynccontextmanager
    async def lifespan(_app):
        async def sweep():
            while True:
                await asyncio.sleep(min(60.0, max(1.0, server.limits.idle_seconds / 4)))
                server.evict()

        async def flags():
            while True:                    # at once on start: a flag that fell while no server ran
                for name, sweep in (("flag", server.sweep_flags), ("idle", server.sweep_idle)):   # away.py
                    try:
                        await sweep()
                    except StorageError as exc:
                        log.warning("the %s sweeper: %s", name, exc)
                    except Exception:              # noqa: BLE001 - the sweeper never stops
                        log.exception("the %s sweeper failed", name)
                await asyncio.sleep(server.limits.flag_poll_seconds)

        sweeper = asyncio.create_task(sweep())
        flagger = asyncio.create_task(flags())
        try:
            await server.instances.start()        # several instances on one database (instances.py)
            yield
        finally:
            sweeper.cancel()
            await server.instances.stop()
            flagger.cancel()
            for task in list(server.background):
                task.cancel()
            for extra in pages:
                extra.close()
            server.close()

    return lifespan


def _answers(app: FastAPI, server: Server) -> None:
    """Every error answer is made by server.refusals (refusals.py): it names the field, never the value."""

    @app.exception_handler(StorageError)
    async def _storage_error(request: Request, exc: StorageError):
        log.error("storage: %s", exc)
        return server.refusals.answer(request.scope, 503, f"storage is unavailable, nothing was changed: {exc}",
                                      {"Retry-After": "1"})

    @app.exception_handler(StarletteHTTPException)
    async def _refused(request: Request, exc: StarletteHTTPException):
        return server.refusals.answer(request.scope, exc.status_code, exc.detail, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        model = body_model(request.scope.get("route"))
        return server.refusals.answer(request.scope, 422, validation_errors(exc.errors(), model))


def _guards(app: FastAPI, server: Server, pages: list, origins: list) -> None:
    """The middleware: the token of a game's request checked before its body is read, the limits of
    bodies and requests (guard.py), no value of the client's in a message (refusals.py), no page of
    another site using a visitor's browser, the security headers."""

    async def authorize(scope) -> None:
        """A request for one game: its token is checked before its body is read (HTTPException)."""
        match = _GAME_PATH.fullmatch(scope["path"])
        if match and match.group(1) not in _OPEN_PATHS and not _WATCH_PATH.fullmatch(scope["path"]) \
                and not _JOIN_PATH.fullmatch(scope["path"]):
            try:
                await server.load(match.group(1), bearer(Headers(scope=scope)))
            except StorageError as exc:
                raise HTTPException(503, f"storage is unavailable, nothing was changed: {exc}",
                                    headers={"Retry-After": "1"}) from None
            scope[CHECKED] = match.group(1)     # checked against the database: once per request

    app.add_middleware(RequestGuard, max_body=MAX_BODY_BYTES,
                       limiter=server.request_limiter,
                       larger={path: size for extra in pages for path, (size, _, _) in extra.bodies.items()},
                       values={path: values for extra in pages for path, (_, values, _) in extra.bodies.items()},
                       before_body={path: first for extra in pages for path, (_, _, first) in extra.bodies.items()},
                       authorize=authorize,
                       body_seconds=server.limits.body_seconds)
    app.add_middleware(QuietValues)          # the games' messages show no value of the client's (refusals.py)
    app.add_middleware(SameOrigin, allowed=origins)     # no page of another site uses a visitor's browser
    app.add_middleware(SecurityHeaders)
