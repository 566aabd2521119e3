"""ftc-engine: move generation, perft, search and AI opponents for four games (engine/games/registry.py,
each with its ``--game`` name): For the Crown (``crown``), King's Ransom (``kings-ransom``), Crusade &
Conquer (``crusade``) and Crownfall (``crownfall``). The board API below is For the Crown's.

The public API, in the spirit of python-chess::

    from engine import Position, perft
    pos = Position.from_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
    pos.legal_orders()          # [Order('a2a3', march), ...]
    perft(pos, 4)               # 206603 (chess rules but no check: RULINGS C8)
"""

from types import ModuleType

from engine import _tables
from engine.catalog import Catalog, CatalogError, UnitType, default_catalog
from engine.movespec import SpecError
from engine.notation import BLUE, YELLOW, OrderTextError, PositionTextError
from engine.perft import divide, perft
from engine.position import IllegalOrderError, Order, Position

_build: ModuleType | None
try:
    from engine import _build
except ImportError:  # built without setup.py's generated file
    _build = None

__version__ = "0.1.0"


def _build_info() -> dict:
    """How the kernels were built: setup.py's choice (engine/_build.py, generated at build time) and
    what the compiled modules themselves report."""
    return {
        "arch": getattr(_build, "ARCH", "unknown"),
        "march_flags": getattr(_build, "MARCH_FLAGS", ""),
        "build": "debug" if _tables.C_ASSERTS else "release",   # compiled in (FTC_DEBUG=1: C asserts)
        "sliders": _tables.SLIDERS,              # compiled in: "pext" or "magic"
        "isa": _tables.COMPILED_ISA,             # compiled in: popcnt, bmi1, bmi2, avx2 if targeted
    }


#: How the kernels were compiled: {"arch": "x86-64-v3", "build": "release", "sliders": "pext", ...}
#: (setup.py, FTC_ARCH / FTC_DEBUG / FTC_SLIDERS).
BUILD_INFO = _build_info()


def version_string() -> str:
    """``ftc-engine 0.1.0 (x86-64-v3, release build)``, as ``ftc --version`` prints it."""
    return f"ftc-engine {__version__} ({BUILD_INFO['arch']}, {BUILD_INFO['build']} build)"

#: Named positions accepted wherever position text is (CLI, perft).
NAMED_POSITIONS = {
    # Point-Buy Chess with the 38-point orthodox army: the chess start position (RULINGS C8).
    "startpos": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    # For the Crown's own set-up (3.0): a King each on e1 and e8, empty Barracks.
    "crown": "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
}

__all__ = [
    "Catalog", "CatalogError", "UnitType", "default_catalog", "SpecError", "BLUE", "YELLOW",
    "OrderTextError", "PositionTextError", "IllegalOrderError", "Order", "Position", "perft", "divide",
    "NAMED_POSITIONS", "BUILD_INFO", "version_string",
]
