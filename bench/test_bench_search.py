"""Alpha-beta speed (pytest-benchmark, not in the default run: `pytest bench/ --benchmark-only`).
Nodes/s are printed in the benchmark's extra info."""

import pytest

from engine import Position
from engine.board.alphabeta import AlphaBeta

pytestmark = pytest.mark.benchmark

POSITIONS = {
    "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    "middlegame": "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w - - 0 1",
    "fairy": "r1bqk2r/pppZpp1p/2n2n2/4p3/1Lb1P3/2NO1N2/PPP2PPP/R1B1KW1R[Nz] w - - 0 1",
    "cylindrical": "r~n2k2r/pp1~bpppp/8/2~r5/8/1~N6/PP1~BPPPP/R3K~R2 w - - 0 1",
}


@pytest.mark.parametrize("name", list(POSITIONS))
def test_alphabeta_depth5(benchmark, name):
    searcher = AlphaBeta()
    position = Position.from_text(POSITIONS[name])

    def run():
        searcher.new_game()
        return searcher.search(position, depth=5)

    result = benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info["nodes"] = result.nodes
    benchmark.extra_info["nodes_per_second"] = round(result.nps)
    assert result.best is not None
