"""Every game's bots through the one interface (issue 25 §3): the factory is the spec's
``bots``, a bot is ``choose(view, rng) -> move`` over a :class:`SeatView`, and the one
engine referee plays every shipped game with them."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from p2pgin.agents import RandomPlayer, bot_chooser
from p2pgin.bots import hint, make_bot, make_rummy_bot, rummy_hint
from p2pgin.bots.api import ViewError
from p2pgin.engine.game import Game, GameMatch, SeatView
from p2pgin.engine.gin_tables import gin_seat
from p2pgin.engine.moves import Move
from p2pgin.engine.referee import Referee
from p2pgin.engine.rules import Rules
from p2pgin.engine.rummy import RummyHand
from p2pgin.engine.rummy_rules import RummyRules
from p2pgin.games import GAMES, GameSpec, find_game


def _seed(n: int) -> bytes:
    return bytes([n]) * 32


def _game(spec: GameSpec, target: int = 1) -> Game:
    rules = (Rules(target=target) if spec.words.knocks
             else RummyRules(target=target))
    return spec.new_game(rules, spec.seats[0] if spec.fixed_seats else 3)


def test_loading_the_registry_loads_no_strategy() -> None:
    code = ("import sys, p2pgin.games\n"
            "print(sorted(m for m in sys.modules if m.startswith('p2pgin.bots')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['p2pgin.bots', 'p2pgin.bots.api']"


def test_every_game_names_its_levels_and_refuses_another_with_them() -> None:
    levels = {spec.name: spec.bots.levels for spec in GAMES}
    assert levels == {"gin": ("random", "easy", "normal", "hard", "expert"),
                      "gin3": levels["gin"], "team_gin": levels["gin"],
                      "rummy": ("random", "easy", "normal", "hard")}
    with pytest.raises(ValueError, match=r"unknown bot level 'expert'; choose one of "
                                         r"\['easy', 'hard', 'normal'\]"):
        find_game("rummy").bots.make("expert")
    with pytest.raises(ValueError, match=r"choose one of \['easy', 'expert', 'hard', 'normal'\]"):
        find_game("gin").bots.make("grand")


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
@pytest.mark.parametrize("spec", GAMES, ids=lambda s: s.name)
def test_the_one_referee_plays_every_game_with_its_bots(spec: GameSpec, level: str) -> None:
    rng = random.Random(f"{spec.name}-{level}")
    bot, game = spec.bots.make(level), _game(spec)
    referee = Referee(game, rng, _seed(3))
    match = referee.play_match(lambda view: bot.choose(view, rng), max_hands=50)
    assert match.over and match.result().winners
    movers = {s for s, _ in referee.moves}
    assert movers <= set(range(game.seats)) and len(movers) >= 2


def _moves_of(choose: object, spec: GameSpec, seed: int) -> list[tuple[int, Move]]:
    referee = Referee(_game(spec, target=100), random.Random(seed), _seed(seed))
    referee.play_hand(choose)  # type: ignore[arg-type]
    return referee.moves


@pytest.mark.parametrize("spec", GAMES, ids=lambda s: s.name)
def test_a_bot_through_the_face_plays_the_strategys_own_moves(spec: GameSpec) -> None:
    through, own = random.Random(5), random.Random(5)
    bot = spec.bots.make("hard")
    if spec.words.knocks:
        strategy = make_bot("hard", own)

        def direct(view: SeatView) -> Move:
            mine = gin_seat(view.hand, view.seat)
            return mine.table_move(strategy.choose(mine.state, mine.me))
    else:
        rummy = make_rummy_bot("hard")

        def direct(view: SeatView) -> Move:
            assert isinstance(view.hand, RummyHand)
            return rummy.choose(view.hand, own)

    faced = _moves_of(lambda view: bot.choose(view, through), spec, 9)
    assert faced == _moves_of(direct, spec, 9) and len(faced) > 10


def test_the_hint_is_the_hard_levels_move_in_gin_and_rummy() -> None:
    seen = {"gin": 0, "rummy": 0}
    for name in seen:
        spec = find_game(name)
        referee = Referee(_game(spec, target=30), random.Random(1), _seed(1))

        def check(view: SeatView, spec: GameSpec = spec, name: str = name) -> Move:
            given = spec.bots.hint(view)
            if name == "gin":
                mine = gin_seat(view.hand, view.seat)
                assert given == hint(mine.state, mine.me)
            else:
                assert isinstance(view.hand, RummyHand)
                assert given == rummy_hint(view.hand.view_for(view.seat))
            seen[name] += 1
            return given

        referee.play_hand(check)
    assert min(seen.values()) > 10


@pytest.mark.parametrize("name", ["gin", "rummy"])
def test_a_finished_hand_is_a_view_error_in_every_game(name: str) -> None:
    spec = find_game(name)
    referee = Referee(_game(spec), random.Random(2), _seed(2))
    bot, rng = spec.bots.make("hard"), random.Random(2)
    referee.play_hand(lambda view: bot.choose(view, rng))
    with pytest.raises(ViewError):
        bot.choose(SeatView(hand=referee.views[0], seat=0), rng)


class _View:
    """What the agents read of a session's view."""

    def __init__(self, game: str, view: SeatView) -> None:
        self.game, self.hand, self.me = game, view.hand, view.seat
        self.legal_moves = view.hand.legal_moves()


def test_an_expert_at_a_rummy_table_plays_hard_and_the_random_player_plays_every_game() -> None:
    rummy = find_game("rummy")
    expert, hard = bot_chooser("expert", random.Random(4)), random.Random(4)
    strategy = make_rummy_bot("hard")

    def same(view: SeatView) -> Move:
        move: Move = expert(_View("rummy", view))
        assert isinstance(view.hand, RummyHand)
        assert move == strategy.choose(view.hand, hard)
        return move

    Referee(_game(rummy), random.Random(4), _seed(4)).play_hand(same)
    for spec in GAMES:
        assert _random_match(spec).over


def _random_match(spec: GameSpec) -> GameMatch:
    player = RandomPlayer(random.Random(6))

    def choose(view: SeatView) -> Move:
        move: Move = player(_View(spec.name, view))
        return move

    return Referee(_game(spec), random.Random(6), _seed(6)).play_match(choose, max_hands=200)
