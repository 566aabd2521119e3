"""Hidden information (RULINGS C4, C12): what one player may know, and full states consistent with it.

A player sees their own Hand, both Discard piles, the cards played this turn, the Trash, the Supply
(and in The Last Stand the starting cards set aside beside it, C22), the board, both Barracks and the
Stock, the size of every Deck and Hand, the cards of the opponent's Hand that were revealed to them
(Astrology, Far Sight) and are still there, and the cards known to lie on top of a Deck (their own
put-backs; a False Orders reveal put back is known to both). Nobody knows a Deck's order: Decks are
multisets and drawing is a chance event.

The public observation (``observation(g, None)``, a spectator's) is what both players' observations
share: everything on the table, each seat's Hand and Deck by size only, and behind the Point-Buy
screen only the set-up's units. A card one player's observation names but the other's does not (a
Hand, a put-back, a card revealed to one player) is not in it.
"""

from __future__ import annotations

import json
import random
from collections import Counter

from engine.crown.core import SETUP_PHASE, GameCore
from engine.notation import format_position
from engine.position import read_core

__all__ = ["observation", "public_observation", "resample_hidden", "hidden_pool", "screened_board", "behind_screen", "public_key",
           "information_key"]


def _names(g: GameCore, cards) -> list[str]:
    return sorted(g.card_name(c) for c in cards)


def observation(g: GameCore, player: int | None) -> dict:
    """A JSON-ready dict of everything ``player`` may know now, and nothing else; ``player`` None:
    the public observation (``public_observation``)."""
    if player is None:
        return public_observation(g)
    opponent = 1 - player
    mine, theirs = g.zones[player], g.zones[opponent]
    obs = {
        "player": player,
        **_table(g, player),
        "you": {
            "hand": _names(g, mine.hand),
            "deck_size": mine.deck_size(),
            "deck_top": [g.card_name(c) for c, _ in mine.top],
            "deck_contents": _names(g, _deck_cards(mine)),
            "discard": _names(g, mine.discard),
            "played": [g.card_name(c) for c in mine.played],
        },
        "opponent": {
            "hand_size": len(theirs.hand),
            "hand_known": _names(g, theirs.known_hand),
            "deck_size": theirs.deck_size(),
            "deck_top": [g.card_name(c) if known else None for c, known in theirs.top],
            "discard": _names(g, theirs.discard),
            "played": [g.card_name(c) for c in theirs.played],
        },
        "over": g.over_reason,
        "winner": g.winner,
    }
    _common(g, obs)
    obs["decision"] = _decision(g, player)
    return obs


def _decision(g: GameCore, viewer: int | None) -> dict | None:
    """Who decides now, as ``viewer`` (a seat, or None for a spectator) may know it: the options only
    for the seat that decides (another's could name their hidden cards)."""
    if g.is_terminal():
        return None
    if g.is_chance_node():
        return {"player": "chance"}
    if viewer is not None and g.decision.player == viewer:
        return {"player": viewer, "prompt": g.decision.prompt,
                "actions": {str(a): g.action_text(a) for a in g.decision.actions}}
    return {"player": g.decision.player}


def public_observation(g: GameCore) -> dict:
    """What both players may know (a spectator's observation): the table as each player sees it,
    the seats' piles by size but the public ones (Discard, cards played this turn), who decides."""
    seats = [{"hand_size": len(z.hand), "deck_size": z.deck_size(), "discard": _names(g, z.discard),
              "played": [g.card_name(c) for c in z.played]} for z in g.zones]
    obs = {
        "player": None,
        **_table(g, None),
        "seats": seats,
        "over": g.over_reason,
        "winner": g.winner,
    }
    _common(g, obs)
    obs["decision"] = _decision(g, None)
    return obs


def _table(g: GameCore, player: int | None) -> dict:
    """What every observation says of the table: the turn (as players count it, 1 first), who plays,
    the phase and its counters, the board as ``player`` sees it, the Supply, the Trash, the ban."""
    return {"turn": g.turn_number, "current": g.current, "phase": g.phase,
            "counters": {"orders": g.orders, "actions": g.actions, "buys": g.buys, "gold": g.gold,
                         "discount": g.discount},
            "board": _board_text(g, player), "supply": {g.card_name(c): g.supply[c] for c in g.supply_ids},
            "trash": _names(g, g.trash), "card_order_ban": list(g.card_order_ban)}


def _common(g: GameCore, obs: dict) -> None:
    """The public parts only some variants have, added to an observation."""
    if g.variant.trash_returns_to_supply:
        # The Last Stand's starting cards set aside beside the Supply (C22), public like the Trash;
        # the key exists only in that variant, so other games' observations keep their shape.
        obs["set_aside"] = _names(g, g.set_aside)


