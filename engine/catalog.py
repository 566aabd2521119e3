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

__all__ = ["CLASSES", "CatalogError", "UnitType", "Catalog", "default_catalog"]

CLASSES = ("Foot", "Heavy", "Mounted", "Pious", "Regal", "Sovereign")
_FIELDS = {
    "token": str, "name": str, "classes": list, "price": int, "stock": int, "moves": str,
    "cylindrical": bool, "captured_to": str, "expansion": bool, "provisional": list,
}
_REQUIRED = ("token", "name", "price", "stock", "moves")


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

    def __init__(self, units: list[UnitType], source: str = "<memory>"):
        self.units: tuple[UnitType, ...] = tuple(units)
        self.source = source
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
        _, entries = toml_tables(text, source, "unit", CatalogError)
        units = [_unit_from_entry(i, e, f"{source}: unit #{i + 1}") for i, e in enumerate(entries)]
        return cls(units, source)

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
