"""Hand-derived move sets for every one of the 34 unit types (RULINGS A3 tokens).

Each case places one Blue unit (plus the two Kings on squares its moves never touch, since a side
without a Sovereign has no orders, and a few blockers/enemies where a rider's blocking matters) and
compares the orders issued *from the unit's square* with a set of destinations written out by hand.
The one-line comment above every case is the derivation; nothing here is computed by an engine.

Modes (RULINGS B17, 16.0):
  FLAT  legal_orders()                      base types only
  CYL   legal_orders(cylindrical=True)      base types: every leap/step/ride wraps a<->h
  BOTH  the same expected set in FLAT and CYL (e.g. a centre square whose moves never reach an edge)
  EXP   expansion types: always cylindrical, so default mode and cylindrical=True give the same set

Coordinates: files a..h, ranks 1..8; Blue ("w", uppercase) moves toward rank 8.
"""

import pytest

from engine import Position
from tests.support import board_text

FLAT, CYL, BOTH, EXP = "flat", "cyl", "both", "exp"




def position(units, side="w", tail=""):
    text = f"{board_text(units)} {side} - - 0 1"
    if tail:
        text += " " + tail
    return Position.from_text(text)


def orders_from(pos, square, cylindrical=False):
    return {str(o) for o in pos.legal_orders(cylindrical=cylindrical) if str(o)[:2] == square}


def expect(square, dests):
    return {square + d for d in dests.split()}


