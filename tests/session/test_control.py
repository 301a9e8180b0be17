"""Control frames are values parsed in one place (session/control.py): every kind parsed
and written again is the very same bytes, every malformed frame is refused with the one
line the link is dropped with, and what a kind is to a peer (taken, ignored, refused)
depends on its role and on whether its table formed, as PROTOCOL.md says."""

from __future__ import annotations

import random
from typing import Any

import pytest

from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_dumps
from p2pgin.session import Role, Session
from p2pgin.session.control import (
    CONTROL_KINDS,
    BadControl,
    Decline,
    Head,
    LobbyOffer,
    Need,
    Ping,
    Pong,
    TableFrame,
    Watch,
    parse_control,
    read_control,
)
from p2pgin.session.events import LinkRefused
from p2pgin.session.messages import CONTROL
from tests.session.table_harness import gin_table, key

RULES = Rules().to_dict()


def _host(seats: int = 2) -> Session:
    return Session.host(key(0), seats=seats, game="gin", rules=RULES, name="host",
                        rng=random.Random(1))


def _hello() -> dict[str, Any]:
    lobby = _host().lobby
    assert lobby is not None and lobby.host_hello is not None
    return lobby.host_hello.to_dict()


def _frames() -> dict[str, dict[str, Any]]:
    hello = _hello()
    return {
        "ping": {"ctl": "ping", "n": 7},
        "pong": {"ctl": "pong", "n": 7},
        "lobby offering a seat": {"ctl": "lobby", "hello": hello, "seat": 1,
                                  "seated": ["host", ""]},
        "lobby news": {"ctl": "lobby", "hello": None, "seat": 2, "seated": ["a", "b", ""]},
        "lobby, the table is full": {"ctl": "lobby", "hello": hello, "seat": None,
                                     "seated": ["host", "bob"]},
        "decline": {"ctl": "decline", "reason": "declined the host's rules", "name": "bob"},
        "table": {"ctl": "table", "hellos": [hello, hello],
                  "addresses": ["", "10.0.0.2:4000"]},
        "watch": {"ctl": "watch", "from": 0},
        "head": {"ctl": "head", "session": "ab" * 32, "next": 3, "hash": "cd" * 32},
        "need": {"ctl": "need", "from": 4},
    }


@pytest.mark.parametrize("name", sorted(_frames()))
def test_every_kind_parsed_and_written_again_is_the_same_bytes(name: str) -> None:
    wire = canonical_dumps(_frames()[name])
    frame = read_control(wire)
    assert _frames()[name]["ctl"] == type(frame).KIND
    assert frame.to_bytes() == wire


def test_every_documented_kind_has_a_value_with_its_documented_fields() -> None:
    assert set(CONTROL_KINDS) == set(CONTROL)
    for name, obj in _frames().items():
        kind = obj["ctl"]
        assert set(obj) - {"ctl"} == set(CONTROL[kind]), name


def test_the_values_the_session_sends_are_the_frames_it_always_sent() -> None:
    assert Ping(n=1).to_bytes() == b'{"ctl":"ping","n":1}'
    assert Pong(n=1).to_bytes() == b'{"ctl":"pong","n":1}'
    assert Watch().to_bytes() == b'{"ctl":"watch","from":0}'
    assert Need(start=5).to_bytes() == b'{"ctl":"need","from":5}'
    assert Head(session="ab", next=0, hash="00").to_bytes() == (
        b'{"ctl":"head","hash":"00","next":0,"session":"ab"}')
    assert Decline(reason="r", name="").to_bytes() == b'{"ctl":"decline","name":"","reason":"r"}'
    assert LobbyOffer(hello=None, seat=None, seated=("a", "")).to_bytes() == (
        b'{"ctl":"lobby","hello":null,"seat":null,"seated":["a",""]}')
    assert TableFrame(hellos=(), addresses=()).to_bytes() == (
        b'{"addresses":[],"ctl":"table","hellos":[]}')


