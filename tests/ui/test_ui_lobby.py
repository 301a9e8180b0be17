"""The host's waiting screen, run headless with piped keys (the picker of tables found
on the LAN: test_ui_picker.py)."""

from __future__ import annotations

import asyncio

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from ui_screens import SizedOutput, console_session, screen_text

from p2pgin.ui.frags import plain_text
from p2pgin.ui.lobby import WaitingScreen, run_waiting_screen


def run_with_keys(coro_fn, keys: str, delay: float = 0.05,  # type: ignore[no-untyped-def]
                  ready=lambda: True):
    """Run ``coro_fn()`` in a pipe-fed app session; type ``keys`` once ``ready()`` holds
    and ``delay`` seconds more have passed (as a person reacts to what is on screen)."""
    async def main():  # type: ignore[no-untyped-def]
        with create_pipe_input() as inp, create_app_session(input=inp, output=SizedOutput()):
            task = asyncio.ensure_future(coro_fn())
            while not ready():
                await asyncio.sleep(0.01)
            await asyncio.sleep(delay)
            inp.send_text(keys)
            return await asyncio.wait_for(task, 5)

    return asyncio.run(main())


def test_waiting_screen_shows_lines_and_ends_when_a_player_joins() -> None:
    lines = ["address 10.77.0.1 port 7777", "join code K7QX-2M"]
    text = plain_text(WaitingScreen(lines).render())
    assert "Waiting for a player to join" in text and "join code K7QX-2M" in text

    async def joined_soon() -> bool:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.1, fut.set_result, None)
        return await run_waiting_screen(lines, fut, ascii=True)

    assert run_with_keys(joined_soon, "", delay=0.01) is True


def test_waiting_screen_promises_discovery_only_when_the_game_is_announced() -> None:
    lines = ["listening on 0.0.0.0 port 7777", "not announced on the LAN (--no-announce)"]
    quiet = plain_text(WaitingScreen(lines, announced=False).render())
    assert "Tell the other player the address and port." in quiet  # no join code shown
    assert "finds this game" not in quiet
    loud = plain_text(WaitingScreen(lines, announced=True).render())
    assert "`p2pgin join` finds this game by itself" in loud


def test_waiting_screen_q_stops_waiting() -> None:
    async def never() -> bool:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        return await run_waiting_screen(["port 7777"], fut, ascii=True)

    assert run_with_keys(never, "q") is False


def test_console_lobby_lines_show_before_the_deal() -> None:
    from ui_sessions import JOIN, SessionGame

    game = SessionGame(5, me=JOIN, accept_rules=None)
    with console_session(game, lobby=["join code K7QX-2M"]) as (built, _inp, _out):
        screen = "\n".join(screen_text(built))
    assert "join code K7QX-2M" in screen
