"""Game configurations: the variants and optional rules of RULINGS F are settings of one engine.

Every option is a field of GameConfig, and GameConfig owns its schema: the table below is checked
by ``GameConfig.__post_init__`` (so a config built in Python is checked too) and is the one
validation the protocol, the records, the server and the CLI use, through ``GameConfig.from_json``.

====================  =========================================  ========================  ==============
option                JSON type and range                        default                   meaning
====================  =========================================  ========================  ==============
variant               string: "standard", "point-buy",           "standard"                RULINGS F
                      "last-stand"
seed                  integer 0..2**63-1                         0                         every random choice
supply                "random", "first-game", or an array of     "random"                  variable piles
                      at most 40 distinct variable card names
variable_piles        integer 0..40                              10                        random Supply size
expansion             boolean                                    true                      The World is Round
starters              [Blue, Yellow] each one of STARTERS        ["standard", "standard"]  Starting Decks
sovereigns            [Blue, Yellow] each one of SOVEREIGNS      ["K", "K"]                starting Sovereigns
extra_turns           [Blue, Yellow] integers 0..10              [0, 0]                    11.4 head start (C21)
extra_units           [Blue, Yellow] arrays of at most 32        [[], []]                  11.4 handicap
                      strings "TOKEN" or "TOKEN@square"
budgets               [Blue, Yellow] integers 1..200             [38, 38]                  Point-Buy budgets
start_position        null, position text (at most 4096          null                      Point-Buy start
                      characters) or a name of NAMED_POSITIONS
secret_picks          boolean                                    false                     Point-Buy screen
defender_gold         integer 0..200                             40                        11.5 training gold
no_progress_turns     integer 1..100000                          100                       C3 draw rule
max_turns             integer 1..100000                          500                       C3 turn limit
====================  =========================================  ========================  ==============

"Integer" means a true integer: booleans and floats are refused, even ``1.0``, and so are NaN and
the infinities. A "[Blue, Yellow]" pair is a JSON array of two (a list or a tuple in Python; kept as
a tuple). Unit tokens are checked against the default unit catalog (engine/data/units.toml), card
names against the default card catalog (engine/data/cards.toml); position text must parse
(RULINGS A3), and a name such as "startpos" is replaced by its text. What only the set-up can tell
(a Stock too small for the extra units, a square already taken) is a ConfigError from GameState.

Errors are ConfigError (a ValueError) naming the option and the place in it, with the offending
value described briefly and ASCII-safely, never echoed whole::

    option 'extra_turns'[0]: expected an integer 0..10, got a number 1.5
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from engine import NAMED_POSITIONS
from engine.catalog import Catalog, UnitType, default_catalog
from engine.crown.cards import default_cards  # imports only the unit catalog: no cycle
from engine.notation import parse_position, parse_square
from engine.quiet import is_quiet

__all__ = [
    "GameConfig", "ConfigError", "FIRST_GAME_SUPPLY", "VARIANTS", "STARTERS", "SOVEREIGNS", "describe",
    "parse_extra_unit", "supply_card_ids", "supply_option",
]

VARIANTS = ("standard", "point-buy", "last-stand")
#: Starting Decks (engine/crown/setup.py STARTING_DECKS).
STARTERS = ("standard", "squire", "parchment", "squire+parchment", "parchment+squire")
#: Tokens of the starting Sovereigns: King, Anointed, Khan (11.2).
SOVEREIGNS = ("K", "U", "~K")

MAX_SEED = 2**63 - 1
MAX_VARIABLE_PILES = 40
MAX_SUPPLY_CARDS = 40
MAX_EXTRA_TURNS = 10
MAX_EXTRA_UNITS = 32          # per player
MAX_BUDGET = 200
MAX_DEFENDER_GOLD = 200
MAX_TURNS = 100_000           # max_turns and no_progress_turns
MAX_POSITION_CHARS = 4096     # as engine.notation.parse_position

#: The rulebook's suggested first-game piles (3.0).
FIRST_GAME_SUPPLY = (
    "Armor", "Bureaucracy", "Evangelism", "Heir", "Legend", "Patronage", "Quartermaster", "Refiner",
    "Stables", "Versatility",
)

_PREVIEW = 40                 # characters of a value shown in a message
#: ``quiet_values()`` (engine/games/quiet.py, one switch for every game): within it ConfigError
#: messages name the option and the problem but never show the value (a server answering another
#: party's input: docs/server.md, "Hostile input is refused, never echoed"); outside, a short preview
#: helps a person at the command line.


class ConfigError(ValueError):
    """A game configuration that cannot be played; the message names the option.

    ``option`` is the option's name (None: the configuration as a whole), ``index`` the place inside
    it (``("extra_turns", 0)`` -> index ``(0,)``), ``detail`` the message without the option part.
    The message is always encodable (lone surrogates are escaped)."""

    def __init__(self, message: str, option: str | None = None, index: tuple[int, ...] = (),
                 detail: str | None = None):
        message = _encodable(message)
        super().__init__(message)
        self.option = option
        self.index = tuple(index)
        self.detail = _encodable(detail) if detail is not None else message

    @classmethod
    def at(cls, path: tuple, detail: str) -> ConfigError:
        """The error for one place of an option, ``path`` = (option, index, ...):
        ``ConfigError.at(("extra_turns", 0), "...")`` reads "option 'extra_turns'[0]: ..."."""
        option, index = path[0], tuple(path[1:])
        where = f"option {ascii(option)}" + "".join(f"[{i}]" for i in index)
        return cls(f"{where}: {detail}", option, index, detail)

    @property
    def path(self) -> str | None:
        """The option and the place in it, e.g. ``extra_turns[0]`` (None: no single option)."""
        if self.option is None:
            return None
        return self.option + "".join(f"[{i}]" for i in self.index)


def _encodable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


_error = ConfigError.at


# -- describing values without echoing them -----------------------------------------------------------
def _clip(text: str, limit: int = _PREVIEW) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _quote(text: str) -> str:
    """A short, ASCII-only quotation of a string (a name from the input)."""
    if is_quiet():
        return f"(a name of {len(text)} characters)"
    if len(text) > _PREVIEW:
        return f"(a string of {len(text)} characters)"
    return ascii(text)


def _preview(value: Any, depth: int = 0) -> str:
    """A bounded JSON-like text of a value (at most a few items of a few levels are looked at)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() > 100:
            return f"{'-' if value < 0 else ''}<{value.bit_length()}-bit integer>"
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        return _json_string(value[:_PREVIEW])
    if isinstance(value, (list, tuple)):
        if depth >= 2:
            return "[...]" if value else "[]"
        items = [_preview(x, depth + 1) for x in value[:4]]
        return "[" + ",".join(items) + (",..." if len(value) > 4 else "") + "]"
    if isinstance(value, dict):
        if depth >= 2:
            return "{...}" if value else "{}"
        items = [f"{_json_string(k[:_PREVIEW]) if isinstance(k, str) else '?'}:{_preview(v, depth + 1)}"
                 for k, v in list(value.items())[:3]]
        return "{" + ",".join(items) + (",..." if len(value) > 3 else "") + "}"
    return f"<{type(value).__name__}>"


