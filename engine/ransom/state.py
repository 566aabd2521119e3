"""King's Ransom as a sequence of atomic decisions, with explicit chance nodes (OpenSpiel style),
the same shape as For the Crown's ``GameState``: ``legal_actions`` / ``apply`` / ``clone``,
``current_player`` (-1 at a chance node, -4 at the end), ``chance_outcomes``, ``returns``,
``observation(player)`` and ``resample_hidden(player, rng)`` for information-set search, and JSON
records that ``replay`` rebuilds.

The set-up (G3) deals each card as a chance node over the card types left in the dealer's Deck
(its order is unknown to everyone); a turn is the decisions flip, move, promote (only when a Pawn
reaches the back row and the Discard pile has cards), play, then the Draw step, a chance node
(docs/kings-ransom.md). With ``auto_chance=True`` (the default) chance nodes are resolved at once
by the state's seeded generator, so ``legal_actions`` always belongs to a player.

>>> g = RansomState(seed=1)
>>> g.current_player(), g.phase, g.action_text(g.legal_actions()[0])
(0, 'flip', 'flip a1')
"""

from __future__ import annotations

import random

from engine import codes
from engine.games.protocol import CHANCE, TERMINAL
from engine.notation import square_name
from engine.ransom import actions as RA
from engine.ransom.position import CHECKMATE, STALEMATE, RansomPosition, TurnOptions
from engine.ransom.rules import BLUE, PLAYER_NAMES, RED, RansomRules, default_rules

__all__ = ["RansomState", "RansomError", "IllegalRansomAction", "replay", "VARIANT", "CHANCE", "TERMINAL",
           "RECORD_FORMAT"]

VARIANT = "kings-ransom"
RECORD_FORMAT = "ftc-ransom-record"
#: A resignation in the history and the record: ``[player, RESIGN]`` (any time before the end).
RESIGN = -2
DEAL, FLIP, MOVE, PROMOTE, PLAY = "deal", "flip", "move", "promote", "play"


class RansomError(ValueError):
    """A King's Ransom game that cannot be set up or continued as asked; the message says why."""


class IllegalRansomAction(RansomError):
    """An action that is not legal now; the state is left unchanged."""


class RansomVariant:
    """What the search's generic helpers ask of a variant (engine/search/evaluate.board_winner):
    a board decides the game when a King is missing (G7: capturing it wins)."""

    name = VARIANT

    def __init__(self, rules: RansomRules):
        self.king = rules.king_type

    def board_winner(self, board, mover: int) -> int | None:
        present = [any(board.unit_on(sq)[0] == self.king for sq in board.squares_of(side)) for side in (RED, BLUE)]
        if all(present):
            return None
        return RED if present[RED] else BLUE if present[BLUE] else mover


