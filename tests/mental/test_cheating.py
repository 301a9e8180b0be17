"""Every way to cheat at the deck is caught at the stated moment, naming the right player.

The cheater is played by tampering with its messages (and, where the cheat needs it, its
own secrets); the honest side is the real DeckPeer. Where the honest peer raises, the
third-party verifier replaying the signed log (plus the evidence the honest peer offers)
must name the same player.
"""

from __future__ import annotations

from typing import Any

import pytest
from deck_harness import Hand, coin_toss, new_hand

from p2pgin.mental import Cheat, CheatDetected, CoinToss, MalformedValue, verify_hand
from p2pgin.mental.group import encode, hash_to_point, mult, random_scalar

SMALL_ORDER = "0000000000000000000000000000000000000000000000000000000000000000"  # order 4
IDENTITY = "0100000000000000000000000000000000000000000000000000000000000000"


def verifier_blames(hand: Hand, extra: list[tuple[int, Any]] | None = None) -> CheatDetected:
    with pytest.raises(CheatDetected) as info:
        verify_hand(session_id=hand.session_id, hand_no=hand.hand_no, seed=hand.seed,
                    dealer=hand.dealer, entries=hand.log + (extra or []))
    return info.value


def tamper_when(kind: str, sender: int, edit: Any, position: int | None = None) -> Any:
    def hook(s: int, payload: dict[str, Any]) -> dict[str, Any]:
        if s == sender and payload["type"] == kind and position in (None, payload.get("position")):
            edit(payload)
        return payload
    return hook


def other_key(payload: dict[str, Any]) -> None:
    payload["key"] = encode(random_scalar())


# -- bad shares: caught on arrival ---------------------------------------------------------

@pytest.mark.parametrize("cheater_is_dealer", [True, False])
def test_bad_share_is_caught_on_arrival_and_names_the_sender(cheater_is_dealer: bool) -> None:
    dealer = 0
    cheater = dealer if cheater_is_dealer else 1 - dealer
    hand = new_hand(dealer=dealer, label="badshare",
                    tamper=tamper_when("deck.deal", cheater, other_key, position=4 + cheater))
    hand.shuffle()
    for pos in range(4):
        hand.deal(pos, to=1 - dealer if pos % 2 == 0 else dealer)  # fine so far
    with pytest.raises(CheatDetected) as info:
        bad = 4 + cheater  # dealer deals even positions (to the non-dealer) and vice versa
        hand.deal(bad, to=1 - cheater)
    assert (info.value.peer, info.value.reason) == (cheater, Cheat.BAD_SHARE)
    assert info.value.evidence["position"] == bad
    assert verifier_blames(hand).peer == cheater


def test_non_dealer_source_pointing_elsewhere_is_a_bad_share() -> None:
    def edit(p: dict[str, Any]) -> None:
        p["source"] = (p["source"] + 1) % 52
    hand = new_hand(dealer=0, label="src", tamper=tamper_when("deck.deal", 1, edit))
    hand.shuffle()
    with pytest.raises(CheatDetected) as info:
        hand.deal(1, to=0)
    assert (info.value.peer, info.value.reason) == (1, Cheat.BAD_SHARE)


# -- substituted, duplicated and non-card points ----------------------------------------

def substitute_in_mask(hand: Hand, target_position: int, how: str) -> None:
    """The dealer replaces the D1 entry that will land at ``target_position``."""
    a = hand.peers[hand.dealer]
    b = hand.peers[1 - hand.dealer]
    i = b._perm[target_position]  # the test peeks at B's secret to aim the cheat
    if how == "foreign point":
        point = mult(a._mask, hash_to_point(bytes(range(32))))
    else:  # "other mask": the same card under a second mask (lets A trace one card)
        point = mult(random_scalar(), a._pub.points[a._perm[i]])

    def edit(p: dict[str, Any]) -> None:
        p["deck"][i] = encode(point)
    hand.tamper = tamper_when("deck.mask", hand.dealer, edit)


