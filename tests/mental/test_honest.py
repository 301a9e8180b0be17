"""Honest two-player hands: correct, distinct cards that only their owner can read."""

from __future__ import annotations

import json

import pytest
from deck_harness import new_hand
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.mental import DeckPeer, ProtocolMisuse, initial_deal, verify_hand


@pytest.mark.parametrize("dealer", [0, 1])
def test_honest_hand_deals_21_distinct_cards_that_match_the_audit(dealer: int) -> None:
    hand = new_hand(dealer=dealer, label=f"honest{dealer}")
    hand.shuffle()
    assert all(p.ready for p in hand.peers)
    seen = hand.initial_deal()
    assert len(set(seen.values())) == 21
    deck0, deck1 = hand.audit()
    assert deck0 == deck1
    assert sorted(deck0) == list(range(52))
    assert all(deck0[pos] == card for pos, card in seen.items())
    non_dealer = 1 - dealer
    # each player knows exactly its own ten cards plus the upcard
    assert set(hand.peers[non_dealer].known) == set(range(0, 20, 2)) | {20}
    assert set(hand.peers[dealer].known) == set(range(1, 20, 2)) | {20}


def test_honest_log_is_json_and_replays_for_a_third_party() -> None:
    hand = new_hand(label="replay")
    hand.shuffle()
    hand.initial_deal()
    hand.audit()
    log = json.loads(json.dumps(hand.log))
    v = verify_hand(session_id=hand.session_id, hand_no=0, seed=hand.seed, dealer=hand.dealer,
                    entries=[(s, p) for s, p in log])
    assert v.deck == hand.peers[0].verify_audit(hand.peers[1].audit_payload())
    assert set(v.public) == {20}
    assert v.dealt == {pos: to for pos, to in initial_deal(hand.dealer) if to is not None}


def test_private_card_is_unreadable_without_the_owner_key() -> None:
    """Before the audit the log alone never determines a privately dealt card."""
    hand = new_hand(label="private")
    hand.shuffle()
    hand.initial_deal()
    v = verify_hand(session_id=hand.session_id, hand_no=0, seed=hand.seed, dealer=hand.dealer,
                    entries=hand.log)
    assert set(v.public) == {20}  # only the upcard is readable from the public log
    assert v.deck is None


def test_dealing_a_position_private_to_us_is_refused() -> None:
    hand = new_hand(label="refuse")
    hand.shuffle()
    hand.deal(0, to=1 - hand.dealer)  # position 0 is now private to the non-dealer
    owner = hand.peers[1 - hand.dealer]
    with pytest.raises(ProtocolMisuse, match="both shares"):
        owner.disclose(0, to=hand.dealer)
    with pytest.raises(ProtocolMisuse, match="already disclosed"):
        hand.peers[hand.dealer].disclose(0, to=1 - hand.dealer)


def test_shuffle_out_of_turn_is_a_local_misuse() -> None:
    hand = new_hand(label="turn")
    b = hand.peers[1 - hand.dealer]
    with pytest.raises(ProtocolMisuse):
        b.shuffle_step(None)
    with pytest.raises(ProtocolMisuse):
        b.disclose(0, to=hand.dealer)


def test_constructor_rejects_bad_players() -> None:
    with pytest.raises(ProtocolMisuse):
        DeckPeer(player=2, dealer=0, session_id=b"s", hand_no=0, seed=b"x")


def test_a_refused_payload_leaves_the_peer_unchanged() -> None:
    """After any CheatDetected the honest peer can still take the correct payload."""
    import copy

    from p2pgin.mental import CheatDetected

    hand = new_hand(dealer=0, label="atomic")
    a, b = hand.peers
    mask = a.shuffle_step(None)
    bad = copy.deepcopy(mask)
    bad["deck"][51] = "00" * 32
    with pytest.raises(CheatDetected):
        b.shuffle_step(bad)
    lock = a.shuffle_step(b.shuffle_step(mask))
    bad_lock = copy.deepcopy(lock)
    bad_lock["deck"][51] = bad_lock["deck"][0]
    with pytest.raises(CheatDetected):
        b.shuffle_step(bad_lock)
    assert b.shuffle_step(lock) is None and b.ready
    share = a.disclose(0, to=1)
    for field, value in (("key", "11" * 32), ("position", 2)):
        with pytest.raises(CheatDetected):
            b.receive_share(0, {**share, field: value})
    before = b.known
    assert b.receive_share(0, share) is not None
    assert len(b.known) == len(before) + 1


@settings(max_examples=8, deadline=None)
@given(dealer=st.integers(0, 1), hand_no=st.integers(0, 2**32), label=st.text(max_size=8))
def test_any_honest_hand_is_a_permutation_matching_every_card_seen(
    dealer: int, hand_no: int, label: str
) -> None:
    hand = new_hand(dealer=dealer, hand_no=hand_no, label=f"prop/{label}")
    hand.shuffle()
    seen = hand.initial_deal()
    deck0, deck1 = hand.audit()
    assert deck0 == deck1 and sorted(deck0) == list(range(52))
    assert all(deck0[pos] == card for pos, card in seen.items())
    v = verify_hand(session_id=hand.session_id, hand_no=hand_no, seed=hand.seed, dealer=dealer,
                    entries=hand.log)
    assert v.deck == deck0


def test_checked_shares_are_recorded_only_when_committed() -> None:
    hand = new_hand(dealer=1, label="two-step")
    hand.shuffle()
    a, b = hand.peers
    deal = hand.send(1, b.disclose(4, to=0))
    opens = [(pos, hand.send(1, b.open_public(pos))) for pos in (20, 21)]
    received = a.check_received("deck.deal", [(4, deal)])
    shown = a.check_received("deck.open", opens)
    assert a.known == {} and a.card(4) is None
    received.commit()
    shown.commit()
    assert a.known == {4: received.cards[4], **shown.cards}
    assert len(set(a.known.values())) == 3
    # the same shares again are harmless re-sends: same cards, nothing new to record
    assert a.check_received("deck.open", opens).cards == shown.cards
