"""Exact money: stakes and amounts as Decimal in a context that refuses to round."""

from __future__ import annotations

import functools
from decimal import Context, Decimal, Inexact, InvalidOperation, Rounded

# Amounts are at most 40 characters (records.AMOUNT_MAX), so this precision is never reached by
# the sums foreman makes; the traps turn any rounding into a loud failure instead of a wrong sum.
EXACT = Context(prec=200, traps=[Inexact, Rounded, InvalidOperation])
ZERO = Decimal(0)


@functools.lru_cache(maxsize=4096)  # a season of games has a handful of stakes; a Decimal never changes
def amount(text: str) -> Decimal:
    """Parse an amount string already checked by the record schema ('1.00', '0.5', '12')."""
    return EXACT.create_decimal(text)


def add(a: Decimal, b: Decimal) -> Decimal:
    """Add two amounts exactly."""
    return EXACT.add(a, b)


_SMALL = {k: Decimal(k) for k in range(-4, 5)}


def times(a: Decimal, k: int) -> Decimal:
    """Multiply an amount by a whole number exactly."""
    return EXACT.multiply(a, _SMALL.get(k) or Decimal(k))


def total(values) -> Decimal:
    """Sum amounts exactly."""
    s = ZERO
    for v in values:
        s = EXACT.add(s, v)
    return s


def fmt(a: Decimal) -> str:
    """Format an amount as plain digits, keeping its decimal places; zero has no sign."""
    if a.is_zero():
        a = a.copy_abs()
    return format(a, "f")


# Only for DuckDB's DECIMAL(38, 10) columns, which hold a rounded copy beside the exact text.
TEN_PLACES = Decimal("1E-10")
ROUNDING = Context(prec=60)


def signed(v: Decimal) -> str:
    """An amount for people, with its sign always shown: '+4.00', '-2.00', '0'."""
    s = fmt(v)
    return s if s.startswith("-") or v.is_zero() else "+" + s
