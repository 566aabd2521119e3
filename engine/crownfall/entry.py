"""Crownfall's entry in the game registry (engine/games/registry.py): its name, configuration (players
2-4, Houses, homes, the advanced pools, seed), states, records, random and greedy bots, and its
selfplay with the game's own invariants. The package's top: nothing imports it but the registry's
loader (``BUILTIN``)."""

from __future__ import annotations

from typing import Any

from engine.crownfall.config import GAME_NAME, CrownfallConfig
from engine.crownfall.core import RECORD_FORMAT, SEATS
from engine.crownfall.players import BOT_NAMES, make_bot
from engine.crownfall.selfplay import run_crownfall_selfplay
from engine.crownfall.state import CrownfallState, replay
from engine.games.registry import Game, register

__all__ = ["GAME", "config", "new_state"]


def config(data: Any = None, where: str = "config") -> CrownfallConfig:
    if isinstance(data, CrownfallConfig):
        return data
    return CrownfallConfig.from_json(data, where)


def new_state(cfg: CrownfallConfig) -> CrownfallState:
    return CrownfallState(cfg)


def recognise(record: Any) -> bool:
    return isinstance(record, dict) and record.get("format") == RECORD_FORMAT


def selfplay(games: int, seed: int, variant: str, options: dict, check: bool, workers):
    """`ftc selfplay --game crownfall`: random games of the default two-player set-up with every
    invariant checked (engine/crownfall/selfplay.py; 3 and 4 players through run_crownfall_selfplay)."""
    if options:
        raise ValueError(f"{next(iter(options))}: not an option of Crownfall")
    return lambda progress, cluster: run_crownfall_selfplay(games, seed, {}, check=check, progress=progress,
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
))