class RansomState:
    """The whole game of King's Ransom. Create with a seed; drive with legal_actions()/apply().
    It implements the state protocol (engine/games/protocol.py)."""

    #: The registry name of the game (engine/games: this package's entry.py).
    game = VARIANT
    num_players = 2
    variant_name = VARIANT
    player_names = PLAYER_NAMES

    def __init__(self, seed: int | None = None, rules: RansomRules | None = None, auto_chance: bool = True,
                 position: RansomPosition | None = None):
        self.rules = rules or default_rules()
        self.variant = RansomVariant(self.rules)
        self.seed = seed if seed is not None else random.SystemRandom().getrandbits(32)
        self.rng = random.Random(self.seed)
        self.auto_chance = auto_chance
        self.history: list[tuple[int, int]] = []    # (player or CHANCE, action or outcome)
        self.log: list[tuple[int, str]] = []        # public events: (player, text) as both see them
        self.keep_log = True                        # determinizations keep none (search speed)
        self.over_reason: str | None = None
        self.winner: int | None = None
        self.step = DEAL
        self.options: TurnOptions | None = None
        #: The player whose King is in check as announced (G6, G9), or None: set when a Move step
        #: ends (the mover's face-up cards threaten the other King) and again when a turn starts
        #: (a face-down card played in between may have blocked the threat).
        self.check: int | None = None
        self.flipped: int | None = None
        self.moved: int | None = None
        self.actions: list[int] = []
        self.chance: tuple[int, object] | None = None      # (player, square or "hand" or "draw")
        self.deal: list[tuple[int, object]] = []
        self.start_text: str | None = None
        self.from_position = position is not None
        if position is not None:
            self.pos = position.copy()
            self.start_text = position.text() if not any(position.pools[0] + position.pools[1]) else None
            self._start_turn()
        else:
            self.pos = RansomPosition(self.rules)
            self._set_up()
        self._run()

    # -- set-up (G3) ----------------------------------------------------------------------------
    def _set_up(self) -> None:
        rules, pos = self.rules, self.pos
        for side in (RED, BLUE):
            king = rules.king_square if side == RED else rules.mirror(rules.king_square)
            pos.core.place(king, rules.king_type, side)
            pos.pools[side] = list(rules.deck)
            pos.pools[side][rules.king_type] -= 1
            squares = rules.face_down if side == RED else tuple(rules.mirror(s) for s in rules.face_down)
            self.deal += [(side, sq) for sq in squares] + [(side, "hand")] * rules.hand
        pos.core.set_side(RED)

    # -- the task loop ----------------------------------------------------------------------------
    def _run(self) -> None:
        while self.over_reason is None:
            if self.chance is None and self.step == DEAL:
                if not self.deal:
                    self._start_turn()
                    continue
                self.chance = self.deal.pop(0)
            if self.chance is None:
                return
            if not self.auto_chance:
                return
            self._resolve_chance(self._sample(self.rng))

    def _sample(self, rng: random.Random) -> int:
        pool = self.pos.pools[self.chance[0]]
        pick = rng.randrange(sum(pool))
        for t, n in enumerate(pool):
            pick -= n
            if pick < 0:
                return t
        raise AssertionError("empty pool")  # pragma: no cover

    def _resolve_chance(self, t: int) -> None:
        side, where = self.chance
        pos = self.pos
        self.chance = None
        self.history.append((CHANCE, t))
        pos.pools[side][t] -= 1
        if where == "hand" or where == "draw":
            pos.hands[side][t] += 1
        else:
            pos.core.place(where, t, side)
            pos.face_down |= 1 << where
            pos._sync_flags()
        if where == "draw":
            self._end_turn()

    # -- the turn -----------------------------------------------------------------------------------
    def _start_turn(self) -> None:
        pos = self.pos
        side = pos.side
        self.flipped = self.moved = None
        if pos.no_capture >= self.rules.no_capture_turns:
            self._finish(None, f"draw: {self.rules.no_capture_turns} turns without a capture (G7)")
            return
        opts = self.options = pos.turn_options()
        self.check = side if opts.in_check else None
        if opts.status == CHECKMATE:
            self._finish(1 - side, f"{PLAYER_NAMES[side]} is checkmated (G7)")
            return
        if opts.status == STALEMATE:
            self._finish(None, f"draw: {PLAYER_NAMES[side]} is stalemated (G9)")
            return
        if None in opts.moves:
            self._after_flip()
        else:
            self._ask(FLIP, [RA.flip(sq) for sq in opts.moves])

    def _after_flip(self) -> None:
        self._ask(MOVE, list(self.options.moves[self.flipped]))

    def _end_move(self) -> None:
        """The Move step is over (its promotion included): announce check (G9) and go on to play."""
        pos = self.pos
        other = 1 - pos.side
        self.check = other if pos.in_check(other) else None
        if self.check is not None:
            self._note(pos.side, f"check: {PLAYER_NAMES[other]}'s King is threatened")
        self._to_play()

    def _to_play(self) -> None:
        plays = self.pos.play_options()
        if plays == [None]:
            self._draw()
        else:
            self._ask(PLAY, [RA.play(t, sq) for t, sq in plays])

    def _draw(self) -> None:
        pos = self.pos
        side = pos.side
        self.step = "draw"
        self.actions = []
        if pos.decks[side]:
            pos.draw(side)
            self._end_turn()
        elif any(pos.pools[side]):
            self.chance = (side, "draw")
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        self.pos.end_turn()
        self._start_turn()

    def _ask(self, step: str, actions: list[int]) -> None:
        self.step = step
        self.actions = actions

    def _finish(self, winner: int | None, reason: str) -> None:
        self.winner, self.over_reason = winner, reason
        self.step, self.actions, self.chance = "over", [], None
        self._note(-1, reason)

    # -- taking decisions --------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """Take one decision, or resolve the pending chance node with a card type id."""
        if self.over_reason is not None:
            raise IllegalRansomAction("the game is over")
        if self.chance is not None:
            side = self.chance[0]
            if not (isinstance(action, int) and 0 <= action < len(self.pos.pools[side])
                    and self.pos.pools[side][action] > 0):
                raise IllegalRansomAction(f"chance outcome {action} is not a card left in {PLAYER_NAMES[side]}'s Deck")
            self._resolve_chance(action)
            self._run()
            return
        if action not in self.actions:
            raise IllegalRansomAction(f"action {action} is not legal now ({PLAYER_NAMES[self.pos.side]}: "
                                      f"{self.step}); {len(self.actions)} legal actions")
        pos = self.pos
        side = pos.side
        self.history.append((side, action))
        kind = RA.decode(action)
        if kind[0] == "flip":
            sq = kind[1]
            t = pos.core.unit_on(sq)[0]
            pos.flip(sq)
            self.flipped = sq
            if self.keep_log:
                self._note(side, f"flips {square_name(sq)}: {self._name(t)}")
            self._after_flip()
        elif kind[0] == "move":
            code = kind[1]
            promotions = pos.promotion_options(code)
            captured = pos.move(code)
            self.moved = code
            if self.keep_log:
                text = f"{self._name(codes.order_unit(code))} {square_name(codes.order_origin(code))}"
                if captured is None:
                    self._note(side, f"{text}-{square_name(codes.order_dest(code))}")
                else:
                    was = " (face down)" if captured[1] else ""
                    self._note(side, f"{text}x{square_name(codes.order_dest(code))}: "
                                     f"captures {self._name(captured[0])}{was}")
            if captured is not None:
                if captured[0] == self.rules.king_type:
                    self._finish(side, f"{PLAYER_NAMES[side]} captures the King (G7)")
                    return
            if len(promotions) > 1:
                # The move left the mover's King safe; the other King's check is told after the exchange.
                self.check = None
                self._ask(PROMOTE, [RA.promote(t) for t in promotions])
            else:
                self._end_move()
        elif kind[0] == "promote":
            if kind[1] is not None:
                pos.promote(codes.order_dest(self.moved), kind[1])
                if self.keep_log:
                    self._note(side, f"promotes to {self._name(kind[1])}")
            self._end_move()
        else:
            t = kind[1]
            square = kind[2] if kind[0] == "play" else None
            replaced = pos.core.unit_on(square) if square is not None else None
            replaced_down = square is not None and bool(pos.face_down >> square & 1)
            pos.play(t, square)
            if not self.keep_log:
                pass
            elif square is None:
                self._note(side, f"discards {self._name(t)} from the Hand")
            elif replaced is not None:
                was = " (face down)" if replaced_down else ""
                self._note(side, f"plays a card on {square_name(square)}, replacing {self._name(replaced[0])}{was}")
            else:
                self._note(side, f"plays a card face down on {square_name(square)}")
            self._draw()
        self._run()

    def _note(self, player: int, text: str) -> None:
        if self.keep_log:
            self.log.append((player, text))

    def resign(self, player: int) -> None:
        """``player`` resigns: the opponent wins. Kept in the history (``[player, RESIGN]``), so a
        record replays to the same end."""
        if self.over_reason is not None:
            raise IllegalRansomAction("the game is over")
        if player not in (RED, BLUE):
            raise IllegalRansomAction(f"no player {player!r}")
        self.history.append((player, RESIGN))
        self._finish(1 - player, f"{PLAYER_NAMES[player]} resigns")

    def apply_text(self, text: str) -> int:
        """Apply the legal action whose text is ``text`` (as ``action_text`` writes it)."""
        for a in self.legal_actions():
            if self.action_text(a) == text.strip():
                self.apply(a)
                return a
        raise IllegalRansomAction(f"{text!r} is not a legal action now; legal: "
                                  + ", ".join(self.legal_action_texts().values()))

    def _name(self, t: int) -> str:
        return self.rules.catalog.units[t].name

    # -- the questions of the search interface ---------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.over_reason is not None

    def is_chance_node(self) -> bool:
        return self.chance is not None

    def current_player(self) -> int:
        if self.over_reason is not None:
            return TERMINAL
        if self.chance is not None:
            return CHANCE
        return self.pos.side

    @property
    def current(self) -> int:
        """The side whose turn it is."""
        return self.pos.side

    @property
    def phase(self) -> str:
        """The step of the turn being decided: flip, move, promote, play (or deal, draw, over)."""
        return self.step

    @property
    def turn(self) -> int:
        """Turns begun so far, both sides counted (1 = Red's first)."""
        return 2 * (self.pos.turn - 1) + self.pos.side + 1

    @property
    def turn_number(self) -> int:
        """The turn in play as players count it, 1 first: ``turn`` (as For the Crown's ``turn_number``)."""
        return self.turn

    def legal_actions(self) -> list[int]:
        if self.over_reason is not None or self.chance is not None:
            return []
        return list(self.actions)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.chance is None:
            return []
        pool = self.pos.pools[self.chance[0]]
        total = sum(pool)
        return [(t, n / total) for t, n in enumerate(pool) if n > 0]

    def action_text(self, action: int) -> str:
        if self.chance is not None:
            return f"{PLAYER_NAMES[self.chance[0]]} draws {self._name(action)}"
        kind = RA.decode(action)
        if kind[0] == "flip":
            return f"flip {square_name(kind[1])}"
        if kind[0] == "move":
            return "move " + self.pos.move_text(kind[1])
        if kind[0] == "promote":
            return "keep the Pawn" if kind[1] is None else f"promote to {self.rules.catalog.units[kind[1]].token}"
        token = self.rules.catalog.units[kind[1]].token
        if kind[0] == "discard":
            return f"play {token}@discard"
        return f"play {token}@{square_name(kind[2])}"

    def action_fields(self, action: int) -> dict:
        """What an action is, as plain data (clients draw it): kind, squares, card."""
        kind = RA.decode(action)
        units = self.rules.catalog.units
        if kind[0] == "flip":
            return {"kind": "flip", "square": square_name(kind[1])}
        if kind[0] == "move":
            code = kind[1]
            return {"kind": "move", "from": square_name(codes.order_origin(code)),
                    "to": square_name(codes.order_dest(code)), "card": units[codes.order_unit(code)].token}
        if kind[0] == "promote":
            return {"kind": "promote", "card": None if kind[1] is None else units[kind[1]].token}
        if kind[0] == "discard":
            return {"kind": "discard", "card": units[kind[1]].token}
        return {"kind": "play", "card": units[kind[1]].token, "square": square_name(kind[2])}

    def legal_action_texts(self) -> dict[int, str]:
        return {a: self.action_text(a) for a in self.legal_actions()}

    def prompt(self) -> str:
        if self.over_reason is not None:
            return self.over_reason
        prompts = {FLIP: "flip one of your face-down cards", MOVE: "move a face-up card",
                   PROMOTE: "exchange the Pawn for a card of your Discard pile, or keep it",
                   PLAY: "play a card from your Hand face down"}
        return prompts.get(self.step, self.step)

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == RED else [-1.0, 1.0]

    # -- copies, information sets --------------------------------------------------------------------
    def clone(self, history: bool = True, copy_rng: bool = True) -> "RansomState":
        """An independent copy (``history``: with the decisions so far); its chance generator is a
        copy of this one's, or (``copy_rng`` False) left for the caller to set (a determinization
        gets its own: copying it first would be work thrown away)."""
        other = RansomState.__new__(RansomState)
        other.__dict__.update(self.__dict__)
        other.pos = self.pos.copy()
        other.rng = None
        if copy_rng:
            other.rng = random.Random()
            other.rng.setstate(self.rng.getstate())
        other.history = list(self.history) if history else []
        other.log = list(self.log)
        other.actions = list(self.actions)
        other.deal = list(self.deal)
        return other

    def unseen(self, player: int) -> list[int]:
        """What ``player`` cannot see of the opponent's cards, as a multiset by type: the
        opponent's deck (data) less its face-up cards and its Discard pile. In a dealt game that is
        exactly its face-down cards, Hand and Deck together, computed without reading them; a
        game from a position text may hold fewer cards, and then the hidden ones are some of
        these."""
        other = 1 - player
        pos = self.pos
        counts = list(self.rules.deck)
        for sq in codes.squares(pos.core.colour_bits(other) & ~pos.face_down):
            counts[pos.core.unit_on(sq)[0]] -= 1
        for t, n in enumerate(pos.discards[other]):
            counts[t] -= n
        return counts

    def resample_hidden(self, player: int, rng: random.Random) -> "RansomState":
        """A determinization: a full state ``player`` cannot tell from this one. The opponent's
        face-down cards, Hand and Deck are dealt again from what ``player`` cannot see (``unseen``),
        keeping how many lie where (from a position text that left cards out of the game, as many
        as it hides); ``player``'s own Deck keeps no order anyone knows; the chance
        generator is reseeded from ``rng``. Nothing hidden from ``player`` is read."""
        d = self.clone(history=False, copy_rng=False)
        d.keep_log = False                    # the log so far is public; a search adds nothing to it
        pos = d.pos
        other = 1 - player
        cards = [t for t, n in enumerate(self.unseen(player)) for _ in range(n)]
        rng.shuffle(cards)
        down = list(codes.squares(pos.core.colour_bits(other) & pos.face_down))
        hand_size = sum(pos.hands[other])
        deck_size = pos.deck_size(other)
        if len(cards) < len(down) + hand_size + deck_size:
            raise RansomError("internal: fewer unseen cards than hidden places")
        # A dealt game hides exactly the unseen cards; a position text may have left some out of the
        # game, and which ones nobody can tell: a random part of them is left out.
        del cards[:len(cards) - len(down) - hand_size - deck_size]
        for sq in down:
            pos.core.remove(sq)
            pos.core.place(sq, cards.pop(), other)
        pos._sync_flags()
        hand = [0] * len(self.rules.deck)
        for _ in range(hand_size):
            hand[cards.pop()] += 1
        pool = [0] * len(self.rules.deck)
        for t in cards:
            pool[t] += 1
        pos.hands[other], pos.pools[other], pos.decks[other] = hand, pool, []
        own = pos.pools[player]
        for t in pos.decks[player]:
            own[t] += 1
        pos.decks[player] = []
        d.rng = random.Random(rng.getrandbits(64))
        return d

    def observation(self, player: int) -> dict:
        """What ``player`` may know (docs/kings-ransom.md, "Hidden information"), as plain data."""
        pos = self.pos
        units = self.rules.catalog.units
        arena = []
        for sq in codes.squares(pos.core.occupied()):
            t, owner = pos.core.unit_on(sq)
            down = bool(pos.face_down >> sq & 1)
            visible = not down or owner == player or self.over_reason is not None
            arena.append({"square": square_name(sq), "owner": owner, "face_down": down,
                          "card": units[t].token if visible else None})
        own_deck = list(pos.pools[player])
        for t in pos.decks[player]:
            own_deck[t] += 1

        def listing(counts: list[int]) -> list[str]:
            return [units[t].token for t in range(len(counts)) for _ in range(counts[t])]

        return {
            "variant": VARIANT, "player": player, "to_move": pos.side, "step": self.step,
            "turn": pos.turn, "no_capture": pos.no_capture, "arena": arena,
            "hand": listing(pos.hands[player]),
            # The opponent's Hand once the game is over (nothing is hidden then); None before.
            "opponent_hand": listing(pos.hands[1 - player]) if self.over_reason is not None else None,
            "hand_sizes": [sum(pos.hands[0]), sum(pos.hands[1])],
            "deck_sizes": [pos.deck_size(0), pos.deck_size(1)],
            "own_deck": listing(own_deck),
            "discards": [listing(pos.discards[0]), listing(pos.discards[1])],
            # The player whose King is in check as announced (G9), None when no King is.
            "check": self.check if self.over_reason is None else None,
            "over": self.over_reason, "winner": self.winner,
            "log": [list(entry) for entry in self.log],
        }

    def public_key(self) -> tuple:
        """What both players see between two decisions of one turn (ISMCTS reuses its tree when the
        game is where the chosen action led): the arena with face-down cards as backs, the piles'
        sizes, the Discard piles, the step and the turn's flip and move."""
        pos = self.pos
        arena = tuple((sq, pos.core.unit_on(sq)[1]) + ((-1,) if pos.face_down >> sq & 1 else (pos.core.unit_on(sq)[0],))
                      for sq in codes.squares(pos.core.occupied()))
        return (self.turn, self.step, arena, tuple(map(tuple, pos.discards)), sum(pos.hands[0]), sum(pos.hands[1]),
                self.flipped, self.moved)

    @property
    def board(self):
        """The arena's kernel board (read it; the game changes it)."""
        return self.pos.core

    def information_key(self, player: int) -> tuple:
        """Equal for two states ``player`` cannot tell apart (and different otherwise)."""
        obs = self.observation(player)
        obs.pop("log")
        return (repr(sorted(obs.items())), tuple(self.legal_actions()) if self.current_player() == player else ())

    def fingerprint(self) -> str:
        """The complete state as text (tests, replays): position, step and options."""
        pos = self.pos
        decks = [list(pos.decks[s]) + [(t, n) for t, n in enumerate(pos.pools[s]) if n] for s in (RED, BLUE)]
        board = [(sq,) + tuple(pos.core.unit_on(sq)) for sq in codes.squares(pos.core.occupied())]
        return repr((board, pos.face_down, pos.hands, decks, pos.discards, pos.side, pos.no_capture, pos.turn,
                     self.step, self.actions, self.chance, self.over_reason, self.winner))

    # -- records -------------------------------------------------------------------------------------------
    def record(self) -> dict:
        """The game as a JSON record: seed, start position (if not dealt), every decision and chance
        outcome in order, the result, and the generator's state (a loaded game goes on the same way)."""
        if self.start_text is None and self.from_position:
            raise RansomError("a game started from a position whose Deck order is unknown has no record "
                              "(write the Decks in order in the position text)")
        version, internal, gauss = self.rng.getstate()
        return {"format": RECORD_FORMAT, "variant": VARIANT, "seed": self.seed, "start": self.start_text,
                "rules": self.rules.source, "actions": [list(step) for step in self.history],
                "result": {"winner": self.winner, "reason": self.over_reason},
                "rng": [version, list(internal), gauss], "auto_chance": self.auto_chance}


