"""Slow, independent reference move generator and perft for Crusade & Conquer.

Written from the Crusade & Conquer rulebook and RULINGS H1-H9 only, WITHOUT looking at the engine's
code (ext/, engine/): it exists so that the engine's kernel can be checked against it.  Speed does
not matter here; every rule is one small, plain function that names the rule it implements.  The
rulebook prints no section numbers, so it is cited by its section titles ("The Castle", "Dragons").

How the engine should be checked against this
----------------------------------------------
tests/data/crusade_perft.epd holds positions with their perft counts from this module.  One position
per line, fields separated by " ;":

    <position text> [;layout <rows> <X Blue> <X Red>] ;D1 <n> ;D2 <n> ;D3 <n> [;D4 <n>] ; covers: <text>

Lines starting with "#" are comments.  `Dk n` is perft(position, k): the number of legal move
sequences of k plies (H9).  A line without `layout` is on the H1 layout; a `layout` field gives
another board (the default layout's own text is
`00122100/00111100/00000000/00000000/00000000/00000000/00111100/00122100 e1 e8`: eight rows of
heights, rank 8 first, files a-h, then the two X squares), used where a rule can only be seen on a
board unlike H1's (a square two levels above its neighbour): the engine loads that board as its
board data for the line.  The engine's kernel perft (and `ftc perft --game crusade`) must give
exactly n for every `Dk` of every line; a mismatch at some depth is located with `divide`
(per-move counts, below), descending into the first move whose counts differ.
`python -m tests.reference.crusade check-epd tests/data/crusade_perft.epd` recounts the file.

Board (RULINGS H1, PROVISIONAL layout)
--------------------------------------
The ordinary chessboard (a1 bottom left, Blue's side), where each square carries a level number:
open ground 0, a castle's first floor 1, a castle's top floor 2 (the King's platform).
HEIGHT_ROWS and X_SQUARES below are the layout as data; `Layout.from_rows` builds another one,
and every function that needs the board takes the layout with the position, so a corrected
layout is passed in, never coded.

Position text (RULINGS A3's form with H9's tokens and fallen-pieces field)
-------------------------------------------------------------------------
    <board> <side> <fallen> [<halfmove> <fullmove>] [revived:<square>[,<square>]]

* <board>: as in chess FEN, the 8th rank first and the 1st last, joined by "/", each rank read from
  file a to h, a digit 1-8 counting consecutive empty squares.  Letters: King=K, Queen=Q, Rook=R,
  Bishop=B, Knight=N, Pawn=P, Dragon=D, Flag Bearer=F; capital for a Blue piece, small for a Red
  one.  Each side has exactly one King.  A Pawn never stands on its own first rank (Blue rank 1,
  Red rank 8); a Pawn on the far rank (Blue rank 8, Red rank 1) is a kept Pawn (H5) and never
  moves again.
* <side>: "w" Blue to move, "b" Red to move.
* <fallen>: "-" when neither side has a fallen piece, else "[" + letters + "]": one letter per captured
  and not yet revived piece (two fallen Knights: NN), Blue's in uppercase, Red's in lowercase,
  e.g. "[QNnd]" (Blue lost a Queen and a Knight, Red a Knight and a Dragon).  Only the types a Pawn may be exchanged for
  appear (H5: Q R B N D F); a captured Pawn is never revived, so it is not listed, and a King is
  never captured.  Written Blue first, each side in the order Q R B N D F; read in any order;
  "[]" is read as "-".
* <halfmove> <fullmove>: plies since the last capture or Pawn move (H8c), and the move number
  (starting at 1, increased after each Red move); both or neither (then 0 and 1).
* revived:<squares>: the Flag Bearers standing on the opposing X that were placed there by a
  Pawn's exchange (H5) rather than by a step, so that they have not won (H8b).  A Flag Bearer on
  the opposing X that is not listed, with the X's owner to move, has just stepped there: the game is
  over and the position has no moves.  (With its own side to move, a Flag Bearer on the opposing X
  can only have been revived there; the field may then be left out and is implied.)
* `startpos` is accepted for the H2 start position.
Writing a position gives the canonical text (fallen pieces in order, both clocks, the revived field
only when some Flag Bearer is revived on an X); the canonical text reads back to itself.

Move text
---------
`<from><to>` (`e2e4`, a capture is written the same way) and, for a Pawn reaching the far rank,
`=<type>` appended: `e7e8=Q` exchanges the Pawn for a fallen Queen, `e7e8=P` keeps the Pawn (H5).
The type letter is uppercase for both sides (it names a type, not a token); lowercase is accepted.

Public functions
----------------
    parse(text, layout=DEFAULT_LAYOUT) -> Position       (PositionTextError names what is wrong)
    Position.text() -> str
    legal_moves(pos) -> list[Move]; move_text(move) -> str; parse_move(pos, text) -> Move
    play(pos, move_or_text) -> Position
    status(pos) -> "play" | "checkmate" | "stalemate" | "x-win"
    perft(pos_or_text, depth) -> int;  divide(pos_or_text, depth) -> dict[str, int]
Command line:
    python -m tests.reference.crusade perft "<position text>|startpos" <depth> [--divide]
        [--layout "<rows> <X Blue> <X Red>"]
    python -m tests.reference.crusade check-epd <file> [--max-depth N]

Readings where the rulings leave something open (each follows from the text cited):
  * "starting square" of H5's double step is the owner's second rank (Blue 2, Red 7) and "inside a
    castle" means a height above 0 there (H1, H2: the castle Pawns start on c2 f2 / c7 f7);
  * every Pawn move changes height by at most 1, its diagonal capture included (H3: the Pawn's
    single step; rulebook "The Castle": no movement climbs two levels);
  * a kept Pawn needs no mark of its own: a Pawn on its far rank is always a kept one (H5), and it
    has no square to go to; the revived Flag Bearer on an X does need one (the `revived` field);
  * a position whose side that just moved has its King attacked is refused: H8a never lets the
    game reach it, and the King is never captured;
  * H8c's draws are not part of perft (H9): the halfmove clock is kept (`clock_draw`), and the
    repetition rule needs the game's history, which a position does not hold.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

FILES = "abcdefgh"
BLUE, RED = "w", "b"
SIDE_NAME = {BLUE: "Blue", RED: "Red"}
KINDS = "KQRBNPDF"          # H9 tokens
REVIVABLE = "QRBNDF"        # H5: a fallen piece of any type but King and Pawn may be revived

# --------------------------------------------------------------------------------------------
# The board as data (RULINGS H1, PROVISIONAL): one string per rank, rank 8 first, files a-h,
# each digit the square's level (0 open ground, 1 first floor, 2 top floor), and each side's X.
# --------------------------------------------------------------------------------------------

HEIGHT_ROWS = (
    "00122100",   # rank 8: Red's castle, lower c8 f8, upper d8 e8
    "00111100",   # rank 7: Red's castle, lower c7 d7 e7 f7
    "00000000",   # rank 6
    "00000000",   # rank 5
    "00000000",   # rank 4
    "00000000",   # rank 3
    "00111100",   # rank 2: Blue's castle, lower c2 d2 e2 f2
    "00122100",   # rank 1: Blue's castle, lower c1 f1, upper d1 e1
)
X_SQUARES = {BLUE: "e1", RED: "e8"}   # H1: the X is where that side's King begins the game

# H2 (PROVISIONAL set-up): Blue on ranks 1-2, Red mirrored top to bottom on ranks 8-7.
START_TEXT = "rnbqkbnr/pppdfppp/8/8/8/8/PPPDFPPP/RNBQKBNR w - 0 1"


class LayoutError(ValueError):
    """A layout (heights, X squares) that is not a valid board."""


class PositionTextError(ValueError):
    """A position text that cannot be read; the message names the field and what is wrong."""


class MoveTextError(ValueError):
    """A move text that is malformed or not legal in the position."""


def other(side: str) -> str:
    return RED if side == BLUE else BLUE


def on_board(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


def sq_name(sq) -> str:
    return FILES[sq[0]] + str(sq[1] + 1)


def sq_parse(s: str):
    """'e4' -> (4, 3); None when s is not a square name."""
    if len(s) != 2 or s[0] not in FILES or s[1] not in "12345678":
        return None
    return (FILES.index(s[0]), int(s[1]) - 1)


@dataclass(frozen=True)
class Layout:
    heights: dict     # (file, rank) -> 0, 1 or 2, every square
    x: dict           # side -> (file, rank) of that side's X

    @staticmethod
    def from_rows(rows, x_blue: str, x_red: str) -> Layout:
        """A layout from 8 strings of 8 height digits (rank 8 first) and the two X squares."""
        if len(rows) != 8:
            raise LayoutError(f"a layout needs 8 rows of heights (ranks 8 to 1), got {len(rows)}")
        heights = {}
        for i, row in enumerate(rows):
            rank = 8 - i
            if len(row) != 8:
                raise LayoutError(f"rank {rank}: needs 8 heights (files a-h), got {len(row)}: {row!r}")
            for f, ch in enumerate(row):
                if ch not in "012":
                    raise LayoutError(f"{FILES[f]}{rank}: height must be 0, 1 or 2, got {ch!r}")
                heights[(f, rank - 1)] = int(ch)
        x = {}
        for side, name in ((BLUE, x_blue), (RED, x_red)):
            sq = sq_parse(name)
            if sq is None:
                raise LayoutError(f"{SIDE_NAME[side]}'s X: {name!r} is not a square a1-h8")
            x[side] = sq
        if x[BLUE] == x[RED]:
            raise LayoutError(f"both sides' X is {x_blue}: the X squares must differ")
        return Layout(heights, x)

    def h(self, sq) -> int:
        return self.heights[sq]


DEFAULT_LAYOUT = Layout.from_rows(HEIGHT_ROWS, X_SQUARES[BLUE], X_SQUARES[RED])


def parse_layout(text: str) -> Layout:
    """'<rank 8>/<rank 7>/.../<rank 1> <X Blue> <X Red>' (the EPD `layout` field) -> Layout."""
    parts = text.split()
    if len(parts) != 3:
        raise LayoutError(f"layout: expected '<8 rows of heights joined by /> <X Blue> <X Red>', "
                          f"got {text!r}")
    return Layout.from_rows(parts[0].split("/"), parts[1], parts[2])


def layout_text(layout: Layout) -> str:
    rows = ["".join(str(layout.heights[(f, r)]) for f in range(8)) for r in range(7, -1, -1)]
    return "/".join(rows) + f" {sq_name(layout.x[BLUE])} {sq_name(layout.x[RED])}"


# --------------------------------------------------------------------------------------------
# Position
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Move:
    frm: tuple
    to: tuple
    promo: str | None = None     # None, or "P" (keep the Pawn) or the revived type (H5)


@dataclass
class Position:
    board: dict              # (file, rank) -> (kind, side), kind in KINDS (uppercase)
    side: str                # BLUE or RED, to move
    fallen: dict             # side -> tuple of kinds (REVIVABLE order), captured and not revived
    halfmove: int = 0        # H8c: plies since the last capture or Pawn move
    fullmove: int = 1
    revived: frozenset = frozenset()   # squares of Flag Bearers revived onto the opposing X (H8b)
    layout: Layout = DEFAULT_LAYOUT

    def text(self) -> str:
        ranks = []
        for r in range(7, -1, -1):
            out, empty = "", 0
            for f in range(8):
                piece = self.board.get((f, r))
                if piece is None:
                    empty += 1
                    continue
                if empty:
                    out += str(empty)
                    empty = 0
                out += token(*piece)
            if empty:
                out += str(empty)
            ranks.append(out)
        letters = "".join(self.fallen[BLUE]) + "".join(self.fallen[RED]).lower()
        fields = ["/".join(ranks), self.side, f"[{letters}]" if letters else "-",
                  str(self.halfmove), str(self.fullmove)]
        if self.revived:
            fields.append("revived:" + ",".join(sq_name(s) for s in sorted(self.revived)))
        return " ".join(fields)


def token(kind: str, side: str) -> str:
    return kind if side == BLUE else kind.lower()


def sort_fallen(kinds) -> tuple:
    return tuple(sorted(kinds, key=REVIVABLE.index))


def forward(side: str) -> int:
    # RULINGS H2: Blue plays up the board from ranks 1-2, Red down from ranks 7-8.
    return 1 if side == BLUE else -1


def far_rank(side: str) -> int:
    # H5: the opponent's back row, where a Pawn is exchanged or kept.
    return 7 if side == BLUE else 0


def home_rank(side: str) -> int:
    return 0 if side == BLUE else 7


def pawn_start_rank(side: str) -> int:
    # H2: every Pawn starts on its owner's second rank.
    return 1 if side == BLUE else 6


def king_square(board, side):
    for sq, (kind, owner) in board.items():
        if kind == "K" and owner == side:
            return sq
    return None


def flag_on_x(pos: Position, side: str):
    """The square of `side`'s Flag Bearer standing on the opposing X, or None."""
    x = pos.layout.x[other(side)]
    return x if pos.board.get(x) == ("F", side) else None


