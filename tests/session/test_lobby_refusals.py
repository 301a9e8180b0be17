"""The lobby's refusals are typed (LobbyRefused with a LobbyReason) and carry the very line
the session drops the link with."""

from __future__ import annotations

import random

import pytest

from p2pgin.engine.rules import Rules
from p2pgin.log.entry import sign_hello
from p2pgin.session import LobbyReason, LobbyRefused, Session
from p2pgin.session.control import LobbyOffer
from p2pgin.session.events import LinkRefused
from p2pgin.session.lobby import Lobby, check_joiner_hello, check_table, read_host_hello
from tests.session.table_harness import key


def _host_lobby() -> Lobby:
    host = Session.host(key(0), seats=2, game="gin", rules=Rules().to_dict(), name="host",
                        rng=random.Random(1))
    assert host.lobby is not None and host.lobby.host_hello is not None
    return host.lobby


def test_each_refusal_names_its_reason_and_its_line() -> None:
    lobby = _host_lobby()
    hello = lobby.host_hello
    assert hello is not None
    own = bytes(key(0).verify_key)
    with pytest.raises(LobbyRefused) as caught:
        check_joiner_hello(lobby, hello, None, own)
    assert (caught.value.reason, caught.value.detail) == (
        LobbyReason.NO_SEAT_OFFERED, "a hello without a seat offered")
    with pytest.raises(LobbyRefused) as caught:
        read_host_hello(LobbyOffer(hello=hello, seat=1), bytes(key(5).verify_key))
    assert (caught.value.reason, caught.value.detail) == (
        LobbyReason.WRONG_KEY, "lobby: the host's hello is not signed by this connection's key")
    assert read_host_hello(LobbyOffer(hello=hello, seat=1), own) == hello
    joiner = sign_hello(key(0), sender=0, body={**hello.body, "seat": 1})
    with pytest.raises(LobbyRefused) as caught:
        read_host_hello(LobbyOffer(hello=joiner, seat=1), own)
    assert caught.value.reason is LobbyReason.NOT_HOST_HELLO
    with pytest.raises(LobbyRefused) as caught:
        read_host_hello(LobbyOffer(hello=None, seat=1, hello_error="no"), own)
    assert (caught.value.reason, caught.value.detail) == (
        LobbyReason.BAD_HELLO, "lobby: the host's hello: no")
    with pytest.raises(LobbyRefused) as caught:
        check_table((hello,), lobby, None)
    assert (caught.value.reason, caught.value.detail) == (
        LobbyReason.OTHER_TABLE, "table: it is not the table I took a seat at")


def test_the_joiner_drops_a_host_hello_of_another_key_with_that_line() -> None:
    hello = _host_lobby().host_hello
    assert hello is not None
    joiner = Session.join(key(1), name="bob", rng=random.Random(2))
    joiner.link_up("h", bytes(key(5).verify_key))
    out = joiner.receive("h", LobbyOffer(hello=hello, seat=1).to_bytes())
    assert [e.detail for e in out.events if isinstance(e, LinkRefused)] == [
        "lobby: the host's hello is not signed by this connection's key"]
