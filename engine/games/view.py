"""What the web server shows of any game, built from the state protocol (engine/games/protocol.py)
and the presentation members every game state has (``turn_number``, ``current``, ``over_reason``,
``winner``, ``prompt()``): the frame of every view, and the generic view, log entry and summary of
a game that gives no web pieces of its own (registry ``WebBoard``). Every part comes from the
viewer's ``observation`` and their own legal actions, never from the full state.

The viewer of a view or a log entry is a seat, or None: a spectator, who gets the public
observation (``observation(None)``, engine/games/protocol.py), the public text of every step, no
legal actions, no prompt and no note meant for a seat (``watching`` is true in their view).

Game-independent: the server (engine/interfaces/server) and the games' own web modules
(engine/crown/web.py, engine/ransom/web.py) build on it."""

from __future__ import annotations

import copy
import importlib
from functools import cache

__all__ = ["named", "web_piece", "view_frame", "board_module", "game_names", "game_view", "generic_view", "generic_step", "game_over_entry", "GENERIC_MODULE",
           "step_for", "public_log"]

#: The web board module (engine/interfaces/server/static/) of a game without its own.
GENERIC_MODULE = "generic.js"


@cache
def named(ref: str):
    """What a "module:name" reference of a game's ``WebBoard`` names (imported on first use)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def web_piece(game, piece: str):
    """The function a game's ``WebBoard`` names for ``piece`` ("view", "step", "new_game", ...), or
    None when the game has none (the server then does the generic thing)."""
    ref = getattr(game.web, piece, "") if game.web is not None else ""
    return named(ref) if ref else None


def view_frame(game_id: str, version: int, state, human: int | None, thinking: bool, log: list, ai_last_turn: list,
               ai_note: str | None) -> dict:
    """What every game's view says alike: who decides, the status and result, the viewer's legal
    actions when it is their decision (none otherwise; a spectator, ``human`` None, never has any,
    nor a prompt or a note), the log and the AI's last turn."""
    over = state.is_terminal()
    watching = human is None
    deciding = not watching and not over and state.current_player() == human and not thinking
    actions = ([{"id": a, "text": state.action_text(a), "fields": state.action_fields(a)} for a in state.legal_actions()]
               if deciding else [])
    return {
        "id": game_id,
        "version": version,
        "human": human,
        "watching": watching,
        "status": "over" if over else "playing",
        "over": state.over_reason,
        "winner": state.winner,
        "deciding": None if over else state.current_player(),
        "your_turn": deciding,
        "thinking": thinking,
        "ai_note": None if watching else ai_note,
        "prompt": state.prompt() if deciding else None,
        "actions": actions,
        "log": log[-200:],
        "ai_last_turn": ai_last_turn,
    }


def board_module(game) -> str:
    """The static module that draws a game's board (GENERIC_MODULE for a game without a WebBoard)."""
    return game.web.module if game.web is not None else GENERIC_MODULE


def game_names(game, state) -> dict:
    """What every view says of its game (registry entry ``game``), so that a client shell names no
    game: its name, title, the board module that draws it (GENERIC_MODULE without a WebBoard) and
    its seats' names."""
    return {"game": game.name, "title": game.title,
            "module": board_module(game),
            "players": [game.seat(p) for p in range(state.num_players)]}


def game_view(game, game_id: str, version: int, state, human: int | None, thinking: bool, log: list,
              ai_last_turn: list, ai_note: str | None = None) -> dict:
    """The view of a game as every interface shows it (the one place a view is built): the game's own
    view builder's (its web piece "view"), else ``generic_view``, with ``game_names`` where the
    builder does not say them (a builder that does keeps its own, the same or more precise)."""
    build = web_piece(game, "view")
    args = (game_id, version, state, human, thinking, log, ai_last_turn, ai_note)
    view = build(*args) if build is not None else generic_view(game, *args)
    return {**view, **{key: value for key, value in game_names(game, state).items() if key not in view}}


