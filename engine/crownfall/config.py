"""A Crownfall game's options, validated with located errors (``config.homes[1]: ...``):

- ``players``: 2, 3 or 4 (default 2);
- ``houses`` / ``homes``: each seat's House and home (an outer region), all different (5.0); default
  the automated set-up of that many players (RULINGS I2, engine/data/crownfall.toml [defaults]);
- ``advanced_omens`` / ``advanced_objectives``: the advanced pools (X.C, X.D; RULINGS I19) added to the
  decks: false (default), true (the whole pool) or a list of card keys;
- ``rounds``: the round limit (RULINGS I8; default the data's 6); ``rotate``: the first seat moves one
  on each round (RULINGS I16 leaves it a configuration; default false);
- ``seed``: the chance generator's seed (an integer 0..2**63-1; None: drawn at random);
- ``chance``: "auto" (the state draws Omens and Objectives itself) or "explicit" (every draw is a
  chance node the caller answers).

>>> CrownfallConfig.from_json({"players": 3}).homes
('thorn-coast', 'highmoor', 'greywater')
>>> CrownfallConfig.from_json({"players": 2, "homes": ["thorn-coast", "keep"]})
Traceback (most recent call last):
...
engine.crownfall.config.CrownfallConfigError: config.homes[1]: 'keep' is not an outer region (outer: highmoor, frostmark, greywater, eastford, saltmere, thorn-coast, westwatch, briarwood)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.crownfall.rules import CrownfallRules, default_rules
from engine.quiet import at, shown

__all__ = ["CrownfallConfig", "CrownfallConfigError", "GAME_NAME", "OPTIONS", "MAX_SEED"]

GAME_NAME = "crownfall"
OPTIONS = ("variant", "players", "houses", "homes", "advanced_omens", "advanced_objectives", "rounds", "rotate",
           "seed", "chance")
MAX_SEED = 2**63 - 1


class CrownfallConfigError(ValueError):
    """A configuration that cannot be played; the message starts with where (``config.players: ...``)."""


@dataclass(frozen=True)
class CrownfallConfig:
    players: int = 2
    houses: tuple[str, ...] = ("tidebound", "emberglass")
    homes: tuple[str, ...] = ("thorn-coast", "frostmark")
    advanced_omens: tuple[str, ...] = ()
    advanced_objectives: tuple[str, ...] = ()
    rounds: int = 6
    rotate: bool = False
    seed: int | None = None
    chance: str = "auto"

    def to_json(self) -> dict:
        return {"players": self.players, "houses": list(self.houses), "homes": list(self.homes),
                "advanced_omens": list(self.advanced_omens), "advanced_objectives": list(self.advanced_objectives),
                "rounds": self.rounds, "rotate": self.rotate, "seed": self.seed, "chance": self.chance}

    @classmethod
    def from_json(cls, data: Any, where: str = "config", rules: CrownfallRules | None = None) -> CrownfallConfig:
        rules = rules or default_rules()
        game_map = rules.map
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise CrownfallConfigError(f"{where}: expected an object of game options, got {type(data).__name__}")
        for key in data:
            if key not in OPTIONS:
                raise CrownfallConfigError(f"{at(where, key)}: {GAME_NAME} has no option {shown(key)} (its options: "
                                           f"{', '.join(OPTIONS)})")
        if data.get("variant", GAME_NAME) != GAME_NAME:
            raise CrownfallConfigError(f"{where}.variant: expected {GAME_NAME!r}, got {shown(data['variant'])}")
        players = data.get("players", 2)
        if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
            raise CrownfallConfigError(f"{where}.players: expected 2, 3 or 4, got {shown(players)}")
        default = rules.defaults[players]
        houses = _seats(data, "houses", [h for h, _ in default], players, where, [h.key for h in rules.houses], "House")
        outer = [game_map.key(r) for r in range(len(game_map)) if game_map.outer[r]]
        homes = data.get("homes", [h for _, h in default])
        if not isinstance(homes, list | tuple) or len(homes) != players:
            raise CrownfallConfigError(f"{where}.homes: expected a list of {players} outer regions, one per seat")
        for i, home in enumerate(homes):
            if home not in outer:
                raise CrownfallConfigError(f"{where}.homes[{i}]: {shown(home)} is not an outer region (outer: "
                                           f"{', '.join(outer)})")
            if home in homes[:i]:
                raise CrownfallConfigError(f"{where}.homes[{i}]: {shown(home)} is already seat "
                                           f"{homes.index(home)}'s home")
        omens = _pool(data, "advanced_omens", [c.key for c in rules.omens if c.advanced], where)
        objectives = _pool(data, "advanced_objectives", [c.key for c in rules.objectives if c.advanced], where)
        rounds = data.get("rounds", rules.rounds)
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 100:
            raise CrownfallConfigError(f"{where}.rounds: expected an integer 1..100, got {shown(rounds)}")
        rotate = data.get("rotate", False)
        if not isinstance(rotate, bool):
            raise CrownfallConfigError(f"{where}.rotate: expected true or false, got {shown(rotate)}")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED):
            raise CrownfallConfigError(f"{where}.seed: expected an integer 0..{MAX_SEED}, got {shown(seed)}")
        if seed is None:
            seed = random.SystemRandom().randrange(MAX_SEED)
        chance = data.get("chance", "auto")
        if chance not in ("auto", "explicit"):
            raise CrownfallConfigError(f"{where}.chance: expected \"auto\" or \"explicit\", got {shown(chance)}")
        return cls(players, tuple(houses), tuple(homes), omens, objectives, rounds, rotate, seed, chance)


def _seats(data, name, default, players, where, known, what) -> list:
    value = data.get(name, default)
    if not isinstance(value, list | tuple) or len(value) != players:
        raise CrownfallConfigError(f"{where}.{name}: expected a list of {players} {what}s, one per seat")
    for i, item in enumerate(value):
        if item not in known:
            raise CrownfallConfigError(f"{where}.{name}[{i}]: unknown {what} {shown(item)} (known: {', '.join(known)})")
        if item in value[:i]:
            raise CrownfallConfigError(f"{where}.{name}[{i}]: {shown(item)} is already seat "
                                       f"{list(value).index(item)}'s")
    return list(value)


def _pool(data, name, known, where) -> tuple[str, ...]:
    value = data.get(name, False)
    if value is False:
        return ()
    if value is True:
        return tuple(known)
    if not isinstance(value, list | tuple):
        raise CrownfallConfigError(f"{where}.{name}: expected true, false or a list of card keys")
    for i, item in enumerate(value):
        if item not in known:
            raise CrownfallConfigError(f"{where}.{name}[{i}]: unknown card {shown(item)} (known: {', '.join(known)})")
        if item in value[:i]:
            raise CrownfallConfigError(f"{where}.{name}[{i}]: {shown(item)} is listed twice")
    return tuple(value)
