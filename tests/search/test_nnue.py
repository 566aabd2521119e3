"""The learned evaluation's kernel (ext/_nnue.pyx) against its definition (engine/board/nnue.py): the
integer forward pass equals the numpy reference exactly, the incremental accumulators equal a
refresh after every kind of order, the search's own stack stays exact, and net files that do not
fit are refused with the reason."""

from __future__ import annotations

import random
import struct
import zlib
from collections import Counter

import numpy as np
import pytest

from engine import NAMED_POSITIONS, Position
from engine._nnue import LAYOUT, Network
from engine.board import nnue
from engine.board.alphabeta import AlphaBeta
from engine.catalog import default_catalog
from engine.codes import KIND_NAMES, order_kind, order_promotion, unit_code, unit_code_type

CATALOG = default_catalog()
TYPES = len(CATALOG.units)


def random_net(seed: int, hidden: int = 64, spread: int = 400) -> nnue.Net:
    """Weights big enough that every feature moves the value and the clipping bites on both sides."""
    rng = np.random.default_rng(seed)
    return nnue.Net(rng.integers(-spread, spread, (nnue.N_FEATURES, hidden), dtype=np.int16),
                    rng.integers(-200, 400, hidden, dtype=np.int16),
                    rng.integers(-300, 300, 2 * hidden, dtype=np.int16), int(rng.integers(-50_000, 50_000)),
                    nnue.catalog_signature(CATALOG), {"test": seed})


def kernel(net: nnue.Net) -> Network:
    return Network(net.w1, net.b1, net.w2, net.b2, net.catalog, net.digest())


def random_position(rng: random.Random) -> Position:
    """Two Kings plus 4-20 random units of any of the catalog's types (Foot units off the back ranks)
    and random Barracks: boards the Point-Buy set-up can make and many it cannot."""
    position = Position.from_text(NAMED_POSITIONS["crown"])
    core = position.core
    free = [sq for sq in range(64) if core.unit_on(sq) is None]
    rng.shuffle(free)
    for _ in range(rng.randint(4, 20)):
        t = rng.randrange(TYPES)
        unit = CATALOG.units[t]
        sq = free.pop()
        if "Foot" in unit.classes and sq // 8 in (0, 7):
            continue
        core.place(sq, t, rng.randrange(2))
    for _ in range(rng.randint(0, 5)):
        core.add_barracks(rng.randrange(2), rng.randrange(TYPES), rng.randint(1, 6))
    if rng.random() < 0.5:
        position = Position.from_text(position.to_text().replace(" w ", " b ", 1))
    return position


def test_the_kernel_layout_is_the_reference_layout():
    assert LAYOUT == {"max_types": nnue.MAX_TYPES, "barracks_slots": nnue.BARRACKS_SLOTS,
                      "features": nnue.N_FEATURES, "qa": nnue.QA, "qb": nnue.QB, "scale": nnue.SCALE,
                      "max_hidden": max(nnue.HIDDEN_SIZES)}
    assert TYPES <= nnue.MAX_TYPES


def test_features_follow_the_documented_layout():
    """Hand-derived: a Blue Queen (type 1) on d1 is Blue's own feature 1 * 64 + 3 and Yellow's other
    feature (40 + 1) * 64 + (3 ^ 56); two Yellow Knights (type 4) in Barracks are slots 0 and 1."""
    record = nnue.BoardRecord(codes=(unit_code(3, 1, 0),), barracks=((0,) * 40, (0,) * 4 + (2,) + (0,) * 35),
                              side=0, cylindrical=True)
    assert nnue.feature_indices(record, 0) == [64 + 3, nnue.BARRACKS_BASE + (40 + 4) * 4, nnue.BARRACKS_BASE + (40 + 4) * 4 + 1,
                                               nnue.COMPASS_FEATURE]
    assert nnue.feature_indices(record, 1) == [(40 + 1) * 64 + 59, nnue.BARRACKS_BASE + 4 * 4, nnue.BARRACKS_BASE + 4 * 4 + 1,
                                               nnue.COMPASS_FEATURE]


