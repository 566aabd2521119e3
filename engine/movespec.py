"""Movement specs: a small Betza-like language, parsed into the tables the kernels consume.

The full grammar, with every atom and modifier, is documented in docs/movespec.md. In short, a spec
is a space-separated list of terms; each term is ``<modifiers><atom><range>``:

- leaper atoms ``W F D N A H C Z G`` (offsets (1,0) (1,1) (2,0) (2,1) (2,2) (3,0) (3,1) (3,2) (3,3)),
  ``K`` = ``WF``; a doubled atom rides (``WW``, ``FF``, ``NN``), ``R`` = ``WW``, ``B`` = ``FF``,
  ``Q`` = ``RB``;
- range on riders: ``R3`` (1 to 3 squares), ``Q2-`` (2 or more, the nearer squares must be empty),
  ``Q2-3``;
- modifiers: ``m`` march only, ``c`` capture only, ``x`` capture without moving (Oracle, 12.0);
  ``f b l r s v`` owner-relative directions (union when several); ``n`` non-leaping (a straight or
  diagonal leaper blocked by the squares it crosses); ``i`` only from the owner's first or second rank;
- named patterns no atom covers: ``(phantom)`` ``(warlord)`` ``(gryphon)`` ``(sphinx)``
  ``(charge)N`` ``(swap)`` (rules 12.0 and RULINGS B9-B12, B15), ``(flight)`` (the Dragon, RULINGS H7).

Vectors are written from Blue's side (forward = toward rank 8); the kernel tables rotate them by 180
degrees for Yellow, so "left" and "forward" stay relative to the owner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["SpecError", "Leap", "Ride", "CompiledMoves", "compile_spec", "MAX_DISTANCE"]

#: The longest distance any ride can cover on an 8x8 board (also on a cylinder: B17).
MAX_DISTANCE = 7

# Kernel mode bits. ext/_tables.pxd is their source (engine._tables.MODES); they are repeated here so
# the parser does not need the compiled module, and tests/test_codes.py checks that both agree.
MODE_MARCH = 1
MODE_CAPTURE = 2
MODE_SHOOT = 4
MODE_INITIAL = 8

LEAPER_OFFSETS: dict[str, tuple[int, int]] = {
    "W": (1, 0), "F": (1, 1), "D": (2, 0), "N": (2, 1), "A": (2, 2),
    "H": (3, 0), "C": (3, 1), "Z": (3, 2), "G": (3, 3),
}
#: Shorthands: letter -> list of (leaper atom, is_rider).
SHORTHANDS: dict[str, list[tuple[str, bool]]] = {
    "K": [("W", False), ("F", False)],
    "R": [("W", True)],
    "B": [("F", True)],
    "Q": [("W", True), ("F", True)],
}
#: Named patterns (special movement kernels) and the modifiers each accepts.
PATTERNS = {"phantom", "warlord", "gryphon", "sphinx", "charge", "swap", "flight"}
PATTERN_NEEDS_RANGE = {"charge"}
MAX_CHARGE = 3  # a longer charge could reach one square two ways on a cylinder (ambiguous order text)

_TERM = re.compile(
    r"""(?P<mods>[a-z]*)
        (?:\((?P<pattern>[a-z]+)\)|(?P<atom>[A-Z]+))
        (?P<range>\d+(?:-\d*)?)?$""",
    re.VERBOSE,
)


class SpecError(ValueError):
    """A movement spec that cannot be compiled; the message names the unit, term and problem."""


@dataclass(frozen=True)
class Leap:
    """A single leap to (dx, dy) from Blue's side; ``modes`` is MODE_MARCH | MODE_CAPTURE."""

    dx: int
    dy: int
    modes: int


@dataclass(frozen=True)
class Ride:
    """A ride along (dx, dy): squares at distance ``lo``..``hi``; nearer ones must be empty."""

    dx: int
    dy: int
    lo: int
    hi: int
    modes: int


