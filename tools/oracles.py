#!/usr/bin/env python3
"""Independent perft oracles for ftc-engine (RULINGS C8), built on third-party move generators.

Nothing here imports the engine: these functions are the reference the engine is tested against.

* ``chess_perft`` / ``chess_divide``: python-chess pseudo-legal move generation with castling and
  en passant removed, promotions to N B R Q only, and a position where either side has no King is
  over (no orders; depth 0 still counts 1).  For a position holding only K Q R B N P, no pawn on its
  owner's first rank and a Stock that cannot run out of N B R Q within the depth, this is exactly
  For the Crown's C8 order tree with ``promote:NBRQ``.  The last ply is bulk-counted from bitboards
  (python-chess's own attack tables) without making the moves.

* ``ffish_perft`` / ``ffish_divide``: Fairy-Stockfish (pyffish) driven by the variants in
  ``fairy-stockfish-ftc.ini`` (ftco = orthodox units, ftcf = + fairy units, ftcd = ftcf + Barracks
  deploys to the first rank).  ``to_ffish_fen`` / ``from_ffish_move`` / ``from_ffish_fen`` translate
  between our position/order text (RULINGS A3/A4) and Fairy-Stockfish letters.  The ini header lists
  what it cannot express (Anointed, promotion to King, Stock limits, several unit types, the
  Immortal, cylindrical movement, Foot deploys to rank 2): keep those out of oracle positions.

CLI::

    python tools/oracles.py suite [--only chess|fairy]   # regenerate tests/data/perft_*.epd
    python tools/oracles.py perft "<position text>" DEPTH [--variant chess|ftco|ftcf|ftcd] [--divide]
    python tools/oracles.py selftest                      # ini loads; ftco == python-chess; fast count
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import chess

REPO = Path(__file__).resolve().parent.parent
DATA_DIR = REPO / "tests" / "data"
CHESS_SUITE = DATA_DIR / "perft_chess.epd"
FAIRY_SUITE = DATA_DIR / "perft_fairy.epd"

# ---------------------------------------------------------------------------------------------
# Our position text (RULINGS A3) helpers, written independently of the engine.
# ---------------------------------------------------------------------------------------------

#: RULINGS E inventory (PROVISIONAL numbers, mirrored here only to decide when a suite position
#: needs an explicit ``stock:`` field; the engine reads its own catalog).
INVENTORY = {
    "P": 20, "N": 6, "B": 6, "R": 6, "Q": 4, "K": 4, "T": 7, "M": 5, "A": 5,
    **{t: 4 for t in "UECLDGHIZOFSXYW"},
    "~P": 8, "~K": 4, "~M": 6, **{t: 5 for t in ("~B", "~N", "~Z", "~R", "~G", "~H", "~L")},
}
FOOT = {"P", "T", "M", "I", "~P", "~M"}


def tokenize(s: str) -> list[str]:
    """Split a board or Barracks string into tokens; digits and '/' are returned as themselves."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "~":
            out.append(s[i:i + 2])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return out


def parse_text(text: str) -> dict:
    """Parse our position text into its parts (board, barracks, side, clocks, extra fields)."""
    fields = text.split()
    if not fields:
        raise ValueError("empty position text")
    board = fields[0]
    barracks = ""
    if "[" in board:
        board, rest = board.split("[", 1)
        if not rest.endswith("]"):
            raise ValueError(f"bad Barracks field in {text!r}")
        barracks = rest[:-1]
    positional = [f for f in fields[1:] if ":" not in f]
    extras = dict(f.split(":", 1) for f in fields[1:] if ":" in f)
    side = positional[0] if positional else "w"
    if side not in ("w", "b"):
        raise ValueError(f"bad side {side!r}")
    hm = positional[3] if len(positional) > 3 else "0"
    fm = positional[4] if len(positional) > 4 else "1"
    return {"board": board, "barracks": barracks, "side": side, "halfmove": hm, "fullmove": fm,
            "extras": extras}


