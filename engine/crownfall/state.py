"""CrownfallState: the driver and the state protocol (engine/games/protocol.py) over CrownfallCore:
set-up (5.0, RULINGS I2), ``apply`` with its checks, texts and fields made when asked, chance nodes
(the Omen and Objective draws, RULINGS I7), observation and keys, clone, record and ``replay``.

>>> s = CrownfallState(CrownfallConfig.from_json({"seed": 1}))
>>> s.current_player(), s.round, s.actions_left, s.mana
(0, 1, 3, [2, 2])
>>> s.action_text(s.legal_actions()[1])
'Blue: March the Archmage Thorn Coast -> South Barrow'
"""

from __future__ import annotations

import random

from engine.crownfall import actions as A
from engine.crownfall import observation, phases
from engine.crownfall.actions import BONUSES
from engine.crownfall.config import CrownfallConfig, CrownfallConfigError
from engine.crownfall.core import CHANCE, NAME, SEATS, CrownfallCore, CrownfallError
from engine.crownfall.record import check_record, make_record
from engine.crownfall.rules import ROLES, CrownfallRules
from engine.games.protocol import TERMINAL

__all__ = ["CrownfallState", "replay", "walk", "CrownfallError"]


class CrownfallState(CrownfallCore):
    game = NAME

    def __init__(self, config: CrownfallConfig | None = None, rules: CrownfallRules | None = None):
        super().__init__(config or CrownfallConfig(seed=0), rules)
        self._settle()

    def _settle(self) -> None:
        while True:
            if self.stage in ("omen", "objective") and self.auto_chance:
                cards = self.chance_cards()
                card = cards[self.rng.randrange(len(cards))]
                self.history.append([CHANCE, card])
                phases.apply_chance(self, card)
            phases.settle(self)
            if not (self.stage in ("omen", "objective") and self.auto_chance):
                break
        self._legal = None

    # -- the protocol ----------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.deciding_player()

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = (phases.legal_actions(self) if self.stage not in ("over", "omen", "objective") else [])
        return list(self._legal)

    def apply(self, action: int) -> None:
        player = self.current_player()
        if player == TERMINAL:
            raise CrownfallError(f"action {action!r}: the game is over ({self.over_reason})")
        if player == CHANCE:
            cards = self.chance_cards()
            if action not in cards:
                raise CrownfallError(f"chance outcome {action!r} is not a card left to draw (left: {sorted(cards)})")
            self.history.append([CHANCE, action])
            phases.apply_chance(self, action)
        else:
            if not isinstance(action, int) or action not in self.legal_actions():
                raise CrownfallError(f"action {action!r} is not legal now for {SEATS[player]} "
                                     f"({len(self.legal_actions())} legal actions)")
            self.history.append([player, action])
            phases.apply_action(self, action)
        self._settle()

    def is_chance_node(self) -> bool:
        return self.stage in ("omen", "objective")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        cards = self.chance_cards()
        return [(c, 1.0 / len(cards)) for c in cards]

    def is_terminal(self) -> bool:
        return self.stage == "over"

    def observation(self, player: int | None) -> dict:
        return observation.observe(self, player)

    def resample_hidden(self, player: int, rng: random.Random) -> CrownfallState:
        return observation.resample(self, player, rng)

    def information_key(self, player: int):
        return observation.public_key(self)

    def public_key(self):
        return observation.public_key(self)

    def record(self) -> dict:
        return make_record(self)

    # -- texts and fields ------------------------------------------------------------------------------
    def action_fields(self, action: int) -> dict:
        m, rules = self.rules.map, self.rules
        if self.is_chance_node():
            cards = rules.omens if self.stage == "omen" else rules.objectives
            return {"kind": f"draw-{self.stage}", "card": cards[action].key, "name": cards[action].name}
        kind = A.decode(action, self.R)
        name = kind[0]
        out: dict = {"kind": name, "player": self.current_player()}
        if name == "march-banner":
            out |= {"from": m.key(kind[1]), "to": m.key(kind[2])}
        elif name == "march-mage":
            out |= {"from": m.key(self.mage[self.current]), "to": m.key(kind[1])}
        elif name == "step":
            out |= {"bonus": BONUSES[kind[1]], "to": m.key(kind[2])}
        elif name in ("raise", "anchor", "place"):
            out["region"] = m.key(kind[1])
        elif name == "fortify":
            out |= {"region": m.key(kind[1]), "role": ROLES[kind[2]]}
        elif name == "research":
            school = kind[1]
            out |= {"school": rules.schools[school], "level": self.levels[self.current][school] + 1}
        elif name == "cast":
            spell = rules.spells[kind[1]]
            out |= {"spell": spell.key, "cost": phases.spell_cost(self, self.current, spell)}
            if spell.key not in ("blink",):
                out["region"] = m.key(kind[2])
            if spell.key in ("rift-step", "gatewalk", "oathbound-retainers"):
                out["to"] = m.key(kind[3])
            if spell.key == "fireball":
                out["target"] = ("banner", "tower")[kind[4]]
            if spell.key == "bastion-sigil":
                out["mode"] = ("repair", "ward")[kind[4]]
        return out

    def action_text(self, action: int) -> str:
        if self.is_chance_node():
            return self.action_phrase(action)
        return f"{SEATS[self.current_player()]}: {self.action_phrase(action)}"

    def action_phrase(self, action: int) -> str:
        """``action_text`` without the seat in front ("end the turn", "Anchor in Thorn Coast"): what an
        interface that already shows whose decision it is writes (the web board's buttons and log)."""
        if self.is_chance_node():
            f = self.action_fields(action)
            return f"draw the {self.stage.capitalize()} {f['name']}"
        f = self.action_fields(action)
        m, name = self.rules.map, f["kind"]
        region = {k: m.name(m.index(v)) for k, v in f.items() if k in ("from", "to", "region")}
        if name == "end":
            return "end the turn"
        if name == "stop":
            return "stop the March"
        if name == "march-banner":
            return f"March a Banner {region['from']} -> {region['to']}"
        if name == "march-mage":
            return f"March the Archmage {region['from']} -> {region['to']}"
        if name == "step":
            return f"the March goes on to {region['to']} ({f['bonus']})"
        if name == "raise":
            return f"Raise a Banner in {region['region']}"
        if name == "fortify":
            return f"Fortify {region['region']} as a {self.rules.role_names[ROLES.index(f['role'])]}"
        if name == "anchor":
            return f"Anchor in {region['region']}"
        if name == "place":
            return f"the Archmage goes to {region['region']}"
        if name == "research":
            school = self.rules.school_names[self.rules.schools.index(f["school"])]
            return f"Research {school} {'I' * f['level']}"
        spell = self.rules.spell(f["spell"])
        text = f"Cast {spell.name} ({f['cost']} mana)"
        if "region" in region:
            text += f" on {region['region']}"
        if "to" in region:
            text += f" -> {region['to']}"
        if "target" in f:
            text += f" ({f['target']})"
        if "mode" in f:
            text += f" ({f['mode']})"
        return text

    # -- presentation ----------------------------------------------------------------------------------
    @property
    def turn(self) -> int:
        return self.round

    turn_number = turn

    @property
    def phase(self) -> str:
        return self.stage

    @property
    def winner(self) -> int | None:
        return self.winners[0] if len(self.winners) == 1 else None

    def prompt(self) -> str:
        if self.stage == "over":
            return self.over_reason or "the game is over"
        if self.is_chance_node():
            return f"draw the next {self.stage}"
        p = self.current_player()
        if self.stage == "place":
            return f"{SEATS[p]}: choose where the Archmage goes"
        if self.stage == "march":
            return f"{SEATS[p]}: the March may go on"
        return f"{SEATS[p]}: round {self.round}, {self.actions_left} action(s) left"

    def legal_action_texts(self) -> dict[int, str]:
        return {a: self.action_text(a) for a in self.legal_actions()}

    def resign(self, player: int) -> None:
        """Crownfall has no resignation (a game ends only as docs/rules/crownfall.md 15.0 says): the
        protocol's ``resign`` says so and changes nothing."""
        if self.over_reason is not None:
            raise CrownfallError(f"resign: the game is over ({self.over_reason})")
        raise CrownfallError(f"resign: Crownfall has no resignation (player {player!r} plays on)")


