"""King's Ransom's turn (docs/kings-ransom.md, G3-G9): the deal, the steps flip, move, promote and
play with what each decision does, the Draw step, the chance outcomes that fill them, and the end
of the game (G7 wins, G7/G9 draws). Each function changes a ``RansomCore`` (engine/ransom/core.py);
the driver (state.py) checks an action, records it and calls ``choose``, then runs its task loop,
which deals (``resolve_chance``) until a player must decide.

A step offers its decision with ``ask``; texts of actions are made only when asked
(``RansomCore.action_text``). What both players see happen goes to the public log (``note``),
unless the state keeps none (a determinization of a search).
"""

from __future__ import annotations

import random

from engine import codes
from engine.games.protocol import CHANCE
from engine.notation import square_name
from engine.ransom import actions as RA
from engine.ransom.core import DRAW, FLIP, MOVE, OVER, PLAY, PROMOTE, RansomCore
from engine.ransom.position import CHECKMATE, STALEMATE
from engine.ransom.rules import BLUE, PLAYER_NAMES, RED

__all__ = ["set_up", "sample", "resolve_chance", "start_turn", "after_flip", "end_move", "to_play", "draw",
           "end_turn", "ask", "finish", "note", "choose"]


# -- set-up (G3) ----------------------------------------------------------------------------------------
def set_up(g: RansomCore) -> None:
    """Place both Kings, fill both Decks, and queue the deal: one chance node per face-down square
    and per card of the Hand, Red's first."""
    rules, pos = g.rules, g.pos
    for side in (RED, BLUE):
        king = rules.king_square if side == RED else rules.mirror(rules.king_square)
        pos.core.place(king, rules.king_type, side)
        pos.pools[side] = list(rules.deck)
        pos.pools[side][rules.king_type] -= 1
        squares = rules.face_down if side == RED else tuple(rules.mirror(s) for s in rules.face_down)
        g.deal += [(side, sq) for sq in squares] + [(side, "hand")] * rules.hand
    pos.core.set_side(RED)


# -- chance ---------------------------------------------------------------------------------------------
def sample(g: RansomCore, rng: random.Random) -> int:
    """A card type drawn from the pending chance node's Deck, each card equally likely."""
    pool = g.pos.pools[g.chance[0]]
    pick = rng.randrange(sum(pool))
    for t, n in enumerate(pool):
        pick -= n
        if pick < 0:
            return t
    raise AssertionError("empty pool")  # pragma: no cover


def resolve_chance(g: RansomCore, t: int) -> None:
    """The pending chance node's outcome: a card of type ``t`` leaves the Deck for its square, the
    Hand, or (the Draw step) the Hand, which ends the turn (recorded for replays)."""
    side, where = g.chance
    pos = g.pos
    g.chance = None
    g.history.append((CHANCE, t))
    pos.pools[side][t] -= 1
    if where == "hand" or where == DRAW:
        pos.hands[side][t] += 1
    else:
        pos.core.place(where, t, side)
        pos.face_down |= 1 << where
        pos._sync_flags()
    if where == DRAW:
        end_turn(g)


# -- the turn -------------------------------------------------------------------------------------------
def start_turn(g: RansomCore) -> None:
    """A turn begins: the draw without captures (G7), checkmate (G7) and stalemate (G9) end the game;
    else the mover flips a card, or moves when there is no flip to choose."""
    pos = g.pos
    side = pos.side
    g.flipped = g.moved = None
    if pos.no_capture >= g.rules.no_capture_turns:
        finish(g, None, f"draw: {g.rules.no_capture_turns} turns without a capture (G7)")
        return
    opts = g.options = pos.turn_options()
    g.check = side if opts.in_check else None
    if opts.status == CHECKMATE:
        finish(g, 1 - side, f"{PLAYER_NAMES[side]} is checkmated (G7)")
        return
    if opts.status == STALEMATE:
        finish(g, None, f"draw: {PLAYER_NAMES[side]} is stalemated (G9)")
        return
    if None in opts.moves:
        after_flip(g)
    else:
        ask(g, FLIP, [RA.flip(sq) for sq in opts.moves])


def after_flip(g: RansomCore) -> None:
    """The Move step: the moves the turn's options allow after this flip (or none)."""
    ask(g, MOVE, list(g.options.moves[g.flipped]))


