"""The SPRT of a strength change (engine/search/sprt.py, docs/sprt.md): its log-likelihood ratio
against independent computations, and its error rates on simulated matches of a known Elo difference.

Error-rate tolerance. Each simulated SPRT that ends with the wrong decision is a Bernoulli trial; over
R seeded runs the count X of wrong decisions is Binomial(R, q). Wald's bounds promise q <= alpha (about:
the GSPRT's LLR is asymptotic, and the LLR overshoots the bound, which lowers q). The tests accept
X <= R alpha + 3 sqrt(R alpha (1 - alpha)): three binomial standard deviations above alpha, which a
correct test with q = alpha exceeds with probability about 0.15%. They also ask X >= R alpha / 3 (a
test that never accepts H1 would pass the first check; with q = alpha, X < R alpha / 3 is over 5
standard deviations off). The runs are seeded, so each test is deterministic."""

import json
import math

import numpy as np
import pytest

from engine.search.sprt import (
    PENTANOMIAL_VALUES,
    SPRT,
    TRINOMIAL_VALUES,
    elo_to_score,
    llr,
    mle,
    parse_sprt,
    score_to_elo,
    sprt_bounds,
)

ALPHA = BETA = 0.05
ELO0, ELO1 = 0.0, 50.0


# -- simulated matches --------------------------------------------------------------------------------
def simulate_games(rng, runs: int, games: int, elo: float, draw: float = 0.3, bias=None):
    """A's score in half points (0 loss, 1 draw, 2 win) in ``games`` games of ``runs`` matches at a true
    logistic Elo difference ``elo``: a game of expected score x is won with probability x - draw/2,
    drawn with probability ``draw``. With ``bias`` an array of opening biases (score units), the games
    are the first games of pairs: their expected score is s + bias (the second's is s - bias)."""
    s = elo_to_score(elo) + (0.0 if bias is None else bias)
    u = rng.random((runs, games))
    return np.where(u < s - draw / 2, 2, np.where(u < s + draw / 2, 1, 0))


def simulate_pairs(rng, runs: int, pairs: int, elo: float, draw: float = 0.3, spread: float = 0.15):
    """Game pairs from one opening with colours swapped: the opening gives A an expected score of
    s + b in the first game and s - b in the second (b uniform in [-spread, spread], one per pair), so
    the two games of a pair are correlated and every pair's mean expectation is exactly s."""
    b = rng.uniform(-spread, spread, (runs, pairs))
    return simulate_games(rng, runs, pairs, elo, draw, b), simulate_games(rng, runs, pairs, elo, draw, -b)


def sequential(outcomes: np.ndarray, k: int, elo0=ELO0, elo1=ELO1, alpha=ALPHA, beta=BETA):
    """Run one SPRT per row of ``outcomes`` (the outcome index of each observation, 0..k-1), stopping at
    the first crossing: (decision +1 H1 / -1 H0 / 0 none, observations used)."""
    runs, steps = outcomes.shape
    lower, upper = sprt_bounds(alpha, beta)
    counts = np.zeros((runs, k))
    decision = np.zeros(runs, dtype=int)
    used = np.full(runs, steps)
    active = np.arange(runs)
    for t in range(steps):
        counts[active, outcomes[active, t]] += 1
        value = llr(counts[active], elo0, elo1)
        up, down = value >= upper, value <= lower
        decision[active[up]], decision[active[down]] = 1, -1
        used[active[up | down]] = t + 1
        active = active[~(up | down)]
        if active.size == 0:
            break
    return decision, used


def within_rate(wrong: int, runs: int, rate: float) -> bool:
    """The tolerance of the module's notes: R rate / 3 <= X <= R rate + 3 sqrt(R rate (1 - rate))."""
    return runs * rate / 3 <= wrong <= runs * rate + 3 * math.sqrt(runs * rate * (1 - rate))


@pytest.fixture(scope="module")
def pentanomial_runs():
    """2000 simulated paired matches at each of Elo = ELO0, ELO1 and ELO1 + 100, up to 1500 pairs."""
    rng = np.random.default_rng(20261204)
    out = {}
    for elo in (ELO0, ELO1, ELO1 + 100):
        first, second = simulate_pairs(rng, 2000, 1500, elo)
        out[elo] = (first, second, sequential(first + second, 5))
    return out


def test_pentanomial_false_acceptance_at_elo0_is_within_alpha(pentanomial_runs):
    decision, used = pentanomial_runs[ELO0][2]
    assert (decision != 0).all()                     # every run decided within 1500 pairs
    assert within_rate(int((decision == 1).sum()), decision.size, ALPHA), (decision == 1).mean()


