"""The routes of one game (docs/server.md): creating a game, a seat's view, its actions, asking the
AI to move, resigning, the record once the game is over, and the creator's settings."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request

from engine.games import registry
from engine.games.view import game_over_entry, web_piece
from engine.interfaces.server import seats as seating
from engine.interfaces.server.away import AWAY_REFUSAL
from engine.interfaces.server.clocks import ClockError, parse_control
from engine.interfaces.server.guard import client_key
from engine.interfaces.server.models import ActionRequest, GameSettings, NewGame, next_snapshot
from engine.interfaces.server.newgames import create, game_ai, new_seats, new_state, start_clock

__all__ = ["games_router"]


def games_router(server) -> APIRouter:
    """The routes of one game (``server``: core.Server)."""
    router = APIRouter()
    seat_for = server.seat_for_request

    @router.post("/api/games", status_code=201,
                 summary="Create a game; the answer holds the seat's token (keep it: it is never shown again)")
    async def new_game(body: NewGame, request: Request):
        client = client_key(request.scope)
        wait = server.creates.take(client)
        if wait > 0:
            raise HTTPException(429, "too many new games from this client; slow down",
                                headers={"Retry-After": str(max(1, round(wait + 0.5)))})
        repeated = sorted({"variant", "seed", "supply"} & set(body.options))
        if repeated:
            raise HTTPException(422, f"options: {', '.join(repeated)} go at the top level of the body, not in options")
        await server.instances.check_new_game(client)      # over every instance (instances.py)
        await server.check_playing(client)
        try:
            entry = body.chosen()
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        ai = game_ai(server, entry, body.ai if "ai" in body.model_fields_set else None)
        try:
            control = parse_control(body.clock, server.limits.clock_min_base)
        except ClockError as exc:
            raise HTTPException(422, str(exc)) from None
        human_given = "human" in body.model_fields_set
        creators = [i for i, seat in enumerate(body.seats or ())
                    if isinstance(seat, dict) and seat.get("kind") == "creator"]
        if not human_given and creators:
            body = body.model_copy(update={"human": creators[0]})    # the creator's seat (a game's form may use it)
        state = new_state(entry, body, server.entropy, seats_given=body.seats is not None)
        kinds = seating.plan(body.seats, state.num_players, body.human, human_given)
        creator = next(seat for seat, (kind, _) in enumerate(kinds) if kind == "creator")
        seats, secrets_of = new_seats(server, entry, kinds, ai)
        setup = body.model_dump(exclude={"human", "seats"}, exclude_unset=True, by_alias=True)
        setup.update(game=entry.name, human=creator, ai=ai.stored())
        game = await create(server, entry, state, creator, ai, seats, client, body.spectators, setup,
                            start_clock(control, state), {seat: secrets_of[seat] for seat, (kind, _) in enumerate(kinds) if kind == "human"})
        async with game.lock:
            await server.ai_move(game, client)
            answer = {**server.view(game), "token": secrets_of[creator]}
            if body.seats is not None:          # the open seats' invitations and the bots' tokens
                answer["invites"] = [{"seat": seat, "code": code, "link": f"/#join={game.id}.{code}"}
                                     for seat, (kind, _) in enumerate(kinds) if kind == "human"
                                     for code in (secrets_of[seat],)]
                answer["bots"] = [{"seat": seat, "token": secrets_of[seat]}
                                  for seat, (kind, _) in enumerate(kinds) if kind == "bot"]
            return answer

    @router.get("/api/games/{game_id}", summary="Your seat's view of a game")
    async def get_game(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        return server.view(game, seat)

    @router.post("/api/games/{game_id}/actions", summary="Apply one of your seat's legal actions, then let the AI answer")
    async def act(game_id: str, body: ActionRequest, request: Request):
        game, seat = await seat_for(request, game_id)
        async with game.lock:
            if await server.flag(game) and game.clock.out and game.clock.out[-1] == seat:
                raise HTTPException(409, f"your time ran out: {game.clock.reason or 'the easy bot plays your seat'}")
            snap = game.snap
            state = snap.state
            if server.over(game):
                raise HTTPException(409, f"the game is over: {server.over_reason(game)}")
            if game.clock is not None and seat in game.clock.out:
                raise HTTPException(409, "your time ran out: the easy bot plays your seat")
            if seat in game.away:
                raise HTTPException(409, AWAY_REFUSAL)
            if game.thinking or state.current_player() != seat:
                raise HTTPException(409, f"it is not your decision: {server.decider(game)} is to decide")
            if body.version != snap.version:
                raise HTTPException(409, f"field 'version': a stale view; the game is at version {snap.version}")
            if body.action not in state.legal_actions():
                raise HTTPException(409, f"field 'action': not one of your legal actions now ({state.prompt()})")
            await server.commit(game, server.act_snapshot(game, seat, body.action))
            await server.broadcast(game)
            await server.ai_move(game, client_key(request.scope))
            return server.view(game, seat)

    @router.post("/api/games/{game_id}/ai", summary="Let the AI decide now (when it is its decision)")
    async def ai(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        async with game.lock:
            state = game.snap.state
            if server.over(game) or state.current_player() in server.stops(game):
                raise HTTPException(409, "it is not the AI's decision")
            await server.ai_move(game, client_key(request.scope))
            return server.view(game, seat)

    @router.post("/api/games/{game_id}/resign", summary="Your seat resigns (a step of the game record)")
    async def resign(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        async with game.lock:
            await server.flag(game)
            snap = game.snap
            if server.over(game):
                raise HTTPException(409, f"the game is over: {server.over_reason(game)}")
            resign_in = web_piece(registry.for_state(snap.state), "resign")
            if resign_in is None:
                raise HTTPException(409, f"{registry.for_state(snap.state).title} has no resignation: play it out")
            state = snap.state.clone()
            turn = state.turn_number
            fields = resign_in(state, seat)
            entries = ({"turn": turn, "player": seat, "text": "resigns", "fields": fields},) + \
                ((game_over_entry(state),) if state.is_terminal() else ())
            await server.commit(game, next_snapshot(game, state, entries))
            await server.broadcast(game)
            await server.ai_move(game, client_key(request.scope))     # a game of more players goes on
            return server.view(game, seat)

    @router.get("/api/games/{game_id}/record", summary="The game record (JSON), once the game is over")
    async def record(game_id: str, request: Request):
        game, _ = await seat_for(request, game_id)
        if not server.over(game):
            raise HTTPException(409, "the record reveals hidden cards: it is available when the game is over")
        return game.snap.state.record()

    @router.patch("/api/games/{game_id}", summary="Change a game's settings (spectators: open or closed to them)")
    async def settings(game_id: str, body: GameSettings, request: Request):
        game, seat = await seat_for(request, game_id)
        if seat != game.human:
            raise HTTPException(403, f"only the game's creator (seat {game.human}) changes its settings; "
                                     f"your token is seat {seat}'s")
        async with game.lock:
            if body.spectators != game.spectators:
                if not await server.store.write(server.store.set_spectators, game.id, body.spectators):
                    raise HTTPException(404, "no game with this id for this token")     # deleted meanwhile
                if body.spectators:
                    game.spectators = True
                else:
                    await server.close_to_spectators(game)
            return {"id": game.id, "spectators": game.spectators}


    return router
