"""Building Crownfall positions for tests: a game with explicit chance, the Omen and Objectives chosen,
pieces placed from the reserves (so piece conservation holds), then the round begun."""

from __future__ import annotations

from engine.crownfall import actions as A
from engine.crownfall.config import CrownfallConfig
from engine.crownfall.rules import ROLES, default_rules
from engine.crownfall.selfplay import game_invariants
from engine.crownfall.state import CrownfallState

RULES = default_rules()
MAP = RULES.map
R = len(MAP)


def reg(key: str) -> int:
    return MAP.index(key)


def omen(key: str) -> int:
    return RULES.omen(key)


def objective(key: str) -> int:
    return RULES.objective(key)


def unstarted(players: int = 2, omen_key: str = "open-veins", objectives=("hold-keep", "two-ruins"), **options):
    """A game whose first Omen and first Objective are drawn; the board is still as set up. Call
    ``begin(g, second objective)`` after placing pieces: Income is then paid and Blue's turn begins."""
    g = CrownfallState(CrownfallConfig.from_json({"players": players, "seed": 1, "chance": "explicit", **options}))
    g.apply(omen(omen_key))
    g.apply(objective(objectives[0]))
    g._second = objective(objectives[1])
    return g


def begin(g) -> CrownfallState:
    g.apply(g._second)
    assert game_invariants(g) == []
    return g


def banner(g, p: int, key: str, count: int = 1) -> None:
    r = reg(key)
    g.banners[r] += count
    g.banner_owner[r] = p
    g.reserve_banners[p] -= count
    g._legal = None


def tower(g, p: int, key: str, role: str | None = None, damaged: bool = False) -> None:
    r = reg(key)
    if g.tower_owner[r] < 0:
        g.reserve_towers[p] -= 1
    g.tower_owner[r], g.tower_role[r], g.damaged[r] = p, (-1 if role is None else ROLES.index(role)), damaged
    g._legal = None


def anchor(g, p: int, key: str) -> None:
    g.anchor[reg(key)] = p
    g.reserve_anchors[p] -= 1
    g._legal = None


def play(g, kind: str, *args) -> None:
    """Apply the action of ``kind`` built from region keys / numbers, checking it is legal."""
    R_ = g.R
    conv = [reg(a) if isinstance(a, str) and a in MAP.keys else a for a in args]
    if kind == "march":
        action = A.encode_march_banner(conv[0], conv[1], R_)
    elif kind == "mage":
        action = A.encode_march_mage(conv[0], R_)
    elif kind == "step":
        action = A.encode_step(A.BONUSES.index(conv[0]), conv[1], R_)
    elif kind == "raise":
        action = A.encode_raise(conv[0], R_)
    elif kind == "fortify":
        action = A.encode_fortify(conv[0], ROLES.index(conv[1]), R_)
    elif kind == "anchor":
        action = A.encode_anchor(conv[0], R_)
    elif kind == "research":
        action = A.encode_research(RULES.schools.index(conv[0]), R_)
    elif kind == "place":
        action = A.encode_place(conv[0], R_)
    elif kind == "cast":
        spell = RULES.spell(conv[0]).index
        a, b, o = (list(conv[1:]) + [0, 0, 0])[:3]
        action = A.encode_cast(spell, a, b, o, R_)
    elif kind == "end":
        action = A.END
    elif kind == "stop":
        action = A.STOP
    else:
        raise ValueError(kind)
    assert action in g.legal_actions(), (kind, args, g.prompt())
    g.apply(action)
    assert game_invariants(g) == []


def legal(g, kind: str, *args) -> bool:
    try:
        probe = g.clone()
        play(probe, kind, *args)
        return True
    except AssertionError:
        return False
