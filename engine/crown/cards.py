"""Card catalog: loads engine/data/cards.toml, validates it. The numbers are data; what an effect
*does* beyond its numbers is code in engine/crown/effects/, registered by card name and effect index.
Each effect also carries its ``text``, the same behaviour told in plain words for people (required;
tests/crown/test_card_catalog.py checks that it states exactly the effect's numbers).

Values marked PROVISIONAL in the data file are our own choices (RULINGS D); they live only in data.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

from engine.catalog import Catalog, default_catalog, toml_tables

__all__ = ["CardError", "EffectSpec", "CardType", "CardCatalog", "default_cards", "EFFECT_KINDS", "ROLES"]

EFFECT_KINDS = ("order", "action", "treasure", "training", "alternate-order", "alternative-action")
ROLES = ("starter", "alt-starter", "core", "variable")
_CARD_FIELDS = {"name": str, "cost": int, "role": str, "expansion": bool, "pile": int, "provisional": list, "effect": list}
_EFFECT_FIELDS = {"kind": str, "rule": str, "gold": int, "orders": int, "actions": int, "buys": int,
                  "draws": int, "trains": str, "count": int, "text": str}


class CardError(ValueError):
    """A card catalog that cannot be used; the message names the file, card and field."""


@dataclass(frozen=True)
class EffectSpec:
    """One of a card's two effects (5.0): its kind, plain numbers, and ``text``: what it does in the
    project's own plain words, citing its rule (shown by `ftc cards` and the web board)."""

    kind: str
    rule: str = ""
    gold: int = 0
    orders: int = 0
    actions: int = 0
    buys: int = 0
    draws: int = 0
    trains: str | None = None      # unit token, training effects only
    count: int = 1                 # units trained
    text: str = ""                 # plain-words description (required in the data file)

    @property
    def phase(self) -> str:
        """The phase in which the effect is played: order, action or buy (treasures)."""
        if self.kind in ("order", "alternate-order"):
            return "order"
        if self.kind in ("action", "alternative-action", "training"):
            return "action"
        return "buy"


@dataclass(frozen=True)
class CardType:
    id: int
    name: str
    cost: int | None
    role: str
    expansion: bool
    pile: int | None               # Supply pile size; for an alt-starter, copies in the box
    effects: tuple[EffectSpec, EffectSpec]
    provisional: tuple[str, ...] = ()

    @property
    def in_supply(self) -> bool:
        return self.role in ("core", "variable")

    def trains(self) -> list[str]:
        return [e.trains for e in self.effects if e.kind == "training"]

    def to_json(self) -> dict:
        return {
            "name": self.name, "cost": self.cost, "role": self.role, "expansion": self.expansion,
            "pile": self.pile, "provisional": list(self.provisional),
            "effects": [{k: v for k, v in e.__dict__.items() if v not in (None, 0, "") or k in ("kind", "text")}
                        for e in self.effects],
        }


def _effect(entry, where: str, units: Catalog) -> EffectSpec:
    if not isinstance(entry, dict):
        raise CardError(f"{where}: expected a table")
    for key, value in entry.items():
        kind = _EFFECT_FIELDS.get(key)
        if kind is None:
            raise CardError(f"{where}: unknown field {key!r}; known: {', '.join(_EFFECT_FIELDS)}")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CardError(f"{where}: field {key!r} must be {kind.__name__}, got {value!r}")
        if kind is int and value < 0:
            raise CardError(f"{where}: field {key!r} must not be negative")
    if entry.get("kind") not in EFFECT_KINDS:
        raise CardError(f"{where}: field 'kind' must be one of {', '.join(EFFECT_KINDS)}, got {entry.get('kind')!r}")
    if entry["kind"] == "training":
        token = entry.get("trains")
        if token is None:
            raise CardError(f"{where}: a training effect needs 'trains' (a unit token)")
        if token not in units.by_token:
            raise CardError(f"{where}: field 'trains': unknown unit token {token!r}")
    elif "trains" in entry or "count" in entry:
        raise CardError(f"{where}: only training effects take 'trains' and 'count'")
    if "text" not in entry:
        raise CardError(f"{where}: missing field 'text' (what the effect does, in plain words)")
    if not entry["text"].strip():
        raise CardError(f"{where}: field 'text' must not be empty (what the effect does, in plain words)")
    return EffectSpec(**entry)


