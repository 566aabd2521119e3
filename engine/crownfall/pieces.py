"""Crownfall's pieces for the generic information-set search (engine/search/ismcts.py; its registry entry
gives them through ``SearchPieces``), the ISMCTS bot and the analysis (`ftc analyze --game crownfall`).

Crownfall is open but for the order of the Omen and Objective cards not yet drawn (RULINGS I7, I9): a
determinization reseeds the state's chance generator, so each iteration draws its own Omens and
Objectives where the line reaches a draw (the search's chance events); the tree is max-n over the
n players' returns (engine/crownfall/core.py ``returns``: a sole winner +1, the others -1/(n-1)).

- ``quick_score(g, p, action)``: a cheap worth of one action without playing it (no copy of the state):
  a battle's result from ``CrownfallCore.strengths`` (9.0 is deterministic), regions by what they give
  (expert.region_worth: Ruins, the Keep), Towers, Anchors on nodes, a Research only in the House's
  school (the expert's rules 3-6 in short). It drives the playout, the prune and the prior.
- ``HeuristicPlayout``: the best ``quick_score`` plus a random jitter of ``jitter``, a random action
  with probability ``epsilon``: fast, seeded by the search's generator. The rest of the root
  player's own turn is played as the expert would (``ExpertRanks``).
- ``TopActions``: the tree considers the ``width`` best actions by ``quick_score`` (always ending the
  turn and stopping a March among them where legal): a turn offers up to a few hundred actions
  (every spell target), too many for a tree of a few thousand iterations. In the root player's own
  turn the expert's 6 best actions come first (``ExpertRanks``; the search tells the piece its root
  through ``begin_search``).
- ``QuickPrior``: PUCT's prior, the best ``quick_score``; in the root player's own turn the expert's
  choice.
- ``CrownfallEvaluator``: a cut playout's value for a player, ``tanh`` of the expert's
  ``table_value`` (projected tracks, table, threats, against the opponents) over ``scale``;
  ``values(state)`` gives every player's at once (``table_values``: the table projected once).
- ``SEARCH_OPTIONS``: a playout finishes the turn in play, then every other player answers with one
  turn of the quick policy, and it is cut when the next turn of the player it began with starts
  (``turn_of``: the turns started over all players; ``max_playout_turns``: the number of players),
  then judged by the evaluator. Judging a line before the opponents answer (a cut after one turn)
  lost most four-player games from the later seats: measured on the same 20 four-player games in
  seats 2 and 3 against three experts, 15% with the cut after one turn, 50% after a round.
- ``ExpertRanks``: the expert's own ranking as a prune and prior, remembered per state; far stronger
  per node, but about 10 ms a node, so ``TopActions`` and ``QuickPrior`` ask it only in the root
  player's turn (a handful of states a decision).
"""

from __future__ import annotations

import math
import random

from engine.crownfall import actions as A
from engine.crownfall.core import BEACON, SANCTUM, STRONGHOLD, WATCHTOWER, CrownfallCore
from engine.crownfall.expert import RESEARCH_CAP, ExpertBot, region_worth, table_value, table_values

__all__ = ["quick_score", "HeuristicPlayout", "TopActions", "QuickPrior", "CrownfallEvaluator", "SEARCH_OPTIONS",
           "every_player_answers", "turns_started"]

WIN_BATTLE, LOSE_BATTLE = 2.5, -3.0
FORTIFY, ANCHOR = 2.2, 1.0
ROLE = {STRONGHOLD: 0.3, SANCTUM: 0.5, WATCHTOWER: 0.0, BEACON: 0.2}
SPELL = {"fireball": 2.0, "siege-flame": 1.6, "summon-host": 0.6, "ward-seal": -0.3, "bastion-sigil": 0.2,
         "oathbound-retainers": 0.4}