def x_winner(pos: Position):
    """H8b: the side whose Flag Bearer stepped onto the opposing X on the last move, or None.
    It is the side that just moved, its Flag Bearer stands on the X of the side to move, and
    it was not revived there."""
    mover = other(pos.side)
    sq = flag_on_x(pos, mover)
    if sq is not None and sq not in pos.revived:
        return mover
    return None


# --------------------------------------------------------------------------------------------
# Position text
# --------------------------------------------------------------------------------------------

def _parse_board(s: str) -> dict:
    rows = s.split("/")
    if len(rows) != 8:
        raise PositionTextError(f"board: needs 8 ranks separated by '/', got {len(rows)}")
    board = {}
    for i, row in enumerate(rows):
        rank = 7 - i
        f = 0
        if row == "":
            raise PositionTextError(f"board: rank {rank + 1} is empty (write 8 for an empty rank)")
        for ch in row:
            if ch in "12345678":
                f += int(ch)
            elif ch.upper() in KINDS:
                if f >= 8:
                    raise PositionTextError(f"board: rank {rank + 1} has more than 8 squares")
                board[(f, rank)] = (ch.upper(), BLUE if ch.isupper() else RED)
                f += 1
            else:
                raise PositionTextError(
                    f"board: rank {rank + 1}: {ch!r} is not a piece letter ({KINDS}, lowercase for "
                    "Red) or a digit 1-8")
            if f > 8:
                raise PositionTextError(f"board: rank {rank + 1} has more than 8 squares")
        if f != 8:
            raise PositionTextError(f"board: rank {rank + 1} has {f} squares, needs 8")
    return board


