"""What a table announces (beacon format 2, and the same facts as DNS-SD TXT), and what a
lying or flooding announcer can do to the listener's list: no more than show a wrong
line, never an unbounded list, never a table moved to another address while its host
still announces it. All on loopback (multicast DNS itself: tests/lan/test_lobby_lan.py).
"""

from __future__ import annotations

import asyncio
import os
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nacl.signing import SigningKey

from p2pgin.log.canonical import canonical_dumps
from p2pgin.log.identity import fingerprint
from p2pgin.net.discovery import (
    BY_BEACON,
    BY_DNS_SD,
    MAX_GAMES,
    MAX_PER_ADDRESS,
    Announcer,
    Beacon,
    BeaconError,
    DiscoveryListener,
    TableFacts,
)
from p2pgin.net.dnssd import beacon_from_txt, beacon_to_txt, instance_label

KEY = bytes(SigningKey(bytes(32)).verify_key)
FACTS = TableFacts(game="gin", rules="oklahoma, to 150", seats=2, taken=1, watch=True)


def offer(key: bytes = KEY, name: str = "ann", port: int = 7531,
          facts: TableFacts = FACTS) -> Beacon:
    return Beacon.offer(name=name, key=key, port=port, table=facts, code="ad00-0htt-rjw")


def random_key() -> bytes:
    return bytes(SigningKey(os.urandom(32)).verify_key)


def test_a_format_2_beacon_round_trips_and_carries_the_table() -> None:
    beacon = offer()
    assert Beacon.from_bytes(beacon.to_bytes()) == beacon
    assert beacon.fingerprint == fingerprint(KEY) and beacon.table is not None
    assert beacon.table.free == 1
    # a format-1 beacon (an older host) is still read, without key or table
    old = Beacon.from_bytes(canonical_dumps({"app": "p2pgin", "code": "", "fingerprint": "f",
                                             "name": "n", "port": 1, "version": 1}))
    assert old.key is None and old.table is None


def _fields(**changes: object) -> bytes:
    obj = {"app": "p2pgin", **offer().fields()}
    obj.update(changes)
    return canonical_dumps({k: v for k, v in obj.items() if v is not None})


@pytest.mark.parametrize("data", [
    _fields(fingerprint="aaaa-bbbb-cccc-dddd"),  # a fingerprint that is not the key's
    _fields(key=KEY.hex().upper()),
    _fields(key=KEY.hex()[:-2]),
    _fields(taken=3),  # more seats taken than there are
    _fields(seats=0),
    _fields(watch=1),
    _fields(seats=True),
    _fields(game="Gin Rummy!"),
    _fields(rules="r" * 81),
    _fields(name="n" * 33),
    _fields(version=3),  # a format this p2pgin does not read
    _fields(extra=1),
    _fields(watch=None),  # a field missing
    canonical_dumps({"app": "p2pgin", "code": "", "fingerprint": "f", "name": "n",
                     "port": 1, "version": 1, "key": KEY.hex()}),  # format 1 with a key
])
def test_a_beacon_that_lies_about_its_key_or_table_is_refused(data: bytes) -> None:
    with pytest.raises(BeaconError):
        Beacon.from_bytes(data)


def test_txt_records_carry_the_same_facts_as_the_beacon() -> None:
    beacon = offer()
    txt = beacon_to_txt(beacon)
    assert txt["game"] == "gin" and txt["rules"] == "oklahoma, to 150"
    assert (txt["seats"], txt["taken"], txt["watch"]) == ("2", "1", "yes")
    assert txt["fingerprint"] == beacon.fingerprint and txt["key"] == KEY.hex()
    assert all(len(f"{k}={v}".encode()) <= 255 for k, v in txt.items())
    raw = {k.encode(): v.encode() for k, v in txt.items()}
    assert beacon_from_txt(raw, 7531) == Beacon.from_fields({**beacon.fields(), "code": ""})
    # unknown properties are someone else's (a later format): ignored
    assert beacon_from_txt({**raw, b"colour": b"blue"}, 7531).table == FACTS


@pytest.mark.parametrize(("key", "value"), [
    (b"fingerprint", b"aaaa-bbbb-cccc-dddd"), (b"seats", b"+2"), (b"seats", b"\xd9\xa2"),
    (b"taken", b"99999999"), (b"watch", b"true"), (b"version", b"1"), (b"name", b"\xff"),
    (b"key", None),
])
def test_a_txt_record_that_lies_is_refused(key: bytes, value: bytes | None) -> None:
    raw: dict[bytes, bytes | None] = {k.encode(): v.encode()
                                      for k, v in beacon_to_txt(offer()).items()}
    raw[key] = value
    with pytest.raises(BeaconError):
        beacon_from_txt(raw, 7531)


@given(st.dictionaries(st.sampled_from(["version", "name", "fingerprint", "key", "game",
                                        "rules", "seats", "taken", "watch", "x"]),
                       st.binary(max_size=80)))
