"""The N-party deck (protocol v2): every shuffle and every layer removal proven on arrival.

Each deck player ``k`` (in ``ctx.players`` order) takes the deck ``D_{k-1}`` and publishes
``D_k[i] = x_k * D_{k-1}[perm_k[i]]``, its key ``K_k = x_k*G`` and a zero-knowledge
argument (:mod:`p2pgin.mental.shuffle_proof`) that ``D_k`` is a permutation of
``D_{k-1}`` times the logarithm of ``K_k``. ``D_0`` holds the card points of
``ctx.cards``, fresh for every session, seed, hand and deck. Once every player shuffled,
card ``i`` of the deck is ``(prod x_k) * P[card]`` and carries one layer per player.

A player removes its layer from some cards ("strips" them) by publishing
``U = x_k^-1 * V`` for each with one batched Chaum-Pedersen proof against ``K_k``
(:mod:`p2pgin.mental.dleq`). A private card to seat ``R``: every other deck player strips
it; ``R`` strips its own layer privately (:meth:`DeckParty.read`). A public card: every
layer stripped in public; the card is then the card point it became.

Nothing is ever revealed at the end of a hand and nothing is checked late: a shuffle or a
strip that does not verify is refused when it arrives, naming its author
(``docs/security.md``). Spec: ``protocol/deck-v2.md``.

:class:`PublicDeck` is an immutable value: what any third party tracks and checks.
:class:`DeckParty` holds one seat's secrets for one deck, all derived deterministically
from a secret and the public deck, so a restarted peer re-creates its payloads exactly.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from p2pgin.mental.algebra import IDENTITY, base, draw_scalar, mul
from p2pgin.mental.dleq import DleqProof, prove_removal, verify_removal
from p2pgin.mental.errors import Cheat, CheatDetected, DeckError, MalformedValue, ProtocolMisuse
from p2pgin.mental.group import (
    HashDrbg,
    L,
    all_distinct,
    decode_point,
    decode_points,
    hash_to_point,
    random_permutation,
    tagged_hash,
    tagged_hash_more,
    tagged_prefix,
    u64,
)
from p2pgin.mental.shuffle_proof import MAX_SIZE, ShuffleProof, prove_shuffle, verify_shuffle

__all__ = [
    "CARD_TAG",
    "MAX_SEATS",
    "PARTY_TAG",
    "DeckContext",
    "DeckParty",
    "PublicDeck",
    "card_points",
]

CARD_TAG = "p2pgin/deck/card/v2"
PARTY_TAG = "p2pgin/deck/party/v2"
MAX_SEATS = 6
_SHUFFLE_FIELDS = frozenset(
    {"type", "session", "hand", "deck", "step", "seat", "key", "output", "proof"})
_STRIP_FIELDS = frozenset(
    {"type", "session", "hand", "deck", "seat", "indexes", "points", "proof"})


def _is_int(value: object) -> bool:
    return type(value) is int


@dataclass(frozen=True, slots=True)
class DeckContext:
    """Everything that binds one deck: a proof made for it is valid for it only.

    Attributes:
        session: the session id.
        seed: the session seed from the coin toss (input of the card points).
        hand: the hand number (>= 0).
        deck: the deck's index in the hand (>= 0; a reshuffled stock is a new deck).
        players: the seats that shuffle it, in shuffle order; each keeps a layer on every
            card until it strips it. Seats are 0..5.
        cards: the card numbers (0..51) of the input deck, in input order: all 52 for a
            fresh deck, the public cards being reshuffled for a new stock.
    """

    session: bytes
    seed: bytes
    hand: int
    deck: int
    players: tuple[int, ...]
    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.session, bytes) or not isinstance(self.seed, bytes):
            raise ProtocolMisuse("session and seed must be bytes")
        if not _is_int(self.hand) or self.hand < 0 or not _is_int(self.deck) or self.deck < 0:
            raise ProtocolMisuse("hand and deck must be non-negative ints")
        players = tuple(self.players)
        if (not players or len(set(players)) != len(players)
                or not all(_is_int(s) and 0 <= s < MAX_SEATS for s in players)):
            raise ProtocolMisuse(f"players must be distinct seats 0..{MAX_SEATS - 1}")
        cards = tuple(self.cards)
        if (not 1 <= len(cards) <= MAX_SIZE or len(set(cards)) != len(cards)
                or not all(_is_int(c) and 0 <= c < 52 for c in cards)):
            raise ProtocolMisuse("cards must be 1..52 distinct card numbers 0..51")
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "cards", cards)

    @property
    def binding(self) -> tuple[bytes, ...]:
        """The parts every transcript of this deck starts with (spec section 4)."""
        return (self.session, self.seed, u64(self.hand), u64(self.deck), bytes(self.players),
                bytes(self.cards))


def card_points(ctx: DeckContext) -> tuple[bytes, ...]:
    """``D_0``: the point of each card of ``ctx.cards``, in that order.

    ``P[c] = from_uniform(H(CARD_TAG, session, seed, u64(hand), u64(deck), u64(c))[:32])``:
    hashed to the curve, so nobody knows a relation between two of them, and fresh for
    every deck, so nothing of another deck, hand or session opens a card of this one.
    """
    prefix = tagged_prefix(CARD_TAG, ctx.session, ctx.seed, u64(ctx.hand), u64(ctx.deck))
    points = [hash_to_point(tagged_hash_more(prefix, u64(c))[:32]) for c in ctx.cards]
    # NB: from_uniform clears the cofactor, so its output is in the prime-order subgroup;
    # only the identity (and a collision) would be unusable
    if all_distinct(points) is not None or IDENTITY in points:
        raise RuntimeError("card points collide")  # pragma: no cover - a SHA-512 accident
    return tuple(points)


def _header(kind: str, ctx: DeckContext) -> dict[str, Any]:
    return {"type": kind, "session": ctx.session.hex(), "hand": ctx.hand, "deck": ctx.deck}


def _check_header(payload: object, kind: str, ctx: DeckContext, seat: int) -> dict[str, Any]:
    """Type, session, hand, deck and seat of a received payload (spec section 7)."""
    if not isinstance(payload, dict):
        raise MalformedValue(seat, "payload", "expected a JSON object")
    got = payload.get("type")
    if got != kind:
        raise CheatDetected(seat, Cheat.OUT_OF_ORDER, f"expected {kind}, got {got!r}",
                            {"expected": kind, "type": got if isinstance(got, str) else None})
    if payload.get("session") != ctx.session.hex():
        raise CheatDetected(seat, Cheat.REPLAY, "payload of another session",
                            {"session": ctx.session.hex(),
                             "got": str(payload.get("session"))[:200]})
    for field, want in (("hand", ctx.hand), ("deck", ctx.deck), ("seat", seat)):
        value = payload.get(field)
        if type(value) is not int or value < 0:
            raise MalformedValue(seat, field, "expected a non-negative integer", None,
                                 value if isinstance(value, int | str) else None)
        if value != want:
            raise CheatDetected(seat, Cheat.REPLAY, f"payload of {field} {value}, expected {want}",
                                {field: want, "got": value})
    return payload


def _check_fields(p: dict[str, Any], fields: frozenset[str], seat: int) -> None:
    if set(p) != fields:
        extra, missing = sorted(set(p) - fields), sorted(fields - set(p))
        raise MalformedValue(seat, "payload", f"fields differ: extra {extra}, missing {missing}")


class PublicDeck:
    """The public state of one deck: what every player and any third party tracks.

    Immutable: :meth:`with_shuffle` and :meth:`with_strips` check a payload and return a
    new deck, leaving this one as it was, so a refused payload needs no undo.
    """

    __slots__ = ("_card_of", "_cards", "_ctx", "_current", "_decks", "_keys", "_layers")

    _ctx: DeckContext
    _card_of: dict[bytes, int]
    _decks: tuple[tuple[bytes, ...], ...]
    _keys: tuple[bytes, ...]
    _current: tuple[bytes, ...]
    _layers: tuple[frozenset[int], ...]
    _cards: tuple[int | None, ...]

    @classmethod
    def start(cls, ctx: DeckContext) -> PublicDeck:
        """The deck before anyone shuffled: ``D_0``, the card points of ``ctx.cards``."""
        if not isinstance(ctx, DeckContext):
            raise ProtocolMisuse("start needs a DeckContext")
        points = card_points(ctx)
        n = len(points)
        return cls._make(ctx, dict(zip(points, ctx.cards, strict=True)), (points,), (),
                         points, (frozenset(),) * n, (None,) * n)

    @classmethod
    def _make(cls, ctx: DeckContext, card_of: dict[bytes, int],
              decks: tuple[tuple[bytes, ...], ...], keys: tuple[bytes, ...],
              current: tuple[bytes, ...], layers: tuple[frozenset[int], ...],
              cards: tuple[int | None, ...]) -> PublicDeck:
        deck = object.__new__(cls)
        deck._ctx, deck._card_of, deck._decks, deck._keys = ctx, card_of, decks, keys
        deck._current, deck._layers, deck._cards = current, layers, cards
        return deck

    # -- queries --------------------------------------------------------------------------

    @property
    def ctx(self) -> DeckContext:
        """The deck's context."""
        return self._ctx

    @property
    def size(self) -> int:
        """Number of cards in the deck."""
        return len(self._ctx.cards)

    @property
    def step(self) -> int:
        """How many players have shuffled so far."""
        return len(self._keys)

    @property
    def next_shuffler(self) -> int | None:
        """The seat whose shuffle is due, ``None`` once every player shuffled."""
        players = self._ctx.players
        return players[self.step] if self.step < len(players) else None

    @property
    def ready(self) -> bool:
        """True once every player shuffled: cards may be stripped."""
        return self.step == len(self._ctx.players)

    def key(self, seat: int) -> bytes:
        """The key ``K = x*G`` of ``seat``'s layer (once it shuffled)."""
        players = self._ctx.players
        if seat not in players or players.index(seat) >= self.step:
            raise ProtocolMisuse(f"seat {seat} has no layer on this deck")
        return self._keys[players.index(seat)]

    def deck_before(self, step: int) -> tuple[bytes, ...]:
        """The input of shuffle ``step`` (``D_step``; ``D_0`` are the card points)."""
        if not 0 <= step <= self.step:
            raise ProtocolMisuse(f"no deck before step {step}")
        return self._decks[step]

    def point(self, index: int) -> bytes:
        """The current point of card ``index`` (with the layers still on it)."""
        self._check_index(index)
        return self._current[index]

    def layers(self, index: int) -> tuple[int, ...]:
        """Seats whose layer is still on card ``index``, in shuffle order."""
        self._check_index(index)
        if not self.ready:
            return self._ctx.players[:self.step]
        held = self._layers[index]
        return tuple(s for s in self._ctx.players if s in held)

    def card(self, index: int) -> int | None:
        """The card at ``index`` if every layer is off (it is public), else ``None``."""
        self._check_index(index)
        return self._cards[index]

    @property
    def public_cards(self) -> dict[int, int]:
        """Every public card so far, ``{index: card}``."""
        return {i: c for i, c in enumerate(self._cards) if c is not None}

    def _check_index(self, index: int) -> None:
        if not _is_int(index) or not 0 <= index < self.size:
            raise ProtocolMisuse(f"index must be an int 0..{self.size - 1}")

    # -- shuffles -------------------------------------------------------------------------

    def with_shuffle(
        self, seat: int, payload: object, *, made_by: DeckParty | None = None
    ) -> PublicDeck:
        """Check ``seat``'s shuffle (``deck.shuffle``) and return the deck after it.

        ``made_by``: our own :class:`DeckParty` when the payload is ours; if that party
        made exactly this payload, the proof is not verified again (the structure still is).

        Raises:
            CheatDetected: names ``seat``: ``out_of_order`` (not its turn), ``replay``
                (another session, hand, deck, seat or step), ``duplicate_point``,
                ``bad_proof``.
            MalformedValue: a field badly encoded, an invalid point, extra or missing fields.
        """
        ctx = self._ctx
        if seat != self.next_shuffler:
            raise CheatDetected(seat, Cheat.OUT_OF_ORDER,
                                f"shuffle by seat {seat}, due: {self.next_shuffler}",
                                {"due": self.next_shuffler, "step": self.step})
        p = _check_header(payload, "deck.shuffle", ctx, seat)
        step = p.get("step")
        if type(step) is not int or step < 0:
            raise MalformedValue(seat, "step", "expected a non-negative integer")
        if step != self.step:
            raise CheatDetected(seat, Cheat.REPLAY, f"shuffle of step {step}, expected {self.step}",
                                {"step": self.step, "got": step})
        _check_fields(p, _SHUFFLE_FIELDS, seat)
        n = self.size
        key = decode_point(p["key"], peer=seat, field="key")
        output = tuple(decode_points(p["output"], peer=seat, field="output", count=n))
        dup = all_distinct(output)
        if dup is not None:
            raise CheatDetected(seat, Cheat.DUPLICATE_POINT,
                                f"output[{dup}] repeats an earlier point",
                                {"field": "output", "index": dup, "payload": p})
        proof = ShuffleProof.from_wire(p["proof"], n, peer=seat)
        if made_by is None or not made_by.made(p):
            binding = (*ctx.binding, u64(step), u64(seat))
            if not verify_shuffle(self._decks[-1], output, key, proof, binding, peer=seat):
                raise CheatDetected(seat, Cheat.BAD_PROOF,
                                    f"the shuffle proof of step {step} does not verify",
                                    {"step": step, "payload": p})
        layers = self._layers
        if step + 1 == len(ctx.players):
            layers = (frozenset(ctx.players),) * n
        return self._make(ctx, self._card_of, (*self._decks, output), (*self._keys, key),
                          output, layers, self._cards)

    # -- strips ---------------------------------------------------------------------------

    def check_strip_request(self, seat: int, indexes: Sequence[int]) -> tuple[int, ...]:
        """The indexes as a tuple, if ``seat`` may strip exactly these now.

        Raises:
            ProtocolMisuse: the deck is not ready, ``indexes`` is empty, not ascending or
                out of range, or ``seat`` holds no layer on one of them.
        """
        if not self.ready:
            raise ProtocolMisuse("the deck is not shuffled by every player yet")
        idx = tuple(indexes)
        if not idx or any(not _is_int(i) for i in idx) or list(idx) != sorted(set(idx)):
            raise ProtocolMisuse("indexes must be distinct ints in ascending order")
        for i in idx:
            self._check_index(i)
            if seat not in self._layers[i]:
                raise ProtocolMisuse(f"seat {seat} holds no layer on index {i}")
        return idx

    def with_strips(
        self, seat: int, payload: object, indexes: Sequence[int], *,
        made_by: DeckParty | None = None,
    ) -> tuple[PublicDeck, dict[int, int]]:
        """Check ``seat``'s strips (``deck.strip``) of exactly ``indexes``.

        Args:
            seat: the author.
            payload: its ``deck.strip`` payload.
            indexes: what the payload must cover, ascending (the caller knows from the
                rules which cards this step strips, and ``seat`` must hold a layer on each).
            made_by: our own :class:`DeckParty` when the payload is ours (see
                :meth:`with_shuffle`).

        Returns:
            The deck after the strips, and the cards that became public ``{index: card}``.

        Raises:
            ProtocolMisuse: a bad request (see :meth:`check_strip_request`).
            CheatDetected: names ``seat``: ``replay`` (another session, hand, deck, seat or
                other indexes), ``bad_proof``.
            MalformedValue: a field badly encoded, an invalid point, extra or missing fields.
        """
        ctx = self._ctx
        if seat not in ctx.players:
            raise ProtocolMisuse(f"seat {seat} does not play this deck")
        idx = self.check_strip_request(seat, indexes)
        p = _check_header(payload, "deck.strip", ctx, seat)
        got = p.get("indexes")
        if not isinstance(got, list) or not all(_is_int(i) for i in got):
            raise MalformedValue(seat, "indexes", "expected a list of integers")
        if tuple(got) != idx:
            raise CheatDetected(seat, Cheat.REPLAY, f"strips of {got}, expected {list(idx)}",
                                {"indexes": list(idx), "got": got})
        _check_fields(p, _STRIP_FIELDS, seat)
        stripped = decode_points(p["points"], peer=seat, field="points", count=len(idx))
        proof = DleqProof.from_wire(p["proof"], peer=seat)
        if made_by is None or not made_by.made(p):
            key = self._keys[ctx.players.index(seat)]
            layered = [self._current[i] for i in idx]
            if not verify_removal(key, layered, stripped, _strip_binding(ctx, seat, idx), proof,
                                  peer=seat):
                raise CheatDetected(seat, Cheat.BAD_PROOF,
                                    f"the strip proof of indexes {list(idx)} does not verify",
                                    {"indexes": list(idx), "payload": p})
        current, layers, cards = list(self._current), list(self._layers), list(self._cards)
        opened: dict[int, int] = {}
        for i, u in zip(idx, stripped, strict=True):
            current[i] = u
            layers[i] = layers[i] - {seat}
            if not layers[i]:
                opened[i] = cards[i] = self._card_at(u, i)
        return (self._make(ctx, self._card_of, self._decks, self._keys, tuple(current),
                           tuple(layers), tuple(cards)), opened)

    def _card_at(self, point: bytes, index: int) -> int:
        card = self._card_of.get(point)
        if card is None:  # pragma: no cover - needs a forged proof (a broken discrete log)
            raise DeckError(f"index {index} opened to no card although every step was proven")
        return card


