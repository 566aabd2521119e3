"""Setting up a game (3.0) for each variant of RULINGS F, and the set-up decisions some variants have
(Point-Buy army picking, the Last Stand Defender's training)."""

from __future__ import annotations

from engine.crown import actions as A
from engine.crown import toolkit as tk
from engine.crown.config import FIRST_GAME_SUPPLY, ConfigError, parse_extra_unit, supply_card_ids
from engine.crown.core import HAND_SIZE, SETUP_PHASE, Ask, GameCore
from engine.crown.phases import finish, start_play
from engine.notation import BLUE, YELLOW, PositionData, parse_position, square_name
from engine.position import load_core

#: The starting Deck (3.0) and the optional starters (C18: they combine, "squire+parchment"):
#: each replaces one card of the standard Deck.
STANDARD_DECK = {"Peon": 6, "Guard": 4}
ALTERNATIVE_STARTERS = {
    "squire": ("Guard", "Squire"),          # 11.1
    "parchment": ("Peon", "Parchment"),     # The World is Round 1.0
}
HOME = {BLUE: 4, YELLOW: 60}        # e1 / e8 (A1)


def _empty_board(g: GameCore, promote_types: int) -> None:
    """No unit anywhere, the whole inventory in the Stock, Blue to move."""
    n = len(g.units)
    load_core(g.board, PositionData(barracks=[[0] * n, [0] * n], stock=[u.stock for u in g.units],
                                    promote_mask=promote_types))


def set_up_standard(g: GameCore) -> None:
    """3.0: the Supply, each Sovereign on its home square, handicap units (11.4), the starting
    Decks, five cards each; Blue begins (after Yellow's extra turns, C21: start_play)."""
    _empty_board(g, 0)
    _choose_supply(g)
    _empty_board(g, _promotion_types(g))
    for player in (BLUE, YELLOW):
        _place(g, player, g.units[g.config.sovereigns[player]].id, HOME[player])
    _extra_units(g)
    for player in (BLUE, YELLOW):
        _starting_deck(g, player)
    start_play(g, BLUE)
    tk.queue_draw(g, None, YELLOW, HAND_SIZE)
    tk.queue_draw(g, None, BLUE, HAND_SIZE)


def set_up_last_stand(g: GameCore) -> None:
    """11.5: the Attacker (Blue) has a normal Deck and no units; the Defender (Yellow) has ten
    Pawns and trains the rest with gold before play (the "train" stage); the Defender moves first."""
    _empty_board(g, 0)
    _choose_supply(g)
    _empty_board(g, _promotion_types(g))
    _extra_units(g)
    _starting_deck(g, BLUE)
    _train_free(g, YELLOW, g.units["P"].id, 10)
    g.setup_state = {"stage": "train", "gold": g.config.defender_gold}
    g.phase = SETUP_PHASE
    g.current = YELLOW
    tk.queue_draw(g, None, BLUE, HAND_SIZE)


def _choose_supply(g: GameCore) -> None:
    cfg = g.config
    core = [c.id for c in g.cards.supply_cards("core")]
    if cfg.supply == "first-game":
        names = list(FIRST_GAME_SUPPLY)
    elif cfg.supply == "random":
        pool = [c for c in g.cards.supply_cards("variable") if cfg.expansion or not c.expansion]
        if cfg.variable_piles > len(pool):
            raise ConfigError.at(("variable_piles",), f"only {len(pool)} variable piles exist")
        names = [c.name for c in g.rng.sample(pool, cfg.variable_piles)]
    else:
        names = list(cfg.supply)
    chosen = supply_card_ids(names, g.cards)
    g.supply_ids = tuple(sorted(core + chosen))
    for card in g.supply_ids:
        g.supply[card] = g.cards.cards[card].pile
    # Records keep the resolved Supply so that replays need no random draw.
    g.supply_names = tuple(g.card_name(c) for c in chosen)


def _promotion_types(g: GameCore) -> int:
    """B18 / 6.0: any type some Supply card trains (a King only when Heir trains it)."""
    mask = 0
    for card in g.supply_ids:
        for token in g.cards.cards[card].trains():
            mask |= 1 << g.units[token].id
    return mask


def starting_deck(starter: str) -> dict[str, int]:
    """Card name -> copies of a starting Deck (GameConfig.starters value, already validated)."""
    deck = dict(STANDARD_DECK)
    if starter != "standard":
        for part in starter.split("+"):
            replaced, card = ALTERNATIVE_STARTERS[part]
            deck[replaced] -= 1
            deck[card] = deck.get(card, 0) + 1
    return deck


