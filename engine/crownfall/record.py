"""Crownfall's game records: a JSON document (the configuration, every decision and chance outcome in
order, the result, the chance generator's state) that replays to the identical game, and the checks
that name what is wrong with a bad one.

Format::

    {"format": "ftc-crownfall-record", "rules": "<data files>", "config": {...CrownfallConfig...},
     "steps": [[player, action], ...],        # player -1: a chance outcome (the card's index)
     "result": {"winners": [...], "reason": "..."}, "rng": [version, [...], gauss], "auto_chance": true}
"""

from __future__ import annotations

from engine.crownfall.core import RECORD_FORMAT, CrownfallCore, CrownfallError

__all__ = ["make_record", "check_record"]


def make_record(g: CrownfallCore) -> dict:
    version, internal, gauss = g.rng.getstate()
    return {"format": RECORD_FORMAT, "rules": g.rules.source, "config": g.config.to_json(),
            "steps": [list(step) for step in g.history],
            "result": {"winners": list(g.winners), "reason": g.over_reason},
            "rng": [version, list(internal), gauss], "auto_chance": g.auto_chance}


def check_record(record) -> tuple[dict, list, tuple, bool]:
    """(config data, steps, generator state, auto_chance) of a record, checked; CrownfallError names the
    field that is wrong."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise CrownfallError(f"record: not a Crownfall record (expected format {RECORD_FORMAT!r})")
    config = record.get("config")
    if not isinstance(config, dict):
        raise CrownfallError("record.config: expected an object of game options")
    steps = record.get("steps")
    if not isinstance(steps, list):
        raise CrownfallError("record.steps: expected a list of [player, action] pairs")
    for i, step in enumerate(steps):
        if (not isinstance(step, list) or len(step) != 2 or not all(isinstance(x, int) and not isinstance(x, bool)
                                                                     for x in step)):
            raise CrownfallError(f"record.steps[{i}]: expected [player, action] (two integers), got {step!r}")
    rng = record.get("rng")
    try:
        version, internal, gauss = rng
        state = (int(version), tuple(int(x) for x in internal), gauss)
        if len(state[1]) != 625:
            raise ValueError
    except (TypeError, ValueError):
        raise CrownfallError("record.rng: expected the generator's state [version, [625 integers], gauss]") from None
    auto = record.get("auto_chance", True)
    if not isinstance(auto, bool):
        raise CrownfallError(f"record.auto_chance: expected true or false, got {auto!r}")
    return config, steps, state, auto