def test_pentanomial_false_rejection_at_elo1_is_within_beta(pentanomial_runs):
    decision, used = pentanomial_runs[ELO1][2]
    assert (decision != 0).all()
    assert within_rate(int((decision == -1).sum()), decision.size, BETA), (decision == -1).mean()


def test_pentanomial_accepts_a_large_gain_nearly_always_and_quickly(pentanomial_runs):
    decision, used = pentanomial_runs[ELO1 + 100][2]
    assert (decision == 1).mean() >= 0.99
    # A gain far above ELO1 is decided sooner than one at ELO1 (mean observations).
    assert used.mean() < pentanomial_runs[ELO1][2][1].mean() / 2


def test_the_sprt_class_decides_as_the_vectorised_run(pentanomial_runs):
    """The incremental API (add_pair) stops at the same pair with the same decision as the vectorised
    simulation for the first 10 matches at ELO0 and at ELO1."""
    for elo in (ELO0, ELO1):
        first, second, (decision, used) = pentanomial_runs[elo]
        for run in range(10):
            test = SPRT(ELO0, ELO1)
            for t in range(first.shape[1]):
                status = test.add_pair(first[run, t] / 2, second[run, t] / 2)
                if status != "continue":
                    break
            assert test.pairs == used[run] and test.games == 2 * used[run]
            assert status == {1: "H1 accepted", -1: "H0 accepted"}[int(decision[run])]


def test_trinomial_error_rates_on_unpaired_games():
    rng = np.random.default_rng(7)
    for elo, wrong_side, rate in ((ELO0, 1, ALPHA), (ELO1, -1, BETA)):
        decision, _ = sequential(simulate_games(rng, 800, 2500, elo), 3)
        assert (decision != 0).all()
        assert within_rate(int((decision == wrong_side).sum()), decision.size, rate), (elo, (decision == wrong_side).mean())


# -- the LLR against independent computations ---------------------------------------------------------
def trinomial_llr_closed_form(losses: int, draws: int, wins: int, elo0: float, elo1: float) -> float:
    """With three outcomes the Lagrange condition sum q_k d_k / (1 + lam d_k) = 0, multiplied out, is a
    quadratic in lam: its root with every 1 + lam d_k > 0 (by the quadratic formula) gives the MLE."""
    n = np.array([losses, draws, wins], dtype=float)
    q = n / n.sum()
    total = 0.0
    for score, sign in ((elo_to_score(elo0), 1.0), (elo_to_score(elo1), -1.0)):
        d = TRINOMIAL_VALUES - score
        poly = np.zeros(3)
        for k in range(3):
            others = [j for j in range(3) if j != k]
            # q_k d_k (1 + lam d_i)(1 + lam d_j) = q_k d_k (d_i d_j lam^2 + (d_i + d_j) lam + 1)
            i, j = others
            poly += q[k] * d[k] * np.array([d[i] * d[j], d[i] + d[j], 1.0])
        a, b, c = poly                          # a = d_L d_D d_W: 0 when s = 1/2, then the equation is linear
        roots = ([-c / b] if abs(a) < 1e-15 else
                 [(-b + r) / (2 * a) for r in (math.sqrt(b * b - 4 * a * c), -math.sqrt(b * b - 4 * a * c))])
        lam = [r for r in roots if all(1 + r * dk > 0 for dk in d)]
        assert len(lam) == 1
        total += sign * float((n * np.log1p(lam[0] * d)).sum())
    return total


def trinomial_llr_brute_force(losses: int, draws: int, wins: int, elo0: float, elo1: float) -> float:
    """The primal problem by search: a trinomial of mean s is fixed by its draw rate x (win s - x/2,
    loss 1 - s - x/2); maximise the concave log-likelihood over x by ternary search."""
    def best(score: float) -> float:
        def loglik(x: float) -> float:
            return losses * math.log(1 - score - x / 2) + draws * math.log(x) + wins * math.log(score - x / 2)
        lo, hi = 1e-15, 2 * min(score, 1 - score) - 1e-15
        for _ in range(300):
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            if loglik(m1) < loglik(m2):
                lo = m1
            else:
                hi = m2
        return loglik((lo + hi) / 2)
    return best(elo_to_score(elo1)) - best(elo_to_score(elo0))


@pytest.mark.parametrize("counts,elo0,elo1", [((3, 5, 7), 0, 5), ((1, 1, 1), 0, 50), ((40, 10, 25), -10, 20),
                                              ((2, 30, 9), 0, 100)])
def test_trinomial_llr_matches_closed_form_and_brute_force(counts, elo0, elo1):
    value = llr(list(counts), elo0, elo1)
    assert value == pytest.approx(trinomial_llr_closed_form(*counts, elo0, elo1), abs=1e-9)
    assert value == pytest.approx(trinomial_llr_brute_force(*counts, elo0, elo1), abs=1e-7)


