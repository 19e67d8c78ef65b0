"""The findings: a class per code of docs/game.md section 10, with its fields and words; what the codes share."""

from __future__ import annotations

from typing import Any, ClassVar

from .cards import SUIT_NAMES, SUITS
from .findings_base import CODES, ERROR, WARNING, Finding  # the rest of foreman reads them here
from .findings_base import register as _code
from .proof import Proof, held_json, held_words, proof_words, proved_evidence
from .words import plural


def _cards(cards) -> str:
    return " ".join(cards) or "nothing"


@_code("RECORD_SYNTAX", "the record cannot be read: not JSON, or not notation",
       rule=("Each game must be a JSON object or a game of .fmn notation. A line (or array element) that does not parse "
             "cannot be replayed; the rest of the input is still read."),
       shows="line and column of the syntax error",
       sample={"problem": "not JSON: EOF while parsing an object", "line": 17, "column": 80, "path": "$"})
class RecordSyntax(Finding):
    problem: str
    line: int | None = None
    column: int | None = None

    @property
    def message(self) -> str:
        if not self.line:
            return self.problem
        return f"{self.problem} (line {self.line}" + (f" column {self.column})" if self.column else ")")

    evidence_fields = ("line", "column")


@_code("RECORD_SCHEMA", "the record breaks its format: a field missing, unknown or mistyped",
       rule=("A missing, unknown or mistyped field, a bad card token, or a name that is not one of the three players "
             "makes the record unreplayable (docs/format.md)."),
       shows="the JSON path of the field and what was wrong with it (in notation, the line that wrote it)",
       sample={"path": "$.deals[0].tricks[4].cards[1]", "problem": "card 'TS' is not a card"})
class RecordSchema(Finding):
    problem: str
    line: int | None = None  # in a notation file, the line that wrote the field

    @property
    def message(self) -> str:
        return f"{self.path}: {self.problem}" + (f" (line {self.line})" if self.line else "")

    @property
    def evidence(self) -> dict[str, Any]:
        return {"line": self.line} if self.line else {}


class _Miscount(Finding):
    did: ClassVar[str]  # what the player did with the cards, in words
    shows = "the number of cards there were"
    injectable = True
    count: int  # cards there were
    expected: int  # cards the rules ask for
    evidence_fields = ("count", "expected")

    @property
    def message(self) -> str:
        who = f"{self.player} {self.did}" if self.player is not None else "the kitty has"
        return f"{who} {plural(self.count, 'card')}, not {self.expected}"


@_code("DEAL_SIZE", "a hand is not 16 cards, or the kitty is not 4", did="was dealt",
       rule="Each player is dealt 16 cards and the kitty holds the other 4 (docs/game.md §3).",
       sample={"deal": 1, "player": "bob", "count": 15, "expected": 16})
class DealSize(_Miscount):
    """A hand (a player's) or the kitty (no player) of the wrong size."""


@_code("DEAL_DUPLICATE", "a card is dealt more than once",
       rule="The hands and the kitty are exactly the 52 distinct cards of one deck (docs/game.md §3).",
       shows="where each copy was dealt",
       sample={"deal": 1, "card": "QS", "holders": ("alice",), "kitty": 1},
       injectable=True)
class DealDuplicate(Finding):
    holders: tuple[str, ...]
    kitty: int  # copies in the kitty, counted apart: a player may be called "kitty"

    @property
    def message(self) -> str:
        where = ", ".join([*self.holders, *["the kitty"] * self.kitty])
        return f"{self.card} was dealt {len(self.holders) + self.kitty} times ({where})"

    @property
    def evidence(self) -> dict[str, Any]:
        return {"count": len(self.holders) + self.kitty, "holders": list(self.holders), "kitty": self.kitty}


@_code("WRONG_DEALER", "a later deal has the wrong dealer",
       rule=("Under deal_rotation 'left' the next deal of a game is dealt by the previous deal's L, the player to "
             "the dealer's left (docs/game.md §7)."),
       shows="the dealer the rotation names",
       sample={"deal": 2, "player": "carol", "previous": "alice", "expected": "bob"},
       injectable=True)
class WrongDealer(Finding):
    evidence_fields = ("expected",)  # who dealt before is in the message only
    previous: str
    expected: str

    @property
    def message(self) -> str:
        return f"{self.player} dealt; the deal passes left, from {self.previous} to {self.expected}"


