"""A learned evaluation of full game states: the board *and* the cards (issue 12).

The board evaluator (``board_value``) sees units only; a player with a stronger Deck (more gold per
card, cards that train units, cards that give orders back) is ahead in a way it cannot see. This
evaluation is a logistic model over features of both:

==================  ===================================================================================
feature             meaning (player minus opponent unless said; scaled to about -1..1 per unit)
==================  ===================================================================================
board               ``board_value`` of the board for the player, in centi-points / 1000, clipped to +-5
board_late          ``board`` x min(1, turns taken by both / 40): the board counts more as the game ages
army                points of units on the board and in the Barracks, Sovereigns aside / 10
barracks            points of units waiting in the Barracks (deployable, not yet on the board) / 10
gold                gold of the treasure effects of all the player's cards / 10
gold_density        gold per card of the player's cards
training            points the player's cards can train (their training effects) / 10
tempo               orders, actions and draws the player's cards give back (CardProfile.tempo) / 5
cards               number of cards the player owns / 10
to_move             +1 when it is the player's turn, -1 when it is the opponent's
==================  ===================================================================================

Every feature is antisymmetric (the opponent's view is the negation), so the model has no intercept
and ``value(state, 0) == -value(state, 1)`` exactly. The value for ``player`` is
``2 * sigmoid(w . x) - 1`` in [-1, 1]: twice the predicted chance to win (a draw counts half)
less one, the scale of ISMCTS rewards.

A model may also weigh optional features (``EXTRA_FEATURES``, see ``extra_features``: the hand, the
Deck, attacks on each Sovereign's zone, features by the game's age); a file without them loads with
them at 0, and they are computed only for a model that weighs one.

The weights are data: engine/data/state_eval.toml, written by tools/train_state_eval.py (a fit from
scratch) or tools/state_eval_loop.py (rounds that each fit from the current model on fresh games
and land only past a held-out gate, docs/state-eval-loop.md); the file's header and [trained] table
say how (games, positions, seeds, held-out log-loss and accuracy, the parent). A user may refit or
edit them; the loader checks the feature names and values.

>>> from engine.crown.config import GameConfig
>>> from engine.crown.state import GameState
>>> state = GameState(GameConfig(seed=3))
>>> evaluator = StateEvaluator()
>>> abs(evaluator(state, 0) + evaluator(state, 1)) < 1e-12
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from engine.board.evaluate import board_value
from engine.catalog import read_toml_file
from engine.crown.board_eval import board_winner
from engine.crown.profiles import card_profiles

__all__ = ["FEATURES", "EXTRA_FEATURES", "ALL_FEATURES", "extra_features", "model_features", "StateModel", "StateEvaluator", "StateModelError", "features", "logit", "load_model",
           "default_model", "DEFAULT_PATH"]

FEATURES = ("board", "board_late", "army", "barracks", "gold", "gold_density", "training", "tempo", "cards",
            "to_move")

#: Optional features (issue 44): a model file may weigh them; one that does not (an older file) gives
#: them weight 0, and they are then not computed. Same scales and sign convention as ``FEATURES``.
EXTRA_FEATURES = ("hand", "hand_gold", "deck", "sovereign_danger", "sovereign_cover", "sovereign_attacked",
                  "army_late", "barracks_late", "cards_late", "to_move_late", "board_sq")

ALL_FEATURES = FEATURES + EXTRA_FEATURES

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "data" / "state_eval.toml"


class StateModelError(ValueError):
    """A state-evaluation file that cannot be used: names the file and the field."""


@dataclass(frozen=True)
class StateModel:
    """Weights per feature (``ALL_FEATURES`` order; ``FEATURES``' alone are taken too, the optional
    features then weigh 0) and how they were made (free text for people)."""

    weights: tuple[float, ...]
    trained: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        weights = tuple(float(w) for w in self.weights)
        if len(weights) == len(FEATURES):
            weights += (0.0,) * len(EXTRA_FEATURES)
        if len(weights) != len(ALL_FEATURES):
            raise ValueError(f"StateModel: {len(weights)} weights, expected {len(FEATURES)} or {len(ALL_FEATURES)}")
        object.__setattr__(self, "weights", weights)

    @property
    def uses_extra(self) -> bool:
        """Whether any optional feature (``EXTRA_FEATURES``) has a weight: only then are they computed."""
        return any(self.weights[len(FEATURES):])

    def to_toml(self, header: str = "") -> str:
        """The model file: the ``FEATURES``' weights always, an optional feature's only when it weighs
        (a model without them writes the file an older engine reads)."""
        lines = [f"# {line}" if line else "#" for line in header.splitlines()]
        lines.append("[weights]")
        lines += [f"{name} = {w:.6f}" for i, (name, w) in enumerate(zip(ALL_FEATURES, self.weights))
                  if i < len(FEATURES) or w != 0.0]
        if self.trained:
            lines.append("")
            lines.append("[trained]")
            for key, value in self.trained.items():
                lines.append(f"{key} = {_toml_value(value)}")
        return "\n".join(lines) + "\n"


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def load_model(path: str | Path | None = None) -> StateModel:
    """The model in ``path`` (default engine/data/state_eval.toml). Every feature of ``FEATURES``
    needs a finite number, an optional one (``EXTRA_FEATURES``) may have one (an older file has none:
    they weigh 0); an unknown name is refused (a file for another version of the features)."""
    path = Path(path) if path is not None else DEFAULT_PATH
    data = read_toml_file(path, "the state evaluation", StateModelError)
    table = data.get("weights")
    if not isinstance(table, dict):
        raise StateModelError(f"{path}: missing the [weights] table")
    unknown = sorted(set(table) - set(ALL_FEATURES))
    if unknown:
        raise StateModelError(f"{path}: [weights] {unknown[0]!r} is not a feature; known: {', '.join(ALL_FEATURES)}")
    weights = []
    for name in ALL_FEATURES:
        value = table.get(name)
        if value is None:
            if name in FEATURES:
                raise StateModelError(f"{path}: [weights] lacks {name!r}")
            value = 0.0
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise StateModelError(f"{path}: [weights] {name!r} must be a finite number, got {value!r}")
        weights.append(float(value))
    trained = data.get("trained", {})
    return StateModel(tuple(weights), dict(trained) if isinstance(trained, dict) else {})


_DEFAULT: list[StateModel] = []


def default_model() -> StateModel:
    """The shipped model (engine/data/state_eval.toml), read once."""
    if not _DEFAULT:
        _DEFAULT.append(load_model())
    return _DEFAULT[0]


_PROFILES: dict = {}


def _card_numbers(state) -> tuple[list[float], list[float], list[float]]:
    """Per card id: (treasure gold, training points, tempo) of ``state``'s catalogs, cached."""
    key = (id(state.cards), id(state.units))
    cached = _PROFILES.get(key)
    if cached is None or cached[0] is not state.cards:
        profiles = card_profiles(state.cards, state.units)
        cached = _PROFILES[key] = (state.cards, [float(p.gold) for p in profiles], [float(p.train) for p in profiles],
                                   [p.tempo for p in profiles])
    return cached[1], cached[2], cached[3]