def board_units(board: str) -> list[tuple[int, str]]:
    """(square, token) for every unit of a board string; a1 = 0 ... h8 = 63."""
    out = []
    ranks = board.split("/")
    if len(ranks) != 8:
        raise ValueError(f"board needs 8 ranks: {board!r}")
    for r, row in enumerate(ranks):
        f = 0
        for tok in tokenize(row):
            if tok.isdigit():
                f += int(tok)
            else:
                out.append(((7 - r) * 8 + f, tok))
                f += 1
        if f != 8:
            raise ValueError(f"rank {8 - r} has {f} files: {row!r}")
    return out


def default_stock(text: str) -> dict[str, int]:
    """RULINGS E inventory minus the units on the board and in both Barracks, clamped at 0."""
    p = parse_text(text)
    stock = dict(INVENTORY)
    toks = [t for _, t in board_units(p["board"])] + [t for t in tokenize(p["barracks"]) if not t.isdigit()]
    for t in toks:
        key = t.upper() if not t.startswith("~") else "~" + t[1].upper()
        stock[key] = max(0, stock.get(key, 0) - 1)
    return stock


def promotion_bound(text: str, depth: int, promote: str = "NBRQ") -> int:
    """Upper bound on the number of promotions along any line of ``depth`` plies.

    A side can promote at most once per ply it plays, and only if one of its Foot units (on the
    board or in its Barracks) can reach its eighth rank within the orders that side plays: a Pawn
    gains one rank per order (two from its first or second rank), a Monk or Pilgrim at most two,
    every other Foot unit one; a Barracks unit first spends an order deploying to rank 2.  Units
    created by a promotion stand on the eighth rank already, so they are covered by "once per ply";
    when no Foot type can be promoted to, each Foot unit promotes at most once.
    """
    foot_targets = any(t in FOOT for t in tokenize(promote))
    p = parse_text(text)
    first = p["side"]
    plies = {first: (depth + 1) // 2, ("b" if first == "w" else "w"): depth // 2}
    bound = 0
    units = board_units(p["board"])
    for side in ("w", "b"):
        m = plies[side]
        reach = 0
        cands = [(sq // 8 + 1 if tok[-1].isupper() else 8 - sq // 8, tok, 0) for sq, tok in units]
        cands += [(2, tok, 1) for tok in tokenize(p["barracks"]) if not tok.isdigit()]
        for rel_rank, tok, extra in cands:
            blue = tok[-1].isupper()
            base = (tok if not tok.startswith("~") else "~" + tok[1]).upper()
            if ("w" if blue else "b") != side or base not in FOOT:
                continue
            gap = 8 - rel_rank
            if base in ("M", "~M"):
                need = (gap + 1) // 2
            elif base == "P":
                need = gap - 1 if rel_rank <= 2 else gap
            else:
                need = gap
            if need + extra <= m:
                reach += m if foot_targets else 1
        bound += min(m, reach)
    return bound


def with_fields(text: str, promote: str, depth: int, generous: int = 8) -> str:
    """Append ``promote:`` (and ``stock:`` only if the default Stock could run out)."""
    fields = [f for f in text.split() if not f.startswith(("promote:", "stock:"))]
    base = " ".join(fields)
    stock = default_stock(base)
    types = tokenize(promote)
    need = promotion_bound(base, depth, promote)
    out = base
    if need and min(stock[t] for t in types) < need:
        out += " stock:" + "".join(f"{t}{max(generous, need)}" for t in types)
    return out + f" promote:{promote}"


# ---------------------------------------------------------------------------------------------
# python-chess oracle
# ---------------------------------------------------------------------------------------------

_BB_ALL = chess.BB_ALL
_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
_DIAG_M = chess.BB_DIAG_MASKS
_DIAG_A = chess.BB_DIAG_ATTACKS
_FILE_M = chess.BB_FILE_MASKS
_FILE_A = chess.BB_FILE_ATTACKS
_RANK_M = chess.BB_RANK_MASKS
_RANK_A = chess.BB_RANK_ATTACKS
_NOT_A = ~chess.BB_FILE_A & _BB_ALL
_NOT_H = ~chess.BB_FILE_H & _BB_ALL


def chess_board(text: str) -> chess.Board:
    """A python-chess Board for our text: orthodox tokens only, castling and ep cleared."""
    p = parse_text(text)
    if p["barracks"]:
        raise ValueError("python-chess oracle: Barracks are not supported")
    if "status" in p["extras"]:
        raise ValueError("python-chess oracle: unit status flags are not supported")
    prom = p["extras"].get("promote")
    if prom is not None and sorted(tokenize(prom)) != sorted("NBRQ"):
        raise ValueError("python-chess oracle: promotion types must be exactly NBRQ")
    for _, tok in board_units(p["board"]):
        if tok.upper() not in "KQRBNP" or tok.startswith("~"):
            raise ValueError(f"python-chess oracle: unit {tok!r} is not orthodox")
    b = chess.Board(None)
    b.set_board_fen(p["board"])
    b.turn = p["side"] == "w"
    b.castling_rights = chess.BB_EMPTY
    b.ep_square = None
    b.halfmove_clock = int(p["halfmove"])
    b.fullmove_number = int(p["fullmove"])
    return b


def _both_kings(b: chess.Board) -> bool:
    k = b.kings
    return bool(k & b.occupied_co[True]) and bool(k & b.occupied_co[False])


def _count_fast(b: chess.Board) -> int:
    """Number of pseudo-legal moves (no castling, no ep, promotions x4) from bitboards."""
    turn = b.turn
    us = b.occupied_co[turn]
    them = b.occupied_co[not turn]
    occ = b.occupied
    not_us = ~us & _BB_ALL
    n = 0
    sq_bb = b.knights & us
    while sq_bb:
        lsb = sq_bb & -sq_bb
        n += (_KNIGHT[lsb.bit_length() - 1] & not_us).bit_count()
        sq_bb ^= lsb
    sq_bb = b.kings & us
    while sq_bb:
        lsb = sq_bb & -sq_bb
        n += (_KING[lsb.bit_length() - 1] & not_us).bit_count()
        sq_bb ^= lsb
    diag = (b.bishops | b.queens) & us
    while diag:
        lsb = diag & -diag
        s = lsb.bit_length() - 1
        n += (_DIAG_A[s][_DIAG_M[s] & occ] & not_us).bit_count()
        diag ^= lsb
    orth = (b.rooks | b.queens) & us
    while orth:
        lsb = orth & -orth
        s = lsb.bit_length() - 1
        n += ((_FILE_A[s][_FILE_M[s] & occ] | _RANK_A[s][_RANK_M[s] & occ]) & not_us).bit_count()
        orth ^= lsb
    pawns = b.pawns & us
    if pawns:
        empty = ~occ & _BB_ALL
        if turn:
            single = (pawns << 8) & empty
            double = ((single & chess.BB_RANK_3) << 8) & empty
            caps = (((pawns & _NOT_A) << 7) & them, ((pawns & _NOT_H) << 9) & them)
            last = chess.BB_RANK_8
        else:
            single = (pawns >> 8) & empty
            double = ((single & chess.BB_RANK_6) >> 8) & empty
            caps = (((pawns & _NOT_A) >> 9) & them, ((pawns & _NOT_H) >> 7) & them)
            last = chess.BB_RANK_1
        n += double.bit_count()
        for t in (single, caps[0], caps[1]):
            n += (t & ~last).bit_count() + 4 * (t & last).bit_count()
    return n


def _count_gen(b: chess.Board) -> int:
    """Reference count through python-chess's generator (slower; used to validate _count_fast)."""
    return sum(1 for m in b.generate_pseudo_legal_moves() if not b.is_en_passant(m)
               and not b.is_castling(m))


def _moves(b: chess.Board) -> list[chess.Move]:
    return [m for m in b.generate_pseudo_legal_moves()
            if not b.is_castling(m) and not b.is_en_passant(m)]


def _chess_perft(b: chess.Board, depth: int, count=_count_fast) -> int:
    if not _both_kings(b):
        return 0
    if depth == 1 and count is not None:
        return count(b)
    n = 0
    push, pop = b.push, b.pop
    for m in _moves(b):
        push(m)
        b.ep_square = None
        n += _chess_perft(b, depth - 1, count) if depth > 1 else 1
        pop()
    return n


_BULK = {"bitboard": _count_fast, "generator": _count_gen, "none": None}


def chess_perft(fen: str, depth: int, bulk: str = "bitboard") -> int:
    """FtC board-tree perft of an orthodox position by python-chess (see module docstring).

    ``bulk`` says how the last ply is counted: ``"bitboard"`` (default, fastest: popcounts of
    python-chess attack masks), ``"generator"`` (length of python-chess's pseudo-legal move list) or
    ``"none"`` (every leaf move is made and unmade, the classic perft).  All three give one count.
    """
    if depth <= 0:
        return 1
    return _chess_perft(chess_board(fen), depth, _BULK[bulk])


def chess_divide(fen: str, depth: int) -> dict[str, int]:
    """Root order text (UCI, e.g. ``e7e8q``) -> perft(depth - 1) below it."""
    b = chess_board(fen)
    if depth <= 0 or not _both_kings(b):
        return {}
    out = {}
    for m in _moves(b):
        b.push(m)
        b.ep_square = None
        out[m.uci()] = 1 if depth == 1 else _chess_perft(b, depth - 1)
        b.pop()
    return out


# ---------------------------------------------------------------------------------------------
# Fairy-Stockfish (pyffish) oracle
# ---------------------------------------------------------------------------------------------

#: our token -> Fairy-Stockfish letter (uppercase = Blue/White); see the ini header.
TOKEN_TO_FFISH = {"K": "K", "Q": "Q", "R": "R", "B": "B", "N": "N", "P": "P",
                  "Z": "A", "C": "C", "D": "D", "H": "H", "M": "M", "E": "E", "A": "O", "T": "S"}
FFISH_TO_TOKEN = {v: k for k, v in TOKEN_TO_FFISH.items()}
#: our promote: tokens matching the ini's ftcf promotionPieceTypes (nbrqacdhmeos)
FFISH_PROMOTE = "NBRQZCDHMEAT"
FFISH_VARIANTS = ("ftco", "ftcf", "ftcd")

_INI_CANDIDATES = [
    os.environ.get("FTC_FFISH_INI", ""),
    str(REPO / "tools" / "fairy-stockfish-ftc.ini"),
]
_ffish = None


def ini_path() -> str | None:
    for c in _INI_CANDIDATES:
        if c and os.path.isfile(c):
            return c
    return None


def ffish():
    """The pyffish module with the FtC variants loaded (raises RuntimeError if unavailable)."""
    global _ffish
    if _ffish is None:
        import pyffish
        path = ini_path()
        if path is None:
            raise RuntimeError("fairy-stockfish-ftc.ini not found (set FTC_FFISH_INI)")
        with open(path) as fh:
            pyffish.load_variant_config(fh.read())
        missing = [v for v in FFISH_VARIANTS if v not in pyffish.variants()]
        if missing:
            raise RuntimeError(f"ini did not define {missing}")
        _ffish = pyffish
    return _ffish


def _tok_to_ff(tok: str) -> str:
    if tok.startswith("~") or tok.upper() not in TOKEN_TO_FFISH:
        raise ValueError(f"unit {tok!r} cannot be expressed in fairy-stockfish-ftc.ini")
    letter = TOKEN_TO_FFISH[tok.upper()]
    return letter if tok.isupper() else letter.lower()


def to_ffish_fen(text: str, variant: str | None = None) -> str:
    """Our position text -> Fairy-Stockfish FEN (Barracks become holdings ``[...]``).

    ``promote:`` and ``stock:`` are dropped (the ini fixes promotion types; Stock limits cannot be
    expressed, so choose positions where they never bind).  ``status:`` cannot be expressed.
    """
    p = parse_text(text)
    if "status" in p["extras"]:
        raise ValueError("unit status flags cannot be expressed in fairy-stockfish-ftc.ini")
    rows = []
    for row in p["board"].split("/"):
        rows.append("".join(t if t.isdigit() else _tok_to_ff(t) for t in tokenize(row)))
    board = "/".join(rows)
    board_units(p["board"])  # validates shape
    hold = "".join(_tok_to_ff(t) for t in tokenize(p["barracks"]))
    if hold and variant not in (None, "ftcd"):
        raise ValueError(f"Barracks need variant ftcd, not {variant}")
    if hold or variant == "ftcd":
        board += f"[{hold}]"
    return f"{board} {p['side']} - - {p['halfmove']} {p['fullmove']}"


def from_ffish_fen(fen: str) -> str:
    """Fairy-Stockfish FEN -> our position text (castling/ep printed as ``-``)."""
    fields = fen.split()
    board = fields[0]
    hold = ""
    if "[" in board:
        board, rest = board.split("[", 1)
        hold = rest.rstrip("]")

    def conv(ch: str) -> str:
        if ch.isdigit() or ch == "/":
            return ch
        tok = FFISH_TO_TOKEN[ch.upper()]
        return tok if ch.isupper() else tok.lower()

    out = "".join(conv(c) for c in board)
    if hold:
        out += "[" + "".join(conv(c) for c in hold) + "]"
    side = fields[1] if len(fields) > 1 else "w"
    hm = fields[4] if len(fields) > 4 else "0"
    fm = fields[5] if len(fields) > 5 else "1"
    return f"{out} {side} - - {hm} {fm}"


def from_ffish_move(move: str) -> str:
    """Fairy-Stockfish UCI move -> our order text (A4): promotions and drops use our tokens."""
    if "@" in move:
        letter, sq = move.split("@", 1)
        return FFISH_TO_TOKEN[letter.upper()] + "@" + sq
    if len(move) == 5:
        return move[:4] + FFISH_TO_TOKEN[move[4].upper()].lower()
    if len(move) != 4:
        raise ValueError(f"unexpected Fairy-Stockfish move {move!r}")
    return move


class _FfishTree:
    """Walks the order tree of one root FEN, asking Fairy-Stockfish for the moves of every node.

    pyffish rebuilds its piece tables on every call (~1.5 ms), whatever the length of the move list,
    so the nodes are reached by replaying the move path from the root (one call per node) rather
    than by get_fen + legal_moves (two calls).  The board is tracked here only to know whether both
    sides still have a King (a side without one has lost: no moves).
    """

    def __init__(self, sf, variant: str, fen: str):
        self.sf, self.variant, self.fen = sf, variant, fen
        fields = fen.split()
        self.white = fields[1] == "w" if len(fields) > 1 else True
        self.board: dict[str, str] = {}
        rows = fields[0].split("[", 1)[0].split("/")
        for r, row in enumerate(rows):
            f = 0
            for ch in row:
                if ch.isdigit():
                    f += int(ch)
                else:
                    self.board["abcdefgh"[f] + str(8 - r)] = ch
                    f += 1
        self.kings = {c: sum(1 for v in self.board.values() if v == c) for c in "Kk"}
        self.path: list[str] = []

    def moves(self) -> list[str]:
        return self.sf.legal_moves(self.variant, self.fen, self.path)

    def alive(self) -> bool:
        return self.kings["K"] > 0 and self.kings["k"] > 0

    def push(self, m: str) -> tuple:
        white = (len(self.path) % 2 == 0) == self.white
        if "@" in m:
            letter, to = m.split("@")
            frm, piece = None, letter.upper() if white else letter.lower()
        else:
            frm, to = m[:2], m[2:4]
            piece = self.board[frm]
            if len(m) > 4:
                piece = m[4].upper() if white else m[4].lower()
        captured = self.board.get(to)
        undo = (frm, self.board.get(frm) if frm else None, to, captured)
        if frm:
            del self.board[frm]
        self.board[to] = piece
        if captured in self.kings:
            self.kings[captured] -= 1
        self.path.append(m)
        return undo

    def pop(self, undo: tuple) -> None:
        frm, moved, to, captured = undo
        self.path.pop()
        if captured is None:
            del self.board[to]
        else:
            self.board[to] = captured
            if captured in self.kings:
                self.kings[captured] += 1
        if frm:
            self.board[frm] = moved

    def perft(self, depth: int) -> int:
        if not self.alive():
            return 0
        moves = self.moves()
        if depth == 1:
            return len(moves)
        n = 0
        for m in moves:
            undo = self.push(m)
            n += self.perft(depth - 1)
            self.pop(undo)
        return n


def ffish_perft(text: str, depth: int, variant: str = "ftcf", *, raw: bool = False) -> int:
    """FtC perft by Fairy-Stockfish.  ``text`` is our position text (``raw=True``: an ffish FEN)."""
    sf = ffish()
    fen = text if raw else to_ffish_fen(text, variant)
    if depth <= 0:
        return 1
    return _FfishTree(sf, variant, fen).perft(depth)


def ffish_divide(text: str, depth: int, variant: str = "ftcf", *, raw: bool = False) -> dict[str, int]:
    """Root order text (our A4 text) -> perft(depth - 1) below it, by Fairy-Stockfish."""
    sf = ffish()
    fen = text if raw else to_ffish_fen(text, variant)
    tree = _FfishTree(sf, variant, fen)
    if depth <= 0 or not tree.alive():
        return {}
    out = {}
    for m in tree.moves():
        undo = tree.push(m)
        out[from_ffish_move(m)] = 1 if depth == 1 else tree.perft(depth - 1)
        tree.pop(undo)
    return out


# ---------------------------------------------------------------------------------------------
# Suites
# ---------------------------------------------------------------------------------------------

# (position text without promote:/stock:, depths, note).  Castling and en passant are '-'.
CHESS_POSITIONS = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 6, "chess start"),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1", 5, "kiwipete, no castling"),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6, "CPW position 3 endgame, king captures"),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w - - 0 1", 5, "CPW position 4, promotions"),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w - - 1 8", 5, "CPW position 5, promotions"),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4, "CPW position 6"),
    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 5, "promotion-heavy, knights"),
    ("8/PPP4k/8/8/8/8/4Kppp/8 w - - 0 1", 5, "promotion-heavy, both sides"),
    ("4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 6, "single promotion race"),
    ("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w - - 1 3", 4, "fool's mate: king capturable"),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w - - 4 4", 4, "scholar's mate: king capture in 2"),
    ("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", 6, "king en prise at the root"),
    ("8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1", 7, "blocked pawn endgame"),
    ("3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, "rook vs pawns, king captures"),
    ("8/8/1k6/2b5/2pP4/8/5K2/8 b - - 0 1", 6, "former en passant position (ep cleared)"),
    ("r6r/1b2k1bq/8/8/7B/8/8/R3K2R w - - 3 2", 4, "former castling position (castling cleared)"),
    ("2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 6, "promotion by capture"),
    ("8/8/8/8/8/8/6k1/4K2R w - - 0 1", 6, "KR vs K"),
]

# (position text without promote:/stock:, variant, depths, note).  Tokens are OURS (A3).
FAIRY_POSITIONS = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "ftcf", 4, "chess start via ftcf"),
    ("hzcekdah/pmtpptmp/8/8/8/8/PMTPPTMP/HZCEKDAH w - - 0 1", "ftcf", 4, "fairy army start"),
    ("r1c1kd1r/pppmpppp/2z5/8/3E4/2H5/PPPTPPPP/R2AK2R w - - 0 1", "ftcf", 4, "fairy middlegame"),
    ("4k3/PTM5/8/8/8/8/5mtp/4K3 w - - 0 1", "ftcf", 3, "Foot promotions to fairy types"),
    ("4k3/8/2Z5/8/3e4/8/8/4K3 w - - 0 1", "ftcf", 4, "Nightrider vs Banshee"),
    ("2h1k3/3m4/1t6/3C4/8/4D3/1A6/4K3 b - - 0 1", "ftcf", 4, "Hero, Monk, Striker, Chancellor, Dragoon, Acolyte"),
    ("3k4/2M1t3/8/1Z3a2/8/3E4/8/3K4 w - - 0 1", "ftcf", 4, "king capture threats"),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1", "ftco", 3, "kiwipete via ftco"),
    ("4k3/8/8/8/8/8/8/4K3[NZCe] w - - 0 1", "ftcd", 4, "Barracks deploys only"),
    ("rz2k2r/pppt1ppp/8/3p4/3P4/8/PPPT1PPP/R3K2R[HDca] w - - 0 1", "ftcd", 4, "deploys in a middlegame"),
    ("4k3/1PM2t2/8/8/8/8/2tm4/4K3[AEh] b - - 0 1", "ftcd", 3, "deploys and fairy promotions"),
    ("n3k3/3T4/8/4E3/8/2z5/8/4K3[QRr] w - - 0 1", "ftcd", 3, "deploy heavy pieces, Striker promotion"),
]


