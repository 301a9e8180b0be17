"""Binds the session to the deck protocol (``p2pgin.mental``): the coin toss and one hand.

Two small drivers with one shape. ``make_*`` builds this peer's payload for a step;
``take_*`` consumes a payload from ``player`` (checking it when it is the peer's, or
re-making and comparing it when it is our own entry replayed from the game file).

All of a driver's randomness comes from a ``HashDrbg`` seeded with 32 fresh bytes that
are this peer's only stored secret for the toss or the hand (``secrets()``): a restarted
peer re-creates exactly the same masks, permutation and keys and so continues the hand.

A bad entry must leave the session's state exactly as before. Shares and opens (every
move that shows a card) are checked in two steps: ``check_shares``/``check_open`` return
the cards and a call that records them, which the session makes only when it commits the
entry. The shuffle, the deal and the audit update the deck objects of ``p2pgin.mental``
while checking; for those few entries a hand, :meth:`HandDeck.snapshot` and
:meth:`HandDeck.rollback` save and restore their (shallow) attribute state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.hand import HandState
from p2pgin.mental.cointoss import CoinToss
from p2pgin.mental.deck import DeckPeer
from p2pgin.mental.errors import Cheat, CheatDetected, DeckError, MalformedValue
from p2pgin.mental.group import HashDrbg
from p2pgin.session.errors import (
    BadDeckMessage,
    BadShare,
    MalformedFrame,
    RemoteProtocolError,
)

__all__ = ["HandDeck", "TossDriver", "deck_error", "nothing_to_record"]

_SHARE_CHEATS: Final = frozenset({Cheat.BAD_SHARE, Cheat.NOT_A_CARD, Cheat.DUPLICATE_CARD})


def deck_error(exc: DeckError) -> RemoteProtocolError:
    """The session error for a deck-layer error caused by the peer's payload."""
    if isinstance(exc, MalformedValue):
        return MalformedFrame(f"deck payload: {exc}")
    if isinstance(exc, CheatDetected) and exc.reason in _SHARE_CHEATS:
        return BadShare(f"{exc.reason.value}: {exc}")
    if isinstance(exc, CheatDetected):
        return BadDeckMessage(f"{exc.reason.value}: {exc}")
    return BadDeckMessage(f"deck protocol refused the payload: {exc}")


def _seed(secrets: dict[str, Any] | None, rng: Any) -> bytes:
    value = (secrets or {}).get("seed")
    if isinstance(value, str) and len(value) == 64:
        return bytes.fromhex(value)
    return bytes(rng.randbytes(32))


def _items(payload: dict[str, Any], key: str, count: int) -> list[Any]:
    if set(payload) != {key}:
        raise MalformedFrame(f"expected an object with exactly the key {key!r}")
    items = payload[key]
    if not isinstance(items, list) or len(items) != count:
        raise MalformedFrame(f"{key!r} must list exactly {count} payload(s)")
    return items


_CONTAINERS: Final = (dict, list, set)


def nothing_to_record() -> None:
    """The record call of a check that learnt nothing (our own payload, re-made and
    compared; a move that opens no card)."""


def _save(obj: Any) -> dict[str, Any]:
    # NB: a prebuilt tuple: ``dict | list | set`` would build a union type per attribute.
    return {k: v.copy() if isinstance(v, _CONTAINERS) else v for k, v in vars(obj).items()}


def _load(obj: Any, saved: dict[str, Any]) -> None:
    state = vars(obj)
    state.clear()
    state.update(saved)


