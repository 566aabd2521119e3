"""Values that keep lost positions apart (issue 28): how far away a result the board search proved
is, and what the losing player may still defend with next turn.

The turn planner (engine/crown/planner.py) judges the end of a line by the board alpha-beta's
answer to the opponent's reply. When that search proves a Sovereign loss, the learned model's board
feature is clipped and every lost line looked alike (a loss in one ply and a loss in three plies
got nearly the same value). Here a proved result keeps its distance:

- ``forced_logit(plies, won, resources)``: the log-odds, in the learned model's scale
  (engine/crown/state_eval.py), of a result the board search proved ``plies`` plies ahead. Every
  proved result lies beyond every unproved value (``FORCED_LOGIT`` exceeds what the model's
  features can reach); a win sooner scores higher, a loss later scores higher, and among losses at
  the same distance the one with more ``resources`` left scores higher. A loss in one ply (the
  opponent takes the Sovereign at once) gets no credit for resources: the player never acts again.
- ``defence_resources(g, player)`` in [0, 1): what the player's next turn may defend with that a
  board search cannot see: the expected defensive cards of the next hand of five (9.0) drawn from
  what the player's Deck holds (and, when the Deck runs short, the cards reshuffled into it), and a
  Barracks unit that a plain deploy (6.0) can put next to the player's Sovereign. The weights are
  data, engine/data/survival.toml (the project's judgement, editable).

>>> forced_logit(3, won=False) > forced_logit(1, won=False)          # surviving longer is better
True
>>> forced_logit(2, won=True) > forced_logit(4, won=True)            # winning sooner is better
True
>>> forced_logit(3, False, 0.8) > forced_logit(3, False, 0.1)        # more defences left is better
True
>>> forced_logit(1, False, 0.8) == forced_logit(1, False, 0.0)       # lost at once: nothing helps
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.catalog import read_toml_file
from engine.crown.core import HAND_SIZE

__all__ = ["FORCED_LOGIT", "SURVIVAL_STEP", "RESOURCE_SPAN", "DefenceWeights", "SurvivalError",
           "forced_logit", "load_weights", "default_weights", "defence_resources", "DEFAULT_PATH"]

#: The log-odds of a proved result at distance 0; the learned model's features (each clipped to a few
#: units, weights of a few units) never reach a hundredth of it.
FORCED_LOGIT = 5000.0
#: What one ply more (a loss) or less (a win) is worth; more than any difference of resources.
SURVIVAL_STEP = 10.0
#: What the resources in [0, 1) add to a loss that is more than one ply away.
RESOURCE_SPAN = 9.0

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "data" / "survival.toml"


class SurvivalError(ValueError):
    """A survival weights file that cannot be used: names the file and the field."""


def forced_logit(plies: int, won: bool, resources: float = 0.0) -> float:
    """The learned model's log-odds of a result proved ``plies`` plies ahead (module text)."""
    if plies < 0:
        raise ValueError("forced_logit: plies must be >= 0")
    if won:
        return FORCED_LOGIT - SURVIVAL_STEP * plies
    credit = RESOURCE_SPAN * min(max(resources, 0.0), 1.0) if plies > 1 else 0.0
    return -FORCED_LOGIT + SURVIVAL_STEP * plies + credit


@dataclass(frozen=True)
class DefenceWeights:
    """Per card name, the chance that it answers a threat when in hand; ``blocker``: the same for a
    Barracks unit a plain deploy can put next to the Sovereign."""

    cards: dict
    blocker: float


def load_weights(path: str | Path | None = None) -> DefenceWeights:
    """The weights in ``path`` (default engine/data/survival.toml); each a number in [0, 1]."""
    path = Path(path) if path is not None else DEFAULT_PATH
    data = read_toml_file(path, "the survival weights", SurvivalError)

    def weight(table: str, key: str, value) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise SurvivalError(f"{path}: [{table}] {key!r} must be a number from 0 to 1, got {value!r}")
        return float(value)

    defence = data.get("defence", {})
    barracks = data.get("barracks", {})
    if not isinstance(defence, dict) or not isinstance(barracks, dict):
        raise SurvivalError(f"{path}: [defence] and [barracks] must be tables")
    unknown = sorted(set(barracks) - {"blocker"})
    if unknown:
        raise SurvivalError(f"{path}: [barracks] {unknown[0]!r} is not a field; known: blocker")
    return DefenceWeights({name: weight("defence", name, w) for name, w in defence.items()},
                          weight("barracks", "blocker", barracks.get("blocker", 0.0)))


