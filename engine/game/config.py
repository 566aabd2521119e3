"""Game configurations: the variants and optional rules of RULINGS F are settings of one engine.

Every option, with its type and default, is a field of GameConfig. ``GameConfig.from_dict`` (used by
records and the CLI) rejects unknown keys and bad values with a message naming the option.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

__all__ = ["GameConfig", "ConfigError", "FIRST_GAME_SUPPLY", "VARIANTS"]

VARIANTS = ("standard", "point-buy", "last-stand")

#: The rulebook's suggested first-game piles (3.0).
FIRST_GAME_SUPPLY = (
    "Armor", "Bureaucracy", "Evangelism", "Heir", "Legend", "Patronage", "Quartermaster", "Refiner",
    "Stables", "Versatility",
)


class ConfigError(ValueError):
    """A game configuration that cannot be played; the message names the option."""


@dataclass(frozen=True)
class GameConfig:
    #: "standard" (the card game), "point-buy" (Point-Buy Chess) or "last-stand" (11.5).
    variant: str = "standard"
    #: Seed of every random choice (supply draw, shuffles and draws in auto-chance mode).
    seed: int = 0
    #: The variable Supply piles: "random", "first-game" (3.0 suggestion) or a tuple of card names.
    supply: str | tuple[str, ...] = "random"
    #: How many variable piles a random Supply has (10; more is the Enlarged Supply, 11.3).
    variable_piles: int = 10
    #: Whether a random Supply may draw cards of The World is Round.
    expansion: bool = True
    #: Starting Deck: "standard" (6 Peon + 4 Guard), "squire" (a Squire replaces one Guard, 11.1),
    #: "parchment" (a Parchment replaces one Peon, The World is Round 1.0), or both joined by "+"
    #: ("squire+parchment", RULINGS C18: optional rules combine). Per player: (blue, yellow).
    starters: tuple[str, str] = ("standard", "standard")
    #: The starting Sovereign's token: "K" King, "U" Anointed, "~K" Khan (11.2). Per player.
    sovereigns: tuple[str, str] = ("K", "K")
    #: Handicap (11.4): extra turns taken at the start, per player (Blue's first, then Yellow's).
    extra_turns: tuple[int, int] = (0, 0)
    #: Handicap (11.4): extra units per player, each "N@b1" (on the board) or "N" (in the Barracks).
    extra_units: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    #: Point-Buy Chess: budgets (38 buys the orthodox army), or a fixed start position text that
    #: skips the picking (e.g. the chess start position).
    budgets: tuple[int, int] = (38, 38)
    start_position: str | None = None
    #: Point-Buy Chess behind a screen: the Stock is divided as evenly as possible, Blue picks its
    #: whole army, then Yellow, and neither sees the other's picks until both are done.
    secret_picks: bool = False
    #: The Last Stand: the Defender's training gold (11.5).
    defender_gold: int = 40
    #: C3 draw rules: turns without capture/deploy/training, and the turn limit of automated play.
    no_progress_turns: int = 100
    max_turns: int = 500

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise ConfigError(f"option 'variant': expected one of {', '.join(VARIANTS)}, got {self.variant!r}")
        if isinstance(self.supply, list):
            object.__setattr__(self, "supply", tuple(self.supply))
        if isinstance(self.supply, str) and self.supply not in ("random", "first-game"):
            raise ConfigError(f"option 'supply': expected 'random', 'first-game' or a list of card names, got {self.supply!r}")
        for name in ("starters", "sovereigns", "extra_turns", "budgets"):
            value = getattr(self, name)
            if not isinstance(value, (tuple, list)) or len(value) != 2:
                raise ConfigError(f"option {name!r}: expected a pair (Blue, Yellow), got {value!r}")
            object.__setattr__(self, name, tuple(value))
        for starter in self.starters:
            parts = starter.split("+") if isinstance(starter, str) else [None]
            if starter != "standard" and (len(set(parts)) != len(parts) or not set(parts) <= {"squire", "parchment"}):
                raise ConfigError(f"option 'starters': unknown starter deck {starter!r} "
                                  "(standard, squire, parchment or squire+parchment)")
        for token in self.sovereigns:
            if token not in ("K", "U", "~K"):
                raise ConfigError(f"option 'sovereigns': {token!r} is not a starting Sovereign (K, U, ~K)")
        if not isinstance(self.extra_units, (tuple, list)) or len(self.extra_units) != 2:
            raise ConfigError("option 'extra_units': expected a pair of lists")
        object.__setattr__(self, "extra_units", (tuple(self.extra_units[0]), tuple(self.extra_units[1])))
        if not 0 <= self.variable_piles <= 40:
            raise ConfigError("option 'variable_piles': expected 0..40")
        if min(self.extra_turns) < 0 or max(self.extra_turns) > 10:
            raise ConfigError("option 'extra_turns': expected 0..10 per player")
        if min(self.budgets) < 1 or max(self.budgets) > 200:
            raise ConfigError("option 'budgets': expected 1..200 per player")
        if not 0 <= self.defender_gold <= 200:
            raise ConfigError("option 'defender_gold': expected 0..200")
        if self.max_turns < 1 or self.no_progress_turns < 1:
            raise ConfigError("options 'max_turns' and 'no_progress_turns' must be >= 1")

    def to_dict(self) -> dict:
        data = asdict(self)
        data["supply"] = self.supply if isinstance(self.supply, str) else list(self.supply)
        for key in ("starters", "sovereigns", "extra_turns", "budgets"):
            data[key] = list(data[key])
        data["extra_units"] = [list(x) for x in self.extra_units]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "GameConfig":
        if not isinstance(data, dict):
            raise ConfigError("game configuration must be an object")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ConfigError(f"unknown option {key!r}; known: {', '.join(sorted(known))}")
        try:
            return cls(**data)
        except TypeError as exc:
            raise ConfigError(f"bad game configuration: {exc}") from None
