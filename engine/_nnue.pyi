"""Type stubs for the compiled engine._nnue module (ext/_nnue.pyx): the learned evaluation's kernel.
engine/board/nnue.py defines the layout and the file; engine/board/evaluate.py loads networks."""

from engine._position import BoardCore

#: The kernel's layout numbers (engine/board/nnue.py's constants must equal them).
LAYOUT: dict[str, int]

class Network:
    """A net's weights in aligned kernel memory; ``digest`` names it, ``tokens`` are the unit tokens of
    the catalog it was trained for."""

    digest: str
    tokens: tuple[str, ...]
    untrained: tuple[int, ...]
    hidden: int
    def __init__(self, w1, b1, w2, b2: int, tokens=(), digest: str = "", untrained=()) -> None:
        """``w1`` int16 [features, hidden], ``b1`` int16 [hidden], ``w2`` int16 [2 * hidden], ``b2``;
        ``untrained``: type indices the net has no data for."""
    def knows(self, core: BoardCore) -> bool:
        """Whether no unit of an untrained type is on the board or in a Barracks."""
    def evaluate(self, core: BoardCore, cylindrical: bool = False) -> int:
        """The net's value of the core's board for the side to move, in centi-points."""
    def accumulators(self, core: BoardCore, cylindrical: bool = False) -> list[list[int]]:
        """[Blue's, Yellow's] accumulator of the core's board, refreshed."""
    def updated(self, parent: BoardCore, core: BoardCore, cylindrical: bool = False) -> list[list[int]]:
        """The accumulators of ``core``'s board updated from ``parent``'s, as the search does."""
