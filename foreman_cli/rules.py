"""House options (docs/game.md): their values, defaults, and the `--rule KEY=VALUE` overrides."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

from .errors import UsageError

# The choices per option; the first is the default (target is an integer, handled apart).
CHOICES: dict[str, tuple[str, ...]] = {
    "quota": ("8-5-3", "9-5-2"),
    "return_rule": ("highest", "higher"),
    "kitty": ("swap", "pickup"),
    "deal_rotation": ("left", "free"),
    "next_dealer": ("winner-or-loser", "winner", "loser", "free"),
    "claim_rule": ("any-order", "best-play"),
}
TARGET_RANGE = (1, 16)
# Quotas indexed by role: D, L, R.
QUOTAS = {"8-5-3": (8, 5, 3), "9-5-2": (9, 5, 2)}


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The house options a game is replayed under."""

    quota: str = "8-5-3"
    target: int = 12
    return_rule: str = "highest"
    kitty: str = "swap"
    deal_rotation: str = "left"
    next_dealer: str = "winner-or-loser"
    claim_rule: str = "any-order"

    @property
    def quotas(self) -> tuple[int, int, int]:
        """Quota by role (D, L, R)."""
        return QUOTAS[self.quota]

    def as_dict(self) -> dict[str, Any]:
        """Return the options as a plain dict (shared: do not change it)."""
        return _as_dict(self)

    def with_overrides(self, overrides: dict[str, Any]) -> "HouseRules":
        """Return these rules with some options replaced."""
        return replace(self, **overrides) if overrides else self


@lru_cache(maxsize=64)
def _as_dict(rules: HouseRules) -> dict[str, Any]:
    return {f.name: getattr(rules, f.name) for f in fields(rules)}



def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    """Parse `KEY=VALUE` strings into house-option overrides; refuse unknown keys and values."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key, value = key.strip().replace("-", "_"), value.strip()
        if not sep:
            raise UsageError(f"--rule {item!r}: write KEY=VALUE, e.g. --rule quota=9-5-2")
        if key == "target":
            lo, hi = TARGET_RANGE
            if not value.isdigit() or not lo <= int(value) <= hi:
                raise UsageError(f"--rule {item!r}: target must be a whole number from {lo} to {hi}")
            out[key] = int(value)
        elif key in CHOICES:
            if value not in CHOICES[key]:
                raise UsageError(f"--rule {item!r}: {key} must be one of {', '.join(CHOICES[key])}")
            out[key] = value
        else:
            keys = ", ".join(["quota", "target", *[k for k in CHOICES if k != "quota"]])
            raise UsageError(f"--rule {item!r}: unknown house option {key!r}; known: {keys}")
    return out