# (id, units, square of the tested unit, mode, expected destinations)
CASES = [
    # ---------------------------------------------------------------- K King (B7: one step any way)
    # d4: the 8 neighbours.
    ("K-d4", {"d4": "K", "h8": "k"}, "d4", BOTH, "c3 c4 c5 d3 d5 e3 e4 e5"),
    # a1 corner: a2 b1 b2 only.
    ("K-a1-flat", {"a1": "K", "h8": "k"}, "a1", FLAT, "a2 b1 b2"),
    # a1 cylindrical: h-file is adjacent, so h1 and h2 are added.
    ("K-a1-cyl", {"a1": "K", "h8": "k"}, "a1", CYL, "a2 b1 b2 h1 h2"),
    # ---------------------------------------------------------------- Q Queen
    # d4: file d (7) + rank 4 (7) + a1-h8 diagonal (7) + a7-g1 diagonal (6) = 27; the wrapped rays add
    # nothing new (rank 4 is already whole, NW ray a7 wraps to h8 which is on the other diagonal).
    ("Q-d4", {"d4": "Q", "b1": "K", "h2": "k"}, "d4", BOTH,
     "d1 d2 d3 d5 d6 d7 d8 a4 b4 c4 e4 f4 g4 h4 a1 b2 c3 e5 f6 g7 h8 a7 b6 c5 e3 f2 g1"),
    # a1 with own N on d1 and enemy r on f4: rank b1 c1 (d1 own), file a2-a8, diagonal b2-h8.
    ("Q-a1-flat", {"a1": "Q", "d1": "N", "f4": "r", "h5": "K", "e8": "k"}, "a1", FLAT,
     "b1 c1 a2 a3 a4 a5 a6 a7 a8 b2 c3 d4 e5 f6 g7 h8"),
    # cylindrical: rank also westward h1 g1 f1 e1 (stop before own d1); NW ray wraps h2 g3 then takes f4.
    ("Q-a1-cyl", {"a1": "Q", "d1": "N", "f4": "r", "h5": "K", "e8": "k"}, "a1", CYL,
     "b1 c1 h1 g1 f1 e1 a2 a3 a4 a5 a6 a7 a8 b2 c3 d4 e5 f6 g7 h8 h2 g3 f4"),
    # ---------------------------------------------------------------- R Rook
    # d4: file d and rank 4, 14 squares (wrapping rank 4 gives the same squares).
    ("R-d4", {"d4": "R", "b1": "K", "h2": "k"}, "d4", BOTH,
     "d1 d2 d3 d5 d6 d7 d8 a4 b4 c4 e4 f4 g4 h4"),
    # a1 with own N d1, enemy p a5: b1 c1 | a2 a3 a4 a5(capture).
    ("R-a1-flat", {"a1": "R", "d1": "N", "a5": "p", "h5": "K", "e8": "k"}, "a1", FLAT,
     "b1 c1 a2 a3 a4 a5"),
    # cylindrical: westward along rank 1 h1 g1 f1 e1 too.
    ("R-a1-cyl", {"a1": "R", "d1": "N", "a5": "p", "h5": "K", "e8": "k"}, "a1", CYL,
     "b1 c1 h1 g1 f1 e1 a2 a3 a4 a5"),
    # ---------------------------------------------------------------- B Bishop
    # d4: both diagonals, 13 squares.
    ("B-d4", {"d4": "B", "b1": "K", "h2": "k"}, "d4", BOTH,
     "a1 b2 c3 e5 f6 g7 h8 a7 b6 c5 e3 f2 g1"),
    # a1 flat: only the long diagonal.
    ("B-a1-flat", {"a1": "B", "h1": "K", "a8": "k"}, "a1", FLAT, "b2 c3 d4 e5 f6 g7 h8"),
    # a1 cylindrical: NW ray wraps h2 g3 f4 e5 d6 c7 b8 (e5 also on NE ray: one move).
    ("B-a1-cyl", {"a1": "B", "h1": "K", "a8": "k"}, "a1", CYL,
     "b2 c3 d4 e5 f6 g7 h8 h2 g3 f4 d6 c7 b8"),
    # ---------------------------------------------------------------- N Knight
    ("N-d4", {"d4": "N", "a1": "K", "h8": "k"}, "d4", BOTH, "b3 b5 c2 c6 e2 e6 f3 f5"),
    # a1: (1,2)=b3, (2,1)=c2.
    ("N-a1-flat", {"a1": "N", "h1": "K", "h8": "k"}, "a1", FLAT, "b3 c2"),
    # cylindrical: (-1,2)=h3, (-2,1)=g2 as well.
    ("N-a1-cyl", {"a1": "N", "h1": "K", "h8": "k"}, "a1", CYL, "b3 c2 h3 g2"),
    # ---------------------------------------------------------------- P Pawn (B1)
    # d4 with enemy p c5 and own N e5: march d5, capture c5 (not own e5); d4 is not rank 1/2: no d6.
    ("P-d4", {"d4": "P", "c5": "p", "e5": "N", "a1": "K", "h8": "k"}, "d4", BOTH, "d5 c5"),
    # a2 (rank 2): a3, double a4; capture b3; enemy on h3 is not diagonal in flat mode.
    ("P-a2-flat", {"a2": "P", "b3": "p", "h3": "n", "e1": "K", "e8": "k"}, "a2", FLAT, "a3 a4 b3"),
    # cylindrical: h3 is diagonally forward through the wrap, so it is captured too.
    ("P-a2-cyl", {"a2": "P", "b3": "p", "h3": "n", "e1": "K", "e8": "k"}, "a2", CYL,
     "a3 a4 b3 h3"),
    # ---------------------------------------------------------------- A Acolyte (B4)
    # d4: diag 1 c3 c5 e3 e5, diag 2 b2 b6 f2 f6, sideways 2 b4 f4 (leaps, so own N on c5?->no: lone).
    ("A-d4", {"d4": "A", "a1": "K", "h8": "k"}, "d4", BOTH, "c3 c5 e3 e5 b2 b6 f2 f6 b4 f4"),
    # a1 flat: b2, c3, sideways c1.
    ("A-a1-flat", {"a1": "A", "e1": "K", "e8": "k"}, "a1", FLAT, "b2 c3 c1"),
    # cylindrical: also h2, g3 (diagonals westward) and g1 (2 sideways west).
    ("A-a1-cyl", {"a1": "A", "e1": "K", "e8": "k"}, "a1", CYL, "b2 c3 c1 h2 g3 g1"),
    # ---------------------------------------------------------------- U Anointed (B5)
    # d4 with own N e5 (blocks e5, f6) and enemy p c3 (captured, blocks b2): c3 c5 b6 e3 f2.
    ("U-d4", {"d4": "U", "e5": "N", "c3": "p", "h1": "K", "h8": "k"}, "d4", BOTH,
     "c3 c5 b6 e3 f2"),
    # a1 flat: b2 c3.
    ("U-a1-flat", {"a1": "U", "e1": "K", "e8": "k"}, "a1", FLAT, "b2 c3"),
    # cylindrical: also h2 g3.
    ("U-a1-cyl", {"a1": "U", "e1": "K", "e8": "k"}, "a1", CYL, "b2 c3 h2 g3"),
    # ---------------------------------------------------------------- E Banshee (B8: Bishop + Nightrider)
    # d4 flat: bishop 13 + nightrider e6 f8, c6 b8, e2, c2, f5 h6, b5, f3 h2, b3 (12) = 25.
    ("E-d4-flat", {"d4": "E", "a3": "K", "h3": "k"}, "d4", FLAT,
     "a1 b2 c3 e5 f6 g7 h8 a7 b6 c5 e3 f2 g1 e6 f8 c6 b8 e2 c2 f5 h6 b5 f3 h2 b3"),
    # cylindrical: nightrider rays continue through the wrap: (-2,1) b5 h6 f7 d8, (2,1) f5 h6 b7 d8,
    # (-2,-1) b3 h2 f1, (2,-1) f3 h2 b1 -> adds f7 d8 b7 f1 b1 (bishop part unchanged) = 30.
    ("E-d4-cyl", {"d4": "E", "a3": "K", "h3": "k"}, "d4", CYL,
     "a1 b2 c3 e5 f6 g7 h8 a7 b6 c5 e3 f2 g1 e6 f8 c6 b8 e2 c2 f5 h6 b5 f3 h2 b3 f7 d8 b7 f1 b1"),
    # a1 flat: bishop b2..h8 + nightrider b3 c5 d7, c2 e3 g4 = 13.
    ("E-a1-flat", {"a1": "E", "h1": "K", "e8": "k"}, "a1", FLAT,
     "b2 c3 d4 e5 f6 g7 h8 b3 c5 d7 c2 e3 g4"),
    # cylindrical: bishop adds h2 g3 f4 d6 c7 b8; nightrider (1,2) b3 c5 d7, (-1,2) h3 g5 f7,
    # (2,1) c2 e3 g4 a5 c6 e7 g8, (-2,1) g2 e3 c4 a5 g6 e7 c8 -> 13 + 17 = 30.
    ("E-a1-cyl", {"a1": "E", "h1": "K", "e8": "k"}, "a1", CYL,
     "b2 c3 d4 e5 f6 g7 h8 h2 g3 f4 d6 c7 b8 "
     "b3 c5 d7 h3 g5 f7 c2 e3 g4 a5 c6 e7 g8 g2 c4 g6 c8"),
    # ---------------------------------------------------------------- C Chancellor (Rook + Knight)
    ("C-d4", {"d4": "C", "a1": "K", "h8": "k"}, "d4", BOTH,
     "d1 d2 d3 d5 d6 d7 d8 a4 b4 c4 e4 f4 g4 h4 b3 b5 c2 c6 e2 e6 f3 f5"),
    # a1 flat: rook b1-h1, a2-a8 + knight b3 c2.
    ("C-a1-flat", {"a1": "C", "h5": "K", "e8": "k"}, "a1", FLAT,
     "b1 c1 d1 e1 f1 g1 h1 a2 a3 a4 a5 a6 a7 a8 b3 c2"),
    # cylindrical: rook squares are the same (rank 1 already whole), knight adds h3 g2.
    ("C-a1-cyl", {"a1": "C", "h5": "K", "e8": "k"}, "a1", CYL,
     "b1 c1 d1 e1 f1 g1 h1 a2 a3 a4 a5 a6 a7 a8 b3 c2 h3 g2"),
    # ---------------------------------------------------------------- L Charger (B12: 1-3 straight)
    # d4 lone: 3 squares each way.
    ("L-d4", {"d4": "L", "a1": "K", "h8": "k"}, "d4", BOTH,
     "d5 d6 d7 d3 d2 d1 c4 b4 a4 e4 f4 g4"),
    # a1 flat: b1 c1 d1, a2 a3 a4.
    ("L-a1-flat", {"a1": "L", "h4": "K", "e8": "k"}, "a1", FLAT, "b1 c1 d1 a2 a3 a4"),
    # cylindrical: westward h1 g1 f1 as well.
    ("L-a1-cyl", {"a1": "L", "h4": "K", "e8": "k"}, "a1", CYL, "b1 c1 d1 a2 a3 a4 h1 g1 f1"),
    # ---------------------------------------------------------------- D Dragoon (King + Knight)
    ("D-d4", {"d4": "D", "a1": "K", "h8": "k"}, "d4", BOTH,
     "c3 c4 c5 d3 d5 e3 e4 e5 b3 b5 c2 c6 e2 e6 f3 f5"),
    ("D-a1-flat", {"a1": "D", "e1": "K", "e8": "k"}, "a1", FLAT, "a2 b1 b2 b3 c2"),
    # cylindrical: king part adds h1 h2, knight part adds h3 g2.
    ("D-a1-cyl", {"a1": "D", "e1": "K", "e8": "k"}, "a1", CYL, "a2 b1 b2 b3 c2 h1 h2 h3 g2"),
    # ---------------------------------------------------------------- G Gryphon (B11)
    # d4 flat: steps c3 c5 e3 e5; from e5 ride N e6-e8 / E f5-h5; c5: N c6-c8 / W b5 a5;
    # e3: S e2 e1 / E f3-h3; c3: S c2 c1 / W b3 a3.  4 + 20 = 24.
    ("G-d4-flat", {"d4": "G", "a1": "K", "h8": "k"}, "d4", FLAT,
     "c3 c5 e3 e5 e6 e7 e8 f5 g5 h5 c6 c7 c8 b5 a5 e2 e1 f3 g3 h3 c2 c1 b3 a3"),
    # cylindrical: the sideways rides wrap around the whole rank and stop before re-entering their
    # first-step square (e5 east: f5 g5 h5 a5 b5 c5 d5), so all of ranks 5 and 3 are reached.
    ("G-d4-cyl", {"d4": "G", "a1": "K", "h8": "k"}, "d4", CYL,
     "a5 b5 c5 d5 e5 f5 g5 h5 a3 b3 c3 d3 e3 f3 g3 h3 e6 e7 e8 c6 c7 c8 e2 e1 c2 c1"),
    # a1 flat: step b2, then N b3-b8 or E c2-h2.
    ("G-a1-flat", {"a1": "G", "e1": "K", "e8": "k"}, "a1", FLAT,
     "b2 b3 b4 b5 b6 b7 b8 c2 d2 e2 f2 g2 h2"),
    # cylindrical: also step NW to h2 (then N h3-h8, W g2..a2); b2's E ride wraps to a2.
    ("G-a1-cyl", {"a1": "G", "e1": "K", "e8": "k"}, "a1", CYL,
     "a2 b2 c2 d2 e2 f2 g2 h2 b3 b4 b5 b6 b7 b8 h3 h4 h5 h6 h7 h8"),
    # ---------------------------------------------------------------- H Hero (B7: (1,3) and (2,3) leaps)
    ("H-d4", {"d4": "H", "a1": "K", "h8": "k"}, "d4", BOTH,
     "e7 c7 e1 c1 g5 a5 g3 a3 f7 b7 f1 b1 g6 a6 g2 a2"),
    # a1 flat: b4 c4 d2 d3.
    ("H-a1-flat", {"a1": "H", "e1": "K", "e8": "k"}, "a1", FLAT, "b4 c4 d2 d3"),
    # cylindrical: westward leaps h4 g4 f2 f3 as well.
    ("H-a1-cyl", {"a1": "H", "e1": "K", "e8": "k"}, "a1", CYL, "b4 c4 d2 d3 h4 g4 f2 f3"),
    # ---------------------------------------------------------------- I Immortal (B6: King steps)
    ("I-d4", {"d4": "I", "h1": "K", "h8": "k"}, "d4", BOTH, "c3 c4 c5 d3 d5 e3 e4 e5"),
    ("I-a1-flat", {"a1": "I", "e1": "K", "e8": "k"}, "a1", FLAT, "a2 b1 b2"),
    ("I-a1-cyl", {"a1": "I", "e1": "K", "e8": "k"}, "a1", CYL, "a2 b1 b2 h1 h2"),
    # ---------------------------------------------------------------- M Monk (B3)
    # d4 with own N d5 (blocks d6; d5 itself is never a destination) and enemy p f4 (e4 empty):
    # diagonals c3 c5 e3 e5; straight 2: d2, b4, f4 (capture).
    ("M-d4", {"d4": "M", "d5": "N", "f4": "p", "a1": "K", "h8": "k"}, "d4", BOTH,
     "c3 c5 e3 e5 d2 b4 f4"),
    # a1 flat: b2, a3, c1.
    ("M-a1-flat", {"a1": "M", "e1": "K", "e8": "k"}, "a1", FLAT, "b2 a3 c1"),
    # cylindrical: also h2 (diagonal) and g1 (2 west through empty h1).
    ("M-a1-cyl", {"a1": "M", "e1": "K", "e8": "k"}, "a1", CYL, "b2 a3 c1 h2 g1"),
    # ---------------------------------------------------------------- Z Nightrider (B8)
    # d4 flat: e6 f8, c6 b8, e2, c2, f5 h6, b5, f3 h2, b3.
    ("Z-d4-flat", {"d4": "Z", "a1": "K", "c8": "k"}, "d4", FLAT,
     "e6 f8 c6 b8 e2 c2 f5 h6 b5 f3 h2 b3"),
    # cylindrical: adds f7 d8 (via b5 h6 / f5 h6 ...), b7, f1, b1 (see Banshee).
    ("Z-d4-cyl", {"d4": "Z", "a1": "K", "c8": "k"}, "d4", CYL,
     "e6 f8 c6 b8 e2 c2 f5 h6 b5 f3 h2 b3 f7 d8 b7 f1 b1"),
    # a1 flat: b3 c5 d7, c2 e3 g4.
    ("Z-a1-flat", {"a1": "Z", "h1": "K", "e8": "k"}, "a1", FLAT, "b3 c5 d7 c2 e3 g4"),
    # cylindrical: b3 c5 d7 | h3 g5 f7 | c2 e3 g4 a5 c6 e7 g8 | g2 e3 c4 a5 g6 e7 c8.
    ("Z-a1-cyl", {"a1": "Z", "h1": "K", "e8": "k"}, "a1", CYL,
     "b3 c5 d7 h3 g5 f7 c2 e3 g4 a5 c6 e7 g8 g2 c4 g6 c8"),
    # ---------------------------------------------------------------- O Oracle (B13)
    # d4: march c3 c5 e3 (own N on e5); shoots d6 (d5 empty) and b4 (c4 empty); not f6 (e5 between
    # is occupied); not the adjacent e4.
    ("O-d4", {"d4": "O", "d6": "p", "f6": "n", "e5": "N", "e4": "b", "b4": "r",
              "a1": "K", "h8": "k"}, "d4", BOTH, "c3 c5 e3 d6 b4"),
    # a1 flat: march b2; shoot c3 (b2 empty). g1 and g3 are not in line.
    ("O-a1-flat", {"a1": "O", "c3": "p", "g1": "n", "g3": "b", "e1": "K", "e8": "k"}, "a1", FLAT,
     "b2 c3"),
    # cylindrical: march h2 too; shoot g1 (over empty h1) and g3 (over empty h2).
    ("O-a1-cyl", {"a1": "O", "c3": "p", "g1": "n", "g3": "b", "e1": "K", "e8": "k"}, "a1", CYL,
     "b2 h2 c3 g1 g3"),
    # ---------------------------------------------------------------- F Phantom (B9)
    # d4: two knight leaps = every same-colour offset (0,0) (2,0) (0,2) (4,0) (0,4) (1,1) (1,3)
    # (3,1) (3,3) (2,4) (4,2) with signs, on the board; d4d4 is the null march.
    ("F-d4", {"d4": "F", "b1": "K", "h8": "k"}, "d4", BOTH,
     "d4 b4 f4 d2 d6 h4 d8 c3 c5 e3 e5 a1 a7 g1 g7 c1 c7 e1 e7 a3 a5 g3 g5 b8 f8 h2 h6"),
    # a1 flat: via b3: a1 a5 c5 c1 d4 d2; via c2: a1 a3 b4 d4 e3 e1.
    ("F-a1-flat", {"a1": "F", "f1": "K", "e8": "k"}, "a1", FLAT,
     "a1 a5 c5 c1 d4 d2 a3 b4 e3 e1"),
    # cylindrical: first leaps b3 c2 h3 g2; via b3 also h4 h2; via h3: a5 g5 a1 g1 b4 b2 f4 f2;
    # via g2: h4 f4 a3 a1 e3 e1.
    ("F-a1-cyl", {"a1": "F", "f1": "K", "e8": "k"}, "a1", CYL,
     "a1 a5 c5 c1 d4 d2 a3 b4 e3 e1 h4 h2 g5 g1 b2 f4 f2"),
    # ---------------------------------------------------------------- S Sniper (B14)
    # d4: N d5 d6 (march) d7 (attack at 3); NE blocked at distance 1 by enemy e5 (no attack, g7
    # unreachable); W c4 then own N b4; the other rays march 2: d3 d2 e4 f4 c5 b6 c3 b2 e3 f2.
    ("S-d4", {"d4": "S", "d7": "p", "e5": "n", "g7": "r", "b4": "N", "h1": "K", "h3": "k"},
     "d4", BOTH, "d5 d6 d7 d3 d2 c4 e4 f4 c5 b6 c3 b2 e3 f2"),
    # a1 flat: enemy a2 at distance 1 blocks the file (a5 safe); rank: b1 c1 march, f1 attack at 5;
    # diagonal: b2 c3 march (d4.. empty, nothing to attack).
    ("S-a1-flat", {"a1": "S", "a2": "p", "a5": "n", "f1": "b", "f4": "r", "d8": "K", "e8": "k"},
     "a1", FLAT, "b1 c1 f1 b2 c3"),
    # cylindrical: also westward h1 g1 (march; f1 is the same target), NW wrap h2 g3 (march) then f4
    # attacked at distance 3.
    ("S-a1-cyl", {"a1": "S", "a2": "p", "a5": "n", "f1": "b", "f4": "r", "d8": "K", "e8": "k"},
     "a1", CYL, "b1 c1 f1 b2 c3 h1 g1 h2 g3 f4"),
    # ---------------------------------------------------------------- X Sphinx (B11)
    # d4: steps d5 d3 c4 e4; d5: NE e6 f7 g8, NW c6 b7 a8; d3: SE e2 f1, SW c2 b1; e4: NE f5 g6 h7,
    # SE f3 g2 h1; c4: NW b5 a6, SW b3 a2. The wrapped rides (e4-h7-a8, c4-a6-h7-g8, c4-a2-h1) add
    # only squares already listed.
    ("X-d4", {"d4": "X", "a1": "K", "h4": "k"}, "d4", BOTH,
     "d5 d3 c4 e4 e6 f7 g8 c6 b7 a8 e2 f1 c2 b1 f5 g6 h7 f3 g2 h1 b5 a6 b3 a2"),
    # a1 flat: steps a2 (N: NE b3-g8) and b1 (E: NE c2-h7).
    ("X-a1-flat", {"a1": "X", "e1": "K", "e8": "k"}, "a1", FLAT,
     "a2 b1 b3 c4 d5 e6 f7 g8 c2 d3 e4 f5 g6 h7"),
    # cylindrical: step W to h1 too; a2 also NW h3 g4 f5 e6 d7 c8; b1's NE ray wraps h7 -> a8;
    # h1 NW: g2 f3 e4 d5 c6 b7 a8.
    ("X-a1-cyl", {"a1": "X", "e1": "K", "e8": "k"}, "a1", CYL,
     "a2 b1 h1 b3 c4 d5 e6 f7 g8 h3 g4 f5 d7 c8 c2 d3 e4 g6 h7 a8 g2 f3 c6 b7"),
    # ---------------------------------------------------------------- Y Spy (B15)
    # d4: swaps with own K a1 and own N h5 (any distance); captures adjacent enemy e5; d6 is not
    # adjacent; no march to an empty square.
    ("Y-d4", {"d4": "Y", "a1": "K", "h5": "N", "e5": "p", "d6": "n", "h8": "k"}, "d4", BOTH,
     "a1 h5 e5"),
    # a1 flat: swap with K e1, capture b2; h2 is not adjacent.
    ("Y-a1-flat", {"a1": "Y", "e1": "K", "b2": "p", "h2": "p", "e8": "k"}, "a1", FLAT, "e1 b2"),
    # cylindrical: h2 is adjacent through the wrap.
    ("Y-a1-cyl", {"a1": "Y", "e1": "K", "b2": "p", "h2": "p", "e8": "k"}, "a1", CYL, "e1 b2 h2"),
    # ---------------------------------------------------------------- T Striker (B2)
    # d4 with enemy e5 and enemy d2: forward d5, diagonal c5 (march) e5 (capture); backward ride
    # march-only: d3, then d2 enemy stops it (no capture backward).
    ("T-d4", {"d4": "T", "e5": "p", "d2": "n", "a1": "K", "h8": "k"}, "d4", BOTH, "d5 c5 e5 d3"),
    # a5 flat: a6 b6, backward a4 a3 a2 a1.
    ("T-a5-flat", {"a5": "T", "e1": "K", "e8": "k"}, "a5", FLAT, "a6 b6 a4 a3 a2 a1"),
    # cylindrical: diagonal forward h6 too.
    ("T-a5-cyl", {"a5": "T", "e1": "K", "e8": "k"}, "a5", CYL, "a6 b6 h6 a4 a3 a2 a1"),
    # ---------------------------------------------------------------- W Warlord (B10)
    # d4 lone: every square within 2 (5x5 = 25), d4d4 being the null march.
    ("W-d4", {"d4": "W", "a1": "K", "h8": "k"}, "d4", BOTH,
     "b2 b3 b4 b5 b6 c2 c3 c4 c5 c6 d2 d3 d4 d5 d6 e2 e3 e4 e5 e6 f2 f3 f4 f5 f6"),
    # a1 flat: a1(null) a2 a3 b1 b2 b3 c1 c2 c3.
    ("W-a1-flat", {"a1": "W", "e1": "K", "e8": "k"}, "a1", FLAT, "a1 a2 a3 b1 b2 b3 c1 c2 c3"),
    # cylindrical: files g h a b c x ranks 1-3 = 15 (incl. null a1).
    ("W-a1-cyl", {"a1": "W", "e1": "K", "e8": "k"}, "a1", CYL,
     "a1 a2 a3 b1 b2 b3 c1 c2 c3 g1 g2 g3 h1 h2 h3"),
    # ================================================================ expansion (always cylindrical)
    # ~B Visionary = cylindrical Bishop. d4: the two diagonals (wraps add nothing new).
    ("~B-d4", {"d4": "~B", "b1": "K", "h2": "k"}, "d4", EXP,
     "a1 b2 c3 e5 f6 g7 h8 a7 b6 c5 e3 f2 g1"),
    # a1: NE b2-h8, NW wrap h2 g3 f4 (e5) d6 c7 b8.
    ("~B-a1", {"a1": "~B", "h1": "K", "a8": "k"}, "a1", EXP,
     "b2 c3 d4 e5 f6 g7 h8 h2 g3 f4 d6 c7 b8"),
    # ~P Courier: 1 step forward or sideways. d4: d5 c4 e4.
    ("~P-d4", {"d4": "~P", "a1": "K", "h8": "k"}, "d4", EXP, "d5 c4 e4"),
    # a2: a3, b2, and h2 through the wrap.
    ("~P-a2", {"a2": "~P", "e1": "K", "e8": "k"}, "a2", EXP, "a3 b2 h2"),
    # ~N Raider = cylindrical Knight.
    ("~N-d4", {"d4": "~N", "a1": "K", "h8": "k"}, "d4", EXP, "b3 b5 c2 c6 e2 e6 f3 f5"),
    ("~N-a1", {"a1": "~N", "h1": "K", "h8": "k"}, "a1", EXP, "b3 c2 h3 g2"),
    # ~K Khan = cylindrical King.
    ("~K-d4", {"d4": "~K", "h1": "K", "h8": "k"}, "d4", EXP, "c3 c4 c5 d3 d5 e3 e4 e5"),
    ("~K-a1", {"a1": "~K", "e1": "K", "e8": "k"}, "a1", EXP, "a2 b1 b2 h1 h2"),
    # ~Z Nomad = cylindrical Nightrider (see Z-*-cyl).
    ("~Z-d4", {"d4": "~Z", "a1": "K", "c8": "k"}, "d4", EXP,
     "e6 f8 c6 b8 e2 c2 f5 h6 b5 f3 h2 b3 f7 d8 b7 f1 b1"),
    ("~Z-a1", {"a1": "~Z", "h1": "K", "e8": "k"}, "a1", EXP,
     "b3 c5 d7 h3 g5 f7 c2 e3 g4 a5 c6 e7 g8 g2 c4 g6 c8"),
    # ~R Corsair = cylindrical Rook.
    ("~R-d4", {"d4": "~R", "b1": "K", "h2": "k"}, "d4", EXP,
     "d1 d2 d3 d5 d6 d7 d8 a4 b4 c4 e4 f4 g4 h4"),
    ("~R-a1", {"a1": "~R", "d1": "N", "a5": "p", "h5": "K", "e8": "k"}, "a1", EXP,
     "b1 c1 h1 g1 f1 e1 a2 a3 a4 a5"),
    # ~M Pilgrim = cylindrical Monk.
    ("~M-d4", {"d4": "~M", "d5": "N", "f4": "p", "a1": "K", "h8": "k"}, "d4", EXP,
     "c3 c5 e3 e5 d2 b4 f4"),
    ("~M-a1", {"a1": "~M", "e1": "K", "e8": "k"}, "a1", EXP, "b2 a3 c1 h2 g1"),
    # ~G Navigator = cylindrical Gryphon.
    ("~G-d4", {"d4": "~G", "a1": "K", "h8": "k"}, "d4", EXP,
     "a5 b5 c5 d5 e5 f5 g5 h5 a3 b3 c3 d3 e3 f3 g3 h3 e6 e7 e8 c6 c7 c8 e2 e1 c2 c1"),
    ("~G-a1", {"a1": "~G", "e1": "K", "e8": "k"}, "a1", EXP,
     "a2 b2 c2 d2 e2 f2 g2 h2 b3 b4 b5 b6 b7 b8 h3 h4 h5 h6 h7 h8"),
    # ~H Outrider = cylindrical Hero.
    ("~H-d4", {"d4": "~H", "a1": "K", "h8": "k"}, "d4", EXP,
     "e7 c7 e1 c1 g5 a5 g3 a3 f7 b7 f1 b1 g6 a6 g2 a2"),
    ("~H-a1", {"a1": "~H", "e1": "K", "e8": "k"}, "a1", EXP, "b4 c4 d2 d3 h4 g4 f2 f3"),
    # ~L Vanguard = cylindrical Charger.
    ("~L-d4", {"d4": "~L", "a1": "K", "h8": "k"}, "d4", EXP,
     "d5 d6 d7 d3 d2 d1 c4 b4 a4 e4 f4 g4"),
    ("~L-a1", {"a1": "~L", "h4": "K", "e8": "k"}, "a1", EXP, "b1 c1 d1 a2 a3 a4 h1 g1 f1"),
]

