"""Crusade & Conquer's entry in the game registry (engine/games/registry.py): its name,
configuration (seed, start position), states, records, perft and divide of position texts (RULINGS
H9, counted in the kernel), `ftc perft --game crusade`, the random, greedy and alpha-beta players,
`ftc analyze --game crusade "<position text>"` (engine/crusade/search.py), and its web board
(engine/crusade/web.py, static/crusade.js) with its AI levels. The
package's top: nothing in the engine imports it but the registry's loader (``BUILTIN``)."""

from __future__ import annotations

from typing import Any

from engine.crusade import commands, search
from engine.crusade.players import BOT_NAMES, make_bot
from engine.crusade.state import GAME_NAME, RECORD_FORMAT, SEATS, CrusadeConfig, CrusadeState, replay, walk
from engine.games.registry import Analysis, Bots, Game, Positions, WebBoard, record_format, register

__all__ = ["GAME", "config", "new_state"]

#: The deepest perft of a given position one protocol request may ask (depth 3 takes well under a second).
PERFT_LIMIT = 3


def config(data: Any = None, where: str = "config") -> CrusadeConfig:
    if isinstance(data, CrusadeConfig):
        return data
    return CrusadeConfig.from_json(data, where)


def new_state(cfg: CrusadeConfig) -> CrusadeState:
    return CrusadeState(cfg)


recognise = record_format(RECORD_FORMAT)


GAME = register(Game(
    name=GAME_NAME,
    title="Crusade & Conquer",
    description="Chess pieces with a Dragon and a Flag Bearer on a board with two-floor castles: checkmate "
                "the King or bring a Flag Bearer onto the opposing X",
    players=range(2, 3),
    variants=(),
    seats=SEATS,
    docs="crusade-and-conquer",
    config=config,
    new_state=new_state,
    replay=replay,
    recognise=recognise,
    walk=walk,
    # The web board's AI levels (docs/server.md): the server's level names, each a bot of this game.
    bots=Bots(bot_names=BOT_NAMES, make_bot=make_bot,
              ai_levels={"easy": "greedy", "normal": "alphabeta:0.5s", "strong": "alphabeta:2s"}),
    positions=Positions(perft=commands.perft, divide=commands.divide, position=commands.position_text,
                        perft_limit=PERFT_LIMIT, perft_run=commands.perft_run),
    analysis=Analysis(analyze=search.analyze, analyze_text=search.analyze_text,
                      analysis_options=search.ANALYSIS_OPTIONS, file_options=("depth",),
                      format_analysis=search.format_analysis,
                      review=search.review, review_scale=search.REVIEW_SCALE, review_options=("depth",),
                      stoppable=True),
    web=WebBoard(module="crusade.js", view="engine.crusade.web:build_view", resign="engine.crusade.web:resign",
                 analysis="engine.crusade.analysis_board:pieces"),
))
