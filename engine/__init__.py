"""ftc-engine: move generation, perft and search for For the Crown (Second Edition).

The public API, in the spirit of python-chess::

    from engine import Position, perft
    pos = Position.from_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
    pos.legal_orders()          # [Order('a2a3', march), ...]
    perft(pos, 4)               # 206603 (chess rules but no check: RULINGS C8)
"""

from engine.catalog import Catalog, CatalogError, UnitType, default_catalog
from engine.movespec import SpecError
from engine.notation import BLUE, YELLOW, OrderTextError, PositionTextError
from engine.perft import divide, perft
from engine.position import IllegalOrderError, Order, Position

__version__ = "0.1.0"

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
    "NAMED_POSITIONS",
]