def _parse_fallen(s: str) -> dict:
    fallen = {BLUE: [], RED: []}
    if s == "-" or s == "[]":
        return {BLUE: (), RED: ()}
    if len(s) < 2 or s[0] != "[" or s[-1] != "]":
        raise PositionTextError(f"fallen pieces: {s!r} must be '-' or letters in brackets, e.g. [Qn]")
    for ch in s[1:-1]:
        kind = ch.upper()
        if kind in ("K", "P"):
            why = "a King is never captured" if kind == "K" else "a captured Pawn is never revived"
            raise PositionTextError(f"fallen pieces: {ch!r} cannot be listed ({why}, RULINGS H5)")
        if kind not in REVIVABLE:
            raise PositionTextError(f"fallen pieces: {ch!r} is not a piece letter ({REVIVABLE})")
        fallen[BLUE if ch.isupper() else RED].append(kind)
    return {side: sort_fallen(kinds) for side, kinds in fallen.items()}


def parse(text: str, layout: Layout = DEFAULT_LAYOUT) -> Position:
    """Read a position text (module docstring); PositionTextError names what is wrong."""
    if not isinstance(text, str):
        raise PositionTextError(f"a position text must be a string, got {type(text).__name__}")
    if text.strip() == "startpos":
        text = START_TEXT
    fields = text.split()
    if len(fields) < 3:
        raise PositionTextError(
            f"needs at least 3 fields: <board> <side> <fallen>, got {len(fields)} in {text!r}")
    board = _parse_board(fields[0])
    side = fields[1]
    if side not in (BLUE, RED):
        raise PositionTextError(f"side to move: {side!r} must be 'w' (Blue) or 'b' (Red)")
    fallen = _parse_fallen(fields[2])
    rest = fields[3:]
    revived_field = None
    if rest and rest[-1].startswith("revived:"):
        revived_field = rest.pop()
    if len(rest) not in (0, 2):
        raise PositionTextError(
            f"after the fallen pieces: expected '<halfmove> <fullmove>' and/or 'revived:<squares>', "
            f"got {' '.join(rest)!r}")
    halfmove, fullmove = 0, 1
    if rest:
        for name, value, low in (("halfmove clock", rest[0], 0), ("fullmove number", rest[1], 1)):
            if not value.isdigit() or int(value) < low:
                raise PositionTextError(f"{name}: must be an integer >= {low}, got {value!r}")
        halfmove, fullmove = int(rest[0]), int(rest[1])

    for side_ in (BLUE, RED):
        kings = [sq for sq, p in board.items() if p == ("K", side_)]
        if len(kings) != 1:
            raise PositionTextError(
                f"board: {SIDE_NAME[side_]} needs exactly one King, found {len(kings)}")
        for sq, p in board.items():
            if p == ("P", side_) and sq[1] == home_rank(side_):
                raise PositionTextError(
                    f"board: {SIDE_NAME[side_]} Pawn on {sq_name(sq)}, its own first rank, "
                    "where no Pawn can stand")

    revived = set()
    if revived_field is not None:
        names = revived_field[len("revived:"):].split(",")
        for name in names:
            sq = sq_parse(name)
            if sq is None:
                raise PositionTextError(f"revived: {name!r} is not a square a1-h8")
            owner = next((s for s in (BLUE, RED) if layout.x[other(s)] == sq), None)
            if owner is None or board.get(sq) != ("F", owner):
                raise PositionTextError(
                    f"revived: {name} must hold a Flag Bearer standing on the opposing side's X")
            revived.add(sq)
    pos = Position(board, side, fallen, halfmove, fullmove, frozenset(), layout)
    # A Flag Bearer on the opposing X with its own side to move cannot have stepped there
    # (the game would have ended, H8b): it was revived there.
    implied = flag_on_x(pos, side)
    if implied is not None:
        revived.add(implied)
    pos.revived = frozenset(revived)
    # The side that just moved may not have left its King capturable (H8a).
    if king_attacked(board, layout, other(side)):
        raise PositionTextError(
            f"board: {SIDE_NAME[other(side)]}'s King is attacked with {SIDE_NAME[side]} to move; "
            "no legal move leaves its own King capturable (RULINGS H8)")
    return pos


