"""The routes that follow a game as it goes: a spectator's view and record (docs/server.md
"Spectators": by the game's id, no token), and the WebSockets of seats and spectators, each sent the
game's new view at every change (Server.broadcast), within the caps of sockets per seat, per game's
spectators and per client."""

from __future__ import annotations

import asyncio
import logging
import time

from fastapi import APIRouter, HTTPException, WebSocket

from engine.interfaces.server import seats as seating
from engine.interfaces.server.guard import JSONBodyError, client_key, strict_json
from engine.interfaces.server.models import CLOSED, Live, bearer
from engine.interfaces.server.store import StorageError

__all__ = ["watch_router", "TOKEN_MESSAGE_BYTES"]

log = logging.getLogger("ftc.server")

#: The largest first message of a game WebSocket (``{"token": "..."}``: a token has at most 128
#: characters); a bigger one is refused unread.
TOKEN_MESSAGE_BYTES = 1024


def watch_router(server) -> APIRouter:
    """A spectator's paths and the games' WebSockets (``server``: core.Server)."""
    router = APIRouter()

    # -- spectators (docs/server.md "Spectators"): by the game's id, no token, the public view ------------
    @router.get("/api/games/{game_id}/watch", summary="A spectator's view of a game (no token; 404 when the game "
                                                      "is not open to spectators)")
    async def watch(game_id: str):
        return server.public_view(await server.watched(game_id))

    @router.get("/api/games/{game_id}/watch/record", summary="The game record for a spectator, once the game is over")
    async def watch_record(game_id: str):
        game = await server.watched(game_id)
        if not server.over(game):
            raise HTTPException(409, "the record reveals hidden cards: it is available when the game is over")
        return game.snap.state.record()

    @router.websocket("/api/games/{game_id}/watch/ws")
    async def watch_updates(websocket: WebSocket, game_id: str):
        await _capped(websocket, lambda: _watch_socket(websocket, game_id))

    async def _opened(websocket: WebSocket, find) -> Live | None:
        """The game ``find()`` gives a socket, or None when it closed the socket with the refusal's
        code (4000 + the HTTP status; 4503 when the storage is down) or the client left."""
        try:
            return await find()
        except HTTPException as exc:
            await _close(websocket, 4000 + exc.status_code, server.refusals.reason(websocket.scope, str(exc.detail)))
        except StorageError:
            await _close(websocket, 4503, "storage is unavailable")
        return None

    async def _watch_socket(websocket: WebSocket, game_id: str):
        game = await _opened(websocket, lambda: server.watched(game_id))
        if game is None:
            return
        if len(game.watchers) >= server.limits.spectator_sockets_per_game:
            await _close(websocket, 4429, f"at most {server.limits.spectator_sockets_per_game} spectator sockets "
                                          "per game")
            return
        await _pump(websocket, game, game.watchers, server.public_view, game_id)

    async def _capped(websocket: WebSocket, run) -> None:
        """Accept a socket and run it within the per-client cap of game and spectator sockets."""
        client = client_key(websocket.scope)
        await websocket.accept()
        if server.client_sockets.get(client, 0) >= server.limits.sockets_per_client:
            await _close(websocket, 4429, f"at most {server.limits.sockets_per_client} sockets per client")
            return
        server.client_sockets[client] = server.client_sockets.get(client, 0) + 1
        try:
            await run()
        finally:
            server.client_sockets[client] -= 1
            if not server.client_sockets[client]:
                del server.client_sockets[client]

    @router.websocket("/api/games/{game_id}/ws")
    async def updates(websocket: WebSocket, game_id: str):
        await _capped(websocket, lambda: _game_socket(websocket, game_id))

    async def _game_socket(websocket: WebSocket, game_id: str):
        seated = []

        async def find():
            token = await _socket_token(websocket, server.limits.socket_auth_seconds)
            if token is None:
                return None                                                     # the client left
            game, seat = await server.seat_for(game_id, token)
            seated.append(seat)
            return game

        game = await _opened(websocket, find)
        if game is None:
            return
        cap = server.limits.sockets_per_seat
        if seating.sockets_of(game.listeners, seated[0]) >= cap:     # this seat's own allowance only
            await _close(websocket, 4429, f"at most {cap} sockets per seat: this seat has {cap} open")
            return
        await _pump(websocket, game, game.listeners, lambda g: server.view(g, seated[0]), game_id, seated[0])

    async def _pump(websocket: WebSocket, game: Live, queues: set, view, game_id: str, seat: int | None = None) -> None:
        """Send ``view(game)`` now and every view offered to the socket's queue (one of ``queues``;
        its ``seat``: whose view broadcasts offer it, None for a spectator) after it. A send that
        takes over 10 s drops the socket (a client that does not read is never waited for:
        broadcasts only offer views to queues)."""
        queue: asyncio.Queue = asyncio.Queue(maxsize=1)
        queue.seat = seat
        queues.add(queue)
        receiving = asyncio.ensure_future(websocket.receive())
        waiting = asyncio.ensure_future(queue.get())
        try:
            await asyncio.wait_for(websocket.send_json(view(game)), 10)
            while not server.closing:
                done, _ = await asyncio.wait({receiving, waiting}, return_when=asyncio.FIRST_COMPLETED)
                if receiving in done:
                    if receiving.result()["type"] == "websocket.disconnect":
                        break
                    receiving = asyncio.ensure_future(websocket.receive())   # client messages are ignored
                if waiting in done:
                    shown = waiting.result()
                    if shown is None:                                        # the server is closing
                        await websocket.close(code=1001)
                        break
                    if shown is CLOSED:                                     # closed to spectators
                        await _close(websocket, 4404, "this game is no longer open to spectators")
                        break
                    game.last_used = time.monotonic()
                    await asyncio.wait_for(websocket.send_json(shown), 10)
                    waiting = asyncio.ensure_future(queue.get())
        except (TimeoutError, RuntimeError, OSError):
            pass                                                            # a vanished or stuck client
        except Exception as exc:                                            # noqa: BLE001 - never kill the server
            if type(exc).__name__ not in ("WebSocketDisconnect", "ConnectionClosed", "ClientDisconnected"):
                log.warning("websocket of game %s: %s", game_id, exc)
        finally:
            receiving.cancel()
            waiting.cancel()
            queues.discard(queue)

    return router


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    """Close a socket with ``code``; a client that has already gone is no error (nothing is logged)."""
    try:
        await websocket.close(code=code, reason=reason)
    except Exception:                       # noqa: BLE001 - ClientDisconnected, RuntimeError: it is gone
        pass


