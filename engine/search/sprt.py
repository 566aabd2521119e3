"""Sequential probability ratio test (SPRT) of a strength change, as fishtest decides what lands
(docs/sprt.md).

The test asks whether engine A is at least ``elo1`` stronger than B (H1) or at most ``elo0`` (H0), in
**logistic Elo**: an Elo difference ``e`` means an expected score per game of
``1 / (1 + 10 ** (-e / 400))`` (draws count half). It watches the log-likelihood ratio (LLR) of the two
hypotheses game by game and stops as soon as the LLR leaves Wald's bounds
``lower = log(beta / (1 - alpha))`` and ``upper = log((1 - beta) / alpha)``: at or below ``lower`` H0 is
accepted, at or above ``upper`` H1 is. alpha is the chance of accepting H1 when Elo = elo0 (a false
gain), beta the chance of accepting H0 when Elo = elo1 (a missed gain); both are 0.05 by default.

**Two models of the observations.**

- *Pentanomial* (:meth:`SPRT.add_pair`): games come in pairs from one opening with the colours
  swapped. A pair scores 0, 0.5, 1, 1.5 or 2 for A (two losses; a loss and a draw; two draws or a win
  and a loss; a win and a draw; two wins); the counts of the five are the observations, and a pair's
  value is its mean score per game (0, 1/4, 1/2, 3/4, 1). A pair cancels most of the opening's bias,
  so its variance is smaller than that of two lone games and the test decides sooner.
- *Trinomial* (:meth:`SPRT.add_game`): unpaired games, each a loss, a draw or a win (0, 1/2, 1).

One test uses one model: the first observation fixes it, and a mixed call is refused.

**The log-likelihood ratio** is the generalized SPRT's (GSPRT, as fishtest computes it after Michel
Van den Bergh's notes on the subject). The observations are counts ``n_k`` of outcomes with values
``a_k``; the distribution ``p`` over the outcomes is unknown, so each hypothesis ``H_i`` (mean score
``s_i`` = the expected score of ``elo_i``) is represented by the maximum-likelihood distribution among
those of mean ``s_i``. With ``N = sum n_k``, ``q_k = n_k / N`` and ``d_k = a_k - s``, the Lagrange
conditions give that distribution as ``p_k = q_k / (1 + lam * d_k)`` where ``lam`` is the root of
``sum q_k d_k / (1 + lam d_k) = 0`` with every ``1 + lam d_k > 0`` (a decreasing function of ``lam`` on
that interval, so the root is unique). Then

    LLR = sum_k n_k log(p1_k / p0_k) = sum_k n_k [log(1 + lam0 d0_k) - log(1 + lam1 d1_k)].

An outcome not seen yet counts as 0.001 of an observation in the LLR (fishtest does the same), so the
maximum-likelihood distribution exists from the first observation; every count reported is exact.

**Elo estimate**: the mean score per game ``m = sum q_k a_k`` with the 95% normal interval
``m +- 1.96 sqrt(var / N)``, ``var = sum q_k (a_k - m) ** 2`` the variance of one observation (a pair's
mean with the pentanomial model, so the pairing's smaller variance shows), each turned into logistic
Elo; a score of 0 or 1 is clamped to 0.0001 from its end (+-1600 Elo), as engine/search/match.py does.

**Stopping**: once a bound is crossed the decision is final and the test takes no more observations
(a runner stops scheduling games; games already running when it decided are not counted). With
``max_games`` the test ends ``undecided`` when that many games are counted without a decision.

Game-free (engine/search): the runners (engine/search/match.py, tools/vs_fairy_stockfish.py) and the
training loop's gate feed it scores."""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

__all__ = ["SPRT", "PENTANOMIAL_VALUES", "TRINOMIAL_VALUES", "DECISIONS", "elo_to_score", "score_to_elo",
           "sprt_bounds", "mle", "llr", "parse_sprt", "sprt_option", "error_rate",
           "add_sprt_options"]

