"""Build a game state mid-game from parts: a board position, hands, Decks, Supply. For tests, for
analysing "this position with this hand", and for puzzles.

>>> g = scenario("4k3/8/8/8/8/8/8/4K3[N] w", hands=(["Armor", "Peon"], []), supply=["Armor"])
>>> g.current_player(), g.phase
(0, 'order')
"""

from __future__ import annotations

from engine.crown.config import GameConfig
from engine.crown.phases import start_turn
from engine.crown.state import GameState
from engine.notation import parse_position
from engine.position import load_core

__all__ = ["scenario"]


def scenario(
    board: str,
    hands: tuple[list[str], list[str]] = ([], []),
    decks: tuple[list[str], list[str]] = ([], []),
    deck_tops: tuple[list[str], list[str]] = ([], []),
    discards: tuple[list[str], list[str]] = ([], []),
    supply: list[str] | None = None,
    phase: str = "order",
    config: GameConfig | None = None,
    auto_chance: bool = True,
    **counters,
) -> GameState:
    """A state where the side to move of ``board`` (position text, A3) is at the start of ``phase``.

    ``decks`` are multisets (order unknown); ``deck_tops`` are known top cards, last = top.
    ``supply`` names the variable piles (core piles are always added). ``counters`` may set
    orders, actions, buys, gold."""
    config = config or GameConfig(supply=tuple(supply or ()))
    # Build an empty game of this configuration, then overwrite its parts.
    g = GameState(GameConfig(**{**config.to_dict(), "supply": tuple(supply or ())}), auto_chance=auto_chance)
    data = parse_position(board, g.units)
    if data.promote_mask is None:
        data.promote_mask = g.board.promote_types      # the Supply's training cards (B18)
    load_core(g.board, data)
    n = len(g.cards)
    for player in (0, 1):
        zones = g.zones[player]
        zones.deck = [0] * n
        for name in decks[player]:
            zones.deck[g.cards[name].id] += 1
        zones.top = [(g.cards[name].id, False) for name in deck_tops[player]]
        zones.hand = [g.cards[name].id for name in hands[player]]
        zones.discard = [g.cards[name].id for name in discards[player]]
        zones.played = []
        zones.known_hand = []
    g.tasks = []
    g.decision = None
    g.chance = None
    g.history = []
    g.winner = g.over_reason = None
    # Mid-game: the board's side to move plays now; every extra turn of the configuration is still
    # to come (the set-up's head start, C21, did not happen in this game).
    g.extra_turns = list(config.extra_turns)
    start_turn(g, data.side)
    g.phase = phase
    for key, value in counters.items():
        if key not in ("orders", "actions", "buys", "gold"):
            raise TypeError(f"scenario: unknown counter {key!r}")
        setattr(g, key, value)
    g._run()
    return g
