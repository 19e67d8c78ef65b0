"""Settlement certificates: canonical hashes (RFC 8785), settle --certificate, foreman verify."""

from __future__ import annotations

import json
import random
from decimal import Decimal

from typer.testing import CliRunner

from builders import base_deal, game
from foreman_cli import certificate
from foreman_cli.cli import app

runner = CliRunner()


def records(tmp_path, recs, name="games.jsonl", **dump):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r, **dump) + "\n" for r in recs))
    return p


def evening():
    return [game(id=f"g{i}", stake="1.00", currency="GBP", notes=f"game {i}") for i in range(3)]


def certify(tmp_path, path):
    cert = tmp_path / "cert.json"
    res = runner.invoke(app, ["settle", str(path), "--certificate", str(cert)])
    assert res.exit_code == 0, res.output
    return cert


def verify(cert, path):
    return runner.invoke(app, ["verify", str(cert), str(path)])


def test_canonical_json_follows_rfc_8785():
    assert certificate.canonical({"b": 2, "a": [1.0, "x\n\u0001"], "€": None, "\U0001F600": True, "\ufb33": False}) == \
        '{"a":[1,"x\\n\\u0001"],"b":2,"\u20ac":null,"\U0001F600":true,"\ufb33":false}'
    for x, text in [(1e21, "1e+21"), (1e-7, "1e-7"), (0.000001, "0.000001"), (-0.0, "0"), (5e-324, "5e-324"),
                    (333333333.3333333, "333333333.3333333"), (9007199254740992, "9007199254740992")]:
        assert certificate.canonical(x) == text


def test_certificate_verifies_and_holds_every_part(tmp_path):
    path = records(tmp_path, evening())
    cert = certify(tmp_path, path)
    doc = json.loads(cert.read_text())
    assert doc["certificate"] == certificate.KIND and doc["foreman"] and len(doc["games"]) == 3
    assert all(len(g["sha256"]) == 64 and g["rules"]["quota"] == "8-5-3" for g in doc["games"])
    assert doc["balances"] and doc["transfers"] and doc["sha256"] == certificate.seal(doc)
    res = verify(cert, path)
    assert res.exit_code == 0 and "verified: 3 games" in res.output


def test_whitespace_and_key_order_do_not_matter(tmp_path):
    cert = certify(tmp_path, records(tmp_path, evening()))
    shuffled = []
    for r in evening():
        items = list(r.items())
        random.Random(1).shuffle(items)
        shuffled.append(dict(items))
    again = records(tmp_path, shuffled, name="again.json")
    pretty = tmp_path / "pretty"
    pretty.mkdir()
    for r in evening():
        (pretty / f"{r['id']}.json").write_text(json.dumps(r, indent=4, sort_keys=True))
    assert verify(cert, again).exit_code == 0
    assert verify(cert, pretty).exit_code == 0


def test_any_one_byte_change_of_content_fails(tmp_path):
    recs = evening()
    path = records(tmp_path, recs, separators=(",", ":"))
    cert = certify(tmp_path, path)
    text = path.read_text()
    rng = random.Random(5)
    places = [i for i, ch in enumerate(text) if ch not in " \n"]
    for i in rng.sample(places, 40):
        new = chr(ord(text[i]) ^ 1)
        if new in " \t\r\n":
            new = "#"
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text[:i] + new + text[i + 1:])
        res = verify(cert, bad)
        assert res.exit_code == 1, (i, text[i], new)
        assert "changed since" in res.output or "missing" in res.output or "not in the certificate" in res.output


