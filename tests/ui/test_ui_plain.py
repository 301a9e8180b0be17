"""``--plain``: one line per event, typed commands, nothing but text."""

from __future__ import annotations

import re

from nacl.signing import SigningKey
from ui_harness import LocalGame, deck_for
from ui_screens import console_session, screen_text

from p2pgin.engine import PassUpcard, Rules, legal_moves
from p2pgin.log.identity import PeerCheck, PeerStatus, fingerprint
from p2pgin.session import EndKind
from p2pgin.session.endings import Ending
from p2pgin.session.events import Ended, MatchResumed, TableFormed
from p2pgin.ui.adapter import event_line
from p2pgin.ui.plain import PlainConsole


def test_intro_names_players_and_says_what_to_do() -> None:
    plain = PlainConsole(LocalGame(3))
    lines = plain.intro()
    assert lines[0].startswith("p2pgin: Alice against Bob (key 0f1e 2d3c 4b5a 6978)")
    assert "Hand 1: Bob dealt; every card proven." in lines
    assert "Hand 1: shuffled by Bob and you; each shuffle proven." in lines
    assert lines[-1] == "Your turn: type take for the upcard 6♣, or pass"
    assert any(line.startswith("deadwood") for line in lines)


def test_an_identity_fingerprint_is_shown_whole_in_the_intro_and_the_log() -> None:
    # A player compares the key character by character with the other screen: no part of
    # it may be cut off, in plain mode or in the full-screen console's log.
    key = fingerprint(SigningKey(bytes(range(32))).verify_key)
    assert len(key) == 19
    game = LocalGame(3)
    game.peer_info = PeerCheck(name="Bob", fingerprint=key, status=PeerStatus.NEW)
    plain = PlainConsole(game)
    assert plain.intro()[0] == f"p2pgin: Alice against Bob (key {key})"
    formed = TableFormed(session_id="5e55", names=("Alice", "Bob"), fingerprints=("x", key))
    line = event_line(formed, game.view)
    assert line is not None and line.parts == (f"At the table: Bob (key {key}).",)


def test_before_the_hello_the_intro_and_title_say_the_opponent_is_awaited() -> None:
    # The console starts before the link is up: no made-up name for the opponent.
    game = LocalGame(3)
    game.fingerprints = ("", "")
    game.names = ("Alice", "")
    assert PlainConsole(game).intro()[0] == "p2pgin: Alice, waiting for the opponent"
    with console_session(game) as (built, _inp, _out):
        title = screen_text(built)[0]
    assert "Alice vs (waiting for the opponent)" in title and "Player" not in title


def test_a_joiner_waiting_for_the_hosts_hello_sees_what_it_waits_for() -> None:
    from p2pgin.ui.frags import plain_text
    from p2pgin.ui.model import Table
    from p2pgin.ui.panels.hand import render_hand
    from p2pgin.ui.panels.seats import render_scores
    from p2pgin.ui.panels.table import render_table
    from p2pgin.ui.screen import UiState

    table = Table(me=1, names=("", "Bob"), stage="handshake", link="connecting",
                  waiting_for="the peer's hello", rules_text="knock limit 10; match to 100")
    ui = UiState()
    assert plain_text(render_table(table, ui, width=60)).strip() == (
        "Waiting for the peer's hello")
    assert plain_text(render_hand(table, ui, width=60)).strip() == (
        "Rules you ask for: knock limit 10; match to 100")
    assert plain_text(render_scores(table, ui)).splitlines()[0].split() == ["Bob", "opponent"]


def test_an_abandonment_is_told_with_who_and_why() -> None:
    view = LocalGame(3).view
    left = Ending(kind=EndKind.ABANDON, by=1, named=1, culprit=1, reason="the player quit")
    line = event_line(Ended(ending=left), view)
    assert line is not None and line.parts == ("Bob abandoned the match: the player quit.",)
    line = event_line(Ended(ending=Ending(kind=EndKind.ABANDON, by=0, named=0, culprit=0)),
                      view)
    assert line is not None and line.parts == ("You abandoned the match.",)


def test_a_resumed_match_says_so_in_the_log() -> None:
    line = event_line(MatchResumed(hand_no=3, entries=118), LocalGame(3).view)
    assert line is not None and line.parts == (
        "Resumed from the game file at hand 3 (118 entries checked again).",)


