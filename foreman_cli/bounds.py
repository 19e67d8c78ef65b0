"""The runs of equivalent cards and the bounds that decide a solver test without a search.

The bounds: the leader's quick tricks, the winners X keeps and a trick X cannot be kept from with
an opponent on lead, and the trick in progress when one side is sure of it (docs/solver.md says
why each holds)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from .board import TRICKS_PER_DEAL, Board
from .cards import SUIT_MASK, SUIT_OF


def lowest(mask: int) -> int:
    """The lowest card of a mask (a run's representative)."""
    return (mask & -mask).bit_length() - 1


def groups(legal: int, live: int) -> list[int]:
    """The runs of equivalent cards in `legal`, as masks, highest run of each suit first."""
    out = []
    for s in range(4):
        own = legal & SUIT_MASK[s]
        if not own:
            continue
        m = live & SUIT_MASK[s]
        run = 0
        while m:
            top = 1 << (m.bit_length() - 1)
            m ^= top
            if own & top:
                run |= top
            elif run:
                out.append(run)
                run = 0
        if run:
            out.append(run)
    return out


def from_card(c: int) -> int:
    """Every card of card c's suit ranked c or higher: the form each suit's relevant ranks take."""
    return SUIT_MASK[SUIT_OF[c]] & ~((1 << c) - 1)


def decided(trick: list[int]) -> int:
    """The ranks that decided a finished trick: from the winning card up, when another card followed suit."""
    led = SUIT_OF[trick[0]]
    same = [c for c in trick if SUIT_OF[c] == led]
    return from_card(max(same)) if len(same) > 1 else 0


def quick(board: Board) -> tuple[int, int]:
    """The cards the leader can cash in a row (a trick each), and the ranks that count (masks).

    Cards nobody else can beat count, and a whole suit counts when its top winners are at least as
    many as either other hand's cards in it (length winners)."""
    return cashable(board.hands, board.leader)


def cashable(hands: list[int], ld: int) -> tuple[int, int]:
    """`quick` of hands h with seat ld to lead."""
    a, c = hands[(ld + 1) % 3], hands[(ld + 2) % 3]
    cards = rel = 0
    for s in range(4):
        mine = hands[ld] & SUIT_MASK[s]
        if not mine:
            continue
        theirs = (a | c) & SUIT_MASK[s]
        if not theirs:
            cards |= mine
            continue
        top = theirs.bit_length() - 1
        winners = mine & ~((2 << top) - 1)
        if not winners:
            continue
        longest = max((a & SUIT_MASK[s]).bit_count(), (c & SUIT_MASK[s]).bit_count())
        cards |= mine if winners.bit_count() >= longest else winners
        rel |= from_card(top)
    return cards, rel


def kept_winners(board: Board, x: int, rem: int) -> tuple[int, int]:
    """Tricks X is sure to cash with an opponent on lead, and the ranks that count; 0 when none.

    X wins any trick led in a suit he holds a winner of, then cashes the rest; every other lead he
    answers with a loser, and once his losers are gone with a winner he can spare (one of a suit
    the opponents lack, or not his last of a suit). The opponents can lead the other suits at most
    `others` times (the longer of their holdings in each), so X discards at most `others` - losers
    winners and plays a winner on every trick but those leads; this holds while neither opponent
    reaches the target with those leads and X never has to give up a suit's last winner."""
    hands, a, c = board.hands, (x + 1) % 3, (x + 2) % 3
    wins = others = spare = rel = 0
    for s in range(4):
        mine, theirs = hands[x] & SUIT_MASK[s], (hands[a] | hands[c]) & SUIT_MASK[s]
        if not theirs:
            wins += mine.bit_count()
            spare += mine.bit_count()
            continue
        top = theirs.bit_length() - 1
        if mine:
            rel |= from_card(top)
        above = (mine & ~((2 << top) - 1)).bit_count()
        wins += above
        spare += max(above - 1, 0)
        if not above:
            others += max((hands[a] & SUIT_MASK[s]).bit_count(), (hands[c] & SUIT_MASK[s]).bit_count())
    discards = max(others - (hands[x].bit_count() - wins), 0)
    kept = min(wins - discards, rem - others)
    if kept <= 0 or discards > spare or max(board.tallies[a], board.tallies[c]) + others >= board.target:
        return 0, 0
    return kept, rel


def start_bound(board: Board, x: int, v: int, rem: int) -> tuple[bool, int] | None:
    """At a trick's start, whether the bounds decide "X ends the deal with at least v tricks", and
    the ranks that count; None when they do not (the core counts them in the same order)."""
    t = board.tallies[x]
    cards, qrel = quick(board)
    q = min(cards.bit_count(), rem)
    if board.leader == x:
        if t + q >= v:
            return True, qrel
        if t + q + 1 >= v:
            sure, rel = one_more_trick(board, x, rem, cards)
            if sure:
                return True, qrel | rel
        return None
    if t + rem - q < v:
        return False, qrel
    kept, rel = kept_winners(board, x, rem)
    if t + kept >= v:
        return True, rel
    if t + 1 >= v:
        sure, rel = one_more_trick(board, x, rem)
        if sure:
            return True, rel
    return None


def _below(m: int) -> int:
    """Every card up to the highest of m (none when m is empty)."""
    return (2 << (m.bit_length() - 1)) - 1 if m else 0


def _sure_winner(board: Board, x: int) -> tuple[int, int] | None:
    """Mid-trick: a seat one side can make win this trick whatever the other side plays, and the
    card it wins with (maybe the one already winning), or None when neither side is sure of it."""
    hands = board.hands
    best, winner = board.winning()
    led = SUIT_MASK[SUIT_OF[board.trick[0]]]
    over = led & ~((2 << best) - 1)  # the cards that would beat the trick so far
    yet = [(board.leader + j) % 3 for j in range(len(board.trick), 3)]
    opp_over = 0
    for p in yet:
        if p != x:
            opp_over |= hands[p] & over
    if winner == x:
        if not opp_over:  # neither opponent can beat X's card
            return x, best
    elif x not in yet or not hands[x] & over:
        sure = (winner, best)  # X cannot beat the coalition's card; a partner still to play goes under it, or must win
        for p in yet:
            if p not in (x, winner):
                legal = hands[p] & led or hands[p]
                if not legal & ~over:
                    sure = (p, lowest(legal))
        return sure
    beat_all = hands[x] & over & ~_below(opp_over)
    if x in yet and yet[0] != x and beat_all:  # X, still to play, can beat every card
        return x, lowest(beat_all)
    later = 0
    for p in yet[1:]:
        later |= hands[p] & led
    mine = hands[yet[0]] & over & ~_below(later)  # the mover beats the trick and every card still to come
    return (yet[0], lowest(mine)) if mine else None


def trick_bound(board: Board, x: int, v: int) -> tuple[bool, int] | None:
    """Mid-trick, when one side is sure of the trick: the leader of the next one and his quick
    tricks may decide the test already (DDS looks so at the second hand); None when they do not."""
    sure = _sure_winner(board, x)
    if sure is None:
        return None
    winner, card = sure
    to_play = [(board.leader + j) % 3 for j in range(len(board.trick), 3)]
    # Tricks after this one: a broken record's hands may differ in size.
    left = min([TRICKS_PER_DEAL - board.played - 1]
               + [h.bit_count() - (p in to_play) for p, h in enumerate(board.hands)])
    hands = list(board.hands)  # the others keep their cards: more cards never give the leader more quick tricks
    hands[winner] &= ~(1 << card)  # the card that wins, if it is still in his hand
    cards, qrel = cashable(hands, winner)
    q = min(cards.bit_count(), left)
    rel = from_card(card) | qrel
    t = board.tallies[x]
    if winner == x:
        return (True, rel) if t + 1 + q >= v else None
    return (False, rel) if t + left - q < v else None


def _bits(m: int) -> Iterator[int]:
    """Each card of a mask, as a one-card mask, lowest first."""
    while m:
        low = m & -m
        yield low
        m ^= low


def _run_tops(hand: int, live: int) -> int:
    """One card of each run of `hand` (its cards with no other live card between them)."""
    out = 0
    for run in groups(hand, live):
        out |= 1 << (run.bit_length() - 1)
    return out


@lru_cache(maxsize=1 << 16)
def can_clear(mine: int, after: int, before: int) -> bool:
    """Whether X's opponents can win every trick led in one suit until X's cards `mine` of it are
    gone, X playing only those; `after` and `before` hold the seats that play after X and before
    him. Masks of one suit, shifted to the lowest 13 bits."""
    if not mine:
        return True
    if mine.bit_count() > max(after.bit_count(), before.bit_count()) or mine > after | before:
        return False  # they run out of leads in the suit, or X's top card wins the first of them
    live = mine | after | before
    ours, a_runs, b_runs = _run_tops(mine, live), _run_tops(after, live), _run_tops(before, live)
    for lead in _bits(a_runs):  # `after` leads; `before` plays, then X
        for second in (_bits(b_runs) if before else [0]):
            if mine < max(lead, second) and all(
                    can_clear(mine ^ card, after ^ lead, before ^ second) for card in _bits(ours)):
                return True
    for lead in _bits(b_runs):  # `before` leads; X plays, then `after`
        if all(any(max(lead, third) > card and can_clear(mine ^ card, after ^ third, before ^ lead)
                   for third in (_bits(a_runs) if after else [0]))
               for card in _bits(ours)):
            return True
    return False


def _guard(mine: int, after: int, before: int) -> int:
    """The fewest of X's cards of a suit, his lowest left out, that the opponents cannot clear
    (see one_more_trick); 0 when they can clear them all."""
    if can_clear(mine, after, before):
        return 0
    while mine.bit_count() > 1 and not can_clear(mine & (mine - 1), after, before):
        mine &= mine - 1
    return mine


def one_more_trick(board: Board, x: int, rem: int, cashed: int = 0) -> tuple[bool, int]:
    """Whether X is sure of a trick after cashing `cashed` (his quick tricks, when he is on lead),
    and the ranks that count.

    If the opponents won every trick from now, they would lead every one. In a suit where they
    cannot clear a guard of X's cards (X plays those only there), they win fewer leads than the
    guard has cards; in any other suit at most the longer of their holdings. X answers those other
    leads with his other cards; if they are enough, and X holds one card a trick, the opponents run
    out of leads first. On lead, X first leads one of those other cards. Neither opponent may
    reach the target with the tricks he can win before X's (each takes a card of his of the suit
    led)."""
    hands, a, c = board.hands, (x + 1) % 3, (x + 2) % 3
    left, mine = rem - cashed.bit_count(), board.hands[x] & ~cashed
    if mine.bit_count() != left:
        return False, 0
    leads = spare = guarded = 0
    guards: dict[int, tuple[int, int]] = {}  # suit -> (guard, the longer opponent's holding)
    for s in range(4):
        shift, held = 13 * s, mine & SUIT_MASK[s]
        longest = max((hands[a] & SUIT_MASK[s]).bit_count(), (hands[c] & SUIT_MASK[s]).bit_count())
        guard = _guard(held >> shift, hands[a] >> shift & 0x1FFF, hands[c] >> shift & 0x1FFF) << shift if held else 0
        if guard:
            guards[s] = (guard, longest)
            spare += (held & ~guard).bit_count()
            guarded += guard.bit_count()
        else:
            leads += longest
    while leads > left - guarded and len(guards) > 1:  # a guard longer than the leads it stops is better spent
        s = max(guards, key=lambda s: (guards[s][0].bit_count() - guards[s][1], -s))
        guard, longest = guards[s]
        if guard.bit_count() <= longest:
            break
        del guards[s]
        leads, guarded = leads + longest, guarded - guard.bit_count()
    free = left - guarded
    if board.leader == x:  # X leads one of his other cards first; a spare one of a guarded suit uses one up
        if not free:
            return False, 0
        leads += free == spare
    if not guards or leads > free:
        return False, 0
    most = min(leads + guarded - len(guards), left - 1)  # the tricks they win before X's
    for o in (a, c):  # each trick he wins takes a card of his of the suit led
        own = 0
        for s in range(4):
            held = (hands[o] & SUIT_MASK[s]).bit_count()
            own += min(held, guards[s][0].bit_count() - 1) if s in guards else held
        if board.tallies[o] + min(own, most) >= board.target:
            return False, 0
    rel = 0
    for guard, _ in guards.values():
        rel |= from_card(lowest(guard))
    return True, rel
