"""For the Crown's board orders and boards judged for the game: who a board decides the game for
(C2, 10.0: ``board_winner``, asking the state's variant) and an order's value (``order_value``: a
win or loss first, ``GAME_WON``, else the board search's static evaluation ``board_value``). Every
For the Crown bot and evaluator ranks orders and boards through these two."""

from __future__ import annotations

from engine import codes
from engine.board.evaluate import GAME_WON, EvalWeights, board_value
from engine.crown.core import SETUP_PHASE

__all__ = ["GAME_WON", "board_winner", "order_winner", "order_value", "order_owner", "board_after"]


def board_winner(state, board=None) -> int | None:
    """Who wins the game ``state`` when the turn in progress ends with ``board`` (default: the
    state's own) as it stands, or None while the game goes on: the variant's C2 (10.0) check
    (``state.variant.board_winner``; in The Last Stand only the Defender can lose), for the player
    whose turn it is. Set-up is no turn: nothing is decided before the first one starts (armies
    are still being placed). Changes nothing."""
    if state.phase == SETUP_PHASE:
        return None
    return state.variant.board_winner(state.board if board is None else board, state.current)


def order_owner(board, action: int, player: int) -> int:
    """The side whose unit board order ``action`` moves when ``player`` gives it: the colour of the
    unit on its origin square (False Orders and Wanderlust order enemy units, 13.0 / 17.0), or
    ``player`` for a deploy (from the player's own Barracks)."""
    if codes.order_kind(action) == codes.DEPLOY:
        return player
    unit = board.unit_on(codes.order_origin(action))
    return player if unit is None else unit[1]


def board_after(state, action: int):
    """A copy of ``state``'s board after board order ``action`` of the player deciding, played for
    the unit's owner (``order_owner``) as the game plays it; the state is unchanged."""
    probe = state.board.copy()
    probe.apply_for(order_owner(probe, action, state.current_player()), action)
    return probe


def order_winner(state, action: int) -> int | None:
    """``board_winner`` after board order ``action`` of the player deciding in ``state`` (a probe on
    a copy of the board; the state is unchanged)."""
    return board_winner(state, board_after(state, action))


def order_value(state, action: int, weights: EvalWeights | None = None) -> int:
    """The value of board order ``action`` for the player deciding in ``state``, in centi-points:
    ``GAME_WON`` when the board after it decides the game for that player, ``-GAME_WON`` when it
    decides it against them, else ``board_value`` of that board as if they were to move again.

    >>> from engine.crown.scenario import scenario
    >>> g = scenario("4k3/P7/8/8/8/8/8/4R1K1 w", hands=(["Peon"], []))
    >>> values = {g.action_text(a): order_value(g, a) for a in g.legal_actions() if a < 1 << 28}
    >>> values["e1e8"] == GAME_WON, values["a7a8q"] < GAME_WON
    (True, True)
    """
    player = state.current_player()
    probe = board_after(state, action)
    winner = board_winner(state, probe)
    if winner is not None:
        return GAME_WON if winner == player else -GAME_WON
    return board_value(probe, player, weights, to_move=True)
