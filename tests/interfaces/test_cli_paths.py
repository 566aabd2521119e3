"""Arguments that name paths (issue 39): one helper tells a command-line argument apart as a file, a
folder or text (engine/interfaces/cli.py ``_path_kind``), and the output folders and files are
checked, and a folder made, before any work is done (``_output_folder``, ``_output_file``); the
search depth the CLI takes is the search's own limit. In process (``main``), with the error line
checked whole where it is short."""

import json

import pytest

from engine.board.alphabeta import MAX_DEPTH
from engine.interfaces import cli
from engine.interfaces.cli import main


@pytest.mark.parametrize("text, kind", [
    ("x" * 5000, None),                  # longer than a file name may be (ENAMETOOLONG)
    ("a\0b", None),                      # no path holds a NUL (os.stat raises ValueError)
    ("startpos", None),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", None),
    ("/dev/null", "other"),
])
def test_an_argument_is_a_file_a_folder_or_text_and_asking_never_raises(text, kind):
    assert cli._path_kind(text) == kind


def test_a_file_below_a_file_is_no_path(tmp_path):
    (tmp_path / "f").write_text("x")
    assert cli._path_kind(str(tmp_path / "f")) == "file"
    assert cli._path_kind(str(tmp_path)) == "folder"
    assert cli._path_kind(str(tmp_path / "f" / "g")) is None             # ENOTDIR


def test_analyze_of_a_folder_says_it_is_a_folder(tmp_path, capsys):
    assert main(["analyze", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"ftc: error: {tmp_path}: it is a folder, not a game file or a position "
                                       "text\n")


def test_a_long_position_text_is_text_not_a_file_name(capsys):
    assert main(["analyze", "x" * 5000]) == 2
    assert capsys.readouterr().err == "ftc: error: position text is 5000 characters long; at most 4096 are accepted\n"
    assert main(["analyze", "y" * 300 + ".json"]) == 2                  # a long name is shortened in the message
    err = capsys.readouterr().err
    assert err == f"ftc: error: {'y' * 60}... (305 characters): no such game record or position view file\n"


def test_selfplay_into_an_existing_file_is_refused_before_any_game(tmp_path, capsys):
    records = tmp_path / "afile"
    records.write_text("mine\n")
    assert main(["selfplay", "--games", "1", "--records", str(records)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""                                            # no game ran, nothing counted
    assert captured.err == f"ftc: error: --records {records}: it is a file, not a folder\n"
    assert records.read_text() == "mine\n"


def test_selfplay_makes_its_records_folder_and_fills_it(tmp_path, capsys):
    records = tmp_path / "games"
    assert main(["selfplay", "--games", "1", "--seed", "3", "--records", str(records)]) == 0
    assert "errors: 0" in capsys.readouterr().out
    assert json.loads((records / "game-3.json").read_text())["steps"]


def test_a_records_folder_in_a_missing_folder_is_refused(tmp_path, capsys):
    records = tmp_path / "missing" / "games"
    assert main(["selfplay", "--games", "1", "--records", str(records)]) == 2
    assert capsys.readouterr().err == f"ftc: error: --records {records}: the folder {records.parent} does not exist\n"
    assert not records.parent.exists()


@pytest.mark.parametrize("argv", [
    ["nnue-data", "--games", "1", "--out", "/proc/x"],
    ["balance", "--games", "1", "--out", "/proc/x"],
    ["selfplay", "--games", "1", "--records", "/proc/x"],
])
def test_a_folder_the_system_will_not_make_is_one_error_before_any_game(argv, capsys):
    """/proc takes no new folder (mkdir fails with ENOENT, even for root): the option is named with
    the system's reason, exit 2, nothing on stdout."""
    option = argv[-2]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"ftc: error: {option} /proc/x: cannot make the folder /proc/x "
                            "(No such file or directory)\n")


def test_a_plot_into_a_folder_is_refused_before_the_games(tmp_path, capsys):
    assert main(["match", "--a", "random", "--b", "random", "--games", "1", "--plot", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"ftc: error: --plot {tmp_path}: it is a folder, not a file\n"


def test_the_cli_depth_limit_is_the_searchs(capsys):
    """--depth takes 1..MAX_DEPTH (engine/board/alphabeta.py) and no more: the deepest the CLI
    accepts, the search accepts too (here bounded by time), and one more is the CLI's own error."""
    assert main(["analyze", "startpos", "--depth", str(MAX_DEPTH), "--time", "0.2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lines"]
    with pytest.raises(SystemExit) as exit_:
        main(["analyze", "startpos", "--depth", str(MAX_DEPTH + 1)])
    assert exit_.value.code == 2
    assert (f"ftc: error: analyze: argument --depth: expected an integer 1..{MAX_DEPTH}, got {MAX_DEPTH + 1}"
            in capsys.readouterr().err)


def test_a_file_the_system_will_not_read_is_one_line_naming_it(tmp_path, monkeypatch, capsys):
    """What the checks cannot foresee (a file unreadable for this user: root reads every file, so
    the refusal is simulated where the record is read) is one line with the file and the system's
    reason, exit 1, never a traceback."""
    game = tmp_path / "game.json"
    game.write_text("{}")

    def refuse(path, what):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cli, "read_game_file", refuse)
    assert main(["analyze", str(game)]) == 1
    assert capsys.readouterr().err == f"ftc: error: {game}: Permission denied\n"


@pytest.mark.parametrize("argv, error", [
    (["analyze", "/dev/null"], "/dev/null: not a regular file (a game record or position view is a JSON file)"),
    (["selfplay", "--games", "1", "--records", "/dev/null"],
     "--records /dev/null: it is not a folder (a device, a pipe or a socket)"),
])
def test_a_device_is_neither_a_game_file_nor_a_folder(argv, error, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"ftc: error: {error}\n"