def _card(index: int, entry, where: str, units: Catalog) -> CardType:
    if not isinstance(entry, dict):
        raise CardError(f"{where}: expected a table")
    where = f"{where} ({entry.get('name', '?')})"
    for key, value in entry.items():
        kind = _CARD_FIELDS.get(key)
        if kind is None:
            raise CardError(f"{where}: unknown field {key!r}; known: {', '.join(_CARD_FIELDS)}")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CardError(f"{where}: field {key!r} must be {kind.__name__}, got {value!r}")
    for key in ("name", "role"):
        if key not in entry:
            raise CardError(f"{where}: missing field {key!r}")
    if entry["role"] not in ROLES:
        raise CardError(f"{where}: field 'role' must be one of {', '.join(ROLES)}")
    in_supply = entry["role"] in ("core", "variable")
    for key in ("cost", "pile"):
        if in_supply and key not in entry:
            raise CardError(f"{where}: a Supply card needs {key!r}")
        # An alternative starter may say how many copies the box holds (RULINGS D: 2 Squires).
        if not in_supply and key in entry and not (key == "pile" and entry["role"] == "alt-starter"):
            raise CardError(f"{where}: a starter card has no {key!r}")
        if key in entry and entry[key] < (0 if key == "cost" else 1):
            raise CardError(f"{where}: field {key!r} is out of range: {entry[key]}")
    effects = entry.get("effect", [])
    if len(effects) != 2:
        raise CardError(f"{where}: a card has exactly two effects (5.0), found {len(effects)}")
    specs = tuple(_effect(e, f"{where} effect {i + 1}", units) for i, e in enumerate(effects))
    return CardType(
        id=index, name=entry["name"], cost=entry.get("cost"), role=entry["role"],
        expansion=entry.get("expansion", False), pile=entry.get("pile"), effects=specs,
        provisional=tuple(entry.get("provisional", ())),
    )


class CardCatalog:
    """Every card, with lookup by name."""

    def __init__(self, cards: list[CardType], source: str = "<memory>"):
        self.cards: tuple[CardType, ...] = tuple(cards)
        self.source = source
        self.by_name: dict[str, CardType] = {}
        for card in self.cards:
            if card.name in self.by_name:
                raise CardError(f"{source}: card {card.name!r} is listed twice")
            self.by_name[card.name] = card
        #: Printed cost per card id (a starter's missing cost counts as 0).
        self.costs: tuple[int, ...] = tuple(card.cost or 0 for card in self.cards)
        #: Per card id: phase -> indexes of the effects played in that phase (EffectSpec.phase).
        self.phase_effects: tuple[dict[str, tuple[int, ...]], ...] = tuple(
            {phase: tuple(i for i, spec in enumerate(card.effects) if spec.phase == phase)
             for phase in ("order", "action", "buy")}
            for card in self.cards
        )

    @classmethod
    def from_toml(cls, text: str, source: str = "<string>", units: Catalog | None = None) -> CardCatalog:
        units = units or default_catalog()
        _, entries = toml_tables(text, source, "card", CardError)
        return cls([_card(i, e, f"{source}: card #{i + 1}", units) for i, e in enumerate(entries)], source)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self):
        return iter(self.cards)

    def __getitem__(self, name: str) -> CardType:
        try:
            return self.by_name[name]
        except KeyError:
            raise KeyError(f"unknown card {name!r}") from None

    def supply_cards(self, role: str | None = None, expansion: bool | None = None) -> list[CardType]:
        return [
            c for c in self.cards
            if c.in_supply and (role is None or c.role == role) and (expansion is None or c.expansion == expansion)
        ]


@functools.cache
def default_cards() -> CardCatalog:
    text = resources.files("engine.data").joinpath("cards.toml").read_text(encoding="utf-8")
    return CardCatalog.from_toml(text, "engine/data/cards.toml")
