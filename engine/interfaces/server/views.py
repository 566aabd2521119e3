"""What the human may see: every part of a view is built from their observation (RULINGS C4, C12)
and from the public part of what happened, never from the full state.

- ``build_view``: the board (screened in Point-Buy behind a screen), Barracks, Stock, Supply,
  counters, the human's own options with their fields, the log and the AI's last turn.
- ``log_entry``: what a viewer may know of one action, as text and fields (engine.game.actions.fields);
  the opponent's choices of hidden cards and their picks behind the screen are redacted.
"""

from __future__ import annotations

from engine.codes import squares
from engine.game import actions as A
from engine.game.observation import behind_screen, observation, screened_board
from engine.game.setup import starter_cards
from engine.game.state import GameState
from engine.notation import square_name

__all__ = ["build_view", "log_entry", "STATUS_FLAGS", "HIDDEN_CARD", "HIDDEN_PICK"]

STATUS_FLAGS = ("ordered", "banned", "immune until Blue's turn", "immune until Yellow's turn",
                "banned next turn (Mourning)")
HIDDEN_CARD = "(a hidden choice of card)"
HIDDEN_PICK = "(a pick behind the screen)"


def log_entry(state: GameState, player: int, action: int, viewer: int) -> dict:
    """What ``viewer`` may know of ``player``'s ``action``, taken in ``state`` (before it is applied):
    ``{"turn", "player", "text", "fields"}`` with the action's fields (GameState.action_fields). Of
    the opponent's choices of a card (put back on a Deck, kept in hand: the card may be hidden) only
    the kind of choice and its zone remain; of their picks and placements behind the Point-Buy
    screen nothing (fields None)."""
    entry = {"turn": state.turn_number, "player": player}
    fields = state.action_fields(action)
    if player != viewer and behind_screen(state):
        return {**entry, "text": HIDDEN_PICK, "fields": None}
    if player != viewer and fields["type"] == "card":
        return {**entry, "text": HIDDEN_CARD, "fields": {"type": "card", "zone": fields["zone"]}}
    return {**entry, "text": state.action_text(action), "fields": fields}


def view_frame(game_id: str, version: int, state, human: int, thinking: bool, log: list, ai_last_turn: list,
               ai_note: str | None) -> dict:
    """What every game's view says alike (either game): who decides, the status and result, the
    human's legal actions when it is their decision (none otherwise), the log and the AI's last turn."""
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


def build_view(game_id: str, version: int, state: GameState, human: int, thinking: bool, log: list,
               ai_last_turn: list, ai_note: str | None = None) -> dict:
    """The human's whole view of a game at one version."""
    obs = observation(state, human)
    board = screened_board(state, human)
    flags: dict[int, list[str]] = {sq: [] for sq in board.units}
    for flag, bits in enumerate(board.status):
        for sq in squares(bits):
            if sq in flags:
                flags[sq].append(STATUS_FLAGS[flag])
    units = []
    for sq in sorted(board.units):
        t, colour = board.units[sq]
        unit = state.units.units[t]
        units.append({"square": sq, "name": square_name(sq), "token": unit.token, "unit": unit.name,
                      "colour": colour, "flags": flags[sq]})
    tokens = [u.token for u in state.units.units]
    return {
        **view_frame(game_id, version, state, human, thinking, log, ai_last_turn, ai_note),
        "to_move": obs["current"],
        "phase": obs["phase"],
        "turn": obs["turn"],
        "counters": {k: obs["counters"][k] for k in ("orders", "actions", "buys", "gold")},
        "units": units,
        "barracks": [{tokens[t]: n for t, n in enumerate(board.barracks[c]) if n} for c in (0, 1)],
        "stock": {tokens[t]: n for t, n in enumerate(board.stock) if n},
        "supply": [{"name": state.card_name(c), "cost": state.cost(c), "left": state.supply[c]} for c in state.supply_ids],
        "starters": starter_cards(state),
        "observation": obs,
    }