def generic_view(game, game_id: str, version: int, state, human: int | None, thinking: bool, log: list,
                 ai_last_turn: list, ai_note: str | None = None) -> dict:
    """The view of a game (registry entry ``game``) without a view builder of its own: the frame,
    the game's name, title, seats and board module, and the viewer's observation (``human`` None:
    a spectator's)."""
    return {
        **view_frame(game_id, version, state, human, thinking, log, ai_last_turn, ai_note),
        **game_names(game, state),
        "to_move": None if state.is_terminal() else state.current,
        "turn": state.turn_number,
        "observation": state.observation(human),
    }


def generic_step(state, player: int, action: int, viewer: int | None) -> dict:
    """Apply ``player``'s ``action`` to ``state`` and return its log entry: the action's text and
    fields (a game whose actions hide something from ``viewer`` gives its own step)."""
    entry = {"turn": state.turn_number, "player": player, "text": state.action_text(action),
             "fields": state.action_fields(action)}
    state.apply(action)
    return entry


def game_over_entry(state) -> dict:
    """The log's last entry: how the game ended (nobody's action: player and fields None)."""
    return {"turn": state.turn_number, "player": None, "text": f"game over: {state.over_reason}", "fields": None}


def step_for(game, state, player: int, action: int, viewers) -> list[dict]:
    """Apply ``player``'s ``action`` to ``state``, once, and return one log entry per viewer of
    ``viewers`` (each a seat or None, a spectator). Without a ``WebBoard.step`` of the game every
    viewer's entry is the action's text and fields (``generic_step``), read once before the action.
    A game's own step may need the state both before the action (what the action is) and after it
    (what it brought about: King's Ransom's event texts, Crownfall's battles and draws): the first
    viewer's step applies the action to ``state`` itself; every other viewer's step is given the
    state as it was before (one copy, taken before the action) until it applies the action, which
    then only turns its reads to ``state``, already applied (``_Applied``). So the action is applied
    once however many viewers follow it, and each viewer's entry is what that viewer's step makes
    of the same before and after."""
    step = web_piece(game, "step")
    viewers = list(viewers)
    if step is None:
        entry = generic_step(state, player, action, None)
        return [entry] + [copy.deepcopy(entry) for _ in viewers[1:]]
    before = state.clone() if len(viewers) > 1 else None
    entries = [step(state, player, action, viewers[0])]
    entries += [step(_Applied(before, state), player, action, viewer) for viewer in viewers[1:]]
    return entries


class _Applied:
    """One viewer's look at an action applied once (``step_for``): its reads go to the state before
    the action until its step applies the action, then to the state after it. The step's ``apply``
    applies nothing: the action was applied to the real state by the first viewer's step."""

    def __init__(self, before, after):
        self._now, self._after = before, after

    def apply(self, action: int) -> None:
        self._now = self._after

    def __getattr__(self, name: str):
        return getattr(self._now, name)


#: The spectator's log of a game whose log cannot be derived (a game with its own step and no ``walk``).
NO_PUBLIC_LOG = {"turn": None, "player": None, "text": "(this game's earlier moves are not shown to spectators)",
                 "fields": None}


def public_log(game, record: dict) -> list[dict]:
    """A spectator's log of a game played before logs were kept for spectators (only the seat's was
    stored): its record replayed step by step (the game's ``walk``: a fresh state, chance explicit,
    the recorded steps) with every decision's entry made for viewer None; chance steps are applied
    as recorded (an entry made this way names what its step could see before the chance that
    followed). A game whose step is the generic one logs the same for every viewer: its stored log
    is public already and this is not called for it. A game with its own step and no ``walk``
    gets one entry saying that its moves are not shown (never a seat's entries)."""
    if game.walk is None:
        return [NO_PUBLIC_LOG]
    state, steps, resign = game.walk(record)
    step = web_piece(game, "step") or generic_step
    entries = []
    for player, action in steps:
        if state.is_terminal():
            break
        if resign is not None and action == resign and player >= 0:
            turn, resign_in = state.turn_number, web_piece(game, "resign")
            fields = resign_in(state, player) if resign_in is not None else state.resign(player)
            entries.append({"turn": turn, "player": player, "text": "resigns", "fields": fields})
        elif player >= 0:
            entries.append(step(state, player, action, None))
        else:
            state.apply(action)
        if state.is_terminal():
            entries.append(game_over_entry(state))
    return entries