#: Mean score per game of each pentanomial outcome: a pair scoring 0, 0.5, 1, 1.5, 2 of its 2 points.
PENTANOMIAL_VALUES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
#: Score of each trinomial outcome: loss, draw, win.
TRINOMIAL_VALUES = np.array([0.0, 0.5, 1.0])
#: The decisions :meth:`SPRT.status` names.
DECISIONS = ("H1 accepted", "H0 accepted", "continue", "undecided")
#: What an outcome never seen counts as in the LLR (fishtest's regularisation).
EMPTY_CELL = 1e-3
#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054
_VALID_SCORES = (0.0, 0.5, 1.0)


def elo_to_score(elo: float) -> float:
    """Expected score per game of a logistic Elo difference: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Logistic Elo difference of a score per game (clamped to 0.0001 from 0 and 1: +-1600 Elo)."""
    p = min(max(score, 1e-4), 1 - 1e-4)
    return -400.0 * math.log10(1.0 / p - 1.0)


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's bounds on the LLR: (log(beta / (1 - alpha)), log((1 - beta) / alpha))."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _values_for(k: int) -> np.ndarray:
    if k == 5:
        return PENTANOMIAL_VALUES
    if k == 3:
        return TRINOMIAL_VALUES
    raise ValueError(f"SPRT counts have 5 (pentanomial) or 3 (trinomial) outcomes, not {k}")


