"""Effects that manipulate cards: reveal Hands, trash and morph, discard and redraw, put cards back on
the Deck, search the Deck (13.0 and 17.0).

The printed numbers of each effect (draws, gold, +orders, +actions, +buys) are data and are applied,
draws included, before these steps run (engine/crown/phases.py). Executive Action's order effect
(13.0: draw 2, +1 action) is numbers only and registers no steps here.

Rulings made here where 13.0 / 17.0 leave a detail open (see the docstrings for the reasons):

- Morph (Destiny, Refiner): any Barracks unit may be chosen, also one an order sent there this turn
  (RULINGS C17; it stays barred from deploying this turn, toolkit.morph_barracks). A unit may be
  chosen even if it already has the trained type (the morph then changes nothing), as promotion (6.0, RULINGS B18) offers every allowed type including the
  unit's own. If the Stock holds none of the trained type, the morph is impossible and is skipped
  (5.0); the training card is still trashed.
- Costs (Refiner's alternative action, Sacrifice): the cost in force now, ``GameCore.cost`` (so a
  Quartermaster discount counts on both sides of Refiner's comparison, 13.0 Quartermaster says every
  card's cost is reduced, including cards in the Hand). Starter cards have no printed cost and count
  as 0.
- Cards put on the Deck (Scribes, Stables, Vigilance, Compass) are known to their owner only; a card
  False Orders puts back is known to both players.
"""

from __future__ import annotations

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.core import Frame, GameCore
from engine.crown.effects._common import ask_hand_card, unit_options
from engine.crown.effects.registry import decode_card, steps

__all__: list[str] = []

# ---------------------------------------------------------------------------------------------
# Shared building blocks of this module


def _training_spec(card):
    """The training effect of a card type (7.0: "Training Action" or "Training Action x2"), or None."""
    for spec in card.effects:
        if spec.kind == "training":
            return spec
    return None


def _name_options(g: GameCore) -> dict[int, str]:
    """Saying the name of any card (Wish, Far Sight): every card of the catalog is a legal name."""
    return {A.card(c.id): f"name {c.name}" for c in g.cards}


def _trash_training_then_morph(g: GameCore, f: Frame, choice, board: bool):
    """Destiny (13.0) / Refiner (13.0, action): trash a training card from the Hand, then morph one
    of your units into the type it trains (on the board or in the Barracks when ``board``, else in
    the Barracks only).

    Steps: 0 ask the card; 1 trash it, ask the unit; 2 morph."""
    player = f.player
    if f.step == 0:
        # No training card in the Hand (after the draw): no trash, no morph.
        return ask_hand_card(g, f, "trash a card with a training effect", next_step=1,
                             predicate=lambda card: _training_spec(card) is not None)
    if f.step == 1:
        card = decode_card(choice)
        tk.move_card(g, player, card, "hand", "trash")           # trashed even if no morph follows
        new_t = g.units[_training_spec(g.cards.cards[card]).trains].id
        if g.board.stock_count(new_t) <= 0:
            return None                                       # 5.0: no unit of that type to morph into
        options = unit_options(g, tk.units_of(g, player)) if board else {}
        for t in tk.barracks_types(g, player, include_ordered=True):    # C17: a morph is not a deploy
            options[A.unit_type(t)] = f"{g.unit_name(t)} in your Barracks"
        if not options:
            return None                                       # no unit to morph: the card is lost
        f.data["morph_to"] = new_t
        return tk.ask(g, f, player, options, f"morph one of your units into a {g.unit_name(new_t)}", next_step=2)
    new_t = f.data["morph_to"]
    kind, arg = A.decode(choice)
    if kind == A.K_SQUARE:
        g.board.morph_square(arg, new_t)
    else:
        tk.morph_barracks(g, player, arg, new_t)
    return None


