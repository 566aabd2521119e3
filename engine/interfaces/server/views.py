"""What the human may see: every part of a view is built from their observation (RULINGS C4, C12)
and from the public texts of what happened, never from the full state.

- ``build_view``: the board (screened in Point-Buy behind a screen), Barracks, Stock, Supply,
  counters, the human's own options, the log and the AI's last turn.
- ``public_text``: what a viewer may read of one action; the opponent's choices of hidden cards and
  their picks behind the screen are redacted.
"""

from __future__ import annotations

from typing import Any

from engine._position import decode_order
from engine.game import actions as A
from engine.game.observation import behind_screen, observation, screened_board
from engine.game.state import GameState
from engine.notation import square_name
from engine.position import KIND_NAMES

__all__ = ["build_view", "public_text", "describe_action", "STATUS_FLAGS", "HIDDEN_CARD", "HIDDEN_PICK"]

STATUS_FLAGS = ("ordered", "banned", "immune until Blue's turn", "immune until Yellow's turn",
                "banned next turn (Mourning)")
HIDDEN_CARD = "(a hidden choice of card)"
HIDDEN_PICK = "(a pick behind the screen)"


def public_text(state: GameState, player: int, action: int, viewer: int) -> str:
    """What ``viewer`` may read of ``player``'s ``action``, taken in ``state`` (before it is applied).
    The opponent's choices of a card (put back on a Deck, kept in hand: the card may be hidden) and
    their picks and placements behind the Point-Buy screen are redacted."""
    if player == viewer:
        return state.action_text(action)
    if behind_screen(state):
        return HIDDEN_PICK
    if not A.is_order(action) and A.decode(action)[0] == A.K_CARD:
        return HIDDEN_CARD
    return state.action_text(action)


def describe_action(state: GameState, action: int, text: str) -> dict:
    """One of the human's options with what a board needs to show it: squares of orders, the card
    of a play or buy."""
    item: dict[str, Any] = {"id": action, "text": text}
    if A.is_order(action):
        kind, origin, dest, unit, _ = decode_order(action)
        item["kind"] = KIND_NAMES[kind]
        item["to"] = dest
        if item["kind"] != "deploy":
            item["from"] = origin
        else:
            item["unit"] = state.units.units[unit].token
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


def build_view(game_id: str, version: int, state: GameState, human: int, thinking: bool, log: list,
               ai_last_turn: list, ai_note: str | None = None) -> dict:
    """The human's whole view of a game at one version."""
    obs = observation(state, human)
    board = screened_board(state, human)
    units = []
    for sq in sorted(board.units):
        t, colour = board.units[sq]
        unit = state.units.units[t]
        flags = [STATUS_FLAGS[i] for i in range(len(board.status)) if board.status[i] >> sq & 1]
        units.append({"square": sq, "name": square_name(sq), "token": unit.token, "unit": unit.name,
                      "colour": colour, "flags": flags})
    over = state.is_terminal()
    deciding = not over and state.current_player() == human and not thinking
    actions = [describe_action(state, a, text) for a, text in state.legal_action_texts().items()] if deciding else []
    tokens = [u.token for u in state.units.units]
    return {
        "id": game_id,
        "version": version,
        "human": human,
        "status": "over" if over else "playing",
        "over": state.over_reason,
        "winner": state.winner,
        "to_move": obs["current"],
        "deciding": None if over else state.current_player(),
        "your_turn": deciding,
        "thinking": thinking,
        "ai_note": ai_note,
        "prompt": state.prompt() if deciding else None,
        "phase": obs["phase"],
        "turn": obs["turn"],
        "counters": {k: obs["counters"][k] for k in ("orders", "actions", "buys", "gold")},
        "units": units,
        "barracks": [{tokens[t]: n for t, n in enumerate(board.barracks[c]) if n} for c in (0, 1)],
        "stock": {tokens[t]: n for t, n in enumerate(board.stock) if n},
        "supply": [{"name": state.card_name(c), "cost": state.cost(c), "left": state.supply[c]} for c in state.supply_ids],
        "observation": obs,
        "actions": actions,
        "log": log[-200:],
        "ai_last_turn": ai_last_turn,
    }
