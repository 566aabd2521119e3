"""The games this engine plays, by variant name: For the Crown (its variants, engine/game/) and King's
Ransom (engine/ransom/). Matches, the protocol and the server ask here for a new state and a bot of
a variant, so that no other code tells the games apart.

>>> new_state({"variant": "kings-ransom", "seed": 1}).variant_name
'kings-ransom'
>>> type(bot_for("kings-ransom", "greedy", 0)).__name__
'RansomGreedyBot'
"""

from __future__ import annotations

from engine.game.config import VARIANTS, GameConfig
from engine.game.state import GameState
from engine.ransom.state import VARIANT as RANSOM
from engine.ransom.state import RansomState
from engine.search.bots import BOT_NAMES, make_bot
from engine.search.ransom import RANSOM_BOT_NAMES, make_ransom_bot

__all__ = ["ALL_VARIANTS", "RANSOM", "new_state", "bot_for", "bot_names", "is_ransom"]

#: Every variant name: For the Crown's (engine.game.config.VARIANTS) and King's Ransom.
ALL_VARIANTS = VARIANTS + (RANSOM,)


def is_ransom(variant: str | None) -> bool:
    return variant == RANSOM


def new_state(config: dict | GameConfig | None = None):
    """A new game from a configuration dict: ``variant`` and ``seed`` for King's Ransom (any other
    key is refused), every GameConfig field for For the Crown (or a GameConfig)."""
    if isinstance(config, GameConfig):
        return GameState(config)
    config = dict(config or {})
    if is_ransom(config.get("variant")):
        extra = sorted(set(config) - {"variant", "seed"})
        if extra:
            raise ValueError(f"King's Ransom has no option {', '.join(extra)} (only a seed)")
        return RansomState(config.get("seed"))
    return GameState(GameConfig(**config))


def bot_for(variant: str | None, spec: str, seed: int = 0):
    """A bot of ``variant`` from a spec (engine.search.bots.make_bot, engine.search.ransom.make_ransom_bot)."""
    return make_ransom_bot(spec, seed) if is_ransom(variant) else make_bot(spec, seed)


def bot_names(variant: str | None) -> tuple[str, ...]:
    return RANSOM_BOT_NAMES if is_ransom(variant) else BOT_NAMES