@_code("PASS_SEQUENCE", "passes missing, extra, out of order, or to the wrong player",
       rule="Three passes in this order: L gives to R, R gives to D, D gives to L (docs/game.md §4).",
       shows="the pass expected at that position and the one recorded",
       sample={"deal": 1, "pass_": 2, "player": "carol", "recorded": ("carol", "alice"), "expected": ("bob", "carol"),
              "roles": ("R", "D")},
       shown_at="inline",
       injectable=True)
class PassSequence(Finding):
    recorded: tuple[str, str] | None  # None: the pass is missing
    expected: tuple[str, str] | None  # None: an extra pass
    roles: tuple[str, str] = ("", "")  # the expected giver's and receiver's roles

    @property
    def message(self) -> str:
        if self.expected is None:
            return f"an extra pass, {self.recorded[0]} to {self.recorded[1]}; a deal has 3 passes"
        (giver, receiver), (g_role, r_role) = self.expected, self.roles
        if self.recorded is None:
            return f"pass {self.pass_} is missing: {giver} ({g_role}) should give to {receiver}"
        return (f"recorded {self.recorded[0]} to {self.recorded[1]}; pass {self.pass_} is {giver} ({g_role}) "
                f"to {receiver} ({r_role})")

    @property
    def evidence(self) -> dict[str, Any]:
        return {"recorded": list(self.recorded) if self.recorded else None,
                "expected": list(self.expected) if self.expected else None}


class _NotHeld(Finding):
    done: ClassVar[str]  # what he did with the card, in a word
    shows = "his hand at that moment; in a record of the play, where the record put the card (proved_by)"
    injectable = True
    hand: tuple[str, ...] | None = None  # None: the hands are not recorded
    proved_by: Proof | None = None

    @property
    def message(self) -> str:
        if self.proved_by is not None:
            did = f"{self.player}'s cards left hold {self.card}" if self.trick is None and self.done == "played" \
                else f"{self.player} {self.done} {self.card}"
            return f"{did} but did not hold it: {proof_words(self.proved_by)}"
        return f"{self.player} {self.done} {self.card} but did not hold it; held {_cards(self.hand)}"

    @property
    def evidence(self) -> dict[str, Any]:
        return proved_evidence(self, ("hand",))


@_code("PASS_NOT_HELD", "the giver did not hold the card he gave", done="gave",
       rule="A player can only pass a card from his own hand (docs/game.md §4).",
       sample={"deal": 1, "pass_": 1, "player": "bob", "card": "4D", "hand": ("2S", "9S", "KH")})
class PassNotHeld(_NotHeld):
    """A card given in a pass that the giver did not hold."""


@_code("RETURN_NOT_HELD", "the receiver returned a card he did not hold before the pass",
       rule=("The returned card comes from the receiver's hand as it was before the pass; giving back the card just "
             "received is this breach (docs/game.md §4, 11)."),
       shows="the receiver's hand before the pass",
       sample={"deal": 1, "pass_": 2, "player": "carol", "card": "9H", "received": "9H", "hand_before": ("3H", "QC")},
       injectable=True)
class ReturnNotHeld(Finding):
    received: str
    hand_before: tuple[str, ...] | None = None  # None: the hands are not recorded
    proved_by: Proof | None = None

    @property
    def message(self) -> str:
        did = f"{self.player} returned {self.card} for {self.received} but did not hold it before the pass"
        if self.proved_by is not None:
            return f"{did}: {proof_words(self.proved_by)}"
        return f"{did}; held {_cards(self.hand_before)}"

    @property
    def evidence(self) -> dict[str, Any]:
        return proved_evidence(self, ("received", "hand_before"))


@_code("RETURN_WRONG_CARD", "the returned card breaks the return rule",
       rule=("Under return_rule 'highest' the receiver returns his highest card of the suit received; under 'higher' "
             "any card of that suit above the one received, if he has one. With no such card he may return any card "
             "(docs/game.md §4)."),
       shows="the card or cards he should have returned",
       sample={"deal": 1, "pass_": 3, "player": "alice", "card": "9D", "received": "4D", "expected": ("AD",),
              "return_rule": "highest"},
       injectable=True)
