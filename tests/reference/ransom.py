"""Slow, independent reference turn generator for King's Ransom.

Written from the rules (docs/rules/kings-ransom.md), RULINGS G1-G9 and the contract
docs/kings-ransom.md, WITHOUT looking at the engine's code (engine/ransom/, ext/): it exists so the
engine's fast generator can be checked against it.  Speed is secondary; every rule is one small,
plain function that says which rule it implements.  Where the contract is more precise than the
rulings, the contract is followed.

Representation: a square is a pair (file, rank), both from 0 (a1 = (0, 0), c6 = (2, 5)); a card on
the arena is a Card(kind, owner, down) with kind one of "KQRBNIP" (upper case), owner "r" (Red) or
"b" (Blue) and down True when it lies face down.  Hands and Discard piles are sorted tuples of
kinds (upper case); a Deck is a string of kinds, top card first.

Public functions:
    parse(text) -> RefRansom
    turns(pos) -> list[str]             divide-format turn strings of the side to move
    after(pos, turn) -> RefRansom       the position after a turn (Draw step not performed)
    status(pos) -> "play" | "checkmate" | "stalemate" (or "king captured" after a King capture)
    reference_perft(text, depth) -> int
    reference_divide(text, depth) -> dict[str, int]

Readings the contract leaves open (switches below; each is flagged in the report):
  * a Pawn that captures the enemy King on the back row is NOT offered promotion choices: the
    capture ends the game at once (KING_CAPTURE_PROMOTES = False);
  * a Pawn in the Discard pile does not give an "=P" option: exchanging a Pawn for a Pawn is the
    same as keeping it (PROMOTE_TO_PAWN = False);
  * card letters in turn strings (play:N@..., =Q) are written in the owner's case, like the
    position text (Blue plays `play:n@c5`); after() accepts either case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

FILES = "abc"
NFILES, NRANKS = 3, 6
KINDS = "KQRBNIP"  # catalog order (contract: "Words")
RED, BLUE = "r", "b"

KING_CAPTURE_PROMOTES = False
PROMOTE_TO_PAWN = False


class Card(NamedTuple):
    kind: str   # upper case kind
    owner: str  # "r" or "b"
    down: bool  # face down


def other(side: str) -> str:
    return BLUE if side == RED else RED


def sq_name(sq) -> str:
    return FILES[sq[0]] + str(sq[1] + 1)


def sq_parse(s: str):
    if len(s) != 2 or s[0] not in FILES or s[1] not in "123456":
        raise ValueError(f"bad square {s!r} (a1..c6)")
    return (FILES.index(s[0]), int(s[1]) - 1)


def on_arena(f: int, r: int) -> bool:
    # FAQ: no moving off the 3-wide, 6-long Arena (G1).
    return 0 <= f < NFILES and 0 <= r < NRANKS


def token(kind: str, owner: str) -> str:
    return kind if owner == RED else kind.lower()


def sort_kinds(kinds) -> tuple:
    return tuple(sorted(kinds, key=KINDS.index))


@dataclass
class RefRansom:
    board: dict                      # (file, rank) -> Card
    side: str                        # "r" or "b"
    hands: dict = field(default_factory=lambda: {RED: (), BLUE: ()})
    decks: dict = field(default_factory=lambda: {RED: "", BLUE: ""})
    discards: dict = field(default_factory=lambda: {RED: (), BLUE: ()})
    no_capture: int = 0
    turn_number: int = 1

    def copy(self) -> RefRansom:
        return RefRansom(dict(self.board), self.side, dict(self.hands), dict(self.decks),
                         dict(self.discards), self.no_capture, self.turn_number)

    def text(self) -> str:
        """The position text of the contract (hands and discards sorted in catalog order)."""
        ranks = []
        for r in range(NRANKS - 1, -1, -1):
            out, empty = "", 0
            for f in range(NFILES):
                c = self.board.get((f, r))
                if c is None:
                    empty += 1
                    continue
                if empty:
                    out += str(empty)
                    empty = 0
                out += token(c.kind, c.owner) + ("*" if c.down else "")
            if empty:
                out += str(empty)
            ranks.append(out)

        def pile(kinds, owner):
            return "".join(token(k, owner) for k in kinds) or "-"

        def both(d, sort):
            return "/".join(pile(sort_kinds(d[s]) if sort else d[s], s) for s in (RED, BLUE))

        return " ".join(["/".join(ranks), self.side, both(self.hands, True),
                         both(self.decks, False), both(self.discards, True),
                         str(self.no_capture), str(self.turn_number)])


# --------------------------------------------------------------------------------------------
# Position text (contract: "Position text")
# --------------------------------------------------------------------------------------------

def _parse_arena(s: str) -> dict:
    rows = s.split("/")
    if len(rows) != NRANKS:
        raise ValueError(f"arena needs {NRANKS} ranks separated by '/', got {len(rows)}")
    board = {}
    for i, row in enumerate(rows):
        r = NRANKS - 1 - i
        f, j = 0, 0
        while j < len(row):
            ch = row[j]
            if ch in "123":
                f += int(ch)
                j += 1
                continue
            if ch.upper() not in KINDS:
                raise ValueError(f"bad card token {ch!r} in rank {r + 1}")
            down = j + 1 < len(row) and row[j + 1] == "*"
            if f >= NFILES:
                raise ValueError(f"rank {r + 1} is longer than {NFILES} files")
            board[(f, r)] = Card(ch.upper(), RED if ch.isupper() else BLUE, down)
            f += 1
            j += 2 if down else 1
        if f != NFILES:
            raise ValueError(f"rank {r + 1} ({row!r}) covers {f} files, not {NFILES}")
    return board


def _parse_pair(s: str, what: str):
    parts = s.split("/")
    if len(parts) != 2:
        raise ValueError(f"{what} must be RED/BLUE, got {s!r}")
    out = {}
    for owner, run in zip((RED, BLUE), parts):
        if run == "-":
            out[owner] = ""
            continue
        if not run:
            raise ValueError(f"{what}: an empty run is written '-'")
        for ch in run:
            if ch.upper() not in KINDS:
                raise ValueError(f"{what}: bad card token {ch!r}")
            if (ch.isupper()) != (owner == RED):
                raise ValueError(f"{what}: token {ch!r} is in the wrong case for "
                                 f"{'Red' if owner == RED else 'Blue'}")
        out[owner] = run.upper()
    return out


def parse(text: str) -> RefRansom:
    fields = text.split()
    if len(fields) != 7:
        raise ValueError("position text needs 7 fields: <arena> <side> <hands> <decks> "
                         f"<discards> <no-capture turns> <turn number>, got {len(fields)}")
    arena, side, hands, decks, discards, nocap, turn = fields
    board = _parse_arena(arena)
    if side not in (RED, BLUE):
        raise ValueError(f"side must be 'r' or 'b', got {side!r}")
    h = _parse_pair(hands, "hands")
    d = _parse_pair(decks, "decks")
    x = _parse_pair(discards, "discards")
    for name, v, low in (("no-capture turns", nocap, 0), ("turn number", turn, 1)):
        if not v.isdigit() or int(v) < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    # G3 / Setup 1: each King stands face up on the arena; it is never in a Deck or Hand, and a
    # captured King ends the game, so it never reaches a Discard pile.
    for owner in (RED, BLUE):
        kings = [c for c in board.values() if c.kind == "K" and c.owner == owner]
        name = "Red" if owner == RED else "Blue"
        if len(kings) != 1:
            raise ValueError(f"{name} needs exactly one King on the arena, found {len(kings)}")
        if kings[0].down:
            raise ValueError(f"{name}'s King must be face up")
        for what, piles in (("hand", h), ("deck", d), ("discard pile", x)):
            if "K" in piles[owner]:
                raise ValueError(f"{name}'s {what} holds a King")
    return RefRansom(board, side, {s: sort_kinds(h[s]) for s in h}, d,
                     {s: sort_kinds(x[s]) for s in x}, int(nocap), int(turn))


# --------------------------------------------------------------------------------------------
# Card movement (rulebook "Piece Movement"; G4 step 2)
# --------------------------------------------------------------------------------------------

ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
KNIGHT = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))


def forward(owner: str) -> int:
    # G1: Red sits at rank 1 and moves up the arena; Blue sits at rank 6.
    return 1 if owner == RED else -1


def step_targets(board, sq, dirs):
    """King and Prince: one square in any direction (the Prince moves like the King)."""
    return [(sq[0] + df, sq[1] + dr) for df, dr in dirs if on_arena(sq[0] + df, sq[1] + dr)]


def ride_targets(board, sq, dirs):
    """Queen, Rook, Bishop: any number of squares, stopped by the first card in the way (face up
    or face down, G4); that card's square is included (a capture if it is the enemy's)."""
    out = []
    for df, dr in dirs:
        f, r = sq[0] + df, sq[1] + dr
        while on_arena(f, r):
            out.append((f, r))
            if (f, r) in board:
                break
            f, r = f + df, r + dr
    return out


def leap_targets(board, sq):
    """Knight: the L-shaped leap; cards in between are ignored."""
    return step_targets(board, sq, KNIGHT)


def pawn_capture_squares(sq, owner):
    """Pawn: captures one square diagonally forward only."""
    r = sq[1] + forward(owner)
    return [(sq[0] + df, r) for df in (-1, 1) if on_arena(sq[0] + df, r)]


def pawn_targets(board, sq, owner):
    """Pawn: one square forward onto an empty square (never two, no en passant); diagonal
    forward only onto an enemy card (face up or down)."""
    out = []
    ahead = (sq[0], sq[1] + forward(owner))
    if on_arena(*ahead) and ahead not in board:
        out.append(ahead)
    for t in pawn_capture_squares(sq, owner):
        c = board.get(t)
        if c is not None and c.owner != owner:
            out.append(t)
    return out


def attacked_squares(board, sq, card):
    """Squares a card could capture on (used for check, G6)."""
    k = card.kind
    if k in ("K", "I"):
        return step_targets(board, sq, ORTHO + DIAG)
    if k == "Q":
        return ride_targets(board, sq, ORTHO + DIAG)
    if k == "R":
        return ride_targets(board, sq, ORTHO)
    if k == "B":
        return ride_targets(board, sq, DIAG)
    if k == "N":
        return leap_targets(board, sq)
    return pawn_capture_squares(sq, card.owner)


def move_targets(board, sq, card):
    """Destinations of a face-up card, without the own-King legality test: never a square holding
    an own card (G4 step 2)."""
    if card.kind == "P":
        targets = pawn_targets(board, sq, card.owner)
    else:
        targets = attacked_squares(board, sq, card)
    return [t for t in targets if t not in board or board[t].owner != card.owner]


def king_square(board, owner):
    for sq, c in board.items():
        if c.kind == "K" and c.owner == owner:
            return sq
    return None


def in_check(board, owner) -> bool:
    """G6: the King is threatened only by enemy FACE-UP cards; face-down cards give no check
    (they still block rides, see ride_targets)."""
    ksq = king_square(board, owner)
    if ksq is None:
        return False
    for sq, c in board.items():
        if c.owner != owner and not c.down and ksq in attacked_squares(board, sq, c):
            return True
    return False


def back_row(owner) -> int:
    # G1: the opponent's back row is rank 6 for Red, rank 1 for Blue.
    return NRANKS - 1 if owner == RED else 0


def legal_moves(board, side):
    """G4 step 2 + G6 + G5: every legal (from, to, promo) of `side`'s face-up cards.  promo is
    None (the Pawn stays) or the kind taken from the Discard pile; the caller supplies the pile
    through promotion_options."""
    out = []
    for sq, c in list(board.items()):
        if c.owner != side or c.down:
            continue  # G4: a face-down card never moves
        for t in move_targets(board, sq, c):
            victim = board.get(t)
            if victim is not None and victim.kind == "K":
                out.append((sq, t))  # G7: capturing the King is always legal, it ends the game
                continue
            nb = dict(board)
            del nb[sq]
            nb[t] = c
            if not in_check(nb, side):  # G6: no enemy face-up card may reach the own King
                out.append((sq, t))
    return out


def promotion_options(board, frm, to, discard):
    """G5: a Pawn ending its move on the opponent's back row may be exchanged for a card of the
    owner's Discard pile: one option per distinct kind there, or keep the Pawn (None)."""
    c = board[frm]
    if c.kind != "P" or to[1] != back_row(c.owner):
        return [None]
    victim = board.get(to)
    if victim is not None and victim.kind == "K" and not KING_CAPTURE_PROMOTES:
        return [None]
    kinds = [k for k in sort_kinds(set(discard)) if k != "K"]
    if not PROMOTE_TO_PAWN:
        kinds = [k for k in kinds if k != "P"]
    return [None] + kinds


