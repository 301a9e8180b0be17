"""Discovery on loopback: beacons are found, deduplicated, expired; loopback stays loopback.

The across-hosts broadcast tests run inside the virtual LAN: tests/lan/test_discovery_lan.py.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.log.canonical import canonical_dumps
from p2pgin.net.discovery import (
    LOOPBACK_BROADCAST,
    Announcer,
    Beacon,
    BeaconError,
    DiscoveryListener,
    Interface,
    broadcast_targets,
    local_interfaces,
    parse_ip_addr_json,
)
from p2pgin.net.joincode import decode_join_code

IP_JSON = json.dumps(
    [
        {"ifname": "lo", "flags": ["LOOPBACK", "UP", "LOWER_UP"],
         "addr_info": [{"family": "inet", "local": "127.0.0.1", "prefixlen": 8}]},
        {"ifname": "eth0", "flags": ["BROADCAST", "UP", "LOWER_UP"],
         "addr_info": [
             {"family": "inet", "local": "192.168.1.20", "prefixlen": 24,
              "broadcast": "192.168.1.255"},
             {"family": "inet6", "local": "fe80::1", "prefixlen": 64},
         ]},
        {"ifname": "wg0", "flags": ["UP"],
         "addr_info": [{"family": "inet", "local": "10.9.0.2", "prefixlen": 32}]},
        {"ifname": "eth1", "flags": ["BROADCAST"],
         "addr_info": [{"family": "inet", "local": "10.1.0.5", "prefixlen": 16}]},
    ]
)


def test_parse_ip_addr_json_computes_missing_broadcasts() -> None:
    ifaces = {i.name: i for i in parse_ip_addr_json(IP_JSON)}
    assert ifaces["lo"].broadcast == "127.255.255.255" and ifaces["lo"].loopback
    assert ifaces["eth0"].broadcast == "192.168.1.255"
    assert ifaces["wg0"].broadcast is None
    assert ifaces["eth1"].broadcast == "10.1.255.255" and not ifaces["eth1"].up


def test_targets_follow_the_listen_address() -> None:
    ifaces = parse_ip_addr_json(IP_JSON)
    assert broadcast_targets("0.0.0.0", ifaces) == [
        ("127.0.0.1", "127.255.255.255"),
        ("192.168.1.20", "192.168.1.255"),
    ]
    assert broadcast_targets("192.168.1.20", ifaces) == [("192.168.1.20", "192.168.1.255")]
    assert broadcast_targets("127.0.0.1", ifaces) == [("127.0.0.1", LOOPBACK_BROADCAST)]
    assert broadcast_targets("localhost", ifaces) == [("127.0.0.1", LOOPBACK_BROADCAST)]
    assert broadcast_targets("10.9.0.2", ifaces) == []  # no broadcast on a /32
    assert broadcast_targets("10.1.0.5", ifaces) == []  # interface down
    assert broadcast_targets("8.8.8.8", ifaces) == []  # not ours
    assert broadcast_targets("::1", ifaces) == []


HERE = local_interfaces()


@given(st.integers(0x7F000000, 0x7FFFFFFF))
def test_any_loopback_listen_announces_on_loopback_only(n: int) -> None:
    listen = str(ipaddress.IPv4Address(n))
    for source, target in broadcast_targets(listen, HERE):
        assert ipaddress.IPv4Address(source).is_loopback
        assert ipaddress.IPv4Address(target).is_loopback


def test_beacon_round_trip_and_rejections() -> None:
    beacon = Beacon(name="ann", fingerprint="abcd-efgh", port=47473, code="x", version=1)
    assert Beacon.from_bytes(beacon.to_bytes()) == beacon
    good = {"app": "p2pgin", "code": "", "fingerprint": "f", "name": "n", "port": 1,
            "version": 1}
    bad = [
        b"not json", b"{}", b'{"app": "p2pgin"}', bytes(2000),
        canonical_dumps({**good, "app": "other"}),
        canonical_dumps({**good, "port": 0}),
        canonical_dumps({**good, "port": "1"}),
        canonical_dumps({**good, "name": ""}),
        canonical_dumps({**good, "extra": 1}),
    ]
    for data in bad:
        with pytest.raises(BeaconError):
            Beacon.from_bytes(data)


@given(st.binary(max_size=300))
def test_random_datagrams_raise_only_beacon_error(data: bytes) -> None:
    try:
        beacon = Beacon.from_bytes(data)
    except BeaconError:
        return
    assert beacon.to_bytes() == data


async def test_loopback_beacon_is_discovered_with_source_address_and_code() -> None:
    listener = await DiscoveryListener.start(port=0)
    try:
        async with Announcer(name="ann", fingerprint="fp-ann", port=40001, listen="127.0.0.1",
                             discovery_port=listener.port, interval=0.05) as announcer:
            assert announcer.targets == [("127.0.0.1", LOOPBACK_BROADCAST)]
            games = await listener.wait_for(timeout=5)
        (game,) = games
        assert (game.name, game.fingerprint, game.port) == ("ann", "fp-ann", 40001)
        assert game.address == "127.0.0.1"
        assert decode_join_code(game.beacon.code) == ("127.0.0.1", 40001)
    finally:
        listener.close()


async def test_beacons_are_deduplicated_by_fingerprint_and_expire() -> None:
    listener = await DiscoveryListener.start(port=0, expiry=0.3)
    try:
        async with (
            Announcer(name="ann", fingerprint="fp-1", port=40001, listen="127.0.0.1",
                      discovery_port=listener.port, interval=0.02),
            Announcer(name="bob", fingerprint="fp-2", port=40002, listen="127.0.0.1",
                      discovery_port=listener.port, interval=0.02),
        ):
            await listener.wait_for(lambda g: len(g) == 2 and listener.received >= 10)
            # NB: the newest first: bob started announcing after ann
            assert [g.name for g in listener.games()] == ["bob", "ann"]
    finally:
        listener.close()


async def test_expired_games_disappear_from_the_list() -> None:
    listener = await DiscoveryListener.start(port=0, expiry=0.2)
    try:
        async with Announcer(name="ann", fingerprint="fp-1", port=40001, listen="127.0.0.1",
                             discovery_port=listener.port, interval=0.05):
            await listener.wait_for(timeout=5)
        await asyncio.sleep(0.35)
        assert listener.games() == []
    finally:
        listener.close()


async def test_no_announce_sends_nothing() -> None:
    listener = await DiscoveryListener.start(port=0)
    try:
        async with (
            Announcer(name="quiet", fingerprint="fp-quiet", port=40003, listen="127.0.0.1",
                      discovery_port=listener.port, interval=0.02, announce=False) as quiet,
            Announcer(name="loud", fingerprint="fp-loud", port=40004, listen="127.0.0.1",
                      discovery_port=listener.port, interval=0.02),
        ):
            await listener.wait_for(lambda g: listener.received >= 5)
            assert [g.name for g in listener.games()] == ["loud"]
            assert quiet.sent == 0 and quiet.targets == []
    finally:
        listener.close()


async def test_loopback_announcer_sockets_cannot_reach_other_networks() -> None:
    async with Announcer(name="ann", fingerprint="fp", port=40001, listen="127.0.0.1",
                         discovery_port=9, interval=60) as announcer:
        for transport, _, _ in announcer._transports:
            sock = transport.get_extra_info("socket")
            assert ipaddress.IPv4Address(sock.getsockname()[0]).is_loopback


async def test_invalid_datagrams_are_counted_and_ignored() -> None:
    listener = await DiscoveryListener.start(port=0)
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.sendto(b"junk", ("127.0.0.1", listener.port))
            sock.sendto(Beacon(name="x", fingerprint="y", port=5).to_bytes(),
                        ("127.0.0.1", listener.port))
        games = await listener.wait_for(timeout=5)
        assert [g.name for g in games] == ["x"] and listener.rejected == 1
    finally:
        listener.close()


def test_interface_dataclass_loopback_flag() -> None:
    assert Interface(name="lo", address="127.0.0.2", prefixlen=8, broadcast=None).loopback


def test_ioctl_fallback_sees_the_same_addresses_as_ip() -> None:
    from p2pgin.net.discovery import _ioctl_interfaces

    by_ioctl = {i.address: i for i in _ioctl_interfaces()}
    by_ip = {i.address: i for i in HERE}
    assert "127.0.0.1" in by_ioctl and by_ioctl["127.0.0.1"].broadcast == LOOPBACK_BROADCAST
    assert set(by_ioctl) <= set(by_ip)  # ioctl sees one (the primary) address per interface
    for address, iface in by_ioctl.items():
        if not iface.loopback:
            assert iface.broadcast == by_ip[address].broadcast
            assert iface.prefixlen == by_ip[address].prefixlen