def replay(record: dict, rules: RansomRules | None = None) -> RansomState:
    """Rebuild a game from its record; RansomError names what is wrong with a bad record."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise RansomError(f"not a King's Ransom record (expected format {RECORD_FORMAT!r})")
    seed = record.get("seed")
    if not isinstance(seed, int):
        raise RansomError("record: 'seed' must be an integer")
    start = record.get("start")
    position = None
    if start is not None:
        if not isinstance(start, str):
            raise RansomError("record: 'start' must be a position text or null")
        try:
            position = RansomPosition.parse(start, rules)
        except ValueError as exc:
            raise RansomError(f"record: 'start': {exc}") from None
    g = RansomState(seed, rules, auto_chance=False, position=position)
    steps = record.get("actions")
    if not isinstance(steps, list):
        raise RansomError("record: 'actions' must be a list")
    for i, step in enumerate(steps):
        if not (isinstance(step, list) and len(step) == 2 and all(isinstance(x, int) for x in step)):
            raise RansomError(f"record: actions[{i}]: expected [player, action], got {step!r}")
        who, action = step
        if action == RESIGN:
            try:
                g.resign(who)
            except RansomError as exc:
                raise RansomError(f"record: actions[{i}]: {exc}") from None
            continue
        expected = g.current_player()
        if who != expected:
            raise RansomError(f"record: actions[{i}]: {who} acts but {expected} is to act")
        try:
            g.apply(action)
        except RansomError as exc:
            raise RansomError(f"record: actions[{i}]: {exc}") from None
    state = record.get("rng")
    if state is not None:
        try:
            g.rng.setstate((state[0], tuple(state[1]), state[2]))
        except (TypeError, ValueError, IndexError):
            raise RansomError("record: 'rng' is not a generator state") from None
    g.auto_chance = bool(record.get("auto_chance", True))
    g._run()
    return g
