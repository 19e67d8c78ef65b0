"""Settlement certificates: each game's canonical hash (RFC 8785), the ledger, and their verification."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

from .errors import UsageError
from .money import signed
from .records import CERTIFICATE_FAMILY, FORMATS
from .results import GameResult

KIND = f"{CERTIFICATE_FAMILY}1"
MAX_BYTES = 1 << 30  # a certificate larger than this is refused unread (one of 100,000 games is about 30 MB)


# --- RFC 8785: the JSON Canonicalization Scheme ---

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch < " ":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def es_number(x: float) -> str:
    """A number as ECMAScript's Number.prototype.toString writes it (RFC 8785 section 3.2.2.3)."""
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError("NaN and Infinity are not JSON")
    if x == 0:
        return "0"
    if x < 0:
        return "-" + es_number(-x)
    sign, digits, exp = Decimal(repr(x)).as_tuple()
    s = "".join(map(str, digits))
    stripped = s.rstrip("0")
    exp += len(s) - len(stripped)
    s = stripped
    k, n = len(s), len(s) + exp  # x = 0.s * 10^n
    if k <= n <= 21:
        return s + "0" * (n - k)
    if 0 < n <= 21:
        return s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + s
    e = n - 1
    mant = s if k == 1 else s[0] + "." + s[1:]
    return f"{mant}e{'+' if e > 0 else '-'}{abs(e)}"


def canonical(value: Any) -> str:
    """The canonical JSON text of a value: sorted keys (by UTF-16 units), no spaces, ES numbers.

    Written with a stack of its own, not recursion, so a record nested any depth is hashed.
    """
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Punctuation):
            out.append(item.text)
        elif isinstance(item, list):
            out.append("[")
            stack.append(_Punctuation("]"))
            for i in range(len(item) - 1, -1, -1):
                stack.append(item[i])
                if i:
                    stack.append(_Punctuation(","))
        elif isinstance(item, dict):
            out.append("{")
            stack.append(_Punctuation("}"))
            pairs = sorted(item.items(), key=lambda kv: kv[0].encode("utf-16-be", "surrogatepass"))
            for i in range(len(pairs) - 1, -1, -1):
                stack.append(pairs[i][1])
                stack.append(_Punctuation(("," if i else "") + _string(pairs[i][0]) + ":"))
        else:
            out.append(_scalar(item))
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Punctuation:
    """Punctuation already canonical, waiting on canonical()'s stack."""

    text: str


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        try:
            return es_number(float(value))
        except OverflowError:  # beyond any double: kept exact (RFC 8785 has no such number)
            return str(value)
    if isinstance(value, float):
        return es_number(value)
    raise TypeError(f"not JSON: {type(value).__name__}")


def _no_constants(name: str):
    raise ValueError(f"{name} is not JSON")


def record_hash(text: str) -> str:
    """SHA-256 of a record's canonical JSON; of its bytes as read when it is not JSON."""
    try:
        value = json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return hashlib.sha256(canonical(value).encode("utf-8", "surrogatepass")).hexdigest()


# --- the certificate ---


@dataclass(slots=True)
class Hashed:
    """The games of a settlement as they streamed past, each with its canonical hash. With
    `certified` (verify: each game's hash in the certificate, by id), a record that hashes as
    certified once its `format` is written as another version is taken as the record certified."""

    games: list[dict[str, Any]] = field(default_factory=list)
    certified: dict[str, str] = field(default_factory=dict)

    def tap(self, results: Iterable[GameResult]) -> Iterator[GameResult]:
        """Pass results through, noting each game's id, source, hash and rules."""
        for r in results:
            if r.repeat:  # a copy of a game read before is no game of the settlement
                yield r
                continue
            digest, want = record_hash(r.text or ""), self.certified.get(r.id)
            if want is not None and want != digest and _in_another_format(r.text or "", want):
                digest = want
            self.games.append({"id": r.id, "source": r.source, "status": r.status, "sha256": digest, "rules": r.rules})
            yield r