# --------------------------------------------------------------------------------------------
# Play step (G4 step 3)
# --------------------------------------------------------------------------------------------

def own_half(side):
    # G1: ranks 1-3 for Red, 4-6 for Blue.
    ranks = range(0, 3) if side == RED else range(3, 6)
    return [(f, r) for r in ranks for f in range(NFILES)]


def play_options(board, side, hand):
    """G4 step 3: (kind, square) or (kind, "discard").  One option per distinct kind of the Hand.
    Face down onto an empty square of the own half; only when the own half has no empty square,
    replace an own card there other than the King, or discard the card."""
    kinds = sort_kinds(set(hand))
    if not kinds:
        return [None]
    half = own_half(side)
    empty = [sq for sq in half if sq not in board]
    if empty:
        targets = empty
    else:
        targets = [sq for sq in half if board[sq].owner == side and board[sq].kind != "K"]
        targets = targets + ["discard"]
    return [(k, t) for k in kinds for t in targets]


def play_count(board, side, hand) -> int:
    """len(play_options(...)) without building the list (used at the last ply of perft)."""
    n = len(set(hand))
    if not n:
        return 1
    half = own_half(side)
    empty = sum(1 for sq in half if sq not in board)
    if empty:
        return n * empty
    return n * (1 + sum(1 for sq in half if board[sq].owner == side and board[sq].kind != "K"))