def test_the_kernel_forward_pass_equals_the_reference_exactly():
    """1,200 random positions covering every unit type, both topologies and Barracks, two nets."""
    rng = random.Random(7)
    seen, barracks, sides = Counter(), 0, Counter()
    for net in (random_net(1, 64), random_net(2, 128, spread=900)):
        net_k = kernel(net)
        for i in range(600):
            position = random_position(rng)
            cylindrical = i % 2 == 1
            record = nnue.board_record(position, cylindrical)
            assert net_k.evaluate(position.core, cylindrical) == nnue.reference_eval(net, record), position.to_text()
            seen.update(unit_code_type(code) for code in record.codes)
            barracks += any(any(row) for row in record.barracks)
            sides[record.side] += 1
    assert set(seen) == set(range(TYPES)) and barracks > 500 and min(sides.values()) > 400


def test_incremental_accumulators_equal_a_refresh_after_every_kind_of_order():
    """Random order sequences from random boards, flat and cylindrical: the accumulators updated from
    the parent board equal a refresh of the child, for captures, deploys, promotions and the special
    orders (Oracle shots, Spy swaps, Phantom/Charger moves)."""
    rng = random.Random(11)
    net_k = kernel(random_net(3, 64))
    kinds, promotions = Counter(), 0
    for game in range(120):
        position = random_position(rng)
        cylindrical = game % 3 == 0
        for _ in range(12):
            orders = position.legal_orders(cylindrical)
            if not orders:
                break
            order = rng.choice(orders)
            parent = position.copy()
            position.push(order, cylindrical)
            kinds[KIND_NAMES[order_kind(order.code)]] += 1
            promotions += order_promotion(order.code) >= 0
            assert net_k.updated(parent.core, position.core, cylindrical) == \
                net_k.accumulators(position.core, cylindrical), (parent.to_text(), order.text())
    assert set(kinds) == set(KIND_NAMES) and kinds["attack"] > 50 and kinds["deploy"] > 20, kinds
    assert promotions > 0


def test_a_real_search_leaves_exact_accumulators_on_its_stack():
    """The node loop's own updates (ancestors, null moves, quiescence): after searches of random
    positions every stack entry still valid equals a refresh of its board."""
    rng = random.Random(5)
    search = AlphaBeta()
    net_k = kernel(random_net(4, 64, spread=60))
    search._kernel.set_network(net_k)
    assert search._kernel.evaluation == f"nnue {net_k.digest}"
    total = 0
    for i in range(25):
        position = random_position(rng)
        if not position.legal_orders():
            continue
        search.search(position, nodes=3000, cylindrical=i % 4 == 0)
        checked, wrong = search._kernel.check_accumulators()
        assert wrong == 0
        total += checked
    assert total > 100


def test_the_search_evaluates_with_the_net_it_is_given():
    position = Position.from_text(NAMED_POSITIONS["startpos"])
    net = random_net(6, 64)
    search = AlphaBeta(evaluation="classical")
    classical = search.evaluate(position)
    search._kernel.set_network(kernel(net))
    assert search.evaluate(position) == nnue.reference_eval(net, nnue.board_record(position)) != classical
    search._kernel.set_network(None)
    assert search.evaluate(position) == classical and search._kernel.evaluation == "classical"


# -- net files ---------------------------------------------------------------------------------------
def test_a_saved_net_loads_back_identical(tmp_path):
    net = random_net(8, 64)
    path = tmp_path / "a.nnue"
    nnue.save_net(net, path)
    back = nnue.load_net(path, CATALOG)
    assert back.digest() == net.digest() and back.provenance == {"test": 8} and back.b2 == net.b2
    assert np.array_equal(back.w1, net.w1) and np.array_equal(back.w2, net.w2)


