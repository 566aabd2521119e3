"""What a card is worth to a player, read from the rules data (cards.toml's effect numbers and
units.toml's prices, never card names): the expert bot's buy and play rules and the learned
evaluation of full states (engine/crown/state_eval.py) both read cards through these profiles."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CardProfile", "card_profiles"]


@dataclass(frozen=True)
class CardProfile:
    """What the expert bot reads of a card type: cards.toml's numbers and units.toml's prices."""

    cost: int                # gold to buy it (0 for a starter)
    starter: bool
    gold: int                # gold of its treasure effect (a treasure whose gold is its own rule: 1)
    train: int               # points its training effect trains (unit price x count), 0 without one
    plus_orders: int         # orders an order effect of it gives back
    plus_actions: int        # actions an effect of it gives back
    draws: int               # cards its best non-training effect draws
    economy: float           # gold and buys of its non-training effects (a buy counts half)
    terminal: bool           # every use of it but training takes the turn's order or action, giving none back

    @property
    def tempo(self) -> float:
        """What it adds to a turn without using it up: orders and actions given back, draws."""
        return self.plus_orders + self.plus_actions + 0.5 * self.draws

    @property
    def keep(self) -> float:
        """What the card is worth kept in the Deck (what training it gives up): economy and tempo."""
        return self.economy + self.tempo + (1.0 if self.terminal else 0.0)


def card_profiles(cards, units) -> list[CardProfile]:
    """One CardProfile per card of the catalog ``cards`` (units: the unit catalog, for prices)."""
    profiles = []
    for card in cards.cards:
        gold = train = plus_orders = plus_actions = draws = 0
        economy, treasure, uses_turn = 0.0, False, False
        for spec in card.effects:
            if spec.kind == "training":
                train = max(train, units.by_token[spec.trains].price * spec.count)
                continue
            own_rule = spec.kind == "treasure" and spec.gold == 0 and bool(spec.rule)   # Legend: counted 1
            if spec.kind == "treasure":
                treasure = True
                gold = max(gold, 1 if own_rule else spec.gold)
            economy = max(economy, (1 if own_rule else spec.gold) + 0.5 * spec.buys)
            draws = max(draws, spec.draws)
            if spec.phase == "order":
                plus_orders = max(plus_orders, spec.orders)
                plus_actions = max(plus_actions, spec.actions)
                uses_turn = True
            elif spec.phase == "action":
                plus_actions = max(plus_actions, spec.actions)
                uses_turn = True
        terminal = uses_turn and not treasure and plus_orders + plus_actions == 0
        profiles.append(CardProfile(card.cost or 0, card.role in ("starter", "alt-starter"), gold, train,
                                    plus_orders, plus_actions, draws, economy, terminal))
    return profiles
