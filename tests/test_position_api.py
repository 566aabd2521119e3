"""Position: push/pop, order parsing and errors, state changes of every order kind, Zobrist keys."""

import random

import pytest

from engine import IllegalOrderError, OrderTextError, Position, PositionTextError, _position
from engine.notation import default_promote_mask, default_stock, format_position, parse_position, parse_promote_tokens
from engine.position import load_core, read_core

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"


def test_push_pop_restores_text_and_key():
    pos = Position.from_text(START)
    key = pos.key
    for text in ("e2e4", "e7e5", "g1f3"):
        pos.push(text)
    assert pos.to_text() == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b - - 3 2"
    # C3: only captures and deploys reset the clock (not Pawn moves, unlike chess).
    assert [o.text() for o in pos.move_stack] == ["e2e4", "e7e5", "g1f3"]
    assert pos.pop().text() == "g1f3"
    pos.pop()
    pos.pop()
    assert pos.to_text() == START
    assert pos.key == key


def test_transposition_gives_same_key():
    a = Position.from_text(START)
    b = Position.from_text(START)
    for text in ("g1f3", "g8f6", "b1c3", "b8c6"):
        a.push(text)
    for text in ("b1c3", "b8c6", "g1f3", "g8f6"):
        b.push(text)
    assert a.key == b.key
    assert a.key != Position.from_text(START).key


@pytest.mark.parametrize(
    "text",
    [
        "r1b1k2r/ppQpZpp1/2n2n2/4p3/1Lb1P3/2NO1N2/PPP2PPP/R1B1KW1R[Nz] w - - 0 1",
        "4k3/1~gp4~l/8/3~z4/2F1x3/8/~P3T1Y1/~R3K1~M1[~N~m] b - - 0 9",
        "4u3/2s1e3/8/1I1c2h1/3O4/1a2G3/1T2D1X1/3UK3[Ii] w - - 5 20",
    ],
)
def test_incremental_zobrist_matches_recomputed_over_random_games(text):
    rng = random.Random(7)
    for game in range(20):
        pos = Position.from_text(text)
        keys = [pos.key]
        for _ in range(30):
            orders = pos.legal_orders(cylindrical=game % 2 == 1)
            if not orders:
                break
            pos.push(rng.choice(orders), cylindrical=game % 2 == 1)
            assert pos.key == pos._core.recomputed_key(), pos.to_text()
            assert pos._core.foot == pos._core.recomputed_foot(), pos.to_text()
            # Loading the text back gives the same key: the key depends on the position only.
            assert Position.from_text(pos.to_text()).key == pos.key
            keys.append(pos.key)
        while pos.move_stack:
            keys.pop()
            pos.pop()
            assert pos.key == keys[-1]
        assert pos.to_text() == Position.from_text(text).to_text()


def test_illegal_order_text_says_why_and_changes_nothing():
    pos = Position.from_text("4k3/8/8/8/8/8/4P3/4K3[N] w - - 0 1")
    before = pos.to_text()
    cases = {
        "e3e4": "no unit on e3",
        "e8d8": "not Blue's",
        "e2e5": "Pawn on e2 cannot reach or capture on e5",
        "B@a1": "no Bishop in the Barracks",
        "N@a2": "Knight cannot be deployed to a2",
        "Q@a1": "no Queen",
    }
    for text, reason in cases.items():
        with pytest.raises(IllegalOrderError, match=reason):
            pos.push(text)
        assert pos.to_text() == before
    with pytest.raises(OrderTextError, match="not of the form"):
        pos.parse_order("e2-e4")
    with pytest.raises(OrderTextError):
        pos.parse_order("e9e4")


