"""Card effect behaviours, registered by card name and effect index (0 = first printed effect).

The printed numbers of an effect (gold, +orders, +actions, +buys, draws: engine/data/cards.toml) are
applied by engine/crown/phases.py before the effect's steps run, and its draws happen first. An effect
that does more registers a *step function*::

    @steps("Vigilance", 0)
    def vigilance(g: GameState, f: Frame, choice: int | None):
        if f.step == 0:                      # first call: choice is None
            return tk.ask(g, f, f.player, tk.hand_choices(g, f.player), "put a card on your Deck",
                          next_step=1, zone="hand")
        card = decode_card(choice)           # resumed with the chosen action
        ...                                  # returning None ends the effect

A step function returns an Ask (from ``tk.ask`` (engine/crown/toolkit.py)), CONTINUE (after ``tk.queue_draw`` /
``tk.queue_reveal`` with a next step), or None when the effect is done. It keeps what it must
remember in ``f.data`` (immutable values only), never in closures, so a state can be cloned at any
decision. ``@playable(name, index)`` registers a precondition for effects the rules forbid playing
when impossible (Quartermaster's two empty squares, Heir's unthreatened square).

Modules: one per family of effects (orders that move units, deck manipulation, treasures, ...).
"""


from __future__ import annotations

from engine.crown.core import GameCore
from engine.crown.effects import cards_in_hand, orders, placement, special_orders, treasures  # noqa: F401  (they register)
from engine.crown.effects.registry import (
    PRECONDITIONS,
    REGISTRY,
    decode_card,
    decode_square,
    decode_unit,
    playable,
    steps,
)

__all__ = ["steps", "playable", "run_effect", "has_steps", "can_play", "decode_card", "decode_square",
           "decode_unit", "REGISTRY", "MODULES", "effect_checks"]

#: The effect modules, one per family of effects.
MODULES = (cards_in_hand, orders, placement, special_orders, treasures)


def has_steps(g: GameCore, card: int, index: int) -> bool:
    """Whether the effect does more than its printed numbers."""
    return (g.cards.cards[card].name, index) in REGISTRY


def can_play(g: GameCore, player: int, card: int, index: int) -> bool:
    """The effect's precondition, if it has one (Quartermaster, Heir)."""
    check = PRECONDITIONS.get((g.cards.cards[card].name, index))
    return check is None or bool(check(g, player))


_CHECKS: dict[int, tuple] = {}


def effect_checks(cards) -> tuple[tuple, ...]:
    """Per card id of the catalog ``cards``, per effect index: its precondition function or None
    (made once per catalog; the catalog is kept with its table, so an id is never reused)."""
    entry = _CHECKS.get(id(cards))
    if entry is None or entry[0] is not cards:
        table = tuple(tuple(PRECONDITIONS.get((card.name, i)) for i in range(len(card.effects))) for card in cards.cards)
        entry = _CHECKS[id(cards)] = (cards, table)
    return entry[1]


def run_effect(g: GameCore, frame, choice):
    """Run (or resume with ``choice``) the step function of the frame's effect."""
    return REGISTRY[(g.cards.cards[frame.card].name, frame.index)](g, frame, choice)
