"""The two-party deck: shuffle, private deals, public opens and the end-of-hand audit.

Notation (all in the prime-order ed25519 group; see ``protocol/deck.md``):
``P_c`` is the point of card ``c``; A is the hand's dealer, B the other player.

1. ``deck.mask`` (A): ``D1[i] = a * P[sigma[i]]`` - one secret mask ``a``, permutation ``sigma``.
2. ``deck.remask`` (B): ``D2[j] = s[j] * D1[tau[j]]`` - a fresh key per position, permutation
   ``tau``. Because every position gets its own uniform key, D2 tells A nothing at all.
3. ``deck.lock`` (A): ``D3[j] = r[j] * D2[j]`` (the commitment to A's per-position keys) and
   the final deck ``Z[j] = a^-1 * D3[j] = r[j] * s[j] * P[card(j)]``, ``card(j) = sigma[tau[j]]``.

Opening position ``j``: A's share is ``r[j]``, checked by anyone as ``r[j]*D2[j] == D3[j]``;
B's share is ``(tau[j], s[j])``, checked as ``s[j]*D1[tau[j]] == D2[j]``. B learns its card
as ``(r[j]*s[j])^-1 * Z[j]``; A learns it as ``sigma[tau[j]]``. A position dealt to one
player carries only the other player's share; the receiver's share stays with it until the
audit, where both reveal all secrets and every step is recomputed.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from p2pgin.engine.cards import CARDS, Card
from p2pgin.mental.errors import Cheat, CheatDetected, MalformedValue, ProtocolMisuse
from p2pgin.mental.group import (
    Rng,
    all_distinct,
    decode_points,
    decode_scalar,
    encode,
    hash_to_point,
    mult,
    random_permutation,
    random_scalar,
    scalar_invert,
    scalar_mul,
    tagged_hash_more,
    tagged_prefix,
    u64,
)
from p2pgin.mental.wire import check_header, check_int, header

__all__ = [
    "CARD_TAG",
    "DECK_SIZE",
    "DeckPeer",
    "HandVerifier",
    "Received",
    "card_points",
    "initial_deal",
    "verify_hand",
]

DECK_SIZE = 52
CARD_TAG = "p2pgin/deck/card/v1"
_SHUFFLE_TYPES = ("deck.mask", "deck.remask", "deck.lock")


def card_points(session_id: bytes, seed: bytes, hand_no: int) -> tuple[bytes, ...]:
    """The 52 card points of one hand.

    ``P[c] = from_uniform(SHA-512(CARD_TAG, session_id, seed, u64(hand), u64(c))[:32])``.
    Hashing to the curve means nobody knows a discrete-log relation between two card
    points; binding the hand number makes every hand's points fresh, so a deck replayed
    from an earlier hand unmasks to non-cards.
    """
    # NB: the 52 hashes share everything but the last part: hash that prefix once.
    prefix = tagged_prefix(CARD_TAG, session_id, seed, u64(hand_no))
    pts = tuple(hash_to_point(tagged_hash_more(prefix, u64(c))[:32]) for c in range(DECK_SIZE))
    if all_distinct(pts) is not None:  # pragma: no cover - needs a SHA-512 collision
        raise ValueError("card points collide")
    return pts


def initial_deal(dealer: int) -> tuple[tuple[int, int | None], ...]:
    """The fixed opening deal: ``(position, recipient)``, ``None`` for the public upcard.

    Positions 0..19 alternate starting with the non-dealer; 20 is the upcard.
    """
    non_dealer = 1 - dealer
    plan: list[tuple[int, int | None]] = [
        (pos, non_dealer if pos % 2 == 0 else dealer) for pos in range(20)
    ]
    plan.append((20, None))
    return tuple(plan)


def _check_player(value: int, name: str) -> int:
    if type(value) is not int or value not in (0, 1):
        raise ProtocolMisuse(f"{name} must be 0 or 1")
    return value


class _Public:
    """Public data of one hand, shared by the players' :class:`DeckPeer` and the verifier."""

    def __init__(self, session_id: bytes, hand_no: int, seed: bytes, dealer: int) -> None:
        if type(hand_no) is not int or hand_no < 0:
            raise ProtocolMisuse("hand_no must be a non-negative int")
        self.session_id = bytes(session_id)
        self.hand_no = hand_no
        self.dealer = _check_player(dealer, "dealer")
        self.points = card_points(self.session_id, seed, hand_no)
        self.index = {p: c for c, p in enumerate(self.points)}
        self.d1: list[bytes] = []
        self.d2: list[bytes] = []
        self.d3: list[bytes] = []
        self.z: list[bytes] = []
        # shares seen so far: A's r[j]; B's (tau[j], s[j]); and which position used a source
        self.a_shares: dict[int, bytes] = {}
        self.b_shares: dict[int, tuple[int, bytes]] = {}
        self.sources: dict[int, int] = {}
        self.share_payloads: dict[tuple[int, int], dict[str, Any]] = {}

    @property
    def a(self) -> int:
        return self.dealer

    @property
    def b(self) -> int:
        return 1 - self.dealer

    def header(self, kind: str) -> dict[str, Any]:
        return header(kind, self.session_id, self.hand_no)

    def check(self, payload: object, kind: str | tuple[str, ...], peer: int) -> dict[str, Any]:
        return check_header(payload, kind, self.session_id, self.hand_no, peer)

    def read_deck(self, p: dict[str, Any], field: str, peer: int, check: bool) -> list[bytes]:
        deck = decode_points(p.get(field), peer=peer, field=field, count=DECK_SIZE, check=check)
        dup = all_distinct(deck)
        if dup is not None:
            raise CheatDetected(
                peer, Cheat.DUPLICATE_POINT, f"{field}[{dup}] repeats an earlier point",
                {"field": field, "index": dup, "point": encode(deck[dup])},
            )
        return deck

    # -- shares -------------------------------------------------------------------------

    def parse_share(
        self, p: dict[str, Any], peer: int, position: int | None
    ) -> tuple[int, int | None, bytes]:
        """(position, source or None, key) of a ``deck.deal``/``deck.open`` from ``peer``."""
        pos = check_int(p.get("position"), peer=peer, field="position", lo=0, hi=DECK_SIZE - 1)
        if position is not None and pos != position:
            raise CheatDetected(
                peer, Cheat.OUT_OF_ORDER, f"share for position {pos}, expected {position}",
                {"position": position, "got": pos},
            )
        key = decode_scalar(p.get("key"), peer=peer, field="key")
        src: int | None = None
        if peer == self.b:
            src = check_int(p.get("source"), peer=peer, field="source", lo=0, hi=DECK_SIZE - 1)
        elif "source" in p:
            raise MalformedValue(peer, "source", "only the non-dealer's share has a source")
        return pos, src, key

    def check_share(
        self, peer: int, pos: int, src: int | None, key: bytes, payload: dict[str, Any],
        pending: dict[int, tuple[int, dict[str, Any]]] | None = None,
    ) -> bool:
        """Check a share against the committed decks without recording it.

        Returns False if the very same share is already recorded (a harmless re-send).
        ``pending``: D1 source -> (position, payload) of shares checked, not recorded.

        Raises:
            CheatDetected: ``bad_share`` if it does not open the decks, ``duplicate_card``
                if B names a D1 source already used by another position.
        """
        if peer == self.a:
            old_a = self.a_shares.get(pos)
            if old_a is not None:
                if old_a == key:
                    return False
                raise CheatDetected(peer, Cheat.BAD_SHARE, f"two keys for position {pos}",
                                    {"position": pos, "share": payload,
                                     "earlier": self.share_payloads[(peer, pos)]})
            got = mult(key, self.d2[pos])
            if got != self.d3[pos]:
                raise CheatDetected(
                    peer, Cheat.BAD_SHARE, f"key does not open locked position {pos}",
                    {"position": pos, "share": payload, "expected": encode(self.d3[pos]),
                     "got": encode(got)},
                )
            return True
        assert src is not None
        old_b = self.b_shares.get(pos)
        if old_b is not None:
            if old_b == (src, key):
                return False
            raise CheatDetected(peer, Cheat.BAD_SHARE, f"two keys for position {pos}",
                                {"position": pos, "share": payload,
                                 "earlier": self.share_payloads[(peer, pos)]})
        other_pos = self.sources.get(src)
        earlier = None if other_pos is None else self.share_payloads[(peer, other_pos)]
        if other_pos is None and pending is not None and src in pending:
            other_pos, earlier = pending[src]
        if other_pos is not None:
            raise CheatDetected(
                peer, Cheat.DUPLICATE_CARD,
                f"positions {other_pos} and {pos} both claim D1[{src}]",
                {"position": pos, "share": payload,
                 "earlier": earlier},
            )
        got = mult(key, self.d1[src], peer=self.a, field="deck.mask", index=src)
        if got != self.d2[pos]:
            raise CheatDetected(
                peer, Cheat.BAD_SHARE, f"key does not open remasked position {pos}",
                {"position": pos, "share": payload, "expected": encode(self.d2[pos]),
                 "got": encode(got)},
            )
        return True

    def record_share(
        self, peer: int, pos: int, src: int | None, key: bytes, payload: dict[str, Any]
    ) -> None:
        """Remember a share that passed :meth:`check_share`."""
        if peer == self.a:
            self.a_shares[pos] = key
        else:
            assert src is not None
            self.b_shares[pos] = (src, key)
            self.sources[src] = pos
        self.share_payloads[(peer, pos)] = payload

    def unmask(
        self, pos: int, a_key: bytes, b_key: bytes, evidence: Callable[[], dict[str, Any]]
    ) -> Card:
        """The card at ``pos`` from both (already checked) keys: ``(r*s)^-1 * Z[pos]``.

        Raises:
            MalformedValue: Z[pos] is not a valid point (blames A, who sent Z).
            CheatDetected: ``not_a_card`` (blames A: with both shares checked, only A's
                mask or strip step can produce a non-card).
        """
        k = scalar_invert(scalar_mul(a_key, b_key))
        x = mult(k, self.z[pos], peer=self.a, field="deck", index=pos)
        card = self.index.get(x)
        if card is None:
            raise CheatDetected(
                self.a, Cheat.NOT_A_CARD, f"position {pos} unmasks to a non-card point",
                {"position": pos, "point": encode(x), **evidence()},
            )
        return CARDS[card]