# --------------------------------------------------------------------------------------------
# Movement (RULINGS H3-H7; rulebook "The Castle" and the piece sections)
# --------------------------------------------------------------------------------------------

ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
ALL8 = ORTHO + DIAG
KNIGHT = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))


def climb_ok(layout, a, b) -> bool:
    # H3: no single movement between two squares changes height by 2.
    return abs(layout.h(a) - layout.h(b)) <= 1


def may_capture(kind: str, victim) -> bool:
    # H6: only the King may capture a Flag Bearer; every other piece captures any enemy piece
    # but the Flag Bearer (rulebook, each piece's section); the Flag Bearer captures nothing.
    if kind == "F":
        return False
    return victim[0] != "F" or kind == "K"


def step_targets(board, layout, sq, side, kind, dirs):
    """One step in each of `dirs` (King, Dragon's step): H3, at most one level up or down."""
    out = []
    for df, dr in dirs:
        to = (sq[0] + df, sq[1] + dr)
        if not on_board(*to) or not climb_ok(layout, sq, to):
            continue
        victim = board.get(to)
        if victim is None or (victim[1] != side and may_capture(kind, victim)):
            out.append(to)
    return out


def slide_targets(board, layout, sq, side, kind, dirs):
    """Rook, Bishop, Queen: H3, the first square reached at another level than the previous
    square is the last one of that line (moving there or capturing there), and no step of a slide
    crosses two levels at once."""
    out = []
    for df, dr in dirs:
        cur = sq
        while True:
            nxt = (cur[0] + df, cur[1] + dr)
            if not on_board(*nxt) or not climb_ok(layout, cur, nxt):
                break
            victim = board.get(nxt)
            if victim is not None:
                if victim[1] != side and may_capture(kind, victim):
                    out.append(nxt)
                break                                  # no piece jumps a piece
            out.append(nxt)
            if layout.h(nxt) != layout.h(cur):
                break                                  # H3: a level change ends the slide
            cur = nxt
    return out


