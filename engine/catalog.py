"""Unit catalog: loads engine/data/units.toml (or a user's file), validates it, and builds the kernel
tables. A malformed entry raises CatalogError naming the unit and the field.

Values marked PROVISIONAL in the data file are our own choices (RULINGS E); they live only in data.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from engine._tables import RuleTables
from engine.movespec import CompiledMoves, SpecError, compile_spec

__all__ = ["CLASSES", "BoardShape", "CatalogError", "CatalogRules", "UnitType", "Catalog", "default_catalog",
           "ransom_catalog", "crusade_catalog", "square_name", "parse_square"]

CLASSES = ("Foot", "Heavy", "Mounted", "Pious", "Regal", "Sovereign")
_FIELDS = {
    "token": str, "name": str, "classes": list, "price": int, "stock": int, "moves": str,
    "cylindrical": bool, "captured_to": str, "captured_by": str, "wins_on_x": bool, "expansion": bool,
    "provisional": list,
}
#: Where a captured unit goes: the shared Stock (6.0), its owner's Barracks (the Immortal, 12.0; a
#: fallen piece of Crusade & Conquer, RULINGS H5), or out of the game (a Crusade Pawn, H5).
CAPTURED_TO = ("stock", "barracks", "gone")
#: Who may capture a unit: any enemy unit able to, or only a Sovereign (the Flag Bearer, RULINGS H6).
CAPTURED_BY = ("any", "sovereign")
_REQUIRED = ("token", "name", "price", "stock", "moves")
#: The optional top-level ``[board]`` table: its size fields -> (smallest, largest) value; besides
#: them ``heights`` (one string of digits 0-2 per rank, the last rank first) and ``x`` (the two X
#: squares, Blue's first), the level data of Crusade & Conquer (RULINGS H1, H3).
_BOARD_FIELDS = {"files": (1, 8), "ranks": (2, 8)}
_BOARD_EXTRA = ("heights", "x")
#: The optional top-level ``[rules]`` table: the kernel's rule switches, field -> allowed values
#: (the first is the default). See CatalogRules.
_RULES_FIELDS = {
    "promotion": ("stock", "fallen"),
    "deploys": (True, False),
    "legality": ("sovereign-capture", "chess"),
    "foot_resets_clock": (False, True),
}
FILES = "abcdefgh"


def square_name(square: int) -> str:
    """a1 .. h8 of a square of the 8-wide numbering (a1 = 0, b1 = 1, a2 = 8)."""
    return f"{FILES[square & 7]}{(square >> 3) + 1}"


def parse_square(text: object) -> int | None:
    """The square named ``text`` (a1 .. h8), or None when it names none."""
    if not isinstance(text, str) or len(text) != 2 or text[0] not in FILES or text[1] not in "12345678":
        return None
    return (int(text[1]) - 1) * 8 + FILES.index(text[0])


def toml_tables(text: str, source: str, key: str, error: type[Exception]) -> tuple[dict, list[dict]]:
    """Parse a TOML data file whose entries are ``[[key]]`` tables: (the whole document, the
    tables). ``error`` (the caller's error class) names ``source`` when the text is not TOML or
    has no such table. One reader for units.toml, cards.toml and the puzzle suite."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{source}: not valid TOML: {exc}") from None
    entries = data.get(key)
    if not isinstance(entries, list) or not entries:
        raise error(f"{source}: expected one or more [[{key}]] tables")
    return data, entries


def read_toml_file(path, what: str, error: type[Exception]) -> dict:
    """The TOML document in the file ``path``; ``error`` (the caller's error class) names the file and
    ``what`` it holds when it cannot be read or is not TOML. One reader for the search's data files
    (state_eval.toml, survival.toml)."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise error(f"{path}: not valid TOML ({exc})") from None


class CatalogError(ValueError):
    """A catalog file that cannot be used; the message names the file, unit and field."""


@dataclass(frozen=True)
class BoardShape:
    """The board a catalog is played on: ``files`` x ``ranks`` squares in the corner of the 8x8
    numbering (square = rank * 8 + file; a1 = 0). For the Crown is 8x8; King's Ransom 3x6."""

    files: int = 8
    ranks: int = 8
    #: Each square's level, indexed by square (64 entries; 0 field, 1 lower floor, 2 upper floor:
    #: RULINGS H1), or () for a flat board: the kernel then applies no level rule (H3, H4).
    heights: tuple[int, ...] = ()
    #: The X squares (RULINGS H1): (Blue's, Yellow's), or () when the board has none.
    x: tuple[int, ...] = ()

    @property
    def squares(self) -> tuple[int, ...]:
        """The squares of the board, lowest first."""
        return tuple(r * 8 + f for r in range(self.ranks) for f in range(self.files))

    @property
    def mask(self) -> int:
        """The squares of the board as a bitboard."""
        return sum(1 << sq for sq in self.squares)


