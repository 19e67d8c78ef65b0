"""Cards as small ints (suit * 13 + rank), hands as int bitmasks, and the card notations."""

from __future__ import annotations

from collections.abc import Iterable

# Suit order S H D C is only an encoding and a display order; there are no trumps.
SUITS = "SHDC"
SUIT_NAMES = ("spade", "heart", "diamond", "club")
SUIT_SYMBOLS = "♠♥♦♣"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SEED_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "B", "D", "K", "T")

DECK = tuple(range(52))
SUIT_OF = tuple(c // 13 for c in DECK)
RANK_OF = tuple(c % 13 for c in DECK)
BIT = tuple(1 << c for c in DECK)
SUIT_MASK = tuple(0x1FFF << (13 * s) for s in range(4))

CANONICAL = tuple(RANKS[c % 13] + SUITS[c // 13] for c in DECK)
# Canonical token -> card, and -> its bit: what the engine reads a record with.
CARD_OF = {t: c for c, t in enumerate(CANONICAL)}
BIT_OF = {t: 1 << c for c, t in enumerate(CANONICAL)}


def card(token: str) -> int:
    """Return the int of a canonical English card token such as '10S' (for code and tests)."""
    code = EN_TOKENS.get(token.upper())
    if code is None:
        raise KeyError(token)
    return code


def name(code: int) -> str:
    """Return the canonical token of a card int, e.g. 48 -> 'AC'."""
    return CANONICAL[code]


def names(cs: Iterable[int]) -> list[str]:
    """Return canonical tokens of cards in display order (suit S H D C, then rank high to low)."""
    return [CANONICAL[c] for c in sort_cards(cs)]


def sort_cards(cs: Iterable[int]) -> list[int]:
    """Sort cards for display: by suit S H D C, highest rank first."""
    return sorted(cs, key=lambda c: (c // 13, -(c % 13)))


def _build_tokens(ranks: tuple[str, ...]) -> dict[str, int]:
    table: dict[str, int] = {}
    for c in DECK:
        rank = ranks[c % 13]
        table[rank + SUITS[c // 13]] = c
        table[rank + SUIT_SYMBOLS[c // 13]] = c
    return table


# Upper-case keys; a lookup tries the token as written, then upper-cased (lower case is accepted).
EN_TOKENS = _build_tokens(RANKS)
SEED_TOKENS = _build_tokens(SEED_RANKS)


def token_table(notation: str) -> dict[str, int]:
    """Return the token -> card table for a record's `card_notation` ('en' or 'seed')."""
    return SEED_TOKENS if notation == "seed" else EN_TOKENS


def parse_token(token: str, table: dict[str, int]) -> int | None:
    """Return the card int for a token in the given table, or None when it is not a card."""
    code = table.get(token)
    if code is None:
        code = table.get(token.upper())
    return code


def t_rank_suit(token: str) -> str | None:
    """The suit letter of a token written T and a suit (ten in some notations, ace in the game's
    description), or None for any other token."""
    rank, suit = token[:-1].upper(), token[-1:].upper()
    if rank == "T" and suit and (suit in SUITS or suit in SUIT_SYMBOLS):
        return SUITS[(SUITS + SUIT_SYMBOLS).index(suit) % 4]
    return None


def explain_bad_token(token: str, notation: str) -> str:
    """Say in one sentence why a token is not a card, and what to write instead."""
    up = token.upper()
    rank, suit = up[:-1], up[-1:]
    t_suit = t_rank_suit(token)
    if notation != "seed" and t_suit is not None:
        return (
            f"card {token!r}: 'T' is ambiguous (Ten in some notations, Ace in the game's own "
            f"description); write '10{t_suit}' for the ten or 'A{t_suit}' for the ace, or set "
            f"\"card_notation\": \"seed\" if the whole record uses B, D, K, T"
        )
    if notation == "seed" and rank in ("J", "Q", "A") and suit and (suit in SUITS or suit in SUIT_SYMBOLS):
        seed = {"J": "B", "Q": "D", "A": "T"}[rank]
        return (
            f"card {token!r}: this record sets \"card_notation\": \"seed\", where the ranks are "
            f"B, D, K, T; write '{seed}{suit}'"
        )
    if notation != "seed" and rank in ("B", "D") and suit and (suit in SUITS or suit in SUIT_SYMBOLS):
        return (
            f"card {token!r}: '{rank}' is a rank of the description's notation; set "
            f"\"card_notation\": \"seed\" or write J, Q, K, A"
        )
    return f"card {token!r} is not a card: write rank then suit, e.g. '10S', 'QH', 'AD', '2C'"


# --- hands: a bitmask plus a dict of extra copies, because a record may deal a card twice ---


def hand_cards(mask: int, dup: dict[int, int] | None = None) -> list[int]:
    """List the cards of a hand (mask and extra copies), in display order."""
    out = []
    rest = mask
    while rest:
        low = rest & -rest
        code = low.bit_length() - 1
        out.append(code)
        if dup and code in dup:
            out.extend([code] * dup[code])
        rest ^= low
    return sort_cards(out)