async def _socket_token(websocket: WebSocket, seconds: float) -> str | None:
    """A socket's token: its Authorization header, or else its first message ``{"token": "..."}``
    (browsers cannot set headers on a WebSocket; a token never goes in the URL, where logs keep it).
    A first message over TOKEN_MESSAGE_BYTES is refused unparsed. None: the client has gone."""
    if websocket.headers.get("authorization"):
        return bearer(websocket.headers)
    try:
        message = await asyncio.wait_for(websocket.receive(), seconds)
    except TimeoutError:
        raise HTTPException(401, "no token: send {\"token\": \"...\"} as the first message") from None
    if message["type"] == "websocket.disconnect":
        return None
    raw = message.get("text") if message.get("text") is not None else message.get("bytes")
    if raw is None:
        raise HTTPException(401, "no token: send {\"token\": \"...\"} as the first message")
    if len(raw) > TOKEN_MESSAGE_BYTES:
        raise HTTPException(401, f"the first message is over {TOKEN_MESSAGE_BYTES} bytes: it must be "
                                 "{\"token\": \"...\"}")
    try:
        data = strict_json(raw.encode("utf-8") if isinstance(raw, str) else raw)
    except (JSONBodyError, UnicodeEncodeError):
        raise HTTPException(401, "the first message must be {\"token\": \"...\"}") from None
    if not isinstance(data, dict) or not isinstance(data.get("token"), str):
        raise HTTPException(401, "the first message must be {\"token\": \"...\"}")
    return data["token"]