def end_move(g: RansomCore) -> None:
    """The Move step is over (its promotion included): announce check (G9) and go on to play."""
    pos = g.pos
    other = 1 - pos.side
    g.check = other if pos.in_check(other) else None
    if g.check is not None:
        note(g, pos.side, f"check: {PLAYER_NAMES[other]}'s King is threatened")
    to_play(g)


def to_play(g: RansomCore) -> None:
    """The Play step, or straight to the Draw step when there is nothing to play."""
    plays = g.pos.play_options()
    if plays == [None]:
        draw(g)
    else:
        ask(g, PLAY, [RA.play(t, sq) for t, sq in plays])


def draw(g: RansomCore) -> None:
    """The Draw step: a card known to lie on the Deck is drawn at once, one of unknown order is a
    chance node, and an empty Deck gives nothing; the turn then ends."""
    pos = g.pos
    side = pos.side
    g.step = DRAW
    g.actions = []
    if pos.decks[side]:
        pos.draw(side)
        end_turn(g)
    elif any(pos.pools[side]):
        g.chance = (side, DRAW)
    else:
        end_turn(g)


def end_turn(g: RansomCore) -> None:
    g.pos.end_turn()
    start_turn(g)


def ask(g: RansomCore, step: str, actions: list[int]) -> None:
    g.step = step
    g.actions = actions


def finish(g: RansomCore, winner: int | None, reason: str) -> None:
    """The game is over: ``winner`` (None for a draw) for ``reason``, told in the log."""
    g.winner, g.over_reason = winner, reason
    g.step, g.actions, g.chance = OVER, [], None
    note(g, -1, reason)


def note(g: RansomCore, player: int, text: str) -> None:
    if g.keep_log:
        g.log.append((player, text))


# -- what a decision does ---------------------------------------------------------------------------------
def choose(g: RansomCore, side: int, action: int) -> None:
    """``side`` takes the legal ``action`` of the step being decided (the driver has checked and
    recorded it): flip, move (with the capture of a King that wins, G7, and the promotion it may
    offer), promote, or play a card from the Hand (or discard it)."""
    pos = g.pos
    kind = RA.decode(action)
    if kind[0] == "flip":
        sq = kind[1]
        t = pos.core.unit_on(sq)[0]
        pos.flip(sq)
        g.flipped = sq
        if g.keep_log:
            note(g, side, f"flips {square_name(sq)}: {g._name(t)}")
        after_flip(g)
    elif kind[0] == "move":
        code = kind[1]
        promotions = pos.promotion_options(code)
        captured = pos.move(code)
        g.moved = code
        if g.keep_log:
            text = f"{g._name(codes.order_unit(code))} {square_name(codes.order_origin(code))}"
            if captured is None:
                note(g, side, f"{text}-{square_name(codes.order_dest(code))}")
            else:
                was = " (face down)" if captured[1] else ""
                note(g, side, f"{text}x{square_name(codes.order_dest(code))}: "
                              f"captures {g._name(captured[0])}{was}")
        if captured is not None:
            if captured[0] == g.rules.king_type:
                finish(g, side, f"{PLAYER_NAMES[side]} captures the King (G7)")
                return
        if len(promotions) > 1:
            # The move left the mover's King safe; the other King's check is told after the exchange.
            g.check = None
            ask(g, PROMOTE, [RA.promote(t) for t in promotions])
        else:
            end_move(g)
    elif kind[0] == "promote":
        if kind[1] is not None:
            pos.promote(codes.order_dest(g.moved), kind[1])
            if g.keep_log:
                note(g, side, f"promotes to {g._name(kind[1])}")
        end_move(g)
    else:
        t = kind[1]
        square = kind[2] if kind[0] == "play" else None
        replaced = pos.core.unit_on(square) if square is not None else None
        replaced_down = square is not None and bool(pos.face_down >> square & 1)
        pos.play(t, square)
        if not g.keep_log:
            pass
        elif square is None:
            note(g, side, f"discards {g._name(t)} from the Hand")
        elif replaced is not None:
            was = " (face down)" if replaced_down else ""
            note(g, side, f"plays a card on {square_name(square)}, replacing {g._name(replaced[0])}{was}")
        else:
            note(g, side, f"plays a card face down on {square_name(square)}")
        draw(g)
