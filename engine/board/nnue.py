"""The learned board evaluation (NNUE): its input features, its network file and a plain numpy
forward pass that defines, bit for bit, what the kernel (ext/_nnue.pyx) computes. docs/nnue.md
describes the same layout for people; this module is the one place that encodes it in Python (the
data generator, the trainer and the tests use it; the kernel is checked against it).

Features, one set per perspective (Blue's and Yellow's; "own" is the perspective's colour). A square
is seen from the perspective: Yellow's view mirrors the ranks (``square ^ 56``), so both sides' nets
see their own army advancing up the board.

- board: a unit of type ``t`` (0..MAX_TYPES-1, the catalog's type index) of the perspective's colour
  (``rel`` 0) or the other (``rel`` 1) on square ``s``: ``(rel * MAX_TYPES + t) * 64 + s``;
- Barracks: the perspective's (``rel`` 0) or the other side's (``rel`` 1) Barracks holds more than
  ``i`` units of type ``t`` (i < BARRACKS_SLOTS): ``BARRACKS_BASE + (rel * MAX_TYPES + t) *
  BARRACKS_SLOTS + i``;
- Compass mode (every unit moves cylindrically): ``COMPASS_FEATURE``.

The network: per perspective an accumulator ``acc = b1 + sum(w1[f])`` over its active features
(int16, wrapping: the trainer keeps it far from the limits), then ``out = b2 + sum(clamp(acc_own,
0, QA) * w2[:H]) + sum(clamp(acc_other, 0, QA) * w2[H:])`` (int32) with the side to move's
accumulator first, and the value ``floor(out * SCALE / (QA * QB))`` in centi-points for the side to
move.

>>> from engine import NAMED_POSITIONS, Position
>>> record = board_record(Position.from_text(NAMED_POSITIONS["startpos"]))
>>> len(record.codes), record.side
(32, 0)
>>> own = feature_indices(record, 0)
>>> len(own) == 32 and max(own) < BARRACKS_BASE
True
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.codes import unit_code, unit_code_colour, unit_code_square, unit_code_type
from engine.position import Position, PositionData

__all__ = ["MAX_TYPES", "BARRACKS_SLOTS", "BOARD_FEATURES", "BARRACKS_BASE", "COMPASS_FEATURE", "N_FEATURES",
           "QA", "QB", "SCALE", "FORMAT", "VERSION", "MAGIC", "BoardRecord", "board_record", "record_position", "feature_indices",
           "Net", "NetFileError", "CatalogMismatch", "load_net", "save_net", "reference_eval", "catalog_signature", "untrained_types"]

#: Unit types a catalog may define (the kernel's MAX_TYPES, engine/_tables.pxd).
MAX_TYPES = 40
#: Barracks units of one type and side that have a feature of their own (more count as this many).
BARRACKS_SLOTS = 4
BOARD_FEATURES = 2 * MAX_TYPES * 64
BARRACKS_BASE = BOARD_FEATURES
COMPASS_FEATURE = BARRACKS_BASE + 2 * MAX_TYPES * BARRACKS_SLOTS
N_FEATURES = COMPASS_FEATURE + 1

#: Quantisation: the clipped activation's top (and the scale of w1 and b1), the scale of w2, and
#: centi-points per unit of the float network's output.
QA = 255
QB = 64
SCALE = 400

FORMAT = "ftc-nnue"
VERSION = 1
MAGIC = b"FTCNNUE\x00"
#: Hidden sizes the kernel takes (a multiple of 16 for its vector loops).
HIDDEN_SIZES = (64, 128, 256, 512)
#: The largest output weight (in units of 1/QB): 2 * 512 * QA * W2_LIMIT stays far inside int32.
W2_LIMIT = 1024
#: The largest net file read (a 512-wide net is about 5.6 MB).
MAX_NET_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class BoardRecord:
    """A board as the features see it: ``codes`` one per unit (engine.codes.unit_code: ``square |
    type << 6 | colour << 12``, colour 0 Blue, 1 Yellow); ``barracks[colour][type]`` the Barracks counts; ``side`` to move;
    ``cylindrical`` Compass mode."""

    codes: tuple[int, ...]
    barracks: tuple[tuple[int, ...], tuple[int, ...]]
    side: int
    cylindrical: bool = False


def board_record(position, cylindrical: bool = False) -> BoardRecord:
    """The BoardRecord of a Position (engine.position) or a BoardCore."""
    core = getattr(position, "core", position)
    codes = []
    for sq in range(64):
        unit = core.unit_on(sq)
        if unit is not None:
            codes.append(unit_code(sq, unit[0], unit[1]))
    blue, yellow = (tuple(core.barracks_count(c, t) for t in range(MAX_TYPES)) for c in (0, 1))
    return BoardRecord(tuple(codes), (blue, yellow), core.side, bool(cylindrical))


def record_position(record: BoardRecord, catalog=None):
    """The Position (engine.position) of a record: its units, Barracks and side to move (the clocks,
    statuses and Stock are the defaults; Compass mode is ``record.cylindrical``, an argument of the
    searches, not of the Position)."""
    position = Position(catalog)
    types = len(position.catalog.units)
    position.load(PositionData(units={unit_code_square(c): (unit_code_type(c), unit_code_colour(c)) for c in record.codes},
                               barracks=[list(record.barracks[0][:types]), list(record.barracks[1][:types])],
                               side=record.side))
    return position


def feature_indices(record: BoardRecord, perspective: int) -> list[int]:
    """The active features of ``record`` from ``perspective`` (0 Blue, 1 Yellow), in a fixed order:
    the units in ``codes`` order, then the Barracks, then Compass mode."""
    out = []
    flip = 56 if perspective == 1 else 0
    for code in record.codes:
        sq, t, colour = unit_code_square(code), unit_code_type(code), unit_code_colour(code)
        rel = 0 if colour == perspective else 1
        out.append((rel * MAX_TYPES + t) * 64 + (sq ^ flip))
    for colour in (0, 1):
        rel = 0 if colour == perspective else 1
        for t, n in enumerate(record.barracks[colour]):
            for i in range(min(n, BARRACKS_SLOTS)):
                out.append(BARRACKS_BASE + (rel * MAX_TYPES + t) * BARRACKS_SLOTS + i)
    if record.cylindrical:
        out.append(COMPASS_FEATURE)
    return out


class NetFileError(ValueError):
    """A net file that cannot be used; the message names the file and what is wrong."""


class CatalogMismatch(NetFileError):
    """A net trained for another unit catalog than the one asked for."""


def catalog_signature(catalog) -> list[str]:
    """The unit tokens of a catalog in type order: a net is trained for the catalog whose types
    these are, and refused by another."""
    return [unit.token for unit in catalog.units]


@dataclass
class Net:
    """A quantised network: ``w1`` int16 [N_FEATURES, hidden], ``b1`` int16 [hidden], ``w2`` int16
    [2 * hidden], ``b2`` int32; ``catalog`` the unit tokens it was trained for; ``provenance`` what
    made it (data, positions, epochs, loss, commit); ``untrained`` the tokens of the catalog's types
    its data did not hold (a board with one of them is judged by the classical evaluation)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: int
    catalog: list[str]
    provenance: dict = field(default_factory=dict)
    untrained: list[str] = field(default_factory=list)

    @property
    def hidden(self) -> int:
        return int(self.b1.shape[0])

    def header(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "features": N_FEATURES, "hidden": self.hidden,
                "max_types": MAX_TYPES, "barracks_slots": BARRACKS_SLOTS, "qa": QA, "qb": QB, "scale": SCALE,
                "catalog": list(self.catalog), "untrained": list(self.untrained), "provenance": self.provenance}

    def digest(self) -> str:
        """SHA-256 of the weights (what `ftc --version` and UCI name the net by), first 12 hex digits."""
        h = hashlib.sha256()
        for array in (self.w1, self.b1, self.w2, np.array([self.b2], dtype="<i4")):
            h.update(np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes())
        return h.hexdigest()[:12]