def _read_perm(value: object, peer: int, field: str) -> list[int]:
    if (
        not isinstance(value, list)
        or len(value) != DECK_SIZE
        or any(type(v) is not int for v in value)
        or sorted(value) != list(range(DECK_SIZE))
    ):
        raise MalformedValue(peer, field, "expected a permutation of 0..51")
    return list(value)


def _read_keys(value: object, peer: int, field: str) -> list[bytes]:
    if not isinstance(value, list) or len(value) != DECK_SIZE:
        raise MalformedValue(peer, field, "expected a list of 52 scalars")
    keys = [decode_scalar(v, peer=peer, field=field, index=i) for i, v in enumerate(value)]
    dup = all_distinct(keys)
    if dup is not None:
        raise CheatDetected(peer, Cheat.KEY_REUSE, f"{field}[{dup}] reuses an earlier key",
                            {"field": field, "index": dup})
    return keys


def _step_failure(peer: int, step: str, index: int, expected: bytes, got: bytes) -> CheatDetected:
    return CheatDetected(
        peer, Cheat.BAD_STEP, f"{step} step does not recompute at index {index}",
        {"step": step, "index": index, "expected": encode(expected), "got": encode(got)},
    )


def _verify_audit(pub: _Public, peer: int, payload: object) -> tuple[list[int], list[bytes]]:
    """Recompute ``peer``'s shuffle steps from its revealed secrets.

    Returns (perm, keys). A's mask is checked here too. Every step is recomputed from the
    public input it was applied to, so an honest peer's steps always verify whatever the
    other did, and a failure names its author.
    """
    p = pub.check(payload, "deck.audit", peer)
    perm = _read_perm(p.get("perm"), peer, "perm")
    keys = _read_keys(p.get("keys"), peer, "keys")
    if peer == pub.a:
        mask = decode_scalar(p.get("mask"), peer=peer, field="mask")
        for i in range(DECK_SIZE):
            got = mult(mask, pub.points[perm[i]])
            if got != pub.d1[i]:
                raise _step_failure(peer, "mask", i, pub.d1[i], got)
        inv = scalar_invert(mask)
        for j in range(DECK_SIZE):
            got = mult(keys[j], pub.d2[j])
            if got != pub.d3[j]:
                raise _step_failure(peer, "lock", j, pub.d3[j], got)
            got = mult(inv, pub.d3[j], peer=peer, field="locked", index=j)
            if got != pub.z[j]:
                raise _step_failure(peer, "strip", j, pub.z[j], got)
        if mask in keys:
            raise CheatDetected(peer, Cheat.KEY_REUSE, "mask reused as a position key",
                                {"field": "mask"})
        for j, key in pub.a_shares.items():
            if key != keys[j]:  # pragma: no cover - impossible after the lock check
                raise _step_failure(peer, "share", j, keys[j], key)
    else:
        if "mask" in p:
            raise MalformedValue(peer, "mask", "the non-dealer has no whole-deck mask")
        for j in range(DECK_SIZE):
            got = mult(keys[j], pub.d1[perm[j]], peer=pub.a, field="deck.mask", index=perm[j])
            if got != pub.d2[j]:
                raise _step_failure(peer, "remask", j, pub.d2[j], got)
    return perm, keys