def knight_targets(board, layout, sq, side):
    """H4: the chess leap over anything; the landing square at most one level above or below."""
    out = []
    for df, dr in KNIGHT:
        to = (sq[0] + df, sq[1] + dr)
        if not on_board(*to) or not climb_ok(layout, sq, to):
            continue
        victim = board.get(to)
        if victim is None or (victim[1] != side and may_capture("N", victim)):
            out.append(to)
    return out


def is_kept_pawn(sq, side) -> bool:
    # H5: a Pawn on the far rank was kept there and never moves again.
    return sq[1] == far_rank(side)


def pawn_targets(board, layout, sq, side):
    """H5 with H3: single step, double step, diagonal captures; a kept Pawn has none."""
    if is_kept_pawn(sq, side):
        return []
    out = []
    fw = forward(side)
    one = (sq[0], sq[1] + fw)
    if on_board(*one) and board.get(one) is None and climb_ok(layout, sq, one):
        out.append(one)
        # Double step: from the starting rank, not from inside a castle, not stopped on the
        # first square by a level change, the second square empty and within one level.
        two = (sq[0], sq[1] + 2 * fw)
        if (sq[1] == pawn_start_rank(side) and layout.h(sq) == 0
                and layout.h(one) == layout.h(sq) and on_board(*two)
                and board.get(two) is None and climb_ok(layout, one, two)):
            out.append(two)
    out += pawn_capture_targets(board, layout, sq, side)
    return out