def _board_from_table(data: dict, source: str) -> BoardShape:
    """The ``[board]`` table of a catalog document (8x8 when it has none)."""
    if "board" not in data:
        return BoardShape()
    table = data["board"]
    where = f"{source}: table [board]"
    if not isinstance(table, dict):
        raise CatalogError(f"{where}: expected a table with fields {', '.join(_BOARD_FIELDS)}")
    known = (*_BOARD_FIELDS, *_BOARD_EXTRA)
    for key in table:
        if key not in known:
            raise CatalogError(f"{where}: unknown field {key!r}; known: {', '.join(known)}")
    values: dict = {}
    for key, (low, high) in _BOARD_FIELDS.items():
        value = table.get(key, 8)
        if not isinstance(value, int) or isinstance(value, bool):
            raise CatalogError(f"{where}: field {key!r} must be int, got {value!r}")
        if not low <= value <= high:
            raise CatalogError(f"{where}: field {key!r} must be {low}..{high}, got {value}")
        values[key] = value
    if "heights" in table:
        values["heights"] = parse_heights(table["heights"], values["files"], values["ranks"],
                                          f"{where}: field 'heights'")
    if "x" in table:
        values["x"] = parse_x_squares(table["x"], values["files"], values["ranks"], f"{where}: field 'x'")
    return BoardShape(**values)


def parse_heights(rows: object, files: int, ranks: int, where: str) -> tuple[int, ...]:
    """A board's levels from one string of digits 0-2 per rank, the last rank first (as a position
    text reads), files a.. left to right; the 64 heights by square. CatalogError names the rank,
    file and value that are wrong."""
    if not isinstance(rows, list) or not all(isinstance(row, str) for row in rows):
        raise CatalogError(f"{where}: expected a list of {ranks} strings of heights (rank {ranks} first), "
                           f"got {rows!r}")
    if len(rows) != ranks:
        raise CatalogError(f"{where}: expected {ranks} rows (ranks {ranks} to 1), got {len(rows)}")
    heights = [0] * 64
    for i, row in enumerate(rows):
        rank = ranks - i
        if len(row) != files:
            raise CatalogError(f"{where}: rank {rank}: expected {files} heights (files a-{FILES[files - 1]}), "
                               f"got {len(row)} in {row!r}")
        for f, ch in enumerate(row):
            if ch not in "012":
                raise CatalogError(f"{where}: {FILES[f]}{rank}: height must be 0, 1 or 2, got {ch!r}")
            heights[(rank - 1) * 8 + f] = int(ch)
    return tuple(heights)


def parse_x_squares(value: object, files: int, ranks: int, where: str) -> tuple[int, int]:
    """The two X squares [Blue's, Yellow's] (square names), on the board and different."""
    if not isinstance(value, list) or len(value) != 2:
        raise CatalogError(f"{where}: expected two square names [Blue's X, the other side's X], got {value!r}")
    squares = []
    for side, text in zip(("Blue's X", "the other side's X"), value):
        square = parse_square(text)
        if square is None or (square & 7) >= files or (square >> 3) >= ranks:
            raise CatalogError(f"{where}: {side}: {text!r} is not a square of the {files}x{ranks} board")
        squares.append(square)
    if squares[0] == squares[1]:
        raise CatalogError(f"{where}: both X squares are {value[0]}: they must differ")
    return squares[0], squares[1]


