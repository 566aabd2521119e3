"""Type stubs for the compiled engine._position module (ext/_position.pyx): BoardCore, a stack of
kernel boards for push/pop with set-up, read-back, generation, threat maps and the primitives the
full game changes a board with. engine.position.Position wraps it with notation and validation."""

from engine._perft import PerftControl
from engine._tables import RuleTables

#: Order kinds and status flags as compiled (ext/_board.pxd), by the names engine/codes.py gives them.
KERNEL_CODES: dict[str, int]

def decode_order(m: int) -> tuple[int, int, int, int, int]:
    """(kind, origin, destination, unit type id, promotion type id or -1)."""

def encode_order(kind: int, origin: int, dest: int, unit: int, promotion: int = -1) -> int:
    """The code of an order as the kernel writes it."""

class BoardCore:
    """One position and the positions pushed before it; every change keeps the Zobrist key."""

    tables: RuleTables
    def __init__(self, tables: RuleTables) -> None: ...

    # -- set-up and read-back
    def setup(
        self,
        units: list[tuple[int, int, int]],
        barracks: list[list[int]],
        stock: list[int],
        promote_types: int,
        side: int,
        halfmove: int,
        fullmove: int,
        status: list[int],
    ) -> None:
        """Replace the position (units as (square, type, colour)); the guarded squares stay. A unit
        off the tables' board (RuleTables.board) raises ValueError naming the square."""
    def state(self) -> dict:
        """The whole current position as plain data (units, barracks, stock, promote_types, side,
        halfmove, fullmove, status): the inverse of setup."""
    @property
    def side(self) -> int:
        """The side to move: 0 Blue, 1 Yellow."""
    @property
    def halfmove(self) -> int:
        """Turns since the last capture, deploy or training (C3)."""
    @property
    def fullmove(self) -> int:
        """The turn number, from 1, grown after Yellow's turn."""
    @property
    def promote_types(self) -> int:
        """Bit t set: a Foot unit may promote to type t (B18)."""
    def status_bits(self, flag: int) -> int:
        """The squares whose units carry status flag ``flag`` (engine.codes ST_*)."""
    def set_status_bits(self, flag: int, bits: int) -> None:
        """Make ``bits`` the squares carrying status flag ``flag`` (the key follows)."""
    def colour_bits(self, colour: int) -> int:
        """The squares of ``colour``'s units, as a bitboard."""
    def has_status(self, square: int, flag: int) -> bool:
        """Whether the unit on ``square`` carries status flag ``flag``."""
    def barracks_counts(self, colour: int) -> list[int]:
        """Units of each type in ``colour``'s Barracks, by type id."""
    def barracks_count(self, colour: int, t: int) -> int:
        """Units of type ``t`` in ``colour``'s Barracks."""
    def stock_counts(self) -> list[int]:
        """Units of each type in the Stock, by type id."""
    def stock_count(self, t: int) -> int:
        """Units of type ``t`` in the Stock."""
    def unit_on(self, square: int) -> tuple[int, int] | None:
        """(type, colour) of the unit on ``square``, or None."""
    def squares_of(self, colour: int) -> list[int]:
        """The squares of ``colour``'s units, lowest first."""
    def occupied(self) -> int:
        """The occupied squares, as a bitboard."""
    def sovereign_present(self, colour: int) -> bool:
        """Whether ``colour`` has a Sovereign on the board (C2)."""
    def set_guarded(self, colour: int, squares: int) -> None:
        """Squares on which ``colour``'s units cannot be captured (C13); a rule of the game, not in
        the Zobrist key: set it before orders are generated or searched."""
    def guarded(self, colour: int) -> int:
        """The guarded squares of ``colour``, as a bitboard."""

    # -- keys and the stack
    @property
    def key(self) -> int:
        """The Zobrist key of the current position (kept incrementally)."""
    def recomputed_key(self) -> int:
        """The Zobrist key computed from scratch (equal to ``key``: a test hook)."""
    @property
    def foot(self) -> int:
        """The squares of the Foot units, both colours, as a bitboard (kept incrementally)."""
    def recomputed_foot(self) -> int:
        """The Foot units' squares computed from scratch (equal to ``foot``: a test hook)."""
    @property
    def ply(self) -> int:
        """How many orders were pushed."""
    def history_keys(self) -> list[int]:
        """Keys of the positions pushed before the current one, oldest first."""
    def copy(self) -> BoardCore:
        """A core holding only the current position (no history), guarded squares included."""

    # -- orders, perft, threats
    def generate(self, cylindrical: bool = False, over_without_sovereign: bool = True) -> list[int]:
        """Every order code of the side to move (none when a side has no Sovereign, unless
        over_without_sovereign is False)."""
    def generate_tactical(self, cylindrical: bool = False) -> list[int]:
        """The orders of generate() that capture or promote, in its order (quiescence's list);
        under Rules.special every order of generate()."""
    def count(self, cylindrical: bool = False) -> int:
        """How many orders generate would return."""
    def push(self, order: int) -> None:
        """Play an order (assumed legal) and end the turn, keeping the previous position."""
    def pop(self) -> None:
        """Go back to the position before the last push."""
    def perft(self, depth: int, cylindrical: bool = False, control: PerftControl | None = None) -> int:
        """Leaf nodes of the order tree ``depth`` plies deep. With a ``control``, the walk adds its
        leaves to ``control.nodes`` as it counts and raises PerftStopped soon after ``control.stop()``."""
    def unit_attacks(self, square: int, cylindrical: bool = False) -> int:
        """Squares the unit on ``square`` could capture on if an enemy stood there."""
    def threatened(self, square: int, colour: int, origin: int = -1, cylindrical: bool = False) -> bool:
        """C7: could an enemy of ``colour`` capture a unit of ``colour`` on ``square`` (the unit from
        ``origin`` moved there first, if given)?"""
    def attack_map(self, colour: int, units: int, cylindrical: bool = False) -> int:
        """Squares the units of ``colour`` on ``units`` (a bitboard) could capture on if an enemy
        stood there (a threat map of some units only: King's Ransom's face-up cards)."""
    def safe_orders(self, side: int, attackers: int, cylindrical: bool = False) -> list[int]:
        """``generate_for(side)`` less the orders after which an enemy unit on ``attackers`` could
        capture a Sovereign of ``side`` (an order capturing an enemy Sovereign is always kept)."""
    def generate_for(self, side: int, cylindrical: bool = False) -> list[int]:
        """Orders ``side`` could issue now, as if it were to move."""

    # -- primitives for the full game: they change the current position in place
    def apply(self, order: int) -> None:
        """Play an order for the side to move without ending the turn."""
    def apply_for(self, side: int, order: int) -> None:
        """Play an order of ``side``'s unit without ending the turn."""
    def end_turn(self) -> None:
        """End the turn: expire the turn's flags, update clocks, pass the move."""
    def set_side(self, side: int) -> None:
        """Make ``side`` the side to move."""
    def set_status(self, square: int, flag: int, on: bool) -> None:
        """Set or clear status flag ``flag`` of the unit on ``square``."""
    @property
    def won_on_x(self) -> bool:
        """Whether the side that just moved has won by a march onto the other side's X (RULINGS
        H8b): the game is over and no order is generated."""
    def set_won_on_x(self, on: bool) -> None:
        """Set or clear the X win (a position read from text; the key follows)."""
    def mark_clock_reset(self) -> None:
        """The current turn trained a unit (C3: the no-progress count restarts)."""
    def move_unit(self, origin: int, dest: int) -> None:
        """Move a unit to an empty square ignoring its movement, flags with it."""
    def swap_units(self, a: int, b_sq: int) -> None:
        """Exchange two units, each keeping its flags."""
    def capture(self, square: int) -> None:
        """Capture the unit on ``square``: to the Stock, or its owner's Barracks (Immortal)."""
    def place(self, square: int, t: int, colour: int) -> None:
        """Put a unit of type ``t`` and ``colour`` on an empty square (from nowhere)."""
    def remove(self, square: int) -> None:
        """Take the unit on ``square`` off the board (to nowhere)."""
    def deploy(self, colour: int, t: int, square: int) -> None:
        """Barracks -> board on an empty square."""
    def to_barracks(self, square: int) -> None:
        """Board -> its owner's Barracks."""
    def add_barracks(self, colour: int, t: int, delta: int) -> None:
        """Change the count of type ``t`` in ``colour``'s Barracks."""
    def add_stock(self, t: int, delta: int) -> None:
        """Change the count of type ``t`` in the Stock."""
    def train(self, colour: int, t: int, count: int) -> int:
        """Stock -> Barracks, up to ``count`` as the Stock holds (C9); returns how many."""
    def morph_square(self, square: int, new_t: int) -> bool:
        """Morph the unit on ``square`` into ``new_t`` from the Stock; False when the Stock has none."""
    def morph_barracks(self, colour: int, t: int, new_t: int) -> bool:
        """Morph a Barracks unit of type ``t`` into ``new_t`` from the Stock; False when impossible."""
