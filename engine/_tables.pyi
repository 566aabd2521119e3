"""Type stubs for the compiled engine._tables module (ext/_tables.pyx)."""

from engine.catalog import Catalog

class RuleTables:
    """Kernel tables built from a unit catalog; shared by every position on that catalog."""

    catalog: Catalog
    def __init__(self, catalog: Catalog) -> None: ...
    def check_sliders(self, boards: int = 1000, seed: int = 1) -> tuple[int, list[tuple[str, int, int, int, int]]]: ...

SLIDERS: str
COMPILED_ISA: tuple[str, ...]
C_ASSERTS: bool
