"""Where the engine introduces itself it names all four games, each with its `--game` name, taken
from the registry in one place (issue 39: `ftc --help` said "For the Crown engine", every --game
help listed crown and kings-ransom only, the package description named For the Crown alone, the
README's opening presented two games, docs/crownfall.md sent 3 and 4 players to Python)."""

import dataclasses
import re
import tomllib

import pytest

from engine.games import registry
from engine.interfaces import cli
from tests.support import ROOT


def _words(text: str) -> str:
    return " ".join(text.split())


def _game_options(parser):
    """(command, --game action) of every subcommand that has the option."""
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():
        for action in command._actions:
            if "--game" in action.option_strings:
                yield name, action


def test_ftc_help_names_every_game_with_its_game_name():
    text = _words(cli.build_parser().format_help())
    assert "For the Crown engine" not in text
    for game in registry.games():
        assert f"{game.title} ({game.name}" in text, game.name


def test_every_game_option_lists_the_registered_games():
    options = list(_game_options(cli.build_parser()))
    assert {name for name, _ in options} >= {"perft", "selfplay", "match", "analyze", "balance"}
    for command, action in options:
        for game in registry.games():
            assert game.name in action.help, (command, game.name)


def test_a_game_registered_later_is_in_the_help_too():
    """The lists are the registry's, read when the parser is built: nothing to edit for a new game."""
    crown = registry.get("crown")
    plain = dataclasses.replace(crown.cli, add_commands=None, add_options=None)     # For the Crown's own are taken
    registry.register(registry.Game(**{**crown.__dict__, "name": "toy-help", "title": "Toy Help", "variants": (),
                                       "cli": plain}))
    try:
        parser = cli.build_parser()
        assert "Toy Help (toy-help)" in _words(parser.format_help())
        assert all("toy-help" in action.help for _, action in _game_options(parser))
    finally:
        registry.unregister("toy-help")


def test_a_game_s_own_commands_come_from_its_entry_and_a_clash_is_named():
    """`ftc cards` and `ftc puzzles` are For the Crown's own commands, added by its entry
    (CliPieces.add_commands), as `ftc balance --price-turn` (add_options); a game whose own command
    or option is there already is refused when the parser is built, naming the game."""
    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices
    assert {"cards", "puzzles"} <= set(commands)
    assert "--price-turn" in commands["balance"].format_help()
    crown = registry.get("crown")
    for clash, words in ((dataclasses.replace(crown.cli, add_options=None), "commands"),
                         (dataclasses.replace(crown.cli, add_commands=None), "options of `ftc balance`")):
        registry.register(registry.Game(**{**crown.__dict__, "name": "toy-clash", "title": "Toy Clash",
                                           "variants": (), "cli": clash}))
        try:
            with pytest.raises(ValueError, match=rf"^Toy Clash \(toy-clash\): its own {re.escape(words)} clash"):
                cli.build_parser()
        finally:
            registry.unregister("toy-clash")


def test_the_package_description_names_every_game():
    description = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["description"]
    for game in registry.games():
        assert f"{game.title} ({game.name})" in description, game.name


def test_the_readme_opening_presents_every_game_with_its_game_name():
    """The prose before the first section (the games come before the two set-up commands)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    opening = _words(text[:text.index("\n## ")])
    for game in registry.games():
        assert f"{game.title}" in opening and f"`--game {game.name}`" in opening, game.name
    assert "a second game on the same engine" not in opening


def test_the_readme_says_what_the_test_run_needs_before_it_runs():
    """Chromium is a numbered step before the test command's run (the browser tests skip without it,
    and the run says so), right after the two commands, which stay as they are."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.search(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M).group(1).splitlines()
    assert commands == ["pip install -e '.[server]' && ftc serve", "pip install -e '.[test]' && pytest -n 2"]
    opening = text[:text.index("\n## ")]
    steps = re.findall(r"^(\d)\. (.*)$", opening, re.M)
    assert [n for n, _ in steps] == [str(i) for i in range(1, len(steps) + 1)] and len(steps) >= 2
    chromium = next(i for i, (_, line) in enumerate(steps) if "chromium" in line.lower())
    tests = next(i for i, (_, line) in enumerate(steps) if "pytest -n 2" in line)
    assert chromium < tests


def test_crownfall_doc_says_the_command_line_plays_every_player_count():
    text = _words((ROOT / "docs" / "crownfall.md").read_text(encoding="utf-8"))
    assert "3 and 4 players: `engine.crownfall.selfplay" not in text                  # the Python-only claim
    assert "`ftc selfplay --game crownfall --players N` plays seeded random games of N players" in text
    assert "ftc selfplay --game crownfall --players 4" in text


@pytest.mark.parametrize("players", [3, 4])
def test_crownfall_selfplay_of_three_and_four_players_runs_from_the_command_line(players, capsys):
    assert cli.main(["selfplay", "--game", "crownfall", "--players", str(players), "--games", "2", "--seed", "1",
                     "--workers", "1", "--cluster", "local"]) == 0
    assert "games: 2," in capsys.readouterr().out
