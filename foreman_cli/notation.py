"""The `.fmn` notation (docs/notation.md): games as a scorer types them, read into records."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .board import trick_winner
from .cards import CANONICAL, RANKS, SEED_RANKS, SUIT_SYMBOLS, SUITS, parse_token, t_rank_suit, token_table

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[^\s;/"#]+|[;/]')
_PLAIN = re.compile(r"[^\s;/#]+|[;/]")
_NOT_A_CARD = "is not a card (ranks 2-10 J Q K A, suits S H D C)"


class NotationError(Exception):
    """A line that cannot be read, at a column of it."""

    def __init__(self, message: str, column: int = 1) -> None:
        super().__init__(message)
        self.message, self.column = message, column


@dataclass(slots=True)
class Token:
    text: str  # unquoted
    column: int
    quoted: bool = False


@dataclass(slots=True)
class ReadGame:
    """A game read from notation: where its `game` line is, and its record or why it has none."""

    line: int
    record: dict[str, Any] | None = None
    places: dict[str, int] | None = None  # each JSON path of the record and the line that wrote it
    error: str | None = None
    error_line: int | None = None
    column: int | None = None
    id: str | None = None  # with an error: the game's id when its `game` line was read, to name it by


def tokens(line: str) -> list[Token]:
    """A line's tokens: words, quoted JSON strings, the separators ';' and '/'; '#' outside quotes ends it."""
    if '"' not in line:  # most lines: no quoted string, so the first '#' starts the comment
        end = line.find("#")
        return [Token(m.group(), m.start() + 1) for m in _PLAIN.finditer(line, 0, end if end >= 0 else len(line))]
    out: list[Token] = []
    pos = 0
    while pos < len(line):
        while pos < len(line) and line[pos].isspace():
            pos += 1
        if pos >= len(line) or line[pos] == "#":
            break
        match = _TOKEN.match(line, pos)
        text = match.group(0)
        if text.startswith('"'):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                raise NotationError(f"unterminated or bad quoted string {text[:40]!r}", pos + 1) from None
            out.append(Token(value, pos + 1, quoted=True))
        else:
            out.append(Token(text, pos + 1))
        pos = match.end()
    return out


def _content(line: str) -> str:
    """The line without its comment: up to the first '#' outside double quotes."""
    if '"' not in line:
        return line.split("#", 1)[0]
    quoted = escaped = False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i]
    return line


def read_games(lines: Iterable[str], first: int = 1) -> Iterator[ReadGame]:
    """Every game of notation's lines (ended at LF, CR LF or CR), the first numbered `first`; a game with
    a line that cannot be read is its error, and reading goes on at the next `game` line."""
    game: _GameReader | None = None
    skipping = False
    for number, line in enumerate(lines, first):
        line = line.rstrip("\r\n")
        if game is not None and not skipping and game.quick(line, number):
            continue  # a plain line of tricks or cards, read without tokens
        try:
            toks = tokens(line)
        except NotationError as e:
            if game is not None and not skipping:
                yield game.failed(number, e)
                skipping = True
            continue
        if not toks:
            continue
        if toks[0].text == "game" and not toks[0].quoted:
            if game is not None and not skipping:
                yield game.finish()
            game, skipping = _GameReader(number), False
        elif skipping:
            continue
        elif game is None:
            yield ReadGame(number, error=f"{toks[0].text!r}: a file of notation starts with a 'game' line",
                           error_line=number, column=toks[0].column)
            skipping = True
            continue
        try:
            game.line(toks, _content(line), number)
        except NotationError as e:
            yield game.failed(number, e)
            skipping = True
    if game is not None and not skipping:
        yield game.finish()