def quick_score(g: CrownfallCore, p: int, action: int, memo: dict | None = None) -> float:
    """A cheap worth of ``action`` for the deciding player p (see the module). ``memo``: a dict kept
    while the same state is scored (its ley networks are found once, not once per action)."""
    kind = A.decode(action, g.R)
    name = kind[0]
    m = g.rules.map
    if name == "end":
        return -1.0 if g.actions_left > 0 else 0.0
    if name == "stop":
        return 0.0
    if name in ("march-banner", "march-mage", "step"):
        if name == "march-banner":
            s, t, piece = kind[1], kind[2], "banner"
        elif name == "march-mage":
            s, t, piece = g.mage[p], kind[1], "mage"
        else:
            s, t, piece = g.march["at"], kind[2], g.march["piece"]
        if g.enemy_in(p, t):
            att, dfn = g.strengths(p, piece, t)
            if att["total"] <= dfn["total"]:
                return LOSE_BATTLE
            return WIN_BATTLE + (region_worth(g, g.occupant(t), t) if piece == "banner" else 0.5)
        if piece == "mage":
            return 0.1 if any(g.enemy_in(p, r) for r in m.adjacent[t]) else 0.0
        gain = 0.0 if g.owner(t) == p else region_worth(g, p, t)
        left_behind = name != "step" and g.banners[s] == 1 and g.tower_owner[s] != p
        return gain - (region_worth(g, p, s) if left_behind else 0.0)
    if name == "raise":
        return region_worth(g, p, kind[1]) + 0.5
    if name == "place":
        return 0.1 * sum(g.owner(r) == p for r in m.adjacent[kind[1]])
    if name == "fortify":
        r, role = kind[1], kind[2]
        if memo is None:
            memo = {}
        networks = memo.get(("networks", p))
        if networks is None:
            networks = memo[("networks", p)] = g.networks(p)
        linked = any(r in grp for grp in networks)
        return FORTIFY + ROLE[role] - (0.0 if linked else 2.0 + 2.0 * (role in (SANCTUM, BEACON)))
    if name == "anchor":
        r = kind[1]
        return ANCHOR if (m.ruin[r] or r == m.keep) else 0.2
    if name == "research":
        school = kind[1]
        return 0.4 if school == g.houses[p].school and g.levels[p][school] < RESEARCH_CAP else -2.0
    spell = g.rules.spells[kind[1]]
    value = SPELL.get(spell.key, -0.5)
    if spell.key == "fireball" and kind[4] == 0:
        value += 0.3 * region_worth(g, g.banner_owner[kind[2]], kind[2])
    if spell.key == "summon-host":
        value += region_worth(g, p, kind[2])
    return value


class _RootTurn:
    """What the prune and the prior share: the search's root turn (``begin_search``, called by the
    search before it starts), so that the decisions of that turn are ranked by the expert."""

    turn: tuple[int, int] | None = None

    def begin_search(self, state, player: int) -> None:
        self.turn = (turns_started(state), player)

    def in_root_turn(self, state) -> bool:
        return self.turn is not None and (turns_started(state), state.current_player()) == self.turn


class HeuristicPlayout(_RootTurn):
    """The playout policy (see the module): ``choose(state, rng)``. With ``expert=True`` the rest of
    the root player's own turn is played as the expert would (``ExpertRanks``, remembered per
    state), so a root action is judged by the best turn the expert completes from it."""

    def __init__(self, epsilon: float = 0.1, jitter: float = 0.8, expert: bool = True):
        self.epsilon = epsilon
        self.jitter = jitter
        self.expert = expert
        self._ranks = ExpertRanks()

    def __repr__(self) -> str:
        return f"HeuristicPlayout(epsilon={self.epsilon}, jitter={self.jitter}, expert={self.expert})"

    def choose(self, state, rng: random.Random) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if self.expert and self.in_root_turn(state):
            return self._ranks.suggest(state, rng)
        if rng.random() < self.epsilon:
            return rng.choice(legal)
        p = state.current_player()
        jitter = self.jitter
        best, best_value = legal[0], -math.inf
        memo: dict = {}
        for a in legal:
            value = quick_score(state, p, a, memo) + jitter * rng.random()
            if value > best_value:
                best, best_value = a, value
        return best


class TopActions(_RootTurn):
    """The prune (see the module): ``prune(state, legal)``, the same list for the same state (and
    root). In the root player's own turn (the decision searched and the rest of that turn) the
    ``expert_width`` best actions of the expert's ranking (``ExpertRanks``, about 10 ms a state,
    remembered) come first, then the ``width`` best by ``quick_score``: the tree can always play
    what the expert would, and searches whether something else is better."""

    def __init__(self, width: int = 12, expert_width: int = 6):
        self.width = width
        self.expert_width = expert_width
        self._ranks = ExpertRanks(width=expert_width)

    def __repr__(self) -> str:
        return f"TopActions(width={self.width}, expert_width={self.expert_width})"

    def __call__(self, state, legal: list[int]) -> list[int]:
        expert = self.expert_width > 0 and len(legal) > 1 and self.in_root_turn(state)
        if len(legal) <= self.width and not expert:
            return legal
        p = state.current_player()
        memo: dict = {}
        ranked = sorted(legal, key=lambda a: (-quick_score(state, p, a, memo), a))
        kept = self._ranks(state, legal) if expert else []
        kept = kept + [a for a in ranked[:self.width] if a not in kept]
        for always in (A.END, A.STOP):
            if always in legal and always not in kept:
                kept.append(always)
        return kept


