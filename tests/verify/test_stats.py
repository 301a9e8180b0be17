"""Local statistics on protocol v2: counted from verified transcripts, once per match, per
opponent (each bot level apart), at tables of two to six (won, lost, placed; team gin
counts the team), take-backs, and matches that ended early counted as ended with who was
at fault.

Carried over from v1 (tests/verify/test_stats.py): a match is summarised from the local
player's side; recording it twice counts it once; a transcript that does not verify is
not counted; the identity key decides which seat is ours; saved transcripts are counted
per opponent and a broken one is reported; no matches yet; take-backs "(in 1 match)";
each bot level is its own opponent, and the bot flag comes from the opponent's signed
hello; an abandoned match is no problem (now it is counted, as ended).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from p2pgin.log.canonical import canonical_dumps
from p2pgin.log.transcript import Transcript
from p2pgin.records import verify_transcript
from p2pgin.records.stats import (
    MatchSummary,
    StatsError,
    Totals,
    load_matches,
    opponent_key,
    opponent_lines,
    record_transcript,
    stats_lines,
    sync_transcripts,
    totals,
)
from tests.session.table_harness import Router, finisher, gin_table
from tests.verify.helpers import abandoned_table, reseal, transcript, two_seats
from tests.verify.tables import named_table, rematched, save, seat, taken_back, transcript_at

ROOT = Path(__file__).resolve().parents[2]


def _expected(t: Transcript, me: int) -> dict[str, Any]:
    """What the summary of a two-player gin match must say, from the verified hands."""
    report = verify_transcript(t)
    results = [h.result for h in report.hands if h.result is not None]
    knocks = [r for r in results if r.knocker == me and r.kind in ("knock", "undercut")]
    (match,) = report.matches
    return {
        "hands": len(results),
        "hands_won": sum(r.winner == me for r in results),
        "gins": sum(r.winner == me and r.kind in ("gin", "big_gin") for r in results),
        "undercuts": sum(r.winner == me and r.kind == "undercut" for r in results),
        "undercut": sum(r.knocker == me and r.kind == "undercut" for r in results),
        "knocks": len(knocks),
        "knock_deadwood": sum(r.knocker_deadwood for r in knocks),
        "result": "won" if me in match.outcome.winners else "lost",
        "points": match.outcome.totals[me],
    }


@pytest.mark.parametrize("me", [0, 1])
def test_a_match_is_summarised_from_the_side_of_the_local_player(
        finished: list[Router], me: int, home: Path) -> None:
    t = transcript(two_seats(finished[0])[me])
    assert record_transcript(t, me) is True
    (summary,) = load_matches().values()
    assert {k: getattr(summary, k) for k in _expected(t, me)} == _expected(t, me)
    assert summary.fingerprints[1 - me] == t.players[1 - me].fingerprint
    assert (summary.session, summary.match_no, summary.game) == (t.session, 1, "gin")


def test_recording_the_same_transcript_twice_counts_it_once(finished: list[Router],
                                                            home: Path) -> None:
    ann, bob = two_seats(finished[1])
    assert record_transcript(transcript(ann), 0) is True
    assert record_transcript(transcript(ann), 0) is False
    assert record_transcript(transcript(bob), bob.session.me or 0) is False  # same match
    save(home / "transcripts", transcript(ann))
    assert sync_transcripts() == []
    overall, per = totals(load_matches().values())
    assert overall.matches == 1 and len(per) == 1


def test_a_seat_is_given_by_number_fingerprint_or_key(finished: list[Router],
                                                      home: Path) -> None:
    t = transcript(two_seats(finished[0])[0])
    assert record_transcript(t, t.players[1].fingerprint) is True
    (summary,) = load_matches().values()
    assert summary.me == 1
    with pytest.raises(StatsError, match="not the fingerprint or key of a seat"):
        record_transcript(t, "aaaa-bbbb-cccc-dddd", home=home / "other")


def test_a_transcript_that_does_not_verify_is_not_counted(finished: list[Router],
                                                         home: Path) -> None:
    t = transcript(two_seats(finished[0])[0])
    cut = reseal(t, entries=t.entries[:-1], length=len(t.entries) - 1,
                 head=t.entries[-2].hash())
    with pytest.raises(StatsError, match="does not prove a finished or ended match"):
        record_transcript(cut, 0)
    assert load_matches() == {}


def test_the_identity_key_decides_which_seat_is_ours_else_the_seal(
        finished: list[Router], home: Path) -> None:
    t = transcript(two_seats(finished[0])[0])  # sealed by ann, seat 0
    save(home / "transcripts", t)
    assert sync_transcripts() == []
    assert [m.me for m in load_matches().values()] == [0]
    other = home.parent / "bob"
    save(other / "transcripts", t)
    (other / "identity.json").write_bytes(canonical_dumps(
        {"version": 1, "name": "bob", "seed": (bytes([2]) * 32).hex()}) + b"\n")
    assert sync_transcripts(other) == []
    assert [m.me for m in load_matches(other).values()] == [1]
    stranger = home.parent / "cid"
    path = save(stranger / "transcripts", t)
    (stranger / "identity.json").write_bytes(canonical_dumps(
        {"version": 1, "name": "cid", "seed": (bytes([9]) * 32).hex()}) + b"\n")
    assert sync_transcripts(stranger) == [(path, "not your match: your identity key is no "
                                                 "seat's")]
    assert load_matches(stranger) == {}


def test_saved_transcripts_are_counted_per_opponent_and_a_broken_one_is_reported(
        finished: list[Router], home: Path) -> None:
    folder = home / "transcripts"
    for router in finished:
        save(folder, transcript(two_seats(router)[0]))
    (folder / "broken.jsonl").write_bytes(b"not a transcript\n")
    checked: list[int] = []
    problems = sync_transcripts(on_new=checked.append)
    assert checked == [3] and [p.name for p, _ in problems] == ["broken.jsonl"]
    overall, per = totals(load_matches().values())
    assert overall.matches == 2 and list(per) == ["ni4a-hvpq-lgic-uhdn"]
    lines = stats_lines()
    assert lines[0].startswith("All opponents: matches ")
    assert lines[1].startswith("bob (ni4a-hvpq-lgic-uhdn): matches ")
    # the broken file is not checked again, only reported again
    checked.clear()
    assert sync_transcripts(on_new=checked.append) == problems and checked == []


def test_no_matches_yet(home: Path) -> None:
    assert stats_lines() == ["No finished matches counted yet."]


def test_take_backs_are_counted_with_the_matches_they_mark(home: Path) -> None:
    assert Totals(matches=1, take_backs=2, marked=1).take_backs == 2
    ann, _ = two_seats(taken_back(3))
    assert record_transcript(transcript(ann), 0) is True
    (summary,) = load_matches().values()
    assert summary.take_backs == 1 and summary.bots == (False, True)
    (line,) = stats_lines()[1:]
    assert line.startswith("bob (ni4a-hvpq-lgic-uhdn, a computer player): matches ")
    assert line.endswith(", take-backs 1 (in 1 match)")


def test_each_bot_level_is_its_own_opponent_and_a_person_is_one_whatever_the_name(
        home: Path) -> None:
    """Every level of a user's bots plays with one key: each level is an opponent."""
    names = [("me", "bot-easy"), ("me", "bot-hard"), ("me", "bot-hard"), ("me", "Ann"),
             ("me", "Annie")]
    for n, pair in enumerate(names):
        router = named_table("gin", pair, rules=None, seed=20 + n,
                             bots=(False, pair[1].startswith("bot")))
        router.play(choose=finisher(n), moves=12)
        router.apply("s1", seat(router, 1).session.abandon("stop"))
        router.pump()
        assert record_transcript(transcript_at(router, 0), 0) is True
    overall, per = totals(load_matches().values())
    fp = "ni4a-hvpq-lgic-uhdn"  # the harness's key 1 for every opponent
    assert overall.ended == 5
    assert {k: t.ended for k, t in per.items()} == {
        opponent_key(fp, "bot-easy", True): 1, opponent_key(fp, "bot-hard", True): 2,
        fp: 2}
    assert per[fp].names == {"Ann", "Annie"}
    lines = stats_lines()
    # each opponent abandoned: a forfeit, the match won
    assert any(x.startswith(f"bot-easy ({fp}, a computer player): matches 1/1 won, "
                            "ended early 1") for x in lines), lines
    assert any(x.startswith(f"Ann, Annie ({fp}): ") for x in lines), lines