class ReturnWrongCard(Finding):
    received: str
    expected: tuple[str, ...]
    return_rule: str
    proved_by: tuple[tuple[str, int | str], ...] | None = None  # from the play: each card, its trick or "left"

    @property
    def message(self) -> str:
        if self.proved_by is not None:
            held = held_words(self.proved_by, self.player)
            return (f"{self.player} returned {self.card} for {self.received}; under return_rule {self.return_rule} "
                    f"{self.player} should have returned {' or '.join(self.expected)}: {self.player} held {held}")
        if self.return_rule == "highest":
            suit = SUIT_NAMES[SUITS.index(self.received[-1])]
            why = f"{self.player}'s highest {suit} was {self.expected[0]}"
        else:
            why = f"{self.player} held {' '.join(self.expected)} above {self.received}"
        return f"{self.player} returned {self.card} for {self.received}; {why}"

    @property
    def evidence(self) -> dict[str, Any]:
        if self.proved_by is None:
            return {"received": self.received, "expected": list(self.expected), "return_rule": self.return_rule}
        return {"received": self.received, "should_return": list(self.expected), "return_rule": self.return_rule,
                "proved_by": held_json(self.proved_by)}


@_code("DISCARD_COUNT", "the dealer did not set aside exactly 4 cards", did="set aside",
       rule="The dealer exchanges exactly 4 of his cards for the 4 kitty cards (docs/game.md §5).",
       sample={"deal": 1, "player": "alice", "count": 3, "expected": 4})
class DiscardCount(_Miscount):
    """Discards of the wrong number."""


@_code("DISCARD_NOT_HELD", "a discard the dealer could not discard",
       rule=("Under kitty 'swap' the 4 discards come from the 16 cards he held before taking the kitty; under "
             "'pickup' from the 20 he holds with it (docs/game.md §5)."),
       shows="his hand before the kitty, and the kitty",
       sample={"deal": 1, "player": "alice", "card": "7D", "hand": ("2S", "5H"), "kitty": ("7D", "8D", "JC", "AH"),
              "kitty_rule": "swap", "from_kitty": True},
       injectable=True)
class DiscardNotHeld(Finding):
    hand: tuple[str, ...] | None  # None: the hands are not recorded
    kitty: tuple[str, ...] | None  # None: the kitty is not recorded
    kitty_rule: str
    from_kitty: bool  # a kitty card, discarded under 'swap'
    proved_by: Proof | None = None

    @property
    def message(self) -> str:
        if self.from_kitty:
            return (f"{self.player} discarded {self.card}, a kitty card, under kitty 'swap' (the discards come "
                    "from the dealer's own 16 cards)")
        if self.proved_by is not None:
            return f"{self.player} discarded {self.card}, not in {self.player}'s hand: {proof_words(self.proved_by)}"
        return (f"{self.player} discarded {self.card}, not in {self.player}'s hand; held {' '.join(self.hand)} and the "
                f"kitty {' '.join(self.kitty)}")

    @property
    def evidence(self) -> dict[str, Any]:
        return proved_evidence(self, ("hand", "kitty", "kitty_rule"))


@_code("LEAD_OUT_OF_TURN", "a trick led by the wrong player",
       rule="L leads the first trick of a deal; the winner of a trick leads the next (docs/game.md §6).",
       shows="who should have led",
       sample={"deal": 1, "trick": 5, "player": "carol", "expected": "bob"},
       injectable=True)
class LeadOutOfTurn(Finding):
    expected: str

    @property
    def message(self) -> str:
        why = "L leads the first trick" if self.trick == 1 else f"{self.expected} won trick {self.trick - 1}"
        return f"{self.player} led; {self.expected} should have led ({why})"

    evidence_fields = ("expected",)


@_code("TRICK_SIZE", "a trick without exactly 3 cards",
       rule="Each player plays one card to every trick (docs/game.md §6).",
       shows="the number of cards recorded",
       sample={"deal": 1, "trick": 9, "cards": ("4S", "9S")},
       injectable=True)
class TrickSize(Finding):
    cards: tuple[str, ...]

    @property
    def message(self) -> str:
        return f"{plural(len(self.cards), 'card')} recorded, not 3"

    @property
    def evidence(self) -> dict[str, Any]:
        return {"count": len(self.cards), "cards": list(self.cards)}