def _ask_gain(g: GameCore, f: Frame, limit: int, next_step: int):
    """Ask for a Supply card costing at most ``limit`` now; None when every pile left costs more."""
    options = tk.supply_choices(g, lambda card: g.cost(card.id) <= limit)
    if not options:
        return None
    return tk.ask(g, f, f.player, options, f"gain a card costing up to {limit} gold", next_step, zone="supply")


def _discard_then_draw(g: GameCore, f: Frame, choice, limit: int, gold_per_card: int):
    """Versatility (13.0) / Supply Tent (17.0): discard up to ``limit`` cards one at a time (the
    player may stop at any point), then draw as many and earn ``gold_per_card`` for each.

    Steps: 0 first question; 1 a card or "stop"; 2 after the draws."""
    player = f.player
    if f.step == 2:
        return None
    if f.step == 0:
        f.data["discarded"] = 0
    elif choice != A.DONE:
        tk.move_card(g, player, decode_card(choice), "hand", "discard")
        f.data["discarded"] += 1
    n = f.data["discarded"]
    if choice != A.DONE and n < limit and g.zones[player].hand:
        options = tk.hand_choices(g, player)
        options[A.DONE] = "stop discarding" if n else "discard nothing"
        return tk.ask(g, f, player, options, f"discard a card ({n} of up to {limit} so far)", next_step=1,
                      zone="hand")
    g.gold += gold_per_card * n
    if n == 0:
        return None
    return tk.queue_draw(g, f, player, n, next_step=2)


def _put_on_deck(g: GameCore, f: Frame, choice, optional: bool):
    """Scribes, Stables, Vigilance (13.0): put one card from the Hand on top of the Deck, face down
    (the next card drawn). Mandatory unless ``optional``; with an empty Hand nothing happens (5.0).
    If the Deck is empty the card becomes the Deck.

    Steps: 0 ask; 1 put it back."""
    if f.step == 0:
        options = tk.hand_choices(g, f.player)
        if not options:
            return None
        if optional:
            options[A.DONE] = "put no card back"
        return tk.ask(g, f, f.player, options, "put a card from your Hand on top of your Deck", next_step=1,
                      zone="hand")
    if choice != A.DONE:
        tk.move_card(g, f.player, decode_card(choice), "hand", "top")
    return None


# ---------------------------------------------------------------------------------------------
# Revealing Hands


@steps("Astrology", 0)
def astrology(g: GameCore, f: Frame, choice):
    """13.0 Astrology (order): +1 order, +1 buy, +1 gold (data); the opponent's current Hand is
    revealed to you. The card names no unit, so no unit counts as ordered (6.0)."""
    tk.reveal_hand(g, tk.opponent(f.player))
    return None


@steps("Far Sight", 0)
def far_sight(g: GameCore, f: Frame, choice):
    """17.0 Far Sight (action): +1 gold (data); name any card; the opponent's Hand is revealed and
    they discard every card of that name in it (none if they hold none).

    Steps: 0 name; 1 reveal and discard."""
    if f.step == 0:
        return tk.ask(g, f, f.player, _name_options(g), "name a card", next_step=1, zone="name")
    named = decode_card(choice)
    opponent = tk.opponent(f.player)
    tk.reveal_hand(g, opponent)
    while named in g.zones[opponent].hand:
        tk.move_card(g, opponent, named, "hand", "discard")
    return None


# ---------------------------------------------------------------------------------------------
# Trashing and gaining


@steps("Destiny", 0)
def destiny(g: GameCore, f: Frame, choice):
    """13.0 Destiny (action): draw 1, +1 action (data); trash a card of your Hand that has a
    training effect, then morph one of your units, on the board or in the Barracks, into the type
    that effect trains. No training card: nothing happens. A training card but no unit (or no unit
    of that type left in the Stock): the card is still trashed, nothing is morphed."""
    return _trash_training_then_morph(g, f, choice, board=True)


@steps("Refiner", 0)
def refiner(g: GameCore, f: Frame, choice):
    """13.0 Refiner (action): as Destiny, but the morphed unit must be in your Barracks."""
    return _trash_training_then_morph(g, f, choice, board=False)


