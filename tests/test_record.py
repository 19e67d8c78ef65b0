"""`foreman record`: a scorer that checks each line as it is entered, keeps every acknowledged trick
on disk, resumes where it stopped, and writes the records any other command reads."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from foreman_cli import audit
from foreman_cli.cli import app
from foreman_cli.convert import write_game
from foreman_cli.errors import InputError
from foreman_cli.generate import INJECTABLE, as_seen, generate
from foreman_cli.reader import RawRecord, read_records
from foreman_cli.record_session import run_piped
from foreman_cli.rules import HouseRules
from foreman_cli.scorer import Scorer

from builders import styled_notation

ROOT = Path(__file__).resolve().parent.parent
EVENING = ROOT / "samples" / "10-play-only-evening.fmn"
runner = CliRunner()


def validated(path: Path) -> list[dict]:
    """`validate --json` of a file, each game's line without its source (the file and line it was read at)."""
    out = runner.invoke(app, ["validate", "--json", str(path)]).stdout
    return [{k: v for k, v in json.loads(line).items() if k != "source"} for line in out.splitlines()]


def piped(path: Path, text: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_piped(Scorer(path), text.splitlines(), out, err)
    return code, out.getvalue(), err.getvalue()


def typed_evening() -> str:
    """The sample evening as a scorer might type it: tricks several to a line and with full suits in
    game 1, a wrong trick taken back with `undo` and typed again, comments; the revoke of game 2 and
    the claim of game 3 as the table played them."""
    out = []
    for line in EVENING.read_text().splitlines():
        if line == "2. QS 3 4":
            out.append("QS 3S 4S; AH K J   # two tricks on a line")
            continue
        if line == "3. AH K J":
            continue
        if line == "5. QH 7 4":
            out += ["5. QH 7 5", "undo"]
        out.append(line)
    return "\n".join(out) + "\n"


def test_an_evening_typed_with_a_correction_gives_the_records_of_the_evening_written_by_hand(tmp_path):
    kept = tmp_path / "friday.fmn"
    result = runner.invoke(app, ["record", str(kept)], input=typed_evening())
    assert result.exit_code == 0, result.output
    assert validated(kept) == validated(EVENING)
    said = result.stdout
    assert "took back: 5. QH 7 5" in said
    assert "kept as played: bob showed out of spades at trick 1 (KH); AS cannot be bob's unless trick 1 was " \
           "written wrong (REVOKE)" in said
    assert "claim by carol: 6 tricks credited; it does not hold" in said
    assert "alice wins the game: bob pays alice 2.00 GBP, carol pays alice 2.00 GBP" in said


def test_an_evening_recorded_validates_settles_and_loads(tmp_path):
    kept = tmp_path / "friday.fmn"
    runner.invoke(app, ["record", str(kept)], input=typed_evening())
    assert runner.invoke(app, ["settle", str(kept)]).stdout == runner.invoke(app, ["settle", str(EVENING)]).stdout
    db = tmp_path / "a.duckdb"
    loaded = runner.invoke(app, ["load", str(kept), "--db", str(db)])
    assert loaded.exit_code in (0, 1), loaded.output
    stats = runner.invoke(app, ["stats", "--db", str(db)])
    assert "alice" in stats.stdout and "bob" in stats.stdout


def _generated():
    rules = HouseRules(deal_rotation="left")
    for k in range(4):
        for rec, _ in generate(3, 500 + k, rules=rules, max_deals=4, claims=0.3):
            yield as_seen(rec, {d: k % 2 == 0 for d in range(len(rec["deals"]))}) if k < 2 else rec
    for k, code in enumerate(INJECTABLE):
        yield from (r for r, _ in generate(1, 600 + k, inject=code, max_deals=3))


GENERATED = list(_generated())


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, len(GENERATED) - 1), st.integers(0, 2**32))
def test_any_notation_file_piped_into_record_gives_the_same_records(i, seed):
    text = styled_notation(GENERATED[i], random.Random(seed))
    with tempfile.TemporaryDirectory() as d:
        typed, kept = Path(d) / "typed.fmn", Path(d) / "kept.fmn"
        typed.write_text(text)
        code, _, err = piped(kept, text)
        assert code == 0, err
        assert validated(kept) == validated(typed)