@_code("CARD_NOT_HELD", "a card played that the player did not hold", done="played",
       rule="A player plays from his own hand (docs/game.md §6).",
       sample={"deal": 2, "trick": 3, "player": "bob", "card": "KS", "hand": ("3S", "8H", "TC")})
class CardNotHeld(_NotHeld):
    """A card played to a trick that the player did not hold."""


@_code("REVOKE", "did not follow suit while holding the suit led",
       rule="Each following player must play a card of the suit led if he has one (docs/game.md §6).",
       shows="the cards of the suit led that he held",
       sample={"deal": 2, "trick": 7, "player": "bob", "card": "4H", "led": "S", "held": ("9S", "QS")},
       injectable=True)
class Revoke(Finding):
    led: str  # the suit's letter
    held: tuple[str, ...]
    proved_by: tuple[tuple[str, int | str], ...] | None = None  # from the play: each card held, its trick or "left"

    @property
    def message(self) -> str:
        suit = SUIT_NAMES[SUITS.index(self.led)]
        if self.proved_by is not None:
            return (f"{self.player} played {self.card} on a {suit} lead while holding "
                    f"{held_words(self.proved_by, self.player)}")
        return f"{self.player} played {self.card} on a {suit} lead while holding {' '.join(self.held)}"

    @property
    def evidence(self) -> dict[str, Any]:
        out = {"led": self.led, "held": list(self.held)}
        if self.proved_by is not None:
            out["proved_by"] = held_json(self.proved_by)
        return out



@_code("PLAY_AFTER_END", "a trick or a deal recorded after the game was won",
       rule="The game ends at once when a player takes the target number of tricks (docs/game.md §7).",
       shows="where the game was won",
       sample={"deal": 3, "trick": 13, "what": "trick", "winner": "alice", "won_at": (3, 12)},
       shown_at="inline",
       injectable=True)
class PlayAfterEnd(Finding):
    what: str  # 'trick', 'whole deal' or 'claim'
    winner: str
    won_at: tuple[int, int]  # deal and trick

    @property
    def message(self) -> str:
        return f"a {self.what} recorded after {self.winner} won at deal {self.won_at[0]}, trick {self.won_at[1]}"

    @property
    def evidence(self) -> dict[str, Any]:
        return {"won_at": {"deal": self.won_at[0], "trick": self.won_at[1]}}


@_code("DEAL_INCOMPLETE", "a deal other than the last ended early with nobody at the target",
       rule="A deal goes on for all 16 tricks unless a player reaches the target (docs/game.md §7).",
       shows="the number of tricks recorded",
       sample={"deal": 1, "trick": 15, "tricks": 14, "target": 12})
class DealIncomplete(Finding):
    tricks: int
    target: int

    @property
    def message(self) -> str:
        return f"the deal stops after {plural(self.tricks, 'trick')} with nobody at {self.target}"

    evidence_fields = ("tricks", "target")


@_code("UNFINISHED", "the record ends without a winner",
       severity=WARNING,
       rule="A game no one has won carries no money (docs/game.md §7). A warning, not a breach.",
       shows="the tallies of the last deal",
       sample={"deals": 3, "target": 12, "tallies": (("alice", 5), ("bob", 7), ("carol", 4))})
class Unfinished(Finding):
    deals: int
    target: int
    tallies: tuple[tuple[str, int], ...]  # the last deal's, by seat

    @property
    def message(self) -> str:
        last = ", ".join(f"{p} {n}" for p, n in self.tallies)
        ended = f"the record ends after {plural(self.deals, 'deal')}"
        return f"{ended} with nobody at {self.target} tricks (last deal: {last})"

    evidence_fields = ("deals",)


@_code("CLAIM_MISMATCH", "the result written in the record differs from the replay",
       rule=("The claimed winner, tricks of the deciding deal and payments are checked against the replay; payments "
             "between two players are compared as one net amount."),
       shows="what the table wrote and what the rules give",
       sample={"part": "winner", "claimed": "bob", "replayed": "alice"},
       disputes=False,
       shown_at="result",
       injectable=True)
