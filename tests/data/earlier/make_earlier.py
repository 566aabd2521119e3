"""Run in a checkout of 04970b3 (the layout before issue 41): files of that version for the
compatibility tests (tests/test_earlier_files.py)."""
import hashlib
import json
import random
import sys
from pathlib import Path

from engine.game.config import GameConfig
from engine.game.knowledge import position_view
from engine.game.state import GameState
from engine.games import registry

out = Path(sys.argv[1])


def dig(x): return hashlib.sha256(json.dumps(x, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
expected = {}
# a position view at a decision named by a labeler
g = GameState(GameConfig(seed=3))
view = position_view(g, g.current_player(), random.Random(1))
assert "engine.game.phases.phase_label" in json.dumps(view)
(out / "crown_position_view.json").write_text(json.dumps(view, indent=1) + "\n")
# records of the four games, mid-game
for name, config, n in (("crown", {}, 120), ("kings-ransom", {}, 30), ("crusade", {}, 40), ("crownfall", {"players": 3}, 40)):
    game = registry.get(name)
    s = game.new_state(game.config({"seed": 11, **config}))
    rng = random.Random(11)
    for _ in range(n):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    rec = s.record()
    (out / f"{name}_record.json").write_text(json.dumps(rec) + "\n")
    expected[name] = {"players": [dig(s.observation(p)) for p in range(s.num_players)],
                      "legal": sorted(s.legal_action_texts().items()) if s.current_player() >= 0 else []}
(out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
print("ok", sorted(p.name for p in out.iterdir()))
