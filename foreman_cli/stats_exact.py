"""Exact null distributions for dealt hands, tail probabilities and corrections for many tests."""

from __future__ import annotations

import math
from functools import lru_cache

# A term of a sum's distribution below this share of its largest is dropped: what is dropped,
# summed over every convolution, stays many orders below the 1e-9 relative error promised.
NEGLIGIBLE = 1e-40


def hypergeom(population: int, successes: int, draws: int) -> list[float]:
    """P(k successes) for k = 0..draws when drawing without replacement."""
    total = math.comb(population, draws)
    return [math.comb(successes, k) * math.comb(population - successes, draws - k) / total
            for k in range(draws + 1)]


@lru_cache(maxsize=8)
def longest_suit(draws: int = 16) -> tuple[float, ...]:
    """P(longest suit = k) for a hand of `draws` cards from 52 (four suits of 13), k = 0..13."""
    out = [0.0] * 14
    total = math.comb(52, draws)
    for a in range(min(13, draws) + 1):
        for b in range(min(13, draws - a) + 1):
            for c in range(min(13, draws - a - b) + 1):
                d = draws - a - b - c
                if d > 13:
                    continue
                ways = math.comb(13, a) * math.comb(13, b) * math.comb(13, c) * math.comb(13, d)
                out[max(a, b, c, d)] += ways / total
    return tuple(out)


def moments(pmf: list[float] | tuple[float, ...]) -> tuple[float, float]:
    """Mean and standard deviation of a distribution on 0, 1, 2, ..."""
    mean = sum(k * p for k, p in enumerate(pmf))
    var = sum((k - mean) ** 2 * p for k, p in enumerate(pmf))
    return mean, math.sqrt(var)


def upper_tail(pmf, n: int, observed_sum: int) -> tuple[float, str]:
    """P(sum of n independent draws from pmf >= observed_sum), and the method used ("exact").

    Exact at any n: the pmf is tilted (exponentially, Esscher) so that the sum's distribution is
    centred on the observed sum, its n-th convolution power is computed by squaring, keeping the
    terms that are not negligible, and the tilt is undone in logarithms. Nothing underflows until
    the answer itself does; no recursion, so no limit on n.
    """
    if n == 0:
        return 1.0, "none"
    probs = [float(x) for x in pmf]
    lo = next(k for k, x in enumerate(probs) if x > 0)
    hi = max(k for k, x in enumerate(probs) if x > 0)
    if observed_sum <= n * lo:
        return 1.0, "exact"
    if observed_sum > n * hi:
        return 0.0, "exact"
    if observed_sum == n * hi:
        return math.exp(n * math.log(probs[hi])), "exact"
    mean = sum(k * x for k, x in enumerate(probs))
    theta = _tilt(probs, observed_sum / n) if observed_sum > n * mean else 0.0
    log_m, tilted = _tilted(probs, theta)
    offset, dist, log_scale = _power(tilted, n)
    start = max(0, observed_sum - offset)
    tail = 0.0
    for i in range(start, len(dist)):
        tail += math.exp(-theta * (offset + i - observed_sum)) * dist[i]
    if tail <= 0.0:
        return 0.0, "exact"
    log_p = n * log_m - theta * observed_sum + log_scale + math.log(tail)
    return min(1.0, math.exp(log_p)) if log_p > -745 else 0.0, "exact"


def _tilted(probs: list[float], theta: float) -> tuple[float, list[float]]:
    """log M(theta) and the pmf tilted by theta (q_k = p_k e^(theta k) / M(theta))."""
    logs = [math.log(x) + theta * k if x > 0 else -math.inf for k, x in enumerate(probs)]
    top = max(logs)
    weights = [math.exp(v - top) for v in logs]
    total = sum(weights)
    return top + math.log(total), [w / total for w in weights]


def _tilt(probs: list[float], target_mean: float) -> float:
    """The theta whose tilted pmf has this mean (bisection: the tilted mean grows with theta)."""
    lo, hi = 0.0, 1.0
    while _tilted_mean(probs, hi) < target_mean:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if _tilted_mean(probs, mid) < target_mean:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _tilted_mean(probs: list[float], theta: float) -> float:
    return sum(k * q for k, q in enumerate(_tilted(probs, theta)[1]))


def _power(pmf: list[float], n: int):
    """The n-fold convolution of pmf as (offset, terms, log scale): term i is the probability of
    offset + i, times e^(log scale). Negligible terms at either end are dropped as it grows."""
    import numpy as np  # the fairness screen only
    base = (0, np.asarray(pmf, dtype=float), 0.0)
    result = (0, np.ones(1), 0.0)
    while True:
        if n & 1:
            result = _convolve(result, base)
        n >>= 1
        if not n:
            return result
        base = _convolve(base, base)


def _convolve(a, b):
    import numpy as np
    terms = np.convolve(a[1], b[1])
    top = terms.max()
    keep = np.nonzero(terms >= top * NEGLIGIBLE)[0]
    first, last = int(keep[0]), int(keep[-1])
    return a[0] + b[0] + first, terms[first:last + 1] / top, a[2] + b[2] + math.log(top)


def normal_sf(z: float) -> float:
    """P(Z >= z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def normal_isf(p: float) -> float:
    """The z with P(Z >= z) = p (bisection; p in (0, 1))."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if normal_sf(mid) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def holm(ps: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error), in the input order."""
    m = len(ps)
    order = sorted(range(m), key=ps.__getitem__)
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


def benjamini_hochberg(ps: list[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (false discovery rate), in the input order."""
    m = len(ps)
    order = sorted(range(m), key=ps.__getitem__, reverse=True)
    out = [0.0] * m
    running = 1.0
    for rank, i in enumerate(order):
        running = min(running, ps[i] * m / (m - rank))
        out[i] = running
    return out


def deals_needed(edge: float, sd: float, alpha: float, power: float = 0.9) -> int | None:
    """Deals needed to see a mean edge of `edge` per deal (one-sided, at alpha, with this power)."""
    if edge <= 0 or sd <= 0:
        return None
    z = normal_isf(alpha) + normal_isf(1 - power)
    return math.ceil((z * sd / edge) ** 2)
