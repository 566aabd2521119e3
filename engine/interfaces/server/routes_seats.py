"""The routes of a game's seats (docs/server.md "Seats, invitations and bots", "A seat that walks
away"): joining an open seat with its invitation code, rematches, and leaving a game without
resignation (the easy bot takes the seat: away.py). What a seat is lives in seats.py."""

from __future__ import annotations

import time
from collections.abc import Callable

from fastapi import APIRouter, HTTPException, Request

from engine.games import registry
from engine.games.view import web_piece
from engine.interfaces.server.guard import client_key
from engine.interfaces.server.seats import JoinRequest, Seat, hash_token, new_secret, view_fields
from engine.interfaces.server.store import GameOver

__all__ = ["seats_router"]


def seats_router(server, rematch_of: Callable) -> APIRouter:
    """Joining, rematches and leaving (``server``: core.Server; ``rematch_of(game, client)``: the
    keyword arguments of store.insert for the game's rematch made by ``client``, or an HTTPException
    saying why it cannot have one: newgames.rematch_of)."""
    router = APIRouter()
    seat_for = server.seat_for_request

    @router.post("/api/games/{game_id}/join", summary="Take an open seat with its invitation code: the answer holds "
                                                      "the seat's token (keep it: it is never shown again)")
    async def join(game_id: str, body: JoinRequest, request: Request):
        client = client_key(request.scope)
        wait = server.creates.take(client)
        if wait > 0:
            raise HTTPException(429, "too many new games and joins from this client; slow down",
                                headers={"Retry-After": str(max(1, round(wait + 0.5)))})
        unknown = HTTPException(404, "no open seat of a game with this id has this invitation code (it may "
                                     "have been used)")
        if len(game_id) > 64:
            raise unknown
        token = new_secret()
        try:
            seat = await server.store.write(server.store.join, game_id, hash_token(body.code), hash_token(token))
        except GameOver:
            raise HTTPException(409, "the game is over: its open seat can no longer be taken (nothing was "
                                     "changed)") from None
        if seat is None:
            raise unknown
        game = server.games.get(game_id)
        if game is not None:
            game.seats[seat] = Seat(game.seats[seat].kind, hash_token(token), None, time.time())
            game.cached = {}
            game.public_cached = None
            await server.broadcast(game)
        else:
            game = await server.restore(game_id)          # its seats as stored, this one taken
        if game.clock is not None and not game.clock.started:
            async with game.lock:                         # every seat taken: its turn's limit runs now
                await server.rearm(game)
                await server.broadcast(game)
        return {"id": game_id, "seat": seat, "token": token}

    @router.post("/api/games/{game_id}/rematch", summary="Offer (or accept) a rematch once the game is over; the "
                                                         "last seat's offer creates it")
    async def rematch(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        client = client_key(request.scope)
        async with game.lock:
            if not server.over(game):
                raise HTTPException(409, "a rematch is offered once the game is over")
            if game.seats[seat].offered or game.rematch is not None:
                return {"id": game.id, "seat": seat, **view_fields(game.seats, game.human, seat, game.rematch)}
            open_seats = [i for i, s in sorted(game.seats.items()) if s.kind != "ai" and s.token_hash is None]
            if open_seats:
                raise HTTPException(409, f"seat {open_seats[0]} was never taken: a rematch needs every human and "
                                         "bot seat")
            await server.check_playing(client)            # an offer may create a game: counted as a new game
            wait = server.creates.take(client)            # and rate-limited as new games
            if wait > 0:
                raise HTTPException(429, "too many new games from this client; slow down",
                                    headers={"Retry-After": str(max(1, round(wait + 0.5)))})
            made = rematch_of(game, client)
            offered, new_id = await server.store.write(server.store.offer_rematch, game.id, seat, made)
            for i, s in game.seats.items():
                s.offered = i in offered
            game.rematch = new_id
            game.cached = {}
            game.public_cached = None
            await server.broadcast(game)
            answer = {"id": game.id, "seat": seat, **view_fields(game.seats, game.human, seat, game.rematch)}
        if new_id == made["game_id"]:          # this offer made it: the AI moves first where it is to
            new = await server.restore(new_id)
            async with new.lock:
                await server.ai_move(new, client)
        return answer

    @router.post("/api/games/{game_id}/leave", summary="Your seat leaves a game without resignation: the easy bot plays "
                                                       "it from now on (you may still read the game)")
    async def leave(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        async with game.lock:
            await server.flag(game)
            state = game.snap.state
            entry = registry.for_state(state)
            if state.is_terminal():
                raise HTTPException(409, f"the game is over: {server.over_reason(game)}")
            if web_piece(entry, "resign") is not None:
                raise HTTPException(409, f"{entry.title} has resignation: a seat leaves it by resigning "
                                         "(POST /api/games/{id}/resign)")
            if seat not in server.stops(game):        # left already, or out of time: the bot plays it
                return server.view(game, seat)
            await server.take_seat(game, seat, f"{entry.seat(seat)} left the game: the easy bot plays this seat "
                                               "from now on")
            await server.ai_move(game, client_key(request.scope))
            return server.view(game, seat)

    return router
