"""For the Crown on the web server (registry ``WebBoard``, engine/crown/entry.py): what the human may
see, every part built from their observation (RULINGS C4, C12) and from the public part of what
happened, never from the full state; how a game is created from the new-game form, resigned,
summarised and downloaded as a position view.

- ``build_view``: the board (screened in Point-Buy behind a screen), Barracks, Stock, Supply,
  counters, the human's own options with their fields, the log and the AI's last turn.
- ``log_entry``: what a viewer may know of one action, as text and fields (engine.crown.actions.fields);
  the opponent's choices of hidden cards and their picks behind the screen are redacted; ``step``
  applies the action after it.
- ``new_game``: a game from the new-game form (the client's seed fixes the Supply only);
  ``resign``, ``variant``, ``knowledge``: the resignation's fields, a saved game's variant, the
  position view ``ftc analyze`` reads.
"""

from __future__ import annotations

import random
from dataclasses import replace

from engine.codes import squares
from engine.crown import actions as A
from engine.crown.config import ConfigError, GameConfig
from engine.crown.core import GameError
from engine.crown.knowledge import position_view
from engine.crown.observation import behind_screen, observation, screened_board
from engine.crown.setup import starter_cards
from engine.crown.state import GameState
from engine.crown.variants import variant_rules
from engine.games.view import view_frame
from engine.notation import square_name
from engine.quiet import quiet_values

__all__ = ["build_view", "log_entry", "step", "new_game", "new_game_form", "resign", "variant", "knowledge", "STATUS_FLAGS",
           "HIDDEN_CARD", "HIDDEN_PICK"]

STATUS_FLAGS = ("ordered", "banned", "immune until Blue's turn", "immune until Yellow's turn",
                "banned next turn (Mourning)")
HIDDEN_CARD = "(a hidden choice of card)"
HIDDEN_PICK = "(a pick behind the screen)"


def log_entry(state: GameState, player: int, action: int, viewer: int | None) -> dict:
    """What ``viewer`` may know of ``player``'s ``action``, taken in ``state`` (before it is applied):
    ``{"turn", "player", "text", "fields"}`` with the action's fields (GameState.action_fields). Of
    the opponent's choices of a card (put back on a Deck, kept in hand: the card may be hidden) only
    the kind of choice and its zone remain; of their picks and placements behind the Point-Buy
    screen nothing (fields None)."""
    entry = {"turn": state.turn_number, "player": player}
    fields = state.action_fields(action)
    if player != viewer and behind_screen(state):
        return {**entry, "text": HIDDEN_PICK, "fields": None}
    if player != viewer and fields["type"] == "card":
        return {**entry, "text": HIDDEN_CARD, "fields": {"type": "card", "zone": fields["zone"]}}
    return {**entry, "text": state.action_text(action), "fields": fields}


def step(state: GameState, player: int, action: int, viewer: int | None) -> dict:
    """Apply ``player``'s ``action`` to ``state``; what ``viewer`` may know of it (``log_entry``)."""
    entry = log_entry(state, player, action, viewer)
    state.apply(action)
    return entry


def new_game(form: dict, entropy: random.Random) -> GameState:
    """A game of the new-game form's ``variant`` (default standard), ``seed``, ``supply`` and
    ``options`` (GameConfig options; ConfigError names the option, the client's values are never
    echoed). The client's seed fixes the Supply (public) and nothing else: shuffles and draws come
    from ``entropy`` (the server's secret), so no client can predict a hidden card."""
    seed = form["seed"]
    public_seed = seed if seed is not None else entropy.getrandbits(62)
    supply = form["supply"] if isinstance(form["supply"], str) else list(form["supply"])
    try:
        with quiet_values():
            settings = GameConfig.from_json({**form["options"], "variant": form["variant"] or "standard",
                                             "seed": public_seed, "supply": supply})
            if variant_rules(settings.variant).resolves_supply and settings.supply in ("random", "first-game"):
                settings = replace(settings, supply=GameState(settings).supply_names)
            return GameState(replace(settings, seed=entropy.getrandbits(63)))
    except (ConfigError, GameError) as exc:
        raise ValueError(str(exc)) from None


