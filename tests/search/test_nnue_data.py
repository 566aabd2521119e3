"""The NNUE training data (engine/board/nnue_data.py, `ftc nnue-data`; issue 25): records that decode
to the positions they came from, labels from the side to move's view, the same shards on one worker
and on two, resuming, settings checked against the manifest, Ctrl-C, the army mix and its budgets.
Small games: a few hundred nodes per order."""

import json
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

from engine import Position
from engine.board import nnue_data
from engine.board.evaluate import default_net_path
from engine.board.nnue import MAX_TYPES, Net, board_record, load_net, save_net
from engine.board.nnue_data import (
    ADJUDICATE_PLIES,
    ADJUDICATE_SCORE,
    ARMIES,
    END_REASONS,
    MATE_BOUND,
    ORTHODOX,
    DataError,
    Settings,
    _choose_army,
    _game_rng,
    generate,
    is_quiet,
    iter_records,
    load_shards,
    play_game,
    read_manifest,
    read_shard,
    shard_name,
    sovereign_threatened,
)
from engine.catalog import default_catalog
from engine.codes import order_kind, order_promotion
from engine.crown.armies import point_buy_start
from engine.notation import BLUE, PositionData
from engine.position import DEPLOY
from tests.support import FTC, ROOT, child_env, ctrl_c_raises, sigint_as_at_a_terminal