def _strip_binding(ctx: DeckContext, seat: int, indexes: Iterable[int]) -> tuple[bytes, ...]:
    return (*ctx.binding, u64(seat), b"".join(u64(i) for i in indexes))


class DeckParty:
    """One seat's secrets for one deck: its key, its permutation, its proofs' randomness.

    Everything is derived from ``secret`` and public data (spec section 8): the key and
    permutation from the secret, the context and the input deck of our step; each
    proof's nonces from the secret and the statement it proves. A restarted peer with the
    same secret re-creates byte-identical payloads, and two different inputs never share
    a key, a permutation or a nonce.

    Args:
        ctx: the deck.
        seat: our seat; must be one of ``ctx.players``.
        secret: at least 16 random bytes, kept by the session for as long as the deck lives.
    """

    def __init__(self, ctx: DeckContext, seat: int, secret: bytes) -> None:
        if not isinstance(ctx, DeckContext):
            raise ProtocolMisuse("DeckParty needs a DeckContext")
        if seat not in ctx.players:
            raise ProtocolMisuse(f"seat {seat} does not play this deck")
        if not isinstance(secret, bytes) or len(secret) < 16:
            raise ProtocolMisuse("secret must be at least 16 bytes")
        self.ctx = ctx
        self.seat = seat
        self.step = ctx.players.index(seat)
        self._secret = bytes(secret)
        self._layer: tuple[tuple[bytes, ...], int] | None = None
        self._made: list[dict[str, Any]] = []

    def _draw(self, inputs: tuple[bytes, ...]) -> tuple[int, list[int], HashDrbg]:
        """Key, permutation and the generator the shuffle proof continues with, for the
        input deck ``inputs``."""
        rng = HashDrbg(tagged_hash(PARTY_TAG, self._secret, *self.ctx.binding,
                                   u64(self.seat), b"".join(inputs)))
        x = draw_scalar(rng)
        perm = random_permutation(len(inputs), rng)
        self._layer = (inputs, x)
        return x, perm, rng

    def _key(self, public: PublicDeck) -> int:
        """Our layer's key on ``public`` (checked against the key it holds for our seat)."""
        self._check_deck(public)
        if public.step <= self.step:
            raise ProtocolMisuse("we have not shuffled this deck yet")
        inputs = public.deck_before(self.step)
        x = self._layer[1] if self._layer and self._layer[0] == inputs else self._draw(inputs)[0]
        if base(x) != public.key(self.seat):
            raise ProtocolMisuse("our seat's layer on this deck was made with another secret")
        return x

    def _check_deck(self, public: PublicDeck) -> None:
        if public.ctx != self.ctx:
            raise ProtocolMisuse("the public deck belongs to another context")

    def made(self, payload: dict[str, Any]) -> bool:
        """True if this party made exactly ``payload`` (used to skip re-verifying our own)."""
        return any(payload == mine for mine in self._made)

    def _remember(self, payload: dict[str, Any]) -> dict[str, Any]:
        self._made.append(copy.deepcopy(payload))
        return payload

    def make_shuffle(self, public: PublicDeck) -> dict[str, Any]:
        """Our shuffle of the deck (``deck.shuffle``), with its proof.

        Raises:
            ProtocolMisuse: it is not our turn to shuffle, or ``public`` is another deck.
        """
        self._check_deck(public)
        if public.next_shuffler != self.seat:
            raise ProtocolMisuse(f"not our turn to shuffle (due: {public.next_shuffler})")
        inputs = public.deck_before(self.step)
        x, perm, rng = self._draw(inputs)
        binding = (*self.ctx.binding, u64(self.step), u64(self.seat))
        key, output, proof = prove_shuffle(inputs, x, perm, binding, rng)
        return self._remember({
            **_header("deck.shuffle", self.ctx), "step": self.step, "seat": self.seat,
            "key": key.hex(), "output": [q.hex() for q in output], "proof": proof.to_wire(),
        })

    def make_strips(self, public: PublicDeck, indexes: Sequence[int]) -> dict[str, Any]:
        """Our strips of ``indexes`` (``deck.strip``): our layer off each, one proof.

        Raises:
            ProtocolMisuse: the deck is not ready, bad indexes, or our layer is already off
                one of them.
        """
        self._check_deck(public)
        idx = public.check_strip_request(self.seat, indexes)
        x = self._key(public)
        layered = [public.point(i) for i in idx]
        stripped, proof = prove_removal(x, public.key(self.seat), layered,
                                        _strip_binding(self.ctx, self.seat, idx), self._secret)
        return self._remember({
            **_header("deck.strip", self.ctx), "seat": self.seat, "indexes": list(idx),
            "points": [q.hex() for q in stripped], "proof": proof.to_wire(),
        })

    def read(self, public: PublicDeck, index: int) -> int:
        """The card at ``index`` when only our layer is left on it (privately).

        Raises:
            ProtocolMisuse: another layer is still on the card, or ours is off.
        """
        self._check_deck(public)
        if not public.ready or public.layers(index) != (self.seat,):
            raise ProtocolMisuse(f"index {index}: not only our layer is left "
                                 f"(layers {public.layers(index)})")
        x = self._key(public)
        return public._card_at(mul(pow(x, -1, L), public.point(index)), index)
