"""For the Crown's entry in the game registry (engine/games/registry.py): its name, configuration,
states, records, perft, bots, search pieces, analysis, its own commands (`ftc cards`, `ftc puzzles`,
engine/crown/own_commands.py) and the NNUE data's armies, web board and rules page. The package's top: it may
import the search's For the Crown pieces; nothing in the engine imports it but the registry's
loader (``BUILTIN``)."""

from __future__ import annotations

from typing import Any

from engine import NAMED_POSITIONS
from engine.crown import commands, own_commands
from engine.crown.actions import is_order
from engine.crown.analysis import REVIEW_SCALE, analyze_game, review_decision
from engine.crown.armies import point_buy_start
from engine.crown.balance import plan as balance_plan
from engine.crown.config import VARIANTS, GameConfig, supply_option
from engine.crown.pieces import SEARCH_OPTIONS, ExpertPrior, HeuristicPlayout, TopOrders
from engine.crown.planner import ai_planner
from engine.crown.players import BOT_NAMES, make_bot
from engine.crown.record import FORMAT as RECORD_FORMAT
from engine.crown.selfplay import run_selfplay
from engine.crown.state import GameState, replay
from engine.crown.state_eval import StateEvaluator
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
from engine.notation import OrderText, OrderTextError, parse_order_text
from engine.perft import divide as divide_position
from engine.perft import perft as perft_position
from engine.search.ismcts import ISMCTS

__all__ = ["GAME"]


def config(data: Any = None, where: str = "config") -> GameConfig:
    """A GameConfig from JSON (``GameConfig.from_json``: ConfigError names ``where.option``); a
    GameConfig is taken as it is."""
    if isinstance(data, GameConfig):
        return data
    return GameConfig.from_json({} if data is None else data, where)


recognise = record_format(RECORD_FORMAT)


def perft(position: str, depth: int) -> int:
    """Orders of the board game (Point-Buy Chess turns) ``depth`` plies from a position text or name."""
    return perft_position(NAMED_POSITIONS.get(position.strip(), position), depth)


def divide(position: str, depth: int) -> dict[str, int]:
    return divide_position(NAMED_POSITIONS.get(position.strip(), position), depth)


def read_action(g: GameState, legal: list[int], text: str) -> int | None:
    """The first of the ``legal`` actions whose text is ``text``, or None. Orders are looked up by
    their fields (an order's text names them, A4): only the texts of the orders with those fields and
    of the other choices are written."""
    candidates = legal
    if not g.is_chance_node():             # a chance node's actions are card ids, not orders
        try:
            parts = parse_order_text(text)
        except OrderTextError:
            parts = None                   # no order reads so
        candidates = [a for a in legal
                      if not is_order(a) or (parts is not None and _same_order(g.action_fields(a), parts))]
    return next((a for a in candidates if g.action_text(a) == text), None)


def _same_order(item: dict, parts: OrderText) -> bool:
    """Whether an order's fields (GameState.action_fields) are those an order text names."""
    if item["origin"] != parts.origin or item["dest"] != parts.dest:
        return False
    return item["unit"] == parts.unit if parts.origin is None else item["promotion"] == parts.promotion


def searcher(iterations: int | None, seconds: float | None, seed: int, processes: int = 1) -> ISMCTS:
    """The game search behind the protocol's ``search`` (ISMCTS with its default pieces)."""
    return ISMCTS(iterations=iterations, seconds=seconds, seed=seed, processes=processes, game="crown")


def analyze(state: GameState, iterations: int | None, seconds: float | None, top: int, seed: int,
            processes: int = 1, progress=None) -> dict:
    """The best turn plan and the top first actions (engine.crown.analysis.analyze_game)."""
    return analyze_game(state, iterations=iterations, seconds=seconds, top=top, seed=seed, processes=processes,
                        progress=progress)


#: `ftc selfplay`'s options of For the Crown (flag -> GameConfig field).
SELFPLAY_OPTIONS = {"--starters": "starters", "--extra-turns": "extra_turns", "--secret-picks": "secret_picks"}


def selfplay(games: int, seed: int, variant: str, options: dict, check: bool, workers):
    """`ftc selfplay`: seeded random games with every invariant checked (engine/crown/selfplay.py);
    ``options`` by flag: --supply (random, first-game or card names separated by commas, checked
    against the catalog and the variant now), --starters and --extra-turns ((Blue, Yellow) pairs),
    --secret-picks. Returns ``run(progress, cluster, records)``."""
    unknown = sorted(set(options) - {"--supply", *SELFPLAY_OPTIONS})
    if unknown:
        raise ValueError(f"{unknown[0]}: not an option of For the Crown selfplay")
    supply = supply_option(options.get("--supply", "random"), variant, seed)
    extra = {field: options[flag] for flag, field in SELFPLAY_OPTIONS.items() if flag in options}
    return lambda progress, cluster, records: run_selfplay(games, seed, variant, supply, records, check=check,
                                                           progress=progress, cluster=cluster, workers=workers,
                                                           **extra)


GAME = register(Game(
    name="crown",
    title="For the Crown",
    description="A deck-building card game driving a chess-like army on an 8x8 board, with its expansion and variants",
    players=range(2, 3),
    variants=VARIANTS,
    seats=("Blue", "Yellow"),
    docs="for-the-crown",
    config=config,
    new_state=GameState,
    replay=replay,
    recognise=recognise,
    walk=commands.walk,
    open_file=commands.open_file,
    bots=Bots(bot_names=BOT_NAMES, make_bot=make_bot,
              bot_words={"ismcts-plain": "plain ISMCTS (the earlier search, a yardstick)",
                         "ismcts-horizon": "ISMCTS judging its turn plans by the turns of both players after them",
                         "ismcts-narrow": "ISMCTS whose turn planner answers by narrow passes where the whole turn is out of reach",
                         "alphabeta": "alpha-beta search (Point-Buy Chess)"}),
    # What ISMCTS (engine/search/ismcts.py) searches For the Crown with (engine/crown/pieces.py).
    search=SearchPieces(evaluator=StateEvaluator, prior=ExpertPrior, playout=HeuristicPlayout, planner=ai_planner,
                        prune=TopOrders, options=SEARCH_OPTIONS, searcher=searcher, search_fields=("processes", "plan")),
    positions=Positions(perft=perft, divide=divide, perft_run=commands.perft_run,
                        perft_options=commands.PERFT_OPTIONS),
    analysis=Analysis(analyze=analyze, analyze_text=commands.analyze_text, analysis_options=commands.ANALYSIS_OPTIONS,
                      format_analysis=commands.format_analysis, plot_record=commands.plot_record,
                      review=review_decision, review_scale=REVIEW_SCALE, review_options=("iterations",)),
    cli=CliPieces(selfplay=selfplay, balance=balance_plan, read_action=read_action, lists_action_fields=False,
                  add_commands=own_commands.add_commands, add_options=own_commands.add_options,
                  nnue_armies=point_buy_start),
    web=WebBoard(module="crown.js", view="engine.crown.web:build_view", step="engine.crown.web:step",
                 new_game="engine.crown.web:new_game", form="engine.crown.web:new_game_form",
                 resign="engine.crown.web:resign",
                 variant="engine.crown.web:variant", knowledge="engine.crown.web:knowledge",
                 pages=("engine.crown.web_catalog:Catalog",),
                 analysis="engine.crown.analysis_board:board_pieces"),
))