_SLIPS = ["undo", "show", "help", ";", "# a note to self", "", "deal", "deal zed", "game g1", "players alice bob",
          "stake 1,5", "cards seed", "rules x=y", "series s 0", "KX", "10", "A", "QS QS QS QS", "1. 7S",
          "claim alice contested", "left alice 4C / bob AS / carol KD", "pass bob carol 2S", "kitty 2S 3S",
          "hand zed 2S", "claimed winner zed", "alice: KS Q J", '"alice": 7S', "ext {", "note \"open"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(GENERATED) - 1), st.lists(st.tuples(st.integers(0, 400), st.sampled_from(_SLIPS)),
                                                    max_size=8), st.booleans(), st.integers(0, 2**32))
def test_a_game_typed_with_any_slips_is_answered_line_by_line_and_resumes(i, slips, by_card, seed):
    """A real game with slips, commands and lines dropped or cut into cards at random: every line is
    answered (kept or refused), never an internal error, and the file it leaves reads again."""
    rng = random.Random(seed)
    lines = styled_notation(GENERATED[i], rng).splitlines()
    for at, slip in slips:
        if rng.random() < 0.2 and lines:
            del lines[at % len(lines)]
        else:
            lines.insert(at % (len(lines) + 1), slip)
    if by_card:  # a few tricks one card a line, as at a terminal
        lines = [word for line in lines for word in (line.split() if rng.random() < 0.1 and ";" not in line
                                                     and not line.startswith(("game", "#")) else [line])]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.fmn"
        scorer = Scorer(path, by_card=by_card)
        try:
            assert run_piped(scorer, lines, io.StringIO(), io.StringIO()) in (0, 1)
        finally:
            scorer.journal.close()
        again = Scorer(path, by_card=by_card)
        try:
            again.show(), again.turn(), again.next_game()
        finally:
            again.journal.close()


# --- checked as typed ---

HEAD = "game t\nplayers alice bob carol\ndeal alice\n"


def scorer_at(tmp_path: Path, body: str = "", by_card: bool = True) -> Scorer:
    (tmp_path / "t.fmn").write_text(HEAD + body)
    return Scorer(tmp_path / "t.fmn", by_card=by_card)


@pytest.mark.parametrize("typed, said", [
    ("KX", '"KX" is not a card'),
    ("7", '"7" is not a card'),  # a lead needs its suit
    ("3. 7S A 9", "trick number 3. is trick 2 of the deal"),
    ("deal zed", "zed"),  # not a player
    ("pass bob carol", 'pass: write GIVER RECEIVER GIVEN RETURNED, got "bob carol"'),
])
def test_a_line_that_cannot_be_a_record_is_refused_and_nothing_is_kept(tmp_path, typed, said):
    s = scorer_at(tmp_path, "1. 7S A 9\n")
    before = (tmp_path / "t.fmn").read_text()
    attempt = s.attempt(typed)
    assert said in attempt.refused
    assert s.commit(attempt)[0].kind == "refused"
    assert (tmp_path / "t.fmn").read_text() == before


def test_a_game_id_the_file_holds_already_is_refused_with_the_next_free_one(tmp_path):
    first = EVENING.read_text().split("\ngame fri-1211-g2")[0]
    code, _, err = piped(tmp_path / "e.fmn", first + "\ngame fri-1211-g1\n")  # the game number not moved on
    assert code != 0 and "game fri-1211-g1 is in this file already, at line 3" in err, err
    assert "such as fri-1211-g2" in err
    assert [r["id"] for r in validated(tmp_path / "e.fmn")] == ["fri-1211-g1"]  # nothing was kept
    # Piped, the refused game's other lines are left out too, not added to the game before it.
    slipped = EVENING.read_text().replace("game fri-1211-g2", "game fri-1211-g1")
    code, _, err = piped(tmp_path / "piped.fmn", slipped)
    refused_at = slipped.splitlines().index("game fri-1211-g1", 5) + 1
    assert code == 1 and f"the rest of the game refused at line {refused_at} (not kept)" in err, err
    games = validated(tmp_path / "piped.fmn")
    assert [g["id"] for g in games] == ["fri-1211-g1", "fri-1211-g3"]
    assert games[0] == validated(EVENING)[0] and games[1] == validated(EVENING)[2]
    # Near miss: an id that only begins like one the file holds is another game's.
    code, _, err = piped(tmp_path / "e.fmn", "game fri-1211-g10\nplayers alice bob carol\n")
    assert code == 0 and [r["id"] for r in validated(tmp_path / "e.fmn")] == ["fri-1211-g1", "fri-1211-g10"], err