def _json_string(text: str) -> str:
    """A JSON string literal, ASCII-only (lone surrogates and non-ASCII characters escaped)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ascii(ch)[1:-1])
    return '"' + "".join(out) + '"'


def describe(value: Any) -> str:
    """A short, ASCII-only description of a (JSON) value for messages: its kind and an abridged text,
    e.g. 'a number 1.5', 'a string of 5000 characters', 'an array of 7 items [1,2,3,4,...]'."""
    if value is None:
        return "null"
    if is_quiet():
        size = f" of {len(value)}" if isinstance(value, (str, list, tuple, dict)) else ""
        kinds = ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"),
                 ((list, tuple), "an array"), (dict, "an object"))
        return next((f"{name}{size}" for kind, name in kinds if isinstance(value, kind)), f"a {type(value).__name__}")
    if isinstance(value, bool):
        return f"a boolean {_preview(value)}"
    if isinstance(value, int):
        return f"an integer {_preview(value)}"
    if isinstance(value, float):
        return f"a number {_preview(value)}"
    if isinstance(value, str):
        if len(value) > _PREVIEW:
            return f"a string of {len(value)} characters"
        return f"a string {_clip(_json_string(value), 2 * _PREVIEW)}"
    if isinstance(value, (list, tuple)):
        head = f"an array of {len(value)} items " if len(value) > 4 else "an array "
        return head + _clip(_preview(value))
    if isinstance(value, dict):
        head = f"an object of {len(value)} members " if len(value) > 3 else "an object "
        return head + _clip(_preview(value))
    return f"a {type(value).__name__}"


# -- the checks, one per kind of option ----------------------------------------------------------------
def _is_int(value: Any) -> bool:
    """Only true integers: not bool, not float (not even 1.0)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _int(path: tuple, value: Any, low: int, high: int, span: str | None = None) -> int:
    if not _is_int(value) or not low <= value <= high:
        raise _error(path, f"expected an integer {span or f'{low}..{high}'}, got {describe(value)}")
    return value