def test_random_txt_records_raise_only_beacon_error(raw: dict[str, bytes]) -> None:
    try:
        beacon = beacon_from_txt(raw, 7531)
    except BeaconError:
        return
    # what was read is what the record said
    assert {k: v.encode() for k, v in beacon_to_txt(beacon).items()} == {
        k: v for k, v in raw.items() if k != "x"}


@given(st.text(min_size=1, max_size=32).filter(lambda n: n.strip() != ""))
def test_the_service_label_fits_dns_and_keeps_the_fingerprint(name: str) -> None:
    label = instance_label(offer(name=name))
    assert len(label.encode()) <= 63 and label.endswith(" " + fingerprint(KEY))


async def _send(port: int, *payloads: bytes, source: str = "127.0.0.1") -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((source, 0))
        for n, payload in enumerate(payloads):
            sock.sendto(payload, ("127.0.0.1", port))
            if n % 20 == 19:
                await asyncio.sleep(0.001)  # NB: the listener reads as the flood goes on
    await asyncio.sleep(0.05)


async def test_a_flood_of_beacons_is_bounded_per_address_and_in_all() -> None:
    listener = await DiscoveryListener.start(port=0)
    try:
        # one address announcing 2,000 tables keeps its share only
        flood = [offer(key=random_key()).to_bytes() for _ in range(2000)]
        await _send(listener.port, *flood)
        assert len(listener.games()) == MAX_PER_ADDRESS
        assert listener.received > 1000  # NB: the kernel may drop some of a flood
        assert listener.overflow == listener.received - MAX_PER_ADDRESS
        # forty addresses (any 127/8 address is this machine's) fill the list, no more
        for n in range(2, 42):
            await _send(listener.port, *(offer(key=random_key()).to_bytes() for _ in range(4)),
                        source=f"127.0.0.{n}")
        assert len(listener.games()) == MAX_GAMES
        assert len(listener._heard) == MAX_GAMES
    finally:
        listener.close()


async def test_a_lying_beacon_cannot_move_a_table_its_host_still_announces() -> None:
    listener = await DiscoveryListener.start(port=0, expiry=0.4)
    try:
        await _send(listener.port, offer().to_bytes())
        # another machine claims the same key (say, to lure joiners to its address)
        await _send(listener.port, offer(port=9999).to_bytes(), source="127.0.0.2")
        (game,) = listener.games()
        assert (game.address, game.port, listener.conflicts) == ("127.0.0.1", 7531, 1)
        # once the host has been silent for the expiry time, the table is gone, and a
        # new beacon of that key may be listed where it comes from (the link must then
        # still prove the key)
        await asyncio.sleep(0.5)
        assert listener.games() == []
        await _send(listener.port, offer(port=9999).to_bytes(), source="127.0.0.2")
        assert [(g.address, g.port) for g in listener.games()] == [("127.0.0.2", 9999)]
    finally:
        listener.close()


async def test_beacons_and_dns_sd_merge_by_host_key() -> None:
    listener = await DiscoveryListener.start(port=0, expiry=0.3)
    try:
        full = TableFacts(game="gin", rules="oklahoma, to 150", seats=2, taken=2, watch=True)
        assert listener.heard(offer(facts=full), "10.77.0.1", BY_DNS_SD)
        await _send(listener.port, offer().to_bytes())
        (game,) = listener.games()
        # one line; the beacon's source address; the facts of the latest announcement
        assert game.via == (BY_BEACON, BY_DNS_SD) and game.address == "127.0.0.1"
        assert game.table == FACTS
        listener.forget(game.ident, BY_DNS_SD)
        assert listener.games()[0].via == (BY_BEACON,)
        # heard by DNS-SD alone, it stays until DNS-SD says goodbye
        listener.heard(offer(key=random_key(), name="bob"), "10.77.0.2", BY_DNS_SD)
        await asyncio.sleep(0.4)
        assert [g.name for g in listener.games()] == ["bob"]
    finally:
        listener.close()


async def test_the_announcer_says_the_seats_taken_as_they_fill() -> None:
    listener = await DiscoveryListener.start(port=0)
    facts = [TableFacts(game="gin3", rules="standard, to 100", seats=3, taken=1, watch=False)]
    try:
        async with Announcer(name="ann", key=KEY, table=lambda: facts[0], port=40001,
                             listen="127.0.0.1", discovery_port=listener.port, interval=0.05):
            (game,) = await listener.wait_for(timeout=5)
            assert game.table == facts[0] and game.key == KEY
            facts[0] = TableFacts(game="gin3", rules="standard, to 100", seats=3, taken=2,
                                  watch=False)
            (game,) = await listener.wait_for(
                lambda g: bool(g) and g[0].table is not None and g[0].table.taken == 2)
            assert game.table is not None and game.table.free == 1
    finally:
        listener.close()