@pytest.mark.parametrize("how", ["foreign point", "other mask"])
def test_dealer_substitution_is_caught_when_the_other_player_receives_it(how: str) -> None:
    hand = new_hand(dealer=1, label="subst")
    substitute_in_mask(hand, 6, how)
    hand.shuffle()  # the remask cannot see it: D1 points are valid and distinct
    hand.tamper = None
    for pos in range(6):
        hand.deal(pos, to=0 if pos % 2 == 0 else 1)
    with pytest.raises(CheatDetected) as info:
        hand.deal(6, to=0)
    err = info.value
    assert (err.peer, err.reason) == (1, Cheat.NOT_A_CARD)
    # the receiver's own share of position 6 is the proof a third party needs
    blame = verifier_blames(hand, [(0, err.evidence["proof"])])
    assert (blame.peer, blame.reason) == (1, Cheat.NOT_A_CARD)


def test_dealer_substitution_in_its_own_hand_is_caught_at_the_audit() -> None:
    hand = new_hand(dealer=1, label="subst-own")
    substitute_in_mask(hand, 5, "foreign point")  # position 5 goes to the dealer itself
    hand.shuffle()
    hand.tamper = None
    hand.initial_deal()  # nothing visible during play
    a_audit = hand.peers[1].audit_payload()
    hand.log.append((0, hand.peers[0].audit_payload()))
    hand.log.append((1, a_audit))
    with pytest.raises(CheatDetected) as info:
        hand.peers[0].verify_audit(a_audit)
    assert (info.value.peer, info.value.reason) == (1, Cheat.BAD_STEP)
    assert info.value.evidence["step"] == "mask"
    assert verifier_blames(hand).peer == 1


def test_dealer_bad_strip_is_caught_on_arrival() -> None:
    def edit(p: dict[str, Any]) -> None:
        # Z[2] rescaled: a valid, fresh point (a copy of Z[3] would be a duplicate at once)
        p["deck"][2] = encode(mult(random_scalar(), bytes.fromhex(p["deck"][2])))
    hand = new_hand(dealer=0, label="strip", tamper=tamper_when("deck.lock", 0, edit))
    hand.shuffle()
    hand.tamper = None
    hand.deal(0, to=1)
    with pytest.raises(CheatDetected) as info:
        hand.deal(2, to=1)
    assert (info.value.peer, info.value.reason) == (0, Cheat.NOT_A_CARD)


def test_dealer_bad_lock_is_a_bad_share_on_arrival() -> None:
    def edit(p: dict[str, Any]) -> None:
        p["locked"][2], p["locked"][4] = p["locked"][4], p["locked"][2]
    hand = new_hand(dealer=0, label="lock", tamper=tamper_when("deck.lock", 0, edit))
    hand.shuffle()
    hand.tamper = None
    with pytest.raises(CheatDetected) as info:
        hand.deal(2, to=1)
    assert (info.value.peer, info.value.reason) == (0, Cheat.BAD_SHARE)


def test_non_dealer_duplicate_card_is_caught_when_both_copies_reach_the_dealer() -> None:
    hand = new_hand(dealer=0, label="dup")
    b = hand.peers[1]
    b._perm[3] = b._perm[1]  # non-permutation remask: D1 entry used twice
    hand.shuffle()  # D2 points still distinct (different keys)
    assert hand.deal(1, to=0) is not None
    with pytest.raises(CheatDetected) as info:
        hand.deal(3, to=0)
    assert (info.value.peer, info.value.reason) == (1, Cheat.DUPLICATE_CARD)
    assert verifier_blames(hand).peer == 1


def test_non_dealer_copying_a_card_into_its_own_hand_is_caught_at_its_first_open() -> None:
    """B remasks D1[k] with key 1 into its own position 0: it reads A's card at position 1."""
    one = (1).to_bytes(32, "little")
    hand = new_hand(dealer=0, label="copy")
    b = hand.peers[1]
    b._perm[0], b._keys[0] = b._perm[1], one
    hand.shuffle()
    own = hand.deal(0, to=1)
    theirs = hand.deal(1, to=0)
    assert own == theirs  # the cheat "worked" in private ...
    with pytest.raises(CheatDetected) as info:
        hand.open(0, by=(1,))  # ... until B shows position 0 (discard, knock, end of hand)
    assert (info.value.peer, info.value.reason) == (1, Cheat.DUPLICATE_CARD)