def test_the_bot_flag_comes_from_the_opponents_signed_hello(home: Path) -> None:
    router = named_table("gin", ("me", "bot-hard"), seed=3)  # named like a bot, not one
    router.play(choose=finisher(3), moves=8)
    router.apply("s0", seat(router, 0).session.abandon(""))
    record_transcript(transcript_at(router, 0), 0)
    (summary,) = load_matches().values()
    assert summary.bots == (False, False)
    assert list(totals([summary])[1]) == ["ni4a-hvpq-lgic-uhdn"]


def test_tables_of_three_to_six_count_a_place_and_every_other_seat_as_an_opponent(
        tables: dict[Any, Router], home: Path) -> None:
    for (game, seats), router in tables.items():
        if game == "team_gin" or seats == 2:
            continue
        me = seats - 1
        t = transcript_at(router, me)
        assert record_transcript(t, me) is True
        outcome = verify_transcript(t).matches[-1].outcome
        summary = next(m for m in load_matches().values() if m.session == t.session)
        won = me in outcome.winners
        place = 1 + sum(x > outcome.totals[me] for x in outcome.totals)
        assert (summary.result, summary.place) == ("won" if won else "lost",
                                                   1 if won else max(2, place))
        assert summary.opponents() == tuple(range(seats - 1))
        _, per = totals([summary])
        assert len(per) == seats - 1
        assert all(t.matches == 1 and t.matches_won == won for t in per.values())


