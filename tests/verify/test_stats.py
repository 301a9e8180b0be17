"""Local statistics: counted from verified transcripts or a finished match, once per game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from verify_helpers import keys_for, replace_entries

from p2pgin.log.canonical import canonical_dumps
from p2pgin.report import verify_transcript
from p2pgin.stats import (
    StatsError,
    load_games,
    local_player,
    record_game,
    record_match,
    record_view,
    stats_lines,
    sync_transcripts,
    totals,
)


def _expected(game: Any, me: int) -> dict[str, Any]:
    """What the summary must say, computed here from the verified hands."""
    report = verify_transcript(game.transcript)
    results = [h.result for h in report.hands]
    knocks = [r for r in results if r.knocker == me and r.kind in ("knock", "undercut")]
    return {
        "hands": len(results),
        "hands_won": sum(r.winner == me for r in results),
        "gins": sum(r.winner == me and r.kind in ("gin", "big_gin") for r in results),
        "undercuts": sum(r.winner == me and r.kind == "undercut" for r in results),
        "knocks": len(knocks),
        "knock_deadwood": sum(r.knocker_deadwood for r in knocks),
        "won": report.match.winner == me,
    }


@pytest.mark.parametrize("me", [0, 1])
def test_a_game_is_summarised_from_the_side_of_the_local_player(games: list[Any], me: int,
                                                                home: Path) -> None:
    game = games[0]
    assert record_game(game.transcript, me=me) is True
    (summary,) = load_games().values()
    assert {k: getattr(summary, k) for k in _expected(game, me)} == _expected(game, me)
    assert summary.opponent_fingerprint == game.transcript.players[1 - me].fingerprint
    assert summary.session == game.transcript.session


def test_recording_the_same_game_twice_counts_it_once(games: list[Any], home: Path) -> None:
    game = games[1]
    report = verify_transcript(game.transcript)
    assert report.match is not None
    assert record_match(session=game.transcript.session, me=0, names=report.names,
                        fingerprints=report.fingerprints, match=report.match) is True
    assert record_game(game.transcript, me=0) is False
    assert sync_transcripts() == []
    overall, per = totals(load_games().values())
    assert overall.matches == 1 and len(per) == 1


def test_a_transcript_that_does_not_verify_is_not_counted(games: list[Any], home: Path) -> None:
    t = games[2].transcript
    cut = replace_entries(t, list(t.entries[:-1]))
    with pytest.raises(StatsError, match="does not prove"):
        record_game(cut, me=0)
    assert load_games() == {}


def test_the_identity_key_decides_which_player_we_are(games: list[Any], home: Path) -> None:
    game = games[0]
    assert local_player(game.transcript) == 0  # only meta.me says so
    seed = bytes(keys_for(game.seed)[1])
    home.mkdir(parents=True, exist_ok=True)
    (home / "identity.json").write_bytes(
        canonical_dumps({"version": 1, "name": "bob", "seed": seed.hex()}) + b"\n")
    assert local_player(game.transcript) == 1


def test_saved_transcripts_are_counted_per_opponent(games: list[Any], home: Path) -> None:
    folder = home / "transcripts"
    folder.mkdir(parents=True)
    for game in games[:3]:
        (folder / game.path.name).write_bytes(game.path.read_bytes())
    (folder / "broken.jsonl").write_bytes(b"not a transcript\n")
    problems = sync_transcripts()
    assert [p.name for p, _ in problems] == ["broken.jsonl"]
    overall, per = totals(load_games().values())
    assert overall.matches == 3
    assert set(per) == {g.transcript.players[1].fingerprint for g in games[:3]}
    assert overall.hands == sum(g.transcript.result["hands_played"] for g in games[:3])
    lines = stats_lines()
    assert lines[0].startswith("All opponents: matches")
    only = stats_lines(opponent=games[0].transcript.players[1].fingerprint)
    assert len(only) == 2 and games[0].transcript.players[1].name in only[1]


def test_no_games_yet(home: Path) -> None:
    assert stats_lines() == ["No finished matches counted yet."]


def test_the_console_records_a_finished_view_and_gets_lines_for_this_opponent(
        games: list[Any], home: Path) -> None:
    from types import SimpleNamespace

    t = games[1].transcript
    report = verify_transcript(t)
    view = SimpleNamespace(match=report.match, session_id=t.session, me=1,
                           names=report.names, fingerprints=report.fingerprints)
    lines = record_view(view, date="2026-11-30T12:00:00Z")
    assert lines[0].startswith("All opponents: matches 1")
    assert report.names[0] in lines[1]
    assert record_view(view) == lines  # counted once
    (summary,) = load_games().values()
    assert (summary.opponent, summary.date) == (report.names[0], "2026-11-30T12:00:00Z")
    unfinished = SimpleNamespace(match=None, session_id="", me=0, names=report.names,
                                 fingerprints=report.fingerprints)
    assert record_view(unfinished) == ["Statistics count finished matches only."]


def test_an_abandoned_match_is_not_counted_and_is_no_problem(home: Path) -> None:
    from verify_helpers import play_transcript

    from p2pgin.log.transcript import write_transcript

    t = play_transcript(21, target=25, abandon_after=60)
    assert t.entries[-1].type == "abandon" and t.result == {}
    folder = home / "transcripts"
    folder.mkdir(parents=True)
    write_transcript(folder / f"{t.session}.jsonl", t)
    assert sync_transcripts() == []
    assert load_games() == {}


def test_one_match_with_take_backs_is_one_match() -> None:
    from p2pgin.stats import Totals, _line

    t = Totals(matches=1, take_backs=2, marked=1)
    assert _line("x", t).endswith("take-backs 2 (in 1 match)")
    t = Totals(matches=3, take_backs=4, marked=2)
    assert _line("x", t).endswith("take-backs 4 (in 2 matches)")


def test_each_bot_level_is_its_own_opponent(games: list[Any], home: Path) -> None:
    """Every level of a user's bots plays with one key: statistics lumped them together.
    A computer opponent (its hello says so) is counted per name: per level."""
    from p2pgin.stats import GameSummary, opponent_key

    fp = "sqir-cs4e-bete-xy7j"
    for i, (game, name) in enumerate(zip(games, ("bot-easy", "bot-hard", "bot-hard"),
                                         strict=False)):
        report = verify_transcript(game.transcript)
        assert report.match is not None
        record_match(session=game.transcript.session, me=0, names=("me", name),
                     fingerprints=("mine", fp), match=report.match, opponent_bot=True,
                     date=str(i))
    overall, per = totals(load_games().values())
    assert overall.matches == 3
    assert {k: t.matches for k, t in per.items()} == {
        opponent_key(fp, "bot-easy", True): 1, opponent_key(fp, "bot-hard", True): 2}
    lines = stats_lines()
    assert any(line.startswith(f"bot-easy ({fp}): matches ") for line in lines), lines
    assert any(line.startswith(f"bot-hard ({fp}): matches ") for line in lines), lines
    # a person is one opponent whatever name it takes; a stored summary of before the
    # flag takes a bot's name as the flag
    assert opponent_key(fp, "Ann", False) == opponent_key(fp, "Annie", False) == fp
    old = {**load_games()[games[0].transcript.session].to_dict()}
    del old["opponent_bot"]
    assert GameSummary.from_dict(old).opponent_bot is True
    assert GameSummary.from_dict({**old, "opponent": "Ann"}).opponent_bot is False


def test_the_bot_flag_of_a_transcript_comes_from_the_opponents_signed_hello(
        games: list[Any], home: Path) -> None:
    game = games[0]
    hello = next(e for e in game.transcript.entries if e.is_hello and e.sender == 1)
    assert record_game(game.transcript, me=0) is True
    (summary,) = load_games().values()
    assert summary.opponent_bot is bool(hello.body.get("bot"))
