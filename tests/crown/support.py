"""Small helpers shared by the game tests (`from tests.crown.support import ...`)."""

import random
import time

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.config import GameConfig
from engine.crown.scenario import scenario
from engine.crown.state import GameState
from engine.notation import parse_square

#: A board of two lone Kings, Blue to move: the cards do the rest.
KINGS = "4k3/8/8/8/8/8/8/4K3 w"


def sq(name):
    return parse_square(name)


def card_id(g, name):
    return g.cards[name].id


cid = card_id


def play(g, name, index=0):
    """Play card ``name`` from the hand for effect ``index``."""
    g.apply(A.play(card_id(g, name), index))


def texts(g):
    return set(g.legal_action_texts().values())


def choose(g, text):
    g.apply_text(text)


def unit_at(g, name):
    """(token, colour) on a square, or None; tokens are the catalog's (uppercase) for both sides."""
    unit = g.board.unit_on(sq(name))
    return None if unit is None else (tk.unit_token(g, unit[0]), unit[1])


def random_play_with_cards(board, cards, supply, seed, seconds=8.0, max_games=200, decisions=80):
    """Seeded random games from ``board`` with ``cards`` in every hand and Deck, playing a card half
    of the time one can be played; checks the board's Zobrist key after every decision. Returns
    (games played, cards played)."""
    rng = random.Random(seed)
    began = time.time()
    games = played = 0
    while games < max_games and time.time() - began < seconds:
        deck = [rng.choice(cards) for _ in range(12)]
        g = scenario(board, hands=(rng.sample(cards, 5), rng.sample(cards, 5)), decks=(deck, list(deck)),
                     supply=supply)
        g.rng.seed(games)
        for _ in range(decisions):
            if g.is_terminal():
                break
            actions = g.legal_actions()
            plays = [a for a in actions if not A.is_order(a) and A.decode(a)[0] == A.K_PLAY]
            if plays and rng.random() < 0.5:
                g.apply(rng.choice(plays))
                played += 1
            else:
                g.apply(rng.choice(actions))
            assert g.board.key == g.board.recomputed_key()
            assert g.board.foot == g.board.recomputed_foot()
        games += 1
    return games, played


def random_midgame(seed: int, steps: int) -> GameState:
    """A game of ``steps`` seeded random decisions (fewer if it ends first)."""
    rng = random.Random(seed)
    g = GameState(GameConfig(seed=seed))
    for _ in range(steps):
        if g.is_terminal():
            break
        g.apply(rng.choice(g.legal_actions()))
    return g