@dataclass(frozen=True)
class CatalogRules:
    """The kernel's rule switches of a catalog (its optional ``[rules]`` table); the defaults are
    For the Crown's.

    - ``promotion``: "stock": a Foot unit on its last rank becomes a type of ``promote_types``
      taken from the shared Stock (B18); "fallen": it may be exchanged for one of its owner's
      fallen pieces (its Barracks) or kept, and the exchanged unit leaves the game (RULINGS H5).
    - ``deploys``: Barracks units may be deployed (B19); false where the Barracks holds fallen pieces.
    - ``legality``: "sovereign-capture": orders are pseudo-legal and capturing a Sovereign ends the
      game (C8); "chess": no order may leave one's Sovereign capturable (RULINGS H8a).
    - ``foot_resets_clock``: a Foot unit's move resets the halfmove clock (RULINGS H8c), besides captures.
    """

    promotion: str = "stock"
    deploys: bool = True
    legality: str = "sovereign-capture"
    foot_resets_clock: bool = False


def _rules_from_table(data: dict, source: str) -> CatalogRules:
    if "rules" not in data:
        return CatalogRules()
    table = data["rules"]
    where = f"{source}: table [rules]"
    if not isinstance(table, dict):
        raise CatalogError(f"{where}: expected a table with fields {', '.join(_RULES_FIELDS)}")
    for key, value in table.items():
        if key not in _RULES_FIELDS:
            raise CatalogError(f"{where}: unknown field {key!r}; known: {', '.join(_RULES_FIELDS)}")
        allowed = _RULES_FIELDS[key]
        if type(value) is not type(allowed[0]) or value not in allowed:
            raise CatalogError(f"{where}: field {key!r} must be one of "
                               f"{', '.join(repr(v).lower() if isinstance(v, bool) else repr(v) for v in allowed)}, "
                               f"got {value!r}")
    return CatalogRules(**table)


@dataclass(frozen=True)
class UnitType:
    """One unit type of the catalog; ``id`` is its index in the kernel tables."""

    id: int
    token: str
    name: str
    classes: tuple[str, ...]
    price: int
    stock: int
    moves: str
    compiled: CompiledMoves
    cylindrical: bool = False
    captured_to: str = "stock"
    captured_by: str = "any"
    wins_on_x: bool = False
    expansion: bool = False
    provisional: tuple[str, ...] = ()

    @property
    def is_foot(self) -> bool:
        return "Foot" in self.classes

    @property
    def is_sovereign(self) -> bool:
        return "Sovereign" in self.classes

    def to_json(self) -> dict:
        return {
            "token": self.token, "name": self.name, "classes": list(self.classes), "price": self.price,
            "stock": self.stock, "moves": self.moves, "cylindrical": self.cylindrical,
            "captured_to": self.captured_to, "captured_by": self.captured_by, "wins_on_x": self.wins_on_x,
            "expansion": self.expansion,
            "provisional": list(self.provisional),
        }


def _check_token(token: str, where: str) -> None:
    body = token[1:] if token.startswith("~") else token
    if len(body) != 1 or not ("A" <= body <= "Z"):
        raise CatalogError(f"{where}: token {token!r} must be one uppercase letter, optionally after '~'")


def _unit_from_entry(index: int, entry: dict, where: str) -> UnitType:
    if not isinstance(entry, dict):
        raise CatalogError(f"{where}: expected a table of fields")
    label = entry.get("token") or entry.get("name") or f"#{index + 1}"
    where = f"{where} ({label})"
    for key in entry:
        if key not in _FIELDS:
            raise CatalogError(f"{where}: unknown field {key!r}; known: {', '.join(_FIELDS)}")
    for key in _REQUIRED:
        if key not in entry:
            raise CatalogError(f"{where}: missing field {key!r}")
    for key, kind in _FIELDS.items():
        if key in entry and not (isinstance(entry[key], kind) and not (kind is int and isinstance(entry[key], bool))):
            raise CatalogError(f"{where}: field {key!r} must be {kind.__name__}, got {entry[key]!r}")
    _check_token(entry["token"], where)
    classes = tuple(entry.get("classes", ()))
    for cls in classes:
        if cls not in CLASSES:
            raise CatalogError(f"{where}: field 'classes': unknown class {cls!r}; known: {', '.join(CLASSES)}")
    if entry["price"] < 0 or entry["stock"] < 0:
        raise CatalogError(f"{where}: price and stock must not be negative")
    captured_to = entry.get("captured_to", "stock")
    if captured_to not in CAPTURED_TO:
        raise CatalogError(f"{where}: field 'captured_to' must be one of {', '.join(map(repr, CAPTURED_TO))}, "
                           f"got {captured_to!r}")
    captured_by = entry.get("captured_by", "any")
    if captured_by not in CAPTURED_BY:
        raise CatalogError(f"{where}: field 'captured_by' must be one of {', '.join(map(repr, CAPTURED_BY))}, "
                           f"got {captured_by!r}")
    try:
        compiled = compile_spec(entry["moves"], entry["token"])
    except SpecError as exc:
        raise CatalogError(f"{where}: field 'moves': {exc}") from None
    return UnitType(
        id=index, token=entry["token"], name=entry["name"], classes=classes, price=entry["price"],
        stock=entry["stock"], moves=entry["moves"], compiled=compiled,
        cylindrical=entry.get("cylindrical", False), captured_to=captured_to, captured_by=captured_by,
        wins_on_x=entry.get("wins_on_x", False), expansion=entry.get("expansion", False), provisional=tuple(entry.get("provisional", ())),
    )