def _bool(path: tuple, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _error(path, f"expected true or false, got {describe(value)}")
    return value


def _choice(path: tuple, value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise _error(path, f"expected one of {', '.join(choices)}, got {describe(value)}")
    return value


def _array(path: tuple, value: Any, what: str, low: int, high: int) -> tuple:
    if not isinstance(value, (list, tuple)) or not low <= len(value) <= high:
        raise _error(path, f"expected {what}, got {describe(value)}")
    return tuple(value)


def _pair(path: tuple, value: Any, what: str, check) -> tuple:
    """[Blue, Yellow]: a list or tuple of two, each item checked by ``check(path + (i,), item)``."""
    items = _array(path, value, f"an array of two {what} [Blue, Yellow]", 2, 2)
    return tuple(check(path + (i,), item) for i, item in enumerate(items))


def _string(path: tuple, value: Any, what: str, limit: int) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= limit:
        raise _error(path, f"expected {what}, got {describe(value)}")
    return value


def parse_extra_unit(item: str, catalog: Catalog, path: tuple = ("extra_units",)) -> tuple[UnitType, int | None]:
    """An 11.4 handicap unit, "TOKEN" (to the Barracks) or "TOKEN@square" (on the board), as
    (unit type, square or None); ConfigError at ``path`` if the text is not one of the catalog."""
    token, at, where = item.partition("@")
    unit = catalog.by_token.get(token)
    if unit is None:
        raise _error(path, f"unknown unit token {_quote(token)} (expected \"TOKEN\" or \"TOKEN@square\", e.g. \"N@b1\")")
    if not at:
        return unit, None
    try:
        return unit, parse_square(where)
    except ValueError:
        raise _error(path, f"{_quote(where)} is not a square a1..h8 (expected \"TOKEN@square\", e.g. \"N@b1\")") from None


def supply_card_ids(names, cards) -> list[int]:
    """The card ids of an explicit list of variable Supply piles; ConfigError (option 'supply')
    for an unknown card, a card that is not a variable pile, or one listed twice."""
    chosen = []
    for i, name in enumerate(names):
        card = cards.by_name.get(name)
        if card is None:
            variable = ", ".join(c.name for c in cards.cards if c.role == "variable")
            raise _error(("supply", i), f"unknown card {_quote(name)} (the Supply's cards: {variable})")
        if card.role != "variable":
            raise _error(("supply", i), f"{name} is not a variable Supply card (core cards are always in)")
        if card.id in chosen:
            raise _error(("supply", i), f"{name} is listed twice")
        chosen.append(card.id)
    return chosen


def _supply(path: tuple, value: Any):
    if isinstance(value, str):
        return _choice(path, value, ("random", "first-game"))
    what = f'"random", "first-game" or an array of at most {MAX_SUPPLY_CARDS} card names'
    names = _array(path, value, what, 0, MAX_SUPPLY_CARDS)
    for i, name in enumerate(names):
        _string(path + (i,), name, "a card name", _PREVIEW)
    supply_card_ids(names, default_cards())
    return names


def _extra_units(path: tuple, value: Any) -> tuple:
    def side(side_path: tuple, items: Any) -> tuple:
        items = _array(side_path, items, f'an array of at most {MAX_EXTRA_UNITS} strings "TOKEN" or "TOKEN@square"',
                       0, MAX_EXTRA_UNITS)
        for i, item in enumerate(items):
            _string(side_path + (i,), item, 'a string "TOKEN" or "TOKEN@square"', 8)
            parse_extra_unit(item, default_catalog(), side_path + (i,))
        return items

    return _pair(path, value, "arrays of units", side)


def _start_position(path: tuple, value: Any) -> str | None:
    if value is None:
        return None
    text = _string(path, value, f"position text of at most {MAX_POSITION_CHARS} characters, a name "
                   f"({', '.join(NAMED_POSITIONS)}) or null", MAX_POSITION_CHARS)
    text = NAMED_POSITIONS.get(text.strip(), text)
    try:
        parse_position(text, default_catalog())
    except ValueError as exc:
        raise _error(path, _clip(str(exc), 120)) from None
    return text


#: option -> its check: (path, value) -> the value to keep (tuples for arrays), or ConfigError.
_CHECKS = {
    "variant": lambda p, v: _choice(p, v, VARIANTS),
    "seed": lambda p, v: _int(p, v, 0, MAX_SEED, "0..2**63-1"),
    "supply": _supply,
    "variable_piles": lambda p, v: _int(p, v, 0, MAX_VARIABLE_PILES),
    "expansion": _bool,
    "starters": lambda p, v: _pair(p, v, "Starting Decks", lambda q, x: _choice(q, x, STARTERS)),
    "sovereigns": lambda p, v: _pair(p, v, "Sovereign tokens", lambda q, x: _choice(q, x, SOVEREIGNS)),
    "extra_turns": lambda p, v: _pair(p, v, "integers", lambda q, x: _int(q, x, 0, MAX_EXTRA_TURNS)),
    "extra_units": _extra_units,
    "budgets": lambda p, v: _pair(p, v, "integers", lambda q, x: _int(q, x, 1, MAX_BUDGET)),
    "start_position": _start_position,
    "secret_picks": _bool,
    "defender_gold": lambda p, v: _int(p, v, 0, MAX_DEFENDER_GOLD),
    "no_progress_turns": lambda p, v: _int(p, v, 1, MAX_TURNS),
    "max_turns": lambda p, v: _int(p, v, 1, MAX_TURNS),
}


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
    #: Handicap (11.4): extra turns per player, a head start taken before the normal alternation
    #: begins (RULINGS C21: Yellow with one plays Yellow, Blue, Yellow, ...; phases.start_play).
    extra_turns: tuple[int, int] = (0, 0)
    #: Handicap (11.4): extra units per player, each "N@b1" (on the board) or "N" (in the Barracks).
    extra_units: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    #: Point-Buy Chess: budgets (38 buys the orthodox army), or a fixed start position text that
    #: skips the picking (e.g. the chess start position; a name such as "startpos" becomes its text).
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
        # The one validation (see the module docstring); arrays are kept as tuples.
        for name, check in _CHECKS.items():
            object.__setattr__(self, name, check((name,), getattr(self, name)))

    def to_dict(self) -> dict:
        """The options as JSON values (from_json(to_dict()) == self)."""
        data = asdict(self)
        data["supply"] = self.supply if isinstance(self.supply, str) else list(self.supply)
        for key in ("starters", "sovereigns", "extra_turns", "budgets"):
            data[key] = list(data[key])
        data["extra_units"] = [list(x) for x in self.extra_units]
        return data

    @classmethod
    def from_json(cls, data: Any, where: str = "config") -> GameConfig:
        """A GameConfig from untrusted JSON-decoded data (an object of options; omitted options take
        their defaults). Raises ConfigError, and nothing else, for anything else: ``where`` names the
        whole object in the message when it is not an object; every other message names the option."""
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected an object of game options, got {describe(data)}",
                              detail=f"expected an object of game options, got {describe(data)}")
        known = [f.name for f in fields(cls)]
        for key in data:
            if key not in known:
                name = _quote(key) if isinstance(key, str) else describe(key)
                detail = f"unknown option {name}; known: {', '.join(sorted(known))}"
                plain = isinstance(key, str) and key.isascii() and key.isprintable() and len(key) <= _PREVIEW
                raise ConfigError(detail, key if plain else None, (), detail)
        return cls(**data)

    @classmethod
    def from_dict(cls, data: Any) -> GameConfig:
        """The same as from_json (records and the CLI use this name)."""
        return cls.from_json(data, "game configuration")


assert list(_CHECKS) == [f.name for f in fields(GameConfig)], "every option has its check"


def supply_option(text: str, variant: str, seed: int):
    """A command's ``--supply`` text as a configuration's supply ("random", "first-game", or a tuple of
    card names from the comma-separated list), checked against the card catalog and ``variant`` now;
    a ValueError names the option and what is wrong."""
    supply = text if text in ("random", "first-game") else tuple(n.strip() for n in text.split(",") if n.strip())
    try:
        GameConfig(variant=variant, seed=seed, supply=supply)
    except ConfigError as exc:
        raise ValueError(f"--supply {text!r}: {exc.detail}") from None
    return supply
