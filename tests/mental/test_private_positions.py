"""Nothing sent before the audit holds both shares of a position private to one player.

By construction each DeckPeer only ever sends its own share, and refuses to deal on a
position that was dealt to it; the receiver's share only leaves it when the receiver
itself chooses to open the position (discard, shown hand). Random sequences of deals and
opens, including refused ones, must keep that invariant in the public log.
"""

from __future__ import annotations

import copy

import pytest
from deck_harness import Hand, new_hand
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.mental import ProtocolMisuse, verify_hand

actions = st.lists(
    st.tuples(st.sampled_from(["deal", "open"]), st.integers(0, 1), st.integers(0, 7)),
    max_size=30,
)


@pytest.fixture(scope="module")
def shuffled() -> Hand:
    hand = new_hand(dealer=0, label="private-positions")
    hand.shuffle()
    return hand


@settings(max_examples=40, deadline=None)
@given(script=actions)
def test_random_deals_and_opens_never_leak_both_shares(shuffled: Hand,
                                                      script: list[tuple[str, int, int]]) -> None:
    hand = copy.deepcopy(shuffled)
    chose_to_open: set[tuple[int, int]] = set()  # (player, position)
    for op, player, pos in script:
        if op == "deal":
            try:
                share = hand.peers[player].disclose(pos, to=1 - player)
            except ProtocolMisuse:
                continue  # refused locally, nothing sent
            hand.send(player, share)
            hand.peers[1 - player].receive_share(pos, share)
        else:
            chose_to_open.add((player, pos))
            hand.open(pos, by=(player,))

    senders: dict[int, set[int]] = {}
    received: dict[int, int] = {}  # position -> player it was dealt to
    for sender, payload in hand.log:
        if payload["type"] in ("deck.deal", "deck.open"):
            senders.setdefault(payload["position"], set()).add(sender)
        if payload["type"] == "deck.deal":
            received[payload["position"]] = payload["to"]
    for pos, to in received.items():
        if (to, pos) not in chose_to_open:
            assert senders[pos] == {1 - to}, f"both shares of private position {pos} were sent"
    for pos, who in senders.items():
        if who == {0, 1}:
            assert any((p, pos) in chose_to_open for p in (0, 1))

    v = verify_hand(session_id=hand.session_id, hand_no=0, seed=hand.seed, dealer=hand.dealer,
                    entries=hand.log)
    assert set(v.public) == {pos for pos, who in senders.items() if who == {0, 1}}


def test_full_hand_with_stock_draws_keeps_private_cards_private() -> None:
    """An honest hand as the session will play it: deal, upcard, draws, discards."""
    hand = new_hand(dealer=1, label="play")
    hand.shuffle()
    hand.initial_deal()
    holder: dict[int, int] = {pos: (0 if pos % 2 == 0 else 1) for pos in range(20)}
    discarded: list[int] = []
    for turn, pos in enumerate(range(21, 31)):
        player = turn % 2
        hand.deal(pos, to=player)  # draw from the stock
        holder[pos] = player
        mine = sorted(p for p, h in holder.items() if h == player)
        out = mine[turn % len(mine)]
        hand.open(out, by=(player,))  # discard: the holder opens its own position
        discarded.append(out)
        del holder[out]
    v = verify_hand(session_id=hand.session_id, hand_no=0, seed=hand.seed, dealer=hand.dealer,
                    entries=hand.log)
    assert set(v.public) == set(discarded) | {20}
    assert not set(v.public) & set(holder)
    sent_by: dict[int, set[int]] = {}
    for sender, payload in hand.log:
        if "position" in payload:
            sent_by.setdefault(payload["position"], set()).add(sender)
    for pos, player in holder.items():
        assert sent_by[pos] == {1 - player}
    # each player saw exactly its own cards and the public ones; the audit agrees
    deck0, deck1 = hand.audit()
    assert deck0 == deck1
    for p in (0, 1):
        for pos, card in hand.peers[p].known.items():
            assert deck0[pos] == card
            assert pos in v.public or holder.get(pos) == p or pos in discarded


