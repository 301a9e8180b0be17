"""Identities persist privately, fingerprints are stable, changed keys are loud."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest
from nacl.signing import SigningKey

from p2pgin.log.identity import (
    IdentityError,
    KnownPeers,
    PeerStatus,
    data_dir,
    fingerprint,
    load_or_create_identity,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_data_dir_prefers_p2pgin_home_then_xdg_then_local_share(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert data_dir() == home and home.is_dir()
    monkeypatch.delenv("P2PGIN_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "p2pgin"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert data_dir(create=False) == tmp_path / "user" / ".local" / "share" / "p2pgin"


def test_a_data_directory_that_is_a_file_is_named_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_a_dir = tmp_path / "notes.txt"
    not_a_dir.write_text("mine")
    monkeypatch.setenv("P2PGIN_HOME", str(not_a_dir))
    with pytest.raises(NotADirectoryError) as caught:
        data_dir()
    assert "not a directory" in str(caught.value) and caught.value.filename == str(not_a_dir)
    assert not_a_dir.read_text() == "mine"


def test_identity_is_created_once_with_mode_0600(home: Path) -> None:
    first = load_or_create_identity("ann")
    path = home / "identity.json"
    assert mode(path) == 0o600
    again = load_or_create_identity()
    assert bytes(again.signing_key) == bytes(first.signing_key)
    assert again.name == "ann"
    assert again.fingerprint == first.fingerprint


def test_given_name_becomes_the_new_default(home: Path) -> None:
    load_or_create_identity("ann")
    assert load_or_create_identity("annie").name == "annie"
    assert load_or_create_identity().name == "annie"


def test_loose_permissions_are_tightened(home: Path) -> None:
    load_or_create_identity("ann")
    path = home / "identity.json"
    os.chmod(path, 0o644)
    load_or_create_identity()
    assert mode(path) == 0o600


def test_corrupt_identity_file_is_a_typed_error(home: Path) -> None:
    load_or_create_identity("ann")
    (home / "identity.json").write_text('{"name": "x"}')
    with pytest.raises(IdentityError):
        load_or_create_identity()


def test_names_are_cleaned() -> None:
    assert load_or_create_identity("  bob\x1b[31m\n ").name == "bob[31m"
    assert load_or_create_identity("x" * 100).name == "x" * 32


def test_fingerprint_is_truncated_sha256_in_base32_groups() -> None:
    key = SigningKey(bytes(32)).verify_key
    fp = fingerprint(key)
    assert len(fp) == 19 and fp.count("-") == 3
    import base64

    expected = base64.b32encode(hashlib.sha256(bytes(key)).digest()[:10]).decode().lower()
    assert fp.replace("-", "") == expected
    assert fingerprint(SigningKey(bytes([1] * 32)).verify_key) != fp


def test_known_peers_new_known_changed(home: Path) -> None:
    bob = SigningKey(bytes([2] * 32)).verify_key
    mallory = SigningKey(bytes([3] * 32)).verify_key
    peers = KnownPeers()
    assert peers.check("bob", bob).status is PeerStatus.NEW
    peers.remember("bob", bob)
    assert mode(home / "known_peers.json") == 0o600
    reopened = KnownPeers()
    assert reopened.names() == ["bob"]
    assert reopened.check("bob", bob).status is PeerStatus.KNOWN
    changed = reopened.check("bob", mallory)
    assert changed.status is PeerStatus.CHANGED
    assert changed.previous_fingerprint == fingerprint(bob)
    assert changed.fingerprint == fingerprint(mallory)
    assert "WARNING" in changed.message and fingerprint(bob) in changed.message
    assert fingerprint(mallory) in changed.message
    # the user accepts the new key: it is known from then on
    reopened.remember("bob", mallory)
    assert KnownPeers().check("bob", mallory).status is PeerStatus.KNOWN


def test_same_key_under_a_new_name_is_new_but_says_so() -> None:
    bob = SigningKey(bytes([2] * 32)).verify_key
    peers = KnownPeers()
    peers.remember("bob", bob)
    check = peers.check("robert", bob)
    assert check.status is PeerStatus.NEW and check.known_as == ("bob",)
    assert "bob" in check.message


def test_corrupt_known_peers_file_is_a_typed_error(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    for text in ["[1]", '{"peers":{},"version":2}', '{"peers":{"a":{"key":"zz"}},"version":1}']:
        (home / "known_peers.json").write_text(text)
        with pytest.raises(IdentityError):
            KnownPeers()


def test_concurrent_first_runs_agree_on_one_identity(home: Path) -> None:
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(4) as pool:
        keys = list(pool.map(_fresh_identity_key, [str(home)] * 8))
    assert len(set(keys)) == 1
    assert keys[0] == bytes(load_or_create_identity().verify_key).hex()


def _fresh_identity_key(home: str) -> str:
    os.environ["P2PGIN_HOME"] = home
    return bytes(load_or_create_identity("racer").verify_key).hex()