def _fmt_line(text: str, counts: list[int], source: str) -> str:
    return text + " " + " ".join(f";D{i + 1} {n}" for i, n in enumerate(counts)) + f" ; source={source}"


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def gen_chess_suite(path: Path = CHESS_SUITE) -> None:
    lines = [
        "# FtC perft suite, orthodox positions (K Q R B N P; castling and en passant cleared).",
        "# Counts by python-chess pseudo-legal move generation as For the Crown's order tree",
        "# (RULINGS C8): no castling, no en passant, no check, promotions N B R Q, a side without",
        "# a King has no moves.  stock: appears only where the default Stock could run out.",
        "# Regenerate: python tools/oracles.py suite --only chess   (tools/oracles.py)",
        "# Format: <position text> ;D1 n ;D2 n ... ; source=<oracle>",
    ]
    t_all = time.time()
    for i, (base, depth, note) in enumerate(CHESS_POSITIONS):
        text = with_fields(base, "NBRQ", depth)
        counts = []
        t0 = time.time()
        for d in range(1, depth + 1):
            counts.append(chess_perft(text, d))
            _progress(f"[chess {i + 1}/{len(CHESS_POSITIONS)}] {note}: D{d} = {counts[-1]} "
                      f"({time.time() - t0:.1f}s)")
        lines.append(f"# {note}")
        lines.append(_fmt_line(text, counts, "python-chess"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    _progress(f"wrote {path} in {time.time() - t_all:.1f}s")


def gen_fairy_suite(path: Path = FAIRY_SUITE) -> None:
    sf = ffish()
    lines = [
        "# FtC perft suite, fairy units and Barracks deploys, counted by Fairy-Stockfish (pyffish "
        f"{'.'.join(map(str, sf.version()))})",
        "# with the variants of fairy-stockfish-ftc.ini: ftco orthodox, ftcf + Z C D H M E A T,",
        "# ftcd = ftcf + deploys of non-Foot Barracks units to the first rank.  Tokens are ours",
        "# (RULINGS A3); promote:NBRQZCDHMEAT mirrors the ini's promotionPieceTypes; stock: appears",
        "# only where the default Stock could run out.  No Anointed, Immortal, King promotion, pawn on",
        "# its own first rank, cylindrical unit or Foot unit in a Barracks (see the ini header).",
        "# Regenerate: python tools/oracles.py suite --only fairy   (tools/oracles.py)",
        "# Format: <position text> ;D1 n ;D2 n ... ; source=pyffish:<variant>",
    ]
    t_all = time.time()
    for i, (base, variant, depth, note) in enumerate(FAIRY_POSITIONS):
        text = with_fields(base, "NBRQ" if variant == "ftco" else FFISH_PROMOTE, depth)
        counts = []
        t0 = time.time()
        for d in range(1, depth + 1):
            counts.append(ffish_perft(text, d, variant))
            _progress(f"[fairy {i + 1}/{len(FAIRY_POSITIONS)}] {note}: D{d} = {counts[-1]} "
                      f"({time.time() - t0:.1f}s)")
        lines.append(f"# {note}")
        lines.append(_fmt_line(text, counts, f"pyffish:{variant}"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    _progress(f"wrote {path} in {time.time() - t_all:.1f}s")


def read_suite(path: Path) -> list[tuple[str, dict[int, int], str]]:
    """Parse a suite file into (position text, {depth: count}, source)."""
    out = []
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [s.strip() for s in line.split(";")]
        text, counts, source = parts[0], {}, "?"
        for part in parts[1:]:
            if part.startswith("source="):
                source = part[len("source="):]
            elif part.startswith("D"):
                d, n = part[1:].split()
                counts[int(d)] = int(n)
        out.append((text, counts, source))
    return out


def selftest() -> None:
    sf = ffish()
    _progress(f"pyffish {sf.version()} loaded {ini_path()}: variants {FFISH_VARIANTS} present")
    for text, d in [("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 3),
                    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1", 2),
                    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 3),
                    ("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", 4)]:
        a, b = chess_perft(text, d), ffish_perft(text, d, "ftco")
        da, db = chess_divide(text, d), ffish_divide(text, d, "ftco")
        ok = a == b and da == db
        _progress(f"  D{d} python-chess {a} ffish:ftco {b} {'OK' if ok else 'MISMATCH'}  {text}")
        if not ok:
            raise SystemExit(1)
    # fast bulk count == python-chess generator count on every node of a few small trees
    checked = 0
    for text in [t for t, _, _ in CHESS_POSITIONS[:8]]:
        b = chess_board(text)
        stack = [(b.copy(), 2)]
        while stack:
            bb, d = stack.pop()
            if _count_fast(bb) != _count_gen(bb):
                raise SystemExit(f"fast count mismatch: {bb.fen()}")
            checked += 1
            if d:
                for m in _moves(bb):
                    c = bb.copy(stack=False)
                    c.push(m)
                    c.ep_square = None
                    stack.append((c, d - 1))
    _progress(f"  fast bulk count == generator count on {checked} nodes")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("suite", help="regenerate tests/data/perft_chess.epd and perft_fairy.epd")
    s.add_argument("--only", choices=["chess", "fairy"])
    p = sub.add_parser("perft", help="run one oracle")
    p.add_argument("position")
    p.add_argument("depth", type=int)
    p.add_argument("--variant", default="chess", choices=["chess", *FFISH_VARIANTS])
    p.add_argument("--divide", action="store_true")
    sub.add_parser("selftest", help="check the ini loads and the oracles agree")
    a = ap.parse_args(argv)
    if a.cmd == "suite":
        if a.only in (None, "chess"):
            gen_chess_suite()
        if a.only in (None, "fairy"):
            gen_fairy_suite()
    elif a.cmd == "perft":
        t0 = time.time()
        if a.divide:
            d = (chess_divide(a.position, a.depth) if a.variant == "chess"
                 else ffish_divide(a.position, a.depth, a.variant))
            for k in sorted(d):
                print(f"{k}: {d[k]}")
            n = sum(d.values())
        else:
            n = (chess_perft(a.position, a.depth) if a.variant == "chess"
                 else ffish_perft(a.position, a.depth, a.variant))
        print(f"Nodes searched: {n}")
        _progress(f"{time.time() - t0:.2f}s")
    elif a.cmd == "selftest":
        selftest()
    return 0


if __name__ == "__main__":
    sys.exit(main())
