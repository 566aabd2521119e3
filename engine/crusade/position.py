"""Crusade & Conquer positions on the kernel: position text, move text, legal moves, perft, divide.

The board, pieces and rule switches are the catalog engine/data/crusade_units.toml (RULINGS H1-H7);
the kernel generates, plays and counts (chess legality H8a, the X win H8b, promotion H5).

Position text (RULINGS H9; the form of tests/reference/crusade.py, which this must agree with):

    <board> <side> <fallen> [<halfmove> <fullmove>] [revived:<square>[,<square>]]

- <board>: ranks from the last to the first joined by "/", files a.. in each, a digit counting empty
  squares; letters are the catalog's tokens (K Q R B N P D F), uppercase Blue, lowercase Red. Each
  side has exactly one King; no Pawn stands on its own first rank (it could never have got there);
  a Pawn on its far rank is a kept Pawn (H5) and has no move.
- <side>: "w" Blue to move, "b" Red to move.
- <fallen>: "-", or the captured pieces not yet revived in brackets, one letter each, Blue's
  uppercase: "[QNnd]". Only the types a Pawn can be exchanged for (H5). "[]" reads as "-".
- <halfmove> <fullmove>: plies since the last capture or Pawn move (H8c) and the move number; both
  or neither (then 0 and 1).
- revived:<squares>: Flag Bearers standing on the opposing X because a Pawn was exchanged for them
  there (H5), so they have not won (H8b). One standing on the opposing X with the X's owner to move
  and not listed has just stepped there: that side has won and the position has no moves. With its
  own side to move it can only have been revived there (implied).
- "startpos": the set-up of the data file's [setup] table (RULINGS H2, PROVISIONAL).

The canonical text (``CrusadePosition.text``) writes the fallen pieces Blue first in catalog order,
both clocks, and the revived field only when some Flag Bearer stands revived on an X; it reads back
to itself.

Move text: ``<from><to>`` (a capture alike), plus ``=<type>`` for a Pawn reaching its far rank:
``e7e8=Q`` exchanges it for a fallen Queen, ``e7e8=P`` keeps it (H5). The letter is a type, written
uppercase (lowercase is read too).
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import replace
from importlib import resources

from engine._perft import PerftControl
from engine._position import BoardCore, decode_order
from engine.catalog import (
    Catalog,
    CatalogError,
    crusade_catalog,
    parse_heights,
    parse_square,
    parse_x_squares,
    square_name,
)
from engine.quiet import shown

__all__ = ["CrusadeError", "PositionTextError", "MoveTextError", "LayoutError", "CrusadePosition",
           "start_text", "layout_catalog", "layout_text", "BLUE", "RED"]

BLUE, RED = 0, 1
_SIDE_LETTER = {"w": BLUE, "b": RED}
_SIDE_NAME = ("Blue", "Red")


class CrusadeError(ValueError):
    """Bad input to a Crusade & Conquer position; the message says what is wrong and where."""


class PositionTextError(CrusadeError):
    """A position text that cannot be read (the field and the problem are named)."""


class MoveTextError(CrusadeError):
    """A move text that is malformed or not legal in the position."""


class LayoutError(CrusadeError):
    """A board layout (levels and X squares) that is not a valid board."""


@functools.cache
def start_text() -> str:
    """The set-up of engine/data/crusade_units.toml's [setup] table (RULINGS H2, PROVISIONAL)."""
    text = resources.files("engine.data").joinpath("crusade_units.toml").read_text(encoding="utf-8")
    setup = tomllib.loads(text).get("setup")
    if not isinstance(setup, dict) or not isinstance(setup.get("start"), str):
        raise CatalogError("engine/data/crusade_units.toml: table [setup] needs a field 'start' (a position text)")
    return setup["start"]


def layout_text(catalog: Catalog) -> str:
    """A catalog's board as the layout text ``<rows of levels, last rank first, joined by /> <X Blue>
    <X Red>`` (the form of the EPD file's ``layout`` field and of ``layout_catalog``)."""
    shape = catalog.board
    heights = shape.heights or (0,) * 64
    rows = ["".join(str(heights[r * 8 + f]) for f in range(shape.files)) for r in range(shape.ranks - 1, -1, -1)]
    xs = " ".join(square_name(s) for s in shape.x) if shape.x else ""
    return ("/".join(rows) + " " + xs).strip()


