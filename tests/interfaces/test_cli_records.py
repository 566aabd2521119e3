"""Records from every command, for every game (issue 42): `ftc selfplay --records DIR` and `ftc match
--records DIR` write one JSON record per game of all four games, in the parent process whatever ran
the games (engine/games/recordfiles.py), and every record written replays to the game's end.

In process (``main``) for the runs; a child process for Ctrl-C. Every expected value comes from the
files themselves or from the command's own output (`--json` outcomes), never from a stored number."""

import json
import os
import signal
import subprocess
import time

import pytest

from engine.games import registry
from engine.games.recordfiles import MATCH_INDEX, RecordFolder, match_file, selfplay_file
from engine.games.selfplay import protocol_seeds
from engine.interfaces.cli import main
from engine.search.match import share_of
from tests.interfaces.test_cli_errors import _session_settled
from tests.support import FTC, ROOT, child_env, sigint_as_at_a_terminal

GAMES = ["crown", "kings-ransom", "crusade", "crownfall"]
#: The games whose records name their decisions (``Game.walk``): `ftc analyze FILE --at N` takes them.
WALKED = [name for name in GAMES if registry.get(name).walk is not None]


def _replayed(path):
    """(game, state) of a record file, through the registry as `ftc analyze FILE` opens it."""
    game, state, kind, _ = registry.open_file(json.loads(path.read_text(encoding="utf-8")))
    assert kind == "record"
    return game, state


def _selfplay(tmp_path, name, workers, capsys):
    folder = tmp_path / f"{name}-{workers}"
    argv = ["selfplay", "--game", name, "--games", "2", "--seed", "5", "--records", str(folder)]
    assert main(argv + ["--workers", str(workers)]) == 0
    assert "errors: 0, invariant violations: 0" in capsys.readouterr().out
    return folder


@pytest.mark.parametrize("name", GAMES)
def test_selfplay_writes_a_replayable_record_of_every_game_locally_and_on_two_workers(tmp_path, capsys, name):
    one, two = _selfplay(tmp_path, name, 1, capsys), _selfplay(tmp_path, name, 2, capsys)
    names = sorted(p.name for p in one.iterdir())
    assert names == [selfplay_file(5), selfplay_file(6)] == ["game-5.json", "game-6.json"]
    assert sorted(p.name for p in two.iterdir()) == names              # no temporary file left anywhere
    for file in names:
        assert (one / file).read_bytes() == (two / file).read_bytes()   # the same game wherever it ran
        game, state = _replayed(one / file)
        assert game.name == name and state.is_terminal()
        record = json.loads((one / file).read_text())
        assert registry.replay(record).record() == record               # the end state's record is the file


def _match(tmp_path, name, workers, capsys):
    folder = tmp_path / f"match-{name}-{workers}"
    argv = ["match", "--game", name, "--a", "greedy", "--b", "random", "--games", "2", "--seed", "3", "--json",
            "--records", str(folder), "--workers", str(workers)]
    if name == "crown":
        argv += ["--max-turns", "40"]
    assert main(argv) == 0
    return folder, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", GAMES)
def test_match_writes_a_replayable_record_of_every_game_and_who_sat_where(tmp_path, capsys, name):
    one, report = _match(tmp_path, name, 1, capsys)
    two, report_two = _match(tmp_path, name, 2, capsys)
    assert report_two["outcomes"] == report["outcomes"]
    index = [json.loads(line) for line in (one / MATCH_INDEX).read_text().splitlines()]
    assert sorted(p.name for p in one.iterdir()) == sorted([MATCH_INDEX, match_file(0), match_file(1)])
    assert sorted(p.name for p in two.iterdir()) == sorted(p.name for p in one.iterdir())
    assert [entry["game"] for entry in index] == [0, 1]                  # in game order, whoever finished first
    assert (two / MATCH_INDEX).read_bytes() == (one / MATCH_INDEX).read_bytes()
    for entry in index:
        _, state = _replayed(one / entry["file"])
        assert state.is_terminal() and state.returns() == entry["returns"]
        assert entry["seats"][entry["a_seat"]] == "greedy" and entry["seats"][1 - entry["a_seat"]] == "random"
        assert entry["a_seat"] == entry["game"] % 2                     # A's seat alternates (engine/search/match.py)
        assert share_of(entry["returns"], entry["a_seat"]) == report["outcomes"][entry["game"]] == entry["a_score"]
        assert (two / entry["file"]).read_bytes() == (one / entry["file"]).read_bytes()


