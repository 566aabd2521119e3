"""Position text (RULINGS A3, contract) and order text (A4): round trips, chess FEN compatibility, and
clear ValueErrors for malformed input (the message names the field and the offending text)."""

import re
from collections import Counter

import pytest

import engine
from engine import Position, perft
from tests.support import BASE_TOKENS, EXPANSION_TOKENS

# RULINGS E inventory (PROVISIONAL numbers, but the ones the engine must use by default).
INVENTORY = {t: 4 for t in BASE_TOKENS}
INVENTORY.update(P=20, N=6, B=6, R=6, Q=4, K=4, T=7, M=5, A=5)
INVENTORY.update({t: 5 for t in EXPANSION_TOKENS})
INVENTORY.update({"~P": 8, "~K": 4, "~M": 6})
TOKEN = re.compile(r"~?[A-Za-z]|\d")
CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


# --------------------------------------------------------------------------- a small independent reader
def upper(tok):
    return tok[:-1] + tok[-1].upper()


def read(text):
    """Split a position text into comparable parts (test helper, independent of the engine)."""
    fields = text.split()
    first, side = fields[0], fields[1]
    board, _, barracks = first.partition("[")
    units = {}
    for i, row in enumerate(board.split("/")):
        file = 0
        for tok in TOKEN.findall(row):
            if tok.isdigit():
                file += int(tok)
            else:
                units["abcdefgh"[file] + str(8 - i)] = tok
                file += 1
    out = {"board": units, "barracks": Counter(TOKEN.findall(barracks.rstrip("]"))),
           "side": side, "stock": None, "promote": None, "status": {}}
    rest = fields[2:]
    plain = [f for f in rest if ":" not in f]
    out["clocks"] = plain[2:4] if len(plain) >= 4 else None
    for f in rest:
        if f.startswith("stock:"):
            body = f[6:]
            out["stock"] = {} if body == "-" else {
                m.group(1): int(m.group(2)) for m in re.finditer(r"(~?[A-Z])(\d+)", body)}
            out["stock"] = {k: v for k, v in out["stock"].items() if v}
        elif f.startswith("promote:"):
            body = f[8:]
            out["promote"] = set() if body == "-" else set(TOKEN.findall(body))
        elif f.startswith("status:"):
            body = f[7:]
            if body != "-":
                out["status"] = {item[:2]: set(item[2:]) for item in body.split(",")}
    return out


def default_stock(parts):
    stock = dict(INVENTORY)
    for tok in list(parts["board"].values()) + list(parts["barracks"].elements()):
        stock[upper(tok)] -= 1
    return {k: v for k, v in stock.items() if v > 0}


def same_meaning(original, printed):
    a, b = read(original), read(printed)
    assert a["board"] == b["board"]
    assert a["barracks"] == b["barracks"]
    assert a["side"] == b["side"]
    if a["clocks"] is not None:
        assert b["clocks"] == a["clocks"]
    want_stock = a["stock"] if a["stock"] is not None else default_stock(a)
    if b["stock"] is not None:
        assert b["stock"] == want_stock
    else:
        assert a["stock"] is None or a["stock"] == default_stock(a)
    want_promote = a["promote"] if a["promote"] is not None else set(BASE_TOKENS)
    assert (b["promote"] if b["promote"] is not None else set(BASE_TOKENS)) == want_promote
    assert a["status"] == b["status"]


def order_set(pos, cylindrical=False):
    return sorted(str(o) for o in pos.legal_orders(cylindrical=cylindrical))


# --------------------------------------------------------------------------- round trips
TEXTS = [
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 b - - 7 42",
    "r~b2k3/8/8/3Q4/8/8/1~P6/4K3[NN~zp] b - - 3 17",
    "4k3/8/8/3Q4/8/8/8/4K3[NNz] w - - 0 1 stock:P4Q2~B5 promote:NBRQ status:d5o,e1w",
    "kqrbnpau/ecldghim/zofsxytw/8/8/ZOFSXYTW/ECLDGHIM/KQRBNPAU w - - 0 1",
    "~k~b~p~n~z~r~m~g/~h~l6/8/8/8/8/~H~L6/~K~B~P~N~Z~R~M~G b - - 0 1 stock:- promote:-",
    "4k3/1P6/8/8/8/8/8/4K3[Ii] w - - 0 1 promote:Q~B~N status:b7n,e8b,e1w",
    "4k3/8/8/8/8/8/8/4K3[PPPPP~Pm] w - - 0 1 stock:K1Q2R3B4N5P6~B1~P2~L3",
]


@pytest.mark.parametrize("text", TEXTS)
def test_to_text_preserves_every_field(text):
    printed = Position.from_text(text).to_text()
    same_meaning(text, printed)


@pytest.mark.parametrize("text", TEXTS)
def test_to_text_is_a_fixed_point(text):
    once = Position.from_text(text).to_text()
    assert Position.from_text(once).to_text() == once