class Catalog:
    """An ordered set of unit types, with lookup by token and the compiled kernel tables."""

    def __init__(self, units: list[UnitType], source: str = "<memory>", board: BoardShape = BoardShape(),
                 rules: CatalogRules = CatalogRules()):
        self.units: tuple[UnitType, ...] = tuple(units)
        self.source = source
        self.board = board                      # the board's shape; the kernel tables are built for it
        self.rules = rules                      # the kernel's rule switches ([rules])
        self.order_texts: dict[int, str] = {}   # cache of engine.position.order_text
        self.by_token: dict[str, UnitType] = {}
        for unit in self.units:
            if unit.token in self.by_token:
                raise CatalogError(f"{source}: token {unit.token!r} is used twice")
            self.by_token[unit.token] = unit
        if not any(u.is_sovereign for u in self.units):
            raise CatalogError(f"{source}: no unit type has the Sovereign class")
        for unit in self.units:
            if unit.wins_on_x and not board.x:
                raise CatalogError(f"{source}: unit {unit.token}: field 'wins_on_x' needs the X squares "
                                   "(field 'x' of the [board] table)")
        self.tables = RuleTables(self)

    @classmethod
    def from_toml(cls, text: str, source: str = "<string>") -> Catalog:
        data, entries = toml_tables(text, source, "unit", CatalogError)
        board = _board_from_table(data, source)
        rules = _rules_from_table(data, source)
        units = [_unit_from_entry(i, e, f"{source}: unit #{i + 1}") for i, e in enumerate(entries)]
        return cls(units, source, board, rules)

    def with_board(self, board: BoardShape, source: str | None = None) -> Catalog:
        """The same units and rules on another board (a corrected layout: RULINGS H1 is PROVISIONAL)."""
        return Catalog(list(self.units), source or self.source, board, self.rules)

    @classmethod
    def load(cls, path: str | Path) -> Catalog:
        path = Path(path)
        return cls.from_toml(path.read_text(encoding="utf-8"), str(path))

    def __len__(self) -> int:
        return len(self.units)

    def __iter__(self):
        return iter(self.units)

    def __getitem__(self, token: str) -> UnitType:
        try:
            return self.by_token[token]
        except KeyError:
            raise KeyError(f"unknown unit token {token!r}") from None

    @property
    def base_types(self) -> tuple[UnitType, ...]:
        return tuple(u for u in self.units if not u.expansion)


@functools.cache
def default_catalog() -> Catalog:
    """The catalog shipped in engine/data/units.toml (loaded once)."""
    text = resources.files("engine.data").joinpath("units.toml").read_text(encoding="utf-8")
    return Catalog.from_toml(text, "engine/data/units.toml")


@functools.cache
def ransom_catalog() -> Catalog:
    """King's Ransom's cards as units on its 3x6 arena: engine/data/ransom_units.toml (loaded once)."""
    text = resources.files("engine.data").joinpath("ransom_units.toml").read_text(encoding="utf-8")
    return Catalog.from_toml(text, "engine/data/ransom_units.toml")


@functools.cache
def crusade_catalog() -> Catalog:
    """Crusade & Conquer's pieces and board (heights, X squares): engine/data/crusade_units.toml."""
    text = resources.files("engine.data").joinpath("crusade_units.toml").read_text(encoding="utf-8")
    return Catalog.from_toml(text, "engine/data/crusade_units.toml")