class Received:
    """Shares of the other player's that passed every check, not recorded yet.

    Made by :meth:`DeckPeer.check_received`: :attr:`cards` holds what they reveal, and
    :meth:`commit` records them in the deck (once; later calls do nothing).
    """

    __slots__ = ("_peer", "_records", "cards", "sources")

    def __init__(self, peer: DeckPeer) -> None:
        self._peer = peer
        self._records: list[tuple[int, int | None, bytes, dict[str, Any]]] = []
        #: Every checked position and its card (re-sent shares included).
        self.cards: dict[int, Card] = {}
        #: D1 source -> (position, payload) the pending shares claim (role A's check).
        self.sources: dict[int, tuple[int, dict[str, Any]]] = {}

    def add(self, pos: int, src: int | None, key: bytes, p: dict[str, Any],
            card: Card) -> None:
        self._records.append((pos, src, key, p))
        self.cards[pos] = card
        if src is not None:
            self.sources[src] = (pos, p)

    def commit(self) -> None:
        """Record the checked shares and learnt cards in the deck."""
        peer, records, self._records = self._peer, self._records, []
        for pos, src, key, p in records:
            peer._pub.record_share(peer.other, pos, src, key, p)
            peer._cards[pos] = self.cards[pos]


class DeckPeer:
    """One player's side of one hand's deck.

    Args:
        player: our player index (0/1).
        dealer: the hand's dealer; the dealer plays role A (masks first and locks),
            the other player role B (remasks with a key per position).
        session_id: bytes naming the session.
        hand_no: hand number (>= 0), bound into every payload and into the card points.
        seed: the session seed from :class:`~p2pgin.mental.cointoss.CoinToss`.
        rng: randomness for keys and permutation; defaults to :mod:`secrets`. All of it is
            drawn here, in this order - A: mask, sigma, r[0..51]; B: tau, s[0..51] - which is
            what the test vectors rely on.

    Shuffle: the dealer calls ``shuffle_step(None)`` and sends the result; each side feeds
    what it receives to ``shuffle_step`` and sends what comes back until it returns
    ``None`` (three messages: mask A->B, remask B->A, lock A->B); then :attr:`ready`.
    """

    def __init__(
        self,
        *,
        player: int,
        dealer: int,
        session_id: bytes,
        hand_no: int,
        seed: bytes,
        rng: Rng | None = None,
    ) -> None:
        self.player = _check_player(player, "player")
        self.other = 1 - player
        self._pub = _Public(session_id, hand_no, seed, dealer)
        self.role = "A" if player == dealer else "B"
        source: Rng = secrets if rng is None else rng
        self._mask = random_scalar(source) if self.role == "A" else b""
        self._perm = random_permutation(DECK_SIZE, source)
        self._keys = [random_scalar(source) for _ in range(DECK_SIZE)]
        if all_distinct(self._keys) is not None or self._mask in self._keys:
            raise ProtocolMisuse("rng repeated a key")  # pragma: no cover - 2**-250
        self._stage = 0
        self._sent: set[int] = set()
        self._cards: dict[int, Card] = {}
        self._audit_deck: tuple[Card, ...] | None = None

    # -- shuffle ------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """True once the final deck is fixed (both players hold D1, D2, D3 and Z)."""
        return self._stage == 3

    @property
    def session_id(self) -> bytes:
        return self._pub.session_id

    @property
    def hand_no(self) -> int:
        return self._pub.hand_no

    def shuffle_step(self, incoming: dict[str, Any] | None) -> dict[str, Any] | None:
        """Advance the shuffle with the other's last payload; returns ours or ``None``.

        Raises:
            ProtocolMisuse: called out of turn by our own side.
            CheatDetected / MalformedValue: the incoming payload is bad (names the sender).
        """
        pub = self._pub
        if incoming is None and (self.role == "B" or self._stage != 0):
            raise ProtocolMisuse("shuffle_step(None) is only the dealer's first step")
        if self.role == "A":
            if self._stage == 0:
                if incoming is not None:
                    raise ProtocolMisuse("the dealer starts the shuffle with shuffle_step(None)")
                pub.d1 = [mult(self._mask, pub.points[c]) for c in self._perm]
                self._stage = 1
                return {**pub.header("deck.mask"), "deck": [p.hex() for p in pub.d1]}
            if self._stage == 1:
                p = pub.check(incoming, "deck.remask", self.other)
                d2 = pub.read_deck(p, "deck", self.other, check=False)
                # NB: mult validates every D2 point (libsodium), so no separate check.
                d3 = [mult(k, q, peer=self.other, field="deck", index=j)
                      for j, (k, q) in enumerate(zip(self._keys, d2, strict=True))]
                inv = scalar_invert(self._mask)
                pub.d2, pub.d3, pub.z = d2, d3, [mult(inv, q) for q in d3]
                self._stage = 3
                return {**pub.header("deck.lock"), "locked": [p.hex() for p in pub.d3],
                        "deck": [p.hex() for p in pub.z]}
        else:
            if self._stage == 0:
                p = pub.check(incoming, "deck.mask", self.other)
                d1 = pub.read_deck(p, "deck", self.other, check=False)
                d2 = [mult(k, d1[t], peer=self.other, field="deck", index=t)
                      for k, t in zip(self._keys, self._perm, strict=True)]
                pub.d1, pub.d2 = d1, d2
                self._stage = 2
                return {**pub.header("deck.remask"), "deck": [p.hex() for p in pub.d2]}
            if self._stage == 2:
                p = pub.check(incoming, "deck.lock", self.other)
                # NB: D3 and Z are validated by libsodium when first multiplied (at a
                # deal or open); an invalid entry then raises MalformedValue naming A.
                d3 = pub.read_deck(p, "locked", self.other, check=False)
                pub.z = pub.read_deck(p, "deck", self.other, check=False)
                pub.d3 = d3
                self._stage = 3
                return None
        raise ProtocolMisuse(f"shuffle_step out of turn (role {self.role}, stage {self._stage})")

    def _require_ready(self) -> None:
        if not self.ready:
            raise ProtocolMisuse("the deck is not shuffled yet")

    # -- deals and opens -----------------------------------------------------------------

    def _share(self, kind: str, position: int) -> dict[str, Any]:
        out = {**self._pub.header(kind), "position": position}
        if self.role == "B":
            out["source"] = self._perm[position]
        out["key"] = self._keys[position].hex()
        return out

    def _check_position(self, position: int) -> None:
        if type(position) is not int or not 0 <= position < DECK_SIZE:
            raise ProtocolMisuse("position must be an int 0..51")

    def disclose(self, position: int, to: int) -> dict[str, Any]:
        """Deal ``position`` privately to the other player: our share (``deck.deal``).

        Raises:
            ProtocolMisuse: ``to`` is us, the deck is not ready, we already disclosed the
                position, or the position is private to us (dealing it on would hand the
                other player both shares).
        """
        self._require_ready()
        self._check_position(position)
        if to != self.other:
            raise ProtocolMisuse("a private deal goes to the other player")
        if position in self._cards and position not in self._sent:
            raise ProtocolMisuse(
                f"position {position} is private to us: dealing it would reveal both shares")
        if position in self._sent:
            raise ProtocolMisuse(f"position {position} was already disclosed")
        self._sent.add(position)
        return {**self._share("deck.deal", position), "to": to}

    def open_public(self, position: int) -> dict[str, Any]:
        """Our share of ``position`` for a public open (``deck.open``).

        Used for the upcard, discards and shown hands; opening a position private to us
        is our own choice, so it is always allowed.
        """
        self._require_ready()
        self._check_position(position)
        self._sent.add(position)
        return self._share("deck.open", position)

    def receive_share(self, position: int, payload: object) -> Card:
        """The other player deals ``position`` to us: check its share and learn the card.

        Raises:
            CheatDetected / MalformedValue: bad payload or share, a non-card or a duplicate
                card; the error names the peer and carries the evidence.
            ProtocolMisuse: the deck is not ready.
        """
        received = self.check_received("deck.deal", [(position, payload)])
        received.commit()
        return received.cards[position]

    def receive_open(self, position: int, payload: object) -> Card:
        """The other player opens ``position`` publicly: check its share, return the card."""
        received = self.check_received("deck.open", [(position, payload)])
        received.commit()
        return received.cards[position]

    def check_received(
        self, kind: str, items: Sequence[tuple[int, object]]
    ) -> Received:
        """Check the other player's shares of several positions, recording nothing yet.

        ``kind`` is ``"deck.deal"`` (private deals to us) or ``"deck.open"``. The caller
        learns the cards from :attr:`Received.cards` and calls :meth:`Received.commit`
        only once everything else about the message holds too (the rules engine may
        still refuse the move), so a refused message needs no undo.

        Raises:
            CheatDetected / MalformedValue: as :meth:`receive_share`, for any item; a
                duplicate among the items counts as one against the recorded cards.
            ProtocolMisuse: the deck is not ready, a position is out of range or listed
                twice, or ``kind`` is neither.
        """
        self._require_ready()
        if kind not in ("deck.deal", "deck.open"):
            raise ProtocolMisuse(f"check_received takes deck.deal or deck.open, not {kind}")
        received = Received(self)
        for position, payload in items:
            self._check_position(position)
            if position in received.cards:
                raise ProtocolMisuse(f"position {position} listed twice")
            p = self._pub.check(payload, kind, self.other)
            if kind == "deck.deal":
                if type(p.get("to")) is not int or p.get("to") != self.player:
                    raise CheatDetected(self.other, Cheat.OUT_OF_ORDER,
                                        "deal addressed to another player",
                                        {"position": position, "share": p})
                if position in self._sent or position in self._cards:
                    raise CheatDetected(self.other, Cheat.OUT_OF_ORDER,
                                        f"position {position} is not hidden any more",
                                        {"position": position, "share": p})
            self._check_learn(position, p, received)
        return received

    def _check_learn(self, position: int, p: dict[str, Any], received: Received) -> None:
        pub = self._pub
        pos, src, key = pub.parse_share(p, self.other, position)
        if not pub.check_share(self.other, pos, src, key, p, received.sources):
            received.cards[pos] = self._cards[pos]  # identical re-send of a share we hold
            return
        if self.role == "A":
            assert src is not None
            card = CARDS[self._perm[src]]
        else:
            card = pub.unmask(pos, key, self._keys[pos],
                              lambda: {"share": p, "proof": self._share("deck.open", pos)})
            for known_pos, known in (*self._cards.items(), *received.cards.items()):
                if known == card:
                    raise CheatDetected(
                        self.other, Cheat.DUPLICATE_CARD,
                        f"card {card} at positions {known_pos} and {pos}",
                        {"position": pos, "share": p, "proof": self._share("deck.open", pos)},
                    )
        received.add(pos, src, key, p, card)

    def card(self, position: int) -> Card | None:
        """The card at ``position`` if we know it (dealt to us or opened), else ``None``."""
        return self._cards.get(position)

    @property
    def known(self) -> dict[int, Card]:
        """Every position whose card we know (a copy)."""
        return dict(self._cards)

    # -- audit ---------------------------------------------------------------------------

    def audit_payload(self) -> dict[str, Any]:
        """All our secrets of this hand (``deck.audit``); send only once the hand is over."""
        self._require_ready()
        out = {**self._pub.header("deck.audit")}
        if self.role == "A":
            out["mask"] = self._mask.hex()
        out["perm"] = list(self._perm)
        out["keys"] = [k.hex() for k in self._keys]
        return out

    def verify_audit(self, payload: object) -> tuple[Card, ...]:
        """Recompute the other player's steps from its secrets; return the whole deck.

        Returns:
            52 cards in position order.

        Raises:
            CheatDetected: a step of the other player does not recompute (``bad_step``),
                key reuse, or a mismatch with shares it disclosed; names the other player.
        """
        self._require_ready()
        pub = self._pub
        perm, _keys = _verify_audit(pub, self.other, payload)
        sigma, tau = (self._perm, perm) if self.role == "A" else (perm, self._perm)
        deck = tuple(CARDS[sigma[tau[j]]] for j in range(DECK_SIZE))
        for pos, card in self._cards.items():
            if deck[pos] != card:  # pragma: no cover - excluded by the share checks
                raise CheatDetected(self.other, Cheat.BAD_STEP, f"position {pos} changed card",
                                    {"position": pos})
        self._audit_deck = deck
        return deck


