"""Hidden information in King's Ransom (docs/kings-ransom.md, "Hidden information"): what one player
may know (``observation``), what they cannot see of the opponent's cards (``unseen``), full states
they cannot tell from the true one (``resample_hidden``, a determinization for information-set
search), and the keys a search compares states by (``information_key`` for one player,
``public_key`` for what both see).

A player sees the arena with the opponent's face-down cards as backs, their own Hand and what their
Deck still holds (in no order: nobody knows a Deck's order), both Discard piles, the sizes of every
Hand and Deck, and the public log. Nothing here reads what the player may not know.

The public observation (``observation(g, None)``, a spectator's) is what both players see: the arena
with every face-down card as a back, no Hand and no Deck contents, the sizes, the Discard piles and
the log; once the game is over, both Hands (``hands``) and every card of the arena.
"""

from __future__ import annotations

import random

from engine import codes
from engine.notation import square_name
from engine.ransom import actions as RA
from engine.ransom.core import FLIP, PLAY, VARIANT, RansomCore, RansomError

__all__ = ["unseen", "resample_hidden", "observation", "public_key", "information_key"]


def unseen(g: RansomCore, player: int) -> list[int]:
    """What ``player`` cannot see of the opponent's cards, as a multiset by type: the
    opponent's deck (data) less its face-up cards and its Discard pile. In a dealt game that is
    exactly its face-down cards, Hand and Deck together, computed without reading them; a
    game from a position text may hold fewer cards, and then the hidden ones are some of
    these."""
    other = 1 - player
    pos = g.pos
    counts = list(g.rules.deck)
    for sq in codes.squares(pos.core.colour_bits(other) & ~pos.face_down):
        counts[pos.core.unit_on(sq)[0]] -= 1
    for t, n in enumerate(pos.discards[other]):
        counts[t] -= n
    return counts


def resample_hidden(g: RansomCore, player: int, rng: random.Random):
    """A determinization: a full state ``player`` cannot tell from this one. The opponent's
    face-down cards, Hand and Deck are dealt again from what ``player`` cannot see (``unseen``),
    keeping how many lie where (from a position text that left cards out of the game, as many
    as it hides); ``player``'s own Deck keeps no order anyone knows; the chance
    generator is reseeded from ``rng``. Nothing hidden from ``player`` is read. When the opponent
    is the one to decide (a world for the seat not to move, as the record board analyses the
    other seat's decision), its choices are those of the cards dealt to it here."""
    d = g.clone(history=False, copy_rng=False)
    d.keep_log = False                    # the log so far is public; a search adds nothing to it
    pos = d.pos
    other = 1 - player
    down = list(codes.squares(pos.core.colour_bits(other) & pos.face_down))
    hand_size = sum(pos.hands[other])
    deck_size = pos.deck_size(other)
    hidden = [t for t, n in enumerate(unseen(g, player)) for _ in range(n)]
    if len(hidden) < len(down) + hand_size + deck_size:
        raise RansomError("internal: fewer unseen cards than hidden places")
    # The opponent to decide: its choices are those of the cards dealt to it here (a deal where its
    # turn could not have begun, no flip allowing a move, is dealt again).
    deciding = pos.side == other and g.chance is None and g.over_reason is None and g.step in (FLIP, PLAY)
    for _attempt in range(REDEALS):
        cards = list(hidden)
        rng.shuffle(cards)
        # A dealt game hides exactly the unseen cards; a position text may have left some out of the
        # game, and which ones nobody can tell: a random part of them is left out.
        del cards[:len(cards) - len(down) - hand_size - deck_size]
        for sq in down:
            pos.core.remove(sq)
            pos.core.place(sq, cards.pop(), other)
        pos._sync_flags()
        if not deciding or _choices_dealt(d):
            break
    else:
        raise RansomError(f"internal: no deal of {REDEALS} gives the player to move a choice")
    hand = [0] * len(g.rules.deck)
    for _ in range(hand_size):
        hand[cards.pop()] += 1
    pool = [0] * len(g.rules.deck)
    for t in cards:
        pool[t] += 1
    pos.hands[other], pos.pools[other], pos.decks[other] = hand, pool, []
    if deciding and d.step == PLAY:
        d.actions = [RA.play(t, sq) for t, sq in pos.play_options()]
    own = pos.pools[player]
    for t in pos.decks[player]:
        own[t] += 1
    pos.decks[player] = []
    d.rng = random.Random(rng.getrandbits(64))
    return d