def save_net(net: Net, path: str | Path) -> None:
    """Write ``net`` (magic, header length, JSON header, the arrays little-endian, CRC-32 of all
    before it); atomically: a crash leaves the old file or the new one."""
    header = json.dumps(net.header(), sort_keys=True).encode()
    body = b"".join([
        MAGIC, struct.pack("<I", len(header)), header,
        np.ascontiguousarray(net.w1, dtype="<i2").tobytes(), np.ascontiguousarray(net.b1, dtype="<i2").tobytes(),
        np.ascontiguousarray(net.w2, dtype="<i2").tobytes(), struct.pack("<i", int(net.b2)),
    ])
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(body + struct.pack("<I", zlib.crc32(body)))
    tmp.replace(path)


def load_net(path: str | Path, catalog=None) -> Net:
    """Read a net file; NetFileError names the file and what does not fit: not a net file, a
    version or layout this engine does not read, a wrong size, a damaged file (CRC), or a net
    trained for another unit catalog than ``catalog`` (when given)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_NET_BYTES:
            raise NetFileError(f"{path}: {size} bytes is more than a net file may have ({MAX_NET_BYTES})")
        data = path.read_bytes()
    except OSError as exc:
        raise NetFileError(f"{path}: cannot read the net file ({exc.strerror or exc})") from None

    def bad(what: str) -> NetFileError:
        return NetFileError(f"{path}: {what}")

    if len(data) < len(MAGIC) + 8 or data[:len(MAGIC)] != MAGIC:
        raise bad(f"not an NNUE net file of this engine (it does not start with {MAGIC!r})")
    body, (crc,) = data[:-4], struct.unpack("<I", data[-4:])
    if zlib.crc32(body) != crc:
        raise bad("damaged: its CRC-32 does not match (a truncated or altered file)")
    (length,) = struct.unpack_from("<I", body, len(MAGIC))
    start = len(MAGIC) + 4
    try:
        header = json.loads(body[start:start + length].decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise bad(f"its header is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise bad("its header is not a JSON object")
    expected = {"format": FORMAT, "version": VERSION, "features": N_FEATURES, "max_types": MAX_TYPES,
                "barracks_slots": BARRACKS_SLOTS, "qa": QA, "qb": QB, "scale": SCALE}
    for key, value in expected.items():
        if header.get(key) != value:
            raise bad(f"header field {key!r} is {header.get(key)!r}; this engine reads {value!r}")
    hidden = header.get("hidden")
    if hidden not in HIDDEN_SIZES:
        raise bad(f"header field 'hidden' is {hidden!r}; the kernel takes {', '.join(map(str, HIDDEN_SIZES))}")
    offset = start + length
    need = 2 * (N_FEATURES * hidden + hidden + 2 * hidden) + 4
    if len(body) - offset != need:
        raise bad(f"its weights take {len(body) - offset} bytes; a {hidden}-wide net has {need}")
    w1 = np.frombuffer(body, "<i2", N_FEATURES * hidden, offset).reshape(N_FEATURES, hidden).astype(np.int16)
    offset += 2 * N_FEATURES * hidden
    b1 = np.frombuffer(body, "<i2", hidden, offset).astype(np.int16)
    offset += 2 * hidden
    w2 = np.frombuffer(body, "<i2", 2 * hidden, offset).astype(np.int16)
    offset += 4 * hidden
    (b2,) = struct.unpack_from("<i", body, offset)
    tokens = header.get("catalog")
    if not (isinstance(tokens, list) and all(isinstance(t, str) for t in tokens) and len(tokens) <= MAX_TYPES):
        raise bad("header field 'catalog' must list the unit tokens it was trained for")
    if catalog is not None and tokens != catalog_signature(catalog):
        mine = catalog_signature(catalog)
        diff = next((i for i, (a, b) in enumerate(zip(tokens, mine)) if a != b), min(len(tokens), len(mine)))
        raise CatalogMismatch(f"{path}: trained for another unit catalog (type {diff}: the net has "
                  f"{tokens[diff] if diff < len(tokens) else 'none'}, this catalog "
                  f"{mine[diff] if diff < len(mine) else 'none'})")
    if np.abs(w2.astype(np.int32)).max(initial=0) > W2_LIMIT:
        raise bad(f"an output weight is outside +-{W2_LIMIT} (the kernel's int32 sum could overflow)")
    untrained = header.get("untrained", [])
    if not (isinstance(untrained, list) and all(t in tokens for t in untrained)):
        raise bad("header field 'untrained' must list tokens of its catalog")
    provenance = header.get("provenance", {})
    return Net(w1, b1, w2, int(b2), tokens, provenance if isinstance(provenance, dict) else {}, untrained)


def untrained_types(net: Net) -> list[int]:
    """The type indices of ``net.untrained`` in its catalog."""
    return [net.catalog.index(token) for token in net.untrained]


def accumulator(net: Net, record: BoardRecord, perspective: int) -> np.ndarray:
    """``b1 + sum(w1[f])`` over the perspective's features, in int16 wrapping arithmetic."""
    acc = net.b1.astype(np.int16).copy()
    for f in feature_indices(record, perspective):
        acc += net.w1[f]                      # int16 += int16 wraps, as the kernel's does
    return acc


def reference_eval(net: Net, record: BoardRecord) -> int:
    """The net's value of ``record`` for the side to move, in centi-points: exactly what the
    kernel returns (docs/nnue.md)."""
    with np.errstate(over="ignore"):
        own = accumulator(net, record, record.side)
        other = accumulator(net, record, 1 - record.side)
    h = net.hidden
    clipped = np.concatenate([np.clip(own.astype(np.int32), 0, QA), np.clip(other.astype(np.int32), 0, QA)])
    out = int(net.b2) + int(np.dot(clipped.astype(np.int64), net.w2.astype(np.int64)[:2 * h]))
    return (out * SCALE) // (QA * QB)        # the kernel: an int32 sum, an int64 product, floor division