@dataclass
class CompiledMoves:
    """What one unit type's spec compiles to (Blue's orientation)."""

    leaps: list[Leap] = field(default_factory=list)
    rides: list[Ride] = field(default_factory=list)
    #: pattern name -> modes (MODE_MARCH | MODE_CAPTURE); ``charge`` also sets ``charge_range``.
    patterns: dict[str, int] = field(default_factory=dict)
    charge_range: int = 0

    def can_capture(self) -> bool:
        return (
            any(x.modes & (MODE_CAPTURE | MODE_SHOOT) for x in self.leaps + self.rides)
            or any(m & MODE_CAPTURE for p, m in self.patterns.items() if p != "swap")
        )


def _symmetric_images(dx: int, dy: int) -> list[tuple[int, int]]:
    images = {(sx * a, sy * b) for a, b in ((dx, dy), (dy, dx)) for sx in (1, -1) for sy in (1, -1)}
    return sorted(images)


def _direction_filter(letters: str, unit: str, term: str):
    tests = {
        "f": lambda x, y: y > 0,
        "b": lambda x, y: y < 0,
        "l": lambda x, y: x < 0,
        "r": lambda x, y: x > 0,
        "s": lambda x, y: abs(x) > abs(y),
        "v": lambda x, y: abs(y) > abs(x),
    }
    if not letters:
        return lambda x, y: True
    chosen = [tests[ch] for ch in letters]
    return lambda x, y: any(t(x, y) for t in chosen)


def _parse_range(text: str | None, unit: str, term: str) -> tuple[int, int] | None:
    if not text:
        return None
    if "-" in text:
        lo_text, hi_text = text.split("-", 1)
        lo, hi = int(lo_text), int(hi_text) if hi_text else MAX_DISTANCE
    else:
        lo, hi = 1, int(text)
    if not 1 <= lo <= hi <= MAX_DISTANCE:
        raise SpecError(
            f"unit {unit}: term {term!r}: range {text!r} must satisfy 1 <= low <= high <= {MAX_DISTANCE}"
        )
    return lo, hi


def _split_modes(mods: str, unit: str, term: str) -> tuple[int, str, bool, bool]:
    """Return (modes, direction letters, non-leaping, initial-only) of a modifier string."""
    modes = 0
    directions = ""
    lame = initial = False
    for ch in mods:
        if ch == "m":
            modes |= MODE_MARCH
        elif ch == "c":
            modes |= MODE_CAPTURE
        elif ch == "x":
            modes |= MODE_SHOOT
        elif ch in "fblrsv":
            directions += ch
        elif ch == "n":
            lame = True
        elif ch == "i":
            initial = True
        else:
            raise SpecError(f"unit {unit}: term {term!r}: unknown modifier {ch!r} (see docs/movespec.md)")
    if modes == 0:
        modes = MODE_MARCH | MODE_CAPTURE
    return modes, directions, lame, initial


def _compile_pattern(name: str, mods: str, rng: str | None, unit: str, term: str, out: CompiledMoves):
    if name not in PATTERNS:
        known = ", ".join(sorted(PATTERNS))
        raise SpecError(f"unit {unit}: term {term!r}: unknown pattern ({name}); known: {known}")
    if name in out.patterns:
        raise SpecError(f"unit {unit}: term {term!r}: pattern ({name}) given twice")
    if set(mods) - set("mc"):
        raise SpecError(f"unit {unit}: term {term!r}: pattern ({name}) takes only the modifiers m and c")
    if name == "swap" and mods:
        raise SpecError(f"unit {unit}: term {term!r}: (swap) is a march by definition and takes no modifier")
    modes, _, _, _ = _split_modes(mods, unit, term)
    if name in PATTERN_NEEDS_RANGE:
        if not rng or "-" in rng:
            raise SpecError(f"unit {unit}: term {term!r}: ({name}) needs a range, e.g. ({name})3")
        reach = int(rng)
        if not 1 <= reach <= MAX_CHARGE:
            raise SpecError(
                f"unit {unit}: term {term!r}: ({name}) range must be 1..{MAX_CHARGE} "
                "(longer charges reach one square two ways on a cylinder)"
            )
        out.charge_range = reach
    elif rng:
        raise SpecError(f"unit {unit}: term {term!r}: pattern ({name}) takes no range")
    out.patterns[name] = MODE_MARCH if name == "swap" else modes


