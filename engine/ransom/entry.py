"""King's Ransom's entry in the game registry (engine/games/registry.py): its name (and the old
``--variant kings-ransom``), configuration, states, records, perft over complete turns (G8), bots,
search pieces, web board and rules page. The package's top: nothing in the engine imports it but
the registry's loader (``BUILTIN``)."""

from __future__ import annotations

from typing import Any

from engine.games.registry import Analysis, Bots, CliPieces, Game, Positions, SearchPieces, WebBoard, register
from engine.ransom import commands
from engine.ransom import position as ransom_position
from engine.ransom.config import GAME_NAME, RansomConfig
from engine.ransom.players import (
    RANSOM_BOT_NAMES,
    RANSOM_SEARCH_OPTIONS,
    REVIEW_SCALE,
    RansomEvaluator,
    RansomISMCTSBot,
    RansomPlayout,
    analyze_ransom,
    make_ransom_bot,
    review_ransom,
)
from engine.ransom.rules import PLAYER_NAMES
from engine.ransom.selfplay import run_ransom_selfplay
from engine.ransom.state import RECORD_FORMAT, VARIANT, RansomState, replay

__all__ = ["GAME", "config", "new_state"]


def config(data: Any = None, where: str = "config") -> RansomConfig:
    if isinstance(data, RansomConfig):
        return data
    return RansomConfig.from_json(data, where)


def new_state(config: RansomConfig) -> RansomState:
    return RansomState(config.seed, auto_chance=config.chance == "auto")


def recognise(record: Any) -> bool:
    """A King's Ransom record: its format, or (as the protocol has always read them) its variant."""
    return isinstance(record, dict) and (record.get("format") == RECORD_FORMAT or record.get("variant") == VARIANT)


_position = commands.position


def position_text(text: str) -> str:
    """A position text (or "startpos") written out in full; a ValueError names what is wrong."""
    return _position(text).text()


def perft(position: str, depth: int) -> int:
    """Complete turns (G8) ``depth`` deep from a position text or "startpos"."""
    return ransom_position.perft(_position(position), depth)


def divide(position: str, depth: int) -> dict[str, int]:
    return ransom_position.divide(_position(position), depth)


def searcher(iterations: int | None, seconds: float | None, seed: int, processes: int = 1) -> RansomISMCTSBot:
    """The search behind the protocol's ``search``: the ISMCTS bot of engine/ransom/players.py (it
    searches determinizations of the deciding player's observation only; ``processes`` > 1 runs
    root-parallel workers that replay the game's record)."""
    return RansomISMCTSBot(iterations=iterations, seconds=seconds, seed=seed, processes=processes)


def analyze(state: RansomState, iterations: int | None, seconds: float | None, top: int, seed: int,
            processes: int = 1, progress=None, stop=None) -> dict:
    """The side to move's best turn, each step with its value and alternatives
    (engine.ransom.players.analyze_ransom); ``stop`` ends it early (registry ``Analysis.stoppable``)."""
    return analyze_ransom(state, iterations=iterations, seconds=seconds, top=top, seed=seed, progress=progress,
                          processes=processes, stop=stop)


def selfplay(games: int, seed: int, variant: str, options: dict, check: bool, workers):
    """`ftc selfplay`: random games with every invariant checked (engine/ransom/selfplay.py); the
    game has no options. Returns ``run(progress, cluster, records)``."""
    if options:
        raise ValueError(f"{next(iter(options))}: not an option of King's Ransom")
    return lambda progress, cluster, records: run_ransom_selfplay(games, seed, check=check, progress=progress,
                                                                  cluster=cluster, workers=workers, records=records)


#: The deepest perft of a given position one protocol request may ask (depth 3 takes seconds, 4 minutes).
PERFT_LIMIT = 3

GAME = register(Game(
    name=GAME_NAME,
    title="King's Ransom",
    description="A small card game of face-down cards on a 3x6 arena: capture or checkmate the King",
    players=range(2, 3),
    variants=(),
    seats=PLAYER_NAMES,
    docs="kings-ransom",
    config=config,
    new_state=new_state,
    replay=replay,
    recognise=recognise,
    walk=commands.walk,
    bots=Bots(bot_names=RANSOM_BOT_NAMES, make_bot=make_ransom_bot),
    search=SearchPieces(evaluator=RansomEvaluator, playout=RansomPlayout, options=RANSOM_SEARCH_OPTIONS,
                        searcher=searcher, search_fields=("processes",)),
    positions=Positions(perft=perft, divide=divide, position=position_text, perft_limit=PERFT_LIMIT,
                        perft_run=commands.perft_run, perft_unit="turns"),
    analysis=Analysis(analyze=analyze, analyze_text=commands.analyze_text, format_analysis=commands.format_analysis,
                      review=review_ransom, review_scale=REVIEW_SCALE, review_options=("iterations",),
                      stoppable=True),
    cli=CliPieces(selfplay=selfplay),
    web=WebBoard(module="ransom.js", view="engine.ransom.web:build_ransom_view", step="engine.ransom.web:ransom_step",
                 new_game="engine.ransom.web:new_game", resign="engine.ransom.web:resign",
                 analysis="engine.ransom.analysis_board:pieces"),
))