def starter_cards(g: GameCore) -> list[str]:
    """The starter cards (3.0, 11.1) of the game's starting Decks, in catalog order: those of every
    player the variant gives a Deck (``g.variant.decks``); none in Point-Buy Chess."""
    names = {name for player in g.variant.decks for name, n in starting_deck(g.config.starters[player]).items() if n}
    return [card.name for card in g.cards if card.name in names]


def _starting_deck(g: GameCore, player: int) -> None:
    for name, count in starting_deck(g.config.starters[player]).items():
        g.zones[player].deck[g.cards[name].id] += count


def _place(g: GameCore, player: int, t: int, square: int) -> None:
    if g.board.stock_count(t) <= 0:
        raise ConfigError(f"the Stock has no {g.unit_name(t)} left to place")
    g.board.add_stock(t, -1)
    g.board.place(square, t, player)


def _train_free(g: GameCore, player: int, t: int, count: int) -> None:
    if g.board.train(player, t, count) < count:
        raise ConfigError(f"the Stock has fewer than {count} {g.unit_name(t)} units")


def _extra_units(g: GameCore) -> None:
    """11.4 handicap units: "N@b1" on the board or "N" in the Barracks, from the Stock."""
    for player in (BLUE, YELLOW):
        for index, item in enumerate(g.config.extra_units[player]):
            path = ("extra_units", player, index)
            unit, square = parse_extra_unit(item, g.units, path)
            if square is not None and g.board.unit_on(square) is not None:
                raise ConfigError.at(path, f"{square_name(square)} is already occupied ({item!r})")
            try:
                if square is None:
                    _train_free(g, player, unit.id, 1)
                else:
                    _place(g, player, unit.id, square)
            except ConfigError as exc:
                raise ConfigError.at(path, f"{exc} ({item!r})") from None