def _evening_in_a_series(second_place: str) -> str:
    """The sample evening's first two games, the first as game 1 of series fri and the second at
    `second_place` (carol deals it; alice won game 1 and bob took fewest tricks)."""
    first, second = EVENING.read_text().split("\ngame fri-1211-g3")[0].split("\ngame fri-1211-g2")
    return (first.replace("stake 1.00 GBP", "stake 1.00 GBP\nseries fri 1")
            + "\ngame fri-1211-g2" + second.replace("stake 1.00 GBP", f"stake 1.00 GBP\nseries {second_place}"))


def said_to(path: Path, text: str) -> str:
    """What the scorer tells the table of `text` piped into `path`, every line kept."""
    code, out, err = piped(path, text)
    assert code == 0, err
    return out + err


def validated_codes(path: Path) -> list[str]:
    """The finding codes `validate` gives the file, game after game."""
    return [v["code"] for game in validated(path) for v in game["violations"]]


def test_a_series_game_dealt_by_one_the_series_does_not_allow_is_asked_once_as_validate_finds_it(tmp_path):
    said = said_to(tmp_path / "s.fmn", _evening_in_a_series("fri 2"))
    assert said.count("(DEALER_SUCCESSION)") == 1, said
    assert "kept as played: deal 1: carol dealt game 2 of series fri; under next_dealer 'winner-or-loser' " \
           "the dealer is alice or bob" in said
    assert validated_codes(tmp_path / "s.fmn").count("DEALER_SUCCESSION") == 1
    # Near miss: the first game of another series follows no game of it.
    said = said_to(tmp_path / "other.fmn", _evening_in_a_series("sat 1"))
    assert "DEALER_SUCCESSION" not in said and "series" not in said


def test_a_series_place_the_file_holds_already_is_asked_with_the_next_free_one(tmp_path):
    said = said_to(tmp_path / "s.fmn", _evening_in_a_series("fri 1"))
    assert said.count("is the place of game") == 1, said
    assert "series fri 1 is the place of game fri-1211-g1 already (line 3): with two games in one place neither " \
           "one's dealer can be checked; the series' next place is 2 (SERIES_SEQ_SHARED, as validate will say)" in said
    assert "DEALER_SUCCESSION" not in said  # validate judges no succession for a place held twice either
    found = validated_codes(tmp_path / "s.fmn")
    assert "DEALER_SUCCESSION" not in found and found.count("SERIES_SEQ_SHARED") == 1


def test_a_series_place_past_places_the_file_lacks_is_asked_with_the_next_free_one(tmp_path):
    said = said_to(tmp_path / "g.fmn", _evening_in_a_series("fri 4"))
    assert said.count("(SERIES_GAP, as validate will say)") == 1, said
    assert "series fri 4: games 2-3 of the series are not in this file, so this game's dealer cannot be checked; " \
           "the series' next place is 2" in said
    found = validated_codes(tmp_path / "g.fmn")
    assert found.count("SERIES_GAP") == 1 and "DEALER_SUCCESSION" not in found
    assert "SERIES_GAP" not in said_to(tmp_path / "n.fmn", _evening_in_a_series("fri 2"))  # the near miss


def test_what_was_asked_before_the_hands_is_not_asked_again_when_they_are_entered_one_by_one(tmp_path):
    rec = next(r for r, _ in generate(1, 7, inject="WRONG_DEALER", max_deals=4))
    text = write_game(rec)
    assert "\nhand " in text
    said = said_to(tmp_path / "w.fmn", text)
    assert said.count("(WRONG_DEALER)") == 1, said


def test_passes_entered_a_line_each_are_not_asked_about_until_a_trick_shows_one_missing(tmp_path):
    rec = next(r for r, _ in generate(1, 8, max_deals=1))
    said = said_to(tmp_path / "p.fmn", write_game(rec))
    assert "PASS_SEQUENCE" not in said, said
    # Near miss: the deal's third pass never entered is asked about, once, when its first trick is.
    rec["deals"][0]["passes"].pop()
    said = said_to(tmp_path / "q.fmn", write_game(rec))
    assert said.count("pass 3 is missing") == 1, said


_VERDICTS = {"UNFINISHED", "CLAIM_MISMATCH", "CLAIM_REFUTED", "CLAIM_DOUBTFUL"}  # judged for the table, not asked


def _kitty_first(text: str) -> str:
    """A game's notation with each deal's `kitty` and `discard` lines before its passes."""
    out: list[str] = []
    passes: list[str] = []
    for line in text.splitlines():
        if line.startswith("pass "):
            passes.append(line)
            continue
        if passes and not line.startswith(("kitty ", "discard ")):
            out, passes = out + passes, []
        out.append(line)
    return "\n".join(out + passes) + "\n"


