"""Position: the Python face of the bitboard core, in the spirit of python-chess's Board.

>>> pos = Position.from_text("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
>>> sorted(o.text() for o in pos.legal_orders())[:3]
['e1d1', 'e1d2', 'e1f1']
>>> pos.push(pos.parse_order("e2e4")); pos.to_text()
'4k3/8/8/8/4P3/8/8/4K3 b - - 1 1'

Each order is one turn of the perft tree (RULINGS C8, Point-Buy Chess): push plays the order and ends
the turn. The full card game (engine/crown) drives the same core one decision at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from engine import _position
from engine._perft import PerftControl
from engine.catalog import Catalog, default_catalog
from engine.codes import (
    ATTACK,
    DEPLOY,
    KIND_NAMES,
    MARCH,
    SHOOT,
    SWAP,
    order_dest,
    order_kind,
    order_origin,
    order_promotion,
    order_unit,
)
from engine.notation import (
    BLUE,
    YELLOW,
    OrderTextError,
    PositionData,
    default_promote_mask,
    default_stock,
    format_position,
    parse_order_text,
    parse_position,
    parse_promote_tokens,
    parse_square,
    square_name,
)

# The order kinds live in engine.codes; they stay importable from here.
__all__ = ["Order", "Position", "IllegalOrderError", "order_text", "load_core", "read_core", "MARCH", "ATTACK",
           "DEPLOY", "SHOOT", "SWAP", "KIND_NAMES"]

Colour = int
Square = int


class IllegalOrderError(ValueError):
    """An order that is well-formed but not legal in the position; the message says why."""


@dataclass(frozen=True, slots=True)
class Order:
    """One order (RULINGS A4). ``code`` is the kernel's encoding; the other fields are its parts."""

    code: int
    kind: str
    origin: Square | None     # None for deploys
    dest: Square              # deploy square, Oracle target, Spy partner, or destination
    unit: str                 # token of the ordered (or deployed) unit type
    promotion: str | None     # token of the promotion type

    @classmethod
    def from_code(cls, code: int, catalog: Catalog) -> Order:
        # The kernel's own decoder (tests/test_codes.py checks engine.codes against it): one C call
        # instead of five Python ones, for the thousands of orders a search or a game lists.
        kind, origin, dest, unit, promo = _position.decode_order(code)
        return cls(
            code=code,
            kind=KIND_NAMES[kind],
            origin=None if kind == DEPLOY else origin,
            dest=dest,
            unit=catalog.units[unit].token,
            promotion=catalog.units[promo].token if promo >= 0 else None,
        )

    def text(self) -> str:
        if self.origin is None:
            return f"{self.unit}@{square_name(self.dest)}"
        suffix = self.promotion.lower() if self.promotion else ""
        return square_name(self.origin) + square_name(self.dest) + suffix

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Order({self.text()!r}, {self.kind})"


def order_text(code: int, catalog: Catalog) -> str:
    """The text of an encoded order (a pure function of the code, cached per catalog: the full game
    labels thousands of orders per second)."""
    cache = catalog.order_texts
    text = cache.get(code)
    if text is None:
        text = cache[code] = Order.from_code(code, catalog).text()
    return text


def load_core(core: _position.BoardCore, data: PositionData) -> None:
    """Set up the kernel board ``core`` as ``data`` says (its pushed orders are dropped). A missing
    Stock (``data.stock`` None) is the default one: the catalog's inventory less the units on the
    board and in both Barracks (RULINGS E); a missing promote mask is every base type (B18). The
    catalog is the core's own (``core.tables.catalog``). ``read_core`` is the inverse.

    >>> from engine.catalog import default_catalog
    >>> catalog = default_catalog()
    >>> core = _position.BoardCore(catalog.tables)
    >>> load_core(core, parse_position("4k3/8/8/8/8/8/4P3/4K3[Q] b - - 3 9", catalog))
    >>> core.side, core.halfmove, core.fullmove, core.barracks_count(BLUE, catalog.by_token["Q"].id)
    (1, 3, 9, 1)
    >>> core.promote_types == default_promote_mask(catalog)
    True
    """
    catalog = core.tables.catalog
    stock = data.stock if data.stock is not None else default_stock(catalog, data.units, data.barracks)
    promote = data.promote_mask if data.promote_mask is not None else default_promote_mask(catalog)
    core.setup(
        [(sq, t, c) for sq, (t, c) in sorted(data.units.items())], data.barracks, stock, promote,
        data.side, data.halfmove, data.fullmove, data.status,
    )


