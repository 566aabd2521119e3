"""What a Crownfall player may know: everything on the table (RULINGS I9: open information). The only
unknown is the order of the Omen and Objective cards not yet drawn; the state keeps no such order
(each draw is a chance node over the unseen cards, each equally likely), so a determinization is
the same state with the chance generator reseeded (``resample``): it shuffles what is unseen.
"""

from __future__ import annotations

import random

from engine.crownfall.core import CrownfallCore

__all__ = ["observe", "resample", "public_key"]


def observe(g: CrownfallCore, player: int | None) -> dict:
    """Player ``player``'s view: the whole public state (the same for every player) and who they are
    (None: a spectator's, the public observation)."""
    return {"player": player, **g.public_dict()}


def resample(g: CrownfallCore, player: int, rng: random.Random) -> CrownfallCore:
    other = g.clone()
    other.rng = random.Random(rng.getrandbits(64))
    return other


def public_key(g: CrownfallCore) -> tuple:
    """Everything a player sees, hashable (the information key of every player: nothing is private)."""
    march = None if g.march is None else (g.march["piece"], g.march["at"], tuple(g.march["path"]),
                                          tuple(g.march["bonuses"]), g.march["silent"], g.march["fixed"],
                                          g.march["cracked"], g.march["done"])
    return (g.round, g.stage, g.current, g.actions_left, g.blink, g.omen, tuple(g.omen_seen), tuple(g.objectives),
            tuple(sorted(g.objective_pile)), tuple(g.banners), tuple(g.banner_owner), tuple(g.tower_owner),
            tuple(g.tower_role), tuple(g.damaged), tuple(g.anchor), tuple(g.mage), tuple(g.mana),
            tuple(tuple(t) for t in g.tracks), tuple(tuple(v) for v in g.levels), tuple(g.ward), tuple(g.garrison),
            tuple(sorted(g.scorch)), tuple(g.shield), tuple(g.shield_steps), tuple(sorted(g.watch_used)),
            tuple(g.turns_started), tuple(tuple(sorted(f.items())) for f in g.flags), g.ruin_bloom_done, march,
            tuple(g.places), tuple(g.returning), g.order_index, tuple(g.winners))
