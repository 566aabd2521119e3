"""A King's Ransom game's options: ``seed`` (an integer 0..2**63-1; drawn at random when absent) and
``chance`` ("auto": the game's seeded generator deals and draws; "explicit": every deal and draw is
a chance node the caller answers). JSON configurations may also say ``"variant": "kings-ransom"``
(how a King's Ransom game was chosen before the game registry).

>>> RansomConfig.from_json({"seed": 3, "chance": "explicit"})
RansomConfig(seed=3, chance='explicit')
>>> RansomConfig.from_json({"seed": 3, "supply": []})
Traceback (most recent call last):
...
engine.ransom.config.RansomConfigError: config.supply: kings-ransom has no option 'supply' (its options: variant, seed, chance)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.quiet import at, shown

__all__ = ["RansomConfig", "RansomConfigError", "OPTIONS", "CHANCE_MODES", "MAX_SEED"]

GAME_NAME = "kings-ransom"
OPTIONS = ("variant", "seed", "chance")
CHANCE_MODES = ("auto", "explicit")
MAX_SEED = 2**63 - 1


class RansomConfigError(ValueError):
    """A configuration that cannot be played; ``option`` names the option (None: the whole), and the
    message starts with where it is (``config.seed: ...``)."""

    def __init__(self, message: str, option: str | None = None):
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class RansomConfig:
    seed: int | None = None
    chance: str = "auto"

    @classmethod
    def from_json(cls, data: Any, where: str = "config") -> RansomConfig:
        """A RansomConfig from JSON-decoded ``data`` (an object of options); RansomConfigError names
        ``where.option`` and what is wrong."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise RansomConfigError(f"{where}: expected an object of game options, got {type(data).__name__}")
        for key in data:
            if key not in OPTIONS:
                raise RansomConfigError(f"{at(where, key)}: {GAME_NAME} has no option {shown(key)} (its options: "
                                        f"{', '.join(OPTIONS)})", str(key))
        if "variant" in data and data["variant"] != GAME_NAME:
            raise RansomConfigError(f"{where}.variant: expected {GAME_NAME!r}, got {shown(data['variant'])}", "variant")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED):
            raise RansomConfigError(f"{where}.seed: expected an integer 0..{MAX_SEED}, got {shown(seed)}", "seed")
        chance = data.get("chance", "auto")
        if chance not in CHANCE_MODES:
            raise RansomConfigError(f"{where}.chance: expected \"auto\" or \"explicit\", got {shown(chance)}", "chance")
        return cls(seed, chance)
