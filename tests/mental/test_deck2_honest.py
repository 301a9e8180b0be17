"""Honest tables of 2 to 6 seats on the v2 deck: every card reaches exactly its owner.

Each seat checks every other seat's shuffle and strips itself (its own PublicDeck); a
third party with only the logged payloads reaches the same public state.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from table_harness import new_table, secret_of

from p2pgin.mental import Cheat, CheatDetected, ProtocolMisuse
from p2pgin.mental.layered_deck import DeckContext, DeckParty, PublicDeck

# the opening deal the machine will ask for: 2p 10 each, 3-4p 7 each, 6p 6 each (+ upcard)
DEALS = [(2, 10), (3, 7), (4, 7), (6, 6)]


@pytest.mark.parametrize(("n", "each"), DEALS)
def test_every_player_reads_exactly_its_cards_and_public_opens_agree(n: int, each: int) -> None:
    t = new_table(n, label=f"honest{n}", hand=n)
    t.shuffle_all()
    assert all(v.ready for v in t.views.values()) and t.third.ready
    read, upcard = t.opening_deal(each)
    up = n * each
    assert len(set(read.values())) == n * each and upcard not in read.values()
    for seat in t.players:
        view = t.views[seat]
        assert view.public_cards == {up: upcard} == t.third.public_cards
        mine = [i for i in read if i % n == t.players.index(seat)]
        for i in read:
            assert view.layers(i) == ((t.players[i % n],))
            if i not in mine:  # a card of another seat cannot be read with our key
                with pytest.raises(ProtocolMisuse):
                    t.parties[seat].read(view, i)
    # the holder of card 0 shows it: its own layer comes off in public
    holder = t.players[0]
    assert t.strip(holder, [0]) == {0: read[0]}
    # the rest of the deck opened in public: the whole deck is a permutation of the cards
    for i in range(up + 1, 52):
        assert t.open(i) not in read.values()
    for i in range(1, up):
        assert t.open(i) == read[i]
    assert sorted(t.third.public_cards.values()) == list(range(52))
    assert all(v.public_cards == t.third.public_cards for v in t.views.values())


def test_seats_in_any_order_and_a_subset_of_the_table_shuffle_a_deck() -> None:
    t = new_table(players=(4, 1, 5), label="order")
    order = []
    while not t.third.ready:
        order.append(t.shuffle_step()["seat"])
    assert order == [4, 1, 5]
    assert t.deal_to(7, 1) == t.open(7)
    assert t.views[5].layers(8) == (4, 1, 5)


def test_the_third_party_reaches_the_same_state_from_the_json_log() -> None:
    t = new_table(3, label="json")
    t.shuffle_all()
    read, upcard = t.opening_deal(7)
    log = json.loads(json.dumps(t.log))
    third = PublicDeck.start(t.ctx)
    deal_order = iter(sorted([i for i in read if i % 3 != k] + [21]) for k in range(3))
    for seat, payload in log:
        if payload["type"] == "deck.shuffle":
            third = third.with_shuffle(seat, payload)
        else:
            third, _ = third.with_strips(seat, payload, next(deal_order))
    assert third.public_cards == {21: upcard}
    assert all(third.point(i) == t.third.point(i) for i in range(52))
    assert all(third.layers(i) == t.third.layers(i) for i in range(52))


def test_a_restarted_party_remakes_byte_identical_payloads_and_reads_its_cards() -> None:
    t = new_table(2, label="restart")
    t.shuffle_all()
    t.deal_to(3, 0)
    reborn = DeckParty(t.ctx, 1, secret_of("restart", 1))
    assert reborn.make_shuffle(PublicDeck.start(t.ctx).with_shuffle(0, t.log[0][1])) == t.log[1][1]
    assert reborn.make_strips(t.views[1], [5, 9]) == t.parties[1].make_strips(t.views[1], [5, 9])
    reborn0 = DeckParty(t.ctx, 0, secret_of("restart", 0))
    assert reborn0.read(t.views[0], 3) == t.parties[0].read(t.views[0], 3)
    other = DeckParty(t.ctx, 1, secret_of("other", 1))
    with pytest.raises(ProtocolMisuse, match="another secret"):
        other.make_strips(t.views[1], [5])


def test_the_same_secret_gives_unrelated_layers_on_another_deck_or_input() -> None:
    t0 = new_table(2, label="same", deck=0)
    t1 = new_table(2, label="same", deck=1)
    t0.shuffle_all()
    t1.shuffle_all()
    assert t0.third.key(0) != t1.third.key(0)
    assert t0.third.key(1) != t1.third.key(1)


def test_own_payload_changed_after_making_it_is_verified_like_anyone_else() -> None:
    t = new_table(2, label="mine")
    payload = t.parties[0].make_shuffle(t.views[0])
    payload["output"][0], payload["output"][1] = payload["output"][1], payload["output"][0]
    with pytest.raises(CheatDetected) as info:
        t.views[0].with_shuffle(0, payload, made_by=t.parties[0])
    assert (info.value.peer, info.value.reason) == (0, Cheat.BAD_PROOF)


def test_misuse_by_our_own_caller_is_refused_and_changes_nothing() -> None:
    t = new_table(3, label="misuse")
    with pytest.raises(ProtocolMisuse, match="not our turn"):
        t.parties[1].make_shuffle(t.views[1])
    with pytest.raises(ProtocolMisuse, match="not shuffled"):
        t.parties[0].make_strips(t.views[0], [0])
    t.shuffle_all()
    t.deal_to(4, 2)
    with pytest.raises(ProtocolMisuse, match="no layer"):
        t.parties[0].make_strips(t.views[0], [4])  # seat 0 already stripped card 4
    with pytest.raises(ProtocolMisuse, match="not only our layer"):
        t.parties[0].read(t.views[0], 5)
    with pytest.raises(ProtocolMisuse, match="ascending"):
        t.parties[0].make_strips(t.views[0], [6, 5])
    with pytest.raises(ProtocolMisuse, match="ascending"):
        t.parties[0].make_strips(t.views[0], [])
    with pytest.raises(ProtocolMisuse, match="index"):
        t.parties[0].make_strips(t.views[0], [52])
    other = new_table(3, label="misuse", hand=1)
    with pytest.raises(ProtocolMisuse, match="another context"):
        t.parties[0].make_strips(other.views[0], [1])
    with pytest.raises(ProtocolMisuse, match="does not play"):
        DeckParty(t.ctx, 3, secret_of("x", 3))
    payload = t.parties[1].make_strips(t.views[1], [9])
    with pytest.raises(ProtocolMisuse, match="holds no layer"):
        t.third.with_strips(1, payload, [4])  # the caller asks for an index seat 1 stripped


@pytest.mark.parametrize("bad", [
    {"players": ()}, {"players": (0, 0)}, {"players": (6,)}, {"players": (True,)},
    {"cards": ()}, {"cards": (1, 1)}, {"cards": (52,)}, {"cards": tuple(range(53))},
    {"hand": -1}, {"deck": 1.0}, {"session": "ab"},
])
def test_a_bad_context_is_refused(bad: dict[str, object]) -> None:
    fields: dict[str, object] = {"session": b"s", "seed": b"e" * 32, "hand": 0, "deck": 0,
                                 "players": (0, 1), "cards": (1, 2, 3)}
    with pytest.raises(ProtocolMisuse):
        DeckContext(**{**fields, **bad})  # type: ignore[arg-type]


def test_public_cards_reshuffled_into_a_new_stock_by_every_player() -> None:
    """Rummy's "shuffle the discards into a new stock": a deck of the public cards."""
    first = new_table(4, label="stock", hand=2)
    first.shuffle_all()
    discards = [first.open(i) for i in range(40, 52)]
    stock = new_table(4, label="stock", hand=2, deck=1, cards=tuple(discards))
    stock.shuffle_all()
    assert stock.third.size == 12
    drawn = [stock.deal_to(i, stock.players[i % 4]) for i in range(6)]
    opened = [stock.open(i) for i in range(6, 12)]
    assert sorted(drawn + opened) == sorted(discards)
    # a shuffle of the first deck is no shuffle of the new stock
    fresh = PublicDeck.start(stock.ctx)
    with pytest.raises(CheatDetected) as info:
        fresh.with_shuffle(0, first.log[0][1])
    assert (info.value.peer, info.value.reason) == (0, Cheat.REPLAY)


@settings(max_examples=12, deadline=None)
@given(
    players=st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True).map(tuple),
    cards=st.lists(st.integers(0, 51), min_size=1, max_size=7, unique=True).map(tuple),
    data=st.data(),
)
def test_any_table_and_any_small_deck_deal_every_card_once(
    players: tuple[int, ...], cards: tuple[int, ...], data: st.DataObject
) -> None:
    t = new_table(players=players, cards=cards, label="prop")
    t.shuffle_all()
    got: dict[int, int] = {}
    for i in range(len(cards)):
        if data.draw(st.booleans(), label=f"private {i}"):
            got[i] = t.deal_to(i, data.draw(st.sampled_from(players), label="to"))
        else:
            got[i] = t.open(i)
    assert sorted(got.values()) == sorted(cards)
    for i in got:  # private cards opened later by their holder match what it read
        if t.third.card(i) is None:
            (holder,) = t.third.layers(i)
            assert t.strip(holder, [i]) == {i: got[i]}
