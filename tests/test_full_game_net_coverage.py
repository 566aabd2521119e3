"""tools/full_game_net_coverage.py: how many of the full game's boards a board net judges, and how well."""

from __future__ import annotations

import json

import pytest

from tools import full_game_net_coverage as coverage


def _row(knows, untrained, classical, net, result):
    return {"turn": 1, "knows": knows, "untrained": untrained, "classical": classical, "net": net, "result": result}


def test_summary_counts_judged_boards_and_untrained_types():
    rows = [_row(True, [], 100, 300, 1.0), _row(True, [], -200, -100, 0.0), _row(True, [], 50, -40, 0.0),
            _row(False, ["~K"], 10, 10, 1.0), _row(False, ["~K", "~M"], 5, 5, 0.5)]
    out = coverage.summary(rows)
    assert (out["states"], out["judged"]) == (5, 3)
    assert out["judged_share"] == pytest.approx(0.6)
    assert out["untrained_types"] == {"~K": pytest.approx(0.4), "~M": pytest.approx(0.2)}
    # Only the judged boards are compared: the net's sign names all three winners, the classical two.
    assert out["net"]["accuracy"] == pytest.approx(1.0) and out["classical"]["accuracy"] == pytest.approx(2 / 3)
    assert out["classical"]["decided"] == 3
    assert out["net"]["log_loss"] < out["classical"]["log_loss"]


def test_a_game_s_rows_fall_back_exactly_where_an_untrained_type_is_held():
    rows = coverage.game_rows(5003, None, 12, 200)
    assert rows
    for r in rows:
        assert r["knows"] == (not r["untrained"])             # the kernel's test and the types held agree
        if not r["knows"]:
            assert r["net"] == r["classical"]                  # the search falls back to the classical value
    assert any(r["knows"] and r["net"] != r["classical"] for r in rows)
    assert all(t.startswith("~") for r in rows for t in r["untrained"])   # the shipped net lacks the expansion's types


def test_the_tool_reports_and_writes_json(tmp_path, capsys):
    out = tmp_path / "c.json"
    assert coverage.main(["--games", "2", "--seed", "5003", "--per-game", "4", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "judged by the net:" in text and "turn starts" in text
    assert all("(" in line for line in text.splitlines() if "untrained type" in line)   # named: "~K (Khan)"
    data = json.loads(out.read_text())
    assert data["summary"]["states"] == len(data["rows"]) == 8


def test_a_bad_net_or_count_is_refused_by_name(tmp_path, capsys):
    bad = tmp_path / "bad.nnue"
    bad.write_bytes(b"not a net")
    with pytest.raises(SystemExit) as stop:
        coverage.main(["--net", str(bad)])
    assert stop.value.code == 2 and "--net:" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        coverage.main(["--games", "0"])
    assert "--games must be at least 1" in capsys.readouterr().err