class ClaimMismatch(Finding):
    part: str  # 'winner', 'tricks' or 'payments'
    claimed: Any
    replayed: Any
    in_deal: int | None = None  # the deciding deal, for tricks
    words: str = ""  # the payments compared pair by pair, with why the rules say so

    @property
    def message(self) -> str:
        if self.part == "winner":
            return (f"the table wrote the winner as {self.claimed or 'nobody'}; the replay gives "
                    f"{self.replayed or 'nobody'}")
        if self.part == "tricks":
            diff = "; ".join(f"{p} {n} (replayed {self.replayed[p]})" for p, n in self.claimed.items()
                             if self.replayed[p] != n)
            return f"the table wrote tricks {diff} in deal {self.in_deal}"
        return self.words

    evidence_fields = ("part", "claimed", "replayed")


class _ClaimFails(Finding):
    shows = "a line of play that stops the claimer, ending with the first trick he loses"
    injectable = True
    tricks_claimed: int
    accepted: bool
    claim_rule: str
    stopper: str
    stopped_at: int
    how: str  # how the stopper wins, in words
    line: tuple[tuple[str, ...], ...]  # the line's cards, trick by trick
    line_words: str  # the line, each card with its player

    @property
    def message(self) -> str:
        kind = "accepted" if self.accepted else "contested"
        return (f"{self.player} claimed the rest ({plural(self.tricks_claimed, 'trick')}, {kind}); {self.stopper} "
                f"stops {self.player}: {self.how}; claim_rule {self.claim_rule}; line: {self.line_words}")

    evidence_fields = ("line", "claim_rule", "tricks_claimed", "stopped_at", "stopper", "accepted")


_CLAIM_SAMPLE = {"deal": 2, "trick": 11, "player": "alice", "tricks_claimed": 2, "claim_rule": "any-order",
                 "stopper": "bob", "stopped_at": 12, "how": "bob wins trick 12 with KH after alice leads 5H",
                 "line": (("AS", "2S", "3S"), ("5H", "KH", "7H")),
                 "line_words": "trick 11: alice AS bob 2S carol 3S; trick 12: alice 5H bob KH carol 7H"}


@_code("CLAIM_REFUTED", "a contested claim of the remaining tricks fails",
       rule=("A player who claims the rest of the deal must take every claimed trick: under claim_rule 'any-order' "
             "whatever legal cards anyone plays, his own included; under 'best-play' against any legal defence. The "
             "tricks are credited as claimed; the game is disputed (docs/game.md §12)."),
       sample={**_CLAIM_SAMPLE, "accepted": False})
class ClaimRefuted(_ClaimFails):
    """A contested claim that fails: the game is disputed."""


@_code("CLAIM_DOUBTFUL", "an accepted claim of the remaining tricks fails",
       severity=WARNING,
       rule=("Both others agreed to the claim, so it stands, but it fails under claim_rule (docs/game.md §12). A "
             "warning, not a breach."),
       sample={**_CLAIM_SAMPLE, "accepted": True})
class ClaimDoubtful(_ClaimFails):
    """An accepted claim that fails: it stands, with a warning."""


@_code("DEALER_SUCCESSION", "a series' next game dealt by the wrong player",
       rule=("Under next_dealer 'winner-or-loser' the next game of a series is dealt by the last game's winner or "
             "its loser (the other player with fewer tricks) (docs/game.md §9)."),
       shows="the previous game and who could deal",
       sample={"deal": 1, "player": "carol", "series": ("fri", 2), "previous_game": "g1", "allowed": ("alice", "bob"),
              "next_dealer": "winner-or-loser", "winner": "alice", "losers": ("bob",)},
       cross_game=True,
       shown_at="dealer")
class DealerSuccession(Finding):
    series: tuple[str, int]
    previous_game: str
    allowed: tuple[str, ...]
    next_dealer: str
    winner: str
    losers: tuple[str, ...]

    @property
    def message(self) -> str:
        return (f"{self.player} dealt game {self.series[1]} of series {self.series[0]}; under next_dealer "
                f"'{self.next_dealer}' the dealer is {' or '.join(self.allowed)} (game {self.previous_game}: "
                f"{self.winner} won, {' and '.join(self.losers)} took fewest tricks)")

    evidence_fields = ("previous_game", "allowed", "next_dealer")


class _SeriesWarning(Finding):
    """A warning about a game's place in its series: found across games, shown at the top of the
    game, and disputing no money."""
    severity = WARNING
    disputes = False
    cross_game = True
    shown_at = "game"
    game: str
    series: tuple[str, int]


