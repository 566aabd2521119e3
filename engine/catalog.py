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

__all__ = ["CLASSES", "BoardShape", "CatalogError", "UnitType", "Catalog", "default_catalog", "ransom_catalog"]

CLASSES = ("Foot", "Heavy", "Mounted", "Pious", "Regal", "Sovereign")
_FIELDS = {
    "token": str, "name": str, "classes": list, "price": int, "stock": int, "moves": str,
    "cylindrical": bool, "captured_to": str, "expansion": bool, "provisional": list,
}
_REQUIRED = ("token", "name", "price", "stock", "moves")
#: The optional top-level ``[board]`` table: field -> (smallest, largest) value.
_BOARD_FIELDS = {"files": (1, 8), "ranks": (2, 8)}


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


class CatalogError(ValueError):
    """A catalog file that cannot be used; the message names the file, unit and field."""


@dataclass(frozen=True)
class BoardShape:
    """The board a catalog is played on: ``files`` x ``ranks`` squares in the corner of the 8x8
    numbering (square = rank * 8 + file; a1 = 0). For the Crown is 8x8; King's Ransom 3x6."""

    files: int = 8
    ranks: int = 8

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
    for key in table:
        if key not in _BOARD_FIELDS:
            raise CatalogError(f"{where}: unknown field {key!r}; known: {', '.join(_BOARD_FIELDS)}")
    values = {}
    for key, (low, high) in _BOARD_FIELDS.items():
        value = table.get(key, 8)
        if not isinstance(value, int) or isinstance(value, bool):
            raise CatalogError(f"{where}: field {key!r} must be int, got {value!r}")
        if not low <= value <= high:
            raise CatalogError(f"{where}: field {key!r} must be {low}..{high}, got {value}")
        values[key] = value
    return BoardShape(**values)


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
            "captured_to": self.captured_to, "expansion": self.expansion,
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
    if captured_to not in ("stock", "barracks"):
        raise CatalogError(f"{where}: field 'captured_to' must be \"stock\" or \"barracks\", got {captured_to!r}")
    try:
        compiled = compile_spec(entry["moves"], entry["token"])
    except SpecError as exc:
        raise CatalogError(f"{where}: field 'moves': {exc}") from None
    return UnitType(
        id=index, token=entry["token"], name=entry["name"], classes=classes, price=entry["price"],
        stock=entry["stock"], moves=entry["moves"], compiled=compiled,
        cylindrical=entry.get("cylindrical", False), captured_to=captured_to,
        expansion=entry.get("expansion", False), provisional=tuple(entry.get("provisional", ())),
    )


class Catalog:
    """An ordered set of unit types, with lookup by token and the compiled kernel tables."""

    def __init__(self, units: list[UnitType], source: str = "<memory>", board: BoardShape = BoardShape()):
        self.units: tuple[UnitType, ...] = tuple(units)
        self.source = source
        self.board = board                      # the board's shape; the kernel tables are built for it
        self.order_texts: dict[int, str] = {}   # cache of engine.position.order_text
        self.by_token: dict[str, UnitType] = {}
        for unit in self.units:
            if unit.token in self.by_token:
                raise CatalogError(f"{source}: token {unit.token!r} is used twice")
            self.by_token[unit.token] = unit
        if not any(u.is_sovereign for u in self.units):
            raise CatalogError(f"{source}: no unit type has the Sovereign class")
        self.tables = RuleTables(self)

    @classmethod
    def from_toml(cls, text: str, source: str = "<string>") -> "Catalog":
        data, entries = toml_tables(text, source, "unit", CatalogError)
        board = _board_from_table(data, source)
        units = [_unit_from_entry(i, e, f"{source}: unit #{i + 1}") for i, e in enumerate(entries)]
        return cls(units, source, board)

    @classmethod
    def load(cls, path: str | Path) -> "Catalog":
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