class _GameReader:
    """One game as its lines are read."""

    def __init__(self, line: int) -> None:
        self.first_line = line
        self.rec: dict[str, Any] = {}
        self.deals: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.table = token_table("en")
        self.ranks = RANKS
        self.due: int | None = None  # the seat due to lead the next trick of the current deal
        self.text = ""  # the line being read, without its comment
        self.places: dict[str, int] = {"$": line}
        self.written: dict[str, int] = {}  # each field written once (_set) and the line that wrote it
        self.number = line  # the line being read

    def quick(self, line: str, number: int = 0) -> bool:
        """Read a plain line of tricks, or a hand of full cards, the common lines, without tokens;
        False (nothing read) for anything else, which the careful path reads and words."""
        if '"' in line or not self.deals:
            return False
        self.number = number
        text = line.split("#", 1)[0]
        words = text.split()
        if not words:
            return False
        if words[0] == "hand":
            return self._quick_hand(words)
        if words[0] in KEYWORDS or "/" in text:
            return False
        if ";" not in text:
            return self._quick_tricks((words,))
        return self._quick_tricks([t for t in (part.split() for part in text.split(";")) if t])

    def _quick_hand(self, words: list[str]) -> bool:
        if len(words) < 2 or self.ranks is not RANKS:
            return False
        full = _FULL
        cards = [full.get(w) for w in words[2:]]
        hands = self.deals[-1].setdefault("hands", {})
        if None in cards or (words[1] in hands and Counter(hands[words[1]]) != Counter(cards)):
            return False
        hands.setdefault(words[1], cards)  # the same cards again: the first line stands, as in _set
        path = f"$.deals[{len(self.deals) - 1}].hands"
        self.places.setdefault(path, self.number)
        self.places[f"{path}.{words[1]}"] = self.number
        self.written.setdefault(f"{path}.{words[1]}", self.number)
        return True

    def _quick_tricks(self, tricks: list[list[str]]) -> bool:
        played, players = self.deals[-1]["tricks"], self.rec["players"]
        if self.ranks is not RANKS or self.due is None:
            return False
        read, due, first = [], self.due, len(played)
        for words in tricks:
            head = words[0]
            if head[-1] == "." and _digits(head[:-1]):
                if int(head[:-1]) != first + len(read) + 1:
                    return False
                words = words[1:]
            leader = due
            if words and words[0][-1] == ":":
                if words[0][:-1] not in players:
                    return False
                leader, words = players.index(words[0][:-1]), words[1:]
            trick = _quick_cards(words)
            if trick is None:
                return False
            read.append({"leader": players[leader], "cards": [CANONICAL[c] for c in trick]})
            due = trick_winner(leader, trick)
        played += read
        places, path, number = self.places, self.trick_path, self.number
        for j in range(first, len(played)):
            places[f"{path}{j}]"] = number
        self.due = due
        return True

    def _path(self, word: str, toks: list[Token]) -> str:
        """The JSON path a game or deal line writes (the line a schema problem there is placed at)."""
        deal = f"$.deals[{len(self.deals) - 1}]"
        if word == "claimed" and len(toks) > 1:
            part = toks[1].text
            if part == "pay":
                return f"$.claimed.payments[{len(self.rec['claimed'].get('payments', [])) - 1}]"
            return f"$.claimed.{part}"
        if word == "hand" and len(toks) > 1:
            self.places.setdefault(f"{deal}.hands", self.number)
            return f"{deal}.hands.{toks[1].text}"
        if word == "pass":
            return f"{deal}.passes[{len(self.deals[-1].get('passes', [])) - 1}]"
        return _PATHS[word].format(deal=deal)

    def failed(self, line: int, e: NotationError) -> ReadGame:
        return ReadGame(self.first_line, error=e.message, error_line=line, column=e.column, id=self.rec.get("id"))

    def finish(self) -> ReadGame:
        try:
            return ReadGame(self.first_line, record=self._record(), places=self.places)
        except NotationError as e:
            return self.failed(self.first_line, e)

    def line(self, toks: list[Token], text: str = "", number: int = 0) -> None:
        word = toks[0].text if not toks[0].quoted else ""
        self.number = number or self.number
        self.text = text
        handler = _GAME_LINES.get(word) or _DEAL_LINES.get(word)
        if handler is not None:
            if word in _DEAL_LINES and word != "deal" and not self.deals:
                raise NotationError(f"'{word}' before the first 'deal' line", toks[0].column)
            handler(self, toks[1:], toks[0])
            self.places.setdefault(self._path(word, toks), self.number)
        else:
            self._tricks(toks)

    def _set(self, target: dict[str, Any], key: str, value: Any, path: str, what: str, column: int,
             cards: bool = False) -> None:
        """Write a field: the same value again (`cards`: in any order) is read once; another is refused,
        naming the line that wrote the first, since which of the two the table meant is not known."""
        if key not in target:
            target[key] = value
            self.written[path] = self.number
            return
        old, first = target[key], self.written[path]
        if cards and Counter(old) != Counter(value):
            here, there = _cards(Counter(value) - Counter(old)), _cards(Counter(old) - Counter(value))
            raise NotationError(f"{what}: {here} here where line {first} wrote {there}; write it once", column)
        if not cards and old != value:
            raise NotationError(f"{what}: {_shown(value)} here, but line {first} wrote {_shown(old)}; write it once",
                                column)

    # --- game lines ---

    def _rest(self, at: Token) -> str:
        """The rest of the line after its keyword `at` (a note's text, an ext's JSON)."""
        return self.text[at.column - 1 + len(at.text):].strip()

    def _game(self, args: list[Token], at: Token) -> None:
        self.rec["id"] = _one(args, at, "a game id")

    def _players(self, args: list[Token], at: Token) -> None:
        if len(args) != 3:
            raise _shape(at, args, "the three names clockwise")
        self._set(self.rec, "players", [a.text for a in args], "$.players", "players", at.column)

    def _stake(self, args: list[Token], at: Token) -> None:
        if not 1 <= len(args) <= 2:
            raise _shape(at, args, "AMOUNT, then an optional currency")
        self._set(self.rec, "stake", args[0].text, "$.stake", "stake", args[0].column)
        if len(args) == 2:
            self._set(self.rec, "currency", args[1].text, "$.currency", "currency", args[1].column)

    def _currency(self, args: list[Token], at: Token) -> None:
        self._set(self.rec, "currency", _one(args, at, "a currency"), "$.currency", "currency", args[0].column)

    def _series(self, args: list[Token], at: Token) -> None:
        if len(args) != 2 or not _digits(args[1].text):
            raise _shape(at, args, "ID SEQ (SEQ a whole number)")
        self._set(self.rec, "series", {"id": args[0].text, "seq": int(args[1].text)}, "$.series", "series", at.column)

    def _played(self, args: list[Token], at: Token) -> None:
        when = _one(args, at, "a date and time (ISO 8601)")
        self._set(self.rec, "played_at", when, "$.played_at", "played", args[0].column)

    def _rules(self, args: list[Token], at: Token) -> None:
        rules = self.rec.setdefault("rules", {})
        for a in args:
            key, sep, value = a.text.partition("=")
            if not sep:
                raise NotationError(f"rules: {a.text!r} is not KEY=VALUE", a.column)
            value = int(value) if key == "target" and _digits(value) else value
            self._set(rules, key, value, f"$.rules.{key}", f"rules {key}", a.column)

    def _cards(self, args: list[Token], at: Token) -> None:
        notation = _one(args, at, "'seed' or 'en'")
        if notation not in ("seed", "en"):
            raise NotationError(f"cards: {notation!r}: write 'seed' or 'en'", args[0].column)
        self._set(self.rec, "card_notation", notation, "$.card_notation", "cards", args[0].column)
        self.table, self.ranks = token_table(notation), SEED_RANKS if notation == "seed" else RANKS

    def _note(self, args: list[Token], at: Token) -> None:
        self.notes.append(args[0].text if len(args) == 1 and args[0].quoted else self._rest(at))

    def _ext(self, args: list[Token], at: Token) -> None:
        try:
            value = json.loads(self._rest(at))
        except json.JSONDecodeError as e:
            raise NotationError(f"ext: not a JSON object: {e.msg}", at.column + 4 + e.pos) from None
        if not isinstance(value, dict):
            raise NotationError("ext: write a JSON object, {...}", at.column)
        self._set(self.rec, "ext", value, "$.ext", "ext", at.column)

    def _claimed(self, args: list[Token], at: Token) -> None:
        claimed = self.rec.setdefault("claimed", {})
        if not args:
            return
        part, rest = args[0].text, args[1:]
        if part == "winner":
            name = _one(rest, args[0], "a name, or - for nobody")
            name = None if name == "-" and not rest[0].quoted else name
            self._set(claimed, "winner", name, "$.claimed.winner", "claimed winner", rest[0].column)
        elif part == "tricks":
            if len(rest) % 2:
                raise _shape(args[0], rest, "NAME N pairs", "claimed ")
            tricks = claimed.setdefault("tricks", {})
            for name, n in zip(rest[::2], rest[1::2]):
                if not _digits(n.text):
                    raise NotationError(f"claimed tricks: {n.text!r} is not a whole number", n.column)
                self._set(tricks, name.text, int(n.text), f"$.claimed.tricks.{name.text}", f"claimed tricks {name.text}",
                          n.column)
        elif part == "pay":
            pays = claimed.setdefault("payments", [])
            none = len(rest) == 1 and rest[0].text == "none" and not rest[0].quoted
            other = self.written.get("$.claimed.payments" if none else "pay none")
            if other is not None:  # which of the two the table meant is not known
                raise NotationError(f"claimed pay: line {other} wrote {'a payment' if none else 'none'}; write one "
                                    "or the other", args[0].column)
            self.written.setdefault("pay none" if none else "$.claimed.payments", self.number)
            if none:
                return
            if len(rest) != 3:
                raise _shape(args[0], rest, "FROM TO AMOUNT", "claimed ")
            pays.append({"from": rest[0].text, "to": rest[1].text, "amount": rest[2].text})
        else:
            raise NotationError(f"claimed {part!r}: write winner, tricks or pay", args[0].column)

    # --- deal lines ---

    def _deal(self, args: list[Token], at: Token) -> None:
        players = self.rec.get("players")
        if players is None:
            raise NotationError("'deal' before the 'players' line", at.column)
        if args:
            dealer = _one(args, at, "the dealer")
        elif self.deals and self.rec.get("rules", {}).get("deal_rotation", "left") == "left":
            previous = self.deals[-1]["dealer"]
            dealer = players[(players.index(previous) + 1) % 3] if previous in players else previous
        else:
            raise NotationError("deal: name the dealer (only a later deal under rotation 'left' may leave the dealer out)",
                                at.column)
        self.deals.append({"dealer": dealer, "tricks": []})
        self.due = (players.index(dealer) + 1) % 3 if dealer in players else None
        self.trick_path = f"$.deals[{len(self.deals) - 1}].tricks["  # a trick's path is this, its index, ']'

    def _hand(self, args: list[Token], at: Token) -> None:
        if not args:
            raise _shape(at, args, "NAME and the cards")
        name, path = args[0].text, f"$.deals[{len(self.deals) - 1}].hands.{args[0].text}"
        self._set(self.deals[-1].setdefault("hands", {}), name, self._card_list(args[1:]), path, f"hand {name}",
                  args[0].column, cards=True)

    def _kitty(self, args: list[Token], at: Token) -> None:
        self._deal_part("kitty", self._card_list(args, allow_none=True), at, cards=True)

    def _discard(self, args: list[Token], at: Token) -> None:
        self._deal_part("discards", self._card_list(args, allow_none=True), at, cards=True)

    def _deal_part(self, key: str, value: Any, at: Token, cards: bool = False) -> None:
        self._set(self.deals[-1], key, value, f"$.deals[{len(self.deals) - 1}].{key}", at.text, at.column, cards)

    def _pass(self, args: list[Token], at: Token) -> None:
        passes = self.deals[-1].setdefault("passes", [])
        if len(args) == 1 and args[0].text == "none" and not args[0].quoted:
            return
        if len(args) != 4:
            raise _shape(at, args, "GIVER RECEIVER GIVEN RETURNED")
        passes.append({"from": args[0].text, "to": args[1].text, "card": self._card(args[2]),
                       "returned": self._card(args[3])})

    def _claim(self, args: list[Token], at: Token) -> None:
        if len(args) not in (2, 3):
            raise _shape(at, args, 'NAME contested|accepted ["STATEMENT"]')
        if args[1].text not in ("contested", "accepted"):
            raise NotationError(f'claim: "{args[1].text}" is neither contested nor accepted', args[1].column)
        claim: dict[str, Any] = {"by": args[0].text, "accepted": args[1].text == "accepted"}
        if len(args) == 3:
            claim["statement"] = args[2].text
        self._deal_part("claim", claim, at)

    def _left(self, args: list[Token], at: Token) -> None:
        groups: list[list[Token]] = [[]]
        for a in args:
            if a.text == "/" and not a.quoted:
                groups.append([])
            else:
                groups[-1].append(a)
        if len(groups) != 3 or not all(groups):
            raise _shape(at, args, "NAME CARDS / NAME CARDS / NAME CARDS")
        self._deal_part("left", {g[0].text: self._card_list(g[1:]) for g in groups}, at)

    # --- tricks and cards ---

    def _tricks(self, toks: list[Token]) -> None:
        if not self.deals:
            raise NotationError(f"{toks[0].text!r}: not a line of notation (a trick before the first 'deal'?)",
                                toks[0].column)
        trick: list[Token] = []
        for t in toks + [Token(";", 0)]:
            if t.text == ";" and not t.quoted:
                if trick:
                    self._trick(trick)
                trick = []
            else:
                trick.append(t)

    def _trick(self, toks: list[Token]) -> None:
        deal, players = self.deals[-1], self.rec["players"]
        trick_number, column = len(deal["tricks"]) + 1, toks[0].column
        if toks[0].text.endswith(".") and _digits(toks[0].text[:-1]) and not toks[0].quoted:
            if int(toks[0].text[:-1]) != trick_number:
                raise NotationError(f"trick number {toks[0].text} is trick {trick_number} of the deal", toks[0].column)
            toks = toks[1:]
        leader = None
        if toks and toks[0].text.endswith(":") and not toks[0].quoted:
            leader = toks[0].text[:-1]
            toks = toks[1:]
        elif len(toks) > 1 and toks[1].text == ":" and not toks[1].quoted:
            leader, toks = toks[0].text, toks[2:]
        if leader is None:
            if self.due is None:
                why = (f"trick {trick_number - 1}'s leader {deal['tricks'][-1]['leader']!r}" if deal["tricks"]
                       else f"the dealer {deal['dealer']!r}")
                raise NotationError(f"trick {trick_number}: write its leader ({why} is not one of {' '.join(players)})",
                                    column)
            leader = players[self.due]
        no_cards = len(toks) == 1 and toks[0].text == "-" and not toks[0].quoted
        cards = [] if no_cards else self._trick_cards(toks, trick_number)
        deal["tricks"].append({"leader": leader, "cards": cards})
        self.places[f"$.deals[{len(self.deals) - 1}].tricks[{trick_number - 1}]"] = self.number
        if cards and leader in players:
            ints = [self.table[c] for c in cards]  # the tokens _card wrote
            self.due = trick_winner(players.index(leader), ints)
        elif leader not in players:
            self.due = None

    def _trick_cards(self, toks: list[Token], trick_number: int) -> list[str]:
        if not toks:
            raise NotationError(f"trick {trick_number}: no cards (write - for a trick of none)", 1)
        lead = self._card(toks[0], where=f"trick {trick_number}")
        return [lead] + [self._card(t, where=f"trick {trick_number}", suit=lead[-1]) for t in toks[1:]]

    def _card(self, token: Token, where: str = "", suit: str | None = None) -> str:
        text = token.text
        if suit is not None and text.upper() in self.ranks:
            text = text + suit
        card = parse_token(text, self.table)
        if card is None:
            prefix = f"{where}: " if where else ""
            raise NotationError(f'{prefix}"{token.text}" {self._not_a_card(text, suit)}', token.column)
        return card_token(card, self.ranks)

    def _not_a_card(self, text: str, led: str | None) -> str:
        """Why a token is not a card; for a T (ten in some notations, ace in the game's description) what to write."""
        suit = t_rank_suit(text + led if led and text.upper() == "T" else text)
        if self.ranks is not SEED_RANKS and suit is not None:
            return (f"is not a card: T is ten in some notations and the ace in the game's description; write 10{suit} "
                    f"or A{suit}, or a 'cards seed' line if the game writes B D K T")
        return _NOT_A_CARD

    def _card_list(self, toks: list[Token], allow_none: bool = False) -> list[str]:
        if allow_none and len(toks) == 1 and toks[0].text == "none" and not toks[0].quoted:
            return []
        out, suit = [], None
        seed = self.ranks is SEED_RANKS
        for t in toks:
            letter = t.text.upper()
            if not seed and len(t.text) == 1 and (letter in SUITS or t.text in SUIT_SYMBOLS):
                suit = SUITS[(SUITS + SUIT_SYMBOLS).index(letter if letter in SUITS else t.text) % 4]
                continue
            out.append(self._card(t, suit=suit if letter in self.ranks else None))
        return out

    def _record(self) -> dict[str, Any]:
        rec = self.rec
        if "id" not in rec:
            raise NotationError("the game has no id")
        if self.notes:
            rec["notes"] = "\n".join(self.notes)
        rec["deals"] = self.deals
        return {"format": record_format(rec), **rec}