@functools.lru_cache(maxsize=32)
def layout_catalog(text: str) -> Catalog:
    """The Crusade catalog on the board given by a layout text (see ``layout_text``): another
    layout than the data file's (H1 is PROVISIONAL). LayoutError names what is wrong."""
    base = crusade_catalog()
    shape = base.board
    parts = text.split() if isinstance(text, str) else []
    if len(parts) != 3:
        raise LayoutError(f"layout: expected '<{shape.ranks} rows of levels joined by /> <X Blue> <X Red>', "
                          f"got {text!r}")
    try:
        heights = parse_heights(parts[0].split("/"), shape.files, shape.ranks, "layout: levels")
        xs = parse_x_squares(parts[1:], shape.files, shape.ranks, "layout: X squares")
    except CatalogError as exc:
        raise LayoutError(str(exc)) from None
    return base.with_board(replace(shape, heights=heights, x=xs), f"{base.source} with layout {text}")


class CrusadePosition:
    """A Crusade & Conquer position on a kernel BoardCore (push / pop keep the history)."""

    def __init__(self, catalog: Catalog | None = None):
        self.catalog = catalog or crusade_catalog()
        cat = self.catalog
        self.core = BoardCore(cat.tables)
        self._letters = {u.token: u.id for u in cat.units}
        self._token = {u.id: u.token for u in cat.units}
        self._king = next(u.id for u in cat.units if u.is_sovereign)
        self._foot = {u.id for u in cat.units if u.is_foot}
        self._x_winners = {u.id for u in cat.units if u.wins_on_x}
        #: H5: the types a Pawn may be exchanged for = the types whose captured pieces are fallen.
        self.revivable = tuple(u.id for u in cat.units if u.captured_to == "barracks")
        self._promote_mask = sum(1 << t for t in self.revivable)

    # ------------------------------------------------------------------ reading and writing text

    @classmethod
    def from_text(cls, text: str, catalog: Catalog | None = None) -> CrusadePosition:
        """Read a position text (module docstring); PositionTextError names the field and problem."""
        pos = cls(catalog)
        pos.set_text(text)
        return pos

    def set_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise PositionTextError(f"a position text must be a string, got {type(text).__name__}")
        if text.strip() == "startpos":
            text = start_text()
        fields = text.split()
        if len(fields) < 3:
            raise PositionTextError(f"needs at least 3 fields: <board> <side> <fallen>, got {len(fields)} in "
                                    f"{shown(text)}")
        units = self._read_board(fields[0])
        if fields[1] not in _SIDE_LETTER:
            raise PositionTextError(f"side to move: {shown(fields[1])} must be 'w' (Blue) or 'b' (Red)")
        side = _SIDE_LETTER[fields[1]]
        fallen = self._read_fallen(fields[2])
        rest = fields[3:]
        revived_field = rest.pop() if rest and rest[-1].startswith("revived:") else None
        if len(rest) not in (0, 2):
            raise PositionTextError("after the fallen pieces: expected '<halfmove> <fullmove>' and/or "
                                    f"'revived:<squares>', got {shown(' '.join(rest))}")
        halfmove, fullmove = 0, 1
        if rest:
            for name, value, low in (("halfmove clock", rest[0], 0), ("fullmove number", rest[1], 1)):
                if not value.isdigit() or int(value) < low or int(value) > 1_000_000:
                    raise PositionTextError(f"{name}: must be an integer {low}..1000000, got {shown(value)}")
            halfmove, fullmove = int(rest[0]), int(rest[1])
        occupant = {sq: (t, c) for sq, t, c in units}
        shape = self.catalog.board
        for colour in (BLUE, RED):
            kings = [sq for sq, (t, c) in occupant.items() if t == self._king and c == colour]
            if len(kings) != 1:
                raise PositionTextError(f"board: {_SIDE_NAME[colour]} needs exactly one King, found {len(kings)}")
            home = 0 if colour == BLUE else shape.ranks - 1
            for sq, (t, c) in sorted(occupant.items()):
                if c == colour and t in self._foot and sq >> 3 == home:
                    raise PositionTextError(f"board: {_SIDE_NAME[colour]} Pawn on {square_name(sq)}, its own "
                                            "first rank, where no Pawn can stand")
        revived = set()
        if revived_field is not None:
            for name in revived_field[len("revived:"):].split(","):
                sq = parse_square(name)
                if sq is None or not (shape.mask >> sq) & 1:
                    raise PositionTextError(f"revived: {shown(name)} is not a square of the board")
                if self._x_owner_of_flag(occupant, sq) is None:
                    raise PositionTextError(f"revived: {name} must hold a Flag Bearer standing on the "
                                            "opposing side's X")
                revived.add(sq)
        # H8b: a Flag Bearer on the X of the side to move, not revived there, has just won.
        won = False
        if shape.x:
            sq = shape.x[side]
            owner = self._x_owner_of_flag(occupant, sq)
            won = owner is not None and owner != side and sq not in revived
        n = len(self.catalog.units)
        barracks = [[0] * n, [0] * n]
        for colour, t in fallen:
            barracks[colour][t] += 1
        self.core.setup(units, barracks, [0] * n, self._promote_mask, side, halfmove, fullmove, [])
        self.core.set_won_on_x(won)
        # H8a: the side that just moved never leaves its own King capturable.
        if self.king_attacked(1 - side):
            raise PositionTextError(f"board: {_SIDE_NAME[1 - side]}'s King is attacked with {_SIDE_NAME[side]} "
                                    "to move; no legal move leaves its own King capturable (RULINGS H8a)")

    def _x_owner_of_flag(self, occupant: dict, sq: int) -> int | None:
        """The colour of the Flag Bearer on ``sq`` if ``sq`` is the X of the other colour, else None."""
        xs = self.catalog.board.x
        if not xs or sq not in xs or sq not in occupant:
            return None
        t, colour = occupant[sq]
        return colour if t in self._x_winners and xs[1 - colour] == sq else None

    def _read_board(self, text: str) -> list[tuple[int, int, int]]:
        shape = self.catalog.board
        rows = text.split("/")
        if len(rows) != shape.ranks:
            raise PositionTextError(f"board: needs {shape.ranks} ranks separated by '/', got {len(rows)}")
        units = []
        for i, row in enumerate(rows):
            rank = shape.ranks - 1 - i
            if row == "":
                raise PositionTextError(f"board: rank {rank + 1} is empty (write {shape.files} for an empty rank)")
            f = 0
            for ch in row:
                if ch.isdigit() and ch != "0":
                    f += int(ch)
                elif ch.upper() in self._letters:
                    if f >= shape.files:
                        raise PositionTextError(f"board: rank {rank + 1} has more than {shape.files} squares")
                    units.append((rank * 8 + f, self._letters[ch.upper()], BLUE if ch.isupper() else RED))
                    f += 1
                else:
                    raise PositionTextError(f"board: rank {rank + 1}: {shown(ch)} is not a piece letter "
                                            f"({''.join(self._letters)}, lowercase for Red) or a digit "
                                            f"1-{shape.files}")
                if f > shape.files:
                    raise PositionTextError(f"board: rank {rank + 1} has more than {shape.files} squares")
            if f != shape.files:
                raise PositionTextError(f"board: rank {rank + 1} has {f} squares, needs {shape.files}")
        return units

    def _read_fallen(self, text: str) -> list[tuple[int, int]]:
        if text in ("-", "[]"):
            return []
        if len(text) < 2 or text[0] != "[" or text[-1] != "]":
            raise PositionTextError(f"fallen pieces: {shown(text)} must be '-' or letters in brackets, e.g. [Qn]")
        letters = "".join(self._token[t] for t in self.revivable)
        out = []
        for ch in text[1:-1]:
            t = self._letters.get(ch.upper())
            if t is None or t not in self.revivable:
                why = (f"{shown(ch)} is not a piece letter ({letters})" if t is None else
                       f"{shown(ch)} cannot be listed: a {self.catalog.units[t].name} is never revived (RULINGS H5)")
                raise PositionTextError(f"fallen pieces: {why}")
            out.append((BLUE if ch.isupper() else RED, t))
        return out

    def text(self) -> str:
        """The canonical position text (module docstring)."""
        shape = self.catalog.board
        occupant = {sq: (t, c) for sq, t, c in self._units()}
        ranks = []
        for rank in range(shape.ranks - 1, -1, -1):
            out, empty = "", 0
            for f in range(shape.files):
                piece = occupant.get(rank * 8 + f)
                if piece is None:
                    empty += 1
                    continue
                if empty:
                    out += str(empty)
                    empty = 0
                token = self._token[piece[0]]
                out += token if piece[1] == BLUE else token.lower()
            ranks.append(out + (str(empty) if empty else ""))
        letters = ""
        for colour in (BLUE, RED):
            counts = self.core.barracks_counts(colour)
            for t in self.revivable:
                token = self._token[t]
                letters += (token if colour == BLUE else token.lower()) * counts[t]
        fields = ["/".join(ranks), "wb"[self.side], f"[{letters}]" if letters else "-",
                  str(self.core.halfmove), str(self.core.fullmove)]
        revived = []
        won_square = shape.x[self.side] if self.core.won_on_x else None
        for sq in sorted(shape.x if shape.x else ()):
            if sq != won_square and self._x_owner_of_flag(occupant, sq) is not None:
                revived.append(square_name(sq))
        if revived:
            fields.append("revived:" + ",".join(revived))
        return " ".join(fields)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"CrusadePosition({self.text()!r})"

    # ------------------------------------------------------------------ state

    @property
    def side(self) -> int:
        """The side to move: 0 Blue, 1 Red."""
        return self.core.side

    def _units(self) -> list[tuple[int, int, int]]:
        """(square, type, colour) of every piece on the board."""
        return [tuple(u) for u in self.core.state()["units"]]

    def pieces(self) -> list[tuple[str, str, int]]:
        """Every piece on the board as (square name, token, colour), by square."""
        return [(square_name(sq), self._token[t], c) for sq, t, c in sorted(self._units())]

    def fallen(self, colour: int) -> dict[str, int]:
        """``colour``'s fallen pieces: {token: count} (H5)."""
        counts = self.core.barracks_counts(colour)
        return {self._token[t]: counts[t] for t in self.revivable if counts[t]}

    def king_attacked(self, colour: int) -> bool:
        """Whether an enemy piece could capture ``colour``'s King now (H3, H8a)."""
        king = next((sq for sq, t, c in self._units() if t == self._king and c == colour), None)
        if king is None:
            return False
        enemy = 1 - colour
        return bool((self.core.attack_map(enemy, self.core.colour_bits(enemy)) >> king) & 1)

    def in_check(self) -> bool:
        return self.king_attacked(self.side)

    def status(self) -> str:
        """"x-win" (the side that just moved won on the X, H8b), "checkmate" (the side to move has
        lost, H8a), "stalemate" (a draw, H8a) or "play". H8c's draws belong to the game's driver."""
        if self.core.won_on_x:
            return "x-win"
        if self.core.generate():
            return "play"
        return "checkmate" if self.in_check() else "stalemate"

    # ------------------------------------------------------------------ moves

    def legal_orders(self) -> list[int]:
        """The legal moves as kernel order codes (none once the game is over)."""
        return self.core.generate()

    def order_text(self, code: int) -> str:
        """A move's text from its code alone (so a line of moves of both sides reads right): a Pawn
        never moves onto its own first rank, so a Pawn's move onto an end rank reaches its far rank."""
        kind, origin, dest, unit, promo = decode_order(code)
        text = square_name(origin) + square_name(dest)
        if unit in self._foot and (self._far_rank(dest, BLUE) or self._far_rank(dest, RED)):
            text += "=" + self._token[promo if promo >= 0 else unit]
        return text

    def _far_rank(self, sq: int, colour: int) -> bool:
        return sq >> 3 == (self.catalog.board.ranks - 1 if colour == BLUE else 0)

    def legal_moves(self) -> list[str]:
        """The legal moves' texts, in generation order."""
        return [self.order_text(code) for code in self.legal_orders()]

    def parse_move(self, text: str) -> int:
        """The legal order written ``text``; MoveTextError says what is wrong."""
        if not isinstance(text, str):
            raise MoveTextError(f"a move text must be a string, got {type(text).__name__}")
        s = text.strip()
        body, eq, promo = s.partition("=")
        if len(body) != 4 or parse_square(body[:2]) is None or parse_square(body[2:]) is None:
            raise MoveTextError(f"move {text!r}: expected <from><to>[=<type>], e.g. e2e4 or e7e8=Q")
        if eq and (len(promo) != 1 or promo.upper() not in self._letters):
            raise MoveTextError(f"move {text!r}: after '=' comes one type letter "
                                f"({''.join(self._token[t] for t in self.revivable)} or P)")
        wanted = body + (eq + promo.upper() if eq else "")
        for code in self.legal_orders():
            if self.order_text(code) == wanted:
                return code
        raise MoveTextError(f"move {text!r} is not legal in {self.text()}")

    def push(self, move: int | str) -> None:
        """Play a legal move (its code from legal_orders or its text)."""
        code = self.parse_move(move) if isinstance(move, str) else move
        if isinstance(move, int) and move not in self.legal_orders():
            raise MoveTextError(f"order {move} is not legal in {self.text()}")
        self.core.push(code)

    def pop(self) -> None:
        self.core.pop()

    def copy(self) -> CrusadePosition:
        other = CrusadePosition(self.catalog)
        other.core = self.core.copy()
        return other

    # ------------------------------------------------------------------ perft

    def perft(self, depth: int, control: PerftControl | None = None) -> int:
        """H9: the number of legal move sequences of ``depth`` plies, counted in the kernel."""
        if not isinstance(depth, int) or depth < 0:
            raise CrusadeError(f"perft depth must be an integer >= 0, got {depth!r}")
        return self.core.perft(depth, False, control)

    def divide(self, depth: int, control: PerftControl | None = None) -> dict[str, int]:
        """One entry per legal move: the perft of depth - 1 after it (move text -> count)."""
        if not isinstance(depth, int) or depth < 1:
            raise CrusadeError(f"divide needs an integer depth >= 1, got {depth!r}")
        out = {}
        for code in self.legal_orders():
            text = self.order_text(code)
            self.core.push(code)
            try:
                out[text] = self.core.perft(depth - 1, False, control)
            finally:
                self.core.pop()
        return out