def test_push_rejects_order_of_another_position():
    a = Position.from_text(START)
    b = Position.from_text("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    order = a.parse_order("e2e4")
    with pytest.raises(IllegalOrderError):
        b.push(order)
    with pytest.raises(TypeError):
        b.push(42)


def test_immortal_captured_goes_to_its_owners_barracks():
    pos = Position.from_text("4k3/8/8/8/8/3i4/4Q3/4K3 w - - 0 1")
    pos.push("e2d3")
    assert pos.barracks("b") == {"I": 1}
    assert pos.to_text().startswith("4k3/8/8/8/8/3Q4/8/4K3[i] b")
    assert "I@e8" not in {o.text() for o in pos.legal_orders()}  # occupied by the Yellow King
    assert {"I@d7", "I@a8"} <= {o.text() for o in pos.legal_orders()}  # Foot: ranks 8 and 7 (B19)


def test_capture_returns_unit_to_stock_and_promotion_takes_from_it():
    pos = Position.from_text("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1 stock:Q1 promote:Q")
    assert {o.text() for o in pos.legal_orders() if o.origin == 48} == {"a7a8q", "a7b8q"}
    pos.push("a7b8q")
    # The Queen came from the Stock; the Knight and the promoted Pawn went back to it.
    assert pos.stock() == {"P": 1, "N": 1}
    assert pos.unit_at("b8") == ("Q", "w")


def _squares(*names):
    return sum(1 << (("abcdefgh".index(n[0])) + 8 * (int(n[1]) - 1)) for n in names)


def test_the_board_keeps_its_foot_structure_through_promotion_capture_and_deploy():
    # Board.foot (the squares of both sides' Foot units, which the search's correction history is
    # indexed by) is kept by the primitives, not recomputed: every way a Foot unit arrives or leaves.
    pos = Position.from_text("1n2k3/P2p4/8/8/8/8/5P2/4K3[P] w - - 0 1 stock:Q1 promote:Q")
    core = pos._core
    assert core.foot == core.recomputed_foot() == _squares("a7", "d7", "f2")
    pos.push("a7b8q")                                # the Pawn leaves as it promotes
    assert core.foot == core.recomputed_foot() == _squares("d7", "f2")
    pos.push("d7d5")
    assert core.foot == _squares("d5", "f2")
    pos.push("P@d2")                                 # a Foot deploy
    assert core.foot == core.recomputed_foot() == _squares("d5", "f2", "d2")
    pos.push("e8d8")
    pos.push("b8d6")
    pos.push("d8e8")
    pos.push("d6d5")                                 # a Foot unit captured
    assert core.foot == core.recomputed_foot() == _squares("f2", "d2")
    assert Position.from_text(pos.to_text())._core.foot == core.foot


def test_promotion_to_a_type_freed_by_the_capture():
    # Stock has no Queen; capturing one on the eighth rank puts it back before the choice (B18).
    pos = Position.from_text("1q2k3/P7/8/8/8/8/8/4K3 w - - 0 1 stock:- promote:Q")
    orders = {o.text() for o in pos.legal_orders() if o.origin == 48}
    assert orders == {"a7a8", "a7b8q"}


def test_spy_swap_moves_both_units_with_their_status():
    pos = Position.from_text("4k3/8/8/8/3Y4/8/8/4K3 w - - 0 1 status:e1w")
    pos.push("d4e1")
    assert pos.unit_at("d4") == ("K", "w") and pos.unit_at("e1") == ("Y", "w")
    # The immunity flag travelled with the King; it is Blue's flag, so it survives Blue's turn end.
    assert pos.to_text().endswith("status:d4w")


def test_turn_end_clears_flags():
    pos = Position.from_text("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 status:e1o,e8w")
    assert {o.text()[:2] for o in pos.legal_orders()} == {"a1"}  # the ordered King gets no order
    pos.push("a1a2")
    # Blue's ordered flag expired at the end of Blue's turn; the Yellow King's immunity until Blue's
    # next turn is still there until that turn starts.
    assert pos.to_text() == "4k3/8/8/8/8/8/R7/4K3 b - - 1 1 status:e8w"
    pos.push("e8d8")
    assert pos.to_text() == "3k4/8/8/8/8/8/R7/4K3 w - - 2 2"


def test_attacks_and_threats():
    pos = Position.from_text("4k3/8/8/8/3O4/8/3p4/4K3 w - - 0 1")
    # Oracle (B13): captures 2 away straight or diagonally; never at distance 1.
    assert pos.attacks("d4") == {11, 9, 13, 25, 29, 41, 43, 45}
    assert pos.attacks("a5") == set()
    # The Yellow Pawn on d2 captures diagonally toward rank 1: c1 and e1 (B1), not e2.
    assert pos.is_threatened("e1", "w") and pos.is_threatened("c1", "w")
    assert not pos.is_threatened("e2", "w")
    # A Yellow unit on d6, f6 or b2 could be shot by the Oracle; one on d5 could not.
    assert pos.is_threatened("d6", "b") and pos.is_threatened("b2", "b")
    assert not pos.is_threatened("d5", "b")
    # C7 with the moving unit itself (the King from e1): d1 is out of the Pawn's reach.
    assert not pos.is_threatened("d1", "w", origin=4)


def test_position_text_errors_name_field_and_character():
    with pytest.raises(PositionTextError, match="board rank 8, character 3: unknown unit token 'j'"):
        Position.from_text("rnj5/8/8/8/8/8/8/4K3 w - - 0 1")
    with pytest.raises(PositionTextError, match="side to move"):
        Position.from_text("4k3/8/8/8/8/8/8/4K3 x - - 0 1")


def test_perft_depth_zero_and_game_over():
    assert Position.from_text(START).perft(0) == 1
    over = Position.from_text("8/8/8/8/8/8/8/4K3 b - - 0 1")
    assert over.is_over() and over.legal_orders() == [] and over.perft(3) == 0


def test_missing_promotion_type_is_named():
    pos = Position.from_text("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 promote:NQ")
    with pytest.raises(IllegalOrderError, match=r"a promotion type is required \(n, q\)"):
        pos.parse_order("b7b8")


def test_consecutive_empty_counts_are_rejected():
    with pytest.raises(PositionTextError, match="board rank 8, character 2: two empty-square counts"):
        Position.from_text("44/8/8/8/8/8/8/4K3 w - - 0 1")


RANDOM_WALK_STARTS = [
    START + " status:e2w,d7b",
    "4k3/1~gp4~l/8/3~z4/2F1x3/8/~P3T1Y1/~R3K1~M1[~N~m] b - - 0 9",
    "4u3/2s1e3/8/1I1c2h1/3O4/1a2G3/1T2D1X1/3UK3[Ii] w - - 5 20 stock:Q1 promote:QN",
]


@pytest.mark.parametrize("text", RANDOM_WALK_STARTS)
def test_cheap_reads_agree_with_the_whole_board(text):
    rng = random.Random(3)
    pos = Position.from_text(text)
    catalog = pos.catalog
    core = pos.core
    for _ in range(40):
        state = core.state()
        assert core.side == state["side"] and core.halfmove == state["halfmove"]
        assert core.fullmove == state["fullmove"] and core.promote_types == state["promote_types"]
        assert [core.status_bits(flag) for flag in range(len(state["status"]))] == state["status"]
        assert [core.barracks_counts(c) for c in (0, 1)] == state["barracks"]
        assert core.stock_counts() == state["stock"]
        for c in (0, 1):
            assert core.colour_bits(c) == sum(1 << sq for sq, _, colour in state["units"] if colour == c)
        units = {sq: (catalog.units[t].token, "wb"[c]) for sq, t, c in state["units"]}
        assert [pos.unit_at(sq) for sq in range(64)] == [units.get(sq) for sq in range(64)]
        assert pos.turn == "wb"[state["side"]]
        assert pos.stock() == {catalog.units[t].token: n for t, n in enumerate(state["stock"]) if n}
        for c in (0, 1):
            assert pos.barracks("wb"[c]) == {catalog.units[t].token: n for t, n in enumerate(state["barracks"][c]) if n}
        sovereign_sides = {c for _, t, c in state["units"] if catalog.units[t].is_sovereign}
        assert pos.is_over() == (sovereign_sides != {0, 1})
        orders = pos.legal_orders()
        if not orders:
            break
        pos.push(rng.choice(orders))


def test_status_bits_are_set_as_a_whole_and_the_key_follows():
    pos = Position.from_text(START + " status:e2w")
    core = pos.core
    key = core.key
    core.set_status_bits(2, (1 << 12) | (1 << 52))      # e2 stays, e7 gains the flag
    assert core.status_bits(2) == (1 << 12) | (1 << 52) and core.key == core.recomputed_key() != key
    assert pos.to_text().endswith("status:e2w,e7w")
    core.set_status_bits(2, 1 << 12)
    assert core.key == key
    with pytest.raises(ValueError, match="status flag"):
        core.set_status_bits(7, 0)


def test_cheap_reads_refuse_bad_arguments():
    core = Position.from_text(START).core
    with pytest.raises(ValueError, match="status flag"):
        core.status_bits(5)
    with pytest.raises(ValueError, match="colour"):
        core.barracks_counts(2)
    with pytest.raises(ValueError, match="colour"):
        core.colour_bits(-1)


@pytest.mark.parametrize("text", RANDOM_WALK_STARTS + [START])
def test_load_core_and_read_core_round_trip(text):
    pos = Position.from_text(text)
    core = _position.BoardCore(pos.catalog.tables)
    data = parse_position(text, pos.catalog)
    load_core(core, data)
    back = read_core(core)
    assert format_position(back, pos.catalog) == pos.to_text()
    assert core.key == pos.key
    # Missing Stock and promote mask are filled with the defaults, and read back explicitly.
    assert back.stock == (data.stock if data.stock is not None
                          else default_stock(pos.catalog, data.units, data.barracks))
    assert back.promote_mask == (data.promote_mask if data.promote_mask is not None
                                 else default_promote_mask(pos.catalog))
    load_core(core, back)
    assert core.key == pos.key


def test_promote_tokens_parse_without_a_position_text():
    catalog = Position().catalog
    ids = {token: catalog.by_token[token].id for token in ("N", "Q", "~B")}
    assert parse_promote_tokens("NQ", catalog) == 1 << ids["N"] | 1 << ids["Q"]
    assert parse_promote_tokens("-", catalog) == 0
    assert Position().promote_mask_from_tokens(" q~b ") == 1 << ids["Q"] | 1 << ids["~B"]
    assert Position().promote_mask_from_tokens("-") == 0
    # The same messages as the promote: field of a position text.
    for tokens, message in (("Q%", "position text, promote, character 10: unexpected character '%'"),
                            ("~", "position text, promote, character 9: '~' must be followed by a letter"),
                            ("QJ", "position text, promote, character 10: unknown unit token 'J'")):
        with pytest.raises(PositionTextError) as raised:
            Position().promote_mask_from_tokens(tokens)
        assert str(raised.value) == message
        with pytest.raises(PositionTextError) as raised:
            parse_position(f"4k3/8/8/8/8/8/8/4K3 w - - 0 1 promote:{tokens}", catalog)
        assert str(raised.value) == message
    with pytest.raises(PositionTextError, match="unit tokens here are uppercase"):
        parse_promote_tokens("q", catalog)


class _CountingCore(_position.BoardCore):
    """A kernel board that counts its generations."""

    generations = 0

    def generate(self, *args):
        type(self).generations += 1
        return super().generate(*args)


def _counting(text: str) -> Position:
    pos = Position.from_text(text)
    spy = _CountingCore(pos.catalog.tables)
    load_core(spy, pos.data())
    pos._core = spy
    _CountingCore.generations = 0
    return pos


def test_push_trusts_the_orders_the_position_generated():
    pos = _counting(START)
    order = pos.legal_orders()[3]
    pos.push(order)
    assert _CountingCore.generations == 1
    pos.push("e7e5")                              # text: one generation for the lookup, none for push
    assert _CountingCore.generations == 2
    # An order generated before the last push is stale: checked, and refused.
    with pytest.raises(IllegalOrderError, match=f"order {order.text()} is not legal in this position"):
        pos.push(order)
    assert _CountingCore.generations == 3
    pos.pop()
    pos.pop()
    pos.push(order)                               # legal again on the board it came from
    assert pos.move_stack == [order]


def test_push_checks_orders_of_another_mode_or_position():
    flat = Position.from_text("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    wrapped = {o.code: o for o in flat.legal_orders(cylindrical=True)}
    only_wrapped = [o for code, o in wrapped.items() if code not in {x.code for x in flat.legal_orders()}]
    assert only_wrapped                            # a1h1 around the cylinder (B17)
    with pytest.raises(IllegalOrderError):
        flat.push(only_wrapped[0])
    flat.push(only_wrapped[0], cylindrical=True)
    # A copy is the same board: it may trust what the original generated.
    pos = Position.from_text(START)
    order = pos.parse_order("g1f3")
    twin = pos.copy()
    twin.push(order)
    assert twin.to_text() == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b - - 1 1"


@pytest.mark.parametrize("text", RANDOM_WALK_STARTS + ["4k3/1P4P1/8/3o4/8/2O5/8/Y3K2L[QRNPqb] w - - 0 1"])
def test_order_lookup_by_fields_finds_what_the_text_names(text):
    rng = random.Random(5)
    pos = Position.from_text(text)
    for _ in range(15):
        for cylindrical in (False, True):
            orders = pos.legal_orders(cylindrical)
            for order in orders:
                first = next(o for o in orders if o.text() == order.text())
                assert pos.parse_order(order.text(), cylindrical) == first
        orders = pos.legal_orders()
        if not orders:
            break
        pos.push(rng.choice(orders))


def test_every_reason_of_an_illegal_order_is_worded_as_before():
    pos = Position.from_text("4k3/1P6/8/8/8/8/4P3/4K3[N] w - - 0 1 promote:NQ")
    cases = {
        "J@a1": "order J@a1: unknown unit token 'J'",
        "B@a1": "order B@a1: Blue has no Bishop in the Barracks",
        "N@a3": "order N@a3: Knight cannot be deployed to a3",
        "e3e4": "order e3e4: no unit on e3",
        "e8e7": "order e8e7: the unit on e8 is not Blue's (Blue to move)",
        "b7b8": "order b7b8: a promotion type is required (n, q)",
        "b7b8r": "order b7b8r: Pawn on b7 has no such order (promotion to R not available)",
        "b7b8j": "order b7b8j: Pawn on b7 has no such order (promotion to J not available)",
        "e2e5": "order e2e5: Pawn on e2 cannot reach or capture on e5",
        "e2e3q": "order e2e3q: Pawn on e2 has no such order (promotion to Q not available)",
    }
    for text, message in cases.items():
        with pytest.raises(IllegalOrderError) as raised:
            pos.parse_order(text)
        assert str(raised.value) == message
    pos.push("e2e3")
    with pytest.raises(IllegalOrderError) as raised:
        pos.parse_order("e3e4")
    assert str(raised.value) == "order e3e4: the unit on e3 is not Yellow's (Yellow to move)"


@pytest.mark.parametrize(
    "text",
    [
        START,
        "r1b1k2r/ppQpZpp1/2n2n2/4p3/1Lb1P3/2NO1N2/PPP2PPP/R1B1KW1R[Nz] w - - 0 1",
        "4k3/1~gp4~l/8/3~z4/2F1x3/8/~P3T1Y1/~R3K1~M1[~N~m] b - - 0 9",
        "4u3/2s1e3/8/1I1c2h1/3O4/1a2G3/1T2D1X1/3UK3[Ii] w - - 5 20",
        "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1 stock:Q1 promote:Q",
    ],
)
def test_tactical_generation_is_the_full_list_filtered_over_random_games(text):
    # Quiescence generates only captures and promotions (generate_tactical); its search must stay the
    # one that filtered the full list, so the list must be exactly that filter, in the same order
    # (the order breaks ties when orders are sorted), in both topologies and with Barracks to deploy.
    from engine import codes
    rng = random.Random(11)
    tactical_seen = 0
    for game in range(12):
        cylindrical = game % 2 == 1
        pos = Position.from_text(text)
        for _ in range(40):
            core = pos._core
            full = core.generate(cylindrical)
            expected = [o for o in full if codes.order_kind(o) in (codes.ATTACK, codes.SHOOT)
                        or codes.order_promotion(o) >= 0]
            assert core.generate_tactical(cylindrical) == expected, pos.to_text()
            tactical_seen += len(expected)
            orders = pos.legal_orders(cylindrical=cylindrical)
            if not orders:
                break
            pos.push(rng.choice(orders), cylindrical=cylindrical)
    assert tactical_seen > 50          # the games did reach captures and promotions


def test_tactical_generation_under_special_rules_is_every_order():
    # Crusade & Conquer (Rules.special: levels, X wins, chess legality) keeps the full list: a quiet
    # march onto an X wins there, and only the search knows which orders it keeps.
    from engine.crusade.search import position_of
    from engine.crusade.state import CrusadeState
    state = CrusadeState()
    core = position_of(state).core
    assert core.generate_tactical() == core.generate() and len(core.generate()) >= 10
