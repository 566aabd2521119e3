"""Slow, independent reference move generator for For the Crown (board-only rules).

Written directly from the rulings of sections A, B, C and E (docs/rules/rulings.md) and the position text of the
engine's API contract, WITHOUT looking at the engine's code: it exists to be compared with the engine
(tests/test_reference_differential.py).  Speed is irrelevant here; every movement kind is one small,
plain function that says which rule it implements.

Representation: a square is an int 0..63 (a1=0, b1=1, ..., h8=63); a unit is a pair
(token, colour) with token in canonical upper case ("N", "~N") and colour "w" (Blue) or "b" (Yellow).

Public functions:
    parse(text, promote=None) -> RefPosition
    reference_orders(text, cylindrical=False, promote=None) -> set[str]
    reference_perft(text, depth, cylindrical=False, promote=None) -> int
    reference_divide(text, depth, cylindrical=False, promote=None) -> dict[str, int]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

# --------------------------------------------------------------------------------------------
# Unit data (RULINGS A3, E)
# --------------------------------------------------------------------------------------------

BASE_TYPES = ("K", "Q", "R", "B", "N", "P", "A", "U", "E", "C", "L", "D",
              "G", "H", "I", "M", "Z", "O", "F", "S", "X", "Y", "T", "W")
EXPANSION_TYPES = ("~B", "~P", "~N", "~K", "~Z", "~R", "~M", "~G", "~H", "~L")
ALL_TYPES = BASE_TYPES + EXPANSION_TYPES

# Foot units promote (B18) and may deploy to the second rank (B19).
FOOT = frozenset({"P", "T", "M", "I", "~P", "~M"})
# Sovereigns: a side without one on the board has lost (C2, C8).
SOVEREIGN = frozenset({"K", "U", "~K"})

# B18 replaces a promoting Foot unit by a unit from the Stock and returns the Foot unit to the
# Stock; status flags are per unit (A2), so the new unit starts without the old one's flags (in
# particular without its immunity).  RULINGS does not say this in so many words: if the project
# rules otherwise, flip this switch (and test_promoted_unit_does_not_inherit_immunity).
PROMOTED_UNIT_KEEPS_STATUS = False

# E: the Stock inventory (provisional numbers).
INVENTORY = {t: 4 for t in BASE_TYPES}
INVENTORY.update({"P": 20, "N": 6, "B": 6, "R": 6, "Q": 4, "K": 4, "T": 7, "M": 5, "A": 5})
INVENTORY.update({t: 5 for t in EXPANSION_TYPES})
INVENTORY.update({"~P": 8, "~K": 4, "~M": 6})

FILES = "abcdefgh"
WHITE, BLACK = "w", "b"


def other(color: str) -> str:
    return BLACK if color == WHITE else WHITE


def sq_name(sq: int) -> str:
    return FILES[sq % 8] + str(sq // 8 + 1)


def sq_parse(name: str) -> int:
    f = FILES.index(name[0])
    r = int(name[1]) - 1
    if not 0 <= r < 8:
        raise ValueError(f"bad square {name!r}")
    return r * 8 + f


# --------------------------------------------------------------------------------------------
# Position and its text (RULINGS A3 + the contract's optional fields)
# --------------------------------------------------------------------------------------------

@dataclass
class RefPosition:
    board: dict            # square -> (token, colour)
    flags: dict            # square -> frozenset of status flags ("o", "n", "w", "b")
    barracks: dict         # colour -> Counter(token -> count)
    stock: Counter         # token -> count
    turn: str              # "w" or "b"
    promote: tuple         # tokens a Foot unit may promote to
    extra: dict = field(default_factory=dict)


def _tokens(s: str):
    """Split a run of unit tokens ("NN~zp") into (token, colour) pairs."""
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "~":
            if i + 1 >= len(s):
                raise ValueError("dangling ~")
            c2 = s[i + 1]
            tok = "~" + c2.upper()
            if tok not in EXPANSION_TYPES:
                raise ValueError(f"unknown token {'~' + c2!r}")
            out.append((tok, WHITE if c2.isupper() else BLACK))
            i += 2
        else:
            if c.upper() not in BASE_TYPES:
                raise ValueError(f"unknown token {c!r}")
            out.append((c.upper(), WHITE if c.isupper() else BLACK))
            i += 1
    return out


def _counted_tokens(s: str) -> Counter:
    """Parse "P4Q2~B5" into a Counter; "-" is empty."""
    out = Counter()
    if s in ("", "-"):
        return out
    i = 0
    while i < len(s):
        if s[i] == "~":
            tok = "~" + s[i + 1].upper()
            i += 2
        else:
            tok = s[i].upper()
            i += 1
        if tok not in ALL_TYPES:
            raise ValueError(f"unknown stock token {tok!r}")
        j = i
        while j < len(s) and s[j].isdigit():
            j += 1
        if j == i:
            raise ValueError("stock token without a count")
        out[tok] += int(s[i:j])
        i = j
    return out


def _promote_tokens(s: str) -> tuple:
    if s in ("", "-"):
        return ()
    return tuple(t for t, _ in _tokens(s.upper()))


def parse(text: str, promote: str | None = None) -> RefPosition:
    fields = text.split()
    if not fields:
        raise ValueError("empty position text")
    head = fields[0]
    barracks_text = ""
    if "[" in head:
        head, rest = head.split("[", 1)
        if not rest.endswith("]"):
            raise ValueError("unterminated barracks")
        barracks_text = rest[:-1]
    ranks = head.split("/")
    if len(ranks) != 8:
        raise ValueError("board needs 8 ranks")
    board = {}
    for ri, rank_text in enumerate(ranks):
        rank = 7 - ri
        file = 0
        i = 0
        while i < len(rank_text):
            c = rank_text[i]
            if c.isdigit():
                file += int(c)
                i += 1
                continue
            if c == "~":
                tok_text = rank_text[i:i + 2]
                i += 2
            else:
                tok_text = c
                i += 1
            ((tok, col),) = _tokens(tok_text)
            if file >= 8:
                raise ValueError("rank too long")
            board[rank * 8 + file] = (tok, col)
            file += 1
        if file != 8:
            raise ValueError("rank length is not 8")
    barracks = {WHITE: Counter(), BLACK: Counter()}
    for tok, col in _tokens(barracks_text):
        barracks[col][tok] += 1

    turn = fields[1] if len(fields) > 1 else WHITE
    if turn not in (WHITE, BLACK):
        raise ValueError("side must be w or b")

    stock = None
    promote_field = None
    flags = {}
    for f in fields[2:]:
        if f.startswith("stock:"):
            stock = _counted_tokens(f[len("stock:"):])
        elif f.startswith("promote:"):
            promote_field = _promote_tokens(f[len("promote:"):])
        elif f.startswith("status:"):
            body = f[len("status:"):]
            if body not in ("", "-"):
                for item in body.split(","):
                    s = sq_parse(item[:2])
                    fl = frozenset(item[2:])
                    if not fl <= {"o", "n", "w", "b"}:
                        raise ValueError(f"bad status flags {item!r}")
                    flags[s] = flags.get(s, frozenset()) | fl
        # castling, en passant and the clocks are accepted and ignored (A3)

    if stock is None:
        # Contract: the inventory minus every unit on the board and in both Barracks, at least 0.
        used = Counter(tok for tok, _ in board.values())
        used.update(barracks[WHITE])
        used.update(barracks[BLACK])
        stock = Counter({t: max(0, INVENTORY[t] - used[t]) for t in ALL_TYPES})

    if promote is not None:
        promote_types = _promote_tokens(promote)
    elif promote_field is not None:
        promote_types = promote_field
    else:
        promote_types = BASE_TYPES

    # flags only mean something on occupied squares
    flags = {s: fl for s, fl in flags.items() if s in board and fl}
    return RefPosition(board, flags, barracks, stock, turn, tuple(promote_types))


def token_text(tok: str, color: str) -> str:
    return tok if color == WHITE else tok.lower()


# --------------------------------------------------------------------------------------------
# Geometry.  dx = file change, dy = rank change, both absolute (board) directions.
# --------------------------------------------------------------------------------------------

def shift(sq: int, dx: int, dy: int, cyl: bool):
    """Square reached by one step/leap of (dx, dy), or None if it leaves the board.
    Cylindrical (B17, 16.0): files wrap around, ranks never do."""
    f, r = sq % 8 + dx, sq // 8 + dy
    if not 0 <= r < 8:
        return None
    if cyl:
        f %= 8
    elif not 0 <= f < 8:
        return None
    return r * 8 + f


def forward(color: str) -> int:
    """A1: forward is toward rank 8 for Blue, toward rank 1 for Yellow."""
    return 1 if color == WHITE else -1


def eighth_rank(color: str) -> int:
    return 7 if color == WHITE else 0


def owner_rank(sq: int, color: str) -> int:
    """1-based rank of sq as seen by the owner."""
    r = sq // 8 + 1
    return r if color == WHITE else 9 - r


KING_STEPS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
STRAIGHT = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAGONAL = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
HERO = [(a * sx, b * sy) for a, b in ((1, 3), (3, 1), (2, 3), (3, 2))
        for sx in (1, -1) for sy in (1, -1)]


# --------------------------------------------------------------------------------------------
# Move generation.  A "move" is a dict:
#   text  - order text without promotion suffix (A4)
#   kind  - "move" (unit goes from->to, capturing whatever enemy is there),
#           "charge" (from->to, capturing every enemy in `caps`), "shoot" (Oracle: capture on
#           `to`, stays), "swap" (Spy), "deploy"
#   frm, to, caps (tuple of captured squares), promo (token or None), dep (token for deploy)
# Generators for one unit return a list of such dicts; duplicates (several paths) are merged later
# by order text, which is legitimate because every text has exactly one effect.
# --------------------------------------------------------------------------------------------

class Gen:
    """Context for generating the moves of one unit."""

    def __init__(self, pos: RefPosition, sq: int, cyl: bool):
        self.pos = pos
        self.sq = sq
        self.tok, self.color = pos.board[sq]
        self.cyl = cyl
        self.out = []

    # -- square predicates ---------------------------------------------------------------------
    def empty(self, s) -> bool:
        return s not in self.pos.board

    def capturable(self, s) -> bool:
        """An enemy unit that is not immune (C6)."""
        u = self.pos.board.get(s)
        if u is None or u[1] == self.color:
            return False
        fl = self.pos.flags.get(s, frozenset())
        return not ("w" in fl or "b" in fl)

    # -- emitters --------------------------------------------------------------------------------
    def add_march(self, to):
        self.out.append(dict(kind="move", frm=self.sq, to=to, caps=()))

    def add_attack(self, to):
        self.out.append(dict(kind="move", frm=self.sq, to=to, caps=(to,)))

    def target(self, to, march=True, attack=True):
        """Land on `to`: a march if empty, an attack if it holds a capturable enemy."""
        if to is None:
            return
        if self.empty(to):
            if march:
                self.add_march(to)
        elif attack and self.capturable(to):
            self.add_attack(to)

    def ray(self, dx, dy, limit=8, avoid=None, origin=None):
        """Squares of a straight ride in direction (dx, dy) from `origin` (default: the unit's
        square), at most `limit` steps.  Cylindrically the ride stops before re-entering its
        origin or any square in `avoid` (B17: a move never visits a square twice).  Yields every
        square of the ride, including the first occupied one; the caller stops there."""
        start = self.sq if origin is None else origin
        seen = {start, self.sq}
        if avoid:
            seen |= set(avoid)
        s = start
        for _ in range(limit):
            s = shift(s, dx, dy, self.cyl)
            if s is None or s in seen:
                return
            seen.add(s)
            yield s

    def ride(self, dx, dy, limit=8, march=True, attack=True, origin=None, avoid=None):
        """Ordinary blocked ride (Rook/Bishop style) with optional range limit."""
        for s in self.ray(dx, dy, limit, avoid=avoid, origin=origin):
            if self.empty(s):
                if march:
                    self.add_march(s)
                continue
            if attack and self.capturable(s):
                self.add_attack(s)
            return


# ---- movement kinds (one function each) ------------------------------------------------------

def king_steps(g: Gen):
    """B7 King / B6 Immortal / Khan: one step in any of the 8 directions."""
    for dx, dy in KING_STEPS:
        g.target(shift(g.sq, dx, dy, g.cyl))


def knight_leaps(g: Gen):
    """B7 Knight (and Raider, Chancellor, Dragoon parts): (1,2) leaps."""
    for dx, dy in KNIGHT:
        g.target(shift(g.sq, dx, dy, g.cyl))


def hero_leaps(g: Gen):
    """B7 Hero (and Outrider): leaps (1,3) and (2,3)."""
    for dx, dy in HERO:
        g.target(shift(g.sq, dx, dy, g.cyl))


def rook_rides(g: Gen):
    """B7 Rook: ride straight, blocked."""
    for dx, dy in STRAIGHT:
        g.ride(dx, dy)


def bishop_rides(g: Gen):
    """B7 Bishop: ride diagonally, blocked."""
    for dx, dy in DIAGONAL:
        g.ride(dx, dy)


def pawn_moves(g: Gen):
    """B1 Pawn: march 1 forward, or 2 forward from the owner's rank 1 or 2 through an empty
    square; attack 1 diagonally forward."""
    fw = forward(g.color)
    one = shift(g.sq, 0, fw, g.cyl)
    if one is not None and g.empty(one):
        g.add_march(one)
        if owner_rank(g.sq, g.color) in (1, 2):
            two = shift(one, 0, fw, g.cyl)
            if two is not None and g.empty(two):
                g.add_march(two)
    for dx in (1, -1):
        g.target(shift(g.sq, dx, fw, g.cyl), march=False)


def striker_moves(g: Gen):
    """B2 Striker: march/attack 1 forward or 1 diagonally forward; march only by riding straight
    backward any distance (blocked)."""
    fw = forward(g.color)
    for dx in (-1, 0, 1):
        g.target(shift(g.sq, dx, fw, g.cyl))
    g.ride(0, -fw, attack=False)


def monk_moves(g: Gen):
    """B3 Monk (and Pilgrim): 1 diagonal step; or exactly 2 straight, middle square empty."""
    for dx, dy in DIAGONAL:
        g.target(shift(g.sq, dx, dy, g.cyl))
    for dx, dy in STRAIGHT:
        mid = shift(g.sq, dx, dy, g.cyl)
        if mid is None or not g.empty(mid):
            continue
        g.target(shift(mid, dx, dy, g.cyl))


def acolyte_leaps(g: Gen):
    """B4 Acolyte: leaps 1 or 2 diagonally, or exactly 2 sideways."""
    for dx, dy in DIAGONAL:
        g.target(shift(g.sq, dx, dy, g.cyl))
        g.target(shift(g.sq, 2 * dx, 2 * dy, g.cyl))
    for dx in (2, -2):
        g.target(shift(g.sq, dx, 0, g.cyl))


def anointed_rides(g: Gen):
    """B5 Anointed: 1 or 2 diagonally, riding (blocked)."""
    for dx, dy in DIAGONAL:
        g.ride(dx, dy, limit=2)


def nightrider_rides(g: Gen):
    """B8 Nightrider (and Nomad, Banshee part): ride in (1,2) steps; every intermediate landing
    square must be empty."""
    for dx, dy in KNIGHT:
        g.ride(dx, dy)


def charger_moves(g: Gen):
    """B12 Charger (and Vanguard): 1-3 squares straight; passes through enemies, capturing every
    one passed or stopped on; stops before a friendly or immune unit.  Destination -> captured set."""
    for dx, dy in STRAIGHT:
        caps = []
        for s in g.ray(dx, dy, limit=3):
            if not g.empty(s):
                if not g.capturable(s):
                    break
                caps.append(s)
            g.out.append(dict(kind="charge", frm=g.sq, to=s, caps=tuple(caps)))


def gryphon_moves(g: Gen):
    """B11 Gryphon (and Navigator): one diagonal step (may capture there, ending the move); if that
    square is empty it may stop or ride straight outward in either direction at 45 degrees.
    Cylindrically the ride stops before re-entering the square of the first step (B17)."""
    for dx, dy in DIAGONAL:
        first = shift(g.sq, dx, dy, g.cyl)
        if first is None:
            continue
        if not g.empty(first):
            if g.capturable(first):
                g.add_attack(first)
            continue
        g.add_march(first)
        for rdx, rdy in ((dx, 0), (0, dy)):
            g.ride(rdx, rdy, origin=first)


def sphinx_moves(g: Gen):
    """B11 Sphinx: one straight step (may capture, ending the move); if empty, stop there or ride
    diagonally outward at 45 degrees to the step."""
    for dx, dy in STRAIGHT:
        first = shift(g.sq, dx, dy, g.cyl)
        if first is None:
            continue
        if not g.empty(first):
            if g.capturable(first):
                g.add_attack(first)
            continue
        g.add_march(first)
        if dx == 0:
            branches = ((1, dy), (-1, dy))
        else:
            branches = ((dx, 1), (dx, -1))
        for rdx, rdy in branches:
            g.ride(rdx, rdy, origin=first)


def oracle_moves(g: Gen):
    """B13 Oracle: marches 1 diagonally; attacks without moving an enemy exactly 2 away straight
    or diagonally over an empty middle square."""
    for dx, dy in DIAGONAL:
        g.target(shift(g.sq, dx, dy, g.cyl), attack=False)
    for dx, dy in KING_STEPS:
        mid = shift(g.sq, dx, dy, g.cyl)
        if mid is None or not g.empty(mid):
            continue
        t = shift(mid, dx, dy, g.cyl)
        if t is not None and t != g.sq and g.capturable(t):
            g.out.append(dict(kind="shoot", frm=g.sq, to=t, caps=(t,)))


def phantom_moves(g: Gen):
    """B9 Phantom: exactly two (1,2) leaps; the first lands on an empty on-board square; the second
    lands on an empty square (its own start counts as empty: null march, B16) or a capturable enemy."""
    for dx1, dy1 in KNIGHT:
        first = shift(g.sq, dx1, dy1, g.cyl)
        if first is None or not g.empty(first):
            continue
        for dx2, dy2 in KNIGHT:
            second = shift(first, dx2, dy2, g.cyl)
            if second is None:
                continue
            if second == g.sq:
                g.add_march(second)  # null march
            else:
                g.target(second)


def warlord_moves(g: Gen):
    """B10 Warlord: one or two King steps; the middle square of a two-step path must be empty; a
    capture ends the move; returning to the start is a null march (B16)."""
    for dx1, dy1 in KING_STEPS:
        first = shift(g.sq, dx1, dy1, g.cyl)
        if first is None:
            continue
        if not g.empty(first):
            if g.capturable(first):
                g.add_attack(first)
            continue
        g.add_march(first)
        for dx2, dy2 in KING_STEPS:
            second = shift(first, dx2, dy2, g.cyl)
            if second is None:
                continue
            if second == g.sq:
                g.add_march(second)  # null march
            else:
                g.target(second)


def sniper_moves(g: Gen):
    """B14 Sniper: Queen directions; marches 1 or 2 squares (blocked); attacks only the first unit
    on a ray when it is an enemy at distance >= 2 (a unit at distance 1 blocks the ray)."""
    for dx, dy in KING_STEPS:
        for dist, s in enumerate(g.ray(dx, dy), start=1):
            if g.empty(s):
                if dist <= 2:
                    g.add_march(s)
                continue
            if dist >= 2 and g.capturable(s):
                g.add_attack(s)
            break


def spy_moves(g: Gen):
    """B15 Spy: attacks 1 square in any direction; marches only by swapping with another friendly
    unit anywhere on the board (order text names the friendly unit's square)."""
    for dx, dy in KING_STEPS:
        g.target(shift(g.sq, dx, dy, g.cyl), march=False)
    for s, (tok, col) in g.pos.board.items():
        if col == g.color and s != g.sq:
            g.out.append(dict(kind="swap", frm=g.sq, to=s, caps=()))


def courier_steps(g: Gen):
    """E Courier: 1 step forward or sideways, march and attack."""
    fw = forward(g.color)
    for dx, dy in ((0, fw), (1, 0), (-1, 0)):
        g.target(shift(g.sq, dx, dy, g.cyl))


MOVEMENT = {
    "K": [king_steps], "Q": [rook_rides, bishop_rides], "R": [rook_rides], "B": [bishop_rides],
    "N": [knight_leaps], "P": [pawn_moves], "A": [acolyte_leaps], "U": [anointed_rides],
    "E": [bishop_rides, nightrider_rides], "C": [rook_rides, knight_leaps], "L": [charger_moves],
    "D": [king_steps, knight_leaps], "G": [gryphon_moves], "H": [hero_leaps], "I": [king_steps],
    "M": [monk_moves], "Z": [nightrider_rides], "O": [oracle_moves], "F": [phantom_moves],
    "S": [sniper_moves], "X": [sphinx_moves], "Y": [spy_moves], "T": [striker_moves],
    "W": [warlord_moves],
    # E: expansion types mirror base movements, always cylindrical
    "~B": [bishop_rides], "~P": [courier_steps], "~N": [knight_leaps], "~K": [king_steps],
    "~Z": [nightrider_rides], "~R": [rook_rides], "~M": [monk_moves], "~G": [gryphon_moves],
    "~H": [hero_leaps], "~L": [charger_moves],
}


def is_over(pos: RefPosition) -> bool:
    """C2/C8: a side with no Sovereign on the board has lost; the position has no orders."""
    have = {WHITE: False, BLACK: False}
    for tok, col in pos.board.values():
        if tok in SOVEREIGN:
            have[col] = True
    return not (have[WHITE] and have[BLACK])


def stock_after_captures(pos: RefPosition, caps) -> Counter:
    """Stock once the units captured by an order are back (an Immortal goes to its owner's
    Barracks instead, B6)."""
    stock = Counter(pos.stock)
    for s in caps:
        tok, _ = pos.board[s]
        if tok != "I":
            stock[tok] += 1
    return stock


def move_text(m) -> str:
    if m["kind"] == "deploy":
        return f"{m['dep']}@{sq_name(m['to'])}"
    t = sq_name(m["frm"]) + sq_name(m["to"])
    if m.get("promo"):
        t += m["promo"].lower()
    return t


def generate(pos: RefPosition, cylindrical: bool = False) -> dict:
    """All orders of the side to move: order text -> move dict."""
    moves = {}
    if is_over(pos):
        return moves
    me = pos.turn
    for sq, (tok, col) in sorted(pos.board.items()):
        if col != me:
            continue
        fl = pos.flags.get(sq, frozenset())
        if "o" in fl or "n" in fl:  # contract: already ordered / may not be ordered this turn
            continue
        cyl = cylindrical or tok.startswith("~")  # expansion units always move cylindrically
        g = Gen(pos, sq, cyl)
        for kind_fn in MOVEMENT[tok]:
            kind_fn(g)
        for m in g.out:
            if tok in FOOT and m["kind"] == "move" and m["to"] // 8 == eighth_rank(me):
                # B18 promotion: one order per allowed type present in the Stock after this
                # order's captures came back; none available -> unpromoted order.
                stock = stock_after_captures(pos, m["caps"])
                choices = [t for t in pos.promote if stock[t] >= 1]
                if not choices:
                    moves[move_text(m)] = dict(m, promo=None)
                for t in choices:
                    pm = dict(m, promo=t)
                    moves[move_text(pm)] = pm
            else:
                moves.setdefault(move_text(m), m)
    # B19 deploy: Barracks unit to an empty square of the owner's first rank; Foot also second.
    for tok, n in sorted(pos.barracks[me].items()):
        if n <= 0:
            continue
        ranks = (1, 2) if tok in FOOT else (1,)
        for orank in ranks:
            r = orank - 1 if me == WHITE else 8 - orank
            for f in range(8):
                s = r * 8 + f
                if s not in pos.board:
                    m = dict(kind="deploy", frm=None, to=s, caps=(), dep=tok)
                    moves[move_text(m)] = m
    return moves


def make(pos: RefPosition, m) -> RefPosition:
    """Play one order and pass the turn (C8), returning a new position."""
    board = dict(pos.board)
    flags = dict(pos.flags)
    barracks = {WHITE: Counter(pos.barracks[WHITE]), BLACK: Counter(pos.barracks[BLACK])}
    stock = Counter(pos.stock)
    me = pos.turn

    # captured units go back to the Stock; an Immortal to its owner's Barracks (B6)
    for s in m["caps"]:
        tok, col = board.pop(s)
        flags.pop(s, None)
        if tok == "I":
            barracks[col][tok] += 1
        else:
            stock[tok] += 1

    kind = m["kind"]
    if kind == "deploy":
        barracks[me][m["dep"]] -= 1
        board[m["to"]] = (m["dep"], me)
    elif kind == "swap":
        a, b = m["frm"], m["to"]
        board[a], board[b] = board[b], board[a]
        fa, fb = flags.pop(a, None), flags.pop(b, None)
        if fa:
            flags[b] = fa
        if fb:
            flags[a] = fb
    elif kind in ("move", "charge"):
        frm, to = m["frm"], m["to"]
        if frm != to:
            board[to] = board.pop(frm)
            fl = flags.pop(frm, None)
            if fl:
                flags[to] = fl
        if m.get("promo"):
            # B18: the Foot unit returns to the Stock, replaced by a Stock unit of the chosen type
            old, col = board[to]
            stock[old] += 1
            stock[m["promo"]] -= 1
            board[to] = (m["promo"], col)
            if not PROMOTED_UNIT_KEEPS_STATUS:
                flags.pop(to, None)  # a new unit: it does not inherit the old one's status
    # "shoot": the Oracle stays; its target was removed above

    nxt = other(me)
    # The turn ends (C8: one order is one turn).
    # - "o" (already ordered this turn) lapses for every unit.
    # - "n" (may not be ordered) lapses once its owner's turn is over: it is how the game marks
    #   units that False Orders (13.0) bars from the owner's *next* turn, so on a unit
    #   of the side not to move it still holds during that side's coming turn.
    # - immunity until the new side's turn starts ("w" or "b", C6) lapses now.
    new_flags = {}
    for s, fl in flags.items():
        if s not in board:
            continue
        fl = fl - {"o", nxt}
        if board[s][1] == me:
            fl = fl - {"n"}
        if fl:
            new_flags[s] = fl
    return RefPosition(board, new_flags, barracks, stock, nxt, pos.promote)


def reference_orders(text: str, cylindrical: bool = False, promote: str | None = None) -> set:
    return set(generate(parse(text, promote), cylindrical))


def _perft(pos: RefPosition, depth: int, cylindrical: bool) -> int:
    if depth == 0:
        return 1
    moves = generate(pos, cylindrical)
    if depth == 1:
        return len(moves)
    return sum(_perft(make(pos, m), depth - 1, cylindrical) for m in moves.values())


def reference_perft(text: str, depth: int, cylindrical: bool = False,
                    promote: str | None = None) -> int:
    return _perft(parse(text, promote), depth, cylindrical)


def reference_divide(text: str, depth: int, cylindrical: bool = False,
                     promote: str | None = None) -> dict:
    pos = parse(text, promote)
    return {t: _perft(make(pos, m), depth - 1, cylindrical)
            for t, m in generate(pos, cylindrical).items()}


def to_text(pos: RefPosition) -> str:
    """Position text (A3) with explicit stock:, promote: and status: fields (for debugging)."""
    rows = []
    for r in range(7, -1, -1):
        row, run = "", 0
        for f in range(8):
            u = pos.board.get(r * 8 + f)
            if u is None:
                run += 1
                continue
            if run:
                row += str(run)
                run = 0
            row += token_text(*u)
        if run:
            row += str(run)
        rows.append(row)
    bar = "".join(token_text(t, c) * n for c in (WHITE, BLACK)
                  for t, n in sorted(pos.barracks[c].items()) if n > 0)
    stock = "".join(f"{t}{n}" for t, n in sorted(pos.stock.items()) if n > 0) or "-"
    promote = "".join(pos.promote) or "-"
    parts = ["/".join(rows) + (f"[{bar}]" if bar else ""), pos.turn, "-", "-", "0", "1",
             f"stock:{stock}", f"promote:{promote}"]
    if pos.flags:
        parts.append("status:" + ",".join(sq_name(s) + "".join(sorted(fl))
                                          for s, fl in sorted(pos.flags.items())))
    return " ".join(parts)
