"""The settlement's views: the ledger on the terminal, its JSON and its transfers as CSV."""

from __future__ import annotations

import json
import sys
from typing import IO, Any

import msgspec
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import money
from .render import console, fitted_table, name_clash, say_dropped, warning
from .words import plural, shown_id

PER_GAME_UP_TO = 50  # games a settlement lists one by one unless asked; above, its summary
LISTED_UP_TO = 20  # lines of a section the summary shows before "and N more"


def settlement(ledger, out: IO[str] | None = None, per_game: bool = False) -> None:
    """Print the ledger: the games (one by one, or counted when there are many), what was left out,
    balances per currency and transfers."""
    con = console(out)
    whole = per_game or len(ledger.games) <= PER_GAME_UP_TO
    if whole:
        _games_table(con, ledger)
    else:
        _games_summary(con, ledger)
    if ledger.as_played and ledger.disputed:
        con.print(Text("--as-played: disputed games are counted as recorded.", style="bold red"))
    for title, sep, part in (("What the table wrote differs from the rules", ": ", "claim"),
                             ("Claims of the remaining tricks", ", ", "claims")):
        _section(con, title, [f"  {_named(game)}{sep}{c}" for game in ledger.games for c in getattr(game, part)], whole)
    # Counted above when many: only the games whose money is in doubt are listed then.
    left_out = [g for g in ledger.games if not g.counted and (whole or g.disputed or g.status == "invalid")]
    _section(con, "Left out of the balances", [f"  {_named(game)}: {game.reason or ''}" for game in left_out], whole)
    _repeats(con, ledger)
    _section(con, "Names written two ways",
             ["  " + name_clash(group, "the balances keep them apart") for group in ledger.name_clashes], True)
    for cur, bal in ledger.balances.items():
        con.print()
        balances = Table(title=f"Balances ({cur or 'no currency'})", title_justify="left", box=None, pad_edge=False)
        balances.add_column("player")
        balances.add_column("balance", justify="right")
        for p, v in bal.items():
            balances.add_row(p, money.signed(v))
        con.print(balances)
    con.print()
    if ledger.transfers:
        con.print(Text("Who pays whom", style="bold"))
        for tr in ledger.transfers:
            con.print(f"  {tr.payer} pays {tr.payee} {money.fmt(tr.amount)} {tr.currency}".rstrip())
    else:
        con.print(Text("Nothing to pay.", style="bold"))


def _named(game) -> str:
    """A game by its id; a record without one by where it is, the only way to find it."""
    return shown_id(game.id) if game.id else f"{game.source} (no id)"


def _section(con: Console, title: str, rows: list[str], whole: bool) -> None:
    if not rows:
        return
    con.print()
    con.print(Text(title, style="bold"))
    shown = rows if whole else rows[:LISTED_UP_TO]
    for row in shown:
        con.print(row)
    if len(shown) < len(rows):
        con.print(f"  and {len(rows) - len(shown):,} more (--per-game lists every one)")


def _games_table(con: Console, ledger) -> None:
    rows = []
    for game in ledger.games:
        stake = f"{money.fmt(game.stake)} {game.currency}".rstrip() if game.stake is not None else "-"
        short = ", ".join(f"{p} {t}/{q}" for p, t, q in game.short) or "-"
        nets = ", ".join(f"{p} {money.signed(v)}" for p, v in game.net.items()) if game.net else "-"
        counted = Text("yes", style="green") if game.counted else Text("no", style="yellow")
        if game.disputed:
            counted = Text("as played" if game.counted else "disputed", style="bold red")
        rows.append([_named(game), game.status, game.winner or "-", stake, short, nets, counted])
    columns = [(name, "left") for name in ("game", "status", "winner", "stake", "short of quota", "nets", "counted")]
    games, dropped = fitted_table(con, columns, rows, {"game", "stake"}, ["short of quota", "nets", "stake"],
                                  title="Games", title_justify="left")
    con.print(games)
    say_dropped(con, dropped)


def _games_summary(con: Console, ledger) -> None:
    """The games counted, for a settlement of many (the table is behind --per-game)."""
    games = ledger.games
    counts = {"counted": sum(g.counted for g in games), "disputed": sum(g.disputed and not g.counted for g in games),
              "invalid": sum(g.status == "invalid" for g in games),
              "unfinished": sum(g.status == "unfinished" for g in games),
              "for no stake": sum(g.status == "won" and g.stake is None and not g.disputed for g in games)}
    con.print(Text(f"Games: {len(ledger.games):,} settled", style="bold"))
    table = Table(box=None, pad_edge=False, show_header=False)
    table.add_column()
    table.add_column(justify="right")
    for label, n in counts.items():
        table.add_row(label, f"{n:,}")
    con.print(table)
    con.print(Text("(one line a game: --per-game; --json and --csv hold every game)", style="dim"))