def read_core(core: _position.BoardCore) -> PositionData:
    """The current position of the kernel board ``core`` as plain data, Stock and promote mask
    always given (the inverse of ``load_core``).

    >>> from engine.catalog import default_catalog
    >>> catalog = default_catalog()
    >>> core = _position.BoardCore(catalog.tables)
    >>> text = "4k3/8/8/8/8/8/4P3/4K3[Q] b - - 3 9 promote:N status:e2w"
    >>> load_core(core, parse_position(text, catalog))
    >>> data = read_core(core)
    >>> data.units[12] == (catalog.by_token["P"].id, BLUE), data.side, data.promote_mask == 1 << catalog.by_token["N"].id
    (True, 1, True)
    >>> format_position(data, catalog) == text
    True
    """
    state = core.state()
    return PositionData(
        units={sq: (t, c) for sq, t, c in state["units"]},
        barracks=state["barracks"],
        stock=state["stock"],
        promote_mask=state["promote_types"],
        status=state["status"],
        side=state["side"],
        halfmove=state["halfmove"],
        fullmove=state["fullmove"],
    )


_ORDERS: WeakKeyDictionary = WeakKeyDictionary()     # catalog -> {code: Order}
_ORDERS_KEPT = 100_000                                # per catalog; the cache starts again past it


def _orders(codes: list[int], catalog: Catalog) -> list[Order]:
    """The Order of each code. An Order is immutable and a pure function of its code, so each is
    built once per catalog (a dataclass costs about 2 microseconds to build)."""
    cache = _ORDERS.get(catalog)
    if cache is None or len(cache) > _ORDERS_KEPT:
        cache = _ORDERS[catalog] = {}
    out = []
    for code in codes:
        order = cache.get(code)
        if order is None:
            order = cache[code] = Order.from_code(code, catalog)
        out.append(order)
    return out