@steps("Refiner", 1)
def refiner_alternative(g: GameCore, f: Frame, choice):
    """13.0 Refiner (alternative action): draw 1, +1 action (data); trash any card of your Hand, then
    gain a Supply card costing at most the trashed card's cost + 2 (a starter card counts as cost 0).
    Nothing affordable left: no gain. An empty Hand: nothing to trash, hence no gain either (the gain
    is measured against the trashed card).

    Steps: 0 ask the card; 1 trash it, ask the gain; 2 gain."""
    if f.step == 0:
        return ask_hand_card(g, f, "trash a card", next_step=1)
    if f.step == 1:
        card = decode_card(choice)
        limit = g.cost(card) + 2              # measured before the card leaves (same value after)
        tk.move_card(g, f.player, card, "hand", "trash")
        return _ask_gain(g, f, limit, next_step=2)
    tk.gain(g, f.player, decode_card(choice))
    return None


@steps("Sacrifice", 0)
def sacrifice(g: GameCore, f: Frame, choice):
    """13.0 Sacrifice (action): with an empty Hand it has no effect. Otherwise discard (not trash) a
    card of your Hand, then gain a Supply card costing 6 gold or less.

    Steps: 0 ask the card; 1 discard it, ask the gain; 2 gain."""
    if f.step == 0:
        return ask_hand_card(g, f, "discard a card", next_step=1)
    if f.step == 1:
        tk.move_card(g, f.player, decode_card(choice), "hand", "discard")
        return _ask_gain(g, f, 6, next_step=2)
    tk.gain(g, f.player, decode_card(choice))
    return None


# ---------------------------------------------------------------------------------------------
# Discarding and redrawing


@steps("Sanctuary", 1)
def sanctuary_alternate(g: GameCore, f: Frame, choice):
    """13.0 Sanctuary (alternate order): draw 2, +1 order, +1 gold (data); then discard exactly two
    cards of your Hand (drawn ones included), even if fewer than 2 were drawn; with fewer cards in
    the Hand, all of them.

    Steps: 0 first card; 1 discard, maybe ask the second."""
    if f.step == 0:
        f.data["left"] = 2
    else:
        tk.move_card(g, f.player, decode_card(choice), "hand", "discard")
        f.data["left"] -= 1
    if f.data["left"] <= 0:
        return None
    return ask_hand_card(g, f, f"discard a card ({f.data['left']} left to discard)", next_step=1)


@steps("Versatility", 0)
def versatility(g: GameCore, f: Frame, choice):
    """13.0 Versatility (order): +1 order (data); discard up to 4 cards of your Hand (another
    Versatility may be discarded, not this one, which is no longer in the Hand), then draw as many."""
    return _discard_then_draw(g, f, choice, limit=4, gold_per_card=0)


@steps("Supply Tent", 1)
def supply_tent_alternate(g: GameCore, f: Frame, choice):
    """17.0 Supply Tent (alternate order): +1 order (data); discard up to 3 cards of your Hand, then
    draw as many and earn 1 gold per discarded card."""
    return _discard_then_draw(g, f, choice, limit=3, gold_per_card=1)


# ---------------------------------------------------------------------------------------------
# Putting cards back on the Deck


@steps("Scribes", 0)
def scribes(g: GameCore, f: Frame, choice):
    """13.0 Scribes (action): draw 3, +1 buy (data); then you may put one card of your Hand on top
    of your Deck."""
    return _put_on_deck(g, f, choice, optional=True)


@steps("Stables", 1)
def stables_action(g: GameCore, f: Frame, choice):
    """13.0 Stables (action): draw 2, +1 action, +1 buy (data); then you must put one card of your
    Hand on top of your Deck."""
    return _put_on_deck(g, f, choice, optional=False)


@steps("Vigilance", 0)
def vigilance(g: GameCore, f: Frame, choice):
    """13.0 Vigilance (action): draw 1, +1 action, +1 buy, +2 gold (data); then you must put one card
    of your Hand on top of your Deck, even if nothing could be drawn."""
    return _put_on_deck(g, f, choice, optional=False)