# -- Point-Buy Chess ----------------------------------------------------------------------------
def set_up_point_buy(g: GameCore) -> None:
    """Point-Buy Chess (C8, C19): a given start position, or Pawns on the second ranks and each
    side picks its army with its budget (alternately, or behind a screen)."""
    cfg = g.config
    promote = sum(1 << u.id for u in g.units.base_types)    # any type on the price list
    if cfg.start_position:
        data = parse_position(cfg.start_position, g.units)
        if data.promote_mask is None:
            data.promote_mask = promote
        data.halfmove, data.fullmove = 0, 1        # a game starts with fresh clocks
        load_core(g.board, data)
        start_play(g, data.side)
        return
    _empty_board(g, promote)
    pawn = g.units["P"].id
    for player, rank in ((BLUE, 1), (YELLOW, 6)):
        for file in range(8):
            _place(g, player, pawn, rank * 8 + file)
    _extra_units(g)
    g.setup_state = {"stage": "pick", "budget": tuple(cfg.budgets), "done": (False, False), "type": None}
    if cfg.secret_picks:
        # Behind a screen: each side picks from its own half of the Stock (Blue takes the odd unit
        # of types with an even catalog index, Yellow of the others) and only sees its own picks.
        counts = [g.board.stock_count(t) for t in range(len(g.units))]
        blue = tuple((n + (1 if t % 2 == 0 else 0)) // 2 for t, n in enumerate(counts))
        yellow = tuple(n - b for n, b in zip(counts, blue))
        g.setup_state["share"] = (blue, yellow)
        g.setup_state["public"] = tuple(sorted(sq for sq in range(64) if g.board.unit_on(sq) is not None))
    g.phase = SETUP_PHASE
    g.current = BLUE


def _sovereign_on_first_rank(g: GameCore, player: int) -> bool:
    rank = range(0, 8) if player == BLUE else range(56, 64)
    return any(
        (u := g.board.unit_on(sq)) and u[1] == player and g.units.units[u[0]].is_sovereign for sq in rank
    )


def _available(g: GameCore, player: int, t: int) -> int:
    """Units of type t this player may still pick: its share behind a screen, else the Stock."""
    share = g.setup_state.get("share")
    return share[player][t] if share else g.board.stock_count(t)


def _pick_options(g: GameCore, player: int) -> dict[int, str]:
    """The units ``player`` may pick now: affordable, left in the Stock (or share), and placeable
    (any unit fits the Barracks; a Sovereign is needed on the first rank first). RULINGS C19:
    picking goes on while this is not empty, so a player never stops with points to spend."""
    budget = g.setup_state["budget"][player]
    has_sovereign = _sovereign_on_first_rank(g, player)
    sovereign_prices = [u.price for u in g.units.base_types if u.is_sovereign and _available(g, player, u.id) > 0]
    cheapest_sovereign = min(sovereign_prices) if sovereign_prices else None
    options = {}
    for unit in g.units.base_types:
        if unit.price > budget or _available(g, player, unit.id) <= 0:
            continue
        if not has_sovereign and not unit.is_sovereign:
            # Keep enough budget for the Sovereign every army must place on its first rank.
            if cheapest_sovereign is None or budget - unit.price < cheapest_sovereign:
                continue
        points = f"{unit.price} point{'' if unit.price == 1 else 's'}"
        options[A.unit_type(unit.id)] = f"pick {unit.name} ({points}, {budget} left)"
    return options


def decide(g: GameCore) -> None:
    stage = g.setup_state["stage"]
    player = g.current
    if stage == "pick":
        chosen = g.setup_state["type"]
        if chosen is not None:
            unit = g.units.units[chosen]
            first = range(0, 8) if player == BLUE else range(56, 64)
            free = [sq for sq in first if g.board.unit_on(sq) is None]
            needs_sovereign = not _sovereign_on_first_rank(g, player)
            if needs_sovereign and not unit.is_sovereign and len(free) <= 1:
                free = []          # the last free first-rank square is kept for the Sovereign
            options = {A.square(sq): f"place {unit.name} on {square_name(sq)}" for sq in free}
            if not (unit.is_sovereign and needs_sovereign):
                options[A.barracks()] = f"put {unit.name} in the Barracks"
            g.decision = Ask.of(player, options, f"place the {unit.name}")
            return
        # C19: no "stop picking": a player picks until the budget buys nothing that can be placed
        # (_next_picker then passes over them).
        options = _pick_options(g, player)
        if not options:
            finish(g, 1 - player, f"{'Blue' if player == BLUE else 'Yellow'} cannot field a Sovereign (Point-Buy set-up)")
            return
        g.decision = Ask.of(player, options, "Point-Buy Chess: pick a unit for your army")
        return
    if stage == "train":
        options = _defender_train_options(g)
        if not options:
            # Too little gold (or no Sovereign left in the Stock) to train a Sovereign: the Defender
            # cannot field an army, as a Point-Buy army without a Sovereign.
            finish(g, BLUE, "the Defender cannot field a Sovereign (Last Stand set-up)")
            return
        g.decision = Ask.of(player, options, f"The Last Stand: train your army ({g.setup_state['gold']} gold left)")
        return
    if stage == "place":
        sovereigns = [t for t in tk.barracks_types(g, YELLOW) if g.units.units[t].is_sovereign]
        options = {}
        for t in sovereigns:
            options[A.unit_type(t)] = f"place a {g.unit_name(t)} on the first rank"
        g.decision = Ask.of(player, options, "The Last Stand: choose the Sovereign to place")
        return
    if stage == "place-square":
        t = g.setup_state["type"]
        options = {A.square(sq): f"place {g.unit_name(t)} on {square_name(sq)}" for sq in range(56, 64)}
        g.decision = Ask.of(player, options, "The Last Stand: choose its square")
        return
    raise AssertionError(stage)


def choose(g: GameCore, player: int, action: int) -> None:
    stage = g.setup_state["stage"]
    kind, arg = (None, None) if action == A.DONE else A.decode(action)
    if stage == "pick":
        state = dict(g.setup_state)
        if kind == A.K_UNIT:
            state["type"] = arg
            g.setup_state = state
            return
        else:
            g.setup_state = state
            _apply_pick(g, player, state["type"], arg)
            state = g.setup_state
        g.setup_state = state
        _next_picker(g)
        return
    if stage == "train":
        if action == A.DONE:
            g.setup_state = {"stage": "place"}
            return
        card = g.cards.cards[arg]
        spec = next(e for e in card.effects if e.kind == "training")
        g.setup_state = dict(g.setup_state, gold=g.setup_state["gold"] - card.cost)
        tk.train(g, YELLOW, spec.trains, spec.count)
        return
    if stage == "place":
        g.setup_state = {"stage": "place-square", "type": arg}
        return
    if stage == "place-square":
        g.board.deploy(YELLOW, g.setup_state["type"], arg)
        g.setup_state = {}
        start_play(g, YELLOW)
        return
    raise AssertionError(stage)


def _apply_pick(g: GameCore, player: int, t: int, where: int) -> None:
    """Pay for a unit of type t and put it on square ``where`` (64: the Barracks)."""
    state = dict(g.setup_state)
    budget = list(state["budget"])
    budget[player] -= g.units.units[t].price
    state["budget"] = tuple(budget)
    state["type"] = None
    if "share" in state:
        share = [list(state["share"][0]), list(state["share"][1])]
        share[player][t] -= 1
        state["share"] = (tuple(share[0]), tuple(share[1]))
    g.setup_state = state
    if where == 64:
        g.board.train(player, t, 1)
    else:
        _place(g, player, t, where)


def random_army(g: GameCore, player: int, rng) -> None:
    """Behind the screen, replace ``player``'s finished army by a random legal one (resample_hidden
    for the opponent: any army the budget and share allow is consistent with what one sees)."""
    state = dict(g.setup_state)
    public = set(state["public"])
    share = [list(state["share"][0]), list(state["share"][1])]
    for sq in range(64):
        unit = g.board.unit_on(sq)
        if unit and unit[1] == player and sq not in public:
            g.board.remove(sq)
            g.board.add_stock(unit[0], 1)
            share[player][unit[0]] += 1
    for t in range(len(g.units)):
        n = g.board.barracks_count(player, t)
        if n:
            g.board.add_barracks(player, t, -n)
            g.board.add_stock(t, n)
            share[player][t] += n
    budget = list(state["budget"])
    budget[player] = g.config.budgets[player]
    g.setup_state = dict(state, share=(tuple(share[0]), tuple(share[1])), budget=tuple(budget))
    pending = state.get("type")          # the picker's chosen type, waiting for its square: not ours to pay
    while True:
        options = list(_pick_options(g, player))
        if not options:           # C19: the budget buys nothing more that can be placed
            break
        t = A.decode(rng.choice(options))[1]
        unit = g.units.units[t]
        first = range(0, 8) if player == BLUE else range(56, 64)
        free = [sq for sq in first if g.board.unit_on(sq) is None]
        needs = not _sovereign_on_first_rank(g, player)
        if needs and not unit.is_sovereign and len(free) <= 1:
            free = []
        places = free + ([] if unit.is_sovereign and needs else [64])
        _apply_pick(g, player, t, rng.choice(places))
    g.setup_state = dict(g.setup_state, type=pending)


def _next_picker(g: GameCore) -> None:
    state = g.setup_state
    # Alternating picks; behind a screen each side picks its whole army in turn (Blue first).
    order = (g.current, 1 - g.current) if "share" in state else (1 - g.current, g.current)
    for candidate in order:
        if not state["done"][candidate] and (_pick_options(g, candidate) or not _sovereign_on_first_rank(g, candidate)):
            g.current = candidate
            return
        if not state["done"][candidate] and not _pick_options(g, candidate):
            done = list(state["done"])
            done[candidate] = True
            state = dict(state, done=tuple(done))
            g.setup_state = state
    if all(g.setup_state["done"]):
        g.setup_state = {}
        start_play(g, BLUE)


def _defender_train_options(g: GameCore) -> dict[int, str]:
    """11.5: any unit except the Immortal, for the cost of a card that trains it (x2: two)."""
    gold = g.setup_state["gold"]
    has_sovereign = any(g.units.units[t].is_sovereign for t in tk.barracks_types(g, YELLOW))
    options = {}
    for card in g.cards.supply_cards():
        if not (g.config.expansion or not card.expansion):
            continue
        for spec in card.effects:
            if spec.kind != "training" or spec.trains == "I" or card.cost > gold:
                continue
            t = g.units[spec.trains].id
            if g.board.stock_count(t) < 1:
                continue
            if not has_sovereign and not g.units.units[t].is_sovereign:
                cheapest = min(
                    (c.cost for c in g.cards.supply_cards() for e in c.effects
                     if e.kind == "training" and g.units[e.trains].is_sovereign
                     and g.board.stock_count(g.units[e.trains].id) > 0 and (g.config.expansion or not c.expansion)),
                    default=None,
                )
                if cheapest is None or gold - card.cost < cheapest:
                    continue
            label = f"train {g.units.units[t].name}" + (f" x{spec.count}" if spec.count > 1 else "")
            options[A.card(card.id)] = f"{label} ({card.name}, {card.cost} gold; {gold} left)"
    if has_sovereign:
        options[A.DONE] = "stop training"
    return options


def next_budgets(budgets: tuple[int, int], winner: int | None, subtract_from_winner: bool = False) -> tuple[int, int]:
    """Point-Buy Chess, several games in a row: the loser's budget grows by 1 point; or, once budgets
    grow too high, the winner's shrinks by 1 instead. A draw changes nothing."""
    if winner is None:
        return tuple(budgets)
    new = list(budgets)
    if subtract_from_winner:
        new[winner] = max(1, new[winner] - 1)
    else:
        new[1 - winner] += 1
    return tuple(new)