def _army(board, units, player: int) -> tuple[int, int]:
    """(points on the board and in the Barracks, points in the Barracks), Sovereigns aside."""
    on_board = 0
    for sq in board.squares_of(player):
        unit = units[board.unit_on(sq)[0]]
        if not unit.is_sovereign:
            on_board += unit.price
    waiting = 0
    for t, n in enumerate(board.barracks_counts(player)):
        if n and not units[t].is_sovereign:
            waiting += n * units[t].price
    return on_board + waiting, waiting


def features(state, player: int, board_score: float | None = None) -> list[float]:
    """The feature vector (``FEATURES`` order) of a full state for ``player``. It reads every zone of
    both players: give it a determinization (``resample_hidden``) or a finished game, not the live
    state of a game in progress, when the player may not see the opponent's cards."""
    gold, train, tempo = _card_numbers(state)
    units = state.units.units
    board = state.board
    side = []
    for p in (player, 1 - player):
        cards = state.zones[p].all_cards()
        n = len(cards)
        g = sum(gold[c] for c in cards)
        army, waiting = _army(board, units, p)
        side.append((army, waiting, g, g / n if n else 0.0, sum(train[c] for c in cards),
                     sum(tempo[c] for c in cards), n))
    me, them = side
    if board_score is None:
        board_score = board_value(board, player)
    value = max(-5.0, min(5.0, board_score / 1000.0))
    age = min(1.0, (state.turns_taken[0] + state.turns_taken[1]) / 40.0)
    return [
        value,
        value * age,
        (me[0] - them[0]) / 10.0,
        (me[1] - them[1]) / 10.0,
        (me[2] - them[2]) / 10.0,
        me[3] - them[3],
        (me[4] - them[4]) / 10.0,
        (me[5] - them[5]) / 5.0,
        (me[6] - them[6]) / 10.0,
        1.0 if state.current == player else -1.0,
    ]