class TossDriver:
    """The session's side of ``p2pgin.mental.cointoss.CoinToss`` (host and joiner).

    ``CoinToss`` stores a commitment or nonce only after checking it, so no rollback is
    needed here.
    """

    def __init__(self, session: str, me: int, *, rng: Any, secrets: dict[str, Any] | None):
        self._seed = _seed(secrets, rng)
        self._me = me
        self._toss = CoinToss(player=me, session_id=bytes.fromhex(session),
                              rng=HashDrbg(self._seed))
        self._sent_commit: dict[str, Any] | None = None

    def secrets(self) -> dict[str, Any]:
        """What must survive a crash between our commitment and our reveal."""
        return {"seed": self._seed.hex()}

    def make_commit(self) -> dict[str, Any]:
        """Our commitment payload."""
        return self._toss.commit()

    def make_reveal(self) -> dict[str, Any]:
        """Our reveal payload (only once we hold the other commitment)."""
        return self._toss.reveal()

    def take_commit(self, player: int, payload: dict[str, Any]) -> None:
        """Record a commitment; ours must be the one our seed makes."""
        if player == self._me:
            if payload != self._toss.commit():
                raise MalformedFrame("my own toss commitment does not match my stored seed")
            return
        try:
            self._toss.receive_commit(payload)
        except DeckError as exc:
            raise deck_error(exc) from None

    def take_reveal(self, player: int, payload: dict[str, Any]) -> None:
        """Check a reveal against its commitment."""
        if player == self._me:
            if payload != self._toss.reveal():
                raise MalformedFrame("my own toss reveal does not match my stored seed")
            return
        try:
            self._toss.receive_reveal(payload)
        except DeckError as exc:
            raise deck_error(exc) from None

    @property
    def done(self) -> bool:
        """True once both reveals are in."""
        return self._toss.done

    def result(self) -> tuple[int, bytes]:
        """``(first_dealer, session seed)``."""
        return self._toss.first_dealer, self._toss.seed