class QuickPrior(_RootTurn):
    """PUCT's prior (``suggest``), weighted ``weight``: in the root player's own turn the expert's
    best action (``expert=True``, ``ExpertRanks``), elsewhere the best ``quick_score``."""

    def __init__(self, weight: float = 0.35, expert: bool = True):
        self.weight = weight
        self.expert = expert
        self._ranks = ExpertRanks()

    def __repr__(self) -> str:
        return f"QuickPrior(weight={self.weight}, expert={self.expert})"

    def suggest(self, state, rng: random.Random) -> int:
        if self.expert and self.in_root_turn(state):
            return self._ranks.suggest(state, rng)
        p = state.current_player()
        legal = state.legal_actions()
        memo: dict = {}
        return max(legal, key=lambda a: (quick_score(state, p, a, memo), -a))


class CrownfallEvaluator:
    """``evaluator(state, player)`` in [-1, 1]: tanh(table_value / scale) (see the module)."""

    def __init__(self, scale: float = 40.0):
        self.scale = scale

    def __repr__(self) -> str:
        return f"CrownfallEvaluator(scale={self.scale})"

    def __call__(self, state, player: int) -> float:
        if state.is_terminal():
            return state.returns()[player]
        return math.tanh(table_value(state, player) / self.scale)

    def values(self, state) -> list[float]:
        """Every player's value at once (the search's ``_judge`` asks this of an evaluator that has
        it): the table is projected once, not once per player."""
        if state.is_terminal():
            return list(state.returns())
        scale = self.scale
        return [math.tanh(v / scale) for v in table_values(state)]


def turns_started(state) -> int:
    """The search's turn count: the players' turns started so far, all players together."""
    return sum(state.turns_started)


def every_player_answers(state) -> int:
    """The playout's length in turns: one turn of every player (``state.num_players``), so the line
    is judged when its first player's next turn starts, after each opponent has answered once."""
    return state.num_players


#: Crownfall's ISMCTS settings besides its pieces: a playout finishes the turn in play and one turn
#: of each other player (it is cut when the next turn of the player it began with starts,
#: ``every_player_answers`` over ``turns_started``) and is judged by the evaluator; PUCT's constant.
SEARCH_OPTIONS = {"max_playout_turns": every_player_answers, "c_prior": 1.5, "turn_of": turns_started}


class ExpertRanks:
    """The expert's ranking of a decision's actions (``ExpertBot.rank``: the table one action later and
    its rules of thumb; a pure function of the state), remembered by the game's seats and the
    state's public key in one table of the process (``CACHE`` states at most, then it starts
    again), so the prune and the prior of a search, and the searches of one game, rank a state once.
    The prune (``__call__``) keeps the ``width`` best actions, the prior (``suggest``, ``weight``)
    suggests the best."""

    CACHE = 20_000
    _ranks: dict = {}
    _expert = ExpertBot(0)

    def __init__(self, width: int = 8, weight: float = 0.5):
        self.width = width
        self.weight = weight

    def __repr__(self) -> str:
        return f"ExpertRanks(width={self.width}, weight={self.weight})"

    def ranked(self, state) -> list[int]:
        ranks = ExpertRanks._ranks
        key = (state.houses, state.home, state.public_key())
        found = ranks.get(key)
        if found is None:
            if len(ranks) >= self.CACHE:
                ranks.clear()
            scored = self._expert.rank(state)
            found = ranks[key] = [a for a, _ in sorted(scored, key=lambda x: (-x[1], x[0]))]
        return found

    def __call__(self, state, legal: list[int]) -> list[int]:
        if len(legal) <= 1:
            return legal
        allowed = set(legal)
        kept = [a for a in self.ranked(state) if a in allowed][:self.width]
        return kept or legal

    def suggest(self, state, rng: random.Random) -> int:
        return self.ranked(state)[0]
