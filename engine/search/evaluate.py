"""Board evaluation weights: material from the Point-Buy prices of the unit catalog, the rest from
engine/data/eval.toml (or a user's file). The evaluation itself runs in C (ext/_search.pyx)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from engine.catalog import Catalog

__all__ = ["EvalWeights", "load_weights", "EvalError"]

_FIELDS = ("points", "barracks_percent", "mobility", "sovereign_attacked", "extra_sovereign")


class EvalError(ValueError):
    """A weights file that cannot be used; the message names the field."""


@dataclass(frozen=True)
class EvalWeights:
    points: int = 100
    barracks_percent: int = 80
    mobility: int = 4
    sovereign_attacked: int = 250
    extra_sovereign: int = 300

    def kernel_dict(self, catalog: Catalog) -> dict:
        return {
            "values": [u.price * self.points for u in catalog.units],
            "barracks_percent": self.barracks_percent,
            "mobility": self.mobility,
            "sovereign_attacked": self.sovereign_attacked,
            "extra_sovereign": self.extra_sovereign,
        }


def load_weights(path: str | Path | None = None) -> EvalWeights:
    if path is None:
        text, source = resources.files("engine.data").joinpath("eval.toml").read_text(encoding="utf-8"), "eval.toml"
    else:
        text, source = Path(path).read_text(encoding="utf-8"), str(path)
    try:
        data = tomllib.loads(text).get("weights", {})
    except tomllib.TOMLDecodeError as exc:
        raise EvalError(f"{source}: not valid TOML: {exc}") from None
    for key, value in data.items():
        if key not in _FIELDS:
            raise EvalError(f"{source}: unknown weight {key!r}; known: {', '.join(_FIELDS)}")
        if not isinstance(value, int) or isinstance(value, bool) or not -100_000 <= value <= 100_000:
            raise EvalError(f"{source}: weight {key!r} must be an integer in -100000..100000, got {value!r}")
    return EvalWeights(**data)