def test_team_gin_counts_the_team(tables: dict[Any, Router], home: Path) -> None:
    router = tables[("team_gin", 4)]
    t = transcript_at(router, 2)
    record_transcript(t, 2)
    report = verify_transcript(t)
    (summary,) = load_matches().values()
    outcome = report.matches[-1].outcome
    assert summary.result == ("won" if 2 in outcome.winners else "lost")
    assert summary.opponents() == (1, 3) and summary.place is None
    assert summary.points == outcome.totals[2]
    results = [h.result for h in report.hands if h.result is not None]
    assert summary.hands == len(results)
    assert summary.hands_won == sum(r.team == 0 for r in results)  # seat 2: team 0
    mine = [g for r in results for g in r.games if 2 in g.seats]
    assert summary.knocks == sum(g.hand.knocker == g.seats.index(2)
                                 and g.hand.kind in ("knock", "undercut") for g in mine)
    _, per = totals([summary])
    assert set(per) == {seat(router, 1).session.view.fingerprints[1],
                        seat(router, 3).session.view.fingerprints[3]}


def test_three_player_gin_counts_only_the_hands_you_played(tables: dict[Any, Router],
                                                            home: Path) -> None:
    t = transcript_at(tables[("gin3", 3)], 0)
    report = verify_transcript(t)
    results = [h.result for h in report.hands if h.result is not None]
    me = results[0].dealer  # sat the first hand out
    record_transcript(t, me)
    (summary,) = load_matches().values()
    assert summary.hands == sum(me in r.players for r in results) < len(results)
    assert summary.hands_won == sum(r.winner == me for r in results)


def test_an_ended_match_is_counted_as_ended_with_who_was_at_fault(home: Path) -> None:
    ann, bob = two_seats(abandoned_table("dinner"))  # ann leaves
    assert record_transcript(transcript(ann), 0) is True
    assert record_transcript(transcript(bob), 1, home=home / "bob") is True
    mine = next(iter(load_matches().values()))
    theirs = next(iter(load_matches(home / "bob").values()))
    assert (mine.result, mine.ending, mine.culprit) == ("ended", "abandon", 0)
    assert theirs.culprit == 0 and theirs.me == 1
    (line_ann,) = stats_lines()[:1]
    # an abandonment is a forfeit: the one who stayed wins the match (issue 24)
    assert (mine.forfeit, theirs.forfeit) == ("lost", "won")
    assert line_ann.startswith("All opponents: matches 0/1 won, ended early 1 "
                               "(abandoned 1; at fault: you 1; lost by forfeit 1)")
    bob_lines = stats_lines(home / "bob")
    assert bob_lines[1].startswith("ann (gr2q-7gf5-lh6p-zfdn): matches 1/1 won, ended "
                                   "early 1 (abandoned 1; at fault: them 1; won by forfeit 1)")
    obj = totals(load_matches(home / "bob").values())[0].to_dict()
    assert (obj["ended"], obj["ended_kinds"], obj["ended_their_fault"]) == (
        1, {"abandon": 1}, 1)
    assert (obj["matches_won"], obj["forfeits_won"]) == (1, 1)


def test_at_a_bigger_table_an_ending_may_be_someone_elses_fault(home: Path) -> None:
    router = named_table("rummy", ["ann", "bob", "cid"], seed=6)
    router.play(moves=4)
    router.apply("s2", seat(router, 2).session.abandon("bye"))  # cid leaves
    router.pump()
    record_transcript(transcript_at(router, 0), 0)
    _, per = totals(load_matches().values())
    by_name = {next(iter(t.names)): t for t in per.values()}
    assert (by_name["cid"].ended_theirs, by_name["bob"].ended_others) == (1, 1)
    assert "at fault: someone else 1" in " ".join(stats_lines())


def test_the_console_gets_the_lines_against_this_matchs_opponents(
        tables: dict[Any, Router], finished: list[Router], home: Path) -> None:
    record_transcript(transcript(two_seats(finished[0])[0]), 0)
    t = transcript_at(tables[("rummy", 4)], 0)
    record_transcript(t, 0)
    lines = opponent_lines(t, 0)
    assert re.match(r"All opponents: matches [0-2]/2 won", lines[0]), lines[0]
    # the harness's seat 1 signs with one key at both tables: bob and s1 are one opponent
    assert [x.split(" (", 1)[0] for x in lines[1:]] == ["bob, s1", "s2", "s3"]
    assert re.match(r"bob, s1 \(ni4a-hvpq-lgic-uhdn\): matches [0-2]/2 won", lines[1])
    assert all(re.search(r": matches [01]/1 won", x) for x in lines[2:]), lines


