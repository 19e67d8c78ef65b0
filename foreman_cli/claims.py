"""Claims of the remaining tricks (docs/game.md §12): the tricks a claim covers, its verdict and the line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import core
from .board import TRICKS_PER_DEAL, Board, card_in_two_hands, trick_winner
from .cards import CANONICAL
from .findings import ClaimDoubtful, ClaimRefuted, Finding
from .solver import as_tricks


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """A deal's claim as replayed: who, how many tricks it covered, and whether it holds.

    `holds` is None when the position could not be judged, and `not_judged` says why: a hand
    holding two copies of a card, or two hands one card (possible only after a breach of the deal
    or a pass), or a record of the play that does not show the hands. The tricks are credited
    either way.
    """

    by: int
    accepted: bool
    first_trick: int
    tricks: int
    rule: str
    holds: bool | None
    line: tuple[tuple[int, ...], ...] | None = None
    statement: str | None = None
    not_judged: str | None = None

    def line_names(self) -> list[list[str]] | None:
        """The refuting line as canonical tokens, one list per trick."""
        return None if self.line is None else [[CANONICAL[c] for c in t] for t in self.line]


def covered(sizes: list[int], tally: int, recorded: int, target: int) -> int:
    """The tricks a claim covers: until the claimer's target, the 16th trick, or a hand runs out."""
    return max(0, min(target - tally, TRICKS_PER_DEAL - recorded, min(sizes)))


def adjudicate(masks: list[int], sizes: list[int], by: int, accepted: bool, statement: str | None, leader: int,
               tallies: list[int], recorded: int, target: int, rule: str) -> ClaimResult:
    """Judge a claim by seat `by` after `recorded` tricks, from the hands as replayed.

    `sizes` counts each hand's cards with their extra copies; hands that are no deal of one deck
    (not_one_deck) are not judged.
    """
    covering = covered(sizes, tallies[by], recorded, target)
    holds: bool | None = True
    line = None
    if covering and (why := not_one_deck(masks, sizes)) is not None:
        return ClaimResult(by, accepted, recorded + 1, covering, rule, None, None, statement, why)
    if covering:
        board = Board(masks, leader, tallies, recorded, target)
        cards = core.claim_line(board, by, covering, rule == "best-play")
        if cards is not None:
            holds = False
            line = tuple(tuple(t) for t in as_tricks(board, cards))
    return ClaimResult(by, accepted, recorded + 1, covering, rule, holds, line, statement)


TWO_COPIES = "a hand holds two copies of a card"
NOT_RECORDED = "the hands are not recorded"
LEFT_UNEVEN = "the cards left do not complete the hands"  # a left short of the cards in a hand, or over


def not_one_deck(masks: list[int], sizes: list[int]) -> str | None:
    """Why hands (`sizes`: their cards with extra copies) are no deal of one deck, or None. The search
    counts each card once, so such hands are neither judged nor analysed."""
    if any(n != m.bit_count() for n, m in zip(sizes, masks)):
        return TWO_COPIES
    shared = card_in_two_hands(masks)
    return None if shared is None else f"two hands hold {CANONICAL[shared]}"


def unjudged(by: int, accepted: bool, statement: str | None, tallies: list[int], recorded: int, rules: Any,
             why: str) -> ClaimResult:
    """A claim that cannot be judged (`why`): credited as claimed, with no finding."""
    left = TRICKS_PER_DEAL - recorded
    covering = covered([left, left, left], tallies[by], recorded, rules.target)
    return ClaimResult(by, accepted, recorded + 1, covering, rules.claim_rule, None, None, statement, why)


def finding(judged: ClaimResult, players: tuple[str, ...], deal: int, leader: int) -> Finding | None:
    """CLAIM_REFUTED (contested) or CLAIM_DOUBTFUL (accepted) for a claim that fails; None if it holds."""
    if judged.holds is not False:
        return None
    who = players[judged.by]
    lost = judged.line[-1]
    # The claimer won every trick of the line before the last, so he led each of them.
    lead_seat = leader if len(judged.line) == 1 else judged.by
    winner = trick_winner(lead_seat, list(lost))
    stop_card = CANONICAL[lost[(winner - lead_seat) % 3]]
    last_trick = judged.first_trick + len(judged.line) - 1
    if winner == lead_seat:
        how = f"{players[winner]} leads {stop_card} and wins trick {last_trick}"
    else:
        how = (f"{players[winner]} wins trick {last_trick} with {stop_card} after {players[lead_seat]} leads "
               f"{CANONICAL[lost[0]]}")
    kind = ClaimDoubtful if judged.accepted else ClaimRefuted
    return kind(deal=deal, trick=judged.first_trick, player=who, tricks_claimed=judged.tricks, accepted=judged.accepted,
                claim_rule=judged.rule, stopper=players[winner], stopped_at=last_trick, how=how,
                line=tuple(map(tuple, judged.line_names())),
                line_words=_line_words(judged, players, leader))


def _line_words(judged: ClaimResult, players: tuple[str, ...], leader: int) -> str:
    parts = []
    ld = leader
    for i, t in enumerate(judged.line):
        cards = " ".join(f"{players[(ld + j) % 3]} {CANONICAL[x]}" for j, x in enumerate(t))
        parts.append(f"trick {judged.first_trick + i}: {cards}")
        ld = judged.by
    return "; ".join(parts)


def describe(by: str, first: int, tricks: int, accepted: bool, rule: str, holds: bool | None,
             statement: str | None = None, not_judged: str | None = None) -> str:
    """A claim in one sentence: who claimed which tricks, and whether it holds under the rule."""
    # What he said is free text: a line break or tab in it is shown, not obeyed, on one line.
    said = f' ("{statement.encode("unicode_escape").decode("ascii")}")' if statement else ""
    kind = "accepted" if accepted else "contested"
    if tricks == 0:
        return f"{by} claimed the rest{said} ({kind}), but no trick remains: it claims nothing"
    span = f"trick {first}" if tricks == 1 else f"tricks {first}-{first + tricks - 1}"
    verdict = {True: "it holds", False: "it fails", None: f"not judged: {not_judged or TWO_COPIES}"}[holds]
    return f"{by} claimed the rest{said}, {span} ({kind}); under claim_rule {rule} {verdict}"


def claim_words(ev: dict[str, Any]) -> str:
    """A claim event of the replay in one line, with the tallies it leaves."""
    text = describe(ev["by"], ev["trick"], ev["tricks"], ev["accepted"], ev["claim_rule"], ev["holds"],
                    ev.get("statement"), ev.get("not_judged"))
    if not ev["tricks"]:
        return "Claim: " + text
    return "Claim: " + text + "; credited: " + ", ".join(f"{p} {v}" for p, v in ev["tallies"].items())
