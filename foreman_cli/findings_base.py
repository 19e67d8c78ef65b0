"""A finding's shape (its place, words and JSON) and the registry that each code's class joins."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec


ERROR = "error"
WARNING = "warning"


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    """One breach (or warning) and where it is; a subclass per code says what it means (its class
    attributes: the registry entry) and words it from its own fields (`message`, `evidence`).
    `disputes`: takes the game out of the settlement; `cross_game`: found across games; `shown_at`:
    where a view puts it; `leaves_out`: the record takes part in nothing else."""

    code: ClassVar[str]
    severity: ClassVar[str] = ERROR
    title: ClassVar[str]
    rule: ClassVar[str]
    shows: ClassVar[str]  # what the evidence holds, in words
    sample: ClassVar[dict[str, Any]]  # fields of the example in `foreman codes`
    disputes: ClassVar[bool] = True
    cross_game: ClassVar[bool] = False
    shown_at: ClassVar[str] = "place"
    leaves_out: ClassVar[bool] = False
    injectable: ClassVar[bool] = False

    deal: int | None = None
    trick: int | None = None
    pass_: int | None = None
    player: str | None = None
    card: str | None = None
    path: str | None = None

    evidence_fields: ClassVar[tuple[str, ...]] = ()  # the fields its evidence holds

    message: ClassVar[str]  # each code's class words it from its fields, as a property

    @property
    def evidence(self) -> dict[str, Any]:
        return {name: list(v) if isinstance(v := getattr(self, name), tuple) else v for name in self.evidence_fields}

    @property
    def place(self) -> str:
        """The place in words: 'deal 2, trick 7' (empty when the finding has none)."""
        places = (("deal", self.deal), ("pass", self.pass_), ("trick", self.trick))
        return ", ".join(f"{word} {n}" for word, n in places if n is not None)

    def text(self) -> str:
        """One line: place, message and code."""
        return ": ".join(filter(None, (self.place, f"{self.message} ({self.code})")))

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data (the `violations` entries of `validate --json`)."""
        return {"code": self.code, "severity": self.severity, "deal": self.deal, "trick": self.trick,
                "pass": self.pass_, "player": self.player, "card": self.card, "path": self.path,
                "message": self.message, "evidence": self.evidence}

    @classmethod
    def example(cls) -> str:
        """The code's example line, made from its sample fields."""
        return cls(**cls.sample).text()


CODES: dict[str, type[Finding]] = {}


def register(code: str, title: str, **meta: Any):
    """Make a class (a frozen Struct of its fields, as Finding is) the finding of this code: its registry entry."""
    def make(cls: type[Finding]) -> type[Finding]:
        cls.code, cls.title = code, title
        for name, value in meta.items():
            setattr(cls, name, value)
        CODES[code] = cls
        return cls
    return make
