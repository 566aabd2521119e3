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
    def check_sliders(self, boards: int = 1000, seed: int = 1) -> tuple[int, list[tuple[str, int, int, int, int]]]:
        """Compare the slider lookups with a ray walk: (checks, up to 20 mismatches)."""
