"""The player's tools (docs/server.md): a hint from the full-game AI, the games saved in this
browser, deleting a game, and a download of what the player may know.

- **Hint** (``POST /api/games/{id}/hint``): the full-game AI (the ``normal`` level's ismcts) searches
  the human's decision in the AI worker pool, on a determinization of the human's information set
  drawn from a fresh server secret (ai.py ``hint_for``): it never sees the AI's hidden cards, the
  Deck orders or the game's generator. A game whose bots have no such ismcts gets its hints from its
  own ``normal`` AI level when that is a search (Crusade & Conquer's alpha-beta, ``hint_spec``).
  One hint at a time per game, and at most ``Limits.hints_per_minute`` per game and per client; a
  refused hint changes nothing. If the worker fails, the greedy bot answers (on a determinization
  too) and ``source`` says "greedy".
- **Saved games** (``POST /api/games/saved``): the summaries of the games whose ids and tokens the
  browser sends (the tokens travel in the body, never in a URL); a pair that does not match is
  reported as not found, exactly as an unknown id.
- **Delete** (``DELETE /api/games/{id}``): the game leaves the database for good; the creator's,
  and for a game with another human or bot seat only until it has started (seats.py
  ``deletion_refused``: 409 after, nothing changed), so no seat erases a game another plays.
- **Knowledge** (``GET /api/games/{id}/knowledge``): the game's ``WebBoard.knowledge`` file, For the
  Crown's an "ftc-position-view" (engine/crown/knowledge.py) that ``ftc analyze`` reads: a state the human cannot tell from the real
  one, every hidden card re-sampled from the human's view, without the history, the repetition counts
  or the set-up's seed. Served when it is the human's decision or the game is over (while the AI
  decides, its options would name its hidden cards) and not behind the Point-Buy screen.
"""

from __future__ import annotations

import asyncio
import logging
import random

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from engine.games import registry
from engine.games.view import web_piece
from engine.interfaces.server import seats as seating
from engine.interfaces.server.ai import HINT, AIFailure, greedy_hint, hint_turn
from engine.interfaces.server.guard import RateLimiter, client_key
from engine.interfaces.server.models import offer

__all__ = ["tools_router", "hint_spec", "HINT_SECONDS", "MAX_SAVED"]

log = logging.getLogger("ftc.server")

#: A hint's time at most (the server's ``ai_timeout`` when that is smaller).
HINT_SECONDS = 10.0
#: Games one saved-games request may name.
MAX_SAVED = 50