def _compile_atoms(atom: str, mods: str, rng: str | None, unit: str, term: str, out: CompiledMoves):
    # Expand the atom text into (leaper letter, is_rider) parts.
    if atom in SHORTHANDS:
        parts = SHORTHANDS[atom]
    elif len(atom) == 1 and atom in LEAPER_OFFSETS:
        parts = [(atom, False)]
    elif len(atom) == 2 and atom[0] == atom[1] and atom[0] in LEAPER_OFFSETS:
        parts = [(atom[0], True)]
    else:
        raise SpecError(f"unit {unit}: term {term!r}: unknown atom {atom!r} (see docs/movespec.md)")

    modes, directions, lame, initial = _split_modes(mods, unit, term)
    if modes & MODE_SHOOT and modes & MODE_CAPTURE:
        raise SpecError(f"unit {unit}: term {term!r}: c and x exclude each other")
    allowed = _direction_filter(directions, unit, term)
    span = _parse_range(rng, unit, term)

    produced = 0
    for letter, rider in parts:
        base = LEAPER_OFFSETS[letter]
        if span and not rider:
            raise SpecError(f"unit {unit}: term {term!r}: a range needs a rider (e.g. {letter}{letter}{rng})")
        if lame and rider:
            raise SpecError(f"unit {unit}: term {term!r}: n applies to leapers, riders are blocked anyway")
        step_count = 1
        if lame:
            a, b = base
            if not (b == 0 or a == b) or a < 2:
                raise SpecError(
                    f"unit {unit}: term {term!r}: n needs a straight or diagonal leaper of length >= 2 "
                    "(D, A, H, G)"
                )
            step_count = a
        for dx, dy in _symmetric_images(*base):
            if not allowed(dx, dy):
                continue
            produced += 1
            flags = modes | (MODE_INITIAL if initial else 0)
            if rider:
                lo, hi = span or (1, MAX_DISTANCE)
                out.rides.append(Ride(dx, dy, lo, hi, flags))
            elif lame:
                ux, uy = dx // step_count, dy // step_count
                out.rides.append(Ride(ux, uy, step_count, step_count, flags))
            elif flags & (MODE_SHOOT | MODE_INITIAL):
                # A leap with an unusual mode is a ride of range exactly one: same squares, no path.
                out.rides.append(Ride(dx, dy, 1, 1, flags))
            else:
                out.leaps.append(Leap(dx, dy, flags))
    if produced == 0:
        raise SpecError(f"unit {unit}: term {term!r}: direction modifiers {directions!r} select no move of {atom}")


def compile_spec(spec: str, unit: str = "?") -> CompiledMoves:
    """Compile one unit's movement spec; raises SpecError naming ``unit``, the term and the problem."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"unit {unit}: empty movement spec")
    out = CompiledMoves()
    for term in spec.split():
        match = _TERM.match(term)
        if not match:
            raise SpecError(f"unit {unit}: cannot read term {term!r} (expected modifiers, atom, range)")
        if match["pattern"]:
            _compile_pattern(match["pattern"], match["mods"], match["range"], unit, term, out)
        else:
            _compile_atoms(match["atom"], match["mods"], match["range"], unit, term, out)
    # Order text names only the destination (RULINGS A4), so a unit must not reach one square by two
    # kinds of capture that capture different things.
    shoots = any(x.modes & MODE_SHOOT for x in out.rides)
    moving_captures = any(x.modes & MODE_CAPTURE for x in out.leaps + out.rides) or any(
        m & MODE_CAPTURE for p, m in out.patterns.items() if p not in ("swap", "charge")
    )
    charges = "charge" in out.patterns and out.patterns["charge"] & MODE_CAPTURE
    if shoots and (moving_captures or charges):
        raise SpecError(f"unit {unit}: x (capture without moving) cannot be combined with moving captures")
    if charges and moving_captures:
        raise SpecError(f"unit {unit}: (charge) cannot be combined with other captures")
    return out
