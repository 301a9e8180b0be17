"""A seat's secrets: its coin-toss nonce and one seed per hand, and the deck parties
they make.

Everything secret a seat ever uses comes from these 32-byte values: the deck layer
draws each shuffle key, permutation and proof randomness deterministically from the
hand's seed and the deck's context. So a restarted seat that replays its game file
re-creates byte-identical entries. They are stored (0600, atomically) before the first
entry that depends on them: the toss nonce and hand 1's seed when the table forms, and
hand seeds ``SEEDS_AHEAD`` hands ahead, a block at a time (one file write per block).
This is the only module of the session that holds a secret; it is the machine's
:class:`~p2pgin.session.machine.Observer` for its seat.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from p2pgin.mental.layered_deck import DeckParty, PublicDeck

__all__ = ["SEEDS_AHEAD", "SeatSecrets"]

#: Hand seeds drawn ahead of use, in one block.
SEEDS_AHEAD: Final = 8


class _Random(Protocol):
    def randbytes(self, n: int, /) -> bytes: ...


def _hex32(value: Any) -> bytes | None:
    if isinstance(value, str) and len(value) == 64 and value == value.lower():
        try:
            return bytes.fromhex(value)
        except ValueError:
            return None
    return None


class SeatSecrets:
    """One seat's secrets for one table, and its private view into the decks."""

    def __init__(self, seat: int, session_id: str, rng: _Random) -> None:
        self._seat = seat
        self.session_id = session_id
        self._rng = rng
        self._toss: bytes | None = None
        self._hands: dict[int, bytes] = {}
        self._parties: dict[tuple[int, int], DeckParty] = {}
        self._dirty = False

    @property
    def seat(self) -> int:
        """The seat these secrets belong to."""
        return self._seat

    # -- persistence

    def to_dict(self) -> dict[str, Any]:
        """The secrets file's content (canonical-JSON friendly)."""
        out: dict[str, Any] = {"session": self.session_id,
                               "hands": {str(n): s.hex() for n, s in sorted(self._hands.items())}}
        if self._toss is not None:
            out["toss"] = self._toss.hex()
        return out

    def load(self, saved: dict[str, Any] | None) -> None:
        """Take back what :meth:`to_dict` wrote (a restarted seat). Values of another
        table or badly formed are ignored: they would only make other entries, which
        the replay of the game file then refuses."""
        if not saved or saved.get("session") != self.session_id:
            return
        self._toss = _hex32(saved.get("toss"))
        hands = saved.get("hands")
        if isinstance(hands, dict):
            for key, value in hands.items():
                seed = _hex32(value)
                if isinstance(key, str) and key.isdigit() and seed is not None:
                    self._hands[int(key)] = seed

    def changed(self) -> dict[str, Any] | None:
        """The secrets to store when they changed since the last call, else None."""
        if not self._dirty:
            return None
        self._dirty = False
        return self.to_dict()

    # -- values

    def toss_nonce(self) -> bytes:
        """This seat's coin-toss nonce (drawn once, stored before its commitment)."""
        if self._toss is None:
            self._toss = bytes(self._rng.randbytes(32))
            self._dirty = True
        return self._toss

    def hand_seed(self, hand_no: int) -> bytes:
        """Hand ``hand_no``'s seed; draws the next block ahead when it runs short."""
        if hand_no + 1 not in self._hands:
            for ahead in range(hand_no, hand_no + SEEDS_AHEAD + 1):
                if ahead not in self._hands:
                    self._hands[ahead] = bytes(self._rng.randbytes(32))
                    self._dirty = True
        return self._hands[hand_no]

    def prepare(self, hand_no: int) -> None:
        """Draw what hand ``hand_no`` (and the toss) will need, so it is stored before
        anything depends on it."""
        self.toss_nonce()
        self.hand_seed(max(hand_no, 1))

    # -- the deck

    def party(self, hand_no: int, public: PublicDeck) -> DeckParty:
        """This seat's party of a deck of hand ``hand_no`` (made once, then kept)."""
        key = (hand_no, public.ctx.deck)
        party = self._parties.get(key)
        if party is None:
            if len(self._parties) > 16:  # NB: older hands are never needed again
                self._parties = {k: v for k, v in self._parties.items() if k[0] >= hand_no}
            party = DeckParty(public.ctx, self._seat, self.hand_seed(hand_no))
            self._parties[key] = party
        return party

    def read(self, hand_no: int, deck: PublicDeck, index: int) -> int:
        """The card at ``index`` of a deck once only this seat's layer is on it."""
        return self.party(hand_no, deck).read(deck, index)