def _lagrange(q: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The root ``lam`` of f(lam) = sum_k q_k d_k / (1 + lam d_k) = 0 over the last axis (q > 0,
    min d < 0 < max d). f decreases from +inf to -inf between its two poles lo = -1/max d and
    hi = -1/min d, so the root is unique there; Newton's method is run on F = f (1 + lam max d)
    (1 + lam min d), which has the same root but no pole in the bracket (when a cell seen rarely pulls
    the root next to a pole, Newton on f itself crawls), kept inside the shrinking bracket (bisection
    where Newton would leave it)."""
    top, bottom = d.max(axis=-1), d.min(axis=-1)
    lo, hi = -1.0 / top, -1.0 / bottom
    lam = np.zeros(q.shape[:-1])
    for _ in range(200):
        w = 1.0 + lam[..., None] * d
        f = (q * d / w).sum(axis=-1)
        fp = -(q * d * d / (w * w)).sum(axis=-1)
        a, b = 1.0 + lam * top, 1.0 + lam * bottom
        big_f = f * a * b
        big_fp = fp * a * b + f * (top * b + bottom * a)
        lo = np.where(f > 0, lam, lo)          # f decreases: the root lies above lam where f > 0
        hi = np.where(f > 0, hi, lam)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = lam - big_f / big_fp
        inside = ((step > lo) & (step < hi)) | (step == lam)     # step == lam: converged onto a bracket end
        new = np.where(inside, step, 0.5 * (lo + hi))
        done = np.abs(new - lam) <= 1e-14 * (1.0 + np.abs(lam))
        lam = new
        if np.all(done | (f == 0)):
            break
    return lam


def _regularised(counts: Any) -> np.ndarray:
    n = np.asarray(counts, dtype=float)
    return np.where(n > 0, n, EMPTY_CELL)


def mle(counts: Any, score: float) -> np.ndarray:
    """The maximum-likelihood distribution over the outcomes (pentanomial: 5 counts, trinomial: 3,
    last axis) among those of mean score ``score`` (0 < score < 1); an empty outcome counts as 0.001."""
    n = _regularised(counts)
    values = _values_for(n.shape[-1])
    q = n / n.sum(axis=-1, keepdims=True)
    d = values - score
    lam = _lagrange(q, np.broadcast_to(d, q.shape))
    return q / (1.0 + lam[..., None] * d)


def llr(counts: Any, elo0: float, elo1: float) -> np.ndarray | float:
    """The GSPRT log-likelihood ratio of H1 (logistic Elo ``elo1``) over H0 (``elo0``) given the outcome
    counts on the last axis (5: pentanomial pairs 0..2 points; 3: trinomial losses, draws, wins).
    Vectorised: an array of count vectors gives an array of LLRs. No observation: 0."""
    raw = np.asarray(counts, dtype=float)
    n = _regularised(raw)
    values = _values_for(n.shape[-1])
    total = n.sum(axis=-1, keepdims=True)
    q = n / total
    out = np.zeros(q.shape[:-1])
    for score, sign in ((elo_to_score(elo0), 1.0), (elo_to_score(elo1), -1.0)):
        d = np.broadcast_to(values - score, q.shape)
        lam = _lagrange(q, d)
        out += sign * (n * np.log1p(lam[..., None] * d)).sum(axis=-1)
    out = np.where(raw.sum(axis=-1) > 0, out, 0.0)
    return float(out) if out.ndim == 0 else out


def _hypotheses(text: str) -> tuple[float, float] | str:
    """``"ELO0,ELO1"`` as two floats, or what is wrong with it."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        elo0, elo1 = float(parts[0]), float(parts[1])
    except ValueError:
        return f"expected ELO0,ELO1 (two numbers, e.g. 0,5), got {text!r}"
    if not (math.isfinite(elo0) and math.isfinite(elo1)) or elo0 >= elo1:
        return f"ELO0 must be below ELO1 (both finite), got {text!r}"
    return elo0, elo1


def parse_sprt(text: str) -> tuple[float, float]:
    """``"ELO0,ELO1"`` (the runners' --sprt) as two floats with ELO0 < ELO1; a clear one-line
    ValueError else."""
    parsed = _hypotheses(text)
    if isinstance(parsed, str):
        raise ValueError(f"--sprt: {parsed}")
    return parsed


def sprt_option(text: str) -> tuple[float, float]:
    """An argparse type for the runners' ``--sprt ELO0,ELO1`` (:func:`parse_sprt`)."""
    parsed = _hypotheses(text)
    if isinstance(parsed, str):
        raise argparse.ArgumentTypeError(parsed)
    return parsed


def error_rate(text: str) -> float:
    """An argparse type for ``--sprt-alpha`` and ``--sprt-beta``: a number strictly between 0 and 0.5."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 0.5 (exclusive), got {text}")
    return value


def add_sprt_options(parser: argparse.ArgumentParser, subject: str, default: tuple[float, float] | None = None,
                     alpha: float | None = None, beta: float | None = None, prefix: str = "") -> None:
    """The runners' three options (`ftc match`, `ftc nnue-loop`, tools/vs_fairy_stockfish.py):
    ``--sprt ELO0,ELO1`` (``subject``: whose logistic Elo over whom), ``--sprt-alpha`` and
    ``--sprt-beta``; ``default``, ``alpha``, ``beta``: their defaults (None: no test unless asked,
    the rates 0.05); ``prefix`` starts each help text ("gate: ")."""
    parser.add_argument("--sprt", type=sprt_option, default=default, metavar="ELO0,ELO1",
                        help=f"{prefix}an SPRT of H0 elo<=ELO0 against H1 elo>=ELO1 (logistic Elo of {subject}) "
                             "on game pairs, stopping as soon as it decides "
                             + (f"(default {default[0]:g},{default[1]:g}; " if default else "(")
                             + "docs/sprt.md)")
    parser.add_argument("--sprt-alpha", type=error_rate, default=alpha, metavar="P",
                        help=f"{prefix}the SPRT's chance of accepting H1 when Elo = ELO0 (default {alpha or 0.05:g})")
    parser.add_argument("--sprt-beta", type=error_rate, default=beta, metavar="P",
                        help=f"{prefix}the SPRT's chance of accepting H0 when Elo = ELO1 (default {beta or 0.05:g})")


class SPRT:
    """An SPRT of H0: Elo <= ``elo0`` against H1: Elo >= ``elo1`` (logistic Elo of A over B), fed game
    pairs (:meth:`add_pair`, pentanomial) or single games (:meth:`add_game`, trinomial), deciding as
    soon as the LLR crosses a bound (see the module's notes). ``max_games`` (optional) ends the test
    undecided when that many games are counted."""

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
                 max_games: int | None = None) -> None:
        if not (math.isfinite(elo0) and math.isfinite(elo1)) or elo0 >= elo1:
            raise ValueError(f"SPRT: elo0 ({elo0}) must be below elo1 ({elo1})")
        for name, value in (("alpha", alpha), ("beta", beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"SPRT: {name} must lie between 0 and 0.5, not {value}")
        if max_games is not None and max_games < 1:
            raise ValueError(f"SPRT: max_games must be at least 1, not {max_games}")
        self.elo0, self.elo1, self.alpha, self.beta = float(elo0), float(elo1), float(alpha), float(beta)
        self.max_games = max_games
        self.model: str | None = None          # "pentanomial" or "trinomial", fixed by the first observation
        self.pentanomial = [0, 0, 0, 0, 0]     # pairs scoring 0, 0.5, 1, 1.5, 2 points for A
        self.trinomial = [0, 0, 0]             # unpaired games: losses, draws, wins of A
        self.wins = self.draws = self.losses = 0   # every game counted, paired or not
        self._decision = "continue"
        self._llr = 0.0

    def design(self) -> list[float]:
        """What the test is, ``[elo0, elo1, alpha, beta]``: the key a journal's header names it by
        (engine/journal.py), so that a run resumes only the same test.

        >>> SPRT(0, 10).design()
        [0.0, 10.0, 0.05, 0.05]
        """
        return [self.elo0, self.elo1, self.alpha, self.beta]

    # -- observations --------------------------------------------------------------------------------
    def _check(self, model: str) -> None:
        if self.finished:
            raise ValueError(f"SPRT: the test has ended ({self._decision}); it takes no more games")
        if self.model is not None and self.model != model:
            raise ValueError(f"SPRT: this test counts {self.model} observations; it cannot mix in {model} ones")
        self.model = model

    @staticmethod
    def _score(score: float, what: str) -> float:
        s = float(score)
        if s not in _VALID_SCORES:
            raise ValueError(f"SPRT: {what} must be 0, 0.5 or 1 (A's score in a two-player game), not {score!r}")
        return s

    def _count_game(self, s: float) -> None:
        if s == 1.0:
            self.wins += 1
        elif s == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    def add_pair(self, score_first: float, score_second: float) -> str:
        """Count a pair of games from one opening with the colours swapped: A's score in each (0, 0.5,
        1). Returns the decision after it (:meth:`status`)."""
        a = self._score(score_first, "score_first")
        b = self._score(score_second, "score_second")
        self._check("pentanomial")
        self.pentanomial[round(2 * (a + b))] += 1
        self._count_game(a)
        self._count_game(b)
        return self._update()

    def add_game(self, score: float) -> str:
        """Count one unpaired game: A's score (0, 0.5, 1). Returns the decision after it."""
        s = self._score(score, "score")
        self._check("trinomial")
        self.trinomial[round(2 * s)] += 1
        self._count_game(s)
        return self._update()

    def _update(self) -> str:
        self._llr = float(llr(self.counts(), self.elo0, self.elo1))
        lower, upper = self.bounds()
        if self._llr >= upper:
            self._decision = "H1 accepted"
        elif self._llr <= lower:
            self._decision = "H0 accepted"
        elif self.max_games is not None and self.games >= self.max_games:
            self._decision = "undecided"
        return self._decision

    # -- the test's state ----------------------------------------------------------------------------
    def counts(self) -> list[int]:
        """The counts the LLR is computed from: pentanomial (5) or trinomial (3)."""
        return list(self.pentanomial if self.model == "pentanomial" else self.trinomial)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    @property
    def finished(self) -> bool:
        """A bound was crossed or ``max_games`` reached."""
        return self._decision != "continue"

    def llr(self) -> float:
        """The log-likelihood ratio after the games counted (0 before any)."""
        return self._llr

    def bounds(self) -> tuple[float, float]:
        """(lower, upper): H0 is accepted at or below lower, H1 at or above upper."""
        return sprt_bounds(self.alpha, self.beta)

    def status(self) -> str:
        """"H1 accepted", "H0 accepted", "continue" or "undecided" (``max_games`` reached first)."""
        return self._decision

    def score(self) -> float | None:
        """A's mean score per game (None before any game)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else None

    def elo(self) -> tuple[float, float, float] | None:
        """(Elo, low, high): logistic Elo of A over B with its 95% interval (None before any game)."""
        raw = np.array(self.counts(), dtype=float)
        n = raw.sum()
        if n == 0:
            return None
        values = _values_for(len(raw))
        q = raw / n
        mean = float((q * values).sum())
        half = Z95 * math.sqrt(float((q * (values - mean) ** 2).sum()) / n)
        return score_to_elo(mean) + 0.0, score_to_elo(mean - half) + 0.0, score_to_elo(mean + half) + 0.0  # no -0.0

    def to_json(self) -> dict:
        """The test as a JSON-ready dict (schema in docs/sprt.md): elo0, elo1, alpha, beta, elo_model
        ("logistic"), model ("pentanomial", "trinomial" or None before any game), llr, bounds [lower,
        upper], decision, games, pairs (pentanomial; else None), pentanomial [5 counts] (pairs scoring
        0, 0.5, 1, 1.5, 2) or None, trinomial [losses, draws, wins] or None, wdl [wins, draws,
        losses] over every game, score, elo and elo_ci95 [low, high] (None before any game),
        max_games. The LLR is rounded to 6 decimals and the Elo figures to 3, so that a report does
        not change with the last bits of the arithmetic."""
        elo = self.elo()
        return {
            "elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "elo_model": "logistic",
            "model": self.model, "llr": round(self._llr, 6), "bounds": list(self.bounds()), "decision": self._decision,
            "games": self.games, "pairs": self.pairs if self.model == "pentanomial" else None,
            "pentanomial": list(self.pentanomial) if self.model == "pentanomial" else None,
            "trinomial": list(self.trinomial) if self.model == "trinomial" else None,
            "wdl": [self.wins, self.draws, self.losses], "score": self.score(),
            "elo": None if elo is None else round(elo[0], 3),
            "elo_ci95": None if elo is None else [round(elo[1], 3), round(elo[2], 3)],
            "max_games": self.max_games,
        }

    def summary(self) -> str:
        """The test in three lines of text: hypotheses, LLR with bounds and decision, counts with Elo."""
        lower, upper = self.bounds()
        lines = [f"SPRT (logistic Elo): H0 elo <= {self.elo0:g}, H1 elo >= {self.elo1:g}, "
                 f"alpha {self.alpha:g}, beta {self.beta:g}",
                 f"LLR {self._llr:+.3f} (bounds {lower:+.3f}, {upper:+.3f}): {self._decision}"]
        if self.model == "pentanomial":
            counted = f"{self.games} games in {self.pairs} pairs, pentanomial {' '.join(map(str, self.pentanomial))}"
        else:
            counted = f"{self.games} games (unpaired)"
        elo = self.elo()
        estimate = ("" if elo is None else
                    f", Elo {elo[0]:+.1f} (95% {elo[1]:+.1f} to {elo[2]:+.1f})")
        lines.append(f"{counted}, W {self.wins} D {self.draws} L {self.losses}{estimate}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"SPRT({self.elo0:g}, {self.elo1:g}, llr={self._llr:+.3f}, {self._decision})"