def pawn_capture_targets(board, layout, sq, side):
    if is_kept_pawn(sq, side):
        return []
    out = []
    for df in (-1, 1):
        to = (sq[0] + df, sq[1] + forward(side))
        if not on_board(*to) or not climb_ok(layout, sq, to):
            continue
        victim = board.get(to)
        if victim is not None and victim[1] != side and may_capture("P", victim):
            out.append(to)
    return out


def flag_targets(board, layout, sq, side):
    """H6: one diagonal step (any of the four) to an empty square, at most one level."""
    out = []
    for df, dr in DIAG:
        to = (sq[0] + df, sq[1] + dr)
        if on_board(*to) and board.get(to) is None and climb_ok(layout, sq, to):
            out.append(to)
    return out


def dragon_targets(board, layout, sq, side):
    """H7: in each direction either a King step (next square empty or a capturable enemy, H3)
    or, if the neighbour in that direction is a friendly piece, a flight over every friendly piece
    in a row there to the first square past them (empty, or a capturable enemy), heights ignored."""
    out = []
    for df, dr in ALL8:
        nxt = (sq[0] + df, sq[1] + dr)
        if not on_board(*nxt):
            continue
        occupant = board.get(nxt)
        if occupant is None or occupant[1] != side:
            if climb_ok(layout, sq, nxt) and (occupant is None or may_capture("D", occupant)):
                out.append(nxt)
            continue
        land = nxt
        while on_board(*land) and board.get(land) is not None and board[land][1] == side:
            land = (land[0] + df, land[1] + dr)
        if not on_board(*land):
            continue                                   # the line runs off the board
        victim = board.get(land)
        if victim is None or may_capture("D", victim):
            out.append(land)
    return out


def targets(board, layout, sq):
    """Every square the piece on `sq` may move to (captures included), legality aside."""
    kind, side = board[sq]
    if kind == "K":
        return step_targets(board, layout, sq, side, "K", ALL8)
    if kind == "Q":
        return slide_targets(board, layout, sq, side, "Q", ALL8)
    if kind == "R":
        return slide_targets(board, layout, sq, side, "R", ORTHO)
    if kind == "B":
        return slide_targets(board, layout, sq, side, "B", DIAG)
    if kind == "N":
        return knight_targets(board, layout, sq, side)
    if kind == "P":
        return pawn_targets(board, layout, sq, side)
    if kind == "D":
        return dragon_targets(board, layout, sq, side)
    if kind == "F":
        return flag_targets(board, layout, sq, side)
    raise AssertionError(kind)


