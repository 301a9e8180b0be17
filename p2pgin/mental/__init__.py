"""Mental-poker deck for two players: nobody deals, nobody can peek, cheats are named.

A pure layer: no sockets, no clock, no engine state. Group operations are libsodium's
ed25519 prime-order group through PyNaCl; randomness comes from :mod:`secrets` unless an
``rng`` (anything with ``token_bytes(n)`` and ``randbelow(n)``, e.g. :class:`HashDrbg`) is
passed for tests. Every message is a JSON-able dict (bytes as lowercase hex, ints, lists;
no floats) meant to go into a signed log entry. Spec: ``protocol/deck.md``; threat model
and what is caught when: ``docs/security.md``.

API for the session layer::

    from p2pgin.mental import (CoinToss, DeckPeer, CheatDetected, initial_deal,
                               verify_hand, verify_toss)

    # once per session: seed of the card points and the first dealer
    toss = CoinToss(player=me, session_id=sid)
    send(toss.commit());  toss.receive_commit(recv())      # coin.commit
    send(toss.reveal());  toss.receive_reveal(recv())      # coin.reveal (after the commit)
    seed, first_dealer = toss.seed, toss.first_dealer

    # every hand (the dealer is role A and speaks first)
    deck = DeckPeer(player=me, dealer=d, session_id=sid, hand_no=n, seed=seed)
    out = deck.shuffle_step(None) if me == d else None     # dealer: deck.mask
    while not deck.ready:                                  # deck.remask, deck.lock
        out = deck.shuffle_step(recv()); out and send(out)

    send(deck.disclose(pos, to=other))                     # deck.deal: private deal to other
    card = deck.receive_share(pos, recv())                 # a private deal to us -> Card
    send(deck.open_public(pos)); card = deck.receive_open(pos, recv())  # deck.open (upcard,
                                                           # discards, shown hands) -> Card
    got = deck.check_received("deck.open", [(pos, payload), ...])  # several at once,
    got.cards; got.commit()                                # recorded only on commit
    deck.card(pos), deck.known                             # what we know so far

    send(deck.audit_payload())                             # deck.audit, once the hand is over
    full_deck = deck.verify_audit(recv())                  # 52 Cards in position order

    # third party (p2pgin verify): the toss, then every (sender, payload) of a hand in order
    seed, first_dealer = verify_toss(sid, [(0, c0), (1, c1), (0, r0), (1, r1)])
    v = verify_hand(session_id=sid, hand_no=n, seed=seed, dealer=d, entries=pairs)
    v.deck, v.public, v.dealt

``initial_deal(dealer)`` lists the opening deal as ``(position, recipient or None)``.

Errors: :class:`CheatDetected` (``.peer`` = player to blame, ``.reason`` a :class:`Cheat`,
``.evidence`` a JSON-able dict; its subclass :class:`MalformedValue` for bad encodings and
invalid points/scalars) is raised for anything bad the other player sent; when a dealt card
unmasks to a non-card the evidence holds a ``proof`` payload (our own share of that
position) that the session may log so third parties can confirm the blame.
:class:`ProtocolMisuse` is raised for our own out-of-order calls, e.g. dealing a position
that is private to us, so that both shares of a private position can never be sent.
Checks are atomic: a payload that raises leaves the object exactly as it was.

Protocol v2 (``protocol/deck-v2.md``), for tables of 2..6 seats, every step proven::

    from p2pgin.mental import DeckContext, DeckParty, PublicDeck, TableToss

    toss = TableToss(seat=me, seats=n, session_id=sid)      # commit, reveal -> toss.seed
    ctx = DeckContext(session=sid, seed=seed, hand=h, deck=d, players=(...), cards=(...))
    public = PublicDeck.start(ctx);  me_party = DeckParty(ctx, me, secret)
    public = public.with_shuffle(seat, payload)             # each shuffle, proof checked
    public, opened = public.with_strips(seat, payload, indexes)  # layer removals, checked
    me_party.make_shuffle(public), me_party.make_strips(public, indexes)
    me_party.read(public, index)                            # only our layer left: the card
"""

from __future__ import annotations

from p2pgin.mental.cointoss import CoinToss, TableToss, verify_table_toss, verify_toss
from p2pgin.mental.deck import (
    CARD_TAG,
    DECK_SIZE,
    DeckPeer,
    HandVerifier,
    Received,
    card_points,
    initial_deal,
    verify_hand,
)
from p2pgin.mental.errors import Cheat, CheatDetected, DeckError, MalformedValue, ProtocolMisuse
from p2pgin.mental.group import HashDrbg, Rng
from p2pgin.mental.layered_deck import DeckContext, DeckParty, PublicDeck

__all__ = [
    "CARD_TAG",
    "DECK_SIZE",
    "Cheat",
    "CheatDetected",
    "CoinToss",
    "DeckContext",
    "DeckError",
    "DeckParty",
    "DeckPeer",
    "HandVerifier",
    "HashDrbg",
    "MalformedValue",
    "ProtocolMisuse",
    "PublicDeck",
    "Received",
    "Rng",
    "TableToss",
    "card_points",
    "initial_deal",
    "verify_hand",
    "verify_table_toss",
    "verify_toss",
]