def test_missing_added_and_a_different_ledger_are_named(tmp_path):
    recs = evening()
    cert = certify(tmp_path, records(tmp_path, recs))
    res = verify(cert, records(tmp_path, recs[:2], name="two.jsonl"))
    assert res.exit_code == 1 and "g2: certified, but missing from the records" in res.output and "the ledger would differ" in res.output
    extra = recs + [game(id="g9")]
    res = verify(cert, records(tmp_path, extra, name="four.jsonl"))
    assert "g9: in the records, but not in the certificate" in res.output and "the ledger would be the same" in res.output
    changed = [dict(r) for r in recs]
    changed[1]["stake"] = "2.00"
    res = verify(cert, records(tmp_path, changed, name="stake.jsonl"))
    assert "g1: changed since the certificate was written" in res.output
    # Each balance and transfer that differs, in words, not the two ledgers as JSON
    doc, now = json.loads(cert.read_text()), json.loads(runner.invoke(
        app, ["settle", str(tmp_path / "stake.jsonl"), "--json"]).stdout)
    differ = [p for p in now["balances"]["GBP"] if now["balances"]["GBP"][p] != doc["balances"]["GBP"][p]]
    def shown(amount: str) -> str:  # signed, as settle shows a balance
        return amount if amount.startswith("-") or Decimal(amount) == 0 else "+" + amount
    assert differ and all(f"the balance of {p} (GBP): certified {shown(doc['balances']['GBP'][p])}, now "
                          f"{shown(now['balances']['GBP'][p])}" in res.output for p in differ), res.output
    assert any(shown(now["balances"]["GBP"][p]).startswith("+") for p in differ)  # a balance with its sign
    gone = [t for t in doc["transfers"] if t not in now["transfers"]]
    assert gone and all(f"a transfer certified is not made now: {t['from']} pays {t['to']} {t['amount']} GBP"
                        in res.output for t in gone)
    assert '{"GBP"' not in res.output and '"amount"' not in res.output


def test_a_tampered_certificate_is_caught(tmp_path):
    path = records(tmp_path, evening())
    cert = certify(tmp_path, path)
    doc = json.loads(cert.read_text())
    doc["transfers"][0]["amount"] = "0.01"
    cert.write_text(json.dumps(doc))
    res = verify(cert, path)
    assert res.exit_code == 1 and "the certificate itself was changed" in res.output


def test_verify_refuses_what_is_not_a_certificate(tmp_path):
    path = records(tmp_path, evening())
    bogus = tmp_path / "bogus.json"
    bogus.write_text('{"hello": 1}')
    res = verify(bogus, path)
    assert res.exit_code == 2 and "not a foreman settlement certificate" in res.output
    assert verify(tmp_path / "nope.json", path).exit_code == 2


def test_rules_of_the_certificate_are_used_to_verify(tmp_path):
    path = records(tmp_path, [game(id="g1", stake="1.00", deals=[base_deal()])])
    cert = tmp_path / "cert.json"
    assert runner.invoke(app, ["settle", str(path), "--rule", "quota=9-5-2", "--certificate", str(cert)]).exit_code == 0
    assert json.loads(cert.read_text())["overrides"] == {"quota": "9-5-2"}
    assert verify(cert, path).exit_code == 0


def _resealed(cert_path, change) -> None:
    doc = json.loads(cert_path.read_text())
    change(doc)
    doc["sha256"] = certificate.seal(doc)
    cert_path.write_text(json.dumps(doc))


def test_a_resealed_certificate_with_any_field_changed_fails(tmp_path):
    """verify recomputes every field from the records: a game's rules or status, the foreman
    version, a field added; a new seal over the change does not make it pass."""
    path = records(tmp_path, evening())
    changes = {
        "rules": lambda d: d["games"][0]["rules"].update(quota="9-5-2"),
        "status": lambda d: d["games"][1].update(status="unfinished"),
        "version": lambda d: d.update(foreman="0.0.1"),
        "a new field": lambda d: d.update(note="paid in full"),
        "a currency with no balance": lambda d: d["balances"].update(EUR={}),
        "a balance that is not an object": lambda d: d["balances"].update(GBP=0),
    }
    for name, change in changes.items():
        cert = certify(tmp_path, path)
        _resealed(cert, change)
        res = verify(cert, path)
        assert res.exit_code == 1, name
    assert "the balances in GBP: certified 0, now {" in res.output  # a damaged value is quoted, not read
    cert = certify(tmp_path, path)
    _resealed(cert, lambda d: d["transfers"].reverse())  # the same ledger in another order
    assert verify(cert, path).exit_code == 0


