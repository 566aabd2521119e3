"""For the Crown's entry in the game registry (engine/games/registry.py): its name, configuration,
states, records, perft, bots, search pieces, web board and rules page. The package's top: it may
import the search's For the Crown pieces; nothing in the engine imports it but the registry's
loader (``BUILTIN``)."""

from __future__ import annotations

from typing import Any

from engine import NAMED_POSITIONS
from engine.game.config import VARIANTS, GameConfig
from engine.game.record import FORMAT as RECORD_FORMAT
from engine.game.state import GameState, replay
from engine.games.registry import Game, SearchPieces, WebBoard, register
from engine.perft import divide as divide_position
from engine.perft import perft as perft_position
from engine.search.bots import BOT_NAMES, make_bot
from engine.search.crown_pieces import SEARCH_OPTIONS, ExpertPrior, HeuristicPlayout, TopOrders
from engine.search.planner import TurnPlanner
from engine.search.state_eval import StateEvaluator

__all__ = ["GAME"]


def config(data: Any = None, where: str = "config") -> GameConfig:
    """A GameConfig from JSON (``GameConfig.from_json``: ConfigError names ``where.option``); a
    GameConfig is taken as it is."""
    if isinstance(data, GameConfig):
        return data
    return GameConfig.from_json({} if data is None else data, where)


def recognise(record: Any) -> bool:
    return isinstance(record, dict) and record.get("format") == RECORD_FORMAT


def perft(position: str, depth: int) -> int:
    """Orders of the board game (Point-Buy Chess turns) ``depth`` plies from a position text or name."""
    return perft_position(NAMED_POSITIONS.get(position.strip(), position), depth)


def divide(position: str, depth: int) -> dict[str, int]:
    return divide_position(NAMED_POSITIONS.get(position.strip(), position), depth)


def _planner() -> TurnPlanner:
    return TurnPlanner(max_nodes=4_000, reply_depth=3)


GAME = register(Game(
    name="crown",
    title="For the Crown",
    description="a deck-building card game driving a chess-like army on an 8x8 board, with its expansion and variants",
    players=range(2, 3),
    variants=VARIANTS,
    config=config,
    new_state=GameState,
    replay=replay,
    recognise=recognise,
    bot_names=BOT_NAMES,
    make_bot=make_bot,
    docs="for-the-crown",
    perft=perft,
    divide=divide,
    # What ISMCTS (engine/search/ismcts.py) searches For the Crown with (engine/search/crown_pieces.py).
    search=SearchPieces(evaluator=StateEvaluator, prior=ExpertPrior, playout=HeuristicPlayout, planner=_planner,
                        prune=TopOrders, options=SEARCH_OPTIONS),
    web=WebBoard(module="app.js", view="engine.interfaces.server.views:build_view"),
))
