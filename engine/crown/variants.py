"""The variants of RULINGS F as objects: what each changes of the standard game, in one place.

A state holds its variant (``g.variant``, chosen by ``GameConfig.variant``); phases, set-up, the
toolkit, observations and records ask it instead of comparing names:

=========================  ==============================================================================
hook                       meaning (standard game)
=========================  ==============================================================================
set_up(g)                  3.0 set-up (Point-Buy: army picking; The Last Stand: the Defender's training)
setup_decide / _choose     the set-up stage's decisions (none in the standard game)
orders_only(player)        the player has an Order phase only (Point-Buy; the Last Stand's Defender)
one_order_per_turn         one order is required and ends the turn (Point-Buy Chess, C8)
extra_order_actions        Order-phase actions beyond orders and cards (The Last Stand's Evacuate)
generate                   board orders under the variant's board rules (C13: ``no_entry``; the
                           kernel's guarded squares, set at set-up, protect the Attacker's first rank)
no_entry(player)           squares ``player``'s units may never enter (C13: the Defender's eighth rank)
trash_returns_to_supply    trashed cards go back to their Supply pile, starting cards are set aside beside
                           the Supply (The Last Stand, 11.5, RULINGS C22; toolkit.trash_card)
board_winner(board, mover) C2 on a board as it stands: who wins if ``mover``'s turn ended now (None: the
                           game goes on); the one test of a decided board, also for search's probes
sovereign_check            the end-of-turn win check (board_winner with its reason; The Last Stand: only
                           the Defender can lose)
returns / score            the result (The Last Stand scores by the Attacker's turns)
resolves_supply            a record keeps the Supply chosen at set-up (Point-Buy has no cards)
decks                      the players with a starting Deck (3.0): both; Point-Buy none; The Last Stand
                           the Attacker (setup.starter_cards names the starter cards in play)
resample_setup             a determinization's set-up secrets (Point-Buy's screened armies)
=========================  ==============================================================================
"""

from __future__ import annotations

import random

from engine import codes
from engine.crown import actions as A
from engine.crown import setup
from engine.crown import toolkit as tk
from engine.crown.core import PLAYER_NAMES, GameCore, GameError
from engine.notation import BLUE, YELLOW, square_name

__all__ = ["Variant", "Standard", "PointBuy", "LastStand", "VARIANT_RULES", "variant_rules"]


class Variant:
    """The standard game (3.0-10.0); the other variants override what they change."""

    name = "standard"
    one_order_per_turn = False
    trash_returns_to_supply = False
    resolves_supply = True
    decks: tuple[int, ...] = (BLUE, YELLOW)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # -- set-up --------------------------------------------------------------------------------
    def set_up(self, g: GameCore) -> None:
        setup.set_up_standard(g)

    def setup_decide(self, g: GameCore) -> None:
        setup.decide(g)

    def setup_choose(self, g: GameCore, player: int, action: int) -> None:
        setup.choose(g, player, action)

    def resample_setup(self, state: GameCore, player: int, rng: random.Random) -> None:
        """Redraw what ``player`` cannot know of the set-up in a determinization (nothing here)."""

    # -- the turn ------------------------------------------------------------------------------
    def orders_only(self, player: int) -> bool:
        return False

    def extra_order_actions(self, g: GameCore, player: int) -> list[int]:
        return []

    def order_action_text(self, g: GameCore, action: int) -> str:
        raise GameError(f"internal: action {action} is not an Order-phase action of {self.name}")

    def choose_order_action(self, g: GameCore, player: int, action: int) -> None:
        raise GameError(f"internal: action {action} is not an Order-phase action of {self.name}")

    # -- the board -----------------------------------------------------------------------------
    def generate(self, g: GameCore, player: int, cylindrical: bool) -> list[int]:
        """Encoded board orders of ``player`` (kernel generation, flags respected)."""
        return g.board.generate_for(player, cylindrical)

    def no_entry(self, player: int) -> int:
        """Squares (a bitboard) ``player``'s units may never enter."""
        return 0

    # -- the end -------------------------------------------------------------------------------
    def board_winner(self, board, mover: int) -> int | None:
        """C2 (10.0) on ``board`` (a kernel board core) as it stands: the player who wins if the turn
        of ``mover`` ended now, or None while the game goes on. A side with no Sovereign loses; with
        none on either side the mover completed the capture. Reads the board only, so search can ask
        it of the boards it probes."""
        blue, yellow = board.sovereign_present(BLUE), board.sovereign_present(YELLOW)
        if blue and yellow:
            return None
        return mover if not (blue or yellow) else (BLUE if blue else YELLOW)

    def sovereign_check(self, g: GameCore, player: int) -> tuple[int, str] | None:
        """The end-of-turn win check of ``player``'s turn: (winner, reason) or None."""
        winner = self.board_winner(g.board, player)
        if winner is None:
            return None
        return winner, f"{PLAYER_NAMES[1 - winner]} has no Sovereign on the board (10.0)"

    def returns(self, g: GameCore) -> list[float]:
        if g.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if g.winner == BLUE else [-1.0, 1.0]

    def score(self, g: GameCore) -> int | None:
        return None


