"""Board positions to train the board search on, set up by For the Crown's Point-Buy set-up (C19):
``point_buy_start`` is the ``Armies`` maker (engine/board/nnue_data.py) that `ftc nnue-data` passes
to the data generator: the standard position, an orthodox army or a fairy army, each side's picks
drawn among the set-up's own options."""

from __future__ import annotations

import random

from engine.board.nnue_data import ATTEMPTS, ORTHODOX, DataError
from engine.crown import actions as A
from engine.crown.config import GameConfig
from engine.crown.core import SETUP_PHASE
from engine.crown.state import GameState
from engine.position import Position

__all__ = ["point_buy_start"]


def point_buy_start(kind: str, seed: int, rng: random.Random, budget: int = 38) -> Position:
    """The start of a game of army kind ``kind`` (one of engine.board.nnue_data.ARMIES), set up by the Point-Buy
    set-up (GameState of the variant point-buy, budgets ``budget`` each): the standard position, or
    both sides' armies picked by random choices among the set-up's own options (which follow C19:
    alternate picks, a Sovereign on the first rank, picking on while the budget buys something
    placeable). An orthodox army picks orthodox types only; a set-up where a side could still buy
    only other types (e.g. 2 points left and no Pawn in the Stock) is drawn again, so the army is
    one C19 allows with the whole price list."""
    if kind == "standard":
        state = GameState(GameConfig(variant="point-buy", seed=seed, start_position="startpos"))
        return Position.from_core(state.board, state.units)
    for _ in range(ATTEMPTS):
        state = GameState(GameConfig(variant="point-buy", seed=seed, budgets=(budget, budget)))
        ok = True
        while state.phase == SETUP_PHASE and not state.is_terminal():
            legal = state.legal_actions()
            if kind == "orthodox":
                allowed = [a for a in legal if not _is_pick(a) or state.units.units[A.argument(a)].token in ORTHODOX]
                if not allowed:
                    ok = False
                    break
                legal = allowed
            state.apply(rng.choice(legal))
        if state.is_terminal():
            raise DataError(f"game seed {seed}: the Point-Buy set-up ended the game ({state.over_reason})")
        if ok:
            return Position.from_core(state.board, state.units)
    raise DataError(f"game seed {seed}: no orthodox Point-Buy army of budget {budget} in {ATTEMPTS} attempts")


def _is_pick(action: int) -> bool:
    return not A.is_order(action) and A.kind_of(action) == A.K_UNIT
