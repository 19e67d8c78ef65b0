"""Player ratings over won games in the order played: OpenSkill's Plackett-Luce model, with the seat's role."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

PROVISIONAL_GAMES = 10  # fewer rated games than this: the rating is marked provisional
ROLES = ("D", "L", "R")


@dataclass(frozen=True, slots=True)
class WonGame:
    """What a rating needs of one won game: who sat where, who won, the deciding deal's figures."""

    id: str
    played_at: str | None
    players: tuple[str, str, str]
    winner: int  # seat
    dealer: int  # seat of the deciding deal's dealer
    tricks: tuple[int, int, int]  # in the deciding deal, when play stopped

    def ranks(self) -> list[int]:
        """The game's order of finish: the winner first, the other two by their tricks in the
        deciding deal (the rules' loser has fewer), equal tricks tied. Not by quota outcome: the
        dealer's quota of 8 would put him last whatever he took, a role effect and not the player's."""
        others = sorted({self.tricks[s] for s in range(3) if s != self.winner}, reverse=True)
        return [1 if s == self.winner else 2 + others.index(self.tricks[s]) for s in range(3)]

    def role(self, seat: int) -> str:
        return ROLES[(seat - self.dealer) % 3]


@dataclass(frozen=True, slots=True)
class PlayerRating:
    player: str
    mu: float  # the model's estimate of his strength
    sigma: float  # its uncertainty
    games: int
    wins: int

    @property
    def rating(self) -> float:
        """The conservative figure players are ranked by: mu - 3 sigma (what he is very likely above)."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A player's rating just after one of his games (the player report's line over time)."""

    game_id: str
    played_at: str | None
    mu: float
    sigma: float


@dataclass(frozen=True)
class Ratings:
    """Every player's rating, best first, and how well the model foresaw the winners on the way."""

    players: tuple[PlayerRating, ...]
    games: int
    roles: tuple[PlayerRating, ...]  # the role terms (D, L, R) when used, else empty
    log_loss: float | None  # mean -ln(probability the model gave the winner before the game)
    history: dict[str, list[RatingPoint]] = field(default_factory=dict)
    undated: int = 0  # won games a season left out because they have no time (played_at)


def rate_games(games: Iterable[WonGame], role_term: bool = True, history_of: str | None = None) -> Ratings:
    """Rate the players of `games`, taken in the order given (the order played).

    With `role_term` each seat's team is the player and his role in the deciding deal, so a win
    that the role made likely moves the player's rating less. With `history_of`, that player's
    rating after each of his games is kept (Ratings.history).
    """
    from openskill.models import PlackettLuce  # the ratings commands only
    model = PlackettLuce()
    state: dict[str, Any] = {}
    counts: dict[str, list[int]] = {}
    history: dict[str, list[RatingPoint]] = {}
    loss, scored = 0.0, 0
    for g in games:
        names = _team_names(g, role_term)
        for name in (name for team in names for name in team if name not in state):
            state[name] = model.rating(name=name)
        teams = [[state[name] for name in team] for team in names]
        loss -= math.log(max(model.predict_win(teams)[g.winner], 1e-12))
        scored += 1
        for team, team_names in zip(model.rate(teams, ranks=g.ranks()), names):
            state.update(zip(team_names, team))
        for s, p in enumerate(g.players):
            tally = counts.setdefault(p, [0, 0])
            tally[0] += 1
            tally[1] += s == g.winner
            if p == history_of:
                history.setdefault(p, []).append(RatingPoint(g.id, g.played_at, state[p].mu, state[p].sigma))
    players = [PlayerRating(p, state[p].mu, state[p].sigma, *counts[p]) for p in counts]
    roles = [PlayerRating(r, state["role " + r].mu, state["role " + r].sigma, scored, 0)
             for r in ROLES if role_term and "role " + r in state]
    players.sort(key=lambda r: (-r.rating, r.player))
    return Ratings(tuple(players), scored, tuple(roles), loss / scored if scored else None, history)


def _team_names(game: WonGame, role_term: bool) -> list[list[str]]:
    """Each seat's team: the player, and with the role term his role's pseudo-player."""
    return [[game.players[s], "role " + game.role(s)] if role_term else [game.players[s]] for s in range(3)]


def season_bounds(season: str | None) -> tuple[str | None, str | None]:
    """`FROM..TO` (ISO dates, either end may be left out, both inclusive) as the two bounds."""
    from datetime import date
    from .errors import UsageError
    if season is None:
        return None, None
    start, sep, end = season.partition("..")
    if not sep:
        raise UsageError(f"--season {season!r}: write FROM..TO, e.g. 2026-01-01..2026-06-30 (either end may be left out)")
    for text in (start, end):
        if text:
            try:
                date.fromisoformat(text)
            except ValueError:
                raise UsageError(f"--season {season!r}: {text!r} is not a date (YYYY-MM-DD)") from None
    if start and end and date.fromisoformat(start) > date.fromisoformat(end):
        raise UsageError(f"--season {season!r}: {start} is after {end}; write the earlier date first")
    return start or None, end or None