def position_of(record) -> Position:
    """A Position of a record, decoded here as docs/nnue-data.md lays the codes out (square | type << 6
    | colour << 12): an independent reading of the documented format."""
    position = Position()
    n = len(position.catalog)
    position.load(PositionData(units={code % 64: (code // 64 % 64, code // 4096) for code in record.codes},
                               barracks=[list(record.barracks[0][:n]), list(record.barracks[1][:n])],
                               side=record.side))
    return position


SMALL = dict(games=4, nodes=300, shard_games=2, max_plies=120)


def small(**changes) -> Settings:
    return Settings(**{**SMALL, **changes})


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Four small games in two shards, on one worker."""
    folder = tmp_path_factory.mktemp("nnue-data") / "one"
    state = generate(folder, small(), point_buy_start, workers=1)
    return folder, state


def test_records_decode_to_positions_whose_record_round_trips(made):
    folder, _ = made
    data = load_shards(folder)
    records = list(iter_records(data))
    assert len(records) == len(data["side"]) > 20
    assert data["offsets"][0] == 0 and data["offsets"][-1] == len(data["codes"])
    catalog = default_catalog()
    for record in records:
        position = position_of(record)
        assert board_record(position, record.cylindrical) == record
        # a recorded position is a game in progress: each side still has a Sovereign on the board
        sovereigns = {colour for sq in range(64) for unit in [position.core.unit_on(sq)] if unit
                      for colour in [unit[1]] if catalog.units[unit[0]].is_sovereign}
        assert sovereigns == {0, 1}
    assert data["barracks"].shape == (len(records), 2, MAX_TYPES)
    assert data["barracks"].any()                 # some armies keep units in their Barracks
    # The shards hold what the games saw: game 0 played again gives the same records, in order.
    game = play_game(0, small(), armies=point_buy_start)
    mine = [r for r, g in zip(records, data["game"].tolist()) if g == 0]
    assert mine == game.records and len(mine) > 0
    assert data["score"][data["game"] == 0].tolist() == game.scores


def test_labels_are_in_range_and_the_result_is_the_side_to_moves(made):
    folder, _ = made
    data = load_shards(folder)
    assert set(np.unique(data["result"]).tolist()) <= {-1, 0, 1}
    assert np.all(np.abs(data["score"].astype(np.int64)) <= MATE_BOUND)
    assert set(np.unique(data["side"]).tolist()) == {0, 1}
    winner = dict(zip(data["game_seed"].tolist(), data["game_winner"].tolist()))
    assert set(winner) == {0, 1, 2, 3}
    for game, side, result in zip(data["game"].tolist(), data["side"].tolist(), data["result"].tolist()):
        w = winner[game]
        assert result == (0 if w < 0 else 1 if side == w else -1)
    assert any(w >= 0 for w in winner.values())       # these four games are not all draws
    plies = dict(zip(data["game_seed"].tolist(), data["game_plies"].tolist()))
    assert all(0 < p <= plies[g] for g, p in zip(data["game"].tolist(), data["ply"].tolist()))
    assert set(data["army"].tolist()) <= {0, 1, 2}


def test_scores_and_results_are_from_the_side_to_moves_view_a_queen_up():
    # Blue is a Queen up (otherwise the start position): every recorded score is Blue's advantage
    # with Blue to move and Yellow's disadvantage with Yellow to move; Blue wins the game.
    start = Position.from_text("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
    game = play_game(5, small(opening_plies=0, max_plies=200), start=start, army=0, compass=False)
    assert len(game.records) > 10
    for record, score in zip(game.records[:10], game.scores[:10]):
        assert (score > 200) if record.side == 0 else (score < -200), (record.side, score)
    assert game.winner == 0, END_REASONS[game.end]
    results = game.results()
    assert all(r == (1 if rec.side == 0 else -1) for rec, r in zip(game.records, results))


def test_quiet_means_no_capture_no_deploy_no_promotion():
    def order(position, text):
        return position.parse_order(text).code

    p = Position.from_text("4k3/P7/8/8/8/8/p7/L3K3[N] w - - 0 1")
    assert is_quiet(p, order(p, "e1f1"))
    assert not is_quiet(p, order(p, "a1a2"))                    # a capture
    assert not is_quiet(p, order(p, "a1a3"))                    # a Charger passing through a2 captures it (B12)
    assert not is_quiet(p, order(p, "N@b1"))                    # a deploy
    assert order_kind(order(p, "N@b1")) == DEPLOY
    assert not is_quiet(p, order(p, "a7a8q"))                   # a promotion
    assert order_promotion(order(p, "a7a8q")) >= 0
    assert not is_quiet(p, order(p, "a7a8k"))                   # a promotion to the catalog's first type
    assert order_promotion(order(p, "a7a8k")) == 0
    assert p.to_text() == "4k3/P7/8/8/8/8/p7/L3K3[N] w - - 0 1"  # looking leaves the position as it was
    assert not sovereign_threatened(p, False)
    checked = Position.from_text("4k3/8/8/8/8/8/8/r3K3 w - - 0 1")
    assert sovereign_threatened(checked, False)
    # Compass mode: the Rook on h1 is blocked by b1 on the flat board, but reaches a1 around the edge
    wrapped = Position.from_text("4k3/8/8/8/8/8/8/KN5r w - - 0 1")
    assert not sovereign_threatened(wrapped, False)
    assert sovereign_threatened(wrapped, True)


class Scripted:
    """A stand-in for the search of a data game: Blue's view of the score comes from ``blue`` (one per
    order, then ``fill``); the order is the first legal one to a position this game has not searched
    yet, so that no repetition ends a game the test means to end otherwise."""

    def __init__(self, blue: list[int], fill: int = 0):
        self.blue, self.fill, self.calls = list(blue), fill, 0
        self.searched: set[int] = set()

    def new_game(self):
        self.searched.clear()

    def search(self, position, nodes=None, cylindrical=False, lines=True):
        blue = self.blue[self.calls] if self.calls < len(self.blue) else self.fill
        self.calls += 1
        self.searched.add(position.key)
        for best in position.legal_orders(cylindrical):
            after = position.copy()
            after.push(best, cylindrical)
            if after.key not in self.searched:
                break
        return SimpleNamespace(best=best, score=blue if position.core.side == BLUE else -blue)


def scripted_game(monkeypatch, start: str | Position, blue: list[int], fill: int = 0, **settings):
    """The data game from ``start`` itself (no random opening), searched by Scripted(blue, fill)."""
    monkeypatch.setattr(nnue_data, "_opening", lambda position, rng, plies, cylindrical: position)
    search = Scripted(blue, fill)
    start = Position.from_text(start) if isinstance(start, str) else start
    game = play_game(1, small(**settings), search, start=start, army=0, compass=False)
    return game, search


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"


def test_a_side_ahead_for_eight_orders_in_a_row_wins_by_adjudication(monkeypatch):
    # Eight searches in a row see Blue more than ADJUDICATE_SCORE ahead: Blue wins after the eighth
    # search, before its order is played (7 orders played).
    game, search = scripted_game(monkeypatch, START, [], fill=ADJUDICATE_SCORE + 500)
    assert (END_REASONS[game.end], game.winner, search.calls, game.length) == ("adjudicated: score", 0,
                                                                               ADJUDICATE_PLIES, ADJUDICATE_PLIES - 1)
    # The lead changing hands starts the count again: five for Blue, then eight for Yellow.
    game, search = scripted_game(monkeypatch, START, [3000] * 5, fill=-3000)
    assert (END_REASONS[game.end], game.winner, search.calls) == ("adjudicated: score", 1, 5 + ADJUDICATE_PLIES)
    # Exactly ADJUDICATE_SCORE ahead is not "more than": the game goes on to --max-plies.
    game, search = scripted_game(monkeypatch, START, [], fill=ADJUDICATE_SCORE, max_plies=12)
    assert (END_REASONS[game.end], game.winner, game.length) == ("adjudicated: max plies", -1, 12)


def test_a_position_is_recorded_up_to_the_mate_bound_and_not_beyond(monkeypatch):
    # Scores from the side to move's view; the standard opening's first orders are quiet.
    game, _ = scripted_game(monkeypatch, START, [MATE_BOUND, MATE_BOUND + 1, -MATE_BOUND, 7], max_plies=4)
    assert (game.scores, game.plies) == ([MATE_BOUND, -MATE_BOUND, -7], [0, 2, 3])


def test_the_hundredth_turn_without_capture_or_deploy_ends_the_game(monkeypatch):
    # Two lone Sovereigns far apart, the clock at 97: three orders later it reaches 100, a draw.
    game, search = scripted_game(monkeypatch, "7k/8/8/8/8/8/8/K7 w - - 97 1", [])
    assert (END_REASONS[game.end], game.winner, game.length, search.calls) == \
        ("100 turns without capture or deploy", -1, 3, 3)


def test_a_third_occurrence_ends_the_game_counting_the_orders_before_it(monkeypatch):
    # The start position occurs a third time after two round trips of both Sovereigns: the data game
    # ends at once, counting the occurrences before its first search (the position's history).
    position = Position.from_text("7k/8/8/8/8/8/8/K7 w - - 0 1")
    for _ in range(2):
        for text in ("a1b1", "h8g8", "b1a1", "g8h8"):
            position.push(position.parse_order(text), False)
    game, search = scripted_game(monkeypatch, position, [])
    assert (END_REASONS[game.end], game.winner, game.length, search.calls) == ("threefold repetition", -1, 8, 0)


def test_a_compass_games_opening_moves_around_the_edge(monkeypatch):
    # A Rook on h1 reaches a1..c1 only around the edge (Compass mode): some of the random one-order
    # openings in Compass mode play one of those orders; a flat opening never does.
    start = Position.from_text("4k3/8/8/8/8/8/8/4K2R w - - 0 1")
    wrapped = set()                         # the positions after those orders
    for text in ("h1a1", "h1b1", "h1c1"):
        after = start.copy()
        after.push(start.parse_order(text, True), True)
        wrapped.add(after.key)

    def openings(cylindrical):
        return {nnue_data._opening(start, _game_rng(seed), 1, cylindrical).key for seed in range(60)}

    assert openings(True) & wrapped
    assert not openings(False) & wrapped
    # A data game in Compass mode draws its opening so.
    modes: list[bool] = []
    monkeypatch.setattr(nnue_data, "_opening", lambda position, rng, plies, cylindrical: modes.append(cylindrical)
                        or position)
    play_game(3, small(max_plies=1), Scripted([]), start=start, army=0, compass=True)
    assert modes == [True]


def test_a_kind_with_no_share_is_never_drawn_even_at_the_ends_of_the_draw():
    class Draw:
        def __init__(self, x):
            self.x = x

        def random(self):
            return self.x

    assert _choose_army(Draw(0.0), small(mix=(0.0, 1.0, 0.0))) == 1        # not the empty first kind
    assert _choose_army(Draw(0.0), small(mix=(0.0, 0.0, 2.0))) == 2
    # A draw at the very top (rounding can leave it past the last share) goes to the last kind that
    # has a share, not to one that has none.
    assert _choose_army(Draw(1.0), small(mix=(0.25, 0.75, 0.0))) == 1
    assert _choose_army(Draw(0.5), small(mix=(0.25, 0.75, 0.0))) == 1
    assert _choose_army(Draw(0.2), small(mix=(0.25, 0.75, 0.0))) == 0


def test_quiet_filter_holds_in_the_games(made):
    # Replay: the games' recorded positions never have a threatened Sovereign.
    folder, _ = made
    for record in iter_records(folder):
        assert not sovereign_threatened(position_of(record), record.cylindrical)


def test_the_same_shards_on_one_worker_and_on_two(made, tmp_path):
    folder, _ = made
    other = tmp_path / "two"
    generate(other, small(), point_buy_start, workers=2)
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(p.name for p in other.iterdir()) == ["manifest.json", shard_name(0), shard_name(2)]
    for name in names:
        assert (folder / name).read_bytes() == (other / name).read_bytes(), name


def test_resuming_after_a_removed_shard_gives_the_same_bytes(made, tmp_path):
    folder, _ = made
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in folder.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    (copy / shard_name(2)).unlink()
    kept = (copy / shard_name(0)).stat().st_mtime_ns
    state = generate(copy, small(), point_buy_start, workers=1)
    assert state.new_games == 2 and state.games == 4
    assert (copy / shard_name(0)).stat().st_mtime_ns == kept           # a finished shard is not made again
    for name in (shard_name(0), shard_name(2), "manifest.json"):
        assert (copy / name).read_bytes() == (folder / name).read_bytes(), name
    again = generate(copy, small(), point_buy_start, workers=1)                           # nothing left to do
    assert again.new_games == 0 and again.done


def test_a_different_setting_is_refused_by_name(made):
    folder, _ = made
    with pytest.raises(DataError, match=r"nodes = 300, this run asks for 400 \(--nodes\)"):
        generate(folder, small(nodes=400), point_buy_start)
    with pytest.raises(DataError, match=r"mix = .*--mix/--compass"):
        generate(folder, small(compass=0.5), point_buy_start)
    with pytest.raises(DataError, match=r"games = 4, this run asks for 6 \(--games\)"):
        generate(folder, small(games=6), point_buy_start)


def test_bad_settings_and_folders_are_clear_errors(tmp_path):
    with pytest.raises(DataError, match="--mix"):
        Settings(mix=(1, -1, 1))
    with pytest.raises(DataError, match="--compass"):
        Settings(compass=1.5)
    with pytest.raises(DataError, match="--nodes"):
        Settings(nodes=0)
    (tmp_path / "file").write_text("x")
    with pytest.raises(DataError, match="not a folder"):
        generate(tmp_path / "file", small(), point_buy_start)
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / shard_name(0)).write_bytes(b"x")
    with pytest.raises(DataError, match="no manifest.json"):
        generate(stray, small(), point_buy_start)
    with pytest.raises(DataError, match=f"{shard_name(0)}: not a readable shard"):
        read_shard(stray / shard_name(0))
    with pytest.raises(DataError, match="no shard"):
        load_shards(tmp_path)
    cli = subprocess.run(FTC + ["nnue-data", "--out", str(tmp_path / "x"), "--mix", "1,2"], capture_output=True,
                         text=True, env=child_env(), cwd=ROOT, timeout=60)
    assert cli.returncode == 2 and cli.stderr.startswith("ftc: error: --mix") and "Traceback" not in cli.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_keeps_the_finished_shards_and_exits_130(tmp_path):
    out = tmp_path / "data"
    proc = subprocess.Popen(FTC + ["nnue-data", "--out", str(out), "--games", "500", "--nodes", "300",
                                   "--shard-games", "1", "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(), cwd=ROOT,
                            preexec_fn=sigint_as_at_a_terminal)
    try:
        deadline = time.monotonic() + 60
        while not (out / shard_name(1)).exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert (out / shard_name(1)).exists(), "no second shard within 60 s"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert time.monotonic() - sent < 5
    lines = [line for line in err.splitlines() if line.startswith("ftc:")]
    assert len(lines) == 1 and "stopped" in lines[0] and "Traceback" not in err, err
    shards = sorted(out.glob("shard-*.npz"))
    assert len(shards) >= 2 and not list(out.glob("*.tmp"))
    for path in shards:
        read_shard(path)                                   # complete, readable
    assert read_manifest(out)["counts"]["shards"] == len(shards)
    assert not read_manifest(out)["complete"]


def test_a_ctrl_c_between_a_shard_and_the_manifest_waits_for_both(tmp_path, monkeypatch):
    """A Ctrl-C right after a shard is written lands once the manifest counts it: a stopped run never
    leaves a shard on disk that its manifest does not count (seen once under load: 2 shards, the
    manifest counting 1)."""
    import os
    import signal

    from engine.board import nnue_data

    write = nnue_data.write_shard

    def write_then_interrupted(path, arrays):
        write(path, arrays)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(nnue_data, "write_shard", write_then_interrupted)
    folder = tmp_path / "data"
    with ctrl_c_raises(), pytest.raises(KeyboardInterrupt):
        generate(folder, small(), point_buy_start, workers=1)
    assert read_manifest(folder)["counts"]["shards"] == len(list(folder.glob("shard-*.npz"))) == 1


def test_every_army_kind_and_compass_mode_appear(tmp_path):
    # 40 games of seed 7 (short: 50 nodes, at most 30 plies): the seeded draw gives every kind and
    # some Compass games (about 10, 10, 20 and 4 expected).
    settings = Settings(seed=7, games=40, nodes=50, max_plies=30, shard_games=10)
    generate(tmp_path, settings, point_buy_start, workers=1)
    counts = read_manifest(tmp_path)["counts"]
    assert counts["games"] == 40 and counts["shards"] == 4
    assert all(counts["armies"][kind] > 0 for kind in ARMIES), counts["armies"]
    assert counts["compass_games"] > 0
    data = load_shards(tmp_path)
    assert counts["positions"] == len(data["side"])
    assert sum(counts["armies"].values()) == 40
    assert set(data["cylindrical"][np.isin(data["game"], data["game_seed"][data["game_compass"] == 1])]) == {1}
    assert counts["ends"]["adjudicated: max plies"] > 0           # the 30-ply cap did adjudicate games


def test_point_buy_armies_keep_to_the_budget_and_their_types():
    catalog = default_catalog()
    fairy_types = set()
    for seed in range(12):
        for army in (1, 2):
            position = point_buy_start(ARMIES[army], seed, _game_rng(seed), budget=38)
            for colour in (0, 1):
                spent = sum(catalog.units[unit[0]].price for sq in range(64)
                            for unit in [position.core.unit_on(sq)] if unit and unit[1] == colour)
                spent += sum(catalog.units[t].price * n for t, n in enumerate(position.core.barracks_counts(colour)))
                tokens = {catalog.units[unit[0]].token for sq in range(64) for unit in [position.core.unit_on(sq)]
                          if unit and unit[1] == colour}
                tokens |= {catalog.units[t].token for t, n in enumerate(position.core.barracks_counts(colour)) if n}
                left = 38 - (spent - 8)         # the eight Pawns of the second rank come free (set-up)
                assert left >= 0
                # C19: picking went on while the budget bought something (any base type: an orthodox
                # army too is one the whole price list allows)
                assert not [u.token for u in catalog.base_types
                            if u.price <= left and position.core.stock_count(u.id) > 0], (seed, army, left)
                first = range(0, 8) if colour == 0 else range(56, 64)
                assert any(catalog.units[u[0]].is_sovereign for sq in first
                           for u in [position.core.unit_on(sq)] if u and u[1] == colour)
                if army == 1:
                    assert tokens <= set(ORTHODOX), tokens
                else:
                    fairy_types |= tokens - set(ORTHODOX)
    assert len(fairy_types) >= 5                # fairy armies do buy other types


# -- the evaluation the data is made with (issue 43: each generation's data made with its parent net) -------
@pytest.fixture(scope="module")
def made_with_net(tmp_path_factory):
    """The same two small games with the classical evaluation and with the shipped net."""
    root = tmp_path_factory.mktemp("nnue-data-eval")
    settings = dict(games=2, nodes=300, shard_games=2, max_plies=60)
    generate(root / "classical", Settings(**settings, evaluation="classical"), point_buy_start, workers=1)
    generate(root / "nnue", Settings(**settings, evaluation="nnue"), point_buy_start, workers=1)
    return root, settings


def test_data_made_with_the_net_has_its_scores_and_its_digest_in_the_manifest(made_with_net):
    root, _ = made_with_net
    shipped = load_net(default_net_path()).digest()
    classical, learned = read_manifest(root / "classical"), read_manifest(root / "nnue")
    assert (classical["settings"]["evaluation"], classical["settings"]["net"]) == ("classical", None)
    assert (learned["settings"]["evaluation"], learned["settings"]["net"]) == ("nnue", shipped)
    a, b = load_shards(root / "classical"), load_shards(root / "nnue")
    # The same seeds give the same armies and openings; the net's searches score (and play) otherwise.
    assert a["game_seed"].tolist() == b["game_seed"].tolist() and a["game_army"].tolist() == b["game_army"].tolist()
    n = min(len(a["score"]), len(b["score"]))
    assert n > 0 and a["score"][:n].tolist() != b["score"][:n].tolist()
    # A net file given by path is the same net (same digest): the data continues.
    state = generate(root / "nnue", Settings(**made_with_net[1], net=str(default_net_path())), point_buy_start)
    assert state.new_games == 0 and state.done


def test_data_of_another_net_or_evaluation_is_refused_naming_the_option(made_with_net, tmp_path):
    root, settings = made_with_net
    net = load_net(default_net_path())
    other = tmp_path / "other.nnue"
    save_net(Net(net.w1, net.b1, net.w2, net.b2 + 1, net.catalog, net.provenance, net.untrained), other)
    with pytest.raises(DataError, match=rf'net = "{net.digest()}", this run asks for "\w+" \(--net\)'):
        generate(root / "nnue", Settings(**settings, net=str(other)), point_buy_start)
    with pytest.raises(DataError, match=r'evaluation = "nnue", this run asks for "classical" \(--eval\)'):
        generate(root / "nnue", Settings(**settings, evaluation="classical"), point_buy_start)
    with pytest.raises(DataError, match=r'evaluation = "classical", this run asks for "nnue" \(--eval\)'):
        generate(root / "classical", Settings(**settings, evaluation="nnue"), point_buy_start)
    with pytest.raises(DataError, match=r"^--net: .*with --eval classical"):
        Settings(evaluation="classical", net=str(other))
    with pytest.raises(DataError, match=r"^--net: .*missing\.nnue: cannot read the net file"):
        Settings(net=str(tmp_path / "missing.nnue"))
    with pytest.raises(DataError, match=r"^--eval: expected one of classical, nnue"):
        Settings(evaluation="learned")
    cli = subprocess.run(FTC + ["nnue-data", "--out", str(tmp_path / "x"), "--eval", "classical", "--net", str(other)],
                         capture_output=True, text=True, env=child_env(), cwd=ROOT, timeout=60)
    assert cli.returncode == 2 and cli.stderr.startswith("ftc: error: --net:") and "Traceback" not in cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1


def test_a_manifest_without_the_evaluation_continues_as_classical(made_with_net, tmp_path):
    # Data made before the evaluation was a setting was made with the classical evaluation.
    root, settings = made_with_net
    copy = tmp_path / "old"
    copy.mkdir()
    for path in (root / "classical").iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    manifest = json.loads((copy / "manifest.json").read_text())
    del manifest["settings"]["evaluation"], manifest["settings"]["net"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert generate(copy, Settings(**settings, evaluation="classical"), point_buy_start).done
    with pytest.raises(DataError, match=r"\(--eval\)"):
        generate(copy, Settings(**settings, evaluation="nnue"), point_buy_start)