@lru_cache(maxsize=1)
def default_weights() -> DefenceWeights:
    """The shipped weights (engine/data/survival.toml), read once."""
    return load_weights()


_CARD_WEIGHTS: dict = {}


def _card_weights(g, weights: DefenceWeights) -> list[float]:
    """The weights per card id of ``g``'s card catalog, cached per (catalog, weights)."""
    key = (id(g.cards), id(weights))
    cached = _CARD_WEIGHTS.get(key)
    if cached is None or cached[0] is not g.cards or cached[1] is not weights:
        cached = _CARD_WEIGHTS[key] = (g.cards, weights, [weights.cards.get(card.name, 0.0) for card in g.cards.cards])
    return cached[2]


def _next_hand(g, player: int) -> list[tuple[int, float]]:
    """(card id, expected copies in the next hand of HAND_SIZE) of ``player``, drawn at the end of
    its turn: the known top cards first, then the Deck's multiset (its order unknown, C4); if the
    Deck runs short, the rest from its reshuffled Discard (the hand and the cards played go there
    first, 9.0)."""
    zones = g.zones[player]
    expected: dict[int, float] = {}
    left = HAND_SIZE
    for card, _known in reversed(zones.top):
        if left == 0:
            break
        expected[card] = expected.get(card, 0.0) + 1.0
        left -= 1
    deck = sum(zones.deck)
    if left and deck:
        share = min(1.0, left / deck)
        for card, n in enumerate(zones.deck):
            if n:
                expected[card] = expected.get(card, 0.0) + n * share
        left -= min(left, deck)
    if left:
        pile = list(zones.discard) + list(zones.hand) + list(zones.played)
        if pile:
            share = min(1.0, left / len(pile))
            for card in pile:
                expected[card] = expected.get(card, 0.0) + share
    return list(expected.items())


def _blocker_in_reach(g, player: int) -> bool:
    """A Barracks unit (not a Sovereign) and an empty square next to one of the player's Sovereigns
    on the player's first or second rank, where a plain deploy may put it (6.0)."""
    board, units = g.board, g.units.units
    if not any(n and not units[t].is_sovereign for t, n in enumerate(board.barracks_counts(player))):
        return False
    occupied = board.occupied()
    home = (0, 1) if player == 0 else (7, 6)
    for sq in board.squares_of(player):
        if not units[board.unit_on(sq)[0]].is_sovereign:
            continue
        rank, file = divmod(sq, 8)
        for dr in (-1, 0, 1):
            for df in (-1, 0, 1):
                r, f = rank + dr, file + df
                if (dr or df) and 0 <= r < 8 and 0 <= f < 8 and r in home and not (occupied >> (8 * r + f)) & 1:
                    return True
    return False


def defence_resources(g, player: int, weights: DefenceWeights | None = None) -> float:
    """What ``player``'s next turn may defend with, in [0, 1) (module text): 1 - exp(-sum), the sum
    over the next hand's expected cards of their weights, plus the blocker's weight when a Barracks
    unit can be deployed next to the Sovereign. Reads the player's own zones only (a determinization
    of the player's information set is enough)."""
    weights = weights or default_weights()
    if len(_MEMO) > _MEMO_LIMIT:
        _MEMO.clear()
    zones = g.zones[player]
    # The planner asks this of thousands of line ends that share their cards or their board: both
    # parts are remembered by what they read (the memo holds no state, only numbers).
    hand_key = ("hand", id(g.cards), id(weights), player, tuple(zones.deck), tuple(zones.top),
                None if sum(zones.deck) + len(zones.top) >= HAND_SIZE else
                tuple(sorted(zones.discard + zones.hand + zones.played)))
    hand = _MEMO.get(hand_key)
    if hand is None:
        per_card = _card_weights(g, weights)
        hand = _MEMO[hand_key] = sum(per_card[card] * copies for card, copies in _next_hand(g, player))
    total = hand
    if weights.blocker:
        board_key = ("board", id(g.units), player, g.board.key)
        blocker = _MEMO.get(board_key)
        if blocker is None:
            blocker = _MEMO[board_key] = _blocker_in_reach(g, player)
        if blocker:
            total += weights.blocker
    return 1.0 - math.exp(-total)


#: Parts of defence_resources already computed (cleared when it grows past _MEMO_LIMIT entries).
_MEMO: dict = {}
_MEMO_LIMIT = 200_000
