"""How a record of the play proves a finding (docs/game.md §13): where it put a card, as evidence and in words."""

from __future__ import annotations

from typing import Any

# Where a record of the play put a card (docs/game.md §13), the proof of a finding without hands:
# ("trick", n, player), ("discard",), ("pass", n, holder), ("kitty", dealer) or ("left", player).
Proof = tuple


def proof_json(proof: Proof) -> Any:
    """A proof as the evidence writes it: {"trick": 3, "player": "bob"}, "discard", {"pass": 2}, "kitty", {"left": "bob"}."""
    if proof[0] == "trick":
        return {"trick": proof[1], "player": proof[2]}
    return {proof[0]: proof[1]} if proof[0] in ("pass", "left") else proof[0]


def proof_words(proof: Proof) -> str:
    """A proof in words: where the record put the card."""
    return {"trick": lambda: f"{proof[2]} played it at trick {proof[1]}",
            "discard": lambda: "it was set aside as a discard",
            "pass": lambda: f"pass {proof[1]} put it in {proof[2]}'s hand",
            "kitty": lambda: f"it was in the kitty, taken by {proof[1]}",
            "left": lambda: f"it is among {proof[1]}'s cards left"}[proof[0]]()


def proved_evidence(finding: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    """The evidence of a finding that may be proved from the play alone: the fields known, and `proved_by`."""
    out = {name: list(v) if isinstance(v := getattr(finding, name), tuple) else v for name in fields
           if getattr(finding, name) is not None}
    if finding.proved_by is not None:
        out["proved_by"] = proof_json(finding.proved_by)
    return out


def held_words(proofs: tuple[tuple[str, int | str], ...], player: str) -> str:
    """Cards a player is proved to have held, each with its proof: '9H (played at trick 9) and KH
    (among bob's cards left)'."""
    words = [f"{card} (among {player}'s cards left)" if at == "left" else f"{card} (played at trick {at})"
             for card, at in proofs]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def held_json(proofs: tuple[tuple[str, int | str], ...]) -> list[dict[str, Any]]:
    return [{"card": card, "trick": at} for card, at in proofs]