@pytest.mark.parametrize("code", [None, *INJECTABLE])
def test_each_breach_is_asked_once_as_the_lines_are_entered_and_a_clean_game_asks_nothing(tmp_path, code):
    for seed, kitty_first in ((0, False), (1, True)):  # as convert writes it, or the kitty first
        rec = next(r for r, _ in generate(1, 700 + seed, inject=code, max_deals=3))
        text = _kitty_first(write_game(rec)) if kitty_first else write_game(rec)
        said = said_to(tmp_path / f"{seed}-{kitty_first}.fmn", text)
        asked = Counter(line.rsplit("(", 1)[-1].rstrip(")") for line in said.splitlines()
                        if line.startswith("kept as played"))
        found = audit.check_record(RawRecord("x", 1, json.dumps(rec))).findings
        assert asked == Counter(f.code for f in found if f.code not in _VERDICTS), said


def test_a_card_already_played_is_flagged_and_kept_only_when_the_table_says_so(tmp_path):
    s = scorer_at(tmp_path, "1. 7S A 9\n")
    attempt = s.attempt("AS")  # carol led AS? she played it at trick 1
    assert any("AS" in f and "trick 1" in f for f in attempt.flags), attempt.flags
    near = s.attempt("KS")
    assert near.flags == [] and near.refused is None


def test_a_card_off_suit_from_a_player_who_showed_out_is_flagged_with_the_trick_that_shows_it(tmp_path):
    s = scorer_at(tmp_path, "1. 7S KH 9\n")  # carol showed out of spades
    s.commit(s.attempt("2S"))  # alice won trick 1 and leads
    s.commit(s.attempt("3"))
    attempt = s.attempt("QS")  # carol now plays a spade
    assert attempt.flags == ["carol showed out of spades at trick 1 (KH); QS cannot be carol's unless trick 1 was "
                             "written wrong (REVOKE)"]
    assert s.attempt("4H").flags == []  # the near miss: a card of another suit proves nothing


def test_cards_typed_one_at_a_time_make_a_trick_and_undo_takes_back_the_last_card(tmp_path):
    s = scorer_at(tmp_path)
    s.commit(s.attempt("7S"))
    assert s.turn().to_play == "carol" and s.turn().led == "S"
    s.commit(s.attempt("A"))
    assert s.undo().text == "took back A"
    s.commit(s.attempt("Q"))
    said = s.commit(s.attempt("9"))
    assert said[0].text.startswith("trick 1: carol wins with QS")
    assert (tmp_path / "t.fmn").read_text().endswith("1. 7S Q 9\n")
    assert s.turn().to_play == "carol" and s.turn().trick == 2


def test_undo_takes_back_the_last_line_by_rewriting_the_file(tmp_path):
    s = scorer_at(tmp_path, "1. 7S A 9\n2. KH 2 3\n")
    assert s.undo().text == "took back: 2. KH 2 3"
    assert (tmp_path / "t.fmn").read_text() == HEAD + "1. 7S A 9\n"
    s.journal.close()  # the scorer quits; the next one goes on where it stopped
    assert Scorer(tmp_path / "t.fmn").turn().trick == 2


def test_a_second_scorer_cannot_keep_the_same_file_until_the_first_lets_it_go(tmp_path):
    first = scorer_at(tmp_path, "1. 7S A 9\n")
    path = tmp_path / "t.fmn"
    res = runner.invoke(app, ["record", str(path)], input="2. KH 2 3\n")
    assert res.exit_code == 2 and "being kept by another foreman record" in res.output
    first.undo()  # the file is made anew: still the first scorer's
    res = runner.invoke(app, ["record", str(path)], input="undo\n")
    assert res.exit_code == 2 and path.read_text() == HEAD
    first.journal.close()
    res = runner.invoke(app, ["record", str(path)], input="1. 7S A 9\n")
    assert res.exit_code == 0 and path.read_text() == HEAD + "1. 7S A 9\n"


def test_no_second_scorer_gets_in_while_an_undo_puts_the_new_file_in_place(tmp_path, monkeypatch):
    first = scorer_at(tmp_path, "1. 7S A 9\n2. KH 2 3\n")
    path = tmp_path / "t.fmn"
    replace, outcomes = os.replace, []

    def replace_then_try_a_second_scorer(src, dst):
        replace(src, dst)
        res = runner.invoke(app, ["record", str(path)], input="3. 5D 6 7\n")  # the moment the new file is there
        outcomes.append(res.exit_code)

    monkeypatch.setattr(os, "replace", replace_then_try_a_second_scorer)
    assert first.undo().text == "took back: 2. KH 2 3"
    monkeypatch.undo()
    assert outcomes == [2] and path.read_text() == HEAD + "1. 7S A 9\n"


