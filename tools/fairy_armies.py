"""Random Point-Buy start positions that Fairy-Stockfish can play, for ``tools/vs_fairy_stockfish.py
--armies fairy``, and the translation of positions and orders to the letters of
tools/fairy-stockfish-ftc.ini.

An army is picked through the engine's own Point-Buy set-up (engine/crown/setup.py, RULINGS C8 and
C19: the Pawns on both second ranks, then alternate picks, each side spending its budget on units it
places on its first rank or in its Barracks, with a Sovereign on the first rank), choosing at random
among the set-up's own options, restricted to what the ini can express:

- only the types the ini maps (``oracles.TOKEN_TO_FFISH``: K Q R B N P and Z C D H M E A T); so no
  Anointed (a second Sovereign type), no Khan, no Immortal, no cylindrical unit;
- no Foot unit in a Barracks (the ini deploys every unit to the first rank; a Foot unit deploys to
  the second) and no King in a Barracks (Fairy-Stockfish counts a King in hand as alive, while a side
  with no Sovereign on the board has lost, C2);
- a set-up where a side could still buy only other types, or has to put a Foot unit in the
  Barracks, is drawn again, so every army is one C19 allows with the whole price list.

The position text the referee and our engine get carries ``promote:`` equal to the variant's
promotionPieceTypes (``oracles.FFISH_PROMOTE``) and a ``stock:`` of UNBOUNDED_STOCK units of each of
those types, so that no promotion is refused for an empty Stock (the ini has no Stock). The variant
is ``ftcd`` (deploys to the first rank) when a Barracks holds a unit, else ``ftcf``.

Every start position is checked once against pyffish with the same ini: both must list the same
legal orders (RULINGS C8 depth 1); a position where they differ is drawn again.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from engine.crown import actions as A  # noqa: E402
from engine.crown.config import GameConfig  # noqa: E402
from engine.crown.core import SETUP_PHASE  # noqa: E402
from engine.crown.state import GameState  # noqa: E402
from engine.position import Position  # noqa: E402
from tools import oracles  # noqa: E402  (the one copy of the letter tables and the FEN translation)

#: Our unit tokens that the ini can express.
EXPRESSIBLE = tuple(oracles.TOKEN_TO_FFISH)
#: The promotion types of ftcf and ftcd (their promotionPieceTypes, in our tokens).
FAIRY_PROMOTE = oracles.FFISH_PROMOTE
#: Stock of each promotion type in a fairy start position: more than a game can promote.
UNBOUNDED_STOCK = 99
#: Set-ups drawn before giving up on a seed (a rejected one is rare: about one in ten).
ATTEMPTS = 200


class ArmyError(RuntimeError):
    """No usable start position (the ini or pyffish is missing, or every attempt was rejected)."""


@dataclass(frozen=True)
class FairyStart:
    text: str           # our position text (A3) with promote: and stock:
    variant: str        # "ftcf" or "ftcd"
    attempts: int       # set-ups drawn until this one was accepted


# -- translation ---------------------------------------------------------------------------------------
def to_ffish_move(text: str) -> str:
    """Our order text (A4) -> Fairy-Stockfish's move text for the ini (``Z@e1`` -> ``A@e1``,
    ``e7e8z`` -> ``e7e8a``); the inverse of ``oracles.from_ffish_move``."""
    if "@" in text:
        token, square = text.split("@", 1)
        return oracles.TOKEN_TO_FFISH[token.upper()] + "@" + square
    if len(text) == 5:
        return text[:4] + oracles.TOKEN_TO_FFISH[text[4].upper()].lower()
    return text


def from_ffish_move(text: str) -> str:
    """Fairy-Stockfish's move text -> ours; a text it cannot read is returned as it is (the referee
    then rejects it with its own message)."""
    try:
        return oracles.from_ffish_move(text)
    except (KeyError, ValueError):
        return text


def to_ffish_fen(text: str, variant: str) -> str:
    """Our position text -> Fairy-Stockfish FEN; the Barracks become the pocket ``[...]`` in ftcd."""
    return oracles.to_ffish_fen(text, variant)


# -- pyffish ---------------------------------------------------------------------------------------------
_LOADED: dict[str, object] = {}


def load_pyffish(ini: Path):
    """pyffish with the variants of ``ini`` loaded (once per file); ArmyError says what is missing."""
    key = str(Path(ini).resolve())
    if key in _LOADED:
        return _LOADED[key]
    try:
        import pyffish
    except ImportError:
        raise ArmyError("--armies fairy checks every start position with pyffish: pip install pyffish==0.0.90 "
                        "(it is in the test extra, pip install -e '.[test]')") from None
    try:
        config = Path(ini).read_text(encoding="utf-8")
    except OSError as exc:
        raise ArmyError(f"cannot read the variants file {ini}: {exc.strerror or exc}") from None
    pyffish.load_variant_config(config)
    missing = [v for v in ("ftcf", "ftcd") if v not in pyffish.variants()]
    if missing:
        raise ArmyError(f"the variants file {ini} does not define {', '.join(missing)}")
    _LOADED.clear()
    _LOADED[key] = pyffish
    return pyffish


def disagreement(text: str, variant: str, ffish, moves: list[str] = ()) -> tuple[set[str], set[str]]:
    """(orders only we allow, orders only Fairy-Stockfish allows) in the position ``text`` after
    ``moves`` (our order texts); two empty sets when both list the same legal orders."""
    position = Position.from_text(text)
    for move in moves:
        position.push(move)
    ours = {order.text() for order in position.legal_orders()} if not position.is_over() else set()
    fen = to_ffish_fen(text, variant)
    theirs = {from_ffish_move(m) for m in ffish.legal_moves(variant, fen, [to_ffish_move(m) for m in moves])}
    if position.is_over():
        theirs = set()            # a side without a Sovereign has lost: no orders (C8)
    return ours - theirs, theirs - ours


# -- the armies ------------------------------------------------------------------------------------------
def _is_pick(action: int) -> bool:
    return not A.is_order(action) and A.kind_of(action) == A.K_UNIT


def pick_armies(rng: random.Random, budget: int = 38) -> Position | None:
    """Both armies picked by random choices among the Point-Buy set-up's options restricted as the
    module text says; None when the restriction leaves a side no option (draw again)."""
    state = GameState(GameConfig(variant="point-buy", budgets=(budget, budget)))
    units = state.units.units
    while state.phase == SETUP_PHASE and not state.is_terminal():
        legal = state.legal_actions()
        chosen = state.setup_state.get("type")
        if chosen is None:
            allowed = [a for a in legal if not _is_pick(a) or units[A.argument(a)].token in EXPRESSIBLE]
        elif units[chosen].is_foot or units[chosen].is_sovereign:
            allowed = [a for a in legal if a != A.barracks()]
        else:
            allowed = legal
        if not allowed:
            return None
        state.apply(rng.choice(allowed))
    if state.is_terminal():
        return None
    return Position.from_core(state.board, state.units)


def referee_text(position: Position) -> tuple[str, str]:
    """(position text with promote: and an unbounded stock:, variant) of a picked start position."""
    fields = position.to_text().split()
    base = " ".join(f for f in fields if ":" not in f)
    variant = "ftcd" if "[" in fields[0] else "ftcf"
    stock = "".join(f"{token}{UNBOUNDED_STOCK}" for token in FAIRY_PROMOTE)
    return f"{base} stock:{stock} promote:{FAIRY_PROMOTE}", variant


def draw_fairy_start(rng: random.Random, budget: int = 38, ffish=None) -> FairyStart:
    """A random fairy Point-Buy start position (module text); with ``ffish`` (load_pyffish) only
    one whose legal orders pyffish lists the same."""
    for attempt in range(1, ATTEMPTS + 1):
        position = pick_armies(rng, budget)
        if position is None:
            continue
        text, variant = referee_text(position)
        if ffish is not None and any(disagreement(text, variant, ffish)):
            continue
        return FairyStart(text, variant, attempt)
    raise ArmyError(f"no fairy Point-Buy start position of budget {budget} in {ATTEMPTS} attempts")