def new_game_form() -> list[dict]:
    """For the Crown's fields of the new-game form (GET /api/games/kinds ``form``; the shell builds the
    form from them, engine/games/registry.py ``WebBoard.form``): the variant, the Supply and the seed,
    which go at the top level of the new game's body. Each choice says what it does (``title``, and
    ``note``, the line under the menu); The Last Stand's choice relabels the seats and says that the
    Defender (Yellow) moves first (11.5; its first turn as in ruling C21's head start)."""
    return [
        {"name": "variant", "label": "Variant",
         "title": "Standard: the full card game. Point-Buy Chess: no cards; buy an army with points, then play one "
                  "order a turn. Last Stand: a training game; Yellow defends an army without cards for as long as it can.",
         "choices": [
             {"value": "standard", "label": "Standard", "note": "the full card game",
              "title": "the full game: a Deck of cards, a Supply to buy from, units trained and ordered"},
             {"value": "point-buy", "label": "Point-Buy Chess", "note": "no cards: buy an army, then one order a turn",
              "title": "no cards: each side buys its army with points, then one order a turn, as in chess"},
             {"value": "last-stand", "label": "Last Stand", "note": "training: Yellow defends, without cards",
              "title": "a training game (11.5): Yellow, without cards, defends as long as it can; Blue cannot lose",
              "first": 1,
              "seats": [{"label": "Blue (attacks)", "note": "you attack; the AI defends and moves first"},
                        {"label": "Yellow (defends, moves first)", "note": "you defend and move first"}]},
         ]},
        {"name": "supply", "label": "Supply",
         "title": "The 10 variable piles of cards you can buy. First game: the rulebook's suggestion for a first "
                  "game. Random: drawn by the seed.",
         "choices": [
             {"value": "first-game", "label": "First game", "note": "the rulebook's piles for a first game",
              "title": "the rulebook's suggested piles for a first game (3.0)"},
             {"value": "random", "label": "Random", "note": "10 piles drawn at random",
              "title": "10 piles drawn at random (the seed below fixes them)"},
         ]},
        {"name": "seed", "label": "Seed", "note": "fixes a random Supply",
         "title": "Fixes the random Supply, to play the same piles again; the shuffles stay secret. Empty: a new one.",
         "number": {"min": 0, "placeholder": "random"}},
    ]


def resign(state: GameState, player: int) -> dict:
    """``player`` resigns ``state``; the fields of the resignation (a step of the record)."""
    state.resign(player)
    return A.fields(A.RESIGN, state.cards, state.units)


def variant(state: GameState) -> str:
    """The variant a saved game's summary names."""
    return state.config.variant


def knowledge(state: GameState, player: int, rng: random.Random) -> tuple[str, dict]:
    """What ``player`` may know as a position view (engine/crown/knowledge.py) for `ftc analyze`, and
    its file name's prefix; a ViewError (a ValueError) says why there is none now."""
    return "ftc", position_view(state, player, rng)


def build_view(game_id: str, version: int, state: GameState, human: int | None, thinking: bool, log: list,
               ai_last_turn: list, ai_note: str | None = None) -> dict:
    """The human's whole view of a game at one version."""
    obs = observation(state, human)
    board = screened_board(state, human)
    flags: dict[int, list[str]] = {sq: [] for sq in board.units}
    for flag, bits in enumerate(board.status):
        for sq in squares(bits):
            if sq in flags:
                flags[sq].append(STATUS_FLAGS[flag])
    units = []
    for sq in sorted(board.units):
        t, colour = board.units[sq]
        unit = state.units.units[t]
        units.append({"square": sq, "name": square_name(sq), "token": unit.token, "unit": unit.name,
                      "colour": colour, "flags": flags[sq]})
    tokens = [u.token for u in state.units.units]
    return {
        **view_frame(game_id, version, state, human, thinking, log, ai_last_turn, ai_note),
        "to_move": obs["current"],
        "phase": obs["phase"],
        "turn": obs["turn"],
        "counters": {k: obs["counters"][k] for k in ("orders", "actions", "buys", "gold")},
        "units": units,
        "barracks": [{tokens[t]: n for t, n in enumerate(board.barracks[c]) if n} for c in (0, 1)],
        "stock": {tokens[t]: n for t, n in enumerate(board.stock) if n},
        "supply": [{"name": state.card_name(c), "cost": state.cost(c), "left": state.supply[c]} for c in state.supply_ids],
        "starters": starter_cards(state),
        "observation": obs,
    }
