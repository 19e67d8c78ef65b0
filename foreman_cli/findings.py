"""Findings: the stable codes of docs/game.md section 10, and one frozen record per breach found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """What a finding code means and how foreman treats it: its registry entry.

    `disputes`: a breach with this code takes the game out of the settlement (a wrong claim of
    the table's arithmetic and a repeated copy do not). `cross_game`: found only by looking at
    other games of the input. `shown_at`: where a view puts it: 'place' (under its pass or trick
    line), 'inline' (where the replay meets it: it has no line of its own, as for a missing pass
    or a trick after the end), 'dealer' (the deal's dealer line), 'game' (the top of the game),
    'result' (beside the result). `leaves_out`: the record is left out of a settlement whatever
    its play (a repeated copy). `injectable`: `foreman generate --inject` can make a game with one
    (the property tests inject each such code into generated games).
    """

    code: str
    severity: str
    title: str
    rule: str
    evidence: str
    example: str
    disputes: bool = True
    cross_game: bool = False
    shown_at: str = "place"
    leaves_out: bool = False
    injectable: bool = False


CODES: dict[str, CodeInfo] = {
    c.code: c
    for c in [
        CodeInfo("RECORD_SYNTAX", ERROR, "the record is not JSON",
                 "Each game must be a JSON object. A line (or array element) that does not parse "
                 "cannot be replayed; the rest of the input is still read.",
                 "file, line and column of the syntax error",
                 "games.jsonl:17: not JSON: EOF while parsing an object at line 17 column 80 (RECORD_SYNTAX)"),
        CodeInfo("RECORD_SCHEMA", ERROR, "the record does not follow foreman/1",
                 "A missing, unknown or mistyped field, a bad card token, or a name that is not one of "
                 "the three players makes the record unreplayable (docs/format.md).",
                 "the JSON path of the field and what was wrong with it",
                 "games.jsonl:3: $.deals[0].tricks[4].cards[1]: card 'TS' ... (RECORD_SCHEMA)"),
        CodeInfo("DEAL_SIZE", ERROR, "a hand is not 16 cards, or the kitty is not 4",
                 "Each player is dealt 16 cards and the kitty holds the other 4 (docs/game.md §3).",
                 "the number of cards dealt",
                 "deal 1: bob was dealt 15 cards, not 16 (DEAL_SIZE)", injectable=True),
        CodeInfo("DEAL_DUPLICATE", ERROR, "a card is dealt more than once",
                 "The hands and the kitty are exactly the 52 distinct cards of one deck (docs/game.md §3).",
                 "where each copy was dealt",
                 "deal 1: QS was dealt 2 times (alice, the kitty) (DEAL_DUPLICATE)", injectable=True),
        CodeInfo("WRONG_DEALER", ERROR, "a later deal has the wrong dealer",
                 "Under deal_rotation 'left' the next deal of a game is dealt by the previous deal's L, "
                 "the player to the dealer's left (docs/game.md §7).",
                 "the dealer the rotation names",
                 "deal 2: carol dealt; the deal passes left, to bob (WRONG_DEALER)", injectable=True),
        CodeInfo("PASS_SEQUENCE", ERROR, "passes missing, extra, out of order, or to the wrong player",
                 "Three passes in this order: L gives to R, R gives to D, D gives to L (docs/game.md §4).",
                 "the pass expected at that position and the one recorded",
                 "deal 1, pass 2: recorded carol to alice; expected bob to carol (PASS_SEQUENCE)", shown_at="inline",
                 injectable=True),
        CodeInfo("PASS_NOT_HELD", ERROR, "the giver did not hold the card he gave",
                 "A player can only pass a card from his own hand (docs/game.md §4).",
                 "the giver's hand at that moment",
                 "deal 1, pass 1: bob gave 4D but did not hold it; held ... (PASS_NOT_HELD)", injectable=True),
        CodeInfo("RETURN_NOT_HELD", ERROR, "the receiver returned a card he did not hold before the pass",
                 "The returned card comes from the receiver's hand as it was before the pass; giving "
                 "back the card just received is this breach (docs/game.md §4, 11).",
                 "the receiver's hand before the pass",
                 "deal 1, pass 2: carol returned 9H but did not hold it before the pass (RETURN_NOT_HELD)",
                 injectable=True),
        CodeInfo("RETURN_WRONG_CARD", ERROR, "the returned card breaks the return rule",
                 "Under return_rule 'highest' the receiver returns his highest card of the suit "
                 "received; under 'higher' any card of that suit above the one received, if he has "
                 "one. With no such card he may return any card (docs/game.md §4).",
                 "the card or cards he should have returned",
                 "deal 1, pass 3: alice returned 9D for 4D; her highest diamond was AD (RETURN_WRONG_CARD)",
                 injectable=True),
        CodeInfo("DISCARD_COUNT", ERROR, "the dealer did not set aside exactly 4 cards",
                 "The dealer exchanges exactly 4 of his cards for the 4 kitty cards (docs/game.md §5).",
                 "the number of discards recorded",
                 "deal 1: alice set aside 3 cards, not 4 (DISCARD_COUNT)", injectable=True),
        CodeInfo("DISCARD_NOT_HELD", ERROR, "a discard the dealer could not discard",
                 "Under kitty 'swap' the 4 discards come from the 16 cards he held before taking the "
                 "kitty; under 'pickup' from the 20 he holds with it (docs/game.md §5).",
                 "his hand before the kitty, and the kitty",
                 "deal 1: alice discarded 7D, a kitty card, under swap (DISCARD_NOT_HELD)", injectable=True),
        CodeInfo("LEAD_OUT_OF_TURN", ERROR, "a trick led by the wrong player",
                 "L leads the first trick of a deal; the winner of a trick leads the next (docs/game.md §6).",
                 "who should have led",
                 "deal 1, trick 5: carol led; bob won trick 4 and should lead (LEAD_OUT_OF_TURN)", injectable=True),
        CodeInfo("TRICK_SIZE", ERROR, "a trick without exactly 3 cards",
                 "Each player plays one card to every trick (docs/game.md §6).",
                 "the number of cards recorded",
                 "deal 1, trick 9: 2 cards recorded, not 3 (TRICK_SIZE)", injectable=True),
        CodeInfo("CARD_NOT_HELD", ERROR, "a card played that the player did not hold",
                 "A player plays from his own hand (docs/game.md §6).",
                 "the player's hand at that moment",
                 "deal 2, trick 3: bob played KS but did not hold it; held ... (CARD_NOT_HELD)", injectable=True),
        CodeInfo("REVOKE", ERROR, "did not follow suit while holding the suit led",
                 "Each following player must play a card of the suit led if he has one (docs/game.md §6).",
                 "the cards of the suit led that he held",
                 "deal 2, trick 7: bob played 4H on a spade lead while holding 9S QS (REVOKE)", injectable=True),
        CodeInfo("PLAY_AFTER_END", ERROR, "a trick or a deal recorded after the game was won",
                 "The game ends at once when a player takes the target number of tricks (docs/game.md §7).",
                 "where the game was won",
                 "deal 3, trick 13: recorded after alice won at deal 3, trick 12 (PLAY_AFTER_END)", shown_at="inline",
                 injectable=True),
        CodeInfo("DEAL_INCOMPLETE", ERROR, "a deal other than the last ended early with nobody at the target",
                 "A deal goes on for all 16 tricks unless a player reaches the target (docs/game.md §7).",
                 "the number of tricks recorded",
                 "deal 1, trick 15: the deal stops after 14 tricks with nobody at 12 (DEAL_INCOMPLETE)"),
        CodeInfo("UNFINISHED", WARNING, "the record ends without a winner",
                 "A game no one has won carries no money (docs/game.md §7). A warning, not a breach.",
                 "the tallies of the last deal",
                 "the record ends after 3 deals with nobody at 12 tricks (UNFINISHED)"),
        CodeInfo("CLAIM_MISMATCH", ERROR, "the result written in the record differs from the replay",
                 "The claimed winner, tricks of the deciding deal and payments are checked against "
                 "the replay; payments between two players are compared as one net amount.",
                 "what the table wrote and what the rules give",
                 "the table wrote bob pays alice 1.00; the rules say 2.00 (CLAIM_MISMATCH)",
                 disputes=False, shown_at="result", injectable=True),
        CodeInfo("CLAIM_REFUTED", ERROR, "a contested claim of the remaining tricks fails",
                 "A player who claims the rest of the deal must take every claimed trick: under claim_rule "
                 "'any-order' whatever legal cards anyone plays, his own included; under 'best-play' "
                 "against any legal defence. The tricks are credited as claimed; the game is disputed "
                 "(docs/game.md §12).",
                 "a line of play that stops the claimer, ending with the first trick he loses",
                 "deal 2, trick 11: alice claimed the rest (2 tricks, contested); bob stops alice: he wins "
                 "trick 12 with KH after carol leads 5H; ... (CLAIM_REFUTED)", injectable=True),
        CodeInfo("CLAIM_DOUBTFUL", WARNING, "an accepted claim of the remaining tricks fails",
                 "Both others agreed to the claim, so it stands, but it fails under claim_rule (docs/game.md "
                 "12). A warning, not a breach.",
                 "a line of play that stops the claimer, ending with the first trick he loses",
                 "deal 1, trick 13: bob claimed the rest (4 tricks, accepted); carol stops bob: ... "
                 "(CLAIM_DOUBTFUL)", injectable=True),
        CodeInfo("DEALER_SUCCESSION", ERROR, "a series' next game dealt by the wrong player",
                 "Under next_dealer 'winner-or-loser' the next game of a series is dealt by the last "
                 "game's winner or its loser (the other player with fewer tricks) (docs/game.md §9).",
                 "the previous game and who could deal",
                 "deal 1: carol dealt game 2 of series fri; allowed: alice, bob (DEALER_SUCCESSION)",
                 cross_game=True, shown_at="dealer"),
        CodeInfo("DUPLICATE_GAME", ERROR, "the same game id appears again in the input",
                 "Each game id is unique. The first record of an id stands; a later one takes part in nothing "
                 "else (series checks, settlement, archive, statistics, fairness) and this is its only finding.",
                 "where the id was first read and whether the content is identical",
                 "game g1 already read at games.jsonl:4 (identical) (DUPLICATE_GAME)",
                 disputes=False, cross_game=True, shown_at="game", leaves_out=True),
    ]
}

# Derived from the registry, for the places that ask the question of many findings at once.
CROSS_GAME = frozenset(c.code for c in CODES.values() if c.cross_game)
UNDISPUTED = frozenset(c.code for c in CODES.values() if not c.disputes)
INJECTABLE = tuple(c.code for c in CODES.values() if c.injectable)  # in the registry's order


def repeat_mark(findings: list[Finding]) -> Finding | None:
    """The mark of a record whose id was read before (DUPLICATE_GAME), or None: such a record takes
    part in nothing else."""
    return next((f for f in findings if CODES[f.code].leaves_out), None)


def code_dicts(selected: list[str]) -> list[dict[str, str]]:
    """The reference of the codes named, as JSON-ready data (`foreman codes --json`)."""
    return [{"code": c, "severity": CODES[c].severity, "title": CODES[c].title, "rule": CODES[c].rule,
             "evidence": CODES[c].evidence, "example": CODES[c].example} for c in selected]


PLACE_FIELDS = ("deal", "trick", "pass", "player", "card")


@dataclass(frozen=True, slots=True)
class Finding:
    """One breach (or warning) found by a replay: its code, its place and its evidence."""

    code: str
    message: str
    deal: int | None = None
    trick: int | None = None
    pass_: int | None = None
    player: str | None = None
    card: str | None = None
    path: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def severity(self) -> str:
        """'error' for a breach, 'warning' for UNFINISHED and CLAIM_DOUBTFUL."""
        return CODES[self.code].severity

    @property
    def place(self) -> str:
        """The place in words: 'deal 2, trick 7' (empty when the finding has none)."""
        parts = []
        if self.deal is not None:
            parts.append(f"deal {self.deal}")
        if self.pass_ is not None:
            parts.append(f"pass {self.pass_}")
        if self.trick is not None:
            parts.append(f"trick {self.trick}")
        return ", ".join(parts)

    def text(self) -> str:
        """One line: place, message and code."""
        where = self.place
        return f"{where}: {self.message} ({self.code})" if where else f"{self.message} ({self.code})"

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data (the `violations` entries of `validate --json`)."""
        return {
            "code": self.code,
            "severity": self.severity,
            "deal": self.deal,
            "trick": self.trick,
            "pass": self.pass_,
            "player": self.player,
            "card": self.card,
            "path": self.path,
            "message": self.message,
            "evidence": self.evidence,
        }