def king_attacked(board, layout, side) -> bool:
    """H3/H8a: `side`'s King stands on a square some enemy piece could capture on, by exactly
    the paths and stops of its moves (a Pawn's forward steps capture nothing)."""
    ksq = king_square(board, side)
    for sq, (kind, owner) in list(board.items()):
        if owner == side:
            continue
        hits = pawn_capture_targets(board, layout, sq, owner) if kind == "P" else \
            targets(board, layout, sq)
        if ksq in hits:
            return True
    return False


def pseudo_moves(pos: Position):
    """Moves by the movement rules, before H8a's check; promotion choices expanded (H5, H9)."""
    moves = []
    for sq in sorted(pos.board):
        kind, owner = pos.board[sq]
        if owner != pos.side:
            continue
        for to in targets(pos.board, pos.layout, sq):
            if kind == "P" and to[1] == far_rank(owner):
                # H5: keep the Pawn, or exchange it for one fallen type (one move per type).
                for choice in ("P",) + tuple(dict.fromkeys(pos.fallen[owner])):
                    moves.append(Move(sq, to, choice))
            else:
                moves.append(Move(sq, to))
    return moves


def apply_move(pos: Position, move: Move) -> Position:
    """The position after `move` (assumed pseudo-legal)."""
    board = dict(pos.board)
    kind, side = board.pop(move.frm)
    victim = board.get(move.to)
    fallen = {BLUE: pos.fallen[BLUE], RED: pos.fallen[RED]}
    if move.promo is None or move.promo == "P":
        board[move.to] = (kind, side)
    else:
        # H5: the Pawn leaves the game; one fallen piece of the chosen type comes back.
        board[move.to] = (move.promo, side)
        left = list(fallen[side])
        left.remove(move.promo)
        fallen[side] = tuple(left)
    if victim is not None and victim[0] in REVIVABLE:
        fallen[victim[1]] = sort_fallen(fallen[victim[1]] + (victim[0],))
    revived = set(pos.revived) - {move.frm, move.to}
    if move.promo == "F" and move.to == pos.layout.x[other(side)]:
        revived.add(move.to)                          # H8b: revived onto the X, no win
    halfmove = 0 if (victim is not None or kind == "P") else pos.halfmove + 1
    fullmove = pos.fullmove + (1 if side == RED else 0)
    return Position(board, other(side), fallen, halfmove, fullmove, frozenset(revived), pos.layout)


def legal_moves(pos: Position):
    """H8: none once the game is over by the X; else the moves that leave the mover's King
    not capturable; this holds for a Flag Bearer moving to the X as for any move."""
    if x_winner(pos) is not None:
        return []
    return [m for m in pseudo_moves(pos)
            if not king_attacked(apply_move(pos, m).board, pos.layout, pos.side)]


def in_check(pos: Position) -> bool:
    return king_attacked(pos.board, pos.layout, pos.side)


def status(pos: Position) -> str:
    """'x-win' (the side that just moved won on the X, H8b), 'checkmate' (the side to move has
    lost, H8a), 'stalemate' (draw, H8a) or 'play'.  H8c's draws are left to the game driver."""
    if x_winner(pos) is not None:
        return "x-win"
    if legal_moves(pos):
        return "play"
    return "checkmate" if in_check(pos) else "stalemate"


def clock_draw(pos: Position) -> bool:
    """H8c's 100-ply rule (automated play only; never part of perft)."""
    return pos.halfmove >= 100


# --------------------------------------------------------------------------------------------
# Move text, play, perft
# --------------------------------------------------------------------------------------------

def move_text(move: Move) -> str:
    s = sq_name(move.frm) + sq_name(move.to)
    return s + ("=" + move.promo if move.promo else "")


def parse_move(pos: Position, text: str) -> Move:
    """A legal move of `pos` from its text; MoveTextError says what is wrong."""
    s = text.strip()
    body, _, promo = s.partition("=")
    frm, to = sq_parse(body[:2]), sq_parse(body[2:])
    if len(body) != 4 or frm is None or to is None:
        raise MoveTextError(f"move {text!r}: expected <from><to>[=<type>], e.g. e2e4 or e7e8=Q")
    if "=" in s and (len(promo) != 1 or promo.upper() not in KINDS):
        raise MoveTextError(f"move {text!r}: after '=' comes one type letter ({REVIVABLE} or P)")
    move = Move(frm, to, promo.upper() if promo else None)
    if move not in legal_moves(pos):
        raise MoveTextError(f"move {text!r} is not legal in {pos.text()}")
    return move