def test_a_version_1_statistics_file_is_carried_over(home: Path) -> None:
    home.mkdir(parents=True)
    v1 = {"session": "ab" * 32, "date": "2026-10-01T10:00:00Z", "opponent": "bot-hard",
          "opponent_fingerprint": "sqir-cs4e-bete-xy7j", "won": True, "hands": 4,
          "hands_won": 3, "gins": 1, "undercuts": 0, "undercut": 1, "knocks": 2,
          "knock_deadwood": 9, "points": [130, 40], "take_backs": 0}
    (home / "stats.json").write_bytes(canonical_dumps(
        {"version": 1, "games": {"ab" * 32: v1}}) + b"\n")
    (summary,) = load_matches().values()
    assert (summary.result, summary.hands, summary.bots[1], summary.points) == (
        "won", 4, True, 130)
    assert stats_lines()[1].startswith(
        "bot-hard (sqir-cs4e-bete-xy7j, a computer player): matches 1/1 won")


def test_a_stored_summary_reads_back_and_junk_is_refused() -> None:
    summary = MatchSummary(session="s", match_no=1, date="", game="gin", me=0,
                           names=("a", "b"), fingerprints=("x", "y"), bots=(False, True),
                           result="won")
    assert MatchSummary.from_dict(json.loads(json.dumps(summary.to_dict()))) == summary
    with pytest.raises(StatsError):
        MatchSummary.from_dict({**summary.to_dict(), "extra": 1})
    with pytest.raises(StatsError):
        MatchSummary.from_dict(dataclasses.asdict(summary) | {"names": None})


def test_the_stats_command_counts_each_saved_match_once(tables: dict[Any, Router],
                                                        home: Path) -> None:
    save(home / "transcripts", transcript_at(tables[("gin3", 3)], 0))
    save(home / "transcripts", transcript_at(tables[("team_gin", 4)], 1))
    env = dict(os.environ, P2PGIN_HOME=str(home), PYTHONPATH=str(ROOT))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "p2pgin", "stats", *args], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=120,
                              check=False)

    first = json.loads(run("--json").stdout)
    again = json.loads(run("--json").stdout)
    assert first == again and first["overall"]["matches"] == 2
    assert first["skipped"] == []
    # gin3 from seat 0 (against s1, s2), team gin from seat 1 (against s0, s2): the
    # harness's seats sign with the same keys at every table
    assert {o["names"][0]: o["matches"] for o in first["opponents"].values()} == {
        "s0": 1, "s1": 1, "s2": 2}
    text = run()
    assert text.returncode == 0 and text.stderr == ""
    assert text.stdout.startswith("All opponents: matches ")
    broken = home / "stats.json"
    broken.write_bytes(b"{nonsense\n")
    bad = run()
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1
    assert "not a statistics file" in bad.stderr


def test_a_rematch_is_another_match_of_the_same_log(home: Path) -> None:
    router = gin_table(target=10, seed=3)
    router.play(choose=finisher(3))
    ann, _ = two_seats(router)
    assert record_transcript(transcript(ann), 0) is True  # saved after match 1
    rematched(router, "ann", 4)
    save(home / "transcripts", transcript(ann))  # the same file, grown by match 2
    assert sync_transcripts() == []
    assert sorted(m.match_no for m in load_matches().values()) == [1, 2]
    assert record_transcript(transcript(ann), 0) is False
    overall, _ = totals(load_matches().values())
    assert overall.matches == 2


def test_each_match_of_a_table_in_its_own_transcript_is_counted_once_and_not_checked_again(
        home: Path) -> None:
    # A table's matches are saved apart (<session>.jsonl, <session>-match2.jsonl): each is
    # counted once, and neither is verified again while unchanged (keyed by session
    # alone, each file's head looked new after the other's and both were re-verified at
    # every p2pgin stats).
    from p2pgin.log.transcript import write_transcript

    router = gin_table(target=10, seed=3)
    router.play(choose=finisher(3))
    ann, _ = two_seats(router)
    first = transcript(ann)
    save(home / "transcripts", first)
    rematched(router, "ann", 4)
    write_transcript(home / "transcripts" / f"{first.session}-match2.jsonl", transcript(ann))
    checked: list[int] = []
    assert sync_transcripts(on_new=checked.append) == [] and checked == [2]
    assert sorted(m.match_no for m in load_matches().values()) == [1, 2]
    assert sync_transcripts(on_new=checked.append) == [] and checked == [2]
    assert record_transcript(first, 0) is False
