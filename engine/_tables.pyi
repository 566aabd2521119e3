"""Type stubs for the compiled engine._tables module (ext/_tables.pyx): geometry and one program per
unit type, built from a unit catalog."""

from engine.catalog import Catalog

#: Ride and pattern mode bits as compiled (ext/_tables.pxd MODE_*): MODE_MARCH, MODE_CAPTURE,
#: MODE_SHOOT, MODE_INITIAL.
MODES: dict[str, int]
#: The four straight directions (dx, dy): N E S W.
ORTH: tuple[tuple[int, int], ...]
#: The four diagonal directions (dx, dy): NE SE SW NW.
DIAG: tuple[tuple[int, int], ...]
#: How sliding attacks are looked up: "pext" or "magic".
SLIDERS: str
#: The instruction-set extensions compiled in (popcnt, bmi1, bmi2, avx2).
COMPILED_ISA: tuple[str, ...]
#: Whether the kernel was built with C assertions (a debug build).
C_ASSERTS: bool

class RuleTables:
    """Kernel tables built from a unit catalog; shared by every position on that catalog."""

    catalog: Catalog
    def __init__(self, catalog: Catalog) -> None: ...
    @property
    def files(self) -> int:
        """Files of the board the tables were built for (the catalog's BoardShape; 8 for units.toml)."""
    @property
    def ranks(self) -> int:
        """Ranks of the board the tables were built for."""
    @property
    def board(self) -> int:
        """The squares of the board, as a bitboard (8-wide numbering: a1 = 0, a2 = 8)."""
    def check_sliders(self, boards: int = 1000, seed: int = 1) -> tuple[int, list[tuple[str, int, int, int, int]]]:
        """Compare the slider lookups with a ray walk: (checks, up to 20 mismatches). The lookups
        are of the 8x8 board: ValueError for tables of another shape."""
