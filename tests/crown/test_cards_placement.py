"""Action effects that put units somewhere (13.0 Consort, Evangelism, Fog, Subterfuge; 17.0 Bivouac,
Vantage)."""


from engine.codes import ST_BANNED, ST_IMMUNE_BLUE, ST_ORDERED
from engine.crown.scenario import scenario
from engine.notation import BLUE, YELLOW
from tests.crown.support import choose, play, random_play_with_cards, sq, texts, unit_at


def start(board, cards, **kw):
    """Action phase with ``cards`` in Blue's hand (plus a Peon, so that the turn goes on when the
    card is done and flags set this turn stay visible)."""
    return scenario(board, hands=(list(cards) + ["Peon"], []), supply=sorted(set(cards) - {"Consort"}), phase="action", **kw)


def done(g):
    """The effect is over: the phase asks again (no card frame pending)."""
    return g.decision.frame is None


# --- Consort (13.0) ---------------------------------------------------------------------------------

def test_13_0_consort_places_an_ordered_unit_next_to_a_regal_unit():
    # 13.0 example: attack with a Knight, then Consort it next to the Queen. a1 is already ordered.
    g = start("4k3/8/8/8/3Q4/8/8/N3K3 w - - 0 1 status:a1o", ["Consort"])
    play(g, "Consort")
    options = texts(g)
    assert "Knight on a1" in options
    assert "King on e1" not in options            # no Sovereign
    assert "Queen on d4" not in options           # a Regal unit needs a different Regal unit
    choose(g, "Knight on a1")
    assert texts(g) == {f"a1 to {s}" for s in ("c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5")}
    choose(g, "a1 to e5")
    assert unit_at(g, "e5") == ("N", BLUE) and unit_at(g, "a1") is None
    assert done(g)


def test_13_0_consort_moves_a_regal_unit_next_to_another_regal_unit():
    g = start("4k3/8/8/8/3Q4/8/8/D3K3 w", ["Consort"])
    play(g, "Consort")
    choose(g, "Queen on d4")
    options = texts(g)
    assert options == {"d4 to a2", "d4 to b2", "d4 to b1"}   # next to the Dragoon only
    choose(g, "d4 to b2")
    assert unit_at(g, "b2") == ("Q", BLUE)


def test_13_0_consort_without_a_regal_unit_does_nothing():
    g = start("4k3/8/8/8/8/8/8/N3K3 w", ["Consort"])
    play(g, "Consort")
    assert done(g) and unit_at(g, "a1") == ("N", BLUE)


# --- Evangelism (13.0) ------------------------------------------------------------------------------

def test_13_0_evangelism_deploys_a_pious_unit_next_to_a_pious_unit():
    g = start("4k3/8/8/8/8/8/8/2B1K3[AN] w", ["Evangelism"])
    play(g, "Evangelism")
    assert texts(g) == {"Acolyte"}                 # the Knight is not Pious
    choose(g, "Acolyte")
    assert texts(g) == {"deploy A@b1", "deploy A@d1", "deploy A@b2", "deploy A@c2", "deploy A@d2"}
    choose(g, "deploy A@c2")
    assert unit_at(g, "c2") == ("A", BLUE) and g.board.barracks_count(BLUE, g.units["A"].id) == 0
    assert not g.board.has_status(sq("c2"), ST_ORDERED)


def test_13_0_evangelism_an_anointed_counts_as_a_pious_unit():
    g = start("4k3/8/8/8/8/8/8/4U3[M] w", ["Evangelism"])
    play(g, "Evangelism")
    choose(g, "Monk")
    assert "deploy M@e2" in texts(g)


def test_13_0_evangelism_without_pious_units_has_no_effect():
    g = start("4k3/8/8/8/8/8/8/4K3[A] w", ["Evangelism"])    # none on the board
    play(g, "Evangelism")
    assert done(g) and g.board.barracks_count(BLUE, g.units["A"].id) == 1
    g = start("4k3/8/8/8/8/8/8/2B1K3[N] w", ["Evangelism"])  # none in the Barracks
    play(g, "Evangelism")
    assert done(g)


# --- Fog (13.0) -------------------------------------------------------------------------------------

def test_13_0_fog_marches_an_ordered_or_banned_mounted_unit():
    g = start("4k3/8/8/8/8/2p5/8/RN2K1Z1 w - - 0 1 status:b1o,g1n", ["Fog"])
    play(g, "Fog")
    options = texts(g)
    assert {"b1a3", "b1d2", "g1e2", "g1f3", "g1h3"} <= options
    assert "b1c3" not in options                     # march only, no attack
    assert not any(t.startswith(("a1", "e1")) for t in options)   # Mounted units only
    choose(g, "g1f3")
    assert unit_at(g, "f3") == ("Z", BLUE)
    assert g.board.has_status(sq("f3"), ST_BANNED)   # its flags travel with it
    assert not g.board.has_status(sq("f3"), ST_ORDERED)   # an action marks nothing
    assert g.board.has_status(sq("b1"), ST_ORDERED)  # the lifted flags are back
    assert g.board.key == g.board.recomputed_key()


