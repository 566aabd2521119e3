"""New games: the AI levels a game offers, what the home page says of each game, and a new game
or rematch made from a request's body (its state, seats, AI settings and clocks), saved in the store.
Used by the routers of games (routes_games.py) and seats (routes_seats.py)."""

from __future__ import annotations

import time

from fastapi import HTTPException
from pydantic import ValidationError

from engine.games import registry
from engine.games.protocol import GameStateProtocol
from engine.games.view import board_module, web_piece
from engine.interfaces.server import seats as seating
from engine.interfaces.server.away import idle_seat
from engine.interfaces.server.clocks import Clock, ClockError, parse_control
from engine.interfaces.server.models import AI_LEVELS, AISettings, Live, NewGame, Snapshot, hash_token
from engine.interfaces.server.refusals import validation_errors
from engine.interfaces.server.seats import Seat

__all__ = ["game_levels", "check_levels", "takes_levels", "kind_of", "game_form", "start_clock", "create",
           "insert_args", "rematch_of", "new_seats", "seat_ai", "game_ai", "new_state"]

_LEVELS: dict[str, bool] = {}


def game_levels(game: registry.Game) -> dict[str, str]:
    """The AI levels the new-game form offers for ``game``, level -> bot spec: the game's own
    (``Game.bots.ai_levels``), else the server's AI_LEVELS when its bots take them, else none (the form
    then offers its bots by name)."""
    if game.bots.ai_levels:
        return dict(game.bots.ai_levels)
    return dict(AI_LEVELS) if takes_levels(game) else {}


def check_levels(games) -> None:
    """Every game's own AI levels are named as the server's levels (AISettings.level) and map to a
    spec; a ValueError names the game and the level."""
    for game in games:
        for level, spec in game.bots.ai_levels.items():
            if level not in AI_LEVELS or not isinstance(spec, str) or not spec:
                raise ValueError(f"game {game.name!r}: ai_levels[{level!r}]: expected one of the levels "
                                 f"{', '.join(AI_LEVELS)} mapped to a bot spec, got {spec!r}")


def takes_levels(game: registry.Game) -> bool:
    """Whether ``game`` has a bot for each of the server's AI levels (AI_LEVELS): then the new-game
    form offers the levels, else the game's own bots by name."""
    if game.name not in _LEVELS:
        try:
            for spec in AI_LEVELS.values():
                game.bots.make_bot(spec, 0)
            _LEVELS[game.name] = True
        except ValueError:
            _LEVELS[game.name] = False
    return _LEVELS[game.name]


def kind_of(game: registry.Game) -> dict:
    """What the home page says of a registered game (GET /api/games/kinds); ``bot_labels``: each bot
    spec its menus offer (the levels' and the bots' by name) in words (``Game.bot_label``)."""
    return {"name": game.name, "title": game.title, "description": game.description,
            "players": [game.players.start, game.players.stop - 1], "seats": [game.seat(p) for p in range(game.players.stop - 1)],
            "variants": list(game.variants), "aliases": list(game.aliases),
            "docs": f"/rules/{game.docs}" if game.docs else None, "module": board_module(game),
            "bots": list(game.bots.bot_names), "levels": bool(game_levels(game)), "ai_levels": game_levels(game),
            "bot_labels": {spec: game.bot_label(spec) for spec in (*game_levels(game).values(), *game.bots.bot_names)},
            "form": game_form(game)}


def game_form(game: registry.Game) -> list | None:
    """The game's own fields of the new-game form (its ``WebBoard.form``), or None."""
    make = web_piece(game, "form")
    return make() if make is not None else None


def start_clock(control, state) -> Clock | None:
    """A new game's clocks (clocks.py), running for its first decision; None untimed."""
    if control is None:
        return None
    return Clock.start(control, state.num_players, None if state.is_terminal() else state.current_player(),
                       time.time())

async def create(server, entry, state, creator: int, ai: AISettings, seats: dict, client: str, spectators: bool,
                  setup: dict, clock: Clock | None, invites: dict) -> Live:
    """Save a new game (its seats: Seat by seat; its clocks; ``invites``: seat -> invitation code of
    each open seat) and keep it in memory."""
    game_id = server.store.new_id()
    game = Live(game_id, creator, ai, seats[creator].token_hash, Snapshot.start(state),
                spectators=spectators, seats=seats, setup=setup, clock=clock)
    args = insert_args(server, game, state, client, invites)
    claim = server.instances.ai_claim(args["waiting_ai"])     # this instance plays the AI's first turn
    await server.store.write(lambda: server.store.insert(**args, ai_claim=claim))
    server.games[game_id] = game
    server.evict()
    return game

def insert_args(server, game: Live, state, client: str, invites: dict) -> dict:
    """The arguments of store.insert for a new game ``game`` (``invites``: seat -> code)."""
    rows = [{"seat": seat, "kind": s.kind, "token_hash": s.token_hash,
             "invite_hash": hash_token(invites[seat]) if seat in invites else None,
             "ai": s.ai.stored() if s.kind == "ai" else None} for seat, s in sorted(game.seats.items())]
    stops = server.stops(game)
    waiting_ai = not state.is_terminal() and state.current_player() not in stops
    idle = idle_seat(state, game.clock, stops)
    return dict(game_id=game.id, human=game.human, ai=game.ai.stored(), record=state.record(), status="playing",
                log=[], token_hash=game.token_hash, client=client, spectators=game.spectators, public_log=[],
                seats=rows, setup=game.setup, clock=None if game.clock is None else game.clock.to_json(),
                flag_at=None if waiting_ai else server.clock_due(game, game.clock, state),   # as Server.commit
                waiting_ai=waiting_ai, idle=None if idle is None else (idle, time.time()))

