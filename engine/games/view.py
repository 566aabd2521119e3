"""What the web server shows of any game, built from the state protocol (engine/games/protocol.py)
and the presentation members every game state has (``turn_number``, ``current``, ``over_reason``,
``winner``, ``prompt()``): the frame of every view, and the generic view, log entry and summary of
a game that gives no web pieces of its own (registry ``WebBoard``). Every part comes from the
human's ``observation`` and their own legal actions, never from the full state.

Game-independent: the server (engine/interfaces/server) and the games' own web modules
(engine/game/web.py, engine/ransom/web.py) build on it."""

from __future__ import annotations

import importlib
from functools import lru_cache

__all__ = ["named", "web_piece", "view_frame", "generic_view", "generic_step", "game_over_entry", "GENERIC_MODULE"]

#: The web board module (engine/interfaces/server/static/) of a game without its own.
GENERIC_MODULE = "generic.js"


@lru_cache(maxsize=None)
def named(ref: str):
    """What a "module:name" reference of a game's ``WebBoard`` names (imported on first use)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def web_piece(game, piece: str):
    """The function a game's ``WebBoard`` names for ``piece`` ("view", "step", "new_game", ...), or
    None when the game has none (the server then does the generic thing)."""
    ref = getattr(game.web, piece, "") if game.web is not None else ""
    return named(ref) if ref else None


def view_frame(game_id: str, version: int, state, human: int, thinking: bool, log: list, ai_last_turn: list,
               ai_note: str | None) -> dict:
    """What every game's view says alike: who decides, the status and result, the human's legal
    actions when it is their decision (none otherwise), the log and the AI's last turn."""
    over = state.is_terminal()
    deciding = not over and state.current_player() == human and not thinking
    actions = ([{"id": a, "text": state.action_text(a), "fields": state.action_fields(a)} for a in state.legal_actions()]
               if deciding else [])
    return {
        "id": game_id,
        "version": version,
        "human": human,
        "status": "over" if over else "playing",
        "over": state.over_reason,
        "winner": state.winner,
        "deciding": None if over else state.current_player(),
        "your_turn": deciding,
        "thinking": thinking,
        "ai_note": ai_note,
        "prompt": state.prompt() if deciding else None,
        "actions": actions,
        "log": log[-200:],
        "ai_last_turn": ai_last_turn,
    }


def generic_view(game, game_id: str, version: int, state, human: int, thinking: bool, log: list,
                 ai_last_turn: list, ai_note: str | None = None) -> dict:
    """The view of a game (registry entry ``game``) without a view builder of its own: the frame,
    the game's name, title, seats and board module, and the human's observation."""
    return {
        **view_frame(game_id, version, state, human, thinking, log, ai_last_turn, ai_note),
        "game": game.name,
        "title": game.title,
        "module": GENERIC_MODULE,
        "players": [game.seat(p) for p in range(state.num_players)],
        "to_move": None if state.is_terminal() else state.current,
        "turn": state.turn_number,
        "observation": state.observation(human),
    }


def generic_step(state, player: int, action: int, viewer: int) -> dict:
    """Apply ``player``'s ``action`` to ``state`` and return its log entry: the action's text and
    fields (a game whose actions hide something from ``viewer`` gives its own step)."""
    entry = {"turn": state.turn_number, "player": player, "text": state.action_text(action),
             "fields": state.action_fields(action)}
    state.apply(action)
    return entry


def game_over_entry(state) -> dict:
    """The log's last entry: how the game ended (nobody's action: player and fields None)."""
    return {"turn": state.turn_number, "player": None, "text": f"game over: {state.over_reason}", "fields": None}