def test_a_match_of_three_players_names_every_seat(tmp_path, capsys):
    folder = tmp_path / "three"
    assert main(["match", "--game", "crownfall", "--players", "3", "--a", "greedy", "--b", "random", "--games", "3",
                 "--records", str(folder), "--json"]) == 0
    outcomes = json.loads(capsys.readouterr().out.splitlines()[0])["outcomes"]
    index = sorted((json.loads(line) for line in (folder / MATCH_INDEX).read_text().splitlines()),
                   key=lambda entry: entry["game"])
    assert [entry["a_seat"] for entry in index] == [0, 1, 2]
    for entry in index:
        assert entry["seats"] == ["random"] * entry["a_seat"] + ["greedy"] + ["random"] * (2 - entry["a_seat"])
        _, state = _replayed(folder / entry["file"])
        assert state.num_players == 3 and state.returns() == entry["returns"]
        assert share_of(entry["returns"], entry["a_seat"]) == outcomes[entry["game"]]


@pytest.mark.parametrize("name", WALKED)
def test_ftc_analyze_reads_a_written_record_at_a_decision(tmp_path, capsys, name):
    folder = _selfplay(tmp_path, name, 1, capsys)
    record = folder / selfplay_file(5)
    assert main(["analyze", str(record)]) == 0                           # its end: the game is over
    assert capsys.readouterr().out.startswith("the game is over")
    assert main(["analyze", "--game", name, str(record), "--at", "1", "--iterations", "20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["at"]["decision"] == 1


def test_a_worker_returns_its_records_and_writes_nothing(tmp_path, monkeypatch):
    """The unit a worker runs keeps the records in the statistics it returns; the parent writes them."""
    monkeypatch.chdir(tmp_path)
    stats = protocol_seeds(4, 2, "crusade", False, True)
    assert [seed for seed, _ in stats.records] == [4, 5]
    assert all(registry.replay(record).is_terminal() for _, record in stats.records)
    assert list(tmp_path.iterdir()) == []
    assert protocol_seeds(4, 1, "crusade", False, False).records is None


def test_the_record_folder_writes_whole_files_and_replaces_a_file_of_the_same_name(tmp_path):
    folder = RecordFolder(tmp_path / "made" / "here")                    # made, with its parents (the Python API)
    folder.write("game-1.json", {"steps": [1]})
    folder.write("game-1.json", {"steps": [2]})                          # For the Crown's rule: the same name is replaced
    assert [p.name for p in (tmp_path / "made" / "here").iterdir()] == ["game-1.json"]
    assert json.loads((tmp_path / "made" / "here" / "game-1.json").read_text()) == {"steps": [2]}

    class Unwritable:                                                     # json.dumps fails halfway: nothing is left
        pass
    with pytest.raises(TypeError):
        folder.write("game-2.json", {"steps": Unwritable()})
    assert [p.name for p in (tmp_path / "made" / "here").iterdir()] == ["game-1.json"]


@pytest.mark.parametrize("command", [
    ["selfplay", "--game", "crusade", "--games", "1"],
    ["match", "--game", "kings-ransom", "--a", "random", "--b", "random", "--games", "1"],
])
def test_records_into_a_file_or_a_place_that_cannot_be_made_is_one_line_before_any_game(tmp_path, capsys, command):
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    assert main(command + ["--records", str(afile)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"ftc: error: --records {afile}: it is a file, not a folder\n"
    assert afile.read_text() == "mine\n"
    assert main(command + ["--records", "/proc/x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ftc: error: --records /proc/x: cannot make the folder") and err.count("\n") == 1
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.access(locked, os.W_OK):                                       # root writes anywhere: nothing to refuse
        return
    assert main(command + ["--records", str(locked)]) == 2
    assert capsys.readouterr().err == f"ftc: error: --records {locked}: the folder is not writable\n"


@pytest.mark.parametrize("command", [
    ["selfplay", "--game", "crusade", "--games", "100000"],
    ["match", "--game", "crownfall", "--a", "random", "--b", "random", "--games", "100000", "--workers", "2"],
], ids=["selfplay", "match-workers-2"])
def test_ctrl_c_keeps_the_records_of_the_finished_games(tmp_path, command):
    folder = tmp_path / "records"
    child = subprocess.Popen(FTC + command + ["--records", str(folder)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=child_env(), cwd=ROOT, start_new_session=True,
                             preexec_fn=sigint_as_at_a_terminal)
    try:
        while child.poll() is None and len([p for p in folder.glob("*.json")]) < 2:  # two games finished
            time.sleep(0.05)
        assert child.poll() is None
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == 130, err
    assert b"ftc: interrupted" in err and b"Traceback" not in err
    written = sorted(folder.iterdir())
    assert len([p for p in written if p.suffix == ".json"]) >= 2
    assert all(p.suffix == ".json" or p.name == MATCH_INDEX for p in written), written   # no half-written file
    for path in written:
        if path.suffix == ".json":
            assert _replayed(path)[1].is_terminal()
    if command[0] == "match":
        files = {json.loads(line)["file"] for line in (folder / MATCH_INDEX).read_text().splitlines()}
        assert files == {p.name for p in written if p.suffix == ".json"}
    assert _session_settled(child.pid) == [], "worker processes left behind"