@_code("SERIES_SEQ_SHARED", "two games of a series give the same seq",
       rule=("Each place of a series holds one game. Dealer succession is checked only between places held once, so a "
             "place held twice is checked neither from the game before nor to the game after. A warning: no breach is "
             "shown, but none of those dealers is known to be right."),
       shows="the series and place, and the game read there first",
       sample={"game": "g7", "series": ("fri", 3), "first_game": "g3", "first": "friday.jsonl:3"})
class SeriesSeqShared(_SeriesWarning):
    first_game: str
    first: str  # where the first game of the place was read

    @property
    def message(self) -> str:
        sid, seq = self.series
        return (f"game {self.game} is game {seq} of series {sid}, as game {self.first_game} (read at {self.first}) is: "
                f"dealer succession is checked neither into game {seq} nor out of it")

    evidence_fields = ("series", "first_game", "first")


@_code("SERIES_GAP", "places of a series missing between two games of the input",
       rule=("A series' games are numbered 1, 2, 3... When the input holds games on both sides of a missing place, the "
             "game after it is said: its dealer cannot be checked, and whatever the missing game moved is not in the "
             "input. A warning: the record may simply not have been brought."),
       shows="the series, the places missing and the place before them",
       sample={"game": "g4", "series": ("fri", 4), "missing": (3, 3)})
class SeriesGap(_SeriesWarning):
    missing: tuple[int, int]  # the first and last place missing

    @staticmethod
    def places(first: int, last: int) -> str:
        """The places missing in words: 'game 3', 'games 3-5'."""
        return f"game {first}" if first == last else f"games {first}-{last}"

    @property
    def message(self) -> str:
        (sid, seq), (first, last) = self.series, self.missing
        gone = self.places(first, last)
        return (f"{gone} of series {sid} {'is' if first == last else 'are'} not in the input, which holds games "
                f"{first - 1} and {seq}: game {self.game}'s dealer is not checked against the game before it, and a "
                f"settlement of this input leaves {gone} out")

    evidence_fields = ("series", "missing")


@_code("DUPLICATE_GAME", "the same game id appears again in the input",
       rule=("Each game id is unique. The first record of an id stands; a later one takes part in nothing else "
             "(series checks, settlement, archive, statistics, fairness) and this is its only finding."),
       shows=("where the id was first read, whether the record's text is identical to the first's, and whether "
              "the two say the same (their JSON values; null: one could not be read again to compare)"),
       sample={"game": "g1", "first": "games.jsonl:4", "identical": False, "same_record": True},
       disputes=False,
       cross_game=True,
       shown_at="game",
       leaves_out=True)
class DuplicateGame(Finding):
    game: str
    first: str
    identical: bool  # byte for byte, whitespace around the record aside
    same_record: bool | None = None  # the same JSON value, keys in any order; None: not compared

    @property
    def message(self) -> str:
        how = ("identical" if self.identical else "its text differs" if self.same_record is None
               else "the same record, written another way" if self.same_record else "a different record")
        return f"game {self.game} was already read at {self.first} ({how})"

    @property
    def in_doubt(self) -> bool:
        """True when the two records of the game may differ: which one the table played is then in doubt."""
        return not (self.identical or self.same_record)

    evidence_fields = ("first", "identical", "same_record")


# Derived from the registry, for the places that ask the question of many findings at once.
CROSS_GAME = frozenset(c for c, cls in CODES.items() if cls.cross_game)
UNDISPUTED = frozenset(c for c, cls in CODES.items() if not cls.disputes)
INJECTABLE = tuple(c for c, cls in CODES.items() if cls.injectable)  # in the registry's order


def repeat_mark(findings: list[Finding]) -> Finding | None:
    """The mark of a record whose id was read before (DUPLICATE_GAME), or None: such a record takes
    part in nothing else."""
    return next((f for f in findings if f.leaves_out), None)


def code_dicts(selected: list[str]) -> list[dict[str, str]]:
    """The reference of the codes named, as JSON-ready data (`foreman codes --json`)."""
    return [{"code": c, "severity": CODES[c].severity, "title": CODES[c].title, "rule": CODES[c].rule,
             "evidence": CODES[c].shows, "example": CODES[c].example()} for c in selected]
