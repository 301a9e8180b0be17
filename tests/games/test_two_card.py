"""A made-up game through the registry alone (issue 25 §2): played engine-only by the one
referee over the game contract (the same referee plays every game p2pgin ships), and a
whole match over the real match machine (two real sessions, their frames carried in
memory), saved as a transcript file and verified by the records, which speak of it in
the words of its spec.
"""

from __future__ import annotations

import ast
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from p2pgin.engine.errors import HiddenCardError
from p2pgin.engine.game import Game, SeatView
from p2pgin.engine.moves import Move
from p2pgin.engine.referee import Chooser, Referee
from p2pgin.engine.rules import Rules
from p2pgin.engine.rummy_rules import RummyRules
from p2pgin.games import GAMES, GameSpec, UnknownGame, find_game, make_game, registered
from p2pgin.log.transcript import write_transcript
from p2pgin.records import Status, transcript_of, verify_file
from p2pgin.records.saved import read_games
from testkit.memtable import Router, Seat, table
from tests.games.two_card import TWO_CARD
from tests.games.two_card.engine import Stand, Swap, TwoCardGame, TwoCardHand, TwoCardMatch

PACKAGE = Path(__file__).parent / "two_card"
#: What a game of its own may import of p2pgin: the public faces (issue 25 §2).
PUBLIC = {"p2pgin.engine.game", "p2pgin.engine.cards", "p2pgin.engine.errors",
          "p2pgin.engine.moves", "p2pgin.games", "p2pgin.games.kit", "p2pgin.games.panel",
          "p2pgin.bots.api"}


def _seed(n: int) -> bytes:
    return bytes([n]) * 32


def test_a_made_up_game_plays_whole_matches_through_the_registry_and_the_contract() -> None:
    moves: Counter[str] = Counter()
    with registered(TWO_CARD):
        game = make_game("two_card", {"target": 3}, 2)
        assert isinstance(game, TwoCardGame) and find_game("two_card") is TWO_CARD
        bot = find_game("two_card").bots.make("normal")
        for n in range(12):
            rng = random.Random(n)

            def player(view: SeatView, rng: random.Random = rng) -> Move:
                hand = view.hand
                assert isinstance(hand, TwoCardHand)
                assert hand.card_of(1 - view.seat) is None  # the other card stays hidden
                return bot.choose(view, rng)

            referee = Referee(game, rng, _seed(n))
            match = referee.play_match(player)
            assert isinstance(match, TwoCardMatch) and match.over
            score = match.result()
            assert len(score.winners) == 1 and max(score.totals) == 3 > min(score.totals)
            moves.update(move.kind for _, move in referee.moves)
    assert moves["swap"] and moves["stand"] and moves["show"] == moves["swap"] + moves["stand"]
    with pytest.raises(UnknownGame):
        make_game("two_card", {"target": 3}, 2)


def _bot_player(rng: random.Random) -> Callable[[Seat], Move]:
    """The made-up game's own bot, found through the registry, choosing each seat's move
    from what its session's view shows that seat."""
    bot = find_game("two_card").bots.make("normal")

    def choose(seat: Seat) -> Move:
        view = seat.session.view
        assert view.me is not None and isinstance(view.hand, TwoCardHand)
        assert view.hand.card_of(1 - view.me) is None  # the other card stays hidden
        return bot.choose(SeatView(hand=view.hand, seat=view.me), rng)

    return choose


def _play_match(seed: int) -> Router:
    router = table("two_card", 2, rules={"target": 3}, seed=seed)
    made = router.play(rng=random.Random(seed), choose=_bot_player(random.Random(seed)))
    assert made >= 6  # three hands at least, two choices each (the shows are forced)
    return router


@pytest.mark.parametrize("seed", [3, 8])
def test_a_made_up_game_plays_a_whole_match_over_the_real_machine_and_verifies(
        seed: int, tmp_path: Path) -> None:
    with registered(TWO_CARD):
        router = _play_match(seed)
        matches = []
        for name, seat in router.seats.items():
            session = seat.session
            assert session.finished and session.view.stage == "match_over", name
            machine = session.machine
            assert machine is not None and isinstance(machine.state.match, TwoCardMatch)
            matches.append(machine.state.match)
            path = tmp_path / f"{name}.jsonl"
            write_transcript(path, transcript_of(machine, seat.key,
                                                 meta={"saved": "2026-12-01T00:00:00Z"}))
        assert matches[0] == matches[1] and matches[0].over  # both seats agree
        score = matches[0].result()
        (winner,) = score.winners
        for path in sorted(tmp_path.glob("*.jsonl")):
            report = verify_file(path)
            assert report.ok and report.status is Status.FINISHED, report.lines()
            data = report.to_dict()
            assert data["game"] == "two_card" and data["rules"] == {"target": 3}
            outcome = data["matches"][-1]["outcome"]
            assert outcome["winners"] == [winner] and outcome["totals"] == list(score.totals)
            hands = data["matches"][-1]["hands"]
            assert len(hands) == matches[0].hands and all(h["counts"] for h in hands)
            # the records' words are the spec's: its title and its rules in words
            assert data["rules_text"] == [f"{TWO_CARD.words.report(2)}, standard rules",
                                          *TWO_CARD.rules.words(TWO_CARD.rules.from_wire(
                                              {"target": 3}))[1:]]
        lines = list(read_games(_home(tmp_path)))
        assert {line.game for line in lines} == {"two_card"}
        for line in lines:
            assert line.status == "finished" and line.totals == score.totals
            assert line.result == ("won" if line.me == winner else "lost")
            assert f"  {TWO_CARD.words.list_word}  " in line.text()