def _in_another_format(text: str, want: str) -> bool:
    """True when the record hashes as `want` with its `format` written as another version. The
    format is the version of a record's representation, as whitespace and key order are its
    layout: notation writes none and reads back the lowest that holds the game, so a record that
    declared a higher one and its `.fmn` are one record. A change that matters still shows in the
    game's status, its rules or the ledger."""
    try:
        value = json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and any(
        hashlib.sha256(canonical({**value, "format": version}).encode("utf-8", "surrogatepass")).hexdigest() == want
        for version in FORMATS if version != value.get("format"))


def build(hashed: Hashed, ledger: dict[str, Any], overrides: dict[str, Any], version: str) -> dict[str, Any]:
    """The certificate: who made it, the games and their hashes, the ledger, and a hash over it all."""
    cert = {"certificate": KIND, "foreman": version, "created_at": datetime.now(timezone.utc).isoformat(),
            "overrides": overrides, "as_played": ledger["as_played"], "games": hashed.games,
            "balances": ledger["balances"], "transfers": ledger["transfers"]}
    cert["sha256"] = seal(cert)
    return cert


def seal(cert: dict[str, Any]) -> str:
    """The hash over a certificate's canonical JSON, without its own `sha256`."""
    body = {k: v for k, v in cert.items() if k != "sha256"}
    return hashlib.sha256(canonical(body).encode()).hexdigest()


@dataclass(slots=True)
class Verdict:
    """What verifying a certificate against the records found."""

    sealed: bool  # the certificate's own hash matches its content
    missing: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    ledger: list[str] = field(default_factory=list)  # how the recomputed ledger differs
    fields: list[str] = field(default_factory=list)  # any other field that differs from the recomputed one
    in_doubt: list[str] = field(default_factory=list)  # games the records hold twice, with texts that differ
    games: int = 0

    @property
    def verified(self) -> bool:
        """True when nothing differs and no game is in doubt."""
        return self.sealed and not (self.missing or self.added or self.changed or self.ledger or self.fields
                                    or self.in_doubt)


def read(text: str, where: str) -> dict[str, Any]:
    """Parse a certificate file's text; refuse what is not one."""
    try:
        cert = json.loads(text.removeprefix("\ufeff"), parse_constant=_no_constants)
    except RecursionError:
        raise UsageError(f"{where}: not a certificate: nested too deep to be one") from None
    except ValueError as e:
        raise UsageError(f"{where}: not a certificate: {e}") from None
    if not isinstance(cert, dict) or cert.get("certificate") != KIND:
        raise UsageError(f"{where}: not a foreman settlement certificate (no \"certificate\": \"{KIND}\")")
    shapes = {"games": list, "balances": dict, "transfers": list, "overrides": (dict, type(None)),
              "sha256": str, "foreman": str}
    for name, kind in shapes.items():
        if not isinstance(cert.get(name), kind):
            raise UsageError(f"{where}: a damaged certificate: its {name!r} is missing or of the wrong kind")
    if not all(isinstance(g, dict) for g in cert["games"]) or not all(isinstance(t, dict) for t in cert["transfers"]):
        raise UsageError(f"{where}: a damaged certificate: a game or a transfer is not an object")
    return cert


# What verify does not hold a game to: where its record was read (the same records may be checked
# from another folder). The certificate's time of making is not recomputed either.
WHERE_READ = "source"


def compare(cert: dict[str, Any], hashed: Hashed, ledger: dict[str, Any], version: str) -> Verdict:
    """Compare every field of a certificate with what the records give now: each game's hash,
    status and rules, the balances, the transfers (as a set), the foreman version, and no field
    besides the ones a certificate has."""
    verdict = Verdict(sealed=cert.get("sha256") == seal(cert), games=len(hashed.games))
    then = _by_key(cert["games"])
    now = _by_key(hashed.games)
    verdict.missing = [k for k in then if k not in now]
    verdict.added = [k for k in now if k not in then]
    verdict.changed = [k for k in then if k in now and _game_fields(then[k]) != _game_fields(now[k])]
    verdict.ledger = _balance_changes(cert["balances"], ledger["balances"])
    certified, made = _by_canonical(cert["transfers"]), _by_canonical(ledger["transfers"])
    verdict.ledger += [f"a transfer certified is not made now: {_transfer_words(t)}"
                       for key, t in certified.items() if key not in made]
    verdict.ledger += [f"a transfer made now was not certified: {_transfer_words(t)}"
                       for key, t in made.items() if key not in certified]
    if cert.get("foreman") != version:
        verdict.fields.append(f"made by foreman {cert.get('foreman')}, checked with foreman {version}")
    known = {"certificate", "foreman", "created_at", "overrides", "as_played", "games", "balances", "transfers",
             "sha256"}
    verdict.fields += [f"a field no certificate has: {name!r}" for name in sorted(set(cert) - known)]
    return verdict


