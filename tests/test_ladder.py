"""tools/ladder.py: frozen versions of For the Crown's AI in their own processes, rungs of pairs, the
SPRT gate, the ladder file and its page; tools/checkouts.py: the cached checkouts.

A real subprocess of this checkout stands for a frozen version (cheap: no build), with tiny budgets;
fake engines in temporary folders stand for a version that dies, stalls or answers nonsense."""
from __future__ import annotations

import json
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from engine.games import registry
from engine.search.match import play_seats, run_match
from engine.search.sprt import SPRT
from tools import checkouts, ladder

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def frozen_self():
    """A frozen-version process of this very checkout."""
    with ladder.FrozenProcess(ROOT, "this checkout", timeout=120) as process:
        yield process


def _same_game(spec: str, frozen_seat: int, process, max_turns: int) -> tuple[dict, dict]:
    """One game played twice from seed 3: with the player of ``frozen_seat`` in the subprocess and with
    both players in this process (same specs and seeds); their records."""
    game = registry.get("crown")
    config = {"seed": 3, "max_turns": max_turns}
    records = []
    for frozen in (True, False):
        bots = [game.bots.make_bot(spec, 11), game.bots.make_bot(spec, 12)]
        if frozen:
            bots[frozen_seat] = ladder.FrozenBot(process, spec, 11 + frozen_seat)
        records.append(play_seats(config, bots).record())
    return records[0], records[1]


@pytest.mark.parametrize("seat", [0, 1])
def test_a_frozen_greedy_player_plays_the_game_it_plays_in_process(frozen_self, seat):
    via, here = _same_game("greedy", seat, frozen_self, max_turns=30)
    assert via["steps"] == here["steps"]
    assert len(via["steps"]) > 60


def test_the_frozen_full_game_ai_chooses_what_it_chooses_in_process(frozen_self):
    """The full-game AI (its guide and tree included) is seeded: the subprocess, fed the record step by
    step, makes every decision the in-process bot makes."""
    via, here = _same_game("ismcts:4", 1, frozen_self, max_turns=6)
    assert via["steps"] == here["steps"]


def test_the_record_sent_leaves_out_the_future_draws():
    state = registry.new_state("crown", {"seed": 5})
    sent = ladder.sent_record(state)
    assert "rng" in state.record() and "rng" not in sent and "result" not in sent
    assert sent["steps"] == state.record()["steps"] and sent["config"] == state.record()["config"]


def test_a_rung_against_this_checkout_is_the_match_played_in_process():
    """Pair k: games 2k and 2k + 1 from set-up seed seed + k, seats swapped, bots seeded as ftc match
    seeds them: the rung's games are run_match's."""
    config = {"max_turns": 25}
    rung = ladder.run_rung(ROOT, "this checkout", "greedy", "random", 2, seed=4, config=config)
    match = run_match("greedy", "random", 4, seed=4, config=config, workers=1)
    assert rung.outcomes == match.outcomes and rung.turns == match.turns
    assert rung.games == 4 and rung.seats == [0, 1, 0, 1]


# -- errors -------------------------------------------------------------------------------------------
def _fake_engine(tmp_path: Path, choose: str) -> Path:
    """A checkout whose engine loads and makes a bot, and whose bot's choose runs ``choose``."""
    crown = tmp_path / "engine" / "crown"
    crown.mkdir(parents=True)
    (tmp_path / "engine" / "__init__.py").write_text("__version__ = 'fake'\n")
    (crown / "__init__.py").write_text("")
    (crown / "actions.py").write_text("RESIGN = -1\n")
    (crown / "record.py").write_text("def fingerprint(state):\n    return 'x'\n")
    (crown / "state.py").write_text(textwrap.dedent("""\
        class AnySeat(int):
            def __ne__(self, other):
                return False
        class State:
            def is_terminal(self):
                return False
            def current_player(self):      # whichever seat it is asked for
                return AnySeat(0)
        def replay(record):
            return State()
        """))
    (crown / "players.py").write_text(textwrap.dedent(f"""\
        import os, time
        class Bot:
            def choose(self, state):
                {choose}
        def make_bot(spec, seed):
            return Bot()
        """))
    return tmp_path