# --------------------------------------------------------------------------------------------
# The turn (G4 as the contract reads it)
# --------------------------------------------------------------------------------------------

def _flip(board, sq):
    if sq is None:
        return board
    nb = dict(board)
    c = nb[sq]
    nb[sq] = Card(c.kind, c.owner, False)
    return nb


def _flip_squares(board, side):
    """G4 step 1: a face-down own card must be flipped if there is one."""
    return sorted((sq for sq, c in board.items() if c.owner == side and c.down),
                  key=lambda s: (s[1], s[0]))


def _move_phase(pos):
    """The flip+move part of the turn as the contract reads it.

    Returns (verdict, items): verdict "play" with items = [(flip, flipped_board, moves)], or
    "checkmate"/"stalemate" with no items."""
    side, board = pos.side, pos.board
    if king_square(board, side) is None or king_square(board, other(side)) is None:
        return "king captured", []
    flips = _flip_squares(board, side) or [None]
    items = []
    for f in flips:
        fb = _flip(board, f)
        mv = legal_moves(fb, side)
        if mv:  # the move is mandatory: only a flip after which one exists is offered
            items.append((f, fb, mv))
    if items:
        return "play", items
    # No flip allows a legal move: checkmate when a face-up card threatens the King (G7), else
    # stalemate whatever the Hand holds (G9; the FAQ's King boxed in is one such case).
    return ("checkmate" if in_check(board, side) else "stalemate"), []