def replay(record, rules: CrownfallRules | None = None) -> CrownfallState:
    """The game a record describes; CrownfallError names what is wrong and where."""
    config_data, steps, rng_state, auto = check_record(record)
    try:
        config = CrownfallConfig.from_json({**config_data, "chance": "explicit"}, "record.config", rules)
    except CrownfallConfigError as exc:
        raise CrownfallError(str(exc)) from None
    if config_data.get("seed") is None:
        raise CrownfallError("record.config.seed: expected the game's seed")
    state = CrownfallState(config, rules)
    for i, (player, action) in enumerate(steps):
        if state.current_player() != player:
            raise CrownfallError(f"record.steps[{i}]: player {player} acts, but the player to decide is "
                                 f"{state.current_player()}")
        try:
            state.apply(action)
        except CrownfallError as exc:
            raise CrownfallError(f"record.steps[{i}]: {exc}") from None
    state.config = CrownfallConfig(**{**config.__dict__, "chance": config_data.get("chance", "auto")})
    state.auto_chance = auto
    state.rng.setstate(rng_state)
    return state


def walk(record) -> tuple[CrownfallState, list, None]:
    """(a fresh state of the record's set-up with explicit chance, its steps as (player, action) pairs,
    None: Crownfall has no resignation): how engine/games/records.py finds the record's decisions
    (`ftc analyze RECORD --at`). The record was checked by ``replay`` before."""
    config_data, steps, _, _ = check_record(record)
    try:
        config = CrownfallConfig.from_json({**config_data, "chance": "explicit"}, "record.config")
    except CrownfallConfigError as exc:
        raise CrownfallError(str(exc)) from None
    return CrownfallState(config), [tuple(step) for step in steps], None
