"""The registry of games (issue 25 §2): every game's spec, its rules codec and its words,
``make_game`` with today's messages, and ``registered`` for a game of a test's own.

The titles, words and flags moved here as data from the layers that still keep their
own copies (cli, ui/tables): each copy is compared here, so the data moved faithfully;
when a package removes a copy, its comparison goes with it (the records' copies went:
they read the spec).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from types import SimpleNamespace

import pytest

from p2pgin import cli
from p2pgin.cli import options
from p2pgin.engine.gin_game import GinGame
from p2pgin.engine.rules import PRESETS, Rules, RulesError
from p2pgin.engine.rummy import RummyGame
from p2pgin.engine.rummy_rules import RUMMY_PRESETS, RummyRules
from p2pgin.games import (
    GAMES,
    GameSpec,
    GameSpecError,
    RuleOption,
    UnknownGame,
    all_games,
    find_game,
    game_for_players,
    make_game,
    registered,
)
from p2pgin.records import report
from p2pgin.ui import tables as ui_tables


def _bytes(rules: Mapping[str, object]) -> bytes:
    return json.dumps(dict(rules), sort_keys=True, separators=(",", ":")).encode()


@pytest.mark.parametrize("spec", GAMES, ids=lambda s: s.name)
def test_every_preset_round_trips_its_wire_form_byte_for_byte(spec: GameSpec) -> None:
    engine_presets = RUMMY_PRESETS if spec.name == "rummy" else PRESETS
    assert spec.rules.presets == tuple(engine_presets)
    for preset in spec.rules.presets:
        rules = spec.rules.from_options(preset, None, {})
        wire = rules.to_dict()
        assert _bytes(wire) == _bytes(engine_presets[preset].to_dict())
        assert _bytes(spec.rules.from_wire(json.loads(_bytes(wire))).to_dict()) == _bytes(wire)
        for seats in spec.seats:
            game = make_game(spec.name, dict(wire), seats)
            assert game.name == spec.name and game.seats == seats
            assert _bytes(game.rules_dict()) == _bytes(wire)
    assert spec.rules.from_options(None, None, {}) == spec.rules.from_options(
        spec.rules.presets[0], None, {})


def test_options_and_target_change_the_preset_as_the_command_line_did() -> None:
    gin = find_game("gin").rules
    assert gin.from_options("oklahoma", 250, {"big_gin": True}) == Rules.preset(
        "oklahoma", big_gin=True, target=250)
    rummy = find_game("rummy").rules
    flags = {o.dest: True for o in rummy.options}
    assert rummy.from_options(None, 150, flags) == RummyRules.preset(
        "basic", target=150, **{o.dest: True for o in rummy.options})
    with pytest.raises(RulesError, match="gin has no option 'shuffle_stock'"):
        gin.from_options(None, None, {"shuffle_stock": True})
    with pytest.raises(RulesError, match="Rummy has no variation 'big_gin'"):
        rummy.from_options(None, None, {"big_gin": True})
    with pytest.raises(RulesError, match="unknown preset 'fast'"):
        gin.from_options("fast", None, {})
    with pytest.raises(RulesError, match=r"target must be 1\.\.100000"):
        rummy.from_options(None, 0, {})


def test_the_flags_are_the_command_lines_options() -> None:
    assert find_game("gin").rules.options == (
        RuleOption(flag="big-gin", dest="big_gin", help="allow big gin (all 11 cards melded)"),)
    assert {o.dest: o.help for o in find_game("rummy").rules.options} == options.RUMMY_VARIATIONS
    assert {o.noun for o in find_game("rummy").rules.options} == {"variation"}
    assert all(o.flag == o.dest.replace("_", "-") for o in find_game("rummy").rules.options)


def _variants(spec: GameSpec) -> list[Mapping[str, object]]:
    out: list[Mapping[str, object]] = []
    for preset in spec.rules.presets:
        dests = [o.dest for o in spec.rules.options]
        for on in itertools.product((False, True), repeat=len(dests)):
            flags = dict(zip(dests, on, strict=True))
            out.append(spec.rules.from_options(preset, None, flags).to_dict())
    out.append({**out[0], "winner_deals": False} if spec.name != "rummy" else out[0])
    out.append({**out[0], "shutout": "none", "knock_limit": 7} if spec.name != "rummy"
               else {**out[0], "target": 250})
    return out


@pytest.mark.parametrize("spec", GAMES, ids=lambda s: s.name)
def test_the_rule_lines_are_the_records_words(spec: GameSpec) -> None:
    for wire in _variants(spec):
        for seats in spec.seats:
            first, *rest = spec.rules.words(spec.rules.from_wire(wire))
            assert (f"{report.game_title(spec.name, seats)}, {first}", *rest) == (
                report.rules_lines(spec.name, wire, seats))


@pytest.mark.parametrize("spec", GAMES, ids=lambda s: s.name)
def test_titles_and_words_are_the_ones_each_layer_says_today(spec: GameSpec) -> None:
    assert spec.title == options._game_words(spec.name)
    for seats in spec.seats:
        view = SimpleNamespace(game=spec.name, seats=seats)
        assert spec.words.table(seats) == ui_tables.game_title(view)
    assert spec.seats == ((cli.GAMES[spec.name],) if cli.GAMES[spec.name] else (2, 3, 4, 5, 6))


def test_a_table_size_alone_picks_the_game_it_did() -> None:
    assert {n: game_for_players(n).name for n in range(2, 7)} == options._GAME_FOR_PLAYERS
    with pytest.raises(GameSpecError, match="no game is played by 7"):
        game_for_players(7)


GIN_WIRE = Rules().to_dict()
RUMMY_WIRE = RummyRules().to_dict()
MESSAGES: list[tuple[str, object, int, str]] = [
    ("chess", GIN_WIRE, 2, "unknown game 'chess' (known: gin, gin3, rummy, team_gin)"),
    ("gin", [1], 2, "rules must be an object"),
    ("gin", GIN_WIRE, 3, "gin is played by 2, not 3"),
    ("team_gin", GIN_WIRE, 3, "team_gin is played by 4, not 3"),
    ("gin", {**GIN_WIRE, "knock_limit": 11}, 2, "gin: knock_limit must be 0..10, got 11"),
    ("gin", {k: v for k, v in GIN_WIRE.items() if k != "target"}, 2,
     "gin: rules keys: missing ['target'], unknown []"),
    ("rummy", RUMMY_WIRE, 7, "rummy: Rummy is for 2 to 6 players, got 7"),
    ("rummy", {**RUMMY_WIRE, "target": "x"}, 3, "rummy: target must be an int, got 'x'"),
    ("rummy", GIN_WIRE, 9, "rummy: Rummy rules keys: missing ['aces_high_or_low', "
     "'discard_any_card', 'discard_final_card', 'multiple_melds', 'reverse_scoring', "
     "'rummy_doubles', 'shuffle_stock'], unknown ['big_gin', 'big_gin_bonus', 'box_bonus', "
     "'game_bonus', 'gin_bonus', 'knock_limit', 'oklahoma', 'shutout', 'spade_doubles', "
     "'undercut_bonus', 'winner_deals']"),
]


@pytest.mark.parametrize(("name", "rules", "seats", "message"), MESSAGES)
def test_make_game_refuses_in_todays_words(name: str, rules: object, seats: int,
                                           message: str) -> None:
    with pytest.raises(GameSpecError) as caught:
        make_game(name, rules, seats)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_make_game_builds_the_engines_games() -> None:
    assert make_game("gin", dict(GIN_WIRE), 2) == GinGame(Rules())
    assert make_game("rummy", dict(RUMMY_WIRE), 5) == RummyGame(5, RummyRules())
    with pytest.raises(UnknownGame):
        find_game("Gin")


def _made_up(name: str, default_for: tuple[int, ...] = ()) -> GameSpec:
    gin = find_game("gin")
    return GameSpec(name=name, title="made up", seats=(2,), default_for=default_for,
                    rules=gin.rules, new_game=gin.new_game, words=gin.words,
                    bots=gin.bots)


def test_a_registered_game_is_found_inside_its_block_only() -> None:
    spec = _made_up("made_up")
    with registered(spec) as inside:
        assert inside is spec and find_game("made_up") is spec
        assert all_games() == (*GAMES, spec)
        with pytest.raises(UnknownGame, match="known: gin, gin3, made_up, rummy, team_gin"):
            find_game("nope")
    assert all_games() == GAMES
    with pytest.raises(UnknownGame):
        find_game("made_up")


def test_registered_refuses_a_name_or_a_default_size_already_taken() -> None:
    taken = pytest.raises(GameSpecError, match="a game named 'gin' is known already")
    with taken, registered(_made_up("gin")):
        pass
    clash = pytest.raises(GameSpecError, match="a table of 2 has its default game")
    with clash, registered(_made_up("made_up", default_for=(2,))):
        pass
    assert all_games() == GAMES


@pytest.mark.parametrize("bad", [
    {"name": "Gin"}, {"name": ""}, {"seats": ()}, {"seats": (3, 2)}, {"seats": (1, 2)},
    {"default_for": (3,)},
])
def test_a_spec_that_cannot_be_looked_up_is_refused_when_made(bad: dict[str, object]) -> None:
    gin = find_game("gin")
    fields: dict[str, object] = {
        "name": "made_up", "title": "made up", "seats": (2,), "default_for": (),
        "rules": gin.rules, "new_game": gin.new_game, "words": gin.words,
        "bots": gin.bots, **bad}
    with pytest.raises(GameSpecError):
        GameSpec(**fields)  # type: ignore[arg-type]


def test_a_game_refuses_another_games_rules_by_name() -> None:
    with pytest.raises(RulesError, match="gin plays gin's rules, not RummyRules"):
        find_game("gin").new_game(RummyRules(), 2)
    with pytest.raises(RulesError, match="Rummy plays Rummy's rules, not Rules"):
        find_game("rummy").new_game(Rules(), 3)