def status(pos: RefRansom) -> str:
    """At the start of the side to move's turn: "play", "checkmate" or "stalemate" (G7, FAQ);
    "king captured" when a King is no longer on the arena (the game ended)."""
    return _move_phase(pos)[0]


def _apply_move(board, frm, to):
    """Returns (new board, captured card or None)."""
    nb = dict(board)
    c = nb.pop(frm)
    victim = nb.get(to)
    nb[to] = c
    return nb, victim


def _turn_string(side, flip, move, promo, play) -> str:
    s = "flip:" + (sq_name(flip) if flip else "-")
    s += " move:" + sq_name(move[0]) + sq_name(move[1])  # a turn always moves (G9)
    if promo:
        s += "=" + token(promo, side)
    if play is None:
        s += " play:-"
    else:
        k, t = play
        s += " play:" + token(k, side) + "@" + (t if t == "discard" else sq_name(t))
    return s


def _turn_parts(pos):
    """Every complete turn as (flip, move, promo, play) with move (from, to)."""
    verdict, items = _move_phase(pos)
    side = pos.side
    hand = pos.hands[side]
    out = []
    for f, fb, moves in items:
        for frm, to in moves:
            nb, victim = _apply_move(fb, frm, to)
            promos = promotion_options(fb, frm, to, pos.discards[side])
            if victim is not None and victim.kind == "K":
                plays = [None]  # the game is over: no play step
            else:
                plays = play_options(nb, side, hand)
            for pr in promos:
                for p in plays:
                    out.append((f, (frm, to), pr, p))
    return out