def test_a_hint_in_plain_mode_names_the_command_and_typing_it_plays_it() -> None:
    game = LocalGame(3)
    plain = PlainConsole(game)
    plain.intro()
    for _ in range(3):  # the upcard decision, then a draw, then a discard
        (line,) = [x for x in plain.feed("hint") if x.startswith("Hint: ")]
        typed = re.fullmatch(r"Hint: .* \(type ([a-z0-9 ]+)\)", line)
        assert typed, line  # a command to type, never a key like (d) or (Enter)
        before = len(game.sent)
        plain.feed(typed.group(1))
        assert len(game.sent) == before + 1, (line, plain.feed("status"))


def test_plain_mode_advice_names_commands_never_keys() -> None:
    from p2pgin.ui.model import MatchEnd, Reveal, Table
    from p2pgin.ui.panels.status import status_text
    from p2pgin.ui.screen import UiState

    ui = UiState(typed=True)
    base = {"me": 0, "names": ("Alice", "Bob"), "opp_fingerprint": "f"}
    closed = Table(**base, stage="closed")
    over = Table(**base, stage="match_over",
                 match_end=MatchEnd(winners=(0,), totals=(125, 0), lines=()))
    reveal = Reveal(hand_no=1, kind="knock", winner=0)
    between = Table(**base, stage="hand_over", reveal=reveal, actions=frozenset({"next"}))
    said = [status_text(t, ui, typed=True) for t in (closed, over, between)]
    assert said == ["The game is closed. Type quit.",
                    "Match over: You won. Type rematch for another match, or quit.",
                    "Hand over. Type next for the next hand."]
    assert not any(re.search(r"\b[a-z]: ", line) for line in said)  # no "q: quit" keys


def test_typed_commands_play_and_each_event_is_one_line() -> None:
    game = LocalGame(3)
    plain = PlainConsole(game)
    plain.intro()
    lines = plain.feed("pass")
    assert "You pass the upcard" in lines and "Bob passes the upcard" in lines
    assert lines[-1] == "Your turn: type s to draw from the stock"
    lines = plain.feed("s")
    drawn = game.state.known(game.state.last_drawn)
    assert f"You draw from the stock: {drawn.unicode}" in lines
    card = next(c for c in plain.console.table.hand if c != drawn)
    lines = plain.feed(f"d {card}")
    assert f"You discard: {card.unicode}" in lines
    assert game.sent[-1].kind == "discard"


def test_errors_and_read_outs() -> None:
    plain = PlainConsole(LocalGame(3))
    plain.intro()
    assert plain.feed("frobnicate") == ["unknown command 'frobnicate' (type help for the list)"]
    assert "draw a card first" in plain.feed("d 6c")[0] or plain.feed("d 6c")
    assert plain.feed("score") == ["Alice 0 points, 0 boxes; Bob 0 points, 0 boxes; target 100"]
    assert plain.feed("status") == ["Your turn: type take for the upcard 6♣, or pass"]
    assert any("stock" in line for line in plain.feed("help"))


def test_ascii_plain_mode_prints_only_ascii_and_confirms_a_knock() -> None:
    deck = deck_for("4H 5H 6H 7C 7D 7S 8C 8D 8S AC", "2S 3S 9H TH JH QC KD 5C 9C 2H",
                    "KS", "2C")
    game = LocalGame(deck=deck, autoplay=False, rules=Rules.preset("standard", target=1))
    plain = PlainConsole(game, ascii=True)
    out = plain.intro()
    out += plain.feed("p")
    game.opponent_move(PassUpcard())
    out += plain.feed("s")
    reply = plain.feed("knock")
    assert any(line.startswith("Knock: discard") for line in reply), reply
    assert reply[-1].startswith("Type y to declare it, n to cancel, move CARD")
    assert "meld 1: 7C 7D 7S" in reply and "deadwood: AC = 1" in reply
    out += reply
    out += plain.feed("y")
    game.opponent_move(legal_moves(game.full)[0])
    out += plain.updates()
    text = "\n".join(out)
    assert text.isascii()
    assert "Hand 1 over: knock." in text
    assert "Alice: melds 7C 7D 7S; 8C 8D 8S; 4H 5H 6H; deadwood AC." in text
    assert "Total:" in text and "Type rematch" in text