def _quick_cards(words: list[str]) -> list[int] | None:
    """A trick's cards, a follower by rank alone or with its suit; None for anything else (the careful path's)."""
    if not words:
        return None
    lead = _FULL_INT.get(words[0])
    if lead is None:
        return None
    bare = _BARE[lead // 13]
    out = [lead]
    for w in words[1:]:
        card = bare.get(w)
        if card is None:
            card = _FULL_INT.get(w)
            if card is None:
                return None
        out.append(card)
    return out


def line_of(places: dict[str, int], path: str, root: bool = True) -> int | None:
    """The line that wrote the field at `path`, or its nearest written parent ('$' only with `root`)."""
    while path and (root or path != "$"):
        if path in places:
            return places[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return None


def _shown(value: Any) -> str:
    """A field's value as a message quotes it: a list of names as written, else JSON."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    return value if isinstance(value, str) else json.dumps(value)


def _cards(cards: Counter) -> str:
    return " ".join(cards.elements()) or "nothing"


def _digits(text: str) -> bool:
    """A whole number as notation writes one: ASCII digits (isdigit also takes '²', which int() refuses)."""
    return text.isascii() and text.isdigit()


def _one(args: list[Token], at: Token, what: str) -> str:
    if len(args) != 1:
        raise _shape(at, args, what)
    return args[0].text


def _shape(at: Token, args: list[Token], what: str, before: str = "") -> NotationError:
    """A line whose words do not fit its keyword `at`, quoted as written."""
    got = '"' + " ".join(a.text for a in args) + '"' if args else "nothing"
    return NotationError(f"{before}{at.text}: write {what}, got {got}", at.column)


def card_token(card: int, ranks: tuple[str, ...]) -> str:
    """A card as a record writes it: canonical, or in the description's ranks under `cards seed`."""
    return CANONICAL[card] if ranks is RANKS else ranks[card % 13] + SUITS[card // 13]


# The common tokens of the English notation, as written (any case): what the quick path reads.
_FULL_INT = {t: c for t, c in token_table("en").items()} | {t.lower(): c for t, c in token_table("en").items()}
_FULL = {t: CANONICAL[c] for t, c in _FULL_INT.items()}
_BARE = [{r: s * 13 + i for i, r in enumerate(RANKS)} | {r.lower(): s * 13 + i for i, r in enumerate(RANKS)}
         for s in range(4)]

_PATHS = {"game": "$.id", "players": "$.players", "stake": "$.stake", "currency": "$.currency",
          "series": "$.series", "played": "$.played_at", "rules": "$.rules", "cards": "$.card_notation",
          "note": "$.notes", "ext": "$.ext", "claimed": "$.claimed", "deal": "{deal}", "kitty": "{deal}.kitty",
          "discard": "{deal}.discards", "claim": "{deal}.claim", "left": "{deal}.left"}

_GAME_LINES = {"game": _GameReader._game, "players": _GameReader._players, "stake": _GameReader._stake,
               "currency": _GameReader._currency, "series": _GameReader._series, "played": _GameReader._played,
               "rules": _GameReader._rules, "cards": _GameReader._cards, "note": _GameReader._note,
               "ext": _GameReader._ext, "claimed": _GameReader._claimed}
_DEAL_LINES = {"deal": _GameReader._deal, "hand": _GameReader._hand, "kitty": _GameReader._kitty,
               "discard": _GameReader._discard, "pass": _GameReader._pass, "claim": _GameReader._claim,
               "left": _GameReader._left}
KEYWORDS = frozenset(_GAME_LINES) | frozenset(_DEAL_LINES)  # the words that start a line other than a trick


def record_format(rec: dict[str, Any]) -> str:
    """The lowest format that holds a record: 1.2 for a deal without its hands, kitty, passes or
    discards, or with `left`; 1.1 for a claim; else 1."""
    deals = rec.get("deals") or []
    if any(d.get(k) is None for d in deals for k in ("hands", "kitty", "passes", "discards")) or \
            any("left" in d for d in deals):
        return "foreman/1.2"
    return "foreman/1.1" if any(d.get("claim") for d in deals) else "foreman/1"
