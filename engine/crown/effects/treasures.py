"""Treasure effects with more than a plain gold number (8.0; 13.0 and 17.0)."""

from __future__ import annotations

from engine.crown import toolkit as tk
from engine.crown.core import Frame, GameCore
from engine.crown.effects._common import ask_hand_card
from engine.crown.effects.registry import decode_card, steps


@steps("Legend", 0)
def legend(g: GameCore, f: Frame, choice):
    """13.0 Legend: 1 gold per treasure effect played earlier this turn (not counting itself)."""
    g.gold += f.data["earlier_treasures"]


@steps("Quartermaster", 1)
def quartermaster_treasure(g: GameCore, f: Frame, choice):
    """13.0 Quartermaster (treasure): +1 gold, +1 buy (data), and every card costs 1 less this turn,
    never below 0 (GameCore.cost applies the floor)."""
    g.discount += 1


@steps("Plunder", 0)
def plunder(g: GameCore, f: Frame, choice):
    """17.0 Plunder: with an empty hand nothing happens; otherwise discard a card of your choice,
    then +3 gold and +1 buy."""
    if f.step == 0:
        return ask_hand_card(g, f, "discard a card", next_step=1)
    tk.move_card(g, f.player, decode_card(choice), "hand", "discard")
    g.gold += 3
    g.buys += 1


@steps("Land Lore", 1)
def land_lore_treasure(g: GameCore, f: Frame, choice):
    """17.0 Land Lore (treasure): 1 gold for every rank where you have more Foot units than the
    opponent."""
    mine = [0] * 8
    theirs = [0] * 8
    for square in range(64):
        unit = g.board.unit_on(square)
        if unit is None or not tk.unit_has_class(g, unit[0], "Foot"):
            continue
        (mine if unit[1] == f.player else theirs)[square >> 3] += 1
    g.gold += sum(1 for rank in range(8) if mine[rank] > theirs[rank])
