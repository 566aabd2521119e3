"""`ftc match|analyze --game crownfall --players N` (issue 27): A's seat rotates so it sits in every seat
equally, each set-up is played once per seat, shared victories count 1/k; the analysis report; bad
input is a located error, never a traceback."""

import json

import pytest

from engine.games.bots import RandomBot
from engine.interfaces.cli import main
from engine.search.match import MatchResult, play_match, share_of


class SeatRecorder(RandomBot):
    """Notes the seat and the set-up (Houses, the seed) of every game it plays."""

    games: list = []

    def reset(self):
        self.new_game = True

    def choose(self, state):
        if getattr(self, "new_game", False):
            self.games.append((state.current_player(), state.seed))
            self.new_game = False
        return super().choose(state)


class FirstSeatWins(RandomBot):
    """Ends every turn at once: the other players' choices decide the game."""

    def choose(self, state):
        legal = state.legal_actions()
        return 0 if 0 in legal else legal[0]


@pytest.mark.parametrize("players", [3, 4])
def test_a_sits_in_every_seat_equally_and_each_setup_is_played_in_every_seat(players):
    SeatRecorder.games = []
    # A decides first in its seat's first turn; ending the others' turns at once keeps the games short.
    result = play_match(lambda s: SeatRecorder(s), lambda s: FirstSeatWins(s), 2 * players, seed=10,
                        config={"variant": "crownfall", "players": players, "rounds": 1})
    seats = [seat for seat, _ in SeatRecorder.games]
    assert seats == list(range(players)) * 2 == result.seats
    setups = [seed for _, seed in SeatRecorder.games]
    assert setups == [10] * players + [11] * players
    assert [row["games"] for row in result.seat_scores()] == [2] * players
    assert result.players == players and result.games == 2 * players


def test_shares_follow_the_returns():
    assert share_of([1.0, -0.5, -0.5], 0) == 1.0 and share_of([1.0, -0.5, -0.5], 1) == 0.0
    assert share_of([0.25, 0.25, -0.5], 1) == 0.5                   # a victory shared by two of three
    assert share_of([0.0, 0.0, 0.0], 2) == pytest.approx(1 / 3)       # shared by all
    assert share_of([0.0, 0.0], 0) == 0.5                             # two players: a draw
    r = MatchResult("a", "b", players=3)
    for outcome, seat in ((1.0, 0), (0.5, 1), (0.0, 2)):
        r.add(outcome, 4, seat)
    assert r.score == pytest.approx(0.5) and (r.wins, r.draws, r.losses) == (1, 1, 1)
    assert r.summary() == "A wins 1, shares 1, losses 1, score 50.0% (fair share 33.3%)"


def test_match_cli_with_four_players(capsys):
    assert main(["match", "--game", "crownfall", "--players", "4", "--a", "expert", "--b", "random",
                 "--games", "4", "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["players"] == 4 and data["games"] == 4 and data["seats"] == [0, 1, 2, 3]
    assert [row["games"] for row in data["by_seat"]] == [1, 1, 1, 1] and "elo" not in data
    assert out.err.splitlines()[-1].startswith(f"A wins {data['wins']}, shares {data['draws']}, losses {data['losses']}")


@pytest.mark.parametrize("argv, message", [
    (["match", "--game", "crownfall", "--players", "5", "--a", "expert", "--b", "greedy"],
     "--players 5: Crownfall is played by 2-4 players"),
    (["match", "--game", "crownfall", "--a", "mcts:soon", "--b", "greedy"],
     "bot 'mcts:soon': 'soon' is not a budget"),
    (["match", "--game", "crownfall", "--a", "alphabeta", "--b", "greedy"], "unknown bot 'alphabeta' for crownfall"),
    (["analyze", "startpos", "--game", "crownfall", "--players", "1"],
     "--players 1: Crownfall is played by 2-4 players"),
    (["analyze", "{\"round\": ", "--game", "crownfall"], "position: not \"startpos\" and not JSON"),
    (["analyze", "{\"round\": 1}", "--game", "crownfall"], "position."),
    (["analyze", "startpos", "--game", "crownfall", "--depth", "3"], "--depth: not an option of Crownfall analysis"),
])
def test_bad_input_is_a_located_error(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_analyze_startpos_reports_the_root_statistics(capsys):
    assert main(["analyze", "startpos", "--game", "crownfall", "--players", "3", "--iterations", "120",
                 "--top", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["seat"] == "Blue" and report["iterations"] == 120 and len(report["players"]) == 3
    rows = report["actions"]
    assert len(rows) == 4 and rows[0]["text"] == report["best_text"]
    assert [r["visits"] for r in rows] == sorted((r["visits"] for r in rows), reverse=True)
    assert 0 < sum(r["share"] for r in rows) <= 1.0001 and all(-1 <= r["value"] <= 1 for r in rows)
    assert main(["analyze", "startpos", "--game", "crownfall", "--iterations", "50", "--top", "2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Blue: round 1, 3 action(s) left: best Blue: ") and "evaluation" in text


def test_analyze_a_record(tmp_path, capsys):
    from engine.games import registry

    s = registry.get("crownfall").start({"seed": 2, "players": 2})
    bot = RandomBot(1)
    for _ in range(7):
        s.apply(bot.choose(s))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(s.record()))
    assert main(["analyze", str(path), "--iterations", "60", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["player"] == s.current_player() and report["best"] in s.legal_actions()
    assert main(["analyze", str(path), "--at", "3", "--iterations", "40", "--json"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert report["at"]["decision"] == 3 and report["player"] == report["at"]["player"]
    assert main(["analyze", str(path), "--players", "3"]) == 2
    assert "--players: " in capsys.readouterr().err