def test_run_plain_reads_commands_from_the_terminal(capsys) -> None:  # type: ignore[no-untyped-def]
    import asyncio
    import io

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    from p2pgin.ui.app import run_console

    game = LocalGame(3)
    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=24, columns=80), term="xterm")

    async def main() -> str:
        with create_pipe_input() as inp, create_app_session(input=inp, output=output):
            task = asyncio.ensure_future(run_console(game, plain=True, ascii=True))
            await asyncio.sleep(0.05)
            inp.send_text("pass\r")
            await asyncio.sleep(0.05)
            inp.send_text("quit\r")
            await asyncio.sleep(0.05)
            inp.send_text("y\r")
            return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) == "quit"
    out = capsys.readouterr().out + screen.getvalue()  # before / under patch_stdout
    assert "p2pgin: Alice against Bob" in out
    assert "You pass the upcard" in out and "Bob passes the upcard" in out
    assert game.sent[0].kind == "pass_upcard"


def test_plain_joiner_reads_the_rules_and_accepts_by_typing() -> None:
    from ui_sessions import JOIN, SessionGame

    game = SessionGame(5, me=JOIN, accept_rules=None)
    plain = PlainConsole(game)
    lines = plain.intro()
    assert lines[-1].startswith("The host proposes these rules: knock limit 10;")
    assert lines[-1].endswith("Type accept or decline.")
    plain.feed("accept")
    assert type(game.sent[0]).__name__ == "AcceptRules"
    assert game.view.stage == "play"


def test_the_quit_question_is_a_sentence() -> None:
    plain = PlainConsole(LocalGame(3))
    plain.intro()
    assert plain.feed("quit") == ["Quit the game? The match will be abandoned. Type y or n."]


def test_a_move_arriving_while_the_quit_question_waits_does_not_ask_it_again() -> None:
    game = LocalGame(3, dealer=0, autoplay=False)  # NB: Bob, not the dealer, moves first
    plain = PlainConsole(game)
    plain.intro()
    assert plain.feed("quit") == ["Quit the game? The match will be abandoned. Type y or n."]
    (pass_upcard,) = (m for m in legal_moves(game.full) if isinstance(m, PassUpcard))
    game.opponent_move(pass_upcard)
    lines = plain.updates()
    assert "Bob passes the upcard" in lines
    assert not any("abandoned" in line for line in lines), lines  # NB: was '... (y/n)'


def test_status_while_drawing_names_both_commands_in_full() -> None:
    plain = PlainConsole(LocalGame(3))  # the opponent passes, draws and discards by itself
    plain.intro()
    plain.feed("pass")
    assert plain.feed("status") == ["Your turn: type s to draw from the stock"]
    plain.feed("s")
    card = plain.console.table.hand[0]
    plain.feed(f"d {str(card).lower()}")
    top = plain.console.card_text(plain.console.table.pile[-1])
    assert plain.feed("status") == [
        f"Your turn: type s to draw from the stock, or take to take {top} from the "
        "discard pile"]


def test_plain_mode_arranges_a_declaration_by_typing() -> None:
    deck = deck_for("7C 7D 7H 7S 4H 5H 6H 8H AC 2C", "2S 3S 9H TH JH QC KD 5C 9C 2H",
                    "KS", "KC")
    game = LocalGame(deck=deck, autoplay=False)
    plain = PlainConsole(game, ascii=True)
    plain.intro()
    plain.feed("p")
    game.opponent_move(PassUpcard())
    plain.feed("s")
    plain.feed("knock kc")
    def to_deadwood() -> list[str]:
        for _ in range(4):  # each move: the next place (a meld, a new one, the deadwood)
            reply = plain.feed("move 4h")
            if reply[0] == "4H: deadwood":
                return reply
        raise AssertionError(reply)

    assert "deadwood: AC 2C 4H = 7" in to_deadwood()
    assert plain.feed("best")[0] == "the best arrangement again"
    to_deadwood()
    plain.feed("y")
    knock = game.sent[-1]
    assert knock.kind == "knock"
    assert sorted(len(m) for m in knock.melds) == [3, 4]
