"""The value of one given action by the information-set search (engine/search/ismcts.py), for a game
review (engine/games/review.py): the tree searched with that action alone at its root, so that its
value is the mean result, for the player deciding, of the games that begin with it, on the same
budget and seed as the search that ranked the choices. A game's ``Analysis.review`` calls it for a
played action its own analysis did not weigh (too few visits, or pruned)."""

from __future__ import annotations

from engine.games import registry
from engine.search.ismcts import ISMCTS

__all__ = ["MIN_VISITS", "action_value", "read_value", "with_played_value"]

#: A choice's value is read from a ranking search only with at least this many visits; with fewer
#: it is a handful of playouts' mean, and the action gets a search of its own (``action_value``).
MIN_VISITS = 50


class _OnlyAtRoot:
    """A prune that leaves the root one action (``action``) and every other node to the game's own
    prune (``inner``, or all legal actions). The root is recognised by its player's information
    set, the same in every determinization of it."""

    def __init__(self, action: int, inner):
        self.action, self.inner = action, inner
        self.player: int | None = None
        self.key: object = None

    def begin_search(self, state, player: int) -> None:
        self.player, self.key = player, state.information_key(player)
        if hasattr(self.inner, "begin_search"):
            self.inner.begin_search(state, player)

    def __call__(self, state, legal: list[int]) -> list[int]:
        if (self.action in legal and state.current_player() == self.player
                and state.information_key(self.player) == self.key):
            return [self.action]
        return self.inner(state, legal) if self.inner is not None else legal


def action_value(state, action: int, iterations: int | None, seconds: float | None, seed: int) -> float:
    """The mean result for the player to move in ``state`` of the games that begin with ``action``
    (in [-1, 1]), by an ISMCTS of ``iterations`` / ``seconds`` from seed ``seed`` with the game's
    own pieces but for the turn planner (it would choose for itself) and the trusted phases."""
    if action not in state.legal_actions():
        raise ValueError(f"action {action!r} is not legal at this decision")
    pieces = registry.get(state.game).search
    inner = pieces.prune() if pieces is not None and pieces.prune is not None else None
    search = ISMCTS(iterations=iterations, seconds=seconds, seed=seed, planner=None, plan_own_turn=False,
                    trusted_phases=(), prune=_OnlyAtRoot(action, inner), reuse_tree=False)
    try:
        stats = search.search(state)
    finally:
        search.close()
    return float(stats.values.get(action, 0.0))


def read_value(values: dict, visits: dict, action: int) -> float | None:
    """A choice's value from a ranking search's root (``values`` and ``visits`` by action), or None
    when it has fewer than MIN_VISITS visits there."""
    if visits.get(action, 0) >= MIN_VISITS and action in values:
        return float(values[action])
    return None


def with_played_value(found: dict, state, played: int, best: int, values: dict, visits: dict, key,
                      iterations: int | None, seconds: float | None, seed: int) -> dict:
    """``found`` (a decision's review: its best choice ``best`` and ``value``) with the played action's
    value: read from the ranking search's root (``values`` and ``visits`` by ``key``, the played
    action or its text), else searched alone (``action_value``, noted in ``found["searched"]``), else
    the best's own value when the played action is the best."""
    value = read_value(values, visits, key)
    if value is None and played != best:
        value = action_value(state, played, iterations, seconds, seed)
        found["searched"] += "; the played action alone"
    found["played_value"] = found["value"] if value is None else value
    return found

