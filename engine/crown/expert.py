"""The expert bot: a rule-based player for the full game (engine/crown/players.py lists every player;
``make_bot`` builds one from a spec), with ``Bot``, the interface every player implements
(engine/games/bots.py).

It lives apart from the other players because the full-game search uses it: For the Crown's pieces
(engine/crown/pieces.py) give its choice to the generic ISMCTS (engine/search/ismcts.py) as the
prior of each decision, and players.py builds on both.
"""

from __future__ import annotations

import random
from collections import Counter

from engine import codes
from engine.board.alphabeta import AlphaBeta
from engine.board.evaluate import GAME_WON, board_value, full_game_evaluation
from engine.crown import actions as A
from engine.crown.board_eval import board_after, board_winner, order_value, order_winner
from engine.crown.profiles import CardProfile, card_profiles
from engine.crown.state import GameState
from engine.games.bots import Bot
from engine.position import Position

__all__ = ["Bot", "ExpertBot", "OPENING", "BUILD", "LATE"]


OPENING, BUILD, LATE = "opening", "build", "late"


class ExpertBot(Bot):
    """A rule-based player, written the way strong Dominion simulator strategies are ("Big Money"
    with a few action cards), with a shallow board search. Every rule reads card and unit data
    (cards.toml, units.toml: costs, effect kinds and numbers, unit prices), never card names.
    Deterministic for a seed; about a millisecond per decision (tens at worst).

    Values are centi-points for the player: the board evaluator (``board_value``; a board that
    decides the game ``GAME_WON``), plus ``exposure`` per rank a Sovereign stands beyond its second
    rank (the evaluator alone, taking the card game's sparse early board for an endgame, walks it
    forward), plus ``card_weight`` per gold of the cost of the player's cards when an effect trashes
    or gains one. Card effects are tried on a clone of a determinization (hidden cards redrawn),
    finished with one-step greedy choices up to the first draw.

    Stage of the game (``stage``): *opening* for the player's first ``opening_turns`` turns; then
    *build* while its army (units on the board and in the Barracks, Sovereigns aside, by Point-Buy
    price) plus 3 points per training card of 3 points or more among its cards is below
    ``army_target``; else *late*.

    - Buying (``buy``), one card per buy: *opening*: the most gold (then training points); *build*:
      the most training points (then tempo, gold); *late*: the most expensive, a card that gives
      its order or action back counted 2 gold dearer while the player has fewer than
      ``terminal_limit``, and nothing under 3 gold unless the player has ``deck_floor`` cards or
      fewer. Never more than ``terminal_limit`` copies of a terminal card (``CardProfile``).
    - Order phase: a board order that decides the game first (``order_value``). Cards that give
      their order back, when the best line after them (search or pass) is no worse than without.
      Then the board search's order, unless a card that uses the order leaves a better board after
      the opponent's best reply, or the best order gains less than ``quiet`` over passing and a
      card that draws is in the hand; passing when every order is worse than not moving. The card
      the army needs for training (``recruit``) is kept for the Action phase. A Sovereign that no
      enemy threatens does not march; an order that would leave a placement of units seen twice
      at the end of a turn is avoided (C3's repetition), so is passing into one; near C3's
      no-progress limit a deploy or capture, else sending a unit to the Barracks (Evacuate).
    - Action phase: actions that give their action back first (most draws); then training the
      ``recruit`` when the army is small (below ``army_target`` or the opponent's); an action that
      moves units or gains cards when it improves the board after the opponent's reply; an action
      that brings gold, draws or buys; training when the hand's gold is short (below 3) or, late,
      a starter (trash starters late), both only above ``deck_floor`` cards; else nothing.
    - Buy phase: every treasure (those whose gold is their own rule last), then the buy rule.
    - Board orders: alpha-beta (engine.board.alphabeta) to ``depth`` plies (``nodes`` at most) on
      the game's board, the root restricted to the legal orders; one ply (``order_value``) when a
      side has no Sovereign on the board (The Last Stand: the search's tree has no moves for it) or
      the search cannot generate the orders offered (cylindrical Compass orders, enemy units).
    - Choices inside an effect: orders by the same search (an optional one declined when passing is
      better); a square or a unit by the value after finishing the effect, the best ``probe_top``
      judged again by the best line after them (ties: the unit of higher price); cards from the
      hand: trash the one whose loss (and what it brings, a morph) is worth most, put back on the
      Deck the card least useful for the rest of the turn, discard the cheapest (an optional
      discard only of starters); gain the card the buy rule picks; name the most expensive card of
      one's own Deck (or, out of the Order phase, of the opponent's Discard); trash an opponent's
      revealed card costing 3 or more.
    - Set-up: Point-Buy picks a Sovereign first (the cheapest), then the most expensive unit, each
      placed on the free square nearest the centre files; The Last Stand's Defender trains a
      Sovereign first, then the most points per gold.
    """

    name = "expert"

    def __init__(self, seed: int = 0, depth: int = 3, nodes: int = 20_000, opening_turns: int = 2,
                 army_target: int = 20, terminal_limit: int = 2, quiet: int = 60, margin: int = 30,
                 card_weight: int = 25, deck_floor: int = 10, probe_top: int = 4, exposure: int = 40,
                 money_floor: int = 8, remember: bool = True):
        self.rng = random.Random(seed)
        self.remember = remember
        self.depth, self.nodes = depth, nodes
        self.opening_turns, self.army_target, self.terminal_limit = opening_turns, army_target, terminal_limit
        self.quiet, self.margin, self.card_weight, self.deck_floor = quiet, margin, card_weight, deck_floor
        self.probe_top, self.exposure, self.money_floor = probe_top, exposure, money_floor
        self._search: AlphaBeta | None = None
        self._profiles: tuple | None = None        # (cards catalog, units catalog, profiles)
        # How often each placement of units (``_placement``) ended a turn in this game, as far as this
        # bot saw: the boards its turns started from and those its orders left.
        self._seen: Counter = Counter()
        self._counted: int | None = None

    def reset(self) -> None:
        if self._search is not None:
            self._search.new_game()
        self._seen.clear()
        self._counted = None

    # -- data --------------------------------------------------------------------------------
    def profiles(self, state: GameState) -> list[CardProfile]:
        cached = self._profiles
        if cached is None or cached[0] is not state.cards or cached[1] is not state.units:
            cached = self._profiles = (state.cards, state.units, card_profiles(state.cards, state.units))
        return cached[2]

    def searcher(self, state: GameState) -> AlphaBeta:
        if self._search is None or self._search.catalog is not state.units:
            self._search = AlphaBeta(state.units, tt_megabytes=2, evaluation=full_game_evaluation())
        return self._search

    @staticmethod
    def army(state: GameState, player: int) -> int:
        """Points of ``player``'s units on the board and in the Barracks, Sovereigns aside."""
        board, units = state.board, state.units.units
        total = 0
        for sq in board.squares_of(player):
            unit = units[board.unit_on(sq)[0]]
            if not unit.is_sovereign:
                total += unit.price
        for t, n in enumerate(board.barracks_counts(player)):
            if n and not units[t].is_sovereign:
                total += n * units[t].price
        return total

    def stage(self, state: GameState, player: int) -> str:
        if state.turns_taken[player] < self.opening_turns:
            return OPENING
        profiles = self.profiles(state)
        trainers = sum(1 for c in state.zones[player].all_cards() if profiles[c].train >= 3)
        return BUILD if self.army(state, player) + 3 * trainers < self.army_target else LATE

    # -- the decision ------------------------------------------------------------------------
    def choose(self, state: GameState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = state.current_player()
        if state.phase == "setup":
            return self._setup(state, me, legal)
        orders = [a for a in legal if A.is_order(a)]
        for a in orders:
            if order_winner(state, a) == me:
                return a                          # the board decides the game for us: before anything
        if state.decision.frame is not None:
            return self._effect_choice(state, me, legal, orders)
        if state.phase == "order":
            return self._order_phase(state, me, legal, orders)
        if state.phase == "action":
            return self._action_phase(state, me, legal)
        return self._buy_phase(state, me, legal)

    # -- set-up --------------------------------------------------------------------------------
    def _setup(self, state: GameState, me: int, legal: list[int]) -> int:
        units = state.units.units
        kinds = {a: A.kind_of(a) for a in legal if not A.is_order(a)}
        picks = [a for a, k in kinds.items() if k == A.K_UNIT]
        if picks:
            have = state.board.sovereign_present(me) or any(
                n and units[t].is_sovereign for t, n in enumerate(state.board.barracks_counts(me)))
            sovereigns = [a for a in picks if units[A.argument(a)].is_sovereign]
            if sovereigns and not have:
                return min(sovereigns, key=lambda a: (units[A.argument(a)].price, a))
            return max(picks, key=lambda a: (not units[A.argument(a)].is_sovereign, units[A.argument(a)].price, -a))
        squares = [a for a, k in kinds.items() if k == A.K_SQUARE]
        if squares:
            return min(squares, key=lambda a: (A.argument(a) == A.BARRACKS_SQUARE,
                                               abs(A.argument(a) % 8 - 3.5), A.argument(a)))
        trains = [a for a, k in kinds.items() if k == A.K_CARD]
        if trains:
            return self._setup_training(state, me, trains)
        return legal[0]

    def _setup_training(self, state: GameState, me: int, trains: list[int]) -> int:
        """The Last Stand's Defender: a Sovereign first (the cheapest), then the most points per gold."""
        units, cards = state.units, state.cards.cards

        def trained(a):
            spec = next(e for e in cards[A.argument(a)].effects if e.kind == "training")
            return units.units[units.by_token[spec.trains].id], spec.count

        have = any(n and units.units[t].is_sovereign for t, n in enumerate(state.board.barracks_counts(me)))
        if not have:
            sovereigns = [a for a in trains if trained(a)[0].is_sovereign]
            if sovereigns:
                return min(sovereigns, key=lambda a: (state.cost(A.argument(a)), a))

        def rate(a):
            unit, count = trained(a)
            points = 0 if unit.is_sovereign else unit.price * count
            return points / max(1, state.cost(A.argument(a))), points, -a

        return max(trains, key=rate)

    # -- the board ----------------------------------------------------------------------------
    def _searchable(self, board) -> bool:
        """The board search plays the perft tree, where a side without a Sovereign has lost."""
        return board.sovereign_present(0) and board.sovereign_present(1)

    def _best_order(self, state: GameState, me: int, orders: list[int]) -> tuple[int, int, bool]:
        """(order, score for ``me``, searched): alpha-beta over ``orders`` when ``me`` is the board's
        side to move and the board search generates every one of them, else one ply of
        ``order_value`` (searched False)."""
        board = state.board
        if board.side == me and self._searchable(board):
            position = Position.from_core(board, state.units)
            generated = {o.code for o in position.legal_orders()}
            if all(a in generated for a in orders):
                result = self.searcher(state).search(position, depth=self.depth, nodes=self.nodes, orders=orders)
                if result.best is not None:
                    probe = board_after(state, result.best.code)
                    return result.best.code, result.score + self._exposure(state, probe, me), True
        values = {a: order_value(state, a) for a in orders}
        best = max(orders, key=lambda a: (values[a], -a))
        return best, values[best] + self._exposure(state, board_after(state, best), me), False

    def _exposure(self, state: GameState, board, me: int) -> int:
        """``exposure`` centi-points per rank a Sovereign of ``me`` stands beyond its second rank,
        less the same for the opponent's (the board's evaluation alone sends a Sovereign forward on
        the sparse early board of the card game, which it takes for an endgame)."""
        units, total = state.units.units, 0
        for player, sign in ((me, -1), (1 - me, 1)):
            for sq in board.squares_of(player):
                if units[board.unit_on(sq)[0]].is_sovereign:
                    rank = sq >> 3 if player == 0 else 7 - (sq >> 3)
                    total += sign * self.exposure * max(0, rank - 1)
        return total

    def _count(self, board) -> None:
        """One more end of a turn with ``board``'s placement (with ``remember``; a bot asked about
        sampled states inside a search, ISMCTS's prior, has no game of its own to remember)."""
        if self.remember:
            self._seen[self._placement(board)] += 1

    @staticmethod
    def _placement(board) -> tuple:
        """The units on the board and in both Barracks (no side to move, no flags): what C3's
        repetition compares of the board, at the ends of turns."""
        return (tuple((sq, board.unit_on(sq)) for sq in board.squares_of(0) + board.squares_of(1)),
                tuple(board.barracks_counts(0)), tuple(board.barracks_counts(1)))

    def _fresh(self, state: GameState, me: int, orders: list[int]) -> list[int]:
        """The orders that do not leave a placement of units already seen twice at the end of a turn
        (a third time draws the game, C3); all of them when none is left."""
        if not self._seen:
            return orders
        fresh = []
        for a in orders:
            if self._seen[self._placement(board_after(state, a))] < 2:
                fresh.append(a)
        return fresh or orders

    @staticmethod
    def _sovereign_stays(state: GameState, me: int, orders: list[int]) -> list[int]:
        """The orders without the marches of a Sovereign that no enemy threatens (the board's
        evaluation rewards an active Sovereign on a board that looks like an endgame, which a card
        game's early board is not); all of them when nothing else is left."""
        board, units = state.board, state.units.units
        kept = [a for a in orders if codes.order_kind(a) not in (codes.MARCH, codes.SWAP)
                or not units[codes.order_unit(a)].is_sovereign
                or board.threatened(codes.order_origin(a), me)]
        return kept or orders

    def _reply_score(self, state: GameState, board, me: int, searched: bool = True) -> int:
        """The value for ``me`` of ``board`` at the end of ``me``'s orders: after the opponent's best
        reply by the board search (``depth`` - 1 plies), or (``searched`` False, or no search
        possible) the static value, as ``_best_order`` scores."""
        winner = board_winner(state, board)
        if winner is not None:
            return GAME_WON if winner == me else -GAME_WON
        exposure = self._exposure(state, board, me)
        if not searched or not self._searchable(board) or self.depth < 2:
            return board_value(board, me, to_move=True) + exposure
        probe = board.copy()
        probe.set_side(1 - me)
        position = Position.from_core(probe, state.units)
        result = self.searcher(state).search(position, depth=self.depth - 1, nodes=self.nodes)
        if result.best is None:
            return board_value(board, me, to_move=True) + exposure
        return -result.score + exposure

    def _line_score(self, state: GameState, board, me: int, searched: bool) -> int:
        """The value for ``me`` of ``board`` in the middle of ``me``'s orders: the better of the board
        search's best order from it and passing (``_reply_score``); the static value when the
        search is not used."""
        passing = self._reply_score(state, board, me, searched)
        if not searched or board.side != me or not self._searchable(board):
            return passing
        result = self.searcher(state).search(Position.from_core(board, state.units), depth=self.depth,
                                             nodes=self.nodes)
        if result.best is None:
            return passing
        return max(passing, result.score + self._exposure(state, board, me))

    # -- simulation on a determinization -------------------------------------------------------
    def _play_out(self, sample: GameState, me: int, action: int, limit: int = 12):
        """Apply ``action`` to a clone of the determinization ``sample`` and finish the effect it
        starts with one-step greedy choices; stop at a draw (what follows depends on unknown cards),
        at the end of the effect, or when someone else decides. Returns the clone."""
        g = sample.clone(history=False)
        zones = g.zones[me]
        seen = (len(zones.hand), zones.deck_size())
        g.apply(action)
        for _ in range(limit):
            if (g.is_terminal() or g.decision is None or g.decision.frame is None or g.current_player() != me
                    or (len(zones.hand), zones.deck_size()) != seen):
                break
            g.apply(self._quick_choice(g, me, g.legal_actions()))
            zones = g.zones[me]
        return g

    def _quick_choice(self, g: GameState, me: int, legal: list[int]) -> int:
        """A choice inside an effect of a simulation: the best order by one ply, the square or unit
        whose board is best at once, else the first option that is not DONE."""
        orders = [a for a in legal if A.is_order(a)]
        if orders:
            return max(orders, key=lambda a: (order_value(g, a), -a))
        probes = [a for a in legal if A.kind_of(a) in (A.K_SQUARE, A.K_UNIT)]
        if probes:
            return max(probes, key=lambda a: (self._board_after(g, me, a), -a))
        rest = [a for a in legal if a != A.DONE]
        return rest[0] if rest else legal[0]

    def _board_after(self, g: GameState, me: int, action: int) -> int:
        probe = g.clone(history=False)
        probe.apply(action)
        return self._static(probe, me)

    def _worth(self, g: GameState, me: int) -> int:
        """``_static`` plus ``_cards_worth``."""
        return self._static(g, me) + self._cards_worth(g, me)

    def _cards_worth(self, g: GameState, me: int) -> int:
        """``card_weight`` centi-points per gold of the cost of ``me``'s cards (so that a card trashed
        or gained by an effect counts)."""
        profiles = self.profiles(g)
        return self.card_weight * sum(profiles[c].cost for c in g.zones[me].all_cards())

    def _tried(self, sample: GameState, me: int, actions: list[int], judge) -> dict[int, int]:
        """For each action: ``judge(board)`` of the board after playing it out on ``sample``
        (``_play_out``), plus what its effect did to ``me``'s cards (``_cards_worth``)."""
        cards_before = self._cards_worth(sample, me)
        results = {}
        for a in actions:
            after = self._play_out(sample, me, a)
            results[a] = judge(after.board) + self._cards_worth(after, me) - cards_before
        return results

    def _static(self, g: GameState, me: int) -> int:
        if g.is_terminal():
            returns = g.returns()
            return GAME_WON if returns[me] > returns[1 - me] else -GAME_WON if returns[me] < returns[1 - me] else 0
        winner = board_winner(g)
        if winner is not None:
            return GAME_WON if winner == me else -GAME_WON
        return board_value(g.board, me, to_move=True) + self._exposure(g, g.board, me)

    def _sample(self, state: GameState, me: int) -> GameState:
        """A determinization: the state as ``me`` may know it, hidden cards redrawn (never the real
        ones: a simulation cannot peek)."""
        return state.resample_hidden(me, self.rng)

    # -- the order phase ----------------------------------------------------------------------
    def _order_phase(self, state: GameState, me: int, legal: list[int], orders: list[int]) -> int:
        cards = state.cards.cards
        plays = [a for a in legal if not A.is_order(a) and A.kind_of(a) == A.K_PLAY]
        recruit = self._recruit(state, me) if plays else None
        if recruit is not None and state.zones[me].hand.count(recruit) == 1:
            plays = [a for a in plays if A.play_card(a) != recruit]      # kept for the Action phase
        specs = {a: cards[A.play_card(a)].effects[A.play_effect(a)] for a in plays}
        sample = self._sample(state, me) if plays else None
        orders = self._sovereign_stays(state, me, orders)
        if self._counted != state.turn:          # the opponent's turn ended with this board
            self._counted = state.turn
            self._count(state.board)
        orders = self._fresh(state, me, orders)
        if state.board.halfmove >= state.config.no_progress_turns - 4:
            # C3 would draw the game soon: a deploy (or a capture) keeps it going, or sending a unit
            # to the Barracks (The Last Stand's Evacuate) to deploy it next turn
            progress = [a for a in orders if codes.order_kind(a) in (codes.DEPLOY, codes.ATTACK, codes.SHOOT)]
            units = state.units.units
            away = [a for a in legal if not A.is_order(a) and A.kind_of(a) == A.K_SQUARE
                    and not units[state.board.unit_on(A.argument(a))[0]].is_sovereign]
            if not progress and away:
                return min(away, key=lambda a: (units[state.board.unit_on(A.argument(a))[0]].price, a))
            orders = progress or orders
        order, score, searched = self._best_order(state, me, orders) if orders else (None, -GAME_WON, True)
        passing = self._reply_score(state, state.board, me, searched)
        free = [a for a in plays if specs[a].orders >= 1]
        if free:     # the card gives its order back: play it unless the best line after it is worse
            results = self._tried(sample, me, free, lambda board: self._line_score(state, board, me, searched))
            best = max(free, key=lambda a: (results[a], specs[a].draws, specs[a].gold, -a))
            if results[best] >= max(score, passing) - self.margin:
                return best
        terminal = [a for a in plays if specs[a].orders == 0]
        moving = [a for a in terminal if specs[a].draws == 0]
        if moving:                               # a card that uses the order: a better board after the reply
            results = self._tried(sample, me, moving, lambda board: self._reply_score(state, board, me, searched))
            best = max(moving, key=lambda a: (results[a], -a))
            if order is None or results[best] > score + self.margin:
                return best
        drawing = [a for a in terminal if specs[a].draws > 0]
        if drawing and (order is None or score - passing < self.quiet):
            return max(drawing, key=lambda a: (specs[a].draws, specs[a].actions, -a))   # a quiet board: draw
        here = self._placement(state.board)
        if order is not None and (A.DONE not in legal or score >= passing - self.margin or self._seen[here] >= 2):
            self._count(board_after(state, order))
            return order
        self._count(state.board)
        return A.DONE if A.DONE in legal else legal[0]         # every order makes the board worse: pass

    # -- the action phase ---------------------------------------------------------------------
    def _action_phase(self, state: GameState, me: int, legal: list[int]) -> int:
        cards = state.cards.cards
        profiles = self.profiles(state)
        plays = [a for a in legal if not A.is_order(a) and A.kind_of(a) == A.K_PLAY]
        specs = {a: cards[A.play_card(a)].effects[A.play_effect(a)] for a in plays}
        again = [a for a in plays if specs[a].kind != "training" and specs[a].actions >= 1]
        if again:
            return max(again, key=lambda a: (specs[a].draws, specs[a].gold, specs[a].buys, -A.play_effect(a), -a))
        training = [a for a in plays if specs[a].kind == "training" and self._trains_something(state, specs[a])]
        actions = [a for a in plays if specs[a].kind != "training"]

        def points(a):
            spec = specs[a]
            return state.units.by_token[spec.trains].price * spec.count

        gain = {a: points(a) - profiles[A.play_card(a)].keep for a in training}
        recruit = self._recruit(state, me)
        if recruit is not None:                  # a small army: the unit worth most over the card kept
            chosen = [a for a in training if A.play_card(a) == recruit]
            if chosen:
                return chosen[0]
        moving = [a for a in actions if not (specs[a].gold or specs[a].draws or specs[a].buys)]
        if moving:                  # units moved, or cards gained: judged after the opponent's reply
            passing = self._reply_score(state, state.board, me)
            results = self._tried(self._sample(state, me), me, moving,
                                  lambda board: self._reply_score(state, board, me))
            best = max(moving, key=lambda a: (results[a], -a))
            if results[best] > passing + self.margin:
                return best
        economy = [a for a in actions if specs[a].gold or specs[a].draws or specs[a].buys]
        if economy:
            return max(economy, key=lambda a: (specs[a].gold + specs[a].draws + 0.5 * specs[a].buys, -a))
        thick = len(state.zones[me].all_cards()) > self.deck_floor
        if training and thick:                   # a thin Deck keeps its cards: they are its economy
            gold = sum(profiles[c].gold for c in state.zones[me].hand) + state.gold
            worthwhile = [a for a in training if gain[a] >= 0]
            if worthwhile and gold < 3:          # gold is short: this hand buys nothing worth having
                return max(worthwhile, key=lambda a: (gain[a], points(a), -a))
            starters = [a for a in training if profiles[A.play_card(a)].starter]
            if starters and self.stage(state, me) == LATE:
                return max(starters, key=lambda a: (points(a), -profiles[A.play_card(a)].gold, -a))
        return A.DONE if A.DONE in legal else legal[0]

    def _recruit(self, state: GameState, me: int) -> int | None:
        """The card of ``me``'s Hand to train this turn because the army is small (below
        ``army_target`` or the opponent's army): the one whose unit is worth most over the card kept
        (and worth more than it), never a treasure whose gold would leave less than
        ``money_floor`` gold of treasures in ``me``'s cards. None when the army is big enough."""
        if self.army(state, me) >= max(self.army_target, self.army(state, 1 - me)):
            return None
        profiles, units = self.profiles(state), state.units
        money = sum(profiles[c].gold for c in state.zones[me].all_cards())
        best, best_key = None, None
        for card in sorted(set(state.zones[me].hand)):
            spec = next((e for e in state.cards.cards[card].effects if e.kind == "training"), None)
            if spec is None or not self._trains_something(state, spec):
                continue
            p = profiles[card]
            points = units.by_token[spec.trains].price * spec.count
            if points - p.keep <= 0 or (p.gold and money - p.gold < self.money_floor):
                continue
            key = (points - p.keep, points)
            if best_key is None or key > best_key:
                best, best_key = card, key
        return best

    @staticmethod
    def _trains_something(state: GameState, spec) -> bool:
        return state.board.stock_count(state.units.by_token[spec.trains].id) > 0

    # -- the buy phase ------------------------------------------------------------------------
    def _buy_phase(self, state: GameState, me: int, legal: list[int]) -> int:
        cards = state.cards.cards
        plays = [a for a in legal if not A.is_order(a) and A.kind_of(a) == A.K_PLAY]
        if plays:
            # every treasure; one whose gold is its own rule (counting treasures played) last
            return min(plays, key=lambda a: (cards[A.play_card(a)].effects[A.play_effect(a)].gold == 0, a))
        buys = [a for a in legal if not A.is_order(a) and A.kind_of(a) == A.K_BUY]
        pick = self.buy(state, me, [A.argument(a) for a in buys])
        if pick is not None:
            return A.buy(pick)
        return A.DONE if A.DONE in legal else legal[0]

    def buy(self, state: GameState, me: int, offered: list[int]) -> int | None:
        """The card to buy (or gain) among the card ids ``offered``, by the stage's priority; None:
        buy nothing."""
        profiles = self.profiles(state)
        owned = Counter(state.zones[me].all_cards())
        stage = self.stage(state, me)
        allowed = [c for c in offered if not (profiles[c].terminal and owned[c] >= self.terminal_limit)]
        if stage == LATE and len(owned) and sum(owned.values()) > self.deck_floor:
            allowed = [c for c in allowed if profiles[c].cost >= 3]
        if not allowed:
            return None

        def key(c):
            p = profiles[c]
            if stage == OPENING:
                return p.economy, p.train, p.cost
            if stage == BUILD:
                return p.train, p.tempo, p.economy
            gives_back = p.plus_orders + p.plus_actions > 0 and owned[c] < self.terminal_limit
            return p.cost + (2 if gives_back else 0), p.train, p.economy

        top = max(key(c) for c in allowed)
        best = [c for c in allowed if key(c) == top]
        return best[0] if len(best) == 1 else self.rng.choice(sorted(best))

    # -- choices inside an effect ---------------------------------------------------------------
    def _effect_choice(self, state: GameState, me: int, legal: list[int], orders: list[int]) -> int:
        decision = state.decision
        if orders:
            order, score, searched = self._best_order(state, me, orders)
            if A.DONE in legal and self._reply_score(state, state.board, me, searched) > score + self.margin:
                return A.DONE                    # an optional order that only makes things worse
            return order
        kinds = {a: A.kind_of(a) for a in legal}
        probes = [a for a in legal if kinds[a] in (A.K_SQUARE, A.K_UNIT)]
        if probes:
            return self._probe_choice(state, me, legal, probes)
        cards = [a for a in legal if kinds[a] == A.K_CARD]
        if cards:
            return self._card_choice(state, me, legal, cards, decision.zone, decision.prompt)
        yes = A.yes()
        if yes in legal and A.no() in legal:
            revealed = state.zones[1 - me].top
            return yes if revealed and self.profiles(state)[revealed[-1][0]].cost >= 3 else A.no()
        rest = [a for a in legal if a != A.DONE]
        return min(rest) if rest else legal[0]

    def _probe_choice(self, state: GameState, me: int, legal: list[int], probes: list[int]) -> int:
        """The square or unit after which (the effect finished greedily) the board is best; ties:
        the unit of higher price, then the lower action id."""
        sample = self._sample(state, me)
        units = state.units.units

        def price(a):
            if A.kind_of(a) == A.K_UNIT:
                return units[A.argument(a)].price
            sq = A.argument(a)
            unit = state.board.unit_on(sq) if sq < 64 else None
            return units[unit[0]].price if unit else 0

        after = {a: self._play_out(sample, me, a) for a in probes}
        scored = {a: self._worth(after[a], me) for a in probes}
        ranked = sorted(probes, key=lambda a: (scored[a], price(a), -a), reverse=True)
        if state.current == me and self._searchable(state.board):
            # the best few by the board at once, judged again by the best line after them
            cards_before = self._cards_worth(sample, me)
            for a in ranked[:self.probe_top]:
                cards_delta = self._cards_worth(after[a], me) - cards_before
                scored[a] = self._line_score(state, after[a].board, me, True) + cards_delta
            ranked = sorted(ranked[:self.probe_top], key=lambda a: (scored[a], price(a), -a), reverse=True)
            stay = self._line_score(state, state.board, me, True)
        else:
            stay = self._worth(sample, me)
        if A.DONE in legal and stay > scored[ranked[0]] + self.margin:
            return A.DONE
        return ranked[0]

    def _card_choice(self, state: GameState, me: int, legal: list[int], cards: list[int], zone: str | None,
                     prompt: str) -> int:
        profiles = self.profiles(state)
        ids = {a: A.argument(a) for a in cards}
        if zone == "supply":
            pick = self.buy(state, me, list(ids.values()))
            if pick is None:
                pick = max(ids.values(), key=lambda c: (profiles[c].cost, -c))
            return A.card(pick)
        if zone == "name":
            if state.phase == "order":
                pool = Counter(c for c in state.zones[me].all_cards() if c not in state.zones[me].hand)
            else:
                pool = Counter(state.zones[1 - me].discard)
            named = [a for a in cards if pool[ids[a]]]
            if not named:
                return min(cards)
            return max(named, key=lambda a: (profiles[ids[a]].cost, -a))
        text = prompt.lower()
        if "trash" in text:
            sample = self._sample(state, me)      # the board it brings (a morph) less the card's cost
            scored = {a: self._worth(self._play_out(sample, me, a), me) for a in cards}
            return max(cards, key=lambda a: (scored[a], profiles[ids[a]].starter, -profiles[ids[a]].keep, -a))
        if "deck" in text:
            # put back the card least useful for the rest of this turn, the best of those for the next
            def useful_now(c):
                spec_phases = {e.phase for e in state.cards.cards[c].effects}
                return state.phase in spec_phases or (state.phase == "action" and "buy" in spec_phases)
            return min(cards, key=lambda a: (useful_now(ids[a]), -profiles[ids[a]].cost, a))
        if A.DONE in legal:                                   # an optional discard: only starters
            starters = [a for a in cards if profiles[ids[a]].starter]
            return min(starters) if starters else A.DONE
        return min(cards, key=lambda a: (profiles[ids[a]].cost, profiles[ids[a]].gold, a))
