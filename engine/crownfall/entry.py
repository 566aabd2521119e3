"""Crownfall's entry in the game registry (engine/games/registry.py): its name, configuration (players
2-4, Houses, homes, the advanced pools, seed), states, records, bots (random, greedy, expert, ismcts),
the generic search's pieces (engine/crownfall/pieces.py), the analysis, its web board
(engine/crownfall/web.py), its selfplay with the game's own invariants and its balance report
(engine/crownfall/balance.py). The package's top: nothing
imports it but the registry's loader (``BUILTIN``)."""

from __future__ import annotations

from typing import Any

from engine.crownfall.balance import plan as balance_plan
from engine.crownfall.config import GAME_NAME, CrownfallConfig
from engine.crownfall.core import RECORD_FORMAT, SEATS
from engine.crownfall.perft import PROTOCOL_LIMIT, perft_run, position_text, text_divide, text_perft
from engine.crownfall.pieces import SEARCH_OPTIONS, CrownfallEvaluator, HeuristicPlayout, QuickPrior, TopActions
from engine.crownfall.players import (
    ANALYSIS_OPTIONS,
    BOT_NAMES,
    REVIEW_SCALE,
    CrownfallISMCTSBot,
    analyze,
    analyze_text,
    format_analysis,
    make_bot,
    review,
)
from engine.crownfall.selfplay import run_crownfall_selfplay
from engine.crownfall.state import CrownfallState, replay, walk
from engine.games.registry import (
    Analysis,
    Bots,
    CliPieces,
    Game,
    Positions,
    SearchPieces,
    WebBoard,
    record_format,
    register,
)

__all__ = ["GAME", "config", "new_state"]


def config(data: Any = None, where: str = "config") -> CrownfallConfig:
    if isinstance(data, CrownfallConfig):
        return data
    return CrownfallConfig.from_json(data, where)


def new_state(cfg: CrownfallConfig) -> CrownfallState:
    return CrownfallState(cfg)


recognise = record_format(RECORD_FORMAT)


def selfplay(games: int, seed: int, variant: str, options: dict, check: bool, workers):
    """`ftc selfplay --game crownfall [--players N]`: random games of the default set-up of N players
    (I2; two by default) with every invariant checked (engine/crownfall/selfplay.py). Returns
    ``run(progress, cluster, records)``."""
    unknown = sorted(set(options) - {"--players"})
    if unknown:
        raise ValueError(f"{unknown[0]}: not an option of Crownfall")
    settings = {"players": options["--players"]} if "--players" in options else {}
    return lambda progress, cluster, records: run_crownfall_selfplay(games, seed, settings, check=check,
                                                                     progress=progress, cluster=cluster,
                                                                     workers=workers, records=records)


def searcher(iterations: int | None, seconds: float | None, seed: int, processes: int = 1) -> CrownfallISMCTSBot:
    """The search behind the protocol's ``search``: the ISMCTS bot with Crownfall's pieces
    (engine/crownfall/players.py; ``processes`` > 1: root-parallel workers that replay the record)."""
    return CrownfallISMCTSBot(iterations=iterations, seconds=seconds, seed=seed, processes=processes)


GAME = register(Game(
    name=GAME_NAME,
    title="Crownfall",
    description="The 13-region area-control game for 2 to 4 players: Houses, Towers with roles, spells, "
                "ley networks, Omens and Objectives",
    players=range(2, 5),
    variants=(),
    seats=SEATS,
    docs="crownfall",
    config=config,
    new_state=new_state,
    replay=replay,
    recognise=recognise,
    walk=walk,
    bots=Bots(bot_names=BOT_NAMES, make_bot=make_bot),
    search=SearchPieces(evaluator=CrownfallEvaluator, playout=HeuristicPlayout, prior=QuickPrior, prune=TopActions,
                        options=SEARCH_OPTIONS, searcher=searcher, search_fields=("processes",)),
    analysis=Analysis(analyze=analyze, analyze_text=analyze_text, analysis_options=ANALYSIS_OPTIONS,
                      format_analysis=format_analysis, review=review, review_scale=REVIEW_SCALE,
                      review_options=("iterations",), stoppable=True),
    positions=Positions(perft=text_perft, divide=text_divide, position=position_text, perft_limit=PROTOCOL_LIMIT,
                        perft_run=perft_run, perft_options=("chance", "players", "seed"), perft_unit="decisions"),
    cli=CliPieces(selfplay=selfplay, balance=balance_plan),
    web=WebBoard(module="crownfall.js", view="engine.crownfall.web:build_crownfall_view",
                 step="engine.crownfall.web:crownfall_step", new_game="engine.crownfall.web:new_game",
                 form="engine.crownfall.web:new_game_form", analysis="engine.crownfall.analysis_board:pieces"),
))
