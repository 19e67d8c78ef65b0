"""Turning results into what a person reads (rich) or a program reads (JSON Lines, CSV)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import IO, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .audit import Summary
from .findings import CODES, ERROR
from .results import GameResult


def console(file: IO[str] | None = None) -> Console:
    """A console that writes plain text, 120 columns wide, when not on a terminal (or with NO_COLOR)."""
    file = file or sys.stdout
    tty = hasattr(file, "isatty") and file.isatty()
    return Console(file=file, highlight=False, soft_wrap=True, width=None if tty else 120)


def json_line(obj: Any, out: IO[str]) -> None:
    """Write one object as a JSON line."""
    out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
    out.write("\n")


def validation_json(results: Iterable[GameResult], out: IO[str] | None = None) -> Summary:
    """Write one JSON line per game; return the counts."""
    out = out or sys.stdout
    summary = Summary()
    for r in results:
        summary.add(r)
        json_line(r.to_dict(), out)
    return summary


def _game_title(r: GameResult) -> Text:
    t = Text()
    t.append(r.source, style="bold")
    t.append(f"  game {r.id or '(no id)'}  ")
    if r.status == "won":
        t.append(f"won by {r.winner} in deal {r.deals_played}", style="green")
    elif r.status == "unfinished":
        t.append(f"unfinished after {r.deals_played} deal(s)", style="yellow")
    else:
        t.append("invalid: cannot be replayed", style="red")
    return t


def validation_human(results: Iterable[GameResult], out: IO[str] | None = None) -> Summary:
    """Write each game's findings in plain English, then a summary; return the counts."""
    con = console(out)
    summary = Summary()
    for r in results:
        summary.add(r)
        if not r.findings:
            continue
        con.print(_game_title(r))
        for f in r.findings:
            line = Text("  ")
            if f.place:
                line.append(f.place + ": ")
            line.append(f.message)
            line.append(f" ({f.code})", style="bold red" if f.severity == ERROR else "yellow")
            con.print(line)
    table = Table(title="foreman validate", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    for label, n in (("games read", summary.games), ("clean", summary.clean),
                     ("with breaches", summary.with_breaches), ("won", summary.won),
                     ("unfinished", summary.unfinished), ("invalid", summary.invalid)):
        table.add_row(label, str(n))
    con.print()
    con.print(table)
    if summary.by_code:
        codes = Table(show_header=True, box=None, pad_edge=False)
        codes.add_column("code")
        codes.add_column("findings", justify="right")
        codes.add_column("meaning")
        for code, n in sorted(summary.by_code.items(), key=lambda kv: (-kv[1], kv[0])):
            codes.add_row(code, str(n), CODES[code].title)
        con.print()
        con.print(codes)
    return summary


def schema(obj: dict[str, Any], out: IO[str] | None = None) -> None:
    """Print the JSON Schema."""
    (out or sys.stdout).write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def codes(selected: list[str], out: IO[str] | None = None) -> None:
    """Print the reference of finding codes (all, or the ones named)."""
    con = console(out)
    for code in selected:
        info = CODES[code]
        con.print(Text(f"{code}", style="bold") + Text(f"  ({info.severity})  {info.title}"))
        con.print(f"  Rule: {info.rule}")
        con.print(f"  Evidence shown: {info.evidence}")
        con.print(f"  Example: {info.example}")
        con.print()


def error(message: str, hint: str = "") -> None:
    """Print a one-line error (and its hint) on standard error."""
    con = Console(file=sys.stderr, highlight=False, soft_wrap=True)
    con.print(Text("foreman: ", style="bold red") + Text(message))
    if hint:
        con.print(Text(f"hint: {hint}", style="dim"))


def _signed(v) -> str:
    from . import money
    s = money.fmt(v)
    return s if s.startswith("-") or v.is_zero() else "+" + s


def settlement(s, out: IO[str] | None = None) -> None:
    """Print the ledger: games, balances per currency, transfers, and what was left out."""
    from . import money
    con = console(out)
    games = Table(title="Games", title_justify="left", box=None, pad_edge=False)
    for col in ("game", "status", "winner", "stake", "short of quota", "nets", "counted"):
        games.add_column(col)
    for g in s.games:
        stake = f"{money.fmt(g.stake)} {g.currency}" if g.stake is not None else "-"
        short = ", ".join(f"{p} {t}/{q}" for p, t, q in g.short) or "-"
        nets = ", ".join(f"{p} {_signed(v)}" for p, v in g.net.items()) if g.net else "-"
        counted = Text("yes", style="green") if g.counted else Text("no", style="yellow")
        if g.disputed:
            counted = Text("as played" if g.counted else "disputed", style="bold red")
        games.add_row(g.id or "(no id)", g.status, g.winner or "-", stake, short, nets, counted)
    con.print(games)
    if s.as_played and s.disputed:
        con.print(Text("--as-played: disputed games are counted as recorded.", style="bold red"))
    claims = [(g, c) for g in s.games for c in g.claim]
    if claims:
        con.print()
        con.print(Text("What the table wrote differs from the rules", style="bold"))
        for g, c in claims:
            con.print(f"  {g.id}: {c}")
    if s.excluded:
        con.print()
        con.print(Text("Left out of the balances", style="bold"))
        for gid, reason in s.excluded:
            con.print(f"  {gid or '(no id)'}: {reason}")
    for cur, bal in s.balances.items():
        con.print()
        t = Table(title=f"Balances ({cur})", title_justify="left", box=None, pad_edge=False)
        t.add_column("player")
        t.add_column("balance", justify="right")
        for p, v in bal.items():
            t.add_row(p, _signed(v))
        con.print(t)
    con.print()
    if s.transfers:
        con.print(Text("Who pays whom", style="bold"))
        for tr in s.transfers:
            con.print(f"  {tr.payer} pays {tr.payee} {money.fmt(tr.amount)} {tr.currency}")
    else:
        con.print(Text("Nothing to pay.", style="bold"))


def transfers_csv(s, out: IO[str] | None = None) -> None:
    """Write the transfers as CSV: from,to,amount,currency."""
    import csv
    w = csv.writer(out or sys.stdout, lineterminator="\n")
    w.writerow(["from", "to", "amount", "currency"])
    for t in s.transfers:
        d = t.to_dict()
        w.writerow([d["from"], d["to"], d["amount"], d["currency"]])