def test_an_outcome_never_seen_counts_as_a_thousandth_and_no_game_as_no_evidence():
    """An empty cell is regularised to 0.001 of a game (the module's EMPTY_CELL, as docs/sprt.md says):
    the LLR of (0 losses, 5 draws, 7 wins) is the brute-force LLR of (0.001, 5, 7). With no game at
    all there is no evidence either way: the LLR is 0."""
    assert llr([0, 5, 7], 0, 50) == pytest.approx(trinomial_llr_brute_force(0.001, 5, 7, 0, 50), abs=1e-7)
    assert llr([9, 0, 2], -30, 10) == pytest.approx(trinomial_llr_brute_force(9, 0.001, 2, -30, 10), abs=1e-7)
    assert llr([0, 0, 0], 0, 5) == 0.0 and llr([0, 0, 0, 0, 0], -10, 10) == 0.0


def test_a_hand_derived_trinomial_llr():
    """One loss, one draw, one win, H0 Elo 0, H1 Elo 100. The data's mean is 1/2 already, so H0's MLE is
    the data itself (1/3 each). H1's is the distribution of mean s1 = elo_to_score(100) maximising
    p_L p_D p_W; with p_D = x, p_W = s1 - x/2, p_L = 1 - s1 - x/2, setting d/dx log(p_L p_D p_W) = 0:
    1/x = (p_W + p_L) / (2 p_W p_L) and p_W + p_L = 1 - x, so 2 p_W p_L = x (1 - x); expanding
    p_W p_L = s1 (1 - s1) - x/2 + x^2/4 gives 3x^2/2 - 2x + 2 s1 (1 - s1) = 0, whose smaller root is
    x = (2 - sqrt(4 - 12 s1 (1 - s1))) / 3 (at s1 = 1/2: x = 1/3, the uniform distribution)."""
    s1 = elo_to_score(100)
    x = (2 - math.sqrt(4 - 12 * s1 * (1 - s1))) / 3
    expected = math.log(x * (s1 - x / 2) * (1 - s1 - x / 2)) - 3 * math.log(1 / 3)
    assert llr([1, 1, 1], 0, 100) == pytest.approx(expected, abs=1e-12)


def test_pentanomial_mle_is_the_constrained_maximum():
    """mle() is feasible (a distribution of the asked mean) and no feasible step from it raises the
    likelihood: the log-likelihood is concave on a convex set, so this local check proves the maximum."""
    rng = np.random.default_rng(3)
    constraints = np.vstack([np.ones(5), PENTANOMIAL_VALUES])
    null = np.linalg.svd(constraints)[2][2:]          # the directions that keep the sum and the mean
    for _ in range(30):
        n = rng.integers(1, 40, 5).astype(float)
        score = rng.uniform(0.2, 0.8)
        p = mle(n, score)
        assert p.sum() == pytest.approx(1, abs=1e-12)
        assert (p * PENTANOMIAL_VALUES).sum() == pytest.approx(score, abs=1e-12)
        assert (p > 0).all()
        best = float((n * np.log(p)).sum())
        for v in rng.normal(size=(50, 3)) @ null:
            step = 1e-4 * v / np.abs(v).max() * p.min()
            for candidate in (p + step, p - step):
                assert (n * np.log(candidate)).sum() < best
        # The LLR is the log-likelihood ratio of the two maxima.
        s0, s1 = elo_to_score(-20), elo_to_score(30)
        assert llr(n, -20, 30) == pytest.approx(float((n * np.log(mle(n, s1) / mle(n, s0))).sum()), abs=1e-9)


def test_the_llr_is_antisymmetric_under_swapping_the_players():
    """A's losses are B's wins: reversing the counts and mirroring the hypotheses negates the LLR."""
    counts = [4, 11, 20, 9, 3]
    assert llr(counts[::-1], -5, 0) == pytest.approx(-llr(counts, 0, 5), abs=1e-12)
    assert llr(counts, 0, 5) < 0 < llr([1, 3, 10, 15, 9], 0, 5)     # more weight above 1/2: towards H1


def test_bounds_and_elo_conversion():
    assert sprt_bounds(0.05, 0.05) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    assert elo_to_score(0) == 0.5 and elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(10 / 11) == pytest.approx(400)
    # A perfect or a null score is clamped to 0.0001 from the end: +-1600 Elo, never infinite.
    assert score_to_elo(1.0) == pytest.approx(1600, abs=0.05) and score_to_elo(0.0) == pytest.approx(-1600, abs=0.05)