Standard = Variant


class PointBuy(Variant):
    """Point-Buy Chess (C8, C19): no cards; armies picked with points; one order per turn."""

    name = "point-buy"
    one_order_per_turn = True
    resolves_supply = False
    decks = ()

    def set_up(self, g: GameCore) -> None:
        setup.set_up_point_buy(g)

    def orders_only(self, player: int) -> bool:
        return True

    def resample_setup(self, state: GameCore, player: int, rng: random.Random) -> None:
        """Behind the screen, the opponent's finished army is any army their budget and share allow."""
        if state.phase == "setup" and "share" in state.setup_state and state.setup_state["done"][1 - player]:
            setup.random_army(state, 1 - player, rng)


_FIRST_RANK = 0xFF          # squares a1-h1
_EIGHTH_RANK = 0xFF << 56   # squares a8-h8


class LastStand(Variant):
    """The Last Stand (11.5, C13): the Attacker (Blue) plays cards against a Defender (Yellow) who
    only orders (and may Evacuate); the Attacker's first-rank units cannot be captured and the
    Defender's units never enter it; scored by the Attacker's turns."""

    name = "last-stand"
    trash_returns_to_supply = True
    decks = (BLUE,)

    def set_up(self, g: GameCore) -> None:
        # C13: the kernel never lets a capture remove an Attacker's unit from the first rank.
        g.board.set_guarded(BLUE, _FIRST_RANK)
        setup.set_up_last_stand(g)

    def orders_only(self, player: int) -> bool:
        return player == YELLOW

    def extra_order_actions(self, g: GameCore, player: int) -> list[int]:
        if player != YELLOW:
            return []
        return [A.square(sq) for sq in tk.units_of(g, player) if not tk.is_ordered(g, sq)]

    def order_action_text(self, g: GameCore, action: int) -> str:
        return f"evacuate {square_name(A.argument(action))}"

    def choose_order_action(self, g: GameCore, player: int, action: int) -> None:
        """Evacuate (11.5): a Defender's unit goes to the Barracks; it costs an order."""
        g.orders -= 1
        tk.send_to_barracks(g, A.argument(action), ordered=True)

    def no_entry(self, player: int) -> int:
        return _FIRST_RANK if player == YELLOW else 0

    def generate(self, g: GameCore, player: int, cylindrical: bool) -> list[int]:
        found = g.board.generate_for(player, cylindrical)
        forbidden = self.no_entry(player)
        if forbidden:
            found = [c for c in found
                     if not (codes.order_moves_unit_to_dest(c) and forbidden >> codes.order_dest(c) & 1)]
        return found

    def board_winner(self, board, mover: int) -> int | None:
        """Only the Defender can lose (11.5): the Attacker wins once Yellow has no Sovereign; the
        Attacker never has one."""
        return None if board.sovereign_present(YELLOW) else BLUE

    def sovereign_check(self, g: GameCore, player: int) -> tuple[int, str] | None:
        if self.board_winner(g.board, player) is None:
            return None
        return BLUE, f"the Defender has no Sovereign after {g.turns_taken[BLUE]} Attacker turns (11.5)"

    def returns(self, g: GameCore) -> list[float]:
        """The Attacker scores 1 - 2*turns/max_turns (fewer turns is better), the Defender the
        opposite."""
        attacker = 1.0 - 2.0 * min(g.turns_taken[BLUE], g.config.max_turns) / g.config.max_turns
        return [attacker, -attacker]

    def score(self, g: GameCore) -> int | None:
        """The Defender's score (11.5): the number of turns the Attacker took."""
        return g.turns_taken[BLUE]


#: One object per GameConfig.variant value (they hold no state: every game shares them).
VARIANT_RULES: dict[str, Variant] = {v.name: v for v in (Standard(), PointBuy(), LastStand())}


def variant_rules(name: str) -> Variant:
    try:
        return VARIANT_RULES[name]
    except KeyError:
        raise GameError(f"unknown variant {name!r} (known: {', '.join(VARIANT_RULES)})") from None
