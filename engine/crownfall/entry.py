"""Crownfall's entry in the game registry (engine/games/registry.py): its name, configuration (players
2-4, Houses, homes, the advanced pools, seed), states, records, random and greedy bots, its web board
(engine/crownfall/web.py) and its selfplay with the game's own invariants. The package's top: nothing
imports it but the registry's loader (``BUILTIN``)."""

from __future__ import annotations

from typing import Any

from engine.crownfall.config import GAME_NAME, CrownfallConfig
from engine.crownfall.core import RECORD_FORMAT, SEATS
from engine.crownfall.players import BOT_NAMES, make_bot
from engine.crownfall.selfplay import run_crownfall_selfplay
from engine.crownfall.state import CrownfallState, replay
from engine.games.registry import Game, WebBoard, register, record_format

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
    (I2; two by default) with every invariant checked (engine/crownfall/selfplay.py)."""
    unknown = sorted(set(options) - {"--players"})
    if unknown:
        raise ValueError(f"{unknown[0]}: not an option of Crownfall")
    settings = {"players": options["--players"]} if "--players" in options else {}
    return lambda progress, cluster: run_crownfall_selfplay(games, seed, settings, check=check, progress=progress,
                                                            cluster=cluster, workers=workers)


GAME = register(Game(
    name=GAME_NAME,
    title="Crownfall",
    description="the 13-region area-control game for 2 to 4 players: Houses, Towers with roles, spells, "
                "ley networks, Omens and Objectives",
    players=range(2, 5),
    variants=(),
    config=config,
    new_state=new_state,
    replay=replay,
    recognise=recognise,
    bot_names=BOT_NAMES,
    make_bot=make_bot,
    docs="crownfall",
    seats=SEATS,
    selfplay=selfplay,
    web=WebBoard(module="crownfall.js", view="engine.crownfall.web:build_crownfall_view",
                 step="engine.crownfall.web:crownfall_step", new_game="engine.crownfall.web:new_game",
                 form="engine.crownfall.web:new_game_form"),
))
