"""The mental-poker deck of a table of 2..6 seats: nobody deals, nobody can peek,
every step is proven when it arrives, and a cheat is named with evidence.

A pure layer: no sockets, no clock, no engine state. Group operations are libsodium's
ed25519 prime-order group through PyNaCl. Every payload is a JSON-able dict (bytes as
lowercase hex, ints, lists; no floats) meant to go into a signed log entry. Spec:
``protocol/deck.md``; threat model and what is caught when: ``docs/security.md``::

    from p2pgin.mental import DeckContext, DeckParty, PublicDeck, TableToss

    toss = TableToss(seat=me, seats=n, session_id=sid)      # commit, reveal -> toss.seed
    ctx = DeckContext(session=sid, seed=seed, hand=h, deck=d, players=(...), cards=(...))
    public = PublicDeck.start(ctx);  me_party = DeckParty(ctx, me, secret)
    public = public.with_shuffle(seat, payload)             # each shuffle, proof checked
    public, opened = public.with_strips(seat, payload, indexes)  # layer removals, checked
    me_party.make_shuffle(public), me_party.make_strips(public, indexes)
    me_party.read(public, index)                            # only our layer left: the card

Errors: :class:`CheatDetected` (``.peer`` = the seat to blame, ``.reason`` a
:class:`Cheat`, ``.evidence`` a JSON-able dict; its subclass :class:`MalformedValue` for
bad encodings and invalid points/scalars) for anything bad another seat sent;
:class:`ProtocolMisuse` for our own out-of-order calls. Checks are atomic: a payload that
raises leaves every value as it was (the decks are immutable).
"""

from __future__ import annotations

from p2pgin.mental.cointoss import TableToss, verify_table_toss
from p2pgin.mental.errors import Cheat, CheatDetected, DeckError, MalformedValue, ProtocolMisuse
from p2pgin.mental.group import HashDrbg, Rng
from p2pgin.mental.layered_deck import DeckContext, DeckParty, PublicDeck

__all__ = [
    "Cheat",
    "CheatDetected",
    "DeckContext",
    "DeckError",
    "DeckParty",
    "HashDrbg",
    "MalformedValue",
    "ProtocolMisuse",
    "PublicDeck",
    "Rng",
    "TableToss",
    "verify_table_toss",
]