@pytest.mark.parametrize("at,decision", [("upper", "H1 accepted"), ("lower", "H0 accepted")])
def test_an_llr_exactly_on_a_bound_decides(monkeypatch, at, decision):
    """H1 is accepted at or above the upper bound, H0 at or below the lower one (SPRT.bounds)."""
    import engine.search.sprt as module
    lower, upper = sprt_bounds(0.05, 0.05)
    monkeypatch.setattr(module, "llr", lambda counts, elo0, elo1: upper if at == "upper" else lower)
    assert SPRT(0, 5).add_pair(1, 0.5) == decision


# -- the incremental API ------------------------------------------------------------------------------
def test_pair_counting_elo_interval_and_json():
    test = SPRT(0, 5)
    for _ in range(30):
        test.add_pair(1, 0.5)                       # 1.5 points
        test.add_pair(0.5, 0.5)                     # 1 point (two draws)
    test.add_pair(1, 0)                             # 1 point (a win and a loss)
    assert test.pentanomial == [0, 0, 31, 30, 0] and test.pairs == 61 and test.games == 122
    assert (test.wins, test.draws, test.losses) == (31, 90, 1)
    # Hand: mean per game 0.5 * 31/61 + 0.75 * 30/61; variance of a pair's mean over the 61 pairs.
    mean = (0.5 * 31 + 0.75 * 30) / 61
    var = (31 * (0.5 - mean) ** 2 + 30 * (0.75 - mean) ** 2) / 61
    half = 1.959963984540054 * math.sqrt(var / 61)
    elo, low, high = test.elo()
    assert elo == pytest.approx(-400 * math.log10(1 / mean - 1))
    assert low == pytest.approx(-400 * math.log10(1 / (mean - half) - 1))
    assert high == pytest.approx(-400 * math.log10(1 / (mean + half) - 1))
    data = json.loads(json.dumps(test.to_json(), allow_nan=False))
    assert data["model"] == "pentanomial" and data["pentanomial"] == [0, 0, 31, 30, 0] and data["trinomial"] is None
    assert data["llr"] == pytest.approx(llr([0, 0, 31, 30, 0], 0, 5)) and data["decision"] == test.status()
    assert data["bounds"] == pytest.approx([-2.944438979, 2.944438979]) and data["wdl"] == [31, 90, 1]
    lines = test.summary().splitlines()
    assert lines[0] == "SPRT (logistic Elo): H0 elo <= 0, H1 elo >= 5, alpha 0.05, beta 0.05"
    assert lines[1].startswith(f"LLR {test.llr():+.3f} (bounds -2.944, +2.944): ")
    assert lines[2].startswith("122 games in 61 pairs, pentanomial 0 0 31 30 0, W 31 D 90 L 1, Elo +")


def test_it_stops_at_the_first_crossing_and_takes_no_more():
    test = SPRT(0, 50)
    statuses = [test.add_pair(1, 1) for _ in range(200) if not test.finished]
    assert statuses[-1] == "H1 accepted" and statuses[:-1] == ["continue"] * (len(statuses) - 1)
    assert test.llr() >= test.bounds()[1]
    with pytest.raises(ValueError, match="has ended"):
        test.add_pair(1, 1)
    lost = SPRT(0, 50)
    while lost.add_game(0) == "continue":
        pass
    assert lost.status() == "H0 accepted" and lost.llr() <= lost.bounds()[0] and lost.model == "trinomial"


def test_max_games_ends_undecided():
    test = SPRT(0, 5, max_games=10)
    statuses = [test.add_pair(1, 0) for _ in range(5)]
    assert statuses == ["continue"] * 4 + ["undecided"] and test.finished and test.games == 10
    assert test.to_json()["decision"] == "undecided" and test.to_json()["max_games"] == 10


def test_bad_input_is_refused_in_one_line():
    with pytest.raises(ValueError, match="elo0 .* must be below elo1"):
        SPRT(5, 0)
    with pytest.raises(ValueError, match="alpha must lie between 0 and 0.5"):
        SPRT(0, 5, alpha=0.7)
    test = SPRT(0, 5)
    with pytest.raises(ValueError, match="score_second must be 0, 0.5 or 1"):
        test.add_pair(1, 0.25)
    test.add_pair(1, 0)
    with pytest.raises(ValueError, match="cannot mix in trinomial"):
        test.add_game(1)
    assert parse_sprt("0,5") == (0.0, 5.0) and parse_sprt("-3.5, 2") == (-3.5, 2.0)
    for bad in ("5", "a,b", "5,0", "1,2,3"):
        with pytest.raises(ValueError, match="--sprt"):
            parse_sprt(bad)


def test_empty_test_reports_nothing_yet():
    test = SPRT(0, 5)
    assert test.llr() == 0.0 and test.status() == "continue" and test.elo() is None
    data = test.to_json()
    assert data["model"] is None and data["elo"] is None and data["games"] == 0
    assert json.dumps(data, allow_nan=False)
