"""Exact null distributions for dealt hands, tail probabilities and corrections for many tests."""

from __future__ import annotations

import math
from functools import lru_cache

EXACT_SUPPORT = 6000  # a sum over deals is convolved exactly while its support stays this short


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
    """P(sum of n independent draws from pmf >= observed_sum), and the method used."""
    if n == 0:
        return 1.0, "none"
    if n * (len(pmf) - 1) <= EXACT_SUPPORT:
        tails = _tails(tuple(pmf), n)
        return (tails[observed_sum] if observed_sum < len(tails) else 0.0), "exact"
    mean, sd = moments(pmf)
    z = (observed_sum - 0.5 - n * mean) / (sd * math.sqrt(n))  # with a continuity correction
    return normal_sf(z), "normal"


@lru_cache(maxsize=4096)
def _sum_dist(pmf: tuple[float, ...], n: int) -> tuple[float, ...]:
    """The distribution of the sum of n independent draws from pmf (exact convolution)."""
    if n == 0:
        return (1.0,)
    prev = _sum_dist(pmf, n - 1)
    out = [0.0] * (len(prev) + len(pmf) - 1)
    for i, a in enumerate(prev):
        if a:
            for j, b in enumerate(pmf):
                out[i + j] += a * b
    return tuple(out)


@lru_cache(maxsize=1024)
def _tails(pmf: tuple[float, ...], n: int) -> tuple[float, ...]:
    """P(sum >= k) for every k, from the exact distribution."""
    dist = _sum_dist(pmf, n)
    tails = [0.0] * len(dist)
    run = 0.0
    for k in range(len(dist) - 1, -1, -1):
        run += dist[k]
        tails[k] = min(1.0, max(0.0, run))
    return tuple(tails)


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
