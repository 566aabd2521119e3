"""pytest-benchmark benchmarks of perft and legal_orders (not part of the default test run).

Run with:  python -m pytest -p no:cacheprovider bench/ --benchmark-only
(``testpaths = ["tests"]`` keeps these out of a plain ``pytest``; every test here also carries the
``benchmark`` mark, so ``-m "not benchmark"`` deselects them if bench/ is named explicitly.)
Counts are asserted where an oracle has recorded them (tests/data/perft_*.epd).
"""
from __future__ import annotations

import pytest

pytest.importorskip("pytest_benchmark")
engine = pytest.importorskip("engine")

pytestmark = [pytest.mark.benchmark(group="ftc-engine", min_rounds=3, warmup=False)]

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1 promote:NBRQ"
FAIRY = "hzcekdah/pmtpptmp/8/8/8/8/PMTPPTMP/HZCEKDAH w - - 0 1 promote:NBRQZCDHMEAT"
FAIRY_HEAVY = "wfxgkyso/pmtailch/8/8/8/8/PMTAILCH/WFXGKYSO w - - 0 1"
CYLINDRICAL = "~r~n~z~bk~g~h~l/pppppppp/8/8/8/8/PPPPPPPP/~R~N~Z~BK~G~H~L w - - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1"


def test_bench_perft_start_d4(benchmark):
    assert benchmark(engine.perft, START, 4) == 197742  # python-chess


def test_bench_perft_kiwipete_d4(benchmark):
    # Rooks, bishops and queens in open lines: the slider tables (FTC_SLIDERS) at work.
    assert benchmark(engine.perft, KIWIPETE + " promote:NBRQ", 4) == 3582194  # python-chess


def test_bench_slider_tables_check(benchmark):
    # Every mask occupancy of every square plus 100 random boards each, rook and bishop, against the
    # ray walk: about 120,000 lookups and walks.
    from engine._tables import RuleTables
    tables = RuleTables(engine.default_catalog())
    checks, mismatches = benchmark(tables.check_sliders, 100)
    assert mismatches == [] and checks == 102400 + 5248 + 2 * 64 * 100


def test_bench_perft_fairy_d3(benchmark):
    assert benchmark(engine.perft, FAIRY, 3) == 74821  # pyffish:ftcf


def test_bench_perft_fairy_heavy_d3(benchmark):
    assert benchmark(engine.perft, FAIRY_HEAVY, 3) > 0


def test_bench_perft_cylindrical_d3(benchmark):
    assert benchmark(engine.perft, CYLINDRICAL, 3, cylindrical=True) > 0


def test_bench_legal_orders_python(benchmark):
    pos = engine.Position.from_text(KIWIPETE)
    orders = benchmark(pos.legal_orders)
    assert len(orders) == 46  # python-chess, castling removed


def test_bench_legal_orders_cylindrical(benchmark):
    pos = engine.Position.from_text(CYLINDRICAL)
    assert len(benchmark(pos.legal_orders, cylindrical=True)) > 0