# Yellow (lowercase) units move toward rank 1: the Foot units whose direction matters.
YELLOW_CASES = [
    # p e5: march e4; capture d4 (enemy N), not f4 (own n); e5 is not Yellow's rank 1/2.
    ("p-e5", {"e5": "p", "d4": "N", "f4": "n", "a1": "K", "h8": "k"}, "e5", BOTH, "e4 d4"),
    # p e7 (Yellow's rank 2): e6, double e5.
    ("p-e7", {"e7": "p", "a1": "K", "h8": "k"}, "e7", BOTH, "e6 e5"),
    # t h4 Striker: forward h3, diagonal g3 (and a3 cylindrical), backward ride h5 h6 h7 (h8 own k).
    ("t-h4-flat", {"h4": "t", "a1": "K", "h8": "k"}, "h4", FLAT, "h3 g3 h5 h6 h7"),
    ("t-h4-cyl", {"h4": "t", "a1": "K", "h8": "k"}, "h4", CYL, "h3 g3 a3 h5 h6 h7"),
    # ~p Courier h5: forward h4, sideways g5 and (wrap) a5.
    ("~p-h5", {"h5": "~p", "a1": "K", "e8": "k"}, "h5", EXP, "h4 g5 a5"),
]

ALL_TOKENS = ("K Q R B N P A U E C L D G H I M Z O F S X Y T W "
              "~B ~P ~N ~K ~Z ~R ~M ~G ~H ~L").split()