def rematch_of(server, game: Live, client: str) -> dict:
    """store.insert's arguments for the rematch of ``game`` (made by ``client``, whose games it
    counts among): its setup (game, variant, options) again, every seat moved one on with its
    kind, token hash and AI settings (409 for a game created before setups were kept, or whose setup
    its game now refuses)."""
    if game.setup is None:
        raise HTTPException(409, "this game was created before rematches existed: create a new game")
    seats = seating.rotated(game.seats)
    creator = (game.human + 1) % len(seats)
    body = NewGame.model_validate({**{k: v for k, v in game.setup.items() if k != "game"}, "human": creator},
                                  strict=False)
    entry = registry.get(game.setup["game"])
    try:
        state = new_state(entry, body, server.entropy)
    except HTTPException as exc:        # a setup saved under other rules of the game's form: not the client's body
        raise HTTPException(409, f"this game's setup cannot be repeated: {exc.detail}; create a new game") from None
    setup = {**game.setup, "human": creator}
    try:
        control = parse_control(game.setup.get("clock"), server.limits.clock_min_base)
    except ClockError as exc:           # a setup saved under other limits
        raise HTTPException(409, f"this game's clock cannot be repeated: {exc}") from None
    rematch = Live(server.store.new_id(), creator, game.ai, seats[creator].token_hash,
                   Snapshot.start(state), spectators=game.spectators, seats=seats, setup=setup,
                   clock=start_clock(control, state))
    return insert_args(server, rematch, state, client, {})

def new_seats(server, entry: registry.Game, kinds: list, ai: AISettings) -> tuple[dict, dict]:
    """A new game's seats (``kinds``: seats.plan's (kind, AI settings) of each seat; ``ai``: the
    game's AI) and the secrets made for them: seat -> Seat, and seat -> the creator's token, a bot's
    token or an open seat's invitation code."""
    seats, secrets_of = {}, {}
    for seat, (kind, settings) in enumerate(kinds):
        if kind == "ai":
            seats[seat] = Seat("ai", ai=ai if settings is None else seat_ai(server, entry, seat, settings))
        elif kind == "human":
            secrets_of[seat] = seating.new_secret()        # its invitation code
            seats[seat] = Seat("human")
        else:
            secrets_of[seat] = seating.new_secret()        # the creator's token, a bot token
            seats[seat] = Seat("human" if kind == "creator" else "bot", hash_token(secrets_of[seat]), None,
                               time.time())
    return seats, secrets_of


def seat_ai(server, entry: registry.Game, seat: int, settings: dict) -> AISettings:
    """An AI seat's own settings (``seats[i].ai``), checked as the body's ``ai`` is (422 naming the seat)."""
    try:
        ai = AISettings.model_validate(settings)
    except ValidationError as exc:
        first = validation_errors(exc.errors(), AISettings, root=())[0]
        where = "".join(f".{part}" for part in first["loc"])
        raise HTTPException(422, f"seats[{seat}].ai{where}: {first['msg']}") from None
    try:
        return game_ai(server, entry, ai)
    except HTTPException as exc:
        raise HTTPException(422, f"seats[{seat}].ai: {exc.detail}") from None

def game_ai(server, entry: registry.Game, given: AISettings | None) -> AISettings:
    """The AI of a new game (or of one AI seat): the client's settings ``given`` when the game has
    their bot (else 422 naming the game's bots); a client that gave none gets the normal level, or
    the game's first bot when it has not the levels' bots. A game with levels of its own
    (``Game.bots.ai_levels``) has its level's spec kept with the level (its default level: normal,
    else its first)."""
    ai = AISettings() if given is None else given
    own = dict(entry.bots.ai_levels)
    if given is None:
        if own:
            ai = AISettings(level="normal" if "normal" in own else next(iter(own)))
        elif not takes_levels(entry):
            ai = AISettings(spec=entry.bots.bot_names[0])
    if own and ai.level is not None and ai.spec_ is None:
        if ai.level not in own:
            raise HTTPException(422, f"{entry.title} AI: no level {ai.level!r}; its levels: {', '.join(own)}")
        ai = AISettings(level=ai.level, spec=own[ai.level])
    try:
        entry.bots.make_bot(ai.spec(server.limits.ai_max_seconds), 0)
    except ValueError as exc:
        raise HTTPException(422, f"{entry.title} AI: {exc}") from None
    return ai

def new_state(entry: registry.Game, body: NewGame, entropy, seats_given: bool = False) -> GameStateProtocol:
    """A new game of ``entry`` from the form: the game's ``WebBoard.new_game`` (it keeps its
    secrets from ``entropy``), else its configuration of the options and the variant, seed and
    Supply the client gave. A refused configuration is a 422 naming what is wrong (the seats of a
    body with ``seats``, ``seats_given``, are checked by seats.plan)."""
    form = {"variant": body.variant, "seed": body.seed, "supply": body.supply, "options": dict(body.options),
            "human": body.human}
    make = web_piece(entry, "new_game")
    try:
        if make is not None:
            state = make(form, entropy)
        else:
            given = {key: form[key] for key in ("variant", "seed", "supply") if key in body.model_fields_set}
            state = entry.start({**form["options"], **given}, "config")
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    if body.human >= state.num_players and not seats_given:     # else seats.plan names what is wrong
        raise HTTPException(422, f"human: seat {body.human} is not a seat of this {entry.title} game "
                                 f"({state.num_players} players: seats 0..{state.num_players - 1})")
    return state