def _rewrite(path, header_change=None, cut=0, flip=None):
    """The file with its header changed (and the CRC made right again), cut short, or a byte flipped."""
    data = bytearray(path.read_bytes()[:-4])
    if header_change:
        (length,) = struct.unpack_from("<I", data, 8)
        header = nnue.json.loads(data[12:12 + length])
        header_change(header)
        raw = nnue.json.dumps(header).encode()
        data = data[:8] + struct.pack("<I", len(raw)) + raw + data[12 + length:]
    if cut:
        data = data[:-cut]
    data += struct.pack("<I", zlib.crc32(bytes(data)))
    if flip is not None:
        data[flip] ^= 0x40
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("change, words", [
    (dict(header_change=lambda h: h.update(version=9)), "'version' is 9"),
    (dict(header_change=lambda h: h.update(hidden=100)), "'hidden' is 100"),
    (dict(header_change=lambda h: h.update(features=768)), "'features' is 768"),
    (dict(header_change=lambda h: h["catalog"].__setitem__(5, "X")), "type 5: the net has X, this catalog P"),
    (dict(cut=64), "a 64-wide net has"),
    (dict(flip=200), "CRC-32"),
])
def test_a_net_file_that_does_not_fit_is_refused_naming_why(tmp_path, change, words):
    path = tmp_path / "net.nnue"
    nnue.save_net(random_net(9, 64), path)
    _rewrite(path, **change)
    with pytest.raises(nnue.NetFileError) as caught:
        nnue.load_net(path, CATALOG)
    assert str(path) in str(caught.value) and words in str(caught.value)


def test_not_a_net_file_is_refused(tmp_path):
    path = tmp_path / "x.nnue"
    path.write_bytes(b"{}" * 20)
    with pytest.raises(nnue.NetFileError, match="not an NNUE net file"):
        nnue.load_net(path)
    with pytest.raises(nnue.NetFileError, match="cannot read"):
        nnue.load_net(tmp_path / "missing.nnue")


