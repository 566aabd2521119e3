"""Game records (JSON): replay to the identical state; corrupt records are rejected clearly."""

import json
import random

import pytest

from engine.crown.config import GameConfig
from engine.crown.record import RecordError, fingerprint, make_record, save
from engine.crown.state import GameState, load, replay


def played(seed=5, variant="standard", steps=10_000):
    rng = random.Random(seed)
    g = GameState(GameConfig(seed=seed, variant=variant))
    for _ in range(steps):
        if g.is_terminal():
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


@pytest.mark.parametrize("variant", ["standard", "point-buy", "last-stand"])
def test_record_replays_to_the_identical_state(variant):
    g = played(variant=variant)
    assert fingerprint(replay(make_record(g))) == fingerprint(g)


def test_save_and_load_a_game_in_progress(tmp_path):
    g = played(steps=120)
    path = tmp_path / "game.json"
    save(g, path)
    loaded = load(path)
    assert fingerprint(loaded) == fingerprint(g)
    # The loaded game goes on exactly like the original.
    rng1, rng2 = random.Random(9), random.Random(9)
    a, b = g.clone(), loaded
    for _ in range(50):
        if a.is_terminal():
            break
        action = rng1.choice(a.legal_actions())
        assert action == rng2.choice(b.legal_actions())
        a.apply(action)
        b.apply(action)
    assert not (tmp_path / "game.json.tmp").exists()


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: r.update(format="chess-pgn"), "field 'format'"),
        (lambda r: r.update(version=99), "unsupported version \\(this engine reads 1\\)"),
        (lambda r: r["config"].update(variant="blitz"), "field 'config': option 'variant'"),
        (lambda r: r.update(steps="all of them"), "field 'steps'"),
        (lambda r: r["steps"].__setitem__(20, [0, "e2e4"]), "step 20 must be [player, action]"),
        (lambda r: r["steps"].__setitem__(r["steps"].index(next(s for s in r["steps"] if s[0] >= 0)), [0, 123456789]), "is not legal now"),
        (lambda r: r["steps"].__setitem__(0, [0, 1]), "step 0: recorded for player 0, but chance is to act"),
        (lambda r: r.update(fingerprint="0" * 64), "does not match the recorded fingerprint"),
    ],
)
def test_corrupt_records_are_rejected_with_the_reason(mutate, message):
    record = make_record(played(steps=60))
    mutate(record)
    with pytest.raises(RecordError, match=message.replace("[", r"\[").replace("]", r"\]")):
        replay(record)


def test_a_truncated_or_oversized_file_is_rejected(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(make_record(played(steps=30)))[:-20])
    with pytest.raises(RecordError, match="not a JSON record"):
        load(path)
    from engine.crown import record as module

    big = tmp_path / "big.json"
    big.write_bytes(b" " * (module.MAX_RECORD_BYTES + 1))
    with pytest.raises(RecordError, match="bytes is more than"):
        load(big)