def _home(tmp_path: Path) -> Path:
    """A data directory holding the transcripts in ``tmp_path`` (``p2pgin games``)."""
    home = tmp_path / "home"
    (home / "transcripts").mkdir(parents=True)
    for path in tmp_path.glob("*.jsonl"):
        path.rename(home / "transcripts" / path.name)
    return home


def test_the_made_up_game_imports_only_public_faces() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            for name in names:
                if name.startswith("p2pgin"):
                    assert name in PUBLIC, f"{path.name} imports {name}"
                # a game of its own reaches nothing of the repository's tests either
                assert name.split(".")[0] not in ("tests", "testkit"), (
                    f"{path.name} imports {name}")


def test_the_made_up_games_spec_round_trips_its_rules() -> None:
    codec = TWO_CARD.rules
    rules = codec.from_options(None, 5, {})
    assert codec.from_wire(rules.to_dict()) == rules and rules.to_dict() == {"target": 5}
    assert codec.words(rules) == ("standard rules",
                                  "the higher card wins a hand; first to 5 hands wins")
    with pytest.raises(ValueError, match=r"target must be 1\.\.99"):
        codec.from_wire({"target": 0})


def _prefer_ends(rng: random.Random) -> Chooser:
    """A random player that knocks whenever it may, so that short matches of gin end
    in a few hands (a gin declaration is the only legal move when it is due)."""

    def player(view: SeatView) -> Move:
        legal = view.hand.legal_moves()
        ends = [m for m in legal if m.to_dict()["move"] in ("knock", "big_gin")]
        return rng.choice(ends or list(legal))

    return player


def _shipped(spec: GameSpec) -> Game:
    seats = 3 if spec.name == "rummy" else spec.seats[0]
    if spec.name == "rummy":
        return spec.new_game(RummyRules(target=1), seats)
    return spec.new_game(Rules(target=1), seats)


@pytest.mark.parametrize("spec", GAMES, ids=lambda s: s.name)
def test_the_one_referee_plays_every_shipped_game_through_the_contract(spec: GameSpec) -> None:
    game = _shipped(spec)
    rng = random.Random(spec.name)
    referee = Referee(game, rng, _seed(7))
    match = referee.play_match(_prefer_ends(rng), max_hands=200)
    assert match.over and match.result().winners
    assert referee.moves and {s for s, _ in referee.moves} <= set(range(game.seats))


@dataclass(frozen=True, slots=True)
class _ShortHand(TwoCardHand):
    """The made-up hand with a bug: a show opens nothing to the other seats."""

    def opens(self, move: Move, seat: int) -> tuple[int, ...]:
        return ()


@dataclass(frozen=True, slots=True)
class _ShortMatch(TwoCardMatch):
    def deal(self) -> TwoCardHand:
        hand = super(_ShortMatch, self).deal()
        return _ShortHand(hand_no=hand.hand_no, first=hand.first)


@dataclass(frozen=True, slots=True)
class _ShortGame(TwoCardGame):
    def new_match(self, seed: bytes, *, first_dealer: int | None = None) -> TwoCardMatch:
        match = super(_ShortGame, self).new_match(seed, first_dealer=first_dealer)
        return _ShortMatch(match.rules, match.first)


def test_the_referee_catches_a_game_that_does_not_open_what_a_move_shows() -> None:
    referee = Referee(_ShortGame(), random.Random(1), _seed(1))
    with pytest.raises(HiddenCardError, match="show: position"):
        referee.play_hand(lambda view: Swap())
    assert [move for _, move in referee.moves] == [Swap(), Swap()]  # the first show failed


def test_the_made_up_game_shows_on_the_console() -> None:
    """The console draws a game it was never told of: its title, its seat's card and its
    words come from the spec's face (``panel.py``), with no edit of the console."""
    from p2pgin.games.kit import card_label
    from tests.ui.ui_screens import console_session, screen_text
    from tests.ui.ui_tables import TableGame

    def stands(view: Any) -> Any:
        return next((m for m in view.legal_moves if isinstance(m, Stand)), None)

    with registered(TWO_CARD):
        game = TableGame("two_card", 2, me=0, rules={"target": 3},
                         choosers={1: stands})
        hand = game.view.hand
        assert isinstance(hand, TwoCardHand)
        mine = hand.card_of(0)
        assert mine is not None
        with console_session(game) as (built, _inp, _out):
            table = built.console.table
            screen = "\n".join(screen_text(built))
        assert table.hand == (mine,) and table.game_title == TWO_CARD.words.table(2)
        assert table.face is TWO_CARD.panel.words
        # the hand panel: the face's word over the seat's one card
        assert "your card" in screen and card_label(mine) in screen
        # the log: the face's words for the deal and the other seat's move
        assert "Hand 1: one card each; every card proven." in screen
        assert "Bob stands" in screen and "display error" not in screen