def test_13_0_fog_without_mounted_units_does_nothing():
    g = start("4k3/8/8/8/8/8/8/R3K3 w", ["Fog"])
    play(g, "Fog")
    assert done(g)


# --- Subterfuge (13.0) ------------------------------------------------------------------------------

def test_13_0_subterfuge_swaps_units_sharing_a_class():
    # 13.0 example: a Phantom (Mounted, Regal) and a Sphinx (Pious, Regal) share Regal.
    g = start("4k3/8/8/8/8/8/8/F1N1K2X w - - 0 1 status:h1w", ["Subterfuge"])
    play(g, "Subterfuge")
    choose(g, "Phantom on a1")
    assert texts(g) == {"swap with Sphinx on h1", "swap with Knight on c1"}   # Knight: Mounted
    choose(g, "swap with Sphinx on h1")
    assert unit_at(g, "a1") == ("X", BLUE) and unit_at(g, "h1") == ("F", BLUE)
    assert g.board.has_status(sq("a1"), ST_IMMUNE_BLUE)   # the Sphinx keeps its own flags
    assert not g.board.has_status(sq("h1"), ST_IMMUNE_BLUE)


def test_13_0_subterfuge_with_the_barracks():
    g = start("4k3/8/8/8/8/8/8/1N2K3[DB] w", ["Subterfuge"])
    play(g, "Subterfuge")
    assert "Knight on b1" in texts(g)
    choose(g, "Knight on b1")
    assert texts(g) == {"swap with Dragoon in the Barracks"}   # the Bishop shares no class
    choose(g, "swap with Dragoon in the Barracks")
    assert unit_at(g, "b1") == ("D", BLUE)
    assert g.board.barracks_count(BLUE, g.units["N"].id) == 1
    assert g.board.barracks_count(BLUE, g.units["D"].id) == 0


def test_13_0_subterfuge_no_partner_no_effect():
    g = start("4k3/8/8/8/8/8/8/1N2K3[B] w", ["Subterfuge"])
    play(g, "Subterfuge")
    assert done(g)


# --- Bivouac (17.0) ---------------------------------------------------------------------------------

def test_17_0_bivouac_moves_a_unit_along_its_rank():
    g = start("4k3/8/8/8/8/R2p4/8/4K3 w", ["Bivouac"])
    play(g, "Bivouac")
    assert texts(g) == {"Rook on a3"}               # the King is a Sovereign
    choose(g, "Rook on a3")
    assert texts(g) == {f"a3 to {f}3" for f in "bcefgh"}   # jumps over d3, never onto it
    choose(g, "a3 to h3")
    assert unit_at(g, "h3") == ("R", BLUE)


# --- Vantage (17.0) ---------------------------------------------------------------------------------

def test_17_0_vantage_earns_gold_and_must_move_a_unit_backward():
    g = start("4k3/8/8/8/3N4/8/8/4K3 w", ["Vantage"])
    play(g, "Vantage")
    assert g.gold == 3
    assert texts(g) == {"move Knight on d4 backward"}   # mandatory: no decline; e1 cannot
    choose(g, "move Knight on d4 backward")
    assert unit_at(g, "d3") == ("N", BLUE)


def test_17_0_vantage_backward_is_toward_the_owner():
    g = scenario("4k3/8/8/3n4/8/8/8/4K3 b", hands=([], ["Vantage", "Peon"]), supply=["Vantage"], phase="action")
    play(g, "Vantage")
    choose(g, "move Knight on d5 backward")
    assert unit_at(g, "d6") == ("N", YELLOW)
    # The King on e8 has nothing behind it, so it was never offered.


def test_17_0_vantage_with_nothing_able_to_move_only_earns_gold():
    g = start("4k3/8/8/8/8/8/3P4/3NK3 w", ["Vantage"])
    play(g, "Vantage")
    assert done(g) and g.gold == 3
    assert unit_at(g, "d2") == ("P", BLUE)


# --- random play ------------------------------------------------------------------------------------

CARDS = ["Consort", "Evangelism", "Fog", "Subterfuge", "Bivouac", "Vantage"]
BOARD = "r1l1k2w/pp1yn1ip/3t4/2m3x1/5M2/1B1N4/PPT1Y1IP/R1LQK1DW[NQ~Kp~BbAa] w - - 0 1 status:b3o,d3n,g5b"


def test_random_play_with_placement_actions_never_fails():
    """Seeded random games with these cards in every hand and Deck: no exception, a consistent
    Zobrist key, and cards played half of the time one can be."""
    games, played = random_play_with_cards(BOARD, CARDS, CARDS[1:], seed=11)
    assert games >= 50 and played > 3 * games