def turns(pos: RefRansom) -> list:
    """Every complete turn (flip, move, play) of the side to move, in divide format."""
    return [_turn_string(pos.side, *t) for t in _turn_parts(pos)]


def _after_parts(pos, flip, move, promo, play) -> RefRansom:
    side = pos.side
    n = pos.copy()
    board = _flip(pos.board, flip)
    discards = {RED: list(pos.discards[RED]), BLUE: list(pos.discards[BLUE])}
    hand = list(pos.hands[side])
    captured = False
    board, victim = _apply_move(board, *move)
    if victim is not None:
        captured = True
        discards[victim.owner].append(victim.kind)  # face up to its owner's Discard pile
    if promo:  # G5: the Pawn goes to the pile, the chosen card stands face up
        discards[side].remove(promo)
        discards[side].append("P")
        board[move[1]] = Card(promo, side, False)
    if play is not None:
        k, t = play
        hand.remove(k)
        if t == "discard":
            discards[side].append(k)
        else:
            old = board.get(t)
            if old is not None:  # replacement: the replaced card goes to the Discard pile
                discards[old.owner].append(old.kind)
            board[t] = Card(k, side, True)
    n.board = board
    n.hands = dict(pos.hands)
    n.hands[side] = sort_kinds(hand)
    n.discards = {s: sort_kinds(discards[s]) for s in (RED, BLUE)}
    n.no_capture = 0 if captured else pos.no_capture + 1  # G7 counter
    n.turn_number = pos.turn_number + (1 if side == BLUE else 0)
    n.side = other(side)
    return n  # the Draw step is not performed (G8)


def _canon(turn: str, side: str) -> str:
    """Accept card letters in either case; return the owner-case form."""
    parts = turn.split()
    out = []
    for p in parts:
        if p.startswith("move:") and "=" in p:
            head, k = p.split("=", 1)
            p = head + "=" + token(k.upper(), side)
        elif p.startswith("play:") and "@" in p:
            k, t = p[5:].split("@", 1)
            p = "play:" + token(k.upper(), side) + "@" + t
        out.append(p)
    return " ".join(out)


def after(pos: RefRansom, turn: str) -> RefRansom:
    """The position after `turn` (one of turns(pos)); the Draw step is NOT performed."""
    want = _canon(turn, pos.side)
    for parts in _turn_parts(pos):
        if _turn_string(pos.side, *parts) == want:
            return _after_parts(pos, *parts)
    raise ValueError(f"{turn!r} is not a legal turn here")


def _captures_king(pos, parts) -> bool:
    victim = pos.board.get(parts[1][1])
    return victim is not None and victim.kind == "K"


def _count_last_ply(pos) -> int:
    """len(turns(pos)) without building the turns (same enumeration, plays counted)."""
    verdict, items = _move_phase(pos)
    side = pos.side
    hand = pos.hands[side]
    total = 0
    for f, fb, moves in items:
        for frm, to in moves:
            nb, victim = _apply_move(fb, frm, to)
            npromo = len(promotion_options(fb, frm, to, pos.discards[side]))
            if victim is not None and victim.kind == "K":
                total += npromo
            else:
                total += npromo * play_count(nb, side, hand)
    return total


def _perft(pos, depth) -> int:
    if depth == 0:
        return 1
    if depth == 1:
        return _count_last_ply(pos)
    total = 0
    for parts in _turn_parts(pos):
        if _captures_king(pos, parts):
            total += 1  # a King capture ends the game: a leaf with no successors
        else:
            total += _perft(_after_parts(pos, *parts), depth - 1)
    return total


def reference_perft(text: str, depth: int) -> int:
    """G8: sequences of `depth` complete turns (flip, move, play; no Draw)."""
    return _perft(parse(text), depth)


def reference_divide(text: str, depth: int) -> dict:
    """One entry per first-level turn: the perft of depth-1 below it (1 for a King capture)."""
    pos = parse(text)
    out = {}
    for parts in _turn_parts(pos):
        s = _turn_string(pos.side, *parts)
        if _captures_king(pos, parts) or depth <= 1:
            out[s] = 1
        else:
            out[s] = _perft(_after_parts(pos, *parts), depth - 1)
    return out