def test_non_dealer_copy_kept_hidden_is_caught_at_the_audit() -> None:
    one = (1).to_bytes(32, "little")
    hand = new_hand(dealer=0, label="copy-audit")
    b = hand.peers[1]
    b._perm[0], b._keys[0] = b._perm[1], one
    hand.shuffle()
    hand.initial_deal()
    # B "fixes" its revealed permutation to look like one; the remask step then fails
    audit = b.audit_payload()
    missing = (set(range(52)) - set(audit["perm"])).pop()
    audit["perm"][0] = missing
    with pytest.raises(CheatDetected) as info:
        hand.peers[0].verify_audit(audit)
    assert (info.value.peer, info.value.reason) == (1, Cheat.BAD_STEP)
    assert info.value.evidence["step"] == "remask"
    # revealing the true, non-permutation secret is malformed and also names B
    with pytest.raises(MalformedValue) as info2:
        hand.peers[0].verify_audit(b.audit_payload())
    assert info2.value.peer == 1


@pytest.mark.parametrize("cheater_is_dealer", [True, False])
def test_duplicate_point_in_a_deck_is_caught_at_once(cheater_is_dealer: bool) -> None:
    dealer = 0
    cheater = dealer if cheater_is_dealer else 1 - dealer
    kind = "deck.mask" if cheater_is_dealer else "deck.remask"

    def edit(p: dict[str, Any]) -> None:
        p["deck"][9] = p["deck"][8]
    hand = new_hand(dealer=dealer, label="duppt", tamper=tamper_when(kind, cheater, edit))
    with pytest.raises(CheatDetected) as info:
        hand.shuffle()
    assert (info.value.peer, info.value.reason) == (cheater, Cheat.DUPLICATE_POINT)
    assert verifier_blames(hand).peer == cheater


def test_dealer_non_permutation_mask_is_a_duplicate_point() -> None:
    hand = new_hand(dealer=1, label="nonperm")
    hand.peers[1]._perm[7] = hand.peers[1]._perm[2]
    with pytest.raises(CheatDetected) as info:
        hand.shuffle()
    assert (info.value.peer, info.value.reason) == (1, Cheat.DUPLICATE_POINT)


# -- invalid points ------------------------------------------------------------------------

@pytest.mark.parametrize(("kind", "field", "cheater"),
                         [("deck.mask", "deck", 0), ("deck.remask", "deck", 1)])
@pytest.mark.parametrize("bad", [SMALL_ORDER, IDENTITY, "ff" * 32, "zz" * 32])
def test_invalid_point_in_shuffle_is_named_at_once(kind: str, field: str, cheater: int,
                                                    bad: str) -> None:
    def edit(p: dict[str, Any]) -> None:
        p[field][11] = bad
    hand = new_hand(dealer=0, label="inv", tamper=tamper_when(kind, cheater, edit))
    with pytest.raises(MalformedValue) as info:
        hand.shuffle()
    assert info.value.peer == cheater
    assert verifier_blames(hand).peer == cheater


def test_invalid_point_in_final_deck_is_named_when_used_and_by_the_verifier() -> None:
    def edit(p: dict[str, Any]) -> None:
        p["deck"][0] = SMALL_ORDER
    hand = new_hand(dealer=0, label="invz", tamper=tamper_when("deck.lock", 0, edit))
    hand.shuffle()
    hand.tamper = None
    with pytest.raises(MalformedValue) as info:
        hand.deal(0, to=1)
    assert info.value.peer == 0
    assert isinstance(verifier_blames(hand), MalformedValue)


# -- key reuse -----------------------------------------------------------------------------

@pytest.mark.parametrize("cheater", [0, 1])
def test_key_reuse_is_named_at_the_audit(cheater: int) -> None:
    hand = new_hand(dealer=0, label="reuse")
    hand.peers[cheater]._keys[30] = hand.peers[cheater]._keys[40]
    hand.shuffle()
    hand.initial_deal()  # positions 30 and 40 are in the stock: nothing visible
    with pytest.raises(CheatDetected) as info:
        hand.peers[1 - cheater].verify_audit(hand.peers[cheater].audit_payload())
    assert (info.value.peer, info.value.reason) == (cheater, Cheat.KEY_REUSE)


