"""Crownfall's integer actions: one dense range per kind, each a complete choice (the region ids are
the map order of engine/data/crownfall_map.toml, R regions):

- ``END``: end the turn now (a player may stop before the third action, RULINGS I4);
- ``STOP``: end a March that could go on (RULINGS I13);
- ``MARCH_BANNER + s*R + t``: one Banner from region s into the adjacent region t;
- ``MARCH_MAGE + t``: the Archmage into the adjacent region t;
- ``STEP + b*R + t``: a March goes on into t, using the movement bonus b (BONUSES);
- ``RAISE + r``, ``ANCHOR + r``, ``PLACE + r`` (an Archmage sent back or out chooses r, RULINGS I11);
- ``FORTIFY + r*4 + role``; ``RESEARCH + school``;
- ``CAST + ((spell*R + a)*R + b)*2 + option``: spell by index, its target regions a and b and a
  two-way option (Fireball: 0 Banner / 1 Tower; Bastion Sigil: 0 repair / 1 Ward).

Chance outcomes are the card's index in the rules' Omen or Objective list. This module is the one
home of the arithmetic (tests/test_architecture.py: CODE_HOMES).

>>> decode(encode_march_banner(3, 10, 13), 13)
('march-banner', 3, 10)
>>> decode(encode_cast(4, 2, 7, 1, 13), 13)
('cast', 4, 2, 7, 1)
"""

from __future__ import annotations

from bisect import bisect_right

__all__ = ["BONUSES", "END", "STOP", "bases", "decode", "encode_march_banner", "encode_march_mage", "encode_step",
           "encode_raise", "encode_fortify", "encode_anchor", "encode_research", "encode_place", "encode_cast",
           "action_count"]

#: The movement bonuses of a March (RULINGS I13): Blink, the Tidebound passive, Silent Roads, Coastal Pull.
BONUSES = ("blink", "tidebound", "silent-roads", "coastal-pull")
END, STOP = 0, 1
ROLES_N, SCHOOLS_N, SPELLS_N = 4, 4, 12


def bases(R: int) -> dict[str, int]:
    """The first action of each kind on a map of R regions."""
    out, at = {}, 2
    for kind, size in (("march-banner", R * R), ("march-mage", R), ("step", len(BONUSES) * R), ("raise", R),
                       ("fortify", R * ROLES_N), ("anchor", R), ("research", SCHOOLS_N), ("place", R),
                       ("cast", SPELLS_N * R * R * 2)):
        out[kind] = at
        at += size
    out["end-of-range"] = at
    return out


_BASES: dict[int, dict[str, int]] = {}


def _b(R: int) -> dict[str, int]:
    table = _BASES.get(R)
    if table is None:
        table = _BASES[R] = bases(R)
    return table


_STARTS: dict[int, tuple[list[int], list[str]]] = {}


def _starts(R: int) -> tuple[list[int], list[str]]:
    """The ranges' first numbers in increasing order and their kinds (an empty range is skipped: the
    one after it starts at the same number), for ``decode``'s binary search."""
    cached = _STARTS.get(R)
    if cached is None:
        table = _b(R)
        ranges = sorted((at, kind) for kind, at in table.items() if kind != "end-of-range")
        starts: list[int] = []
        kinds: list[str] = []
        for i, (at, kind) in enumerate(ranges):
            end = ranges[i + 1][0] if i + 1 < len(ranges) else table["end-of-range"]
            if end > at:
                starts.append(at)
                kinds.append(kind)
        cached = _STARTS[R] = (starts, kinds)
    return cached


def action_count(R: int) -> int:
    return _b(R)["end-of-range"]


def encode_march_banner(s: int, t: int, R: int) -> int:
    return _b(R)["march-banner"] + s * R + t


def encode_march_mage(t: int, R: int) -> int:
    return _b(R)["march-mage"] + t


def encode_step(bonus: int, t: int, R: int) -> int:
    return _b(R)["step"] + bonus * R + t


def encode_raise(r: int, R: int) -> int:
    return _b(R)["raise"] + r


def encode_fortify(r: int, role: int, R: int) -> int:
    return _b(R)["fortify"] + r * ROLES_N + role


def encode_anchor(r: int, R: int) -> int:
    return _b(R)["anchor"] + r


def encode_research(school: int, R: int) -> int:
    return _b(R)["research"] + school


def encode_place(r: int, R: int) -> int:
    return _b(R)["place"] + r


def encode_cast(spell: int, a: int, b: int, option: int, R: int) -> int:
    return _b(R)["cast"] + ((spell * R + a) * R + b) * 2 + option


def decode(action: int, R: int) -> tuple:
    """(kind, fields...) of an action number; ("unknown", action) outside every range."""
    if action == END:
        return ("end",)
    if action == STOP:
        return ("stop",)
    table = _b(R)
    if not isinstance(action, int) or action < 0 or action >= table["end-of-range"]:
        return ("unknown", action)
    starts, kinds = _starts(R)
    i = bisect_right(starts, action) - 1             # the last range starting at or before the action
    kind = kinds[i]
    x = action - starts[i]
    if kind == "march-banner":
        return (kind, x // R, x % R)
    if kind == "step":
        return (kind, x // R, x % R)
    if kind == "fortify":
        return (kind, x // ROLES_N, x % ROLES_N)
    if kind == "cast":
        option, x = x % 2, x // 2
        b, x = x % R, x // R
        return (kind, x // R, x % R, b, option)
    return (kind, x)