class HandDeck:
    """One hand's deck for the session: shuffle, deal shares, opens and the audit.

    Shuffle (three entries of type ``shuffle``): dealer mask, non-dealer remask, dealer
    lock; the mental layer computes our next step as it checks the previous one, so that
    payload waits in ``_pending`` until the session emits it.
    """

    def __init__(
        self,
        session: str,
        seed: bytes,
        hand_no: int,
        *,
        dealer: int,
        me: int,
        rng: Any,
        secrets: dict[str, Any] | None,
    ) -> None:
        self._seed = _seed(secrets, rng)
        self.me = me
        self.dealer = dealer
        self._peer = DeckPeer(player=me, dealer=dealer, session_id=bytes.fromhex(session),
                              hand_no=hand_no, seed=seed, rng=HashDrbg(self._seed))
        self._pending: dict[str, Any] | None = None
        self._made: dict[tuple[str, tuple[int, ...]], dict[str, Any]] = {}
        self.deck: tuple[Card, ...] | None = None
        self.failure: tuple[str, int] | None = None  # (rule, culprit) from the audit

    # -- transactions

    def snapshot(self) -> Any:
        """Copies of every attribute, containers copied one level deep (their items are
        immutable: bytes, ints, cards, received payloads)."""
        peer = self._peer
        return (_save(self), _save(peer), _save(peer._pub))

    def rollback(self, saved: Any) -> None:
        """Restore the state saved by :meth:`snapshot`."""
        mine, peer, pub = saved
        _load(self, mine)
        _load(self._peer, peer)
        _load(self._peer._pub, pub)

    def secrets(self) -> dict[str, Any]:
        """Our stored secret for this hand: the DRBG seed of all our deck randomness."""
        return {"seed": self._seed.hex()}

    def known(self) -> dict[int, Card]:
        """Every position whose card we know (dealt to us or opened)."""
        return self._peer.known

    # -- shuffle

    def make_shuffle(self) -> dict[str, Any]:
        """Our next shuffle payload (the dealer's first one is made here)."""
        if self._pending is None:
            self._pending = self._step(None)
        assert self._pending is not None
        return self._pending

    def take_shuffle(self, player: int, payload: dict[str, Any]) -> None:
        """Consume a shuffle payload; ours must equal what we made."""
        if player == self.me:
            if payload != self.make_shuffle():
                raise MalformedFrame("my own shuffle step does not match my stored seed")
            self._pending = None
            return
        self._pending = self._step(payload)

    def _step(self, incoming: dict[str, Any] | None) -> dict[str, Any] | None:
        try:
            return self._peer.shuffle_step(incoming)
        except DeckError as exc:
            raise deck_error(exc) from None

    # -- shares and opens

    def make_shares(self, positions: Sequence[int]) -> dict[str, Any]:
        """Our private shares of ``positions`` for the other player."""
        key = ("deal", tuple(positions))
        if key not in self._made:
            other = 1 - self.me
            self._made[key] = {"shares": [self._peer.disclose(p, other) for p in positions]}
        return self._made[key]

    def make_open(self, positions: Sequence[int]) -> dict[str, Any]:
        """Our public opening shares of ``positions``."""
        key = ("open", tuple(positions))
        if key not in self._made:
            self._made[key] = {"opens": [self._peer.open_public(p) for p in positions]}
        return self._made[key]

    def take_shares(
        self, player: int, payload: dict[str, Any], positions: Sequence[int]
    ) -> dict[int, Card]:
        """Private shares from ``player`` for ``positions``; returns the cards we learn."""
        cards, record = self.check_shares(player, payload, positions)
        record()
        return cards

    def take_open(
        self, player: int, payload: dict[str, Any], positions: Sequence[int]
    ) -> dict[int, Card]:
        """Opening shares from ``player`` for ``positions``; returns the cards we learn."""
        cards, record = self.check_open(player, payload, positions)
        record()
        return cards

    def check_shares(
        self, player: int, payload: dict[str, Any], positions: Sequence[int]
    ) -> tuple[dict[int, Card], Callable[[], None]]:
        """:meth:`take_shares` in two steps: the cards we would learn, and the call that
        records them (nothing changes before it; the session calls it when it commits)."""
        return self._check(player, payload, positions, "deck.deal")

    def check_open(
        self, player: int, payload: dict[str, Any], positions: Sequence[int]
    ) -> tuple[dict[int, Card], Callable[[], None]]:
        """:meth:`take_open` in two steps (see :meth:`check_shares`)."""
        return self._check(player, payload, positions, "deck.open")

    def _check(
        self, player: int, payload: dict[str, Any], positions: Sequence[int], kind: str
    ) -> tuple[dict[int, Card], Callable[[], None]]:
        deal = kind == "deck.deal"
        if player == self.me:  # our own entry, replayed: it must be what we would make
            made = self.make_shares(positions) if deal else self.make_open(positions)
            if payload != made:
                raise MalformedFrame(f"my own {'deal' if deal else 'open'} shares do not "
                                     "match my stored seed")
            return {}, nothing_to_record
        items = _items(payload, "shares" if deal else "opens", len(positions))
        try:
            received = self._peer.check_received(kind, list(zip(positions, items, strict=True)))
        except DeckError as exc:
            raise deck_error(exc) from None
        return received.cards, received.commit

    # -- audit

    def make_audit(self) -> dict[str, Any]:
        """All our secrets of this hand (only once the hand is over)."""
        return self._peer.audit_payload()

    def take_audit(self, player: int, payload: dict[str, Any]) -> None:
        """Verify the other's disclosure; a failure is recorded, not raised (it is the
        signed evidence the verdict cites)."""
        if player == self.me:
            if payload != self.make_audit():
                raise MalformedFrame("my own audit disclosure does not match my stored seed")
            return
        try:
            self.deck = self._peer.verify_audit(payload)
        except CheatDetected as exc:
            self.failure = (exc.reason.value, exc.peer)
        except DeckError as exc:
            self.failure = (f"audit: {exc}", 1 - self.me)

    def verdict(self, hand: HandState) -> tuple[bool, str, int | None]:
        """``(ok, rule, culprit)`` after both disclosures; also checks every card this
        peer saw against the audited deck."""
        if self.failure is not None:
            return False, self.failure[0], self.failure[1]
        if self.deck is None:
            return False, "no_audit", 1 - self.me
        for position in range(52):
            known = hand.known(position)
            if known is not None and known != self.deck[position]:
                return False, f"card at position {position} changed", 1 - self.me
        return True, "", None