@steps("Compass", 1)
def compass_alternate(g: GameCore, f: Frame, choice):
    """17.0 Compass (alternate order): +1 order, +1 gold, draw 3 (data); then put 3 cards of your
    Hand on top of your Deck in the order you choose (drawn cards may go back). Even after fewer
    than 3 draws you put 3 back; with 3 or fewer cards in the Hand, the whole Hand goes back.

    The cards are chosen one at a time; each goes on top of the previous one, so the last card
    chosen is the next card drawn. Steps: 0 first card; 1 put it back, maybe ask the next."""
    zones = g.zones[f.player]
    if f.step == 0:
        f.data["left"] = min(3, len(zones.hand))
    else:
        tk.move_card(g, f.player, decode_card(choice), "hand", "top")
        f.data["left"] -= 1
    left = f.data["left"]
    if left <= 0:
        return None
    return ask_hand_card(g, f, f"put a card on top of your Deck ({left} left; the last one put back is drawn first)",
                         next_step=1)


# ---------------------------------------------------------------------------------------------
# Searching and inspecting Decks


@steps("Wish", 0)
def wish(g: GameCore, f: Frame, choice):
    """13.0 Wish (order): +1 order (data); name any card, then reveal cards from the top of your Deck
    one at a time until one of that name appears: it goes to your Hand (known to both players, it
    was revealed), the other revealed cards to your Discard. When the Deck runs out, the Discard is
    reshuffled into a new Deck, leaving out the cards revealed so far and the cards played this turn
    (those are in the played zone, not the Discard), and the search goes on. When Deck and Discard
    are both exhausted without finding the name, every revealed card is discarded.

    The revealed cards are kept aside in f.data['aside'] (a tuple) until the search ends.
    Steps: 0 name; 1 start; 2 a card was revealed."""
    player = f.player
    zones = g.zones[player]
    if f.step == 0:
        return tk.ask(g, f, player, _name_options(g), "name a card", next_step=1, zone="name")
    if f.step == 1:
        f.data["named"] = decode_card(choice)
        f.data["aside"] = ()
    else:
        card = f.data.pop("revealed", None)
        if card is not None:
            if card == f.data["named"]:
                zones.hand.append(card)             # no move_card source holds revealed cards
                zones.known_hand.append(card)       # it was revealed to both players
                zones.discard.extend(f.data["aside"])
                return None
            f.data["aside"] = f.data["aside"] + (card,)
    if zones.deck_size() == 0:
        if not zones.discard:
            zones.discard.extend(f.data["aside"])   # not found: every revealed card is discarded
            return None
        tk.reshuffle(g, player)                         # 13.0 Wish: the cards aside stay out
    return tk.queue_reveal(g, f, player, next_step=2, reshuffle=False)


@steps("False Orders", 1)
def false_orders_action(g: GameCore, f: Frame, choice):
    """13.0 False Orders (action): the opponent reveals the top card of their Deck (reshuffling
    their Discard into a new Deck if it is empty), and you choose to trash it or to put it back on
    top, where both players know it. With no card in their Deck and Discard nothing happens.

    While you decide, the revealed card lies on top of their Deck, known to both players.
    Steps: 0 reveal; 1 ask; 2 trash or leave it."""
    opponent = tk.opponent(f.player)
    zones = g.zones[opponent]
    if f.step == 0:
        return tk.queue_reveal(g, f, opponent, next_step=1, reshuffle=True)
    if f.step == 1:
        card = f.data.pop("revealed", None)
        if card is None:
            return None
        zones.top.append((card, True))
        name = g.card_name(card)
        options = {A.yes(): f"trash the revealed {name}", A.no(): f"put the revealed {name} back on top"}
        return tk.ask(g, f, f.player, options, f"{name} revealed from the top of the opponent's Deck", next_step=2)
    if choice == A.yes():
        card, _ = zones.top.pop()
        tk.trash_card(g, card)
    return None
