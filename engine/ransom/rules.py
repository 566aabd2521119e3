"""King's Ransom's rules data: the cards as a unit catalog with a 3x6 board (engine/data/
ransom_units.toml) and the game's numbers (engine/data/ransom.toml: the PROVISIONAL Deck mix of
RULINGS G2, the set-up squares of G3, the no-capture limit of G7, the perft start position).

A malformed file raises RansomRulesError naming the file, the table and the field.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from engine.catalog import Catalog, CatalogError, ransom_catalog
from engine.notation import parse_square

__all__ = ["RansomRules", "RansomRulesError", "default_rules", "RED", "BLUE", "PLAYER_NAMES", "ORDER"]

RED, BLUE = 0, 1
#: Who is who: Red sits at rank 1 and moves first (G1); in the kernel Red is colour 0.
PLAYER_NAMES = ("Red", "Blue")
#: The card tokens in the order hands, piles and texts list them.
ORDER = "KQRBNIP"


class RansomRulesError(ValueError):
    """A King's Ransom data file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class RansomRules:
    """Everything of King's Ransom that is data.

    - ``catalog``: the unit catalog of the cards (its board is 3 files x 6 ranks).
    - ``deck``: cards per colour by type id (G2, PROVISIONAL), the King included.
    - ``king_square``: the Red King's square; Blue's is mirrored rank-wise (G3).
    - ``face_down``: Red's four dealt squares in dealing order; Blue's mirrored (G3).
    - ``hand``: cards drawn at set-up (3).
    - ``no_capture_turns``: turns in a row without a capture that draw the game (G7: 200).
    - ``startpos``: the perft start position text (both sides known).
    """

    catalog: Catalog
    deck: tuple[int, ...]
    king_square: int
    face_down: tuple[int, ...]
    hand: int
    no_capture_turns: int
    startpos: str
    source: str = "engine/data/ransom.toml"

    @property
    def files(self) -> int:
        return self.catalog.board.files

    @property
    def ranks(self) -> int:
        return self.catalog.board.ranks

    def mirror(self, square: int) -> int:
        """The square on the same file, rank counted from the other side (Blue's set-up squares)."""
        return (self.ranks - 1 - (square >> 3)) * 8 + (square & 7)

    @functools.cached_property
    def king_type(self) -> int:
        return self.catalog["K"].id

    @functools.cached_property
    def pawn_type(self) -> int:
        return self.catalog["P"].id

    @functools.cached_property
    def arena(self) -> int:
        """The arena's squares as a bitboard."""
        bits = 0
        for rank in range(self.ranks):
            for file in range(self.files):
                bits |= 1 << (rank * 8 + file)
        return bits

    @functools.cached_property
    def halves(self) -> tuple[int, int]:
        """Each side's own half (G1) as a bitboard: Red the lower ranks, Blue the upper."""
        half = self.ranks // 2
        red = blue = 0
        for file in range(self.files):
            for rank in range(half):
                red |= 1 << (rank * 8 + file)
                blue |= 1 << ((self.ranks - 1 - rank) * 8 + file)
        return red, blue

    @functools.cached_property
    def back_rows(self) -> tuple[int, int]:
        """Each side's back row: Red's rank 1, Blue's last rank."""
        low = (1 << self.files) - 1
        return low, low << (8 * (self.ranks - 1))

    def deck_size(self) -> int:
        return sum(self.deck)

    @classmethod
    def from_toml(cls, text: str, source: str, catalog: Catalog | None = None) -> RansomRules:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RansomRulesError(f"{source}: not valid TOML: {exc}") from None
        catalog = catalog or ransom_catalog()

        def table(name: str) -> dict:
            value = data.get(name)
            if not isinstance(value, dict):
                raise RansomRulesError(f"{source}: missing table [{name}]")
            return value

        def field(tab: str, name: str, kind: type):
            value = table(tab).get(name)
            if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
                raise RansomRulesError(f"{source}: [{tab}] field {name!r}: expected {kind.__name__}, got {value!r}")
            return value

        def square(tab: str, name: str, text: object) -> int:
            try:
                sq = parse_square(text) if isinstance(text, str) else -1
            except ValueError:
                sq = -1
            if sq < 0 or (sq & 7) >= catalog.board.files or (sq >> 3) >= catalog.board.ranks:
                raise RansomRulesError(f"{source}: [{tab}] field {name!r}: {text!r} is not a square of the "
                                       f"{catalog.board.files}x{catalog.board.ranks} arena")
            return sq

        fields = {"deck": None, "setup": ("king", "face_down", "hand"), "rules": ("no_capture_turns",),
                  "perft": ("startpos",)}
        for name in data:
            if name not in fields:
                raise RansomRulesError(f"{source}: unknown table [{name}] (tables: "
                                       + ", ".join(f"[{t}]" for t in fields) + ")")
        for name, known in fields.items():
            for key in table(name) if known else ():
                if key not in known:
                    raise RansomRulesError(f"{source}: [{name}] field {key!r}: unknown field (fields: "
                                           f"{', '.join(known)})")
        deck = [0] * len(catalog)
        for token, count in table("deck").items():
            if token == "provisional":
                field("deck", "provisional", bool)
                continue
            if token not in catalog.by_token:
                raise RansomRulesError(f"{source}: [deck] field {token!r}: not a card token of {catalog.source}")
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise RansomRulesError(f"{source}: [deck] field {token!r}: expected a count >= 0, got {count!r}")
            deck[catalog[token].id] = count
        king = catalog["K"].id
        if deck[king] != 1:
            raise RansomRulesError(f"{source}: [deck] field 'K': a deck holds exactly one King")
        half = catalog.board.ranks // 2
        king_square = square("setup", "king", field("setup", "king", str))
        if (king_square >> 3) >= half:
            raise RansomRulesError(f"{source}: [setup] field 'king': set-up squares must lie in Red's half "
                                   f"(ranks 1-{half})")
        dealt = field("setup", "face_down", list)
        face_down = tuple(square("setup", "face_down", s) for s in dealt)
        if len(set(face_down + (king_square,))) != len(face_down) + 1:
            raise RansomRulesError(f"{source}: [setup] field 'face_down': squares repeat or hold the King")
        if any((s >> 3) >= half for s in face_down):
            raise RansomRulesError(f"{source}: [setup] field 'face_down': set-up squares must lie in Red's half "
                                   f"(ranks 1-{half})")
        hand = field("setup", "hand", int)
        if hand < 0:
            raise RansomRulesError(f"{source}: [setup] field 'hand': must be >= 0, got {hand}")
        left = sum(deck) - 1 - len(face_down)       # the King stands on the arena (G3)
        if hand > left:
            raise RansomRulesError(f"{source}: [setup] field 'hand': {hand} cards cannot be drawn: the deck holds "
                                   f"{sum(deck)} cards, one is the King and {len(face_down)} are dealt face down, "
                                   f"so at most {max(left, 0)}")
        no_capture = field("rules", "no_capture_turns", int)
        if no_capture < 1:
            raise RansomRulesError(f"{source}: [rules] field 'no_capture_turns': must be >= 1")
        startpos = field("perft", "startpos", str)
        return cls(catalog, tuple(deck), king_square, face_down, hand, no_capture, startpos, source)

    @classmethod
    def load(cls, path: str | Path) -> RansomRules:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RansomRulesError(f"{path}: cannot read: {exc.strerror}") from None
        return cls.from_toml(text, str(path))


@functools.cache
def default_rules() -> RansomRules:
    """The rules shipped in engine/data/ransom.toml (loaded once)."""
    text = resources.files("engine.data").joinpath("ransom.toml").read_text(encoding="utf-8")
    try:
        return RansomRules.from_toml(text, "engine/data/ransom.toml")
    except CatalogError as exc:              # pragma: no cover - the shipped catalog loads
        raise RansomRulesError(str(exc)) from None