def _repeats(con: Console, ledger) -> None:
    """The copies of games read before, which the ledger does not hold (DUPLICATE_GAME)."""
    if not ledger.repeats:
        return
    con.print()
    con.print(Text("Read again, not counted (DUPLICATE_GAME)", style="bold"))
    for r in ledger.repeats:
        con.print(f"  {r.source}: {r.message}")
    if ledger.conflicting:
        # The first record stands whatever its status: it may itself be left out (invalid, disputed).
        con.print("  A game read again as another record is in doubt: its first record stands, as listed above, and "
                  "the later one takes part in nothing; check with the table which one is right.")


def _nested(value: Any, level: int) -> str:
    """JSON of a value as json.dumps(indent=2) writes it `level` levels down in a document."""
    # msgspec writes the same text (UTF-8 kept, the same escapes); json's indenting encoder is pure Python
    return _indented(msgspec.json.encode(value), level)


def _indented(compact: bytes, level: int) -> str:
    """JSON text, indented as json.dumps(indent=2) indents it `level` levels down in a document."""
    return msgspec.json.format(compact, indent=2).decode().replace("\n", "\n" + "  " * level)


class SettlementJSON:
    """`settle --json` written as it goes: each game when it is settled, the totals at the end.

    The excluded games come after the totals in the document, so they wait in a temporary file:
    memory stays flat however many games the input holds.
    """

    def __init__(self, out: IO[str] | None = None) -> None:
        import tempfile
        self.out = out or sys.stdout
        self.games = 0
        self.spool = tempfile.TemporaryFile("w+b")  # a line of compact JSON per excluded game
        self.excluded = 0

    def line(self, game) -> None:
        """Write one game's line (settle.LedgerLine)."""
        self.out.write(('{\n  "games": [\n    ' if not self.games else ",\n    ") + _nested(game.to_dict(), 2))
        self.games += 1
        if not game.counted:
            self.spool.write(msgspec.json.encode({"id": game.id, "reason": game.reason or ""}) + b"\n")
            self.excluded += 1

    def finish(self, ledger) -> None:
        """Write the totals of the settlement (settle.Settlement) and close the document."""
        write = self.out.write
        write('{\n  "games": []' if not self.games else "\n  ]")
        data = ledger.to_dict()
        write(',\n  "balances": ' + _nested(data["balances"], 1) + ',\n  "transfers": ' + _nested(data["transfers"], 1))
        write(',\n  "excluded": ' + ("[]" if not self.excluded else "["))
        self.spool.seek(0)
        for i, row in enumerate(self.spool):
            write(("\n    " if not i else ",\n    ") + _indented(row, 2))
        write("\n  ]" if self.excluded else "")
        write(',\n  "as_played": ' + json.dumps(data["as_played"]))
        write(',\n  "repeats": ' + _nested(data["repeats"], 1))
        write(',\n  "name_clashes": ' + _nested(data["name_clashes"], 1) + "\n}\n")
        self.spool.close()


def transfers_csv(ledger, out: IO[str] | None = None) -> None:
    """Write the transfers as CSV: from,to,amount,currency."""
    import csv  # CSV output only
    writer = csv.writer(out or sys.stdout, lineterminator="\n")
    writer.writerow(["from", "to", "amount", "currency"])
    for t in ledger.transfers:
        row = t.to_dict()
        writer.writerow([row["from"], row["to"], row["amount"], row["currency"]])
    _what_the_transfers_leave_out(ledger)


def _what_the_transfers_leave_out(settlement) -> None:
    """Said on standard error: the CSV holds the transfers alone, and a sheet made of it must not
    pass for the whole evening when a game was left out or is in doubt."""
    why = []
    if settlement.left_out:
        why.append(f"leave out {plural(settlement.left_out, 'game')} (disputed or invalid)")
    if settlement.conflicting:
        why.append(f"rest on the first record of {plural(len(settlement.conflicting), 'game')} "
                   "read again as another record")
    if why:
        warning(f"the transfers {' and '.join(why)}", "foreman settle without --csv names them")