def behind_screen(g: GameCore) -> bool:
    """Point-Buy behind a screen, while the armies are picked: each side's picks are its own secret."""
    return g.phase == SETUP_PHASE and "share" in g.setup_state


def screened_board(g: GameCore, player: int | None):
    """The board as ``player`` may see it, as ``engine.notation.PositionData``: everything, except
    in Point-Buy behind a screen, where the opponent's picks, Barracks and share stay hidden and the
    Stock shown is what this player may still pick from. ``player`` None (a spectator): behind the
    screen only the set-up's units, no Barracks and no Stock (each side's share is its secret).
    Every view of the board (the observation's text, the server's unit list) is built from this."""
    data = read_core(g.board)
    if behind_screen(g):
        public = set(g.setup_state["public"])
        data.units = {sq: u for sq, u in data.units.items() if u[1] == player or sq in public}
        data.barracks = [[0] * len(data.barracks[0]) if side != player else list(data.barracks[side])
                         for side in (0, 1)]
        data.stock = list(g.setup_state["share"][player]) if player is not None else [0] * len(data.stock)
        shown = 0
        for sq in data.units:
            shown |= 1 << sq
        data.status = [flags & shown for flags in data.status]
    return data


def _board_text(g: GameCore, player: int | None) -> str:
    return format_position(screened_board(g, player), g.units)


def _deck_cards(zones) -> list[int]:
    cards = [c for c, _ in zones.top]
    for card, n in enumerate(zones.deck):
        cards.extend([card] * n)
    return cards


def hidden_pool(g: GameCore, player: int) -> list[int]:
    """The opponent's cards ``player`` cannot place: the unrevealed part of their Hand, their Deck
    and the Deck-top cards unknown to ``player`` (a multiset, as a sorted list)."""
    theirs = g.zones[1 - player]
    if theirs.known_hand:
        pool = list((Counter(theirs.hand) - Counter(theirs.known_hand)).elements())
    else:
        pool = list(theirs.hand)
    pool.extend(c for c, known in theirs.top if not known)
    for card, n in enumerate(theirs.deck):
        pool.extend([card] * n)
    return sorted(pool)


def resample_hidden(g: GameCore, player: int, rng: random.Random) -> GameCore:
    """A full state consistent with ``player``'s observation, uniformly random over what is unknown:
    the opponent's unrevealed Hand cards, unknown Deck-top cards and Deck are redrawn from their
    pool, and the new state's chance generator is reseeded from ``rng`` (future draws are unknown).
    The sample has no history and no repetition counts (both would reveal the true hidden cards)."""
    state = g.clone(history=False)
    theirs = state.zones[1 - player]
    pool = hidden_pool(g, player)
    rng.shuffle(pool)
    known = list(Counter(theirs.known_hand).elements()) if theirs.known_hand else []
    unseen = len(theirs.hand) - len(known)
    theirs.hand = known + pool[:unseen]
    rest = pool[unseen:]
    top = []
    for card, is_known in theirs.top:
        if is_known:
            top.append((card, True))
        else:
            top.append((rest.pop(), False))
    theirs.top = top
    theirs.deck = [0] * len(state.cards)
    for card in rest:
        theirs.deck[card] += 1
    state.variant.resample_setup(state, player, rng)      # Point-Buy: the opponent's army behind the screen
    state.rng = random.Random(rng.getrandbits(64))
    # The history (chance outcomes name the opponent's real draws) and the repetition counts (keys
    # hash the real hidden cards) belong to the true game, not to this sample: a determinization has
    # neither, and it cannot be saved as a record.
    state.determinized = True
    return state


def public_key(g: GameCore) -> tuple:
    """What both players see of a state between two decisions of the same turn: turn, player,
    phase, the board (units, Barracks and unit flags: its Zobrist key), the cards played this turn,
    the turn's counters and the question asked. The player's own hand is left out: the draws of a
    determinization are not the game's (ISMCTS reuses its tree when this is where its action led)."""
    decision = g.decision
    return (g.turn, g.current, g.phase, g.board.key, tuple(g.zones[0].played), tuple(g.zones[1].played),
            g.orders, g.actions, g.buys, g.gold, g.discount, decision.prompt if decision is not None else None)


def information_key(g: GameCore, player: int) -> str:
    """Equal for two states ``player`` cannot tell apart: their observation (which holds the
    player's own options when they decide), as canonical JSON."""
    return json.dumps(observation(g, player), sort_keys=True, separators=(",", ":"))