def _zone_masks() -> list[int]:
    """Per square of the 8x8 board (a1 = 0, rank by rank): the bitboard of it and its neighbours."""
    masks = []
    for sq in range(64):
        rank, file = divmod(sq, 8)
        mask = 0
        for r in range(max(0, rank - 1), min(8, rank + 2)):
            for f in range(max(0, file - 1), min(8, file + 2)):
                mask |= 1 << (r * 8 + f)
        masks.append(mask)
    return masks


_ZONES = _zone_masks()


def _sovereign_square(board, units, player: int) -> int | None:
    for sq in board.squares_of(player):
        if units[board.unit_on(sq)[0]].is_sovereign:
            return sq
    return None


def extra_features(state, player: int, base: list[float] | None = None) -> list[float]:
    """The ``EXTRA_FEATURES`` of a full state for ``player`` (player minus opponent unless said):

    - ``hand``: cards in hand / 5; ``hand_gold``: treasure gold of the cards in hand / 5;
      ``deck``: cards left in the Deck / 10;
    - ``sovereign_danger``: squares of the Sovereign's 3x3 zone the opponent's units attack / 9, the
      player's zone less the opponent's (more is worse); ``sovereign_cover``: the same for the
      player's own units' attacks on its zone; ``sovereign_attacked``: 1 for each Sovereign standing
      on an attacked square (the player's counts +1, the opponent's -1);
    - ``army_late``, ``barracks_late``, ``cards_late``, ``to_move_late``: ``army``, ``barracks``,
      ``cards``, ``to_move`` times the game's age (``board_late``'s factor);
    - ``board_sq``: ``board`` x |``board``| / 5 (the board's value bends as it grows).

    ``base``: the state's ``features`` when already computed."""
    if base is None:
        base = features(state, player)
    gold, _train, _tempo = _card_numbers(state)
    board, units = state.board, state.units.units
    side = []
    for p in (player, 1 - player):
        zones = state.zones[p]
        danger = cover = attacked = 0
        sq = _sovereign_square(board, units, p)
        if sq is not None:
            zone = _ZONES[sq]
            theirs = board.attack_map(1 - p, board.colour_bits(1 - p))
            danger = (theirs & zone).bit_count()
            cover = (board.attack_map(p, board.colour_bits(p)) & zone).bit_count()
            attacked = (theirs >> sq) & 1
        side.append((len(zones.hand), sum(gold[c] for c in zones.hand), zones.deck_size(), danger, cover, attacked))
    me, them = side
    age = min(1.0, (state.turns_taken[0] + state.turns_taken[1]) / 40.0)
    value = base[0]
    return [
        (me[0] - them[0]) / 5.0,
        (me[1] - them[1]) / 5.0,
        (me[2] - them[2]) / 10.0,
        (me[3] - them[3]) / 9.0,
        (me[4] - them[4]) / 9.0,
        float(me[5] - them[5]),
        base[2] * age,
        base[3] * age,
        base[8] * age,
        base[9] * age,
        value * abs(value) / 5.0,
    ]


def model_features(state, player: int, model: StateModel, board_score: float | None = None) -> list[float]:
    """The features ``model`` reads (``ALL_FEATURES`` order): ``features``, and the optional ones when
    it weighs any (else zeros, not computed)."""
    base = features(state, player, board_score)
    if model.uses_extra:
        return base + extra_features(state, player, base)
    return base + [0.0] * len(EXTRA_FEATURES)


def logit(state, player: int, model: StateModel | None = None, board_score: float | None = None) -> float:
    """``w . features``: the model's log-odds that ``player`` wins (``features`` for the arguments)."""
    model = model if model is not None else default_model()
    base = features(state, player, board_score)
    weights = model.weights
    z = sum(w * x for w, x in zip(weights, base))
    if model.uses_extra:
        z += sum(w * x for w, x in zip(weights[len(FEATURES):], extra_features(state, player, base)))
    return z


class StateEvaluator:
    """An ISMCTS evaluator (``evaluator(state, player) -> [-1, 1]``) from a ``StateModel`` (default:
    the shipped one): +-1 when the board decides the game (``board_winner``), else
    ``2 * sigmoid(w . features) - 1``."""

    def __init__(self, model: StateModel | None = None):
        self.model = model if model is not None else default_model()

    def __repr__(self) -> str:
        return "StateEvaluator()"

    def __call__(self, state, player: int) -> float:
        winner = board_winner(state)
        if winner is not None:
            return 1.0 if winner == player else -1.0
        return math.tanh(logit(state, player, self.model) / 2.0)       # == 2 * sigmoid(z) - 1
