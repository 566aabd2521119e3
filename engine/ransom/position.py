"""A King's Ransom position: the arena on the kernel's board, which cards lie face down, and each
side's Hand, Deck and Discard pile; the turn's steps (flip, move, play) as the engine reads G4-G7 and G9
(docs/kings-ransom.md), the position text, and perft / divide over complete turns (G8).

The arena is a kernel ``BoardCore`` built on the King's Ransom catalog (3 files x 6 ranks, the
same tables and generator as For the Crown). A face-down card carries the kernel's "may not be
ordered" flag (ST_BANNED), so the one generator never moves it; legality (G6) asks which enemy
*face-up* cards could capture the King after the move (face-down cards block rides but give no
check).

>>> pos = RansomPosition.parse(default_rules().startpos)
>>> pos.text() == default_rules().startpos
True
>>> perft(pos, 1)
177
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from engine import codes
from engine._perft import PerftControl, PerftStopped
from engine._position import BoardCore
from engine._ransom import ransom_perft as _ransom_perft
from engine.notation import parse_square, square_name
from engine.ransom.rules import BLUE, ORDER, PLAYER_NAMES, RED, RansomRules, default_rules

__all__ = ["RansomPosition", "RansomPositionError", "Turn", "TurnOptions", "perft", "divide", "turn_text",
           "perft_python", "divide_python", "kernel_perft",
           "PLAYING", "CHECKMATE", "STALEMATE"]

PLAYING, CHECKMATE, STALEMATE = "playing", "checkmate", "stalemate"


class RansomPositionError(ValueError):
    """A position text that cannot be read; the message names the field and what is wrong."""


@dataclass(frozen=True)
class TurnOptions:
    """The flip and move steps open to the side to move (docs/kings-ransom.md, "The turn").

    ``moves[flip]``: the legal moves (kernel order codes) after flipping ``flip`` (a square, or None
    when there is nothing to flip); only flips after which a move exists are keys (the move is
    mandatory). ``status``: PLAYING, CHECKMATE or STALEMATE (no flip allows a move: G7, G9);
    ``moves`` is empty unless PLAYING. ``in_check``: a face-up enemy card threatens the King."""

    status: str
    moves: dict
    in_check: bool


@dataclass(frozen=True)
class Turn:
    """One complete turn: flip square (or None), move code (a turn always moves: G4, G9), promotion
    type (or None: the Pawn stays or no promotion), play ``(type, square)`` / ``(type, None)`` for
    a discard, or None when nothing is played."""

    flip: int | None
    move: int
    promotion: int | None
    play: tuple | None


def _bits(bb: int):
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


class RansomPosition:
    """The arena (a kernel board), the face-down cards, and per side Hand, Deck and Discard pile.

    Zones are lists of counts by card type id, except a Deck: ``decks[side]`` is the list of cards
    known to lie on top (top first) and ``pools[side]`` the counts of the rest, whose order nobody
    knows (a dealt game's Decks are all pool)."""

    __slots__ = ("rules", "core", "face_down", "hands", "decks", "pools", "discards", "no_capture", "turn",
                 "captured")

    def __init__(self, rules: RansomRules | None = None):
        self.rules = rules or default_rules()
        n = len(self.rules.catalog)
        self.core = BoardCore(self.rules.catalog.tables)
        self.core.setup([], [[0] * n, [0] * n], [0] * n, 0, RED, 0, 1, [0] * codes.N_STATUS)
        self.face_down = 0
        self.hands = [[0] * n, [0] * n]
        self.decks: list[list[int]] = [[], []]
        self.pools = [[0] * n, [0] * n]
        self.discards = [[0] * n, [0] * n]
        self.no_capture = 0
        self.turn = 1
        self.captured = False                   # this turn captured a card (the count restarts at its end)

    # -- copies and plain questions -------------------------------------------------------------
    def copy(self) -> RansomPosition:
        other = RansomPosition.__new__(RansomPosition)
        other.rules = self.rules
        other.core = self.core.copy()
        other.face_down = self.face_down
        other.hands = [self.hands[0][:], self.hands[1][:]]
        other.decks = [self.decks[0][:], self.decks[1][:]]
        other.pools = [self.pools[0][:], self.pools[1][:]]
        other.discards = [self.discards[0][:], self.discards[1][:]]
        other.no_capture = self.no_capture
        other.captured = self.captured
        other.turn = self.turn
        return other

    @property
    def side(self) -> int:
        """The side to move: 0 Red, 1 Blue."""
        return self.core.side

    def card_on(self, square: int) -> tuple[int, int, bool] | None:
        """(type id, owner, face down) of the card on ``square``, or None."""
        unit = self.core.unit_on(square)
        if unit is None:
            return None
        return unit[0], unit[1], bool(self.face_down >> square & 1)

    def king_square(self, side: int) -> int:
        """The square of ``side``'s King, -1 once it is captured."""
        king = self.rules.king_type
        for sq in self.core.squares_of(side):
            if self.core.unit_on(sq)[0] == king:
                return sq
        return -1

    def deck_size(self, side: int) -> int:
        return len(self.decks[side]) + sum(self.pools[side])

    def card_counts(self, side: int) -> list[int]:
        """Every card of ``side`` by type: arena, Hand, Deck and Discard pile (a deck's 24)."""
        counts = [h + p + d for h, p, d in zip(self.hands[side], self.pools[side], self.discards[side])]
        for t in self.decks[side]:
            counts[t] += 1
        for sq in self.core.squares_of(side):
            counts[self.core.unit_on(sq)[0]] += 1
        return counts

    def _sync_flags(self) -> None:
        """Face-down cards carry the kernel's ST_BANNED flag (never ordered); no card keeps
        ST_ORDERED (each turn moves one card)."""
        self.core.set_status_bits(codes.ST_BANNED, self.face_down)
        self.core.set_status_bits(codes.ST_ORDERED, 0)

    # -- G6: threats by face-up cards -----------------------------------------------------------
    def face_up_attacks(self, side: int) -> int:
        """The squares ``side``'s face-up cards could capture on (G6: only they give check)."""
        core = self.core
        return core.attack_map(side, core.colour_bits(side) & ~self.face_down)

    def in_check(self, side: int) -> bool:
        """Whether an enemy face-up card threatens ``side``'s King (G6, G7)."""
        king = self.king_square(side)
        return king >= 0 and bool(self.face_up_attacks(1 - side) >> king & 1)

    def turn_options(self) -> TurnOptions:
        """The flip and move steps of the side to move, and whether the turn can be played at all
        (G7: checkmate and stalemate are decided here, when the turn starts)."""
        side = self.side
        core = self.core
        own = core.colour_bits(side)
        own_down = own & self.face_down
        # Generate with the side's own face-down cards as movers too: a move of the card on f is
        # a move of "flip f". The enemy's face-down cards stay banned (they never move anyway).
        # G6 in the kernel: the King may not stand where an enemy face-up card could take it.
        core.set_status_bits(codes.ST_BANNED, self.face_down & ~own)
        try:
            orders = core.safe_orders(side, core.colour_bits(1 - side) & ~self.face_down)
        finally:
            core.set_status_bits(codes.ST_BANNED, self.face_down)
        base: list[int] = []
        by_origin: dict[int, list[int]] = {}
        for order in orders:
            origin = codes.order_origin(order)
            if own_down >> origin & 1:
                by_origin.setdefault(origin, []).append(order)
            else:
                base.append(order)
        check = self.in_check(side)
        if own_down:
            moves = {f: base + by_origin.get(f, []) for f in _bits(own_down)}
            moves = {f: m for f, m in moves.items() if m}
        else:
            moves = {None: base} if base else {}
        if moves:
            return TurnOptions(PLAYING, moves, check)
        # No flip allows a move: checkmate with the King threatened (G7), else stalemate whatever
        # the Hand holds (G9; the King boxed in alone is the FAQ's case of it).
        return TurnOptions(CHECKMATE if check else STALEMATE, {}, check)

    def promotion_options(self, move: int) -> list[int | None]:
        """G5: after ``move`` (not yet made), None (the Pawn stays) and one option per distinct card
        type in the mover's Discard pile but the Pawn (a Pawn for a Pawn changes nothing); [None]
        when the move promotes nothing."""
        side = self.side
        if codes.order_unit(move) != self.rules.pawn_type:
            return [None]
        if not self.rules.back_rows[1 - side] >> codes.order_dest(move) & 1:
            return [None]
        pawn = self.rules.pawn_type
        return [None] + [t for t, n in enumerate(self.discards[side]) if n > 0 and t != pawn]

    def play_options(self) -> list[tuple | None]:
        """The play step (G4 step 3) of the side to move as the board stands: ``(type, square)``
        onto an empty square of its own half, or, only when that half is full, onto one of its
        own non-King cards there (replacing it) or ``(type, None)`` (a discard); [None] when the
        Hand is empty."""
        side = self.side
        types = [t for t, n in enumerate(self.hands[side]) if n > 0]
        if not types:
            return [None]
        half = self.rules.halves[side]
        empty = half & ~self.core.occupied()
        if empty:
            return [(t, sq) for t in types for sq in _bits(empty)]
        own = self.core.colour_bits(side) & half & ~self.core_king_bit(side)
        return [(t, sq) for t in types for sq in _bits(own)] + [(t, None) for t in types]

    def core_king_bit(self, side: int) -> int:
        king = self.king_square(side)
        return 1 << king if king >= 0 else 0

    # -- changing the position (each step as the game plays it) ---------------------------------
    def flip(self, square: int) -> None:
        """Step 1: turn the side to move's card on ``square`` face up."""
        if not (self.face_down >> square & 1) or self.core.unit_on(square)[1] != self.side:
            raise ValueError(f"flip {square_name(square)}: no face-down card of {PLAYER_NAMES[self.side]} there")
        self.face_down &= ~(1 << square)
        self._sync_flags()

    def move(self, order: int) -> tuple[int, bool] | None:
        """Step 2: play a move (a code from ``turn_options``) for the side to move; a captured card
        goes face up to its owner's Discard pile. Returns the captured (type, was face down), or None."""
        side = self.side
        dest = codes.order_dest(order)
        victim = self.core.unit_on(dest)
        captured = None
        if victim is not None:
            t = victim[0]
            captured = (t, bool(self.face_down >> dest & 1))
            self.face_down &= ~(1 << dest)
            self.discards[1 - side][t] += 1
            self.no_capture = 0
            self.captured = True
        self.core.apply_for(side, order)
        if victim is not None:
            self.core.add_stock(victim[0], -1)   # the kernel's capture filled its Stock: a Discard pile here
        self._sync_flags()
        return captured

    def promote(self, square: int, t: int) -> None:
        """G5: exchange the Pawn on ``square`` for a card of type ``t`` from the Discard pile."""
        side = self.side
        if self.discards[side][t] <= 0:
            raise ValueError(f"promote: no {self.rules.catalog.units[t].name} in {PLAYER_NAMES[side]}'s Discard pile")
        self.core.remove(square)
        self.core.place(square, t, side)
        self.discards[side][t] -= 1
        self.discards[side][self.rules.pawn_type] += 1
        self._sync_flags()

    def play(self, t: int, square: int | None) -> None:
        """Step 3: play a card of type ``t`` from the Hand face down on ``square`` (replacing the own
        card there, which goes to the Discard pile), or discard it (``square`` None)."""
        side = self.side
        if self.hands[side][t] <= 0:
            raise ValueError(f"play: no {self.rules.catalog.units[t].name} in {PLAYER_NAMES[side]}'s Hand")
        self.hands[side][t] -= 1
        if square is None:
            self.discards[side][t] += 1
            return
        unit = self.core.unit_on(square)
        if unit is not None:
            self.discards[side][unit[0]] += 1
            self.core.remove(square)
        self.core.place(square, t, side)
        self.face_down |= 1 << square
        self._sync_flags()

    def draw(self, side: int, t: int | None = None) -> int | None:
        """Step 4: ``side`` draws its Deck's top card: the known top if any, else the type ``t``
        (a chance outcome) from the pool. Returns the type drawn, None when the Deck is empty."""
        if self.decks[side]:
            t = self.decks[side].pop(0)
        elif t is None:
            return None
        else:
            if self.pools[side][t] <= 0:
                raise ValueError(f"draw: no {self.rules.catalog.units[t].name} left in {PLAYER_NAMES[side]}'s Deck")
            self.pools[side][t] -= 1
        self.hands[side][t] += 1
        return t

    def end_turn(self) -> None:
        """Pass the turn: the no-capture count and the turn number follow (G7)."""
        self.no_capture = 0 if self.captured else self.no_capture + 1
        self.captured = False
        if self.side == BLUE:
            self.turn += 1
        self.core.set_side(1 - self.side)
        self._sync_flags()

    def apply_turn(self, turn: Turn) -> bool:
        """Play a complete turn without its Draw step (perft, G8). Returns whether a King was captured."""
        if turn.flip is not None:
            self.flip(turn.flip)
        captured = self.move(turn.move)
        if captured is not None and captured[0] == self.rules.king_type:
            return True
        if turn.promotion is not None:
            self.promote(codes.order_dest(turn.move), turn.promotion)
        if turn.play is not None:
            self.play(*turn.play)
        self.end_turn()
        return False

    # -- complete turns ---------------------------------------------------------------------------
    def turns(self, options: TurnOptions | None = None) -> list[Turn]:
        """Every complete turn (flip, move with its promotion, play) of the side to move (G8)."""
        options = options or self.turn_options()
        if options.status != PLAYING:
            return []
        out = []
        enemy_king = self.king_square(1 - self.side)
        for flip, moves in options.moves.items():
            for move in moves:
                if codes.order_dest(move) == enemy_king:
                    out.append(Turn(flip, move, None, None))
                    continue
                plays = self._plays_after(self, move)
                for promo in self.promotion_options(move):
                    for play in plays:
                        out.append(Turn(flip, move, promo, play))
        return out

    def _plays_after(self, pos: RansomPosition, move: int) -> list:
        after = pos.copy()
        after.move(move)
        return after.play_options()

    def count_turns(self) -> int:
        """len(turns()) without building them (perft's last ply): the play step's options are counted
        from the board after each move."""
        options = self.turn_options()
        if options.status != PLAYING:
            return 0
        side = self.side
        n_types = sum(1 for n in self.hands[side] if n > 0)
        half = self.rules.halves[side]
        occupied = self.core.occupied()
        own = self.core.colour_bits(side)
        king = self.core_king_bit(side)
        enemy_king = self.king_square(1 - side)

        def plays(occ: int, mine: int, king_bit: int) -> int:
            if n_types == 0:
                return 1
            empty = half & ~occ
            if empty:
                return n_types * empty.bit_count()
            return n_types * (mine & half & ~king_bit).bit_count() + n_types

        total = 0
        for moves in options.moves.values():
            for move in moves:
                dest = codes.order_dest(move)
                if dest == enemy_king:
                    total += 1
                    continue
                origin = codes.order_origin(move)
                king_bit = king if not (king >> origin & 1) else 1 << dest
                n = plays((occupied & ~(1 << origin)) | (1 << dest), (own ^ (1 << origin)) | (1 << dest), king_bit)
                total += n * len(self.promotion_options(move))
        return total

    # -- texts ------------------------------------------------------------------------------------
    def token(self, t: int, side: int) -> str:
        token = self.rules.catalog.units[t].token
        return token if side == RED else token.lower()

    def text(self) -> str:
        """The position text (docs/kings-ransom.md)."""
        rules = self.rules
        rows = []
        for rank in range(rules.ranks - 1, -1, -1):
            row, empty = "", 0
            for file in range(rules.files):
                card = self.card_on(rank * 8 + file)
                if card is None:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += self.token(card[0], card[1]) + ("*" if card[2] else "")
            rows.append(row + (str(empty) if empty else ""))

        def counts(side: int, values: list[int]) -> str:
            return "".join(self.token(t, side) * values[t] for t in self._listing_order()) or "-"

        def deck(side: int) -> str:
            if any(self.pools[side]):
                raise RansomPositionError("a Deck of unknown order has no position text; write its cards in order")
            return "".join(self.token(t, side) for t in self.decks[side]) or "-"

        return " ".join([
            "/".join(rows), "r" if self.side == RED else "b",
            counts(RED, self.hands[RED]) + "/" + counts(BLUE, self.hands[BLUE]),
            deck(RED) + "/" + deck(BLUE),
            counts(RED, self.discards[RED]) + "/" + counts(BLUE, self.discards[BLUE]),
            str(self.no_capture), str(self.turn),
        ])

    def _listing_order(self) -> list[int]:
        catalog = self.rules.catalog
        known = [catalog[c].id for c in ORDER if c in catalog.by_token]
        return known + [u.id for u in catalog.units if u.id not in known]

    @classmethod
    def parse(cls, text: str, rules: RansomRules | None = None) -> RansomPosition:
        """Read a position text (docs/kings-ransom.md); RansomPositionError names the bad field."""
        rules = rules or default_rules()
        catalog = rules.catalog
        if not isinstance(text, str):
            raise RansomPositionError("a position text must be a string")
        fields = text.split()
        names = ("arena", "side", "hands", "decks", "discards", "no-capture turns", "turn number")
        if len(fields) != len(names):
            raise RansomPositionError(f"expected {len(names)} fields ({', '.join(names)}), got {len(fields)}")
        pos = cls(rules)
        units, face_down = [], 0
        rows = fields[0].split("/")
        if len(rows) != rules.ranks:
            raise RansomPositionError(f"arena: expected {rules.ranks} ranks separated by '/', got {len(rows)}")
        for i, row in enumerate(rows):
            rank = rules.ranks - 1 - i
            file, k = 0, 0
            while k < len(row):
                ch = row[k]
                if ch.isdigit():
                    file += int(ch)
                    k += 1
                    continue
                if ch.upper() not in catalog.by_token:
                    raise RansomPositionError(f"arena: rank {rank + 1}: {ch!r} is not a card token ({ORDER})")
                if file >= rules.files:
                    raise RansomPositionError(f"arena: rank {rank + 1} has more than {rules.files} files")
                sq = rank * 8 + file
                units.append((sq, catalog[ch.upper()].id, RED if ch.isupper() else BLUE))
                k += 1
                if k < len(row) and row[k] == "*":
                    face_down |= 1 << sq
                    k += 1
                file += 1
            if file != rules.files:
                raise RansomPositionError(f"arena: rank {rank + 1} describes {file} files, expected {rules.files}")
        if fields[1] not in ("r", "b"):
            raise RansomPositionError(f"side: expected 'r' or 'b', got {fields[1]!r}")
        side = RED if fields[1] == "r" else BLUE

        def pair(index: int) -> tuple[list[int], list[int]]:
            parts = fields[index].split("/")
            if len(parts) != 2:
                raise RansomPositionError(f"{names[index]}: expected RED/BLUE, got {fields[index]!r}")
            out = []
            for owner, part in zip((RED, BLUE), parts):
                cards = []
                if part != "-":
                    for ch in part:
                        if ch.upper() not in catalog.by_token or (ch.isupper() != (owner == RED)):
                            who = "upper" if owner == RED else "lower"
                            raise RansomPositionError(f"{names[index]}: {PLAYER_NAMES[owner]}'s part {part!r}: "
                                                      f"{ch!r} is not a card token in {who} case")
                        cards.append(catalog[ch.upper()].id)
                out.append(cards)
            return out[0], out[1]

        n = len(catalog)
        hands, decks, discards = pair(2), pair(3), pair(4)
        for owner in (RED, BLUE):
            for t in hands[owner]:
                pos.hands[owner][t] += 1
            for t in discards[owner]:
                pos.discards[owner][t] += 1
            pos.decks[owner] = list(decks[owner])
        for index in (5, 6):
            if not fields[index].isdigit():
                raise RansomPositionError(f"{names[index]}: expected a whole number, got {fields[index]!r}")
        pos.no_capture = int(fields[5])
        pos.turn = int(fields[6])
        if pos.turn < 1:
            raise RansomPositionError("turn number: must be at least 1")
        status = [0] * codes.N_STATUS
        status[codes.ST_BANNED] = face_down
        pos.core.setup(units, [[0] * n, [0] * n], [0] * n, 0, side, 0, 1, status)
        pos.face_down = face_down
        for owner in (RED, BLUE):
            kings = [sq for sq, t, c in units if c == owner and t == rules.king_type]
            if len(kings) != 1:
                raise RansomPositionError(f"arena: {PLAYER_NAMES[owner]} must have exactly one King, has {len(kings)}")
            if face_down >> kings[0] & 1:
                raise RansomPositionError(f"arena: {PLAYER_NAMES[owner]}'s King on {square_name(kings[0])} "
                                          "must be face up (G3)")
            counts = pos.card_counts(owner)
            for t, (have, limit) in enumerate(zip(counts, rules.deck)):
                if have > limit:
                    raise RansomPositionError(f"{PLAYER_NAMES[owner]} has {have} {catalog.units[t].name} cards; "
                                              f"the deck holds {limit}")
        if pos.in_check(1 - side):
            raise RansomPositionError(f"{PLAYER_NAMES[1 - side]}'s King is threatened by a face-up card while "
                                      f"{PLAYER_NAMES[side]} is to move")
        return pos

    # -- texts of steps -----------------------------------------------------------------------------
    def move_text(self, move: int, promotion: int | None = None) -> str:
        text = square_name(codes.order_origin(move)) + square_name(codes.order_dest(move))
        if promotion is not None:
            text += "=" + self.token(promotion, self.side)
        return text


def turn_text(pos: RansomPosition, turn: Turn) -> str:
    """A turn in divide's form (G8): ``flip:b2 move:b1a2 play:N@c2`` (docs/kings-ransom.md)."""
    flip = square_name(turn.flip) if turn.flip is not None else "-"
    move = pos.move_text(turn.move, turn.promotion)
    if turn.play is None:
        play = "-"
    else:
        t, sq = turn.play
        play = pos.token(t, pos.side) + "@" + (square_name(sq) if sq is not None else "discard")
    return f"flip:{flip} move:{move} play:{play}"


class _Walk:
    """A Python perft walk's live state: leaves counted in finished subtrees, the stop test and
    progress reports at most every ``interval`` seconds from inside deep subtrees."""

    __slots__ = ("stop", "progress", "nodes", "next_report", "interval", "done", "total")

    def __init__(self, stop=None, progress=None, interval: float = 0.5):
        self.stop, self.progress, self.interval = stop, progress, interval
        self.nodes, self.done, self.total = 0, 0, 0
        self.next_report = time.monotonic() + interval

    def poll(self) -> None:
        if self.stop is not None and self.stop():
            raise KeyboardInterrupt
        if self.progress is not None and time.monotonic() >= self.next_report:
            self.next_report = time.monotonic() + self.interval
            self.progress(self.done, self.total, self.nodes)


def _perft(pos: RansomPosition, depth: int, walk: _Walk | None) -> int:
    if depth == 1:
        n = pos.count_turns()
        if walk is not None:
            walk.nodes += n
        return n
    total = 0
    for turn in pos.turns():
        if walk is not None:
            walk.poll()
        child = pos.copy()
        if child.apply_turn(turn):
            total += 1
            if walk is not None:
                walk.nodes += 1
        else:
            total += _perft(child, depth - 1, walk)
    return total


def perft_python(pos: RansomPosition, depth: int, stop=None) -> int:
    """:func:`perft` in Python over the kernel's calls (turns, apply_turn, count_turns): the C
    kernel's check. ``stop``: a callable polled between subtrees; when it returns True,
    KeyboardInterrupt."""
    if depth <= 0:
        return 1
    return _perft(pos, depth, _Walk(stop) if stop is not None else None)


def divide_python(pos: RansomPosition, depth: int, stop=None, progress=None) -> dict[str, int]:
    """:func:`divide` with the subtrees counted by :func:`perft_python`."""
    out: dict[str, int] = {}
    turns = pos.turns()
    walk = _Walk(stop, progress)
    walk.total = len(turns)
    for i, turn in enumerate(turns):
        walk.poll()
        child = pos.copy()
        over = child.apply_turn(turn)
        before = walk.nodes
        count = 1 if over or depth <= 1 else _perft(child, depth - 1, walk)
        out[turn_text(pos, turn)] = count
        walk.nodes = before + count
        walk.done = i + 1
        if progress is not None:
            progress(walk.done, walk.total, walk.nodes)
    return out


def kernel_perft(pos: RansomPosition, depth: int, control: PerftControl | None = None) -> int:
    """perft of ``pos`` counted in C (engine._ransom), in this thread with the GIL released.
    ``control``: stops it (PerftStopped) and counts its leaves live."""
    rules = pos.rules
    return _ransom_perft(pos.core, pos.face_down, pos.hands, pos.discards, depth, rules.king_type,
                         rules.pawn_type, rules.halves, rules.back_rows, control)


def _counted(pool: ThreadPoolExecutor, pos: RansomPosition, depth: int, control: PerftControl, stop, tick,
             interval: float) -> int:
    """One C count in a worker thread while this thread waits: ``stop()`` polled and ``tick()``
    called every ``interval`` seconds. The wait keeps this thread in Python, so signal handlers run
    (a KeyboardInterrupt from one stops the count before it propagates)."""
    future = pool.submit(kernel_perft, pos, depth, control)
    try:
        while True:
            try:
                return future.result(timeout=interval)
            except FutureTimeout:
                pass
            if stop is not None and stop():
                control.stop()
                raise KeyboardInterrupt
            if tick is not None:
                tick()
    except BaseException:
        control.stop()                      # the worker returns within microseconds
        raise


def perft(pos: RansomPosition, depth: int, stop=None, control: PerftControl | None = None) -> int:
    """Sequences of ``depth`` complete turns (G8): the last level counted without being played, in
    C (engine._ransom). ``stop``: a callable polled every few hundredths of a second; when it
    returns True, KeyboardInterrupt. ``control``: a PerftControl whose stop() makes the count raise
    PerftStopped (and whose ``nodes`` grows as it counts)."""
    if depth <= 0:
        return 1
    if stop is None:
        return kernel_perft(pos, depth, control)
    control = PerftControl() if control is None else control
    with ThreadPoolExecutor(1, thread_name_prefix="ftc-ransom-perft") as pool:
        return _counted(pool, pos, depth, control, stop, None, 0.05)


def divide(pos: RansomPosition, depth: int, stop=None, progress=None, control: PerftControl | None = None,
           interval: float = 0.5) -> dict[str, int]:
    """Perft below each turn of the first level, by the turn's divide text; the first level in
    Python, each subtree in C in a worker thread while this thread waits (so Ctrl-C and signal
    handlers run). ``progress(done, total, nodes)`` after each first-level turn and every
    ``interval`` seconds inside one; ``stop`` as for :func:`perft`; ``control``: as for
    :func:`perft` (stopped: PerftStopped with the leaves counted and, as ``counts``, the first-level
    turns counted in full)."""
    out: dict[str, int] = {}
    turns = pos.turns()
    control = PerftControl() if control is None else control
    nodes = 0                               # leaves of the finished first-level turns
    with ThreadPoolExecutor(1, thread_name_prefix="ftc-ransom-perft") as pool:
        for i, turn in enumerate(turns):
            if stop is not None and stop():
                control.stop()
                raise KeyboardInterrupt
            if control.stopped:
                raise PerftStopped(nodes, control.reason, out)
            child = pos.copy()
            over = child.apply_turn(turn)
            if over or depth <= 1:
                count = 1
            else:
                base = control.nodes

                def tick(done=i, base=base) -> None:
                    if progress is not None:
                        progress(done, len(turns), nodes + control.nodes - base)

                try:
                    count = _counted(pool, child, depth - 1, control, stop, tick, interval)
                except PerftStopped as stopped:         # with the first-level turns counted in full
                    raise PerftStopped(nodes + control.nodes - base, stopped.reason, out) from None
            out[turn_text(pos, turn)] = count
            nodes += count
            if progress is not None:
                progress(i + 1, len(turns), nodes)
    return out


def parse_square_on(rules: RansomRules, text: str) -> int:
    """A square of the arena from its name (a1..c6), ValueError naming it otherwise."""
    sq = parse_square(text)
    if (sq & 7) >= rules.files or (sq >> 3) >= rules.ranks:
        raise ValueError(f"{text!r} is not a square of the {rules.files}x{rules.ranks} arena")
    return sq