def test_a_scorer_that_opened_the_file_before_an_undo_replaced_it_does_not_keep_the_old_one(tmp_path, monkeypatch):
    import fcntl
    first = scorer_at(tmp_path, "1. 7S A 9\n2. KH 2 3\n")
    flock, undone = fcntl.flock, []

    def undo_before_the_lock(fd, operation):
        if not undone and operation & fcntl.LOCK_EX:
            undone.append("the first scorer's undo lands between the second's open and its lock")
            first.undo()
        return flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", undo_before_the_lock)
    with pytest.raises(InputError, match="being kept by another foreman record"):
        Scorer(tmp_path / "t.fmn")
    assert undone and (tmp_path / "t.fmn").read_text() == HEAD + "1. 7S A 9\n"


def test_record_never_writes_into_a_file_that_is_not_notation(tmp_path):
    records = tmp_path / "friday.fmn"
    records.write_bytes((ROOT / "samples" / "01-clean-win.json").read_bytes())  # JSON under a notation name
    before = records.read_bytes()
    res = runner.invoke(app, ["record", str(records)], input="undo\n")
    assert res.exit_code == 2 and "not a notation file" in res.output and records.read_bytes() == before
    res = runner.invoke(app, ["record", str(tmp_path / "friday.jsonl")], input="game g1\n")
    assert res.exit_code == 2 and "name it friday.fmn" in res.output and not (tmp_path / "friday.jsonl").exists()
    assert "one foreman reads as JSON" in res.output
    res = runner.invoke(app, ["record", str(tmp_path / "friday.fmn.gz")], input="game g1\n")
    assert res.exit_code == 2 and "a compressed file (.gz)" in res.output and "JSON" not in res.output, res.output
    commented = tmp_path / "new.fmn"
    commented.write_text("# Friday, kept at the table\n\n")  # nothing said yet: a journal to go on with
    res = runner.invoke(app, ["record", str(commented)], input="game g1\nplayers a b c\n")
    assert res.exit_code == 0 and commented.read_text().endswith("game g1\nplayers a b c\n")