#: A malformed frame -> the detail its link is dropped with (today's words).
MALFORMED: dict[str, tuple[dict[str, Any], str]] = {
    "an unknown kind": ({"ctl": "nope"}, "unknown or malformed control frame 'nope'"),
    "v1's challenge": ({"ctl": "challenge", "nonce": "00"},
                       "unknown or malformed control frame 'challenge'"),
    "a ping without an int": ({"ctl": "ping", "n": "7"},
                              "unknown or malformed control frame 'ping'"),
    "a ping with a bool": ({"ctl": "ping", "n": True},
                           "unknown or malformed control frame 'ping'"),
    "a ping with an extra field": ({"ctl": "ping", "n": 1, "x": 2},
                                   "unknown or malformed control frame 'ping'"),
    "a pong with an extra field": ({"ctl": "pong", "n": 1, "x": 2},
                                   "unknown or malformed control frame 'pong'"),
    "a bare pong": ({"ctl": "pong"}, "unknown or malformed control frame 'pong'"),
    "a need from -1": ({"ctl": "need", "from": -1}, "need: from is a non-negative int"),
    "a need from a string": ({"ctl": "need", "from": "1"}, "need: from is a non-negative int"),
    "a need without from": ({"ctl": "need"}, "need: from is a non-negative int"),
    "a head without session": ({"ctl": "head", "next": 1, "hash": "00"},
                               "head: not this table's, or malformed"),
    "a head with a negative next": ({"ctl": "head", "session": "ab", "next": -1, "hash": "0"},
                                    "head: not this table's, or malformed"),
    "a head with a bool next": ({"ctl": "head", "session": "ab", "next": True, "hash": "0"},
                                "head: not this table's, or malformed"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_frame_is_refused_with_today_s_detail(name: str) -> None:
    obj, detail = MALFORMED[name]
    with pytest.raises(BadControl) as caught:
        parse_control(obj)
    assert caught.value.detail == detail


def test_not_json_and_not_a_control_object_are_refused_with_their_detail() -> None:
    for data, detail in ((b"[1,2]", "a frame is a signed entry or a control frame"),
                         (b'{"ctl":1}', "a frame is a signed entry or a control frame")):
        with pytest.raises(BadControl) as caught:
            read_control(data)
        assert caught.value.detail == detail
    with pytest.raises(BadControl) as caught:
        read_control(b"\xff{")
    assert caught.value.detail.startswith("frame is not canonical JSON: ")


def test_the_lenient_fields_are_read_as_they_always_were() -> None:
    long = {"ctl": "decline", "reason": "r" * 100, "name": "n" * 50}
    frame = parse_control(long)
    assert frame == Decline(reason="r" * 80, name="n" * 40)
    assert parse_control({"ctl": "decline"}) == Decline(reason="", name="")
    lobby = parse_control({"ctl": "lobby", "seat": "1"})
    assert isinstance(lobby, LobbyOffer)
    assert (lobby.seat, lobby.seat_given, lobby.hello, lobby.hello_error) == (None, True, None,
                                                                              None)
    bare = parse_control({"ctl": "lobby"})
    assert isinstance(bare, LobbyOffer) and not bare.seat_given
    assert parse_control({"ctl": "lobby", "seat": True}) == LobbyOffer(hello=None, seat=None)
    bad = parse_control({"ctl": "lobby", "hello": 5, "seat": 1})
    assert isinstance(bad, LobbyOffer) and bad.hello is None and bad.hello_error
    table = parse_control({"ctl": "table", "hellos": [{"x": 1}], "addresses": [1, "a:1"]})
    assert isinstance(table, TableFrame)
    assert table.hellos == () and table.hellos_error and table.addresses == ("", "a:1")
    assert parse_control({"ctl": "watch", "from": "x"}) == Watch(start=0)
    head = parse_control({"ctl": "head", "session": "ab", "next": 0, "hash": 5})
    assert head == Head(session="ab", next=0, hash=None)
    assert parse_control({"ctl": "pong", "n": "x"}) == Pong(n=None)


def _refused(session: Session, frame: dict[str, Any], seat: int = 7) -> str | None:
    """The detail ``session`` drops a fresh link (of ``seat``'s key) with when it gets
    ``frame``, or None."""
    out = session.link_up("x", bytes(key(seat).verify_key))
    assert not [e for e in out.events if isinstance(e, LinkRefused)]
    out = session.receive("x", canonical_dumps(frame))
    refused = [e.detail for e in out.events if isinstance(e, LinkRefused)]
    return refused[0] if refused else None


def test_what_a_kind_is_depends_on_the_role_and_on_the_table_having_formed() -> None:
    unknown = "unknown or malformed control frame {!r}".format
    lobby = {"ctl": "lobby", "hello": None, "seat": 1, "seated": []}
    decline = {"ctl": "decline", "reason": "no", "name": "x"}
    need = {"ctl": "need", "from": -1}
    head = {"ctl": "head", "session": 5}
    table = {"ctl": "table", "hellos": 3}
    host = _host
    spectator = lambda: Session.watch(key(8))  # noqa: E731
    assert _refused(host(), lobby) == unknown("lobby")
    assert _refused(spectator(), lobby) is None
    assert _refused(host(), decline) == "declined: no"
    assert _refused(spectator(), decline) == unknown("decline")
    assert _refused(host(), table) is None           # the host forms its own table
    refused = _refused(spectator(), table)
    assert refused is not None and refused.startswith("table: ")
    assert _refused(host(), need) is None            # no log to speak of yet
    assert _refused(host(), head) is None
    formed = gin_table(seed=1, settle=False).seats["ann"].session  # bob is seat 1
    assert formed.machine is not None and formed.role is Role.HOST
    assert _refused(formed, need, 1) == "need: from is a non-negative int"
    assert _refused(formed, head, 1) == "head: not this table's, or malformed"
    assert _refused(formed, lobby, 1) == unknown("lobby")
    assert _refused(formed, decline, 1) == unknown("decline")
    assert _refused(formed, table, 1) == "table: other hellos than this table's"