def test_ftc_analyze_takes_the_evaluation_and_names_it(tmp_path, capsys):
    import json

    from engine.interfaces.cli import main

    net = random_net(12, 64, spread=40)
    path = tmp_path / "n.nnue"
    nnue.save_net(net, path)
    assert main(["analyze", "startpos", "--depth", "2", "--eval", "nnue", "--net", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["evaluation"] == f"nnue {net.digest()} (n.nnue)" and report["lines"]
    assert main(["analyze", "startpos", "--depth", "2", "--eval", "classical"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("evaluation classical")
    (tmp_path / "bad.nnue").write_bytes(b"FTCNNUE\x00" + b"\x00" * 40)
    assert main(["analyze", "startpos", "--eval", "nnue", "--net", str(tmp_path / "bad.nnue")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.nnue: damaged" in err
    assert main(["analyze", "--game", "kings-ransom", "startpos", "--eval", "nnue"]) == 2
    assert "--eval: not an option of King's Ransom analysis" in capsys.readouterr().err


def test_a_board_with_a_type_the_net_never_saw_is_judged_classically(tmp_path):
    """A net whose header lists the Visionary (~B) as untrained: boards with one (on the board or in a
    Barracks) get the classical value, others the net's, in the search and in the file's round trip."""
    from engine.board.evaluate import load_network

    net = random_net(13, 64, spread=40)
    net.untrained = ["~B"]
    path = tmp_path / "u.nnue"
    nnue.save_net(net, path)
    assert nnue.load_net(path).untrained == ["~B"]
    network = load_network(path)
    visionary = nnue.catalog_signature(CATALOG).index("~B")
    assert network.untrained == (visionary,)
    classical, learned = AlphaBeta(evaluation="classical"), AlphaBeta(net=path)
    plain = Position.from_text("4k3/8/8/8/8/8/3B4/4K3 w - - 0 1")
    on_board = Position.from_text("4k3/8/8/8/8/8/3~B4/4K3 w - - 0 1")
    in_barracks = Position.from_text("4k3/8/8/8/8/8/3B4/4K3[~B] w - - 0 1")
    assert network.knows(plain.core) and not network.knows(on_board.core) and not network.knows(in_barracks.core)
    assert learned.evaluate(plain) == nnue.reference_eval(net, nnue.board_record(plain)) != classical.evaluate(plain)
    for position in (on_board, in_barracks):
        assert learned.evaluate(position) == classical.evaluate(position)
    broken = tmp_path / "v.nnue"
    net.untrained = ["nope"]
    nnue.save_net(net, broken)
    with pytest.raises(nnue.NetFileError, match="'untrained'"):
        nnue.load_net(broken)


def test_the_shipped_net_loads_says_how_it_was_made_and_is_what_nnue_without_a_file_means(capsys):
    """engine/data/ftc.nnue (docs/nnue.md "The shipped net"): it fits the default catalog, its
    provenance names the data, the training and the commit (and, for a generation of the loop, its
    parent and the gate it passed), and `--eval nnue` without `--net`
    evaluates with it (the kernel's value equals the reference's on the start position)."""
    import json

    from engine.board.evaluate import default_net_path
    from engine.interfaces.cli import main

    path = default_net_path()
    net = nnue.load_net(path, default_catalog())
    p = net.provenance
    assert net.hidden == 128 and p["options"]["mirror"] is True
    chain = p.get("chain")
    if chain is None:                               # trained from scratch (tools/train_nnue.py)
        assert p["positions"]["train"] > 1_000_000
    else:                                           # a generation of ftc nnue-loop: it passed its gate
        assert chain["total_positions"] > 1_000_000 and p["init"]["digest"] == chain["parent"]
        assert chain["sprt"]["test"]["decision"] == "H1 accepted" and chain["sprt"]["elo"] > 0
    assert p["data"]["settings"]["nodes"] == 5000 and len(p["commit"]) == 40 and p["epochs"] >= 1
    assert p["baseline"]["net"] < p["baseline"]["classical"]
    position = Position.from_text(NAMED_POSITIONS["startpos"])
    assert kernel(net).evaluate(position.core, False) == nnue.reference_eval(net, nnue.board_record(position))
    assert main(["analyze", "startpos", "--depth", "2", "--eval", "nnue", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["evaluation"] == f"nnue {net.digest()} (ftc.nnue)"


def test_the_board_search_and_the_full_game_ai_each_take_their_own_default_evaluation(monkeypatch):
    """evaluation.toml's ``default`` chooses the board search's evaluation (AlphaBeta() without one),
    its ``full_game`` the full-game AI's board judgements (the expert's and the planner's searches and
    ``board_value``): the net can become the board search's default while the full-game AI keeps
    the classical evaluation, and the other way round (issue 43)."""
    from engine.board import evaluate
    from engine.crown.config import GameConfig
    from engine.crown.expert import ExpertBot
    from engine.crown.state import GameState

    shipped = evaluate.evaluation_settings()
    state = GameState(GameConfig(seed=1))
    for board, full_game in (("nnue", "classical"), ("classical", "nnue")):
        monkeypatch.setattr(evaluate, "_SETTINGS", [dict(shipped, default=board, full_game=full_game)])
        monkeypatch.setattr(evaluate, "_LAST", [None])
        monkeypatch.setattr(evaluate, "_EVALUATIONS", {})
        assert AlphaBeta().evaluation.split()[0] == board
        assert ExpertBot(0).searcher(state).evaluation.split()[0] == full_game
        kernel = evaluate.kernel_evaluation(state.units)
        net_value = evaluate.board_value(state.board, 0, to_move=True)
        monkeypatch.setattr(evaluate, "_SETTINGS", [dict(shipped, default=board, full_game="classical")])
        monkeypatch.setattr(evaluate, "_LAST", [None])
        monkeypatch.setattr(evaluate, "_EVALUATIONS", {})
        classical_value = evaluate.board_value(state.board, 0, to_move=True)
        assert kernel is not None and (net_value != classical_value) == (full_game == "nnue")
    monkeypatch.setenv("FTC_EVAL", "nnue")
    monkeypatch.setattr(evaluate, "_SETTINGS", [])
    assert evaluate.evaluation_settings()["default"] == evaluate.full_game_evaluation() == "nnue"
    monkeypatch.setattr(evaluate, "_SETTINGS", [])
