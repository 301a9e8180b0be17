"""Named rule sets (``p2pgin rules save/list/show/delete``, ``--rules NAME``): real files
in a data directory of the test's own, the real command line in a subprocess; a hosted
table with a saved set in a real terminal (tests/ui/test_ui_tty_rules.py)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin import cli
from p2pgin.cli import options, rulesets
from p2pgin.cli.rulesets import RuleSet, RuleSetError, dumps_toml, rules_line
from p2pgin.engine.rules import Rules

ROOT = Path(__file__).resolve().parents[2]


def _rules(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, P2PGIN_HOME=str(home),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "p2pgin", "rules", *argv], env=env,
                          capture_output=True, text=True, timeout=60, cwd=ROOT)


_SCALARS = st.one_of(st.text(max_size=40), st.integers(-(2**63), 2**63 - 1), st.booleans())


@given(st.dictionaries(
    st.text(min_size=1, max_size=20),
    st.dictionaries(st.text(min_size=1, max_size=12),
                    st.one_of(_SCALARS, st.dictionaries(st.text(min_size=1, max_size=12),
                                                        _SCALARS, max_size=4)),
                    max_size=5),
    max_size=4))
def test_the_toml_written_here_reads_back_the_same_with_tomllib(tables: dict) -> None:  # type: ignore[type-arg]
    assert tomllib.loads(dumps_toml(tables)).get("rules", {}) == tables


def test_save_list_show_delete_round_trip(tmp_path: Path) -> None:
    saved = _rules(tmp_path, "save", "Friday", "--rules", "oklahoma", "--target", "200")
    assert saved.returncode == 0, saved
    assert saved.stdout.splitlines()[0] == "saved friday: gin for two players: oklahoma, to 200"
    path = tmp_path / "config" / "rules.toml"  # NB: P2PGIN_HOME holds the configuration too
    stored = tomllib.loads(path.read_text())["rules"]["friday"]
    assert stored["game"] == "gin" and stored["players"] == 2
    assert stored["options"] == Rules.preset("oklahoma", target=200).to_dict()
    assert _rules(tmp_path, "save", "kitchen", "--game", "rummy", "--players", "4",
                  "--multiple-melds").returncode == 0
    listed = _rules(tmp_path, "list").stdout.splitlines()
    assert listed[:2] == ["friday   gin for two players: oklahoma, to 200",
                          "kitchen  Rummy for 4 players: basic, many melds a turn, to 100"]
    assert listed[2].startswith("presets: standard, classic, oklahoma (gin)")
    shown = _rules(tmp_path, "show", "KITCHEN").stdout
    assert shown.startswith("kitchen: Rummy for 4 players, basic rules with 1 variation\n")
    assert "  any number of melds per turn\n" in shown
    # saving over a name says what it replaced; --rules NAME beside it edits that set
    again = _rules(tmp_path, "save", "friday", "--rules", "friday", "--big-gin")
    assert again.stdout.splitlines()[:2] == [
        "replaced friday: gin for two players: oklahoma, big gin, to 200",
        "  (it was gin for two players: oklahoma, to 200)"]
    gone = _rules(tmp_path, "delete", "friday")
    assert gone.stdout.startswith("deleted friday: ") and gone.returncode == 0
    assert list(tomllib.loads(path.read_text())["rules"]) == ["kitchen"]


@pytest.mark.parametrize(("argv", "said"), [
    (("save", "Oklahoma"), "'oklahoma' is a preset's name; a saved rule set needs another name"),
    (("save", "basic"), "'basic' is a preset's name"),
    (("save", "my rules"), "'my rules' is not a rule set name: use 1 to 32 letters"),
    (("save", "_x"), "is not a rule set name"),
    (("show", "nope"), "no saved rule set 'nope' (saved: none yet; p2pgin rules list"),
    (("delete", "nope"), "no saved rule set 'nope'"),
    (("save", "x", "--game", "rummy", "--big-gin"), "--big-gin is a gin option"),
])
def test_a_bad_rule_set_command_is_one_line_and_status_2(tmp_path: Path, argv: tuple[str, ...],
                                                         said: str) -> None:
    done = _rules(tmp_path, *argv)
    assert done.returncode == 2, done
    (line,) = done.stderr.splitlines()
    assert line.startswith("p2pgin: ") and said in line, line
    assert not (tmp_path / "config" / "rules.toml").exists()


def test_a_broken_rules_file_is_named_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "rules.toml").write_text("[rules.x]\ngame = \n")
    for argv in (("list",), ("save", "y")):
        done = _rules(tmp_path, *argv)
        (line,) = done.stderr.splitlines()
        assert done.returncode == 2 and "rules.toml" in line and "line 2" in line, line
        assert "(fix or delete the file)" in line
    done = subprocess.run([sys.executable, "-m", "p2pgin", "host", "--rules", "x"],
                          env=dict(os.environ, P2PGIN_HOME=str(tmp_path)), capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    (line,) = done.stderr.splitlines()
    assert done.returncode == 2 and "rules.toml" in line and "line 2" in line, line


def _parse(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(list(argv))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("P2PGIN_HOME", str(tmp_path))
    rulesets.save_rule_set(RuleSet(name="friday", game="gin", players=2,
                                   options=Rules.preset("oklahoma", target=200).to_dict()))
    rulesets.save_rule_set(RuleSet(name="kitchen", game="rummy", players=4,
                                   options=options._rules(_parse("host", "--game", "rummy",
                                                             "--multiple-melds"), "rummy")))
    return tmp_path


def test_rules_name_takes_a_saved_set_as_it_takes_a_preset(home: Path) -> None:
    for command in ("play", "host", "join", "bot"):
        game, seats, rules = options._table(_parse(command, "--rules", "friday"))
        assert (game, seats, rules) == ("gin", 2, Rules.preset("oklahoma", target=200).to_dict())
    game, seats, rules = options._table(_parse("host", "--rules", "Kitchen"))
    assert (game, seats, rules["multiple_melds"]) == ("rummy", 4, True)
    # options beside it change it for this table
    _, seats, rules = options._table(_parse("host", "--rules", "kitchen", "--players", "3",
                                        "--shuffle-stock", "--target", "50"))
    assert (seats, rules["multiple_melds"], rules["shuffle_stock"], rules["target"]) == (
        3, True, True, 50)
    # and the preset of that name is still the preset
    assert options._table(_parse("host", "--rules", "oklahoma"))[2]["target"] == 150


@pytest.mark.parametrize(("argv", "said"), [
    (("--rules", "friday", "--game", "rummy"), "rule set friday is for gin, not Rummy"),
    (("--rules", "kitchen", "--big-gin"), "--big-gin is a gin option"),
    (("--rules", "nightly"), "--rules nightly: neither a preset (standard, classic, oklahoma, "
                             "basic, straight, traditional) nor a saved rule set (friday, "
                             "kitchen; p2pgin rules list)"),
])
def test_a_saved_set_that_does_not_fit_is_one_line(home: Path, argv: tuple[str, ...],
                                                   said: str) -> None:
    with pytest.raises(cli.BadOptions) as caught:
        options._table(_parse("host", *argv))
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_saved_set_edited_into_nonsense_says_so(home: Path) -> None:
    path = home / "config" / "rules.toml"
    path.write_text(path.read_text().replace("knock_limit = 10", "knock_limit = 99"))
    with pytest.raises(cli.BadOptions, match=r"rule set friday: knock_limit must be 0\.\.10"):
        options._table(_parse("host", "--rules", "friday"))


def test_a_bot_keeps_the_set_it_read_before_its_data_directory_changed(
        home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    args = _parse("bot", "--rules", "friday")
    first = options._table(args)
    monkeypatch.setenv("P2PGIN_HOME", str(tmp_path_factory.mktemp("bot-home")))
    assert options._table(args) == first


def test_the_configuration_follows_xdg_unless_p2pgin_home_is_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("P2PGIN_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert rulesets.config_dir() == tmp_path / "xdg" / "p2pgin"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert rulesets.config_dir() == tmp_path / "home" / ".config" / "p2pgin"
    monkeypatch.setenv("P2PGIN_HOME", str(tmp_path / "p2"))
    assert rulesets.config_dir() == tmp_path / "p2" / "config"


@pytest.mark.parametrize(("game", "options", "line"), [
    ("gin", {}, "standard, to 100"),
    ("gin", {"knock_limit": 7, "big_gin": True}, "standard, knock 7, big gin, to 100"),
    ("gin", {"gin_bonus": 20, "undercut_bonus": 10, "box_bonus": 20}, "classic, to 100"),
    ("gin", {"oklahoma": True}, "standard, oklahoma, to 100"),
    ("rummy", {"rummy_doubles": True, "target": 250}, "basic, rummy doubles, to 250"),
])
def test_the_rules_line_names_the_preset_and_what_differs(game: str, options: dict,  # type: ignore[type-arg]
                                                          line: str) -> None:
    from p2pgin.engine.rummy_rules import RummyRules

    kind = RummyRules if game == "rummy" else Rules
    rules = kind.preset(**options).to_dict()  # type: ignore[attr-defined]
    assert rules_line(game, rules) == line
    assert len(rules_line("gin", {**Rules().to_dict(), **{k: 1 for k in ("gin_bonus",
               "undercut_bonus", "box_bonus", "game_bonus", "knock_limit")}})) <= 80


def test_check_name_refuses_presets_in_any_case() -> None:
    for name in ("STANDARD", "Classic", "traditional"):
        with pytest.raises(RuleSetError, match="preset"):
            rulesets.check_name(name)
    assert rulesets.check_name("Friday-Night_2") == "friday-night_2"