#: Deals of the opponent's hidden cards tried for a determinization in which the opponent is to decide.
REDEALS = 1000


def _choices_dealt(d: RansomCore) -> bool:
    """In a world whose mover had its face-down cards dealt again at its Flip step: the flips and
    the moves after each, as those cards lie here (G6, G7); False when no flip allows a move there
    (the turn could not have begun as it did). The Play step's choices come from the Hand dealt."""
    if d.step != FLIP:
        return True
    options = d.pos.turn_options()
    if not options.moves:
        return False
    d.options = options
    d.actions = [RA.flip(sq) for sq in options.moves]
    return True


def observation(g: RansomCore, player: int | None) -> dict:
    """What ``player`` may know (docs/kings-ransom.md, "Hidden information"), as plain data;
    ``player`` None: what both may know (the module's docstring)."""
    pos = g.pos
    units = g.rules.catalog.units
    arena = []
    for sq in codes.squares(pos.core.occupied()):
        t, owner = pos.core.unit_on(sq)
        down = bool(pos.face_down >> sq & 1)
        visible = not down or owner == player or g.over_reason is not None
        arena.append({"square": square_name(sq), "owner": owner, "face_down": down,
                      "card": units[t].token if visible else None})

    def listing(counts: list[int]) -> list[str]:
        return [units[t].token for t in range(len(counts)) for _ in range(counts[t])]

    over = g.over_reason is not None
    obs = {"variant": VARIANT, "player": player, "to_move": pos.side, "step": g.step,
           "turn": pos.turn, "no_capture": pos.no_capture, "arena": arena}
    if player is None:
        # Both Hands once the game is over (nothing is hidden then); None before.
        obs["hands"] = [listing(pos.hands[0]), listing(pos.hands[1])] if over else None
    else:
        obs["hand"] = listing(pos.hands[player])
        # The opponent's Hand once the game is over (nothing is hidden then); None before.
        obs["opponent_hand"] = listing(pos.hands[1 - player]) if over else None
    obs["hand_sizes"] = [sum(pos.hands[0]), sum(pos.hands[1])]
    obs["deck_sizes"] = [pos.deck_size(0), pos.deck_size(1)]
    if player is not None:
        own_deck = list(pos.pools[player])
        for t in pos.decks[player]:
            own_deck[t] += 1
        obs["own_deck"] = listing(own_deck)
    obs.update({
        "discards": [listing(pos.discards[0]), listing(pos.discards[1])],
        # The player whose King is in check as announced (G9), None when no King is.
        "check": g.check if not over else None,
        "over": g.over_reason, "winner": g.winner,
        "log": [list(entry) for entry in g.log],
    })
    return obs


def public_key(g: RansomCore) -> tuple:
    """What both players see between two decisions of one turn (ISMCTS reuses its tree when the
    game is where the chosen action led): the arena with face-down cards as backs, the piles'
    sizes, the Discard piles, the step and the turn's flip and move."""
    pos = g.pos
    arena = tuple((sq, pos.core.unit_on(sq)[1]) + ((-1,) if pos.face_down >> sq & 1 else (pos.core.unit_on(sq)[0],))
                  for sq in codes.squares(pos.core.occupied()))
    return (g.turn, g.step, arena, tuple(map(tuple, pos.discards)), sum(pos.hands[0]), sum(pos.hands[1]),
            g.flipped, g.moved)


def information_key(g: RansomCore, player: int) -> tuple:
    """Equal for two states ``player`` cannot tell apart (and different otherwise)."""
    obs = observation(g, player)
    obs.pop("log")
    return (repr(sorted(obs.items())), tuple(g.legal_actions()) if g.current_player() == player else ())