# -- replay --------------------------------------------------------------------------------

def test_payloads_of_another_hand_or_session_are_rejected_at_once() -> None:
    old = new_hand(hand_no=0, dealer=0, label="old")
    old.shuffle()
    old.initial_deal()
    new = new_hand(hand_no=1, dealer=0, label="new")
    mask0 = old.log[0][1]
    with pytest.raises(CheatDetected) as info:
        new.peers[1].shuffle_step(mask0)
    assert (info.value.peer, info.value.reason) == (0, Cheat.REPLAY)
    new.shuffle()
    old_share = next(p for s, p in old.log if p["type"] == "deck.deal" and p["position"] == 0)
    with pytest.raises(CheatDetected) as info:
        new.peers[1].receive_share(0, old_share)
    assert (info.value.peer, info.value.reason) == (0, Cheat.REPLAY)
    other = new_hand(session_id=b"another-session", dealer=0, label="new")
    with pytest.raises(CheatDetected) as info:
        other.peers[1].shuffle_step(new.log[0][1])
    assert info.value.reason == Cheat.REPLAY


def test_old_deck_replayed_under_a_new_header_unmasks_to_non_cards() -> None:
    """Card points are fresh per hand, so an old masked deck cannot carry real cards."""
    old = new_hand(hand_no=0, dealer=0, label="old2")
    old.shuffle()
    old_mask = old.log[0][1]

    def edit(p: dict[str, Any]) -> None:
        p["deck"] = old_mask["deck"]
    hand = new_hand(hand_no=1, dealer=0, label="new2", tamper=tamper_when("deck.mask", 0, edit))
    hand.shuffle()
    hand.tamper = None
    with pytest.raises(CheatDetected) as info:
        hand.deal(0, to=1)
    assert (info.value.peer, info.value.reason) == (0, Cheat.NOT_A_CARD)


# -- audit attribution ---------------------------------------------------------------------

@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_audit_names_the_cheater_whatever_the_order_of_reveals(order: tuple[int, int]) -> None:
    hand = new_hand(dealer=0, label="order")
    substitute_in_mask(hand, 1, "other mask")  # lands in the dealer's own hand
    hand.shuffle()
    hand.tamper = None
    hand.initial_deal()
    for p in order:
        hand.log.append((p, hand.peers[p].audit_payload()))
    blame = verifier_blames(hand)
    assert (blame.peer, blame.reason) == (0, Cheat.BAD_STEP)


def test_lying_about_secrets_at_the_audit_names_the_liar() -> None:
    hand = new_hand(dealer=1, label="liar")
    hand.shuffle()
    hand.initial_deal()
    audit = hand.peers[1].audit_payload()
    audit["keys"][25] = encode(random_scalar())
    with pytest.raises(CheatDetected) as info:
        hand.peers[0].verify_audit(audit)
    assert (info.value.peer, info.value.evidence["step"]) == (1, "lock")


# -- coin toss -----------------------------------------------------------------------------

def test_coin_toss_reveal_must_match_commitment() -> None:
    t0, t1 = (CoinToss(player=p, session_id=b"s") for p in (0, 1))
    t0.receive_commit(t1.commit())
    t1.receive_commit(t0.commit())
    bad = t1.reveal()
    bad["nonce"] = encode(bytes(32))
    with pytest.raises(CheatDetected) as info:
        t0.receive_reveal(bad)
    assert (info.value.peer, info.value.reason) == (1, Cheat.BAD_REVEAL)


def test_coin_toss_echoed_commitment_cannot_be_opened() -> None:
    """Player 1 copies player 0's commitment; the player index in the hash defeats it."""
    t0 = CoinToss(player=0, session_id=b"s")
    echo = {**t0.commit(), "player": 1}
    t0.receive_commit(echo)
    mine = t0.reveal()
    with pytest.raises(CheatDetected) as info:
        t0.receive_reveal({**mine, "player": 1})
    assert info.value.reason == Cheat.BAD_REVEAL