def play(pos: Position, move) -> Position:
    """The position after a legal move (a Move or its text)."""
    if isinstance(move, str):
        move = parse_move(pos, move)
    elif move not in legal_moves(pos):
        raise MoveTextError(f"move {move_text(move)} is not legal in {pos.text()}")
    return apply_move(pos, move)


def _position(pos_or_text) -> Position:
    return parse(pos_or_text) if isinstance(pos_or_text, str) else pos_or_text


def _perft(pos: Position, depth: int) -> int:
    if depth == 0:
        return 1
    moves = legal_moves(pos)
    if depth == 1:
        return len(moves)
    return sum(_perft(apply_move(pos, m), depth - 1) for m in moves)


def perft(pos_or_text, depth: int) -> int:
    """H9: the number of legal move sequences of `depth` plies; a finished game has no moves."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    return _perft(_position(pos_or_text), depth)


def divide(pos_or_text, depth: int) -> dict:
    """One entry per legal move: the perft of depth-1 after it (move text -> count)."""
    if depth < 1:
        raise ValueError(f"divide needs depth >= 1, got {depth}")
    pos = _position(pos_or_text)
    return {move_text(m): _perft(apply_move(pos, m), depth - 1) for m in legal_moves(pos)}


# --------------------------------------------------------------------------------------------
# EPD file and command line
# --------------------------------------------------------------------------------------------

def read_epd(path):
    """[(line number, Position, {depth: count}, covers)] of an EPD file (format above)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [f.strip() for f in line.split(" ;")]
            counts, covers, layout = {}, "", DEFAULT_LAYOUT
            for f in fields[1:]:
                if f.startswith("layout "):
                    layout = parse_layout(f[len("layout "):])
                elif f.startswith("D") and f[1:].split(" ")[0].isdigit():
                    d, _, n = f[1:].partition(" ")
                    if not n.strip().isdigit():
                        raise ValueError(f"{path}:{number}: {f!r}: count is not a number")
                    counts[int(d)] = int(n)
                elif f.startswith("covers:"):
                    covers = f[len("covers:"):].strip()
                else:
                    raise ValueError(f"{path}:{number}: unknown field {f!r}")
            try:
                pos = parse(fields[0], layout)
            except PositionTextError as exc:
                raise ValueError(f"{path}:{number}: {exc}") from None
            out.append((number, pos, counts, covers))
    return out


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(prog="python -m tests.reference.crusade",
                                     description="Slow reference perft for Crusade & Conquer.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("perft", help="count move sequences")
    p.add_argument("position", help="position text or 'startpos'")
    p.add_argument("depth", type=int)
    p.add_argument("--divide", action="store_true", help="one line per root move")
    p.add_argument("--layout", help="another board: '<8 rows of heights joined by /> <X Blue> <X Red>'")
    c = sub.add_parser("check-epd", help="recount every line of an EPD file")
    c.add_argument("file")
    c.add_argument("--max-depth", type=int, default=99)
    args = parser.parse_args(argv)
    try:
        if args.command == "perft":
            layout = parse_layout(args.layout) if args.layout else DEFAULT_LAYOUT
            pos = parse(args.position, layout)
            if args.depth < 1:
                parser.error("depth must be at least 1")
            if args.divide:
                counts = divide(pos, args.depth)
                for move in sorted(counts):
                    print(f"{move}: {counts[move]}")
                total = sum(counts.values())
            else:
                total = perft(pos, args.depth)
            print(f"Nodes searched: {total}")
            return 0
        bad = 0
        for number, pos, counts, covers in read_epd(args.file):
            for d, n in sorted(counts.items()):
                if d > args.max_depth:
                    continue
                got = perft(pos, d)
                ok = got == n
                bad += not ok
                print(f"line {number} D{d}: {'ok' if ok else f'MISMATCH {got} != {n}'}  ({covers})")
        print("all counts agree" if not bad else f"{bad} mismatches")
        return 1 if bad else 0
    except (PositionTextError, MoveTextError, LayoutError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