class Position:
    """A board position with Barracks, Stock, side to move and promotion rules (RULINGS A2)."""

    def __init__(self, catalog: Catalog | None = None):
        self.catalog = catalog or default_catalog()
        self._core = _position.BoardCore(self.catalog.tables)
        self._stack: list[Order] = []
        # (key, cylindrical, codes) of the last generation: push trusts an order among these codes
        # while the board still has that key (as python-chess trusts its own moves).
        self._generated: tuple[int, bool, frozenset[int]] | None = None
        self.load(PositionData(barracks=[[0] * len(self.catalog), [0] * len(self.catalog)]))

    # -- construction and text -------------------------------------------------------------
    @classmethod
    def from_text(cls, text: str, promote: str | None = None, catalog: Catalog | None = None) -> Position:
        """Parse RULINGS A3 text. ``promote`` (tokens, e.g. "NBRQ"; "" or "-" for none) overrides
        the text's promote: field."""
        position = cls(catalog)
        data = parse_position(text, position.catalog)
        if promote is not None:
            data.promote_mask = position.promote_mask_from_tokens(promote)
        position.load(data)
        return position

    @classmethod
    def from_core(cls, core, catalog: Catalog) -> Position:
        """Wrap a copy of a kernel board (e.g. a full game's board, for the board search)."""
        position = cls.__new__(cls)
        position.catalog = catalog
        position._core = core.copy()
        position._stack = []
        position._prior_keys = []
        position._generated = None
        return position

    def promote_mask_from_tokens(self, tokens: str) -> int:
        """The promote mask of tokens such as "NBRQ" or "q~b" (any case; "" or "-" for none)."""
        tokens = tokens.strip()
        if tokens in ("", "-"):
            return 0
        return parse_promote_tokens(tokens.upper(), self.catalog)

    def load(self, data: PositionData) -> None:
        """Replace the position (defaults for a missing Stock or promote mask: ``load_core``)."""
        load_core(self._core, data)
        self._stack = []
        self._prior_keys: list[int] = []     # keys of the game before this board's own pushes
        self._generated = None

    def data(self) -> PositionData:
        return read_core(self._core)

    def to_text(self) -> str:
        return format_position(self.data(), self.catalog)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Position.from_text({self.to_text()!r})"

    def history_keys(self) -> list[int]:
        """Keys of the positions before this one, as reached by ``push`` (oldest first); a copy
        keeps the history of what it was copied from."""
        return self._prior_keys + self._core.history_keys()

    def copy(self) -> Position:
        """The same position, with its history (``history_keys``) but no orders to ``pop``."""
        other = Position.from_core(self._core, self.catalog)
        other._generated = self._generated       # the same board: its orders are the same
        other._prior_keys = self.history_keys()
        return other

    # -- reading the position ----------------------------------------------------------------
    @property
    def turn(self) -> str:
        """'w' when Blue is to move, 'b' when Yellow is (FEN letters)."""
        return "w" if self._core.side == BLUE else "b"

    @property
    def key(self) -> int:
        """Zobrist key (kept incrementally by the kernel)."""
        return self._core.key

    @property
    def core(self) -> _position.BoardCore:
        """The kernel board this Position wraps (ext/_position.pyx), for kernels that read it: the
        board search, the evaluation, threat maps. It is live, not a copy: play orders through
        ``push`` / ``pop`` (changing it directly leaves ``move_stack`` behind)."""
        return self._core

    def unit_at(self, square: Square) -> tuple[str, str] | None:
        """(token, 'w' or 'b') of the unit on square, or None."""
        unit = self._core.unit_on(_square(square))
        if unit is None:
            return None
        return self.catalog.units[unit[0]].token, "w" if unit[1] == BLUE else "b"

    def barracks(self, colour: str) -> dict[str, int]:
        """{token: count} of the units in the Barracks of ``colour`` ('w' or 'b')."""
        counts = self._core.barracks_counts(_colour(colour))
        return {self.catalog.units[t].token: n for t, n in enumerate(counts) if n}

    def stock(self) -> dict[str, int]:
        """{token: count} of the units in the shared Stock."""
        return {self.catalog.units[t].token: n for t, n in enumerate(self._core.stock_counts()) if n}

    # -- orders ------------------------------------------------------------------------------
    def legal_orders(self, cylindrical: bool = False) -> list[Order]:
        """Every order of the side to move. ``cylindrical=True`` is Compass mode: every unit moves
        cylindrically (16.0); expansion units always do."""
        return _orders(self._generate(cylindrical), self.catalog)

    def _generate(self, cylindrical: bool) -> list[int]:
        """The codes of every legal order, remembered with the board's key for ``push``."""
        codes = self._core.generate(cylindrical)
        self._generated = (self._core.key, cylindrical, frozenset(codes))
        return codes

    def count_orders(self, cylindrical: bool = False) -> int:
        return self._core.count(cylindrical)

    def parse_order(self, text: str, cylindrical: bool = False) -> Order:
        """The legal order written as ``text``; IllegalOrderError says why it is not legal."""
        parts = parse_order_text(text)
        code = self._find(parts, self._generate(cylindrical))
        if code is None:
            raise IllegalOrderError(self._why_illegal(text.strip(), parts))
        return _orders([code], self.catalog)[0]

    def _find(self, parts, codes: list[int]) -> int | None:
        """The first of ``codes`` whose fields are the order text's parts, or None."""
        by_token = self.catalog.by_token
        dest = parts.dest
        if parts.origin is None:
            unit = by_token.get(parts.unit)
            if unit is not None:
                for code in codes:
                    if order_dest(code) == dest and order_kind(code) == DEPLOY and order_unit(code) == unit.id:
                        return code
            return None
        if parts.promotion is None:
            promotion = -1
        elif parts.promotion in by_token:
            promotion = by_token[parts.promotion].id
        else:
            return None
        origin = parts.origin
        for code in codes:
            if (order_dest(code) == dest and order_origin(code) == origin and order_kind(code) != DEPLOY
                    and order_promotion(code) == promotion):
                return code
        return None

    def _why_illegal(self, text: str, parts) -> str:
        core = self._core
        side = core.side
        side_name = "Blue" if side == BLUE else "Yellow"
        if parts.origin is None:
            unit = self.catalog.by_token.get(parts.unit)
            if unit is None:
                return f"order {text}: unknown unit token {parts.unit!r}"
            if core.barracks_count(side, unit.id) == 0:
                return f"order {text}: {side_name} has no {unit.name} in the Barracks"
            return f"order {text}: {unit.name} cannot be deployed to {square_name(parts.dest)}"
        here = core.unit_on(parts.origin)
        if here is None:
            return f"order {text}: no unit on {square_name(parts.origin)}"
        if here[1] != side:
            return f"order {text}: the unit on {square_name(parts.origin)} is not {side_name}'s ({side_name} to move)"
        name = self.catalog.units[here[0]].name
        units = self.catalog.units
        same_squares = sorted(
            units[order_promotion(code)].token.lower() for code in core.generate(False)
            if order_kind(code) != DEPLOY and order_origin(code) == parts.origin and order_dest(code) == parts.dest
            and order_promotion(code) >= 0
        )
        if same_squares and parts.promotion is None:
            return f"order {text}: a promotion type is required ({', '.join(same_squares)})"
        if parts.promotion:
            return f"order {text}: {name} on {square_name(parts.origin)} has no such order (promotion to {parts.promotion} not available)"
        return f"order {text}: {name} on {square_name(parts.origin)} cannot reach or capture on {square_name(parts.dest)}"

    def push(self, order: Order | str, cylindrical: bool = False) -> None:
        """Play a legal order (an Order from legal_orders, or its text) and end the turn. With
        ``cylindrical=True`` the order may use Compass mode (see legal_orders). An order among
        those this position generated last (legal_orders, parse_order) is trusted while the board
        is unchanged; any other is checked against a new generation."""
        if isinstance(order, str):
            order = self.parse_order(order, cylindrical)
        elif not isinstance(order, Order):
            raise TypeError(f"push takes an Order or order text, not {type(order).__name__}")
        else:
            generated = self._generated
            if generated is None or generated[0] != self._core.key or generated[1] != cylindrical:
                self._generate(cylindrical)
                generated = self._generated
                assert generated is not None            # _generate remembered them
            if order.code not in generated[2]:
                raise IllegalOrderError(f"order {order.text()} is not legal in this position")
        self._core.push(order.code)
        self._stack.append(order)

    def pop(self) -> Order:
        """Take back the last pushed order and return it."""
        if not self._stack:
            raise IndexError("pop: no order has been pushed")
        self._core.pop()
        return self._stack.pop()

    @property
    def move_stack(self) -> list[Order]:
        return list(self._stack)

    def perft(self, depth: int, cylindrical: bool = False, control: PerftControl | None = None) -> int:
        """Leaf nodes of the order tree ``depth`` plies deep, counted in one C call (GIL released).
        With a ``control`` (engine.perft.PerftControl) the call adds its leaves to
        ``control.nodes`` as it counts and raises PerftStopped soon after ``control.stop()``."""
        if depth < 0:
            raise ValueError("perft depth must be >= 0")
        return self._core.perft(depth, cylindrical, control)

    def is_over(self) -> bool:
        """True when a side has no Sovereign on the board (C2): no orders exist."""
        core = self._core
        return not (core.sovereign_present(BLUE) and core.sovereign_present(YELLOW))

    # -- attacks and threats -----------------------------------------------------------------
    def attacks(self, square: Square, cylindrical: bool = False) -> set[Square]:
        """Squares the unit on ``square`` could capture on if an enemy stood there (empty set for
        an empty square). Every capture kind counts: moving, charging through, shooting."""
        return _squares(self._core.unit_attacks(_square(square), cylindrical))

    def is_threatened(self, square: Square, colour: str | int, origin: Square | None = None,
                      cylindrical: bool = False) -> bool:
        """C7: whether an enemy of ``colour`` could capture a unit of ``colour`` on ``square`` by a
        normal attack, with the unit already standing there (the unit from ``origin`` if given)."""
        return self._core.threatened(
            _square(square), _colour(colour), -1 if origin is None else _square(origin), cylindrical
        )

    def threatened_squares(self, colour: str | int, cylindrical: bool = False) -> set[Square]:
        return {sq for sq in range(64) if self.is_threatened(sq, colour, cylindrical=cylindrical)}

    def __iter__(self) -> Iterator[Order]:
        return iter(self.legal_orders())


def _square(square) -> int:
    if isinstance(square, str):
        return parse_square(square)
    if not isinstance(square, int) or not 0 <= square < 64:
        raise ValueError(f"square must be 0..63 or a name like 'e4', got {square!r}")
    return square


def _colour(colour) -> int:
    if colour in ("w", BLUE, "blue", "Blue"):
        return BLUE
    if colour in ("b", YELLOW, "yellow", "Yellow"):
        return YELLOW
    raise ValueError(f"colour must be 'w' (Blue) or 'b' (Yellow), got {colour!r}")


def _squares(bits: int) -> set[int]:
    return {sq for sq in range(64) if bits >> sq & 1}


__all__ += ["OrderTextError"]