class HandVerifier:
    """Third-party replay of one hand's public payloads (for ``p2pgin verify``).

    Feed every deck payload of the hand in log order with :meth:`feed`; it checks each as
    the players do, plus full point validation of every deck. After both ``deck.audit``
    payloads, :attr:`deck` holds the whole deck. Any failure raises :class:`CheatDetected`
    naming the player who sent the offending payload.
    """

    def __init__(self, *, session_id: bytes, hand_no: int, seed: bytes, dealer: int) -> None:
        self._pub = _Public(session_id, hand_no, seed, dealer)
        self._stage = 0
        self._public: dict[int, Card] = {}
        self._dealt: dict[int, int] = {}
        self._audits: dict[int, tuple[list[int], list[bytes]]] = {}
        self.deck: tuple[Card, ...] | None = None

    @property
    def public(self) -> dict[int, Card]:
        """Positions opened publicly so far (both shares in the log) and their cards."""
        return dict(self._public)

    @property
    def dealt(self) -> dict[int, int]:
        """Positions dealt privately so far and to whom."""
        return dict(self._dealt)

    def feed(self, sender: int, payload: object) -> Card | None:
        """Check one payload sent by player ``sender``; returns a card if one became public."""
        pub = self._pub
        sender = _check_player(sender, "sender")
        kind = payload.get("type") if isinstance(payload, dict) else None
        if kind in _SHUFFLE_TYPES:
            expected = _SHUFFLE_TYPES[self._stage] if self._stage < 3 else None
            author = pub.a if kind != "deck.remask" else pub.b
            if kind != expected or sender != author:
                raise CheatDetected(sender, Cheat.OUT_OF_ORDER, f"unexpected {kind}",
                                    {"type": kind})
            p = pub.check(payload, kind, sender)
            if kind == "deck.mask":
                pub.d1 = pub.read_deck(p, "deck", sender, check=True)
            elif kind == "deck.remask":
                pub.d2 = pub.read_deck(p, "deck", sender, check=True)
            else:
                d3 = pub.read_deck(p, "locked", sender, check=True)
                pub.z = pub.read_deck(p, "deck", sender, check=True)
                pub.d3 = d3
            self._stage += 1
            return None
        if self._stage < 3:
            raise CheatDetected(sender, Cheat.OUT_OF_ORDER, "payload before the shuffle ended",
                                {"type": kind if isinstance(kind, str) else None})
        if kind == "deck.audit":
            if sender in self._audits:
                raise CheatDetected(sender, Cheat.OUT_OF_ORDER, "second audit", {})
            self._audits[sender] = _verify_audit(pub, sender, payload)
            if len(self._audits) == 2:
                sigma = self._audits[pub.a][0]
                tau = self._audits[pub.b][0]
                self.deck = tuple(CARDS[sigma[tau[j]]] for j in range(DECK_SIZE))
            return None
        p = pub.check(payload, ("deck.deal", "deck.open"), sender)
        pos, src, key = pub.parse_share(p, sender, None)
        if kind == "deck.deal":
            if type(p.get("to")) is not int or p.get("to") != 1 - sender:
                raise MalformedValue(sender, "to", "a deal goes to the other player")
            holder = pub.b_shares if sender == pub.a else pub.a_shares
            if pos in holder or pos in self._dealt:
                raise CheatDetected(sender, Cheat.OUT_OF_ORDER,
                                    f"deal of position {pos}, which is not hidden",
                                    {"position": pos, "share": p})
        if not pub.check_share(sender, pos, src, key, p):
            return None
        pub.record_share(sender, pos, src, key, p)
        if kind == "deck.deal":
            self._dealt[pos] = 1 - sender
        if pos in self._public:
            return None
        if pos in pub.a_shares and pos in pub.b_shares:
            card = pub.unmask(pos, pub.a_shares[pos], pub.b_shares[pos][1],
                              lambda: {"shares": [pub.share_payloads[(pub.a, pos)],
                                                  pub.share_payloads[(pub.b, pos)]]})
            for other_pos, known in self._public.items():
                if known == card:  # distinct sources were checked, so A's steps are at fault
                    raise CheatDetected(pub.a, Cheat.DUPLICATE_CARD,
                                        f"card {card} at positions {other_pos} and {pos}",
                                        {"positions": [other_pos, pos]})
            self._public[pos] = card
            return card
        return None


def verify_hand(
    *,
    session_id: bytes,
    hand_no: int,
    seed: bytes,
    dealer: int,
    entries: Iterable[tuple[int, object]] | Sequence[tuple[int, object]],
) -> HandVerifier:
    """Replay ``(sender, payload)`` pairs of one hand in log order; see :class:`HandVerifier`.

    Raises:
        CheatDetected: names the player whose payload broke the protocol.
    """
    verifier = HandVerifier(session_id=session_id, hand_no=hand_no, seed=seed, dealer=dealer)
    for sender, payload in entries:
        verifier.feed(sender, payload)
    return verifier