def test_every_unit_type_is_covered():
    tested = {units[sq] for _, units, sq, _, _ in CASES}
    assert tested == set(ALL_TOKENS)
    assert len(ALL_TOKENS) == 34


def _modes(mode):
    return {FLAT: [False], CYL: [True], BOTH: [False, True], EXP: [False, True]}[mode]


@pytest.mark.parametrize("cid,units,square,mode,dests", CASES + YELLOW_CASES,
                         ids=[c[0] for c in CASES + YELLOW_CASES])
def test_moveset(cid, units, square, mode, dests):
    side = "w" if units[square][-1].isupper() else "b"
    pos = position(units, side)
    want = expect(square, dests)
    assert len(want) == len(dests.split()), "duplicate square in the hand-written list"
    for cyl in _modes(mode):
        got = orders_from(pos, square, cylindrical=cyl)
        assert got == want, (
            f"{cid} cylindrical={cyl}: missing {sorted(want - got)}, extra {sorted(got - want)}")


@pytest.mark.parametrize("cid,units,square,mode,dests",
                         [c for c in CASES if c[3] in (FLAT, CYL) and len(c[1][c[2]]) == 1],
                         ids=[c[0] for c in CASES if c[3] in (FLAT, CYL) and len(c[1][c[2]]) == 1])
def test_flat_set_is_subset_of_cylindrical(cid, units, square, mode, dests):
    """Wrapping only adds paths for a lone-ish unit in these cases (no ride is cut short)."""
    pos = position(units)
    assert orders_from(pos, square) <= orders_from(pos, square, cylindrical=True)


# Expansion twins: an expansion type moves exactly like its base type made cylindrical (RULINGS E).
TWINS = [("~B", "B"), ("~N", "N"), ("~K", "K"), ("~Z", "Z"), ("~R", "R"), ("~M", "M"),
         ("~G", "G"), ("~H", "H"), ("~L", "L")]


@pytest.mark.parametrize("exp,base", TWINS)
@pytest.mark.parametrize("square", ["a1", "h5", "d4", "b7"])
def test_expansion_type_equals_cylindrical_base_type(exp, base, square):
    others = {"c3": "N", "f5": "p", "g2": "r", "b5": "P"}
    others.pop(square, None)
    units = dict(others)
    units[square] = exp
    units.update({"e1": "K", "e8": "k"})
    got_exp = {o[2:] for o in orders_from(position(units), square)}
    units[square] = base
    got_base = {o[2:] for o in orders_from(position(units), square, cylindrical=True)}
    assert got_exp == got_base