def test_a_certificate_read_as_records_are_and_damaged_ones_are_one_line(tmp_path):
    path = records(tmp_path, evening())
    cert = certify(tmp_path, path)
    cert.write_bytes(b"\xef\xbb\xbf" + cert.read_bytes())  # a byte order mark, as records may have
    assert verify(cert, path).exit_code == 0
    damaged = {"brackets": b"[" * 100_000, "utf-16": cert.read_text(encoding="utf-8-sig").encode("utf-16"),
               "truncated": cert.read_bytes()[:200], "games not a list": json.dumps(
                   {"certificate": certificate.KIND, "games": 5, "balances": {}, "transfers": [], "sha256": "x",
                    "foreman": "1", "overrides": {}}).encode()}
    for name, data in damaged.items():
        bad = tmp_path / f"{name}.json"
        bad.write_bytes(data)
        res = runner.invoke(app, ["verify", str(bad), str(path)])
        assert res.exit_code == 2 and "Traceback" not in res.output, name
        assert res.stderr.startswith(f"foreman: {bad}: ") and res.stderr.count("\n") == 2, (name, res.stderr)


def test_a_certificate_left_among_the_records_is_named_as_one_not_taken_apart_as_a_broken_game(tmp_path):
    folder = tmp_path / "friday"
    folder.mkdir()
    records(folder, evening())
    certify(folder, folder)  # settle's output saved beside the records it settled
    res = runner.invoke(app, ["validate", "--json", str(folder)])
    lines = [json.loads(line) for line in res.output.splitlines()]
    cert = [line for line in lines if line["source"].startswith(str(folder / "cert.json"))]
    assert res.exit_code == 1 and len(lines) == 4 and len(cert) == 1
    [finding] = cert[0]["violations"]
    assert finding["code"] == "RECORD_SCHEMA" and "settlement certificate" in finding["message"]
    assert "foreman verify" in finding["message"]
    near = folder / "cert.json"  # a JSON object that only names another kind of certificate is taken apart as usual
    near.write_text(json.dumps({"certificate": "x509/3", "games": []}))
    res = runner.invoke(app, ["validate", "--json", str(near)])
    problems = json.loads(res.output)["violations"]
    assert len(problems) > 1 and not any("settlement certificate" in p["message"] for p in problems)


def test_records_holding_a_game_twice_with_other_content_do_not_verify(tmp_path):
    first = game(id="g1", stake="1.00", currency="GBP")
    other = game(id="g1", stake="5.00", currency="GBP")
    (tmp_path / "a.jsonl").write_text(json.dumps(first) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps(other) + "\n")
    (tmp_path / "c.jsonl").write_text(json.dumps(first) + "\n")
    cert = tmp_path / "c.cert.json"
    settled = runner.invoke(app, ["settle", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                                  "--certificate", str(cert)])
    assert settled.exit_code == 1
    in_doubt = runner.invoke(app, ["verify", str(cert), str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")])
    assert in_doubt.exit_code == 1 and "verified" not in in_doubt.output
    assert "in doubt" in in_doubt.output and "b.jsonl:1" in in_doubt.output
    # Near misses: the first record alone, and the same record twice, verify.
    assert verify(cert, tmp_path / "a.jsonl").exit_code == 0
    twice = runner.invoke(app, ["verify", str(cert), str(tmp_path / "a.jsonl"), str(tmp_path / "c.jsonl")])
    assert twice.exit_code == 0 and "verified" in twice.output


def test_a_record_and_its_notation_verify_alike_whatever_format_the_record_declared(tmp_path):
    recs = [dict(r, format="foreman/1.2") for r in evening()]  # a higher format than the games need
    cert = certify(tmp_path, records(tmp_path, recs))
    typed = tmp_path / "games.fmn"
    assert runner.invoke(app, ["convert", str(tmp_path / "games.jsonl"), "--to", "fmn", "-o", str(typed)]).exit_code == 0
    assert verify(cert, typed).exit_code == 0, verify(cert, typed).output
    lowered = records(tmp_path, [dict(r, format="foreman/1") for r in recs], name="lowered.jsonl")
    assert verify(cert, lowered).exit_code == 0
    # Near miss: another format and a note changed is another record, though the ledger is the same.
    noted = records(tmp_path, [dict(recs[0], format="foreman/1", notes="amended"), *recs[1:]], name="noted.jsonl")
    res = verify(cert, noted)
    assert res.exit_code == 1 and "g0: changed since the certificate was written" in res.output, res.output
