"""Signed entries, hellos and the hash chain refuse every kind of tampering."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.chain import TABLE_DOMAIN, Chain, table_session_id
from p2pgin.log.entry import (
    ENTRY_DOMAIN,
    GENESIS_PREV,
    PRE_SESSION,
    Entry,
    sign_entry,
    sign_hello,
    verify_hello,
    verify_signature,
)
from p2pgin.log.errors import (
    BadSequence,
    BrokenChain,
    ForgedSignature,
    LogError,
    MalformedEntry,
    ReplayedEntry,
    WrongSession,
)

KEY0 = SigningKey(bytes(range(32)))
KEY1 = SigningKey(bytes(range(32, 64)))
MALLORY = SigningKey(bytes(range(64, 96)))


def make_chain(n: int = 0) -> Chain:
    host = sign_hello(KEY0, sender=0, body={"name": "ann", "nonce": "00" * 16})
    joiner = sign_hello(KEY1, sender=1, body={"name": "bob", "nonce": "11" * 16})
    chain = Chain([host, joiner])
    for i in range(n):
        sender = i % 2
        chain.append(
            chain.sign_next((KEY0, KEY1)[sender], sender=sender, type="move", body={"i": i})
        )
    return chain


def snapshot(chain: Chain) -> tuple[object, ...]:
    return (chain.entries, chain.head, chain.next_seq, chain.session)


def test_entry_bytes_are_canonical_and_hash_is_sha256_of_them() -> None:
    chain = make_chain(1)
    entry = chain.entries[0]
    data = entry.to_bytes()
    assert canonical_dumps(canonical_loads(data)) == data
    assert entry.hash() == hashlib.sha256(data).hexdigest()
    assert entry.prev == GENESIS_PREV
    assert set(canonical_loads(data)) == {
        "body", "prev", "sender", "seq", "session", "sig", "type"
    }


def test_signature_covers_domain_and_unsigned_fields() -> None:
    entry = make_chain(1).entries[0]
    unsigned = canonical_loads(entry.to_bytes())
    del unsigned["sig"]
    message = ENTRY_DOMAIN + canonical_dumps(unsigned)
    assert entry.signed_message() == message
    KEY0.verify_key.verify(message, bytes.fromhex(entry.sig))


def test_from_bytes_round_trips() -> None:
    for entry in make_chain(4).entries:
        assert Entry.from_bytes(entry.to_bytes()) == entry
        assert Entry.from_bytes(entry.to_bytes()).to_bytes() == entry.to_bytes()


def test_session_id_is_hash_of_every_hello_in_seat_order() -> None:
    chain = make_chain()
    host, joiner = chain.hellos
    expected = hashlib.sha256(
        TABLE_DOMAIN + bytes.fromhex(host.hash()) + bytes.fromhex(joiner.hash())
    ).hexdigest()
    assert chain.session == table_session_id((host, joiner)) == expected
    with pytest.raises(BadSequence):  # a hello must sit at its own seat
        Chain([joiner, host])


def test_hello_is_self_signed_and_checked() -> None:
    hello = sign_hello(KEY1, sender=1, body={"name": "bob"})
    assert hello.session == PRE_SESSION and hello.seq == 0 and hello.is_hello
    assert bytes(verify_hello(hello, sender=1)) == bytes(KEY1.verify_key)
    with pytest.raises(BadSequence):
        verify_hello(hello, sender=0)
    # a hello whose body names another key than the signer's is forged
    forged = sign_entry(
        MALLORY, session=PRE_SESSION, seq=0, prev=GENESIS_PREV, sender=1, type="hello",
        body={"key": bytes(KEY1.verify_key).hex()},
    )
    with pytest.raises(ForgedSignature):
        verify_hello(forged)
    with pytest.raises(WrongSession):
        verify_hello(make_chain(1).entries[0])
    with pytest.raises(MalformedEntry):
        verify_hello(sign_entry(KEY0, session=PRE_SESSION, seq=0, prev=GENESIS_PREV,
                                sender=0, type="hello", body={"key": "xyz"}))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_one_byte_flip_of_a_signed_entry_is_rejected(data: st.DataObject) -> None:
    chain = make_chain(3)
    raw = chain.sign_next(KEY1, sender=1, type="discard", body={"position": 21}).to_bytes()
    index = data.draw(st.integers(0, len(raw) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != raw[index]))
    tampered = raw[:index] + bytes([new]) + raw[index + 1 :]
    before = snapshot(chain)
    with pytest.raises(LogError):
        chain.append(Entry.from_bytes(tampered))
    assert snapshot(chain) == before
    chain.append(Entry.from_bytes(raw))  # the honest entry is still accepted afterwards
    assert chain.next_seq == 4


def test_every_one_byte_flip_of_a_signed_entry_is_rejected_exhaustively() -> None:
    chain = make_chain(1)
    raw = chain.sign_next(KEY1, sender=1, type="draw", body={}).to_bytes()
    for index in range(len(raw)):
        tampered = bytearray(raw)
        tampered[index] ^= 0x01
        with pytest.raises(LogError):
            chain.append(Entry.from_bytes(bytes(tampered)))
    assert chain.next_seq == 1


def test_forged_signature_is_rejected_and_chain_unchanged() -> None:
    chain = make_chain(2)
    forged = sign_entry(MALLORY, session=chain.session, seq=2, prev=chain.head, sender=0,
                        type="move", body={})
    before = snapshot(chain)
    with pytest.raises(ForgedSignature) as info:
        chain.append(forged)
    assert info.value.rule == "signature" and info.value.evidence == forged.to_bytes()
    assert snapshot(chain) == before


def test_entry_signed_by_the_other_player_is_forged() -> None:
    chain = make_chain(2)
    wrong = sign_entry(KEY1, session=chain.session, seq=2, prev=chain.head, sender=0,
                       type="move", body={})
    with pytest.raises(ForgedSignature):
        chain.append(wrong)
    with pytest.raises(ForgedSignature):
        chain.sign_next(KEY1, sender=0, type="move", body={})


def test_broken_chain_bad_sequence_replay_and_wrong_session() -> None:
    chain = make_chain(3)
    other = Chain([
        sign_hello(KEY0, sender=0, body={"nonce": "aa"}),
        sign_hello(KEY1, sender=1, body={"nonce": "bb"}),
    ])
    before = snapshot(chain)
    cases: list[tuple[type[LogError], Entry]] = [
        (BrokenChain, sign_entry(KEY1, session=chain.session, seq=3, prev=GENESIS_PREV,
                                 sender=1, type="move", body={})),
        (BadSequence, sign_entry(KEY1, session=chain.session, seq=4, prev=chain.head,
                                 sender=1, type="move", body={})),
        (BadSequence, sign_entry(KEY1, session=chain.session, seq=1, prev=chain.head,
                                 sender=1, type="move", body={})),
        (ReplayedEntry, chain.entries[1]),
        (WrongSession, other.sign_next(KEY1, sender=1, type="move", body={})),
        (WrongSession, chain.hellos[0]),
    ]
    rules = set()
    for error, entry in cases:
        with pytest.raises(error) as info:
            chain.append(entry)
        rules.add(info.value.rule)
        assert snapshot(chain) == before
    assert rules == {"chain", "sequence", "replay", "session"}


def test_replay_rebuilds_and_detects_reordering() -> None:
    chain = make_chain(5)
    everything = [*chain.hellos, *chain.entries]
    again = Chain.replay(everything[:2], everything[2:])
    assert again.head == chain.head and again.session == chain.session
    assert list(again) == list(chain.entries) and again[4] == chain.entries[4]
    swapped = [*everything[:3], everything[4], everything[3], *everything[5:]]
    with pytest.raises(BadSequence):
        Chain.replay(swapped[:2], swapped[2:])
    with pytest.raises(MalformedEntry):
        Chain.replay(everything[:1], ())


@pytest.mark.parametrize(
    "change",
    [
        {"seq": -1}, {"seq": True}, {"seq": 2**31}, {"sender": 6}, {"sender": False},
        {"type": "Move"}, {"type": ""}, {"type": "a" * 33}, {"body": []},
        {"body": {"f": 1.5}}, {"prev": "00"}, {"session": "GG" * 32}, {"sig": "00" * 63},
    ],
)
def test_invalid_fields_are_malformed(change: dict[str, object]) -> None:
    entry = make_chain(1).entries[0]
    fields = canonical_loads(entry.to_bytes())
    fields.update(change)
    with pytest.raises(MalformedEntry):
        Entry(**fields)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: {**d, "extra": 1},
        lambda d: {k: v for k, v in d.items() if k != "body"},
        lambda d: [d],
    ],
)
def test_from_bytes_requires_exactly_the_fields(mutate) -> None:  # type: ignore[no-untyped-def]
    entry = make_chain(1).entries[0]
    with pytest.raises(MalformedEntry) as info:
        Entry.from_bytes(canonical_dumps(mutate(canonical_loads(entry.to_bytes()))))
    assert info.value.evidence is not None


def test_from_bytes_rejects_non_canonical_spelling_with_evidence() -> None:
    raw = make_chain(1).entries[0].to_bytes()
    spaced = raw.replace(b'":', b'": ', 1)
    with pytest.raises(MalformedEntry) as info:
        Entry.from_bytes(spaced)
    assert info.value.evidence == spaced


def test_sign_entry_copies_the_body() -> None:
    body = {"cards": (1, 2)}
    chain = make_chain()
    entry = chain.sign_next(KEY0, sender=0, type="move", body=body)
    body["cards"] = (3,)
    assert entry.body == {"cards": [1, 2]}
    verify_signature(entry, KEY0.verify_key)
    verify_signature(entry, bytes(KEY0.verify_key))


bodies = st.dictionaries(
    st.text(max_size=8),
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=10),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                    max_size=4),
        max_leaves=12,
    ),
    max_size=5,
)


@settings(max_examples=60, deadline=None)
@given(bodies, st.integers(0, 2**31 - 1), st.integers(0, 1),
       st.from_regex(r"[a-z][a-z0-9_]{0,31}", fullmatch=True), st.binary(min_size=32, max_size=32))
def test_entry_bytes_equal_canonical_dumps_of_the_fields(
    body: dict[str, object], seq: int, sender: int, kind: str, prev: bytes
) -> None:
    entry = sign_entry(KEY0, session="ab" * 32, seq=seq, prev=prev.hex(), sender=sender,
                       type=kind, body=body)
    fields = {"session": "ab" * 32, "seq": seq, "prev": prev.hex(), "sender": sender,
              "type": kind, "body": body}
    assert entry.signed_message() == ENTRY_DOMAIN + canonical_dumps(fields)
    assert entry.to_bytes() == canonical_dumps({**fields, "sig": entry.sig})
    again = Entry(**{**fields, "sig": entry.sig})
    assert again == entry and again.to_bytes() == entry.to_bytes()
    assert Entry.from_bytes(entry.to_bytes()) == entry


def test_body_nesting_limit_matches_what_decoding_accepts() -> None:
    deep: dict[str, object] = {}
    node = deep
    for _ in range(62):  # the entry object plus body plus 62 levels = 64
        node["x"] = {}
        node = node["x"]  # type: ignore[assignment]
    entry = sign_entry(KEY0, session="ab" * 32, seq=0, prev=GENESIS_PREV, sender=0,
                       type="deep", body=deep)
    assert Entry.from_bytes(entry.to_bytes()) == entry
    node["x"] = {}
    with pytest.raises(MalformedEntry):
        sign_entry(KEY0, session="ab" * 32, seq=0, prev=GENESIS_PREV, sender=0, type="deep",
                   body=deep)


def _respell(raw: bytes) -> list[bytes]:
    """Other spellings of the same entry, each decoding to the same fields."""
    fields = canonical_loads(raw)
    backwards = json.dumps(dict(sorted(fields.items(), reverse=True)), separators=(",", ":"),
                           ensure_ascii=False).encode()
    return [
        raw.replace(b'":', b'": ', 1),  # whitespace
        raw + b"\n",
        b" " + raw,
        backwards,  # key order
        raw.replace("é".encode(), b"\\u00e9"),  # an escape where UTF-8 is due
        raw.replace(b'"seq":', b'"seq":7,"seq":', 1),  # duplicate key
        raw.replace(b'"sender":1', b'"sender":1.0'),  # a float spelling of the int
        raw.replace(b'"sender":1', b'"sender":01'),
        raw.replace(b'"body":{', b'"body":{"big":9007199254740992,', 1),
    ]


def test_every_other_spelling_of_a_signed_entry_is_refused_with_evidence() -> None:
    chain = make_chain(1)
    entry = chain.sign_next(KEY1, sender=1, type="move", body={"text": "é", "n": [1, 2]})
    raw = entry.to_bytes()
    for spelled in _respell(raw):
        assert spelled != raw
        with pytest.raises(MalformedEntry) as info:
            Entry.from_bytes(spelled)
        assert info.value.evidence == spelled
        with pytest.raises(LogError):
            chain.append(Entry.from_bytes(spelled))
    assert chain.next_seq == 1
    assert chain.append(Entry.from_bytes(raw)) == entry


@settings(max_examples=60, deadline=None)
@given(bodies, st.integers(0, 2**31 - 1), st.integers(0, 1))
def test_a_decoded_entry_keeps_the_received_bytes_and_verifies(
    body: dict[str, object], seq: int, sender: int
) -> None:
    key = (KEY0, KEY1)[sender]
    sent = sign_entry(key, session="cd" * 32, seq=seq, prev="ef" * 32, sender=sender,
                      type="move", body=body)
    raw = bytes(sent.to_bytes())
    got = Entry.from_bytes(bytearray(raw))
    assert got.to_bytes() == raw and got == sent and got.hash() == sent.hash()
    assert got.signed_message() == sent.signed_message()
    verify_signature(got, key.verify_key)
    # the signature is plain Ed25519 over the signed message (PyNaCl's own API agrees)
    key.verify_key.verify(got.signed_message(), bytes.fromhex(got.sig))
    assert key.sign(got.signed_message()).signature.hex() == got.sig
    with pytest.raises(ForgedSignature):
        verify_signature(got, (KEY1, KEY0)[sender].verify_key)


def test_signing_does_not_share_the_callers_objects() -> None:
    inner = {"cards": [1, 2]}
    entry = make_chain().sign_next(KEY0, sender=0, type="move", body={"hand": inner})
    inner["cards"].append(3)
    assert entry.body == {"hand": {"cards": [1, 2]}}
    assert Entry.from_bytes(entry.to_bytes()) == entry


def test_sign_entry_refuses_a_body_that_is_not_an_object() -> None:
    with pytest.raises(MalformedEntry):
        sign_entry(KEY0, session="ab" * 32, seq=0, prev=GENESIS_PREV, sender=0,
                   type="move", body=[("a", 1)])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "change",
    [
        {"sig": None}, {"sig": 5}, {"sig": "AB" * 64}, {"sig": "0g" * 64}, {"session": None},
        {"session": "ab" * 31 + "AB"}, {"prev": ["00" * 32]}, {"seq": None}, {"seq": "1"},
        {"sender": None}, {"sender": True}, {"type": None}, {"type": "move\n"},
        {"body": None}, {"body": "x"},
    ],
)
def test_a_canonical_frame_with_a_bad_field_is_malformed_both_ways(
    change: dict[str, object]
) -> None:
    fields = canonical_loads(make_chain(1).entries[0].to_bytes())
    fields.update(change)
    with pytest.raises(MalformedEntry):
        Entry(**fields)
    data = canonical_dumps(fields)
    with pytest.raises(MalformedEntry) as info:
        Entry.from_bytes(data)
    assert info.value.evidence == data