def _game_fields(game: dict[str, Any]) -> str:
    return canonical({k: x for k, x in game.items() if k != WHERE_READ})


def _by_canonical(transfers: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The transfers by their canonical JSON: compared as a set, whatever their order."""
    return {canonical(t): t for t in transfers}


def _balance_changes(then: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Each balance the records give otherwise now, one a line: 'the balance of heidi (EUR): certified
    -10.00, now -14.00'. The certificate may be damaged, so what it holds is quoted, not trusted."""
    changes = []
    for currency in sorted(set(then) | set(now)):
        was, is_now, named = then.get(currency, {}), now.get(currency, {}), currency or "no currency"
        if isinstance(was, dict) and was != is_now:
            changes += [f"the balance of {p} ({named}): certified {_figure(was.get(p))}, now {_figure(is_now.get(p))}"
                        for p in sorted(set(was) | set(is_now)) if was.get(p) != is_now.get(p)]
        elif was != is_now or (currency in then) != (currency in now):  # not an object, or one side's alone
            changes.append(f"the balances in {named}: certified {_figure(then.get(currency))}, "
                           f"now {_figure(now.get(currency))}")
    return changes


PLAIN_AMOUNT = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _figure(value: Any) -> str:
    """A balance as settle shows it ('+4.00'); anything else the certificate holds, quoted as it is."""
    if isinstance(value, str):
        return signed(Decimal(value)) if PLAIN_AMOUNT.fullmatch(value) else value
    return "none" if value is None else canonical(value)


def _transfer_words(transfer: dict[str, Any]) -> str:
    """'bob pays alice 2.00 GBP', or the transfer's JSON when it is not one foreman writes."""
    if set(transfer) != {"from", "to", "amount", "currency"} or not all(isinstance(v, str) for v in transfer.values()):
        return canonical(transfer)
    return f"{transfer['from']} pays {transfer['to']} {transfer['amount']} {transfer['currency']}".rstrip()


def _by_key(games: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Games by id (a repeated id gets '#2', '#3'; a record with no id is named by its place)."""
    out: dict[str, dict[str, Any]] = {}
    for g in games:
        base = g.get("id") or f"(no id, {g.get('source')})"
        key, copy = base, 1
        while key in out:
            copy += 1
            key = f"{base}#{copy}"
        out[key] = g
    return out


def settle_certified(results: Iterable[GameResult], overrides: dict[str, Any], as_played: bool, version: str,
                     on_line=None):
    """Settle the games and make their certificate: (settlement.Settlement, certificate dict)."""
    from . import settle
    hashed = Hashed()
    ledger = settle.settle(hashed.tap(results), as_played=as_played, on_line=on_line)
    return ledger, build(hashed, ledger.to_dict(), overrides, version)


def verify(cert: dict[str, Any], results_of, version: str) -> Verdict:
    """Replay the records under the certificate's overrides and compare; `results_of(overrides)` audits."""
    from . import settle
    overrides = cert.get("overrides") or {}
    hashed = Hashed(certified={g["id"]: g["sha256"] for g in cert["games"]
                               if isinstance(g.get("id"), str) and isinstance(g.get("sha256"), str)})
    ledger = settle.settle(hashed.tap(results_of(overrides)), as_played=bool(cert.get("as_played")))
    verdict = compare(cert, hashed, ledger.to_dict(), version)
    # Matching the first of two different records proves nothing about which one the table played.
    verdict.in_doubt = [f"{r.source}: {r.message}" for r in ledger.conflicting]
    return verdict
