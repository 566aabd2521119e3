"""Position text (RULINGS A3, a FEN extension) and order text (A4), both directions.

Position text::

    <board>[<barracks>] <side> <castling> <ep> <halfmove> <fullmove> [stock:..] [promote:..] [status:..]

Only board and side are required. Castling and en passant are accepted so that chess FENs load, and
ignored (no castling or en passant exist in the game, B1); they print back as ``-``. The engine's own
optional fields follow the clocks in any order:

- ``stock:P4Q2~B5`` the shared Stock, tokens with counts (``stock:-`` = empty). Omitted: the catalog
  inventory minus every unit on the board and in both Barracks (at least 0 per type).
- ``promote:NBRQ`` the types a Foot unit may promote to (``promote:-`` = none). Omitted: every base type.
- ``status:e4o,d5nw`` per-unit flags: ``o`` may not receive an order in the current turn, by any
  player (expires when the turn ends): it was ordered already, or this is the turn of its Mourning
  ban (RULINGS C20); ``n`` banned from orders by its owner until the end of its owner's current or
  next turn (False Orders: a Yellow unit banned during Blue's turn stays banned through Yellow's
  turn), ``w`` immune until Blue's next turn starts, ``b`` immune until Yellow's next turn starts
  (C6), ``m`` mourned, on a unit of either side: it stood next to a unit captured by Mourning in the
  current turn, so no player may order it during the next turn, whoever takes it, and it is free in
  the rest of this one (C16, C20; at the turn change ``m`` becomes ``o``). Texts written before C20
  read the same: ``m`` then appeared on the mover's units only, and a Mourning ban on the other
  side's units was written ``n``, which keeps its False Orders meaning.
  Flags travel with their unit (a Spy swap exchanges them); a promoted unit is a new unit from
  the Stock and keeps none of the old one's flags (6.0 Morph).

``format_position(parse_position(t)) == t`` for every text in canonical form (the form printed here:
Barracks and Stock in catalog order, Blue before Yellow, status squares ascending).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.catalog import Catalog
from engine.codes import STATUS_LETTERS
from engine.quiet import shown

__all__ = [
    "BLUE", "YELLOW", "SIDES", "STATUS_FLAGS", "PositionTextError", "OrderTextError", "PositionData",
    "parse_position", "format_position", "square_name", "parse_square", "default_stock",
    "default_promote_mask", "parse_promote_tokens", "OrderText", "parse_order_text",
]

BLUE, YELLOW = 0, 1
SIDES = {"w": BLUE, "b": YELLOW}
#: Status flag letter -> index of the kernel's status set (engine.codes ST_*, STATUS_LETTERS).
STATUS_FLAGS = {letter: flag for flag, letter in enumerate(STATUS_LETTERS)}
FILES = "abcdefgh"


class PositionTextError(ValueError):
    """Malformed position text; the message names the field and the offending character."""


class OrderTextError(ValueError):
    """Malformed order text; the message names the offending part."""


def square_name(square: int) -> str:
    return FILES[square & 7] + str((square >> 3) + 1)


_SQUARE = re.compile(r"^[a-h][1-8]$")


def parse_square(text: str) -> int:
    if not _SQUARE.match(text):
        raise ValueError(f"{shown(text)} is not a square (a1..h8)")
    return FILES.index(text[0]) + 8 * (int(text[1]) - 1)


@dataclass
class PositionData:
    """A position as plain data: what the text says, before it becomes a kernel board."""

    units: dict[int, tuple[int, int]] = field(default_factory=dict)  # square -> (type id, colour)
    barracks: list[list[int]] = field(default_factory=list)          # [colour][type id] -> count
    stock: list[int] | None = None                                   # None: the default Stock
    promote_mask: int | None = None                                  # None: every base type
    status: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])  # square sets per flag
    side: int = BLUE
    halfmove: int = 0
    fullmove: int = 1


def default_stock(catalog: Catalog, units: dict[int, tuple[int, int]], barracks: list[list[int]]) -> list[int]:
    """The inventory minus what is on the board and in both Barracks, never below 0 (RULINGS E)."""
    stock = [u.stock for u in catalog.units]
    for t, _ in units.values():
        stock[t] -= 1
    for colour in (BLUE, YELLOW):
        for t, n in enumerate(barracks[colour]):
            stock[t] -= n
    return [max(0, n) for n in stock]


def default_promote_mask(catalog: Catalog) -> int:
    """Point-Buy rule (B18, A5): every base type on the price list."""
    mask = 0
    for unit in catalog.base_types:
        mask |= 1 << unit.id
    return mask


class _Reader:
    """Reads unit tokens from one field and reports errors with the field name and column."""

    def __init__(self, catalog: Catalog, text: str, field_name: str, offset: int):
        self.catalog, self.text, self.field, self.offset, self.i = catalog, text, field_name, offset, 0

    def error(self, message: str, at: int | None = None) -> PositionTextError:
        column = self.offset + (self.i if at is None else at) + 1
        return PositionTextError(f"position text, {self.field}, character {column}: {message}")

    def token(self, uppercase_only: bool = False) -> tuple[int, int]:
        """Read one unit token; returns (type id, colour)."""
        start = self.i
        ch = self.text[self.i]
        if ch == "~":
            if self.i + 1 >= len(self.text):
                raise self.error("'~' must be followed by a letter")
            ch = self.text[self.i + 1]
            raw = "~" + ch
            self.i += 2
        else:
            raw = ch
            self.i += 1
        if not ch.isalpha():
            raise self.error(f"unexpected character {raw!r}", start)
        if uppercase_only and not ch.isupper():
            raise self.error(f"unit tokens here are uppercase, got {raw!r}", start)
        unit = self.catalog.by_token.get(raw.upper())
        if unit is None:
            raise self.error(f"unknown unit token {raw!r}", start)
        return unit.id, BLUE if ch.isupper() else YELLOW


def _parse_board(catalog: Catalog, text: str, data: PositionData) -> None:
    ranks = text.split("/")
    if len(ranks) != 8:
        raise PositionTextError(f"position text, board: expected 8 ranks separated by '/', got {len(ranks)}")
    offset = 0
    for row, rank_text in enumerate(ranks):
        rank = 7 - row
        reader = _Reader(catalog, rank_text, f"board rank {rank + 1}", offset)
        file = 0
        while reader.i < len(rank_text):
            ch = rank_text[reader.i]
            if ch.isdigit():
                if ch in "09":
                    raise reader.error(f"empty-square count {ch!r} must be 1..8")
                if reader.i > 0 and rank_text[reader.i - 1].isdigit():
                    raise reader.error("two empty-square counts in a row; write their sum")
                file += int(ch)
                reader.i += 1
            else:
                at = reader.i
                type_id, colour = reader.token()
                if file > 7:
                    raise reader.error("more than 8 squares in the rank", at)
                data.units[rank * 8 + file] = (type_id, colour)
                file += 1
            if file > 8:
                raise reader.error("more than 8 squares in the rank")
        if file != 8:
            raise reader.error(f"the rank has {file} squares, expected 8")
        offset += len(rank_text) + 1


def _parse_counts(catalog: Catalog, text: str, field_name: str, offset: int) -> list[int]:
    counts = [0] * len(catalog)
    if text == "-":
        return counts
    reader = _Reader(catalog, text, field_name, offset)
    seen = set()
    while reader.i < len(text):
        at = reader.i
        type_id, _ = reader.token(uppercase_only=True)
        if type_id in seen:
            raise reader.error(f"{catalog.units[type_id].token} listed twice", at)
        seen.add(type_id)
        digits = re.match(r"\d+", text[reader.i:])
        if not digits:
            raise reader.error(f"a count must follow {catalog.units[type_id].token}")
        counts[type_id] = int(digits.group())
        if counts[type_id] > 999:
            raise reader.error(f"count {counts[type_id]} is too large")
        reader.i += len(digits.group())
    return counts


def parse_position(text: str, catalog: Catalog) -> PositionData:
    """Parse position text; raises PositionTextError naming the field and character."""
    if not isinstance(text, str):
        raise PositionTextError(f"position text must be a string, got {type(text).__name__}")
    if len(text) > 4096:
        raise PositionTextError(f"position text is {len(text)} characters long; at most 4096 are accepted")
    fields = text.split()
    if len(fields) < 2:
        raise PositionTextError("position text: expected at least a board and a side to move ('w' or 'b')")
    data = PositionData(barracks=[[0] * len(catalog), [0] * len(catalog)])

    board_text = fields[0]
    if "[" in board_text:
        board_part, _, rest = board_text.partition("[")
        if not rest.endswith("]") or "[" in rest or "]" in rest[:-1]:
            raise PositionTextError("position text, barracks: expected '[...]' right after the board")
        _parse_board(catalog, board_part, data)
        reader = _Reader(catalog, rest[:-1], "barracks", len(board_part) + 1)
        while reader.i < len(reader.text):
            type_id, colour = reader.token()
            data.barracks[colour][type_id] += 1
    else:
        _parse_board(catalog, board_text, data)

    if fields[1] not in SIDES:
        raise PositionTextError(f"position text, side to move: expected 'w' or 'b', got {fields[1]!r}")
    data.side = SIDES[fields[1]]

    plain = [f for f in fields[2:] if ":" not in f]
    extras = [f for f in fields[2:] if ":" in f]
    if fields[2:2 + len(plain)] != plain:
        raise PositionTextError("position text: castling, en passant and clocks must come before the key:value fields")
    if len(plain) > 4:
        raise PositionTextError(f"position text: unexpected field {plain[4]!r} after the clocks")
    if len(plain) >= 1 and not re.fullmatch(r"-|[KQkqA-Ha-h]+", plain[0]):
        raise PositionTextError(f"position text, castling: expected '-' or chess castling letters, got {plain[0]!r}")
    if len(plain) >= 2 and not re.fullmatch(r"-|[a-h][1-8]", plain[1]):
        raise PositionTextError(f"position text, en passant: expected '-' or a square, got {plain[1]!r}")
    for index, name in ((2, "halfmove clock"), (3, "fullmove number")):
        if len(plain) > index:
            if not plain[index].isdigit() or len(plain[index]) > 6:
                raise PositionTextError(f"position text, {name}: expected a whole number, got {plain[index]!r}")
    if len(plain) > 2:
        data.halfmove = int(plain[2])
    if len(plain) > 3:
        data.fullmove = int(plain[3])
        if data.fullmove < 1:
            raise PositionTextError("position text, fullmove number: must be at least 1")

    seen_keys = set()
    for item in extras:
        key, _, value = item.partition(":")
        offset = len(key) + 1
        if key in seen_keys:
            raise PositionTextError(f"position text: field {key!r} given twice")
        seen_keys.add(key)
        if key == "stock":
            data.stock = _parse_counts(catalog, value, "stock", offset)
        elif key == "promote":
            data.promote_mask = parse_promote_tokens(value, catalog)
        elif key == "status":
            _parse_status(value, data)
        else:
            raise PositionTextError(f"position text: unknown field {key!r} (known: stock, promote, status)")
    return data


def parse_promote_tokens(tokens: str, catalog: Catalog) -> int:
    """The promote mask (bit t: a Foot unit may promote to type t, B18) of the ``promote:`` field's
    value: uppercase unit tokens, ``-`` for none. PositionTextError names the character, counted
    in the field ``promote:<tokens>`` as the position text's parser does.

    >>> from engine.catalog import default_catalog
    >>> catalog = default_catalog()
    >>> parse_promote_tokens("Q~B", catalog) == 1 << catalog.by_token["Q"].id | 1 << catalog.by_token["~B"].id
    True
    >>> parse_promote_tokens("-", catalog)
    0
    """
    mask = 0
    if tokens != "-":
        reader = _Reader(catalog, tokens, "promote", len("promote:"))
        while reader.i < len(tokens):
            type_id, _ = reader.token(uppercase_only=True)
            mask |= 1 << type_id
    return mask


def _parse_status(value: str, data: PositionData) -> None:
    for entry in value.split(","):
        match = re.fullmatch(r"([a-h][1-8])([a-z]+)", entry)
        if not match:
            raise PositionTextError(f"position text, status: expected <square><flags> like 'e4o', got {entry!r}")
        square = parse_square(match.group(1))
        if square not in data.units:
            raise PositionTextError(f"position text, status: square {match.group(1)} has no unit")
        for flag in match.group(2):
            if flag not in STATUS_FLAGS:
                raise PositionTextError(
                    f"position text, status: unknown flag {flag!r} on {match.group(1)} "
                    "(o ordered, n no orders, w/b immune until Blue's/Yellow's turn, m mourned)"
                )
            data.status[STATUS_FLAGS[flag]] |= 1 << square


def _format_counts(catalog: Catalog, counts: list[int]) -> str:
    text = "".join(f"{catalog.units[t].token}{n}" for t, n in enumerate(counts) if n)
    return text or "-"


def format_position(data: PositionData, catalog: Catalog) -> str:
    rows = []
    units = data.units
    tokens = [u.token for u in catalog.units]
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for square in range(rank * 8, rank * 8 + 8):
            unit = units.get(square)
            if unit is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            token = tokens[unit[0]]
            row += token if unit[1] == BLUE else token.lower()
        rows.append(row + (str(empty) if empty else ""))
    board = "/".join(rows)
    barracks = "".join(
        (tokens[t] if colour == BLUE else tokens[t].lower()) * n
        for colour in (BLUE, YELLOW) if any(data.barracks[colour])
        for t, n in enumerate(data.barracks[colour]) if n
    )
    if barracks:
        board += f"[{barracks}]"
    parts = [board, "w" if data.side == BLUE else "b", "-", "-", str(data.halfmove), str(data.fullmove)]
    if data.stock is not None and data.stock != default_stock(catalog, data.units, data.barracks):
        parts.append("stock:" + _format_counts(catalog, data.stock))
    if data.promote_mask is not None and data.promote_mask != default_promote_mask(catalog):
        promoting = "".join(u.token for u in catalog.units if data.promote_mask >> u.id & 1)
        parts.append("promote:" + (promoting or "-"))
    any_flag = 0
    for bits in data.status:
        any_flag |= bits
    if any_flag:
        flagged = [sq for sq in range(64) if any_flag >> sq & 1]
        entries = []
        for sq in flagged:
            flags = "".join(letter for letter, index in STATUS_FLAGS.items()
                            if index < len(data.status) and data.status[index] >> sq & 1)
            entries.append(square_name(sq) + flags)
        parts.append("status:" + ",".join(entries))
    return " ".join(parts)


@dataclass(frozen=True)
class OrderText:
    """The parts of an order text: deploy (unit token, destination) or origin/destination/promotion."""

    origin: int | None
    dest: int
    unit: str | None = None        # deploys only: the uppercase token
    promotion: str | None = None   # uppercase token of the promotion type


_ORDER = re.compile(r"^(?:(?P<unit>~?[A-Z])@(?P<drop>[a-h][1-8])|(?P<origin>[a-h][1-8])(?P<dest>[a-h][1-8])(?P<promo>~?[a-z])?)$")


def parse_order_text(text: str) -> OrderText:
    """Split order text (A4) into its parts; legality is the position's business."""
    if not isinstance(text, str):
        raise OrderTextError(f"order text must be a string, got {type(text).__name__}")
    match = _ORDER.match(text.strip())
    if not match:
        raise OrderTextError(
            f"order text {text!r} is not of the form e2e4, e7e8q, e7e8~b, N@e1 or ~N@e1 (squares a1..h8)"
        )
    if match["unit"]:
        return OrderText(None, parse_square(match["drop"]), unit=match["unit"])
    promo = match["promo"].upper() if match["promo"] else None
    return OrderText(parse_square(match["origin"]), parse_square(match["dest"]), promotion=promo)