CANONICAL = [
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 b - - 7 42",
    "r~b2k3/8/8/3Q4/8/8/1~P6/4K3[NNp~z] b - - 3 17",
    "4k3/8/8/3Q4/8/8/8/4K3[NNz] w - - 0 1 stock:Q2P4~B5 promote:QRBN status:e1w,d5o",
    "kqrbnpau/ecldghim/zofsxytw/8/8/ZOFSXYTW/ECLDGHIM/KQRBNPAU w - - 0 1",
    "~k~b~p~n~z~r~m~g/~h~l6/8/8/8/8/~H~L6/~K~B~P~N~Z~R~M~G b - - 0 1 stock:- promote:-",
    "4k3/1P6/8/8/8/8/8/4K3[Ii] w - - 0 1 promote:Q~B~N status:e1w,b7n,e8b",
    "4k3/8/8/8/8/8/8/4K3[PPPPP~Pm] w - - 0 1 stock:K1Q2R3B4N5P6~B1~P2~L3",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1 status:e1ow",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_text_round_trips_exactly(text):
    # Canonical form: castling and ep printed as "-"; fields in the contract's order (stock, promote,
    # status); Barracks, stock and promote tokens in RULINGS A3 order (Blue's Barracks first);
    # status items by square (a1..h8).
    assert Position.from_text(text).to_text() == text


def test_non_canonical_field_order_is_normalised():
    text = "4k3/8/8/3Q4/8/8/8/4K3[zNN] w - - 0 1 stock:P4Q2~B5 promote:NBRQ status:d5o,e1w"
    assert Position.from_text(text).to_text() == CANONICAL[3]


@pytest.mark.parametrize("text", TEXTS)
def test_from_text_of_to_text_has_the_same_orders(text):
    pos = Position.from_text(text)
    again = Position.from_text(pos.to_text())
    for cyl in (False, True):
        assert order_set(again, cyl) == order_set(pos, cyl)


def test_round_trip_after_play_keeps_stock_barracks_and_orders():
    # Walk a few plies (captures, promotions, deploys, Immortal to Barracks) and round-trip each node.
    pos = Position.from_text("3qk3/1P2i3/8/8/3Q4/8/8/4K3[Nn] w - - 0 1 promote:NQ")
    for _ in range(12):
        text = pos.to_text()
        again = Position.from_text(text)
        assert again.to_text() == text
        assert order_set(again) == order_set(pos)
        orders = sorted(pos.legal_orders(), key=str)
        if not orders:
            break
        # prefer captures/promotions/deploys, deterministic
        pick = next((o for o in orders if len(str(o)) == 5 or "@" in str(o)), orders[len(orders) // 2])
        pos.push(pick)


def test_omitted_stock_is_inventory_minus_board_and_barracks():
    text = "4k3/8/8/3Q4/8/8/8/4K3[QQn] w - - 0 1"
    printed = read(Position.from_text(text).to_text())
    if printed["stock"] is not None:
        want = dict(INVENTORY)
        want["Q"] = 1        # 4 - board Q - 2 in Blue's Barracks
        want["K"] = 2
        want["N"] = 5
        assert printed["stock"] == {k: v for k, v in want.items() if v}


def test_visionary_tokens_both_colours():
    pos = Position.from_text("~b3k3/8/8/8/8/8/8/4K2~B w - - 0 1")
    assert read(pos.to_text())["board"] == {"a8": "~b", "e8": "k", "e1": "K", "h1": "~B"}
    assert "h1g2" in {str(o) for o in pos.legal_orders()}


# --------------------------------------------------------------------------- chess FEN
def test_chess_fen_accepted_castling_ignored():
    pos = Position.from_text(CHESS_START)
    assert len(pos.legal_orders()) == 20
    fields = pos.to_text().split()
    assert fields[0] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert fields[1:4] == ["w", "-", "-"]
    assert perft(CHESS_START, 3) == 8902


def test_chess_fen_with_en_passant_field_accepted_and_ignored():
    pos = Position.from_text("rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3")
    orders = {str(o) for o in pos.legal_orders()}
    assert "d5e6" not in orders          # no en passant (B1)
    assert pos.to_text().split()[3] == "-"
    assert pos.to_text().split()[4:6] == ["0", "3"]


def test_only_board_and_side_required():
    pos = Position.from_text("4k3/8/8/8/8/8/8/4K3 b")
    fields = pos.to_text().split()
    assert fields[1] == "b"
    assert fields[4:6] == ["0", "1"]
    assert pos.turn == "b"


# --------------------------------------------------------------------------- malformed position text
def raises_naming(text, *patterns):
    with pytest.raises(ValueError) as info:
        Position.from_text(text)
    message = str(info.value)
    for pat in patterns:
        assert re.search(pat, message, re.IGNORECASE), (pat, message)
    return message


def test_bad_unit_token():
    raises_naming("4k3/8/8/3J4/8/8/8/4K3 w - - 0 1", r"J")


def test_bad_expansion_token():
    raises_naming("4k3/8/8/3~Q4/8/8/8/4K3 w - - 0 1", r"~Q")


def test_rank_with_nine_squares():
    raises_naming("4k3/8/8/8/8/4P4/8/4K3 w - - 0 1", r"rank", r"3")


def test_rank_with_seven_squares():
    raises_naming("4k3/8/8/8/8/4P2/8/4K3 w - - 0 1", r"rank", r"3")


def test_seven_ranks():
    raises_naming("4k3/8/8/8/8/8/4K3 w - - 0 1", r"rank", r"7")


def test_nine_ranks():
    raises_naming("4k3/8/8/8/8/8/8/8/4K3 w - - 0 1", r"rank", r"9")


def test_bad_side():
    raises_naming("4k3/8/8/8/8/8/8/4K3 x - - 0 1", r"side|turn|colou?r", r"\bx\b|'x'|\"x\"")


def test_missing_side():
    raises_naming("4k3/8/8/8/8/8/8/4K3", r"side|turn|colou?r|field")


def test_bad_barracks_token():
    raises_naming("4k3/8/8/8/8/8/8/4K3[NJ] w - - 0 1", r"J")


def test_unclosed_barracks():
    raises_naming("4k3/8/8/8/8/8/8/4K3[NN w - - 0 1", r"barracks|\[|\]")


def test_bad_stock_count():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 stock:Q#", r"stock", r"#|character 8")


def test_missing_stock_count():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 stock:Q", r"stock", r"\bQ\b")


def test_negative_stock_count():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 stock:Q-1", r"stock", r"-1|character 8")


def test_stock_token_listed_twice():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 stock:Q2Q3", r"stock", r"\bQ\b")


def test_empty_square_count_out_of_range():
    raises_naming("4k3/8/8/9/8/8/8/4K3 w - - 0 1", r"rank", r"9")


def test_bad_clock():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - x 1", r"clock|halfmove", r"\bx\b|'x'")


def test_status_on_empty_square():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 status:d4o", r"status", r"d4")


def test_unknown_extra_field():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 foo:bar", r"field|foo", r"foo")


def test_bad_stock_token():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 stock:J3", r"stock", r"J")


def test_bad_promote_token():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 promote:NJ", r"promot", r"J")


def test_unknown_status_flag():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 status:e1q", r"status|flag", r"\bq\b|'q'|e1q")


def test_bad_status_square():
    raises_naming("4k3/8/8/8/8/8/8/4K3 w - - 0 1 status:i9o", r"status|square", r"i9")


def test_empty_text():
    with pytest.raises(ValueError):
        Position.from_text("")


# --------------------------------------------------------------------------- order text
POS_TEXT = "3qk3/1P2i3/8/3O4/3Y4/8/4P3/R3K3[Nn] w - - 0 1 promote:NQ"


def test_every_legal_order_parses_back_to_itself():
    pos = Position.from_text(POS_TEXT)
    for order in pos.legal_orders():
        parsed = pos.parse_order(str(order))
        assert parsed == order
        assert str(parsed) == str(order) == order.text()


def test_parsed_order_can_be_pushed():
    pos = Position.from_text(POS_TEXT)
    before = pos.to_text()
    pos.push(pos.parse_order("e2e4"))
    assert pos.turn == "b"
    assert str(pos.pop()) == "e2e4"
    assert pos.to_text() == before


@pytest.mark.parametrize("text", [
    "e2e5",      # Pawn cannot go 3
    "e2f3",      # diagonal march without a capture
    "b7b8",      # promotion choices exist: the bare order is not legal
    "b7b8r",     # R not allowed by promote:NQ
    "e2e3q",     # suffix on a non-promotion
    "Q@b1",      # no Queen in Blue's Barracks
    "N@b2",      # a Knight is not Foot: rank 1 only
    "N@a1",      # a1 is occupied
    "d8d7",      # Yellow's unit, Blue to move
    "d5d6",      # Oracle cannot march straight
    "d4c5",      # Spy cannot march to an empty square (d4d5 would be a swap)
])
def test_illegal_order_raises_illegal_order_error(text):
    pos = Position.from_text(POS_TEXT)
    with pytest.raises(ValueError) as info:
        pos.parse_order(text)
    if hasattr(engine, "IllegalOrderError"):
        assert isinstance(info.value, engine.IllegalOrderError)
    assert text in str(info.value)


@pytest.mark.parametrize("text", ["", "e2", "e2e", "e9e4", "i2e4", "e2e4jj", "e2e4j", "J@e1",
                                  "N@", "@e1", "e2-e4", "0000", "N@e9"])
def test_malformed_order_raises_value_error(text):
    pos = Position.from_text(POS_TEXT)
    with pytest.raises(ValueError) as info:
        pos.parse_order(text)
    if text:
        assert text in str(info.value) or repr(text) in str(info.value)
