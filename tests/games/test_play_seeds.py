"""engine.games.selfplay.play_seeds, the chunk of seeds every game's self-play runs as a unit of
engine.execution: each seed played once in order, a game that raises counted as an error with its
seed and message while the chunk goes on, and the records kept only when asked."""

from engine.games.selfplay import SelfPlayStats, play_seeds


def test_each_seed_is_played_once_in_order_and_a_failing_game_is_an_error_not_the_end():
    played = []

    def play(seed: int, stats: SelfPlayStats) -> None:
        played.append(seed)
        if seed == 12:
            raise KeyError("no such card")
        stats.results["won"] += 1

    stats = play_seeds(10, 5, False, play)
    assert played == [10, 11, 12, 13, 14]
    assert (stats.games, stats.errors, stats.results["won"]) == (5, 1, 4)
    assert stats.messages == ["seed 12: KeyError: 'no such card'"]
    assert stats.records is None


def test_records_are_kept_only_when_asked():
    def play(seed: int, stats: SelfPlayStats) -> None:
        stats.results["drawn"] += 1

    assert play_seeds(0, 2, True, play).records == []
    assert play_seeds(0, 2, False, play).records is None
