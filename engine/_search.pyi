"""Type stubs for the compiled engine._search module (ext/_search.pyx): the board search kernel and
the static evaluation. engine/board/alphabeta.py drives the search (iterative deepening,
aspiration, limits, multi-PV); engine/board/evaluate.py wraps board_value."""

from engine._nnue import Network
from engine._position import BoardCore
from engine._tables import RuleTables

#: The tunable numbers of the evaluation, in the order of ``AlphaBeta.eval_features``.
FEATURE_NAMES: tuple[str, ...]
#: A Sovereign-loss score: mate in n plies scores +-(MATE_SCORE - n).
MATE_SCORE: int
#: The search's infinity (above every score).
INF_SCORE: int

class Evaluation:
    """The static evaluation for one catalog and one set of weights (weights and derived tables)."""

    tables: RuleTables
    network: Network | None
    def __init__(self, tables: RuleTables, weights: dict, network: Network | None = None) -> None:
        """``weights``: EvalWeights.kernel_dict(catalog); ``network``: evaluate with it instead."""

def board_value(core: BoardCore, player: int, evaluation: Evaluation, to_move: bool = False,
                cylindrical: bool = False) -> int:
    """The static evaluation of the core's board for ``player``, in centi-points: negated when the
    other side is to move, or (``to_move``) judged as if ``player`` were to move."""

class AlphaBeta:
    """One search context: transposition table, ordering tables, evaluation tables, limits."""

    nodes: int
    def __init__(self, tables: RuleTables, weights: dict, tt_megabytes: int = 16,
                 draw_without_orders: bool = True) -> None: ...
    def clear(self) -> None:
        """Forget the transposition table and the ordering tables (a new game)."""
    def search_stats(self) -> dict[str, int]:
        """Since clear(): singular_searches, singular_extensions, multi_cuts."""
    def set_network(self, network: Network | None = None) -> None:
        """Evaluate with ``network`` (None: classical); clears the transposition table."""
    evaluation: str
    def check_accumulators(self) -> tuple[int, int]:
        """(plies checked, plies wrong) of the search stack's accumulators against a refresh."""
    def evaluate_position(self, core: BoardCore, cylindrical: bool = False) -> int:
        """Static evaluation for the side to move, in centi-points."""
    def eval_features(self, core: BoardCore, cylindrical: bool = False) -> tuple[float, list[float]]:
        """(material, features): evaluate == material + sum(weight * feature), up to rounding."""
    def coverage_check(self, core: BoardCore, colour: int, cylindrical: bool = False) -> tuple[int, int]:
        """(the reach-table threat map, capture_coverage) of ``colour``: equal when the tables are right."""
    def search_root(self, core: BoardCore, depth: int, root_orders: list[int], multipv: int = 1,
                    node_limit: int = 0, deadline: float = 0.0, alpha: int = -2000000, beta: int = 2000000,
                    cylindrical: bool = False, history: list[int] | None = None
                    ) -> tuple[list[tuple[int, int]], int, bool, int]:
        """([(score, order)] best first, nodes, whether the budget ran out, selective depth)."""
    def request_stop(self) -> None:
        """Make a running search return at once (any thread), and later ones until clear_stop()."""
    def clear_stop(self) -> None:
        """Let searches run again after request_stop()."""
    def tt_move(self, core: BoardCore) -> int:
        """The transposition table's best order for this position, or 0."""
