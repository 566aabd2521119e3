"""The `ftc` command line: perft (RULINGS A5) and the card catalog (`ftc cards`)."""

import subprocess
import sys

import pytest

from engine.interfaces.cli import main
from tests.support import FTC, ROOT, child_env

# Counts derived by hand: 20 orders at the chess start, each answered by 20.
START_D2 = 400


def test_perft_prints_nodes_searched_last(capsys):
    assert main(["perft", "startpos", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1] == f"Nodes searched: {START_D2}"


def test_divide_prints_one_line_per_root_order(capsys):
    assert main(["perft", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "2", "--divide"]) == 0
    lines = [ln for ln in capsys.readouterr().out.strip().splitlines() if ln]
    counts = dict(ln.split(": ") for ln in lines[:-1])
    assert len(counts) == 20 and set(counts.values()) == {"20"}
    assert "e2e4" in counts and "g1f3" in counts
    assert lines[-1] == "Nodes searched: 400"


def test_promote_option_restricts_promotions(capsys):
    # A lone Pawn on a7 with free a8: 1 order per promotion type (B18); Kings on e1/e8 add theirs.
    text = "4k3/P7/8/8/8/8/8/K7 w - - 0 1"
    main(["perft", text, "1", "--divide", "--promote", "NBRQ"])
    out = capsys.readouterr().out
    assert {"a7a8n", "a7a8b", "a7a8r", "a7a8q"} <= set(ln.split(":")[0] for ln in out.splitlines())
    assert out.strip().splitlines()[-1] == "Nodes searched: 7"  # 4 promotions + King a1: a2 b1 b2


def test_cylindrical_flag(capsys):
    # A Rook on a1 beside its King on b1: flat it has a2..a8 (7); cylindrical also h1..c1 (6).
    text = "4k3/8/8/8/8/8/8/RK6 w - - 0 1"
    main(["perft", text, "1", "--divide"])
    flat = capsys.readouterr().out
    main(["perft", text, "1", "--divide", "--cylindrical"])
    cyl = capsys.readouterr().out
    def rook(out):
        return {ln.split(":")[0] for ln in out.splitlines() if ln.startswith("a1")}
    assert len(rook(flat)) == 7 and len(rook(cyl)) == 13


def test_bad_position_is_a_clear_error_not_a_traceback():
    run = subprocess.run(
        FTC + ["perft", "8/8/8/8/8/8/8/9 w", "1"], capture_output=True, text=True, env=child_env(), cwd=ROOT,
    )
    assert run.returncode == 2
    assert "position text, board rank 1, character 1" in run.stderr
    assert "Traceback" not in run.stderr


def test_negative_depth_is_rejected(capsys):
    try:
        main(["perft", "startpos", "-1"])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("expected a usage error")


def test_threads_give_the_same_counts():
    from engine import divide, perft

    text = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1"
    assert perft(text, 3, threads=2) == perft(text, 3)
    assert divide(text, 2, threads=2) == divide(text, 2)


def test_serve_without_the_server_extra_names_the_extra(capsys, monkeypatch):
    """FastAPI and uvicorn are the optional ``server`` extra: without them ``ftc serve`` says how
    to install them (no traceback), and the engine's own commands never need them."""
    import sys

    monkeypatch.setitem(sys.modules, "uvicorn", None)          # an import of it now fails
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "server extra" in err and "pip install -e '.[server]'" in err and "Traceback" not in err
    assert main(["perft", "startpos", "1"]) == 0


def test_engine_commands_do_not_load_the_web_server():
    code = "import sys, engine.interfaces.cli; print(any(m.startswith(('fastapi', 'uvicorn')) for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=child_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_cards_prints_each_effects_text_under_its_card(capsys):
    from engine.crown.cards import default_cards

    assert main(["cards"]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())                 # the texts are wrapped to the terminal's width
    cards = default_cards().cards
    at = 0
    for card, following in zip(cards, cards[1:] + (None,)):
        start = flat.index(card.name, at)
        end = flat.index(following.name, start + len(card.name)) if following else len(flat)
        block = flat[start:end]
        for effect in card.effects:
            assert f"{effect.kind}: {' '.join(effect.text.split())}" in block, (card.name, effect.kind)
        at = start + len(card.name)
    assert "+3 gold to spend in the Buy phase (8.0)." in flat              # Tower's treasure
    assert "order +1 order | training M" in out and "+1 orders" not in out   # Academy: singular for one
    assert "[provisional: the rulebook does not print this effect]" in flat


def test_cards_json_carries_each_effects_text(capsys):
    import json

    assert main(["cards", "--json"]) == 0
    data = {card["name"]: card for card in json.loads(capsys.readouterr().out)}
    assert len(data) == 46
    assert all(len(c["effects"]) == 2 and all(e["text"] for e in c["effects"]) for c in data.values())
    tower = data["Tower"]["effects"][0]
    assert (tower["kind"], tower["gold"], tower["text"]) == ("treasure", 3, "+3 gold to spend in the Buy phase (8.0).")
    assert "Strikers (x2)" in data["Versatility"]["effects"][1]["text"]


def test_cluster_help_reads_as_a_sentence():
    """--cluster's help names where the work happens in one clause (issue 22: perft's read "where the
    subtrees are counted run")."""
    from engine.interfaces.cli import build_parser

    sub = build_parser()._subparsers._group_actions[0].choices
    helps = {name: next(a.help for a in sub[name]._actions if "--cluster" in a.option_strings)
             for name in ("perft", "selfplay", "match")}
    assert helps["perft"].startswith("where the subtrees are counted: local")
    assert helps["selfplay"].startswith("where the games run: local")
    assert helps["match"].startswith("where the games run: local")


@pytest.mark.parametrize("games", [3, 7, 20])
def test_the_match_plot_counts_whole_games(games):
    """The x axis of `ftc match --plot` has a tick per whole game, never game 2.5 (issue 22)."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from engine.search.match import MatchResult, match_figure

    result = MatchResult("greedy", "random")
    for i in range(games):
        result.add((1.0, 0.5, 0.0)[i % 3], 10 + i)
    fig = match_figure(result)
    try:
        for axes in fig.axes:
            ticks = [t for t in axes.get_xticks() if axes.get_xlim()[0] <= t <= axes.get_xlim()[1]]
            assert ticks and all(float(t).is_integer() for t in ticks), ticks
    finally:
        plt.close(fig)


def test_the_architecture_map_lists_every_command():
    """docs/architecture.md names every `ftc` command on cli.py's line (it left out uci and balance)."""
    import re

    from engine.interfaces.cli import build_parser

    line = next(ln for ln in (ROOT / "docs" / "architecture.md").read_text().splitlines() if "cli.py " in ln)
    listed = set(re.search(r"the `ftc` command \(([^)]*)\)", line).group(1).replace(" ", "").split(","))
    commands = set(build_parser()._subparsers._group_actions[0].choices)
    assert listed == commands, (sorted(commands - listed), sorted(listed - commands))