class SavedGame(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    id: str = Field(min_length=1, max_length=64)
    token: str = Field(min_length=1, max_length=128)


class SavedGames(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    games: list[SavedGame] = Field(max_length=MAX_SAVED, description=f"the browser's games: id and token (at most "
                                                                     f"{MAX_SAVED})")


_SEARCHES: dict[tuple[str, str], bool] = {}


def _searches(game: registry.Game, spec: str) -> bool:
    """Whether ``game``'s bot ``spec`` is a search that can give hints (``search_within``)."""
    key = (game.name, spec)
    if key not in _SEARCHES:
        try:
            _SEARCHES[key] = hasattr(game.bots.make_bot(spec, 0), "search_within")
        except ValueError:
            _SEARCHES[key] = False
    return _SEARCHES[key]


def hint_spec(game: registry.Game, hint_bot: str) -> str | None:
    """The bot spec a hint of ``game`` searches with: the server's ``hint_bot`` when the game's bots
    take it as a search, else the game's own ``normal`` AI level (``Game.bots.ai_levels``) when that is a
    search; None when the game has no search for hints."""
    for spec in (hint_bot, game.bots.ai_levels.get("normal")):
        if spec and _searches(game, spec):
            return spec
    return None


def tools_router(server, hint_bot: str) -> APIRouter:
    """The player's tools (``server``: core.Server; ``hint_bot``: the bot spec of hints, an ismcts
    spec; a view, or None: the end, reaches a game's WebSockets by models.offer)."""
    router = APIRouter()
    seat_for = server.seat_for_request
    if not _searches(registry.get(registry.DEFAULT_GAME), hint_bot):
        raise ValueError(f"hint_bot must be an ismcts spec (the full-game AI), got {hint_bot!r}")
    limits = server.limits
    per_game = RateLimiter(limits.hints_per_minute / 60.0, limits.hint_burst)
    per_client = RateLimiter(limits.hints_per_minute / 60.0, limits.hint_burst * 2)
    hinting: set[str] = set()

    @router.post("/api/games/{game_id}/hint",
                 summary="The full-game AI's suggestion for your decision (from your information set only)")
    async def hint(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        snap = game.snap
        state = snap.state
        if server.over(game):
            raise HTTPException(409, f"the game is over: {server.over_reason(game)}")
        if game.thinking or not server.seat_decides(game, seat):
            raise HTTPException(409, f"a hint is for your own decision: {server.decider(game)} is to decide")
        if game.id in hinting:
            raise HTTPException(409, "a hint for this game is being searched; wait for it")
        client = client_key(request.scope)
        for limiter, key, who in ((per_game, game.id, "this game"), (per_client, client, "this client")):
            wait = limiter.take(key)
            if wait > 0:
                raise HTTPException(429, f"too many hints for {who}: at most {limits.hints_per_minute:g} a minute",
                                    headers={"Retry-After": str(max(1, round(wait + 0.5)))})
        hinting.add(game.id)
        try:
            seed = server.entropy.getrandbits(63)       # the determinization's secret: not the game's
            seconds = min(server.ai_turn_seconds, HINT_SECONDS)
            note = None
            try:
                entry = registry.for_state(state)
                spec = hint_spec(entry, hint_bot)
                if spec is None:
                    raise AIFailure(f"{entry.title} has no search for hints")
                await server.pool.ready()
                # Below every game's AI turn in the pool's queue; its time starts when it starts.
                found = await server.pool.run(hint_turn, state.record(), seat, spec, seed,
                                              seconds=seconds, client=client, priority=HINT)
            except AIFailure as exc:
                note = f"the hint's search failed ({exc}): the greedy bot answered"
                log.warning("game %s: %s", game.id, note)
                server.fallbacks.append(f"game {game.id}: {note}")
                found = await asyncio.to_thread(greedy_hint, state.clone(), seat, seed)
        finally:
            hinting.discard(game.id)
        legal = state.legal_actions()
        if found["action"] not in legal:
            raise HTTPException(500, "the hint is not a legal action (an internal error)")
        return {
            "version": snap.version,
            "action": found["action"],
            "text": state.action_text(found["action"]),
            "fields": state.action_fields(found["action"]),
            "source": found["source"],
            "alternatives": [{**alt, "text": state.action_text(alt["action"])} for alt in found["alternatives"]
                             if alt["action"] in legal],
            "iterations": found["iterations"],
            "seconds": found["seconds"],
            "note": note,                                   # why the greedy bot answered, when it did
        }

    @router.post("/api/games/saved", summary="Summaries of your saved games (ids and tokens in the body)")
    async def saved(body: SavedGames, request: Request):
        answers = []
        for entry in body.games:
            try:
                game, seat = await server.seat_for(entry.id, entry.token)
            except HTTPException:
                answers.append({"id": entry.id, "found": False})
                continue
            state = game.snap.state
            over = server.over(game)
            updated = await server.store.read(server.store.updated, game.id)
            answers.append({
                "id": game.id, "found": True, "variant": _variant(state), "human": seat,
                "turn": state.turn_number, "to_move": None if over else state.current, "your_turn":
                    not over and not game.thinking and server.seat_decides(game, seat),
                "status": "over" if over else "playing", "over": server.over_reason(game) if over else None, "winner": state.winner,
                "updated": updated, "version": game.snap.version,
            })
        return {"games": answers}

    def _variant(state) -> str:
        """The variant a saved game's summary names (the game's ``WebBoard.variant``, else its name)."""
        entry = registry.for_state(state)
        variant_of = web_piece(entry, "variant")
        return variant_of(state) if variant_of is not None else entry.name

    @router.delete("/api/games/{game_id}", summary="Delete a game for good")
    async def delete(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        if seat != game.human:
            raise HTTPException(403, f"only the game's creator (seat {game.human}) deletes it; your token is "
                                     f"seat {seat}'s")
        async with game.lock:
            if game.thinking:
                raise HTTPException(409, "the AI is thinking; delete the game after its turn")
            refused = seating.deletion_refused(game.seats, game.human, game.snap.public_log, game.snap.state,
                                               server.over(game))
            if refused:
                raise HTTPException(409, refused)
            await server.store.write(server.store.delete, game.id)
            server.games.pop(game.id, None)
            await server.close_to_spectators(game)          # their sockets close (4404) as for a closed game
            for queue in list(game.listeners):
                offer(queue, None)
        return {"deleted": game.id}

    @router.get("/api/games/{game_id}/knowledge",
                summary="Download what you may know: a position view (ftc-position-view) for `ftc analyze`")
    async def knowledge(game_id: str, request: Request):
        game, seat = await seat_for(request, game_id)
        snap = game.snap
        state = snap.state
        entry = registry.for_state(state)
        view_of = web_piece(entry, "knowledge")
        if view_of is None:
            having = [g.title for g in registry.games() if g.web is not None and g.web.knowledge]
            raise HTTPException(400, f"the position view (ftc-position-view, for ftc analyze) is "
                                     f"{' and '.join(having) or 'no game'} only; a {entry.title} game offers its "
                                     "record once it is over")
        if not server.over(game) and (game.thinking or state.current_player() != seat):
            raise HTTPException(409, f"{server.decider(game)} is deciding (its options would name its hidden cards): download "
                                     "when it is your decision")
        try:
            prefix, doc = await asyncio.to_thread(view_of, state, seat,
                                                  random.Random(server.entropy.getrandbits(64)))
        except ValueError as exc:
            raise HTTPException(409, str(exc)) from None
        name = f"{prefix}-{game.id}-turn{state.turn_number}.view.json"
        return JSONResponse(doc, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    return router