def test_completion_offers_the_cards_not_yet_played_the_suit_led_first(tmp_path):
    s = scorer_at(tmp_path, "1. 7S A 9\n")
    s.commit(s.attempt("KH"))
    offered = s.turn().unplayed
    assert offered[:12] == ("AH", "QH", "JH", "10H", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H")
    assert "AS" not in offered and "KH" not in offered and len(offered) == 52 - 4


def test_a_player_whose_hand_is_known_is_offered_his_only_legal_card(tmp_path):
    rec, _ = next(iter(generate(1, 3)))
    deal = rec["deals"][0]
    lines = [f"game {rec['id']}", "players " + " ".join(rec["players"]), f"deal {deal['dealer']}"]
    lines += [" ".join(["hand", p, *cards]) for p, cards in deal["hands"].items()]
    lines += [" ".join(["kitty", *deal["kitty"]]), " ".join(["discard", *deal["discards"]])]
    lines += [f"pass {p['from']} {p['to']} {p['card']} {p['returned']}" for p in deal["passes"]]
    (tmp_path / "h.fmn").write_text("\n".join(lines) + "\n")
    s = Scorer(tmp_path / "h.fmn", by_card=True)
    only_seen = False
    for trick in deal["tricks"]:
        for card in trick["cards"]:
            turn = s.turn()
            if turn.only_card is not None:
                assert turn.only_card == card
                only_seen = True
            s.commit(s.attempt(card))
    assert only_seen  # the last trick at least: one card left each


def test_the_next_game_is_offered_like_the_last_with_the_dealer_the_series_allows(tmp_path):
    kept = tmp_path / "s.fmn"
    text = EVENING.read_text().split("\ngame fri-1211-g2")[0].replace("stake 1.00 GBP", "stake 1.00 GBP\nseries fri 1")
    piped(kept, text)
    assert Scorer(kept).next_game() == ["game fri-1211-g2", "players alice bob carol", "stake 1.00 GBP",
                                        "series fri 2", "deal alice"]


def test_a_line_cut_short_by_a_crash_is_dropped_and_a_whole_one_kept(tmp_path):
    (tmp_path / "t.fmn").write_text(HEAD + "1. 7S A 9\n2. KH 2")
    s = Scorer(tmp_path / "t.fmn")
    assert "cut short" in s.journal.repaired
    assert (tmp_path / "t.fmn").read_text() == HEAD + "1. 7S A 9\n"
    (tmp_path / "u.fmn").write_text(HEAD + "1. 7S A 9")  # an editor's file without its last newline
    assert Scorer(tmp_path / "u.fmn").journal.repaired is None
    assert (tmp_path / "u.fmn").read_text() == HEAD + "1. 7S A 9\n"


def test_a_header_line_that_breaks_the_format_is_refused_as_it_is_typed(tmp_path):
    path = tmp_path / "t.fmn"
    code, _, err = piped(path, "game s2\nplayers alice bob carol\nstake 1,50 EUR\nstake 1.50 EUR\ndeal alice\n")
    assert code == 1 and "line 3: $.stake: '1,50' is not valid here" in err and "not kept" in err
    assert path.read_text() == "game s2\nplayers alice bob carol\nstake 1.50 EUR\ndeal alice\n"
    # A hand is not refused for the hands still to come, but for a name that is not a player's.
    hand = "2D 10S QH JS 4S 7S 7H 6C 10C JH 6S AH 8H QS 5S KS"
    code, _, err = piped(path, f"hand zed {hand}\nhand bob {hand}\n")
    assert code == 1 and "line 1: $.deals[0].hands['zed']: 'zed' is not one of the players" in err
    assert path.read_text().endswith(f"deal alice\nhand bob {hand}\n")


def test_a_refusal_that_names_another_line_names_it_as_the_file_numbers_it(tmp_path):
    path = tmp_path / "t.fmn"
    path.write_text("# friday\n" + HEAD + "\n" + HEAD.replace("game t", "game u") + "kitty 6D 4D JC 7D\n")
    attempt = Scorer(path).attempt("kitty 6D 4D JC 8D")
    assert attempt.refused == "kitty: 8D here where line 9 wrote 7D; write it once"  # line 4 of its game


def test_a_file_with_a_line_that_does_not_read_says_which_line_and_how_to_go_on(tmp_path):
    path = tmp_path / "t.fmn"
    path.write_text("# friday\n" + HEAD + "1. 7S A 9\n2. KH 2 3X\n")  # 3X: a slip made in an editor
    code, out, err = piped(path, "3. AC 5 10\nundo\n2. KH 2 3\n")
    said = f"at line 6 of {path} ('2. KH 2 3X'): trick 2: \"3X\" is not a card"
    first, refused = err.splitlines()[:2]
    assert said in first and "undo takes back" in first  # said once the file is read, before any line
    assert refused.startswith("line 1: the game so far does not read") and said in refused
    assert code == 1 and "took back: 2. KH 2 3X" in out and path.read_text().endswith("\n2. KH 2 3\n")
    assert Scorer(path).what_is_broken() is None
    (tmp_path / "h.fmn").write_text("game h\nplayers alice bob carol\n")  # a header, still to be finished
    assert Scorer(tmp_path / "h.fmn").what_is_broken() is None



def test_after_a_line_the_file_holds_that_does_not_read_no_line_but_undo_is_kept(tmp_path):
    path = tmp_path / "t.fmn"
    path.write_text("game t\nplayers alice bob carol\nstake 1,50 GBP\n")  # a slip made in an editor
    code, out, err = piped(path, "deal alice\nundo\nstake 1.50 GBP\ndeal alice\n")
    assert code == 1 and err.count("the game so far does not read at line 3") == 2, err  # on opening, at the deal
    assert "line 1: the game so far does not read" in err and "took back: stake 1,50 GBP" in out
    assert path.read_text() == "game t\nplayers alice bob carol\nstake 1.50 GBP\ndeal alice\n"


def test_a_note_with_a_character_some_readers_take_for_a_line_end_stays_one_line_and_resumes(tmp_path):
    path = tmp_path / "t.fmn"
    typed = ["game g1", "players alice bob carol", 'note "one\u2028two\x85three"', "# a\u2029comment",
             "deal alice"]  # as a file reads
    out, err = io.StringIO(), io.StringIO()
    assert run_piped(Scorer(path), typed, out, err) == 0 and err.getvalue() == ""
    assert len(path.read_text().splitlines()) == 5  # written escaped: one line to any reader
    code, out, err = piped(path, "1. 7S A 9\n")  # read back on resuming
    assert code == 0 and err == "" and "trick 1: carol wins with AS" in out
    converted = runner.invoke(app, ["convert", str(path), "--to", "json"]).stdout
    assert json.loads(converted)["notes"] == "one\u2028two\x85three"  # the note as typed
    (tmp_path / "by-hand.fmn").write_text('game g1\nplayers alice bob carol\nnote "a\u2028b"\ndeal alice\n')
    assert piped(tmp_path / "by-hand.fmn", "1. 7S A 9\n")[:2] == (0, out)  # resumes as validate reads it



def test_piped_notation_is_read_as_utf8_whatever_the_locale_and_a_byte_that_is_not_is_refused(tmp_path):
    typed = "game g1\nplayers alice bob Björn\nnote café\ndeal alice\n1. 7S A 9\n".encode()
    typed = typed.replace("café".encode(), b"caf\xe9")  # a Latin-1 byte in a UTF-8 stream
    done = subprocess.run([sys.executable, "-m", "foreman_cli", "record", str(tmp_path / "f.fmn")], input=typed,
                          capture_output=True, env={**os.environ, "PYTHONIOENCODING": "latin-1"}, timeout=120)
    assert done.returncode == 1 and b"line 3: not UTF-8 text at column 9" in done.stderr, done.stderr
    kept = (tmp_path / "f.fmn").read_text(encoding="utf-8")
    assert kept == "game g1\nplayers alice bob Björn\ndeal alice\n1. 7S A 9\n"  # the name as typed, not 'BjÃ¶rn'

# --- never lose a trick ---

def _script() -> list[str]:
    return [line for line in EVENING.read_text().splitlines() if line.strip()]


def _is_trick(line: str) -> bool:
    return line.split(" ", 1)[0].rstrip(".").isdigit()


def _kept(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


@pytest.mark.slow
def test_a_scorer_killed_at_twenty_moments_loses_no_acknowledged_trick_and_resumes_to_the_same_file(tmp_path):
    script, kept = _script(), tmp_path / "evening.fmn"
    rnd = random.Random(20261203)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    answered = 0
    for _ in range(20):
        done = _kept(kept)
        assert done == script[:len(done)]
        proc = subprocess.Popen([sys.executable, "-m", "foreman_cli", "record", str(kept)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        # Send a few lines, waiting for the answer to the first trick among them (so each run gets
        # on) and, half the time, to every trick; then kill it wherever it is.
        acknowledged, wait, more = len(done), rnd.choice([True, False]), rnd.randint(1, 6)
        at, waited = len(done), False
        while at < len(script) and (at - len(done) < more or not waited):
            proc.stdin.write(script[at] + "\n")
            proc.stdin.flush()
            at += 1
            if _is_trick(script[at - 1]) and (wait or not waited):
                while not (answer := proc.stdout.readline()).startswith("trick "):
                    assert answer, "the scorer stopped before answering"
                acknowledged, waited = at, True
                answered += 1
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = _kept(kept)
        assert len(now) >= acknowledged and now == script[:len(now)]  # nothing answered is lost, nothing torn kept
    assert answered >= 10  # most kills came after a trick was answered, some while one was being entered
    rest = "\n".join(script[len(_kept(kept)):]) + "\n"
    subprocess.run([sys.executable, "-m", "foreman_cli", "record", str(kept)], input=rest, text=True, env=env,
                   check=True, capture_output=True)
    assert validated(kept) == validated(EVENING)


# --- at a terminal ---

@pytest.mark.slow
def test_an_evening_typed_at_a_terminal_with_a_slip_and_a_kept_revoke_gives_the_intended_records(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    kept = tmp_path / "t.fmn"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    child = pexpect.spawn(sys.executable, ["-m", "foreman_cli", "record", str(kept)], env=env, encoding="utf-8",
                          timeout=30, dimensions=(40, 200))

    def say(expect: str, line: str) -> None:
        child.expect(expect)
        child.sendline(line)

    def trick(line: str, keep: str = "n") -> None:
        """Type a trick line and wait for its answer; a flagged card is kept only with 'y'."""
        child.sendline(line)
        while child.expect([r"trick \d+: \w+ wins with", "keep it as played"]) == 1:
            child.sendline(keep)

    games = EVENING.read_text().split("\ngame ")
    g1 = [line for line in games[1].splitlines() if line and line[0].isdigit()]
    say("game id", "fri-1211-g1")
    say("players", "alice bob carol")
    say("stake", "1.00 GBP")
    say("series", "")
    say("rules", "")
    say("then deal", "deal alice")
    for player, card in zip(("bob", "carol", "alice"), g1[0].split()[1:]):  # the first trick one card at a time
        say(f"trick 1 · {player}", card)
    say("trick 2 · alice", "KX")  # not a card: refused, asked again
    say("not kept", g1[1])
    say("trick 3 · alice", "4S")  # a card carol played at trick 2: flagged, and not kept
    say("keep it as played", "n")
    child.expect("not kept")
    for line in g1[2:16]:
        trick(line)
    say(r"deal 1 over .*\[deal bob\]", "")  # Enter: the dealer due
    for line in g1[16:]:
        trick(line)
    say("game over", "")  # Enter: the next game, like the last (dealt by the winner)
    say("trick 1 · bob", "undo")  # this evening carol dealt it: take the deal line back
    say("then deal", "deal carol")
    g2 = [line for line in games[2].splitlines() if line and line[0].isdigit()]
    for line in g2:
        trick(line, keep="y")  # bob's revoke, kept as the table played it
    say("game over", "quit")
    child.expect(pexpect.EOF)
    recs = [json.loads(r.text) for r in read_records([str(kept)])]
    want = [json.loads(r.text) for r in read_records([str(EVENING)])][:2]
    assert [r["deals"] for r in recs] == [w["deals"] for w in want]
    assert [(r["id"], r["players"], r["stake"]) for r in recs] == [(w["id"], w["players"], w["stake"]) for w in want]
    assert [audit.check_record(r).winner for r in read_records([str(kept)])] == ["alice", "bob"]


def test_at_the_first_games_questions_a_command_is_a_command_and_a_whole_line_moves_on(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    kept = tmp_path / "t.fmn"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}

    def scorer():
        return pexpect.spawn(sys.executable, ["-m", "foreman_cli", "record", str(kept)], env=env, encoding="utf-8",
                             timeout=30, dimensions=(40, 200))

    child = scorer()
    child.expect("game id")
    child.sendline("quit")  # not the id of a game
    child.expect(pexpect.EOF)
    assert not kept.exists() or "quit" not in kept.read_text()
    child = scorer()
    for question, answer in (("game id", "game t"), ("players", "alice bob carol"), ("stake", "deal alice")):
        child.expect(question)
        child.sendline(answer)  # at the stake's question, the deal's line: the questions end there
    child.expect("trick 1 · bob")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert kept.read_text() == "game t\nplayers alice bob carol\ndeal alice\n"


def test_a_line_of_several_tricks_tells_the_tallies_after_each(tmp_path):
    code, out, err = piped(tmp_path / "t.fmn", HEAD + "KC Q A; 2C 3 4\n")
    assert code == 0 and err == "", err
    assert "trick 1: alice wins with AC · alice 1 of 8 · bob 0 of 5 · carol 0 of 3" in out  # not trick 2's tallies
    assert "trick 2: carol wins with 4C · alice 1 of 8 · bob 0 of 5 · carol 1 of 3" in out


def test_a_semicolon_with_no_trick_before_it_is_no_trick_as_in_a_file(tmp_path):
    code, out, err = piped(tmp_path / "t.fmn", HEAD + ";\nKC Q A ; ; 2C 3 4\n;\n")
    assert code == 0 and err == "" and "trick 2: carol wins with 4C" in out, err
    assert (tmp_path / "t.fmn").read_text() == HEAD + "1. KC Q A\n2. 2C 3 4\n"


def test_a_line_that_breaks_the_lines_before_it_is_refused(tmp_path):
    # Under `cards seed` the queen is D: the trick written before it no longer reads.
    code, _, err = piped(tmp_path / "t.fmn", HEAD + "QC 2 3\ncards seed\n4C 5 6\n")
    assert code == 1 and "line 5: $.deals[0].tricks[0].cards[0]: card 'QC'" in err and "write 'DC'" in err, err
    assert (tmp_path / "t.fmn").read_text() == HEAD + "1. QC 2 3\n2. 4C 5 6\n"


def test_a_comment_line_in_a_deal_is_kept_where_it_was_typed_and_is_no_trick(tmp_path):
    code, out, err = piped(tmp_path / "t.fmn", HEAD + "# bob shuffled\nKC Q A\n# a break\n2C 3 4\n")
    assert code == 0 and err == "", err
    assert [line for line in out.splitlines() if line.startswith("trick")] == [
        "trick 1: alice wins with AC · alice 1 of 8 · bob 0 of 5 · carol 0 of 3",
        "trick 2: carol wins with 4C · alice 1 of 8 · bob 0 of 5 · carol 1 of 3"]
    assert (tmp_path / "t.fmn").read_text() == HEAD + "# bob shuffled\n1. KC Q A\n# a break\n2. 2C 3 4\n"