@pytest.mark.parametrize("choose, expected", [
    ("os._exit(5)", "its process ended (exit 5) before answering a decision of turn 0"),
    ("time.sleep(60)", "no answer to a decision of turn 0 within 1 s (the process was stopped)"),
    ("return 10 ** 9", "its action 1000000000 at turn 0 is not legal here"),
    ("raise RuntimeError('broken search')", "a decision of turn 0 refused: RuntimeError: broken search"),
    ("print('thinking'); return 10 ** 9", "its action 1000000000 at turn 0 is not legal here"),
])
def test_a_frozen_version_that_dies_stalls_or_errs_stops_with_one_line(tmp_path, choose, expected):
    checkout = _fake_engine(tmp_path, choose)
    state = registry.new_state("crown", {"seed": 1})
    with ladder.FrozenProcess(checkout, "version fake", timeout=1) as process:
        assert process.engine == "fake"
        bot = ladder.FrozenBot(process, "ismcts:5", 0)
        with pytest.raises(ladder.LadderError) as caught:
            bot.choose(state)
    message = str(caught.value)
    assert message.startswith("version fake: ") and expected in message and "\n" not in message


def test_a_version_whose_engine_does_not_load_is_named(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text("raise ImportError('no kernels built')\n")
    with pytest.raises(ladder.LadderError, match="^version broken: its start refused: cannot load its engine: "
                                                 "ImportError: no kernels built$"):
        ladder.FrozenProcess(tmp_path, "version broken", timeout=5)


def test_a_version_lacking_a_module_does_not_borrow_it_from_an_installed_engine(tmp_path):
    """An editable install maps engine.* to its own folder: a version without engine/crown/ must not
    get this checkout's (or the installed one's) For the Crown."""
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text("__version__ = 'bare'\n")
    with pytest.raises(ladder.LadderError, match="^version bare: its start refused: cannot load its engine: "
                                                 "ModuleNotFoundError: No module named 'engine.search'$"):
        ladder.FrozenProcess(tmp_path, "version bare", timeout=30)


def test_a_pair_that_fails_names_the_pair_and_the_version(tmp_path):
    checkout = _fake_engine(tmp_path, "os._exit(7)")
    with pytest.raises(ladder.LadderError, match=r"^pair 1: version dead: its process ended \(exit 7\)"):
        ladder.run_rung(checkout, "version dead", "greedy", "greedy", 1, timeout=30)


def test_a_bad_commit_is_one_line_and_exit_2(tmp_path, capsys):
    code = ladder.main(["play", "no-such-commit", "--cache", str(tmp_path / "cache"),
                        "--ladder", str(tmp_path / "ladder.json"), "--docs", str(tmp_path / "ladder.md")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"ladder: COMMIT 'no-such-commit' is not a commit of this repository ({checkouts.ROOT})\n"
    assert not (tmp_path / "cache").exists() and not (tmp_path / "ladder.json").exists()


def test_a_bad_spec_is_one_line_before_any_checkout(tmp_path, capsys):
    code = ladder.main(["play", "HEAD", "--spec", "nonsense:3", "--cache", str(tmp_path / "cache"),
                        "--ladder", str(tmp_path / "ladder.json")])
    assert code == 2 and capsys.readouterr().err.startswith("ladder: --spec: unknown bot 'nonsense:3'; known: ")
    assert not (tmp_path / "cache").exists()


def test_the_frozen_version_judges_its_own_spec(frozen_self):
    with pytest.raises(ladder.LadderError, match="^this checkout: bot nonsense:3 refused: ValueError: unknown bot"):
        ladder.FrozenBot(frozen_self, "nonsense:3", 0)


def test_an_unreadable_ladder_file_stops_before_any_game(tmp_path, capsys):
    bad = tmp_path / "ladder.json"
    bad.write_text('{"format": "something else"}')
    code = ladder.main(["play", "HEAD", "--cache", str(tmp_path / "cache"), "--ladder", str(bad)])
    assert code == 2
    assert capsys.readouterr().err == f"ladder: {bad}: not a ladder file (format ftc-ladder)\n"


def test_the_ai_of_this_checkout_must_come_from_this_checkout(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(ladder, "ROOT", tmp_path)
    assert ladder.main(["play", "HEAD", "--cache", str(tmp_path / "cache"), "--ladder", str(tmp_path / "l.json")]) == 2
    assert capsys.readouterr().err.startswith(f"ladder: this checkout's AI would come from {ROOT / 'engine'}")


# -- the cached checkouts -----------------------------------------------------------------------------
def _clean_ext() -> bool:
    return subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "ext", "setup.py"], cwd=ROOT).returncode == 0


@pytest.mark.skipif(not _clean_ext(), reason="ext/ or setup.py differ from HEAD: HEAD would be built (minutes)")
def test_a_cached_checkout_reuses_a_build_of_the_same_ext_and_runs_its_own_engine(tmp_path):
    said: list[str] = []
    commit, folder = checkouts.cached_checkout("HEAD", tmp_path, ROOT, said.append)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert commit == head and folder == tmp_path / head
    assert any("reusing that build" in line for line in said) and not any("building" in line for line in said)
    assert (folder / checkouts.STAMP).read_text().strip() == checkouts.build_key(head)
    assert sorted(p.name for p in folder.glob("engine/*.so")) == sorted(p.name for p in ROOT.glob("engine/*.so"))
    said.clear()
    assert checkouts.cached_checkout(head[:10], tmp_path, ROOT, said.append) == (commit, folder)
    assert said == []                                     # found in the cache: nothing made again
    with ladder.FrozenProcess(folder, "HEAD", timeout=60) as process:
        assert process.engine is not None                 # its engine loaded from the cached folder


def test_a_half_made_checkout_is_made_again(tmp_path):
    head = checkouts.resolve_commit("HEAD")
    (tmp_path / head / "engine").mkdir(parents=True)      # no stamp: stopped while it was made
    if not _clean_ext():
        pytest.skip("ext/ or setup.py differ from HEAD: HEAD would be built (minutes)")
    _, folder = checkouts.cached_checkout("HEAD", tmp_path, ROOT)
    assert (folder / "setup.py").exists() and (folder / checkouts.STAMP).exists()


# -- the SPRT gate on a scripted stream of pairs ------------------------------------------------------
SCRIPT: list[tuple[float, float]] = []


def scripted_pair(checkout, label, spec, opponent_spec, seed, pair, opening, config, timeout):
    """A pair's two scores from SCRIPT instead of games (turns: the pair's number)."""
    first, second = SCRIPT[pair]
    return [(first, pair), (second, pair)]


def slow_first_pair(checkout, label, spec, opponent_spec, seed, pair, opening, config, timeout):
    """The pair's scores from the script in ``config`` (workers are other processes), the first pair
    finishing last (two workers then report the pairs out of order)."""
    if pair == 0:
        time.sleep(1.0)
    first, second = config["script"][pair]
    return [(first, pair), (second, pair)]


def test_pairs_finishing_out_of_order_are_counted_in_pair_order():
    script = [(1.0, 0.0), (0.5, 1.0), (0.0, 0.0), (1.0, 1.0)]
    sprt = SPRT(0, 50, max_games=8)
    result = ladder.run_rung(ROOT, "scripted", "greedy", "greedy", 4, config={"script": script}, sprt=sprt,
                             play=slow_first_pair, workers=2)
    assert result.outcomes == [1.0, 0.0, 0.5, 1.0, 0.0, 0.0, 1.0, 1.0]
    assert result.turns == [0, 0, 1, 1, 2, 2, 3, 3] and sprt.pentanomial == [1, 0, 1, 1, 1]


def _stream(wins: int, draws: int, losses: int, repeat: int) -> list[tuple[float, float]]:
    pattern = [(1.0, 1.0)] * wins + [(0.5, 0.5)] * draws + [(0.0, 0.0)] * losses
    return pattern * repeat


def _decided_after(stream, elo0, elo1) -> tuple[str, int]:
    test = SPRT(elo0, elo1, max_games=2 * len(stream))
    for first, second in stream:
        if test.add_pair(first, second) != "continue":
            break
    return test.status(), test.pairs


@pytest.mark.parametrize("stream, passes", [
    (_stream(3, 1, 1, 40), True),      # 70%: the candidate is stronger
    (_stream(1, 1, 3, 40), False),     # 30%: weaker
])
def test_the_gate_counts_the_scripted_pairs_in_order_and_stops_when_the_test_decides(stream, passes):
    SCRIPT[:] = stream
    sprt = SPRT(0, 50, max_games=2 * len(stream))
    result = ladder.run_rung(ROOT, "scripted", "greedy", "greedy", len(stream), sprt=sprt, play=scripted_pair)
    decision, pairs = _decided_after(stream, 0, 50)
    assert sprt.status() == decision and sprt.pairs == pairs < len(stream)
    assert result.games == 2 * pairs and result.turns == [k for k in range(pairs) for _ in (0, 1)]
    assert result.outcomes == [score for pair in stream[:pairs] for score in pair]
    assert ladder.gate_passed(sprt) is passes


def test_an_undecided_gate_fails():
    SCRIPT[:] = _stream(1, 0, 1, 3)
    sprt = SPRT(0, 5, max_games=12)
    ladder.run_rung(ROOT, "scripted", "greedy", "greedy", 6, sprt=sprt, play=scripted_pair)
    assert sprt.status() == "undecided" and not ladder.gate_passed(sprt)


@pytest.mark.parametrize("stream, code, verdict", [
    (_stream(3, 1, 1, 40), 0, "gate: PASS (H1 accepted)"),
    (_stream(1, 1, 3, 40), 1, "gate: FAIL (H0 accepted)"),
])
def test_the_gate_command_exits_0_on_a_pass_and_1_on_a_fail(monkeypatch, tmp_path, capsys, stream, code, verdict):
    SCRIPT[:] = stream
    head = checkouts.resolve_commit("HEAD")
    monkeypatch.setattr(ladder, "play_pair", scripted_pair)
    monkeypatch.setattr(ladder, "cached_checkout", lambda revision, *args, **kw: (head, ROOT))
    out_file, page = tmp_path / "ladder.json", tmp_path / "ladder.md"
    assert ladder.main(["gate", "--base", "HEAD", "--spec", "greedy", "--sprt", "0,50", "--pairs", str(len(stream)),
                        "--record", "--note", "scripted", "--ladder", str(out_file), "--docs", str(page)]) == code
    assert capsys.readouterr().out.splitlines()[-1] == verdict
    rung = json.loads(out_file.read_text())["rungs"][0]
    assert rung["kind"] == "gate" and rung["opponent"]["commit"] == head and rung["note"] == "scripted"
    assert rung["sprt"]["decision"] == verdict.split("(")[1].rstrip(")")
    pairs = _decided_after(stream, 0, 50)[1]
    assert rung["games"] == rung["sprt"]["games"] == 2 * pairs
    assert rung["outcomes"] == [score for pair in stream[:pairs] for score in pair]
    assert rung["turns"] == [k for k in range(pairs) for _ in (0, 1)]


# -- the ladder file, its page and its plot -----------------------------------------------------------
def _rung(index, commit, date, elo, low, high, kind="ladder", sprt=None):
    return {"index": index, "kind": kind, "date": "2026-12-05T01:00:00Z",
            "current": {"commit": "c" * 40, "dirty": index == 2},
            "opponent": {"commit": commit * 40, "date": date, "subject": "s"}, "spec": "ismcts:50",
            "opponent_spec": "ismcts:50" if index == 1 else "ismcts:100", "seed": 0, "opening": 0, "games": 8,
            "pairs": 4, "wdl": [5, 1, 2], "score": 0.6875, "elo": elo, "elo_ci95": [low, high], "sprt": sprt,
            "seconds": 1.0}


LADDER = {"format": "ftc-ladder", "version": 1, "rungs": [
    _rung(1, "b", "2026-12-04T20:00:00+00:00", 136.6, -90.2, 400.3),
    _rung(2, "a", "2026-12-01T10:00:00+00:00", -40.0, -200.0, 120.0, kind="gate",
          sprt={"decision": "H0 accepted", "llr": -2.95, "elo0": 0.0, "elo1": 10.0}),
    {**_rung(3, "b", "2026-12-04T20:00:00+00:00", 20.0, -10.0, 50.0), "note": "a quiet machine"},
]}


def test_the_page_has_one_row_per_rung():
    text = ladder.ladder_markdown(LADDER, "results/ladder.png")
    rows = [line for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert rows == [
        "| 1 | ladder | `cccccccccc` | `bbbbbbbbbb` (2026-12-04) | `ismcts:50` | 8 | 5-1-2 | 68.8% | +137 [-90, +400] "
        "| - | 2026-12-05 |",
        "| 2 | gate | `cccccccccc` + changes | `aaaaaaaaaa` (2026-12-01) | `ismcts:50 vs ismcts:100` | 8 | 5-1-2 | "
        "68.8% | -40 [-200, +120] | H0 accepted, LLR -2.95 (H0 0, H1 10) | 2026-12-05 |",
        "| 3 | ladder | `cccccccccc` | `bbbbbbbbbb` (2026-12-04) | `ismcts:50 vs ismcts:100` | 8 | 5-1-2 | 68.8% | "
        "+20 [-10, +50] | - | 2026-12-05 |"]
    assert text.endswith("\nNotes:\n\n- Rung 3: a quiet machine\n")
    assert "![Elo of each frozen version relative to the AI it was measured against](results/ladder.png)" in text
    assert "No rung" in ladder.ladder_markdown({"format": "ftc-ladder", "rungs": []}, "results/ladder.png")


def test_the_plot_puts_each_version_at_minus_the_rung_elo_in_commit_order():
    versions, points = ladder.ladder_points(LADDER)
    assert versions == ["a" * 40, "b" * 40]                       # the older commit first
    assert points == [
        {"x": 0, "kind": "gate", "elo": 40.0, "low": -120.0, "high": 200.0},
        {"x": 1, "kind": "ladder", "elo": -136.6, "low": -400.3, "high": 90.2},
        {"x": 1.08, "kind": "ladder", "elo": -20.0, "low": -50.0, "high": 10.0},
    ]


def test_render_writes_the_page_and_a_png(tmp_path):
    path = tmp_path / "results" / "ladder.json"
    path.parent.mkdir()
    path.write_text(json.dumps(LADDER))
    ladder.render(path, tmp_path / "ladder.md")
    assert (tmp_path / "ladder.md").read_text() == ladder.ladder_markdown(LADDER, "results/ladder.png")
    assert (tmp_path / "results" / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rungs_are_appended_and_numbered(tmp_path):
    path = tmp_path / "ladder.json"
    ladder.append_rung(path, {"kind": "ladder", "x": 1})
    ladder.append_rung(path, {"kind": "gate", "x": 2})
    assert [(r["index"], r["x"]) for r in ladder.read_ladder(path)["rungs"]] == [(1, 1), (2, 2)]


# -- the journal: a rung that resumes ---------------------------------------------------------------------
PLAYED: list[int] = []


def journaled_pair(checkout, label, spec, opponent_spec, seed, pair, opening, config, timeout):
    """SCRIPT's pair, noting that it was played; a Ctrl-C when pair ``config["stop"]`` starts."""
    if pair == config.get("stop"):
        raise KeyboardInterrupt
    PLAYED.append(pair)
    return scripted_pair(checkout, label, spec, opponent_spec, seed, pair, opening, config, timeout)


def _journal(path, seed=4, candidate="c0ffee", sprt=None):
    return ladder.rung_journal(path, "gate", "0" * 40, "greedy", "greedy", seed, 0, {}, sprt or SPRT(0, 50),
                               candidate=candidate)


def test_a_stopped_gate_resumes_from_its_journal_and_plays_only_the_pairs_it_lacks(tmp_path):
    SCRIPT[:] = _stream(3, 1, 1, 40)
    decision, pairs = _decided_after(SCRIPT, 0, 50)
    path = tmp_path / "gate.jsonl"
    PLAYED.clear()
    with pytest.raises(KeyboardInterrupt):
        ladder.run_rung(ROOT, "scripted", "greedy", "greedy", len(SCRIPT), seed=4, config={"stop": 7},
                        sprt=SPRT(0, 50), play=journaled_pair, journal=_journal(path))
    assert PLAYED == list(range(7)) and sorted(_journal(path).done) == list(range(7))
    PLAYED.clear()
    sprt = SPRT(0, 50, max_games=2 * len(SCRIPT))
    result = ladder.run_rung(ROOT, "scripted", "greedy", "greedy", len(SCRIPT), seed=4, sprt=sprt,
                             play=journaled_pair, journal=_journal(path))
    assert PLAYED == list(range(7, pairs))                 # the seven kept pairs are not played again
    assert (sprt.status(), sprt.pairs) == (decision, pairs)   # the test the uninterrupted rung makes
    assert result.outcomes == [score for pair in SCRIPT[:pairs] for score in pair]
    assert result.turns == [k for k in range(pairs) for _ in (0, 1)]
    PLAYED.clear()                                          # decided from the journal alone: nothing played
    again = SPRT(0, 50, max_games=2 * len(SCRIPT))
    ladder.run_rung(ROOT, "scripted", "greedy", "greedy", len(SCRIPT), seed=4, sprt=again, play=journaled_pair,
                    journal=_journal(path))
    assert PLAYED == [] and (again.status(), again.pairs) == (decision, pairs)


def test_pairs_kept_out_of_order_wait_for_the_pair_before_them(tmp_path):
    SCRIPT[:] = [(1.0, 0.0), (0.0, 0.0), (1.0, 1.0), (0.5, 0.5)]
    path = tmp_path / "gate.jsonl"
    journal = _journal(path)
    journal.add(2, {"games": [[1.0, 2], [1.0, 2]]})        # a worker finished pair 2 before pair 1 was
    journal.add(0, {"games": [[1.0, 0], [0.0, 0]]})
    PLAYED.clear()
    result = ladder.run_rung(ROOT, "scripted", "greedy", "greedy", 4, seed=4, play=journaled_pair,
                             journal=_journal(path))
    assert PLAYED == [1, 3] and result.outcomes == [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 0.5]


@pytest.mark.parametrize("change, named", [
    (dict(seed=5), "seed is 4, this run's is 5"),
    (dict(candidate="beef"), 'candidate is "c0ffee", this run\'s is "beef"'),
    (dict(sprt=SPRT(0, 10)), "sprt is [0.0, 50.0, 0.05, 0.05], this run's is [0.0, 10.0, 0.05, 0.05]"),
])
def test_a_journal_of_another_test_is_refused_and_left_as_it_was(tmp_path, change, named):
    path = tmp_path / "gate.jsonl"
    _journal(path).add(0, {"games": [[1.0, 30], [0.0, 31]]})
    before = path.read_bytes()
    with pytest.raises(ladder.LadderError, match="another run's journal") as info:
        _journal(path, **change)
    assert named in str(info.value) and str(path) in str(info.value)
    assert path.read_bytes() == before


def test_a_line_cut_short_by_a_crash_is_dropped_and_a_bad_pair_is_named(tmp_path):
    path = tmp_path / "gate.jsonl"
    _journal(path).add(0, {"games": [[1.0, 30], [0.0, 31]]})
    with path.open("a") as f:
        f.write('{"unit": 1, "games": [[1.0, 3')            # the crash
    journal = _journal(path)
    assert sorted(journal.done) == [0] and path.read_text().endswith("\n")
    journal.add(1, {"games": [[0.5, 40], [1.0, 41]]})
    assert sorted(_journal(path).done) == [0, 1]
    _journal(path).add(2, {"games": [[2.0, 40], [1.0, 41]]})   # not a score
    with pytest.raises(ladder.LadderError, match=r"pair 3: expected .*found \[\[2.0, 40\], \[1.0, 41\]\]"):
        ladder.run_rung(ROOT, "scripted", "greedy", "greedy", 4, seed=4, play=journaled_pair, journal=_journal(path))


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_the_engine_digest_follows_the_engine_files_not_the_build_outputs(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "a.py").write_text("x = 1\n")
    (tmp_path / ".gitignore").write_text("*.so\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    first = checkouts.engine_digest(tmp_path)
    (tmp_path / "engine" / "_k.so").write_bytes(b"\0")     # an ignored build output
    (tmp_path / "docs.md").write_text("notes\n")            # outside the engine
    assert checkouts.engine_digest(tmp_path) == first
    (tmp_path / "engine" / "a.py").write_text("x = 2\n")   # a change not committed
    changed = checkouts.engine_digest(tmp_path)
    (tmp_path / "engine" / "a.py").write_text("x = 1\n")
    (tmp_path / "engine" / "new.py").write_text("")          # a file not yet added
    assert len({first, changed, checkouts.engine_digest(tmp_path)}) == 3


def test_the_gate_command_resumes_from_its_journal(monkeypatch, tmp_path, capsys):
    SCRIPT[:] = _stream(3, 1, 1, 40)
    head = checkouts.resolve_commit("HEAD")
    monkeypatch.setattr(ladder, "cached_checkout", lambda revision, *args, **kw: (head, ROOT))
    path, page = tmp_path / "gate.jsonl", tmp_path / "ladder.md"
    argv = ["gate", "--base", "HEAD", "--spec", "greedy", "--sprt", "0,50", "--pairs", str(len(SCRIPT)),
            "--journal", str(path), "--ladder", str(tmp_path / "ladder.json"), "--docs", str(page)]
    monkeypatch.setattr(ladder, "play_pair", lambda *a: journaled_pair(*a[:7], {"stop": 5}, a[8]))
    assert ladder.main(argv) == 130                          # Ctrl-C at pair 6
    monkeypatch.setattr(ladder, "play_pair", journaled_pair)
    PLAYED.clear()
    assert ladder.main([*argv, "--record"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "gate: PASS (H1 accepted)"
    pairs = _decided_after(SCRIPT, 0, 50)[1]
    assert PLAYED == list(range(5, pairs))
    rung = json.loads((tmp_path / "ladder.json").read_text())["rungs"][0]
    assert rung["resumed_pairs"] == 5 and rung["pairs"] == pairs
    assert ladder.main([*argv[:5], "--seed", "9", *argv[5:]]) == 2   # the same journal, another test
    assert "--journal" in capsys.readouterr().err


def test_play_refuses_one_journal_for_several_rungs(tmp_path, capsys):
    assert ladder.main(["play", "HEAD", "HEAD~1", "--journal", str(tmp_path / "j.jsonl"),
                        "--ladder", str(tmp_path / "l.json")]) == 2
    assert "give one COMMIT" in capsys.readouterr().err