def test_coin_toss_is_deterministic_and_shared() -> None:
    assert coin_toss(label="x") == coin_toss(label="x")
    assert coin_toss(label="x")[0] != coin_toss(label="y")[0]


# -- the third-party verifier's own ordering checks ----------------------------------------

def test_verifier_rejects_shuffle_messages_out_of_order_or_from_the_wrong_player() -> None:
    hand = new_hand(dealer=0, label="vorder")
    hand.shuffle()
    mask, remask, lock = (p for _, p in hand.log[:3])
    for entries, culprit in (
        ([(0, remask)], 0),  # remask before mask
        ([(1, mask)], 1),  # mask from the non-dealer
        ([(0, mask), (1, remask), (0, lock), (0, lock)], 0),  # a second lock
        ([(0, mask), (1, hand.peers[1].disclose(0, to=0))], 1),  # share before the lock
    ):
        with pytest.raises(CheatDetected) as info:
            verify_hand(session_id=hand.session_id, hand_no=0, seed=hand.seed, dealer=0,
                        entries=entries)
        assert info.value.peer == culprit


def test_verifier_rejects_a_deal_of_a_position_that_is_not_hidden() -> None:
    hand = new_hand(dealer=0, label="vdeal")
    hand.shuffle()
    hand.deal(1, to=0)  # B's share of 1 is in the log: position 1 is private to A
    leak = {**hand.peers[0].open_public(1), "type": "deck.deal", "to": 1}
    blame = verifier_blames(hand, [(0, leak)])
    assert (blame.peer, blame.reason) == (0, Cheat.OUT_OF_ORDER)


def test_third_party_toss_check_names_a_bad_reveal() -> None:
    from p2pgin.mental import verify_toss

    t = [CoinToss(player=p, session_id=b"s") for p in (0, 1)]
    c = [x.commit() for x in t]
    t[0].receive_commit(c[1])
    t[1].receive_commit(c[0])
    r = [x.reveal() for x in t]
    t[0].receive_reveal(r[1])
    assert verify_toss(b"s", [(0, c[0]), (1, c[1]), (0, r[0]), (1, r[1])]) == (
        t[0].seed, t[0].first_dealer)
    forged = {**r[1], "nonce": encode(bytes(32))}
    with pytest.raises(CheatDetected) as info:
        verify_toss(b"s", [(0, c[0]), (1, c[1]), (0, r[0]), (1, forged)])
    assert (info.value.peer, info.value.reason) == (1, Cheat.BAD_REVEAL)
    with pytest.raises(CheatDetected) as info:
        verify_toss(b"s", [(0, c[0]), (0, r[0])])  # reveal before the other commitment
    assert info.value.peer == 0


def test_dealer_substitution_in_its_own_hand_is_caught_when_it_shows_the_card() -> None:
    hand = new_hand(dealer=1, label="subst-show")
    substitute_in_mask(hand, 5, "foreign point")  # position 5 goes to the dealer itself
    hand.shuffle()
    hand.tamper = None
    hand.initial_deal()
    with pytest.raises(CheatDetected) as info:
        hand.open(5, by=(1,))  # a discard, or the showdown
    assert (info.value.peer, info.value.reason) == (1, Cheat.NOT_A_CARD)
    assert verifier_blames(hand).peer == 1


def test_a_duplicate_card_inside_one_batch_of_opens_is_caught() -> None:
    """B copies D1 into two positions of its own hand and shows both at once (a knock):
    the second share claims the source the first one, still unrecorded, claimed."""
    hand = new_hand(dealer=0, label="dup-batch")
    a, b = hand.peers
    b._perm[3] = b._perm[1]
    hand.shuffle()
    shares = [(pos, hand.send(1, b.open_public(pos))) for pos in (1, 3)]
    with pytest.raises(CheatDetected) as info:
        a.check_received("deck.open", shares)
    assert (info.value.peer, info.value.reason) == (1, Cheat.DUPLICATE_CARD)
    assert info.value.evidence["earlier"] == shares[0][1]
    assert a.known == {}
