"""The rate limiter of engine/interfaces/server/guard.py on a clock of its own (``take(now=...)``): a
token bucket per client that refills at ``rate`` per second and never holds more than ``burst``."""

import pytest

from engine.interfaces.server.guard import RateLimiter

RATE, BURST = 2.0, 5         # full again after BURST / RATE = 2.5 s


def granted(limiter, key, now, tries):
    """How many of ``tries`` requests at the instant ``now`` go through."""
    return sum(limiter.take(key, now=now) == 0.0 for _ in range(tries))


def test_a_new_client_gets_exactly_its_burst():
    limiter = RateLimiter(RATE, BURST)
    assert granted(limiter, "a", 100.0, BURST + 3) == BURST
    assert limiter.take("a", now=100.0) == pytest.approx(1 / RATE)      # one token is 0.5 s away


@pytest.mark.parametrize("idle", [BURST / RATE + 0.5, 60.0, 86_400.0])
def test_an_idle_bucket_is_capped_at_its_burst(idle):
    # After an idle time longer than BURST / RATE the bucket is full, and full means BURST tokens:
    # the idle time beyond that buys nothing.
    limiter = RateLimiter(RATE, BURST)
    assert granted(limiter, "a", 0.0, BURST) == BURST                 # emptied
    assert granted(limiter, "a", idle, 10 * BURST) == BURST
    assert limiter.take("a", now=idle) > 0


def test_a_partly_refilled_bucket_gives_what_the_rate_earned():
    limiter = RateLimiter(RATE, BURST)
    granted(limiter, "a", 0.0, BURST)
    assert granted(limiter, "a", 1.0, BURST) == 2                      # 1 s at 2 per second
    assert limiter.take("a", now=1.25) == pytest.approx(0.25)          # half a token earned so far


def test_clients_have_buckets_of_their_own():
    limiter = RateLimiter(RATE, BURST)
    granted(limiter, "a", 0.0, BURST)
    assert granted(limiter, "b", 0.0, BURST + 1) == BURST
