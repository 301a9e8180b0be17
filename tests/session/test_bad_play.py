"""Bad entries during a hand: out of turn, illegal moves, wrong shares, missing opens,
a cheating audit. The honest peer refuses with a typed error and its log, view and
deck state stay exactly as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from session_harness import Peer, forge, make_pair, run_match, snapshot

from p2pgin.engine.moves import (
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    PassUpcard,
    TakeUpcard,
)
from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_loads
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.session import (
    BadShare,
    CheatDetected,
    IllegalRemoteMove,
    MalformedFrame,
    OutOfTurn,
    PeerError,
    RemoteProtocolError,
    State,
)


def _playing(phase: str | None = None, seed: int = 31) -> tuple[Peer, Peer]:
    """A pair in hand 1, quiescent, with the mover's hand in ``phase`` if given."""

    def stop(a: Peer, b: Peer) -> bool:
        h = a.session.view.hand
        return a.session.state is State.PLAY and h is not None and (
            phase is None or h.phase.value == phase)

    a, b = make_pair(Rules.preset("standard"), seed=seed)
    run_match(a, b, seed=seed, stop=stop)
    assert a.session.state is State.PLAY
    return a, b


def _roles(a: Peer, b: Peer) -> tuple[Peer, Peer]:
    """(mover, other)."""
    return (a, b) if a.session.view.my_turn else (b, a)


def _refused(victim: Peer, frame: bytes, error: type[RemoteProtocolError], rule: str) -> None:
    victim.outbox.clear()
    before = snapshot(victim.session)
    n = len(victim.file)
    with pytest.raises(error) as info:
        victim.session.receive_frame(frame)
    assert info.value.rule == rule, info.value
    assert info.value.evidence == frame
    assert snapshot(victim.session) == before
    victim.flush()
    assert len(victim.file) == n and victim.session.closed
    (err,) = victim.outbox
    assert Entry.from_bytes(err).body["rule"] == rule


def _resign(peer: Peer, frame: bytes, edit: Callable[[dict[str, Any]], None]) -> bytes:
    """The peer's own frame with its body edited and signed again by the peer."""
    obj = canonical_loads(frame)
    edit(obj["body"])
    del obj["sig"]
    return sign_entry(peer.ident.signing_key, **obj).to_bytes()


def test_a_move_from_the_player_not_to_move_is_out_of_turn() -> None:
    a, b = _playing()
    mover, other = _roles(a, b)
    frame = forge(other, "move", {"move": {"move": "draw_stock"}, "open": None},
                  at=mover.session)
    _refused(mover, frame, OutOfTurn, "turn")


def test_an_illegal_move_is_refused_with_the_engine_rule() -> None:
    a, b = _playing()
    mover, other = _roles(a, b)
    legal = set(mover.session.view.legal_moves)
    bad = next(m for m in (TakeUpcard(), PassUpcard(), DrawStock(), DrawDiscard())
               if m not in legal)
    frame = forge(mover, "move", {"move": bad.to_dict(), "open": None}, at=other.session)
    _refused(other, frame, IllegalRemoteMove, "illegal")


def _discard_frame(a: Peer, b: Peer) -> tuple[Peer, Peer, bytes]:
    mover, other = _roles(a, b)
    view = mover.session.view
    move = next(m for m in view.legal_moves if isinstance(m, Discard)
                and m.position != view.hand.taken_from_discard
                and m.position not in view.hand.discard_pile)
    mover.session.act(move)
    mover.flush()
    frame = mover.outbox.pop()
    assert Entry.from_bytes(frame).body["open"] is not None
    return mover, other, frame


def test_a_discard_with_a_wrong_opening_share_is_refused() -> None:
    a, b = _playing("discard")
    mover, other, frame = _discard_frame(a, b)

    def edit(body: dict[str, Any]) -> None:
        share = body["open"]["opens"][0]
        key = bytearray(bytes.fromhex(share["key"]))
        key[0] ^= 1  # still a canonical scalar, wrong key
        share["key"] = key.hex()

    _refused(other, _resign(mover, frame, edit), BadShare, "share")


def test_a_discard_without_its_opening_share_is_malformed() -> None:
    a, b = _playing("discard")
    mover, other, frame = _discard_frame(a, b)
    _refused(other, _resign(mover, frame, lambda body: body.update(open=None)),
             MalformedFrame, "malformed")


def test_discarding_a_card_not_in_hand_is_illegal() -> None:
    a, b = _playing("discard")
    mover, other = _roles(a, b)
    theirs = other.session.view.hand.hand_of(other.session.me)[0]
    frame = forge(mover, "move", {"move": {"move": "discard", "position": theirs},
                                  "open": None}, at=other.session)
    _refused(other, frame, IllegalRemoteMove, "illegal")


def test_a_wrong_draw_share_is_refused() -> None:
    a, b = _playing("draw", seed=33)
    mover, other = _roles(a, b)
    mover.session.act(DrawStock())
    mover.flush()
    other.session.receive_frame(mover.outbox.pop())
    other.flush()
    share_frame = other.outbox.pop()
    assert Entry.from_bytes(share_frame).type == "draw_share"

    def edit(body: dict[str, Any]) -> None:
        share = body["share"]["shares"][0]
        key = bytearray(bytes.fromhex(share["key"]))
        key[1] ^= 1
        share["key"] = key.hex()

    _refused(mover, _resign(other, share_frame, edit), BadShare, "share")


def test_a_dealer_who_lies_in_the_audit_is_named_by_the_signed_verdicts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from p2pgin.session.deck import HandDeck

    honest_audit = HandDeck.make_audit

    def lying_audit(self: HandDeck) -> dict[str, Any]:
        payload = honest_audit(self)
        if self.me == self.dealer:  # this peer cheats: it lies about its keys
            keys = list(payload["keys"])
            keys[0], keys[1] = keys[1], keys[0]
            payload = {**payload, "keys": keys}
        return payload

    monkeypatch.setattr(HandDeck, "make_audit", lying_audit)
    a, b = make_pair(Rules.preset("standard"), seed=41)
    run_match(a, b, seed=42)
    dealer = a if a.session.view.dealer == a.session.me else b
    honest = b if dealer is a else a
    assert honest.session.state is State.CHEATED and honest.session.closed
    cheats = [e for e in honest.events if isinstance(e, CheatDetected)]
    assert cheats and cheats[0].peer == dealer.session.me
    verdict = honest.file[-1]
    assert verdict.type == "audit_result" and verdict.body["ok"] is False
    assert verdict.body["culprit"] == dealer.session.me
    assert dealer.session.state is State.CHEATED
    assert any(isinstance(e, PeerError) and e.code == "cheat" for e in dealer.events)
    assert honest.session.view.audits[1].startswith("cheat")
    assert a.file == b.file  # the lie and the verdict are in both signed logs


def test_a_move_racing_the_movers_own_entry_is_out_of_turn() -> None:
    a, b = _playing()
    mover, other = _roles(a, b)
    racing = forge(other, "move", {"move": {"move": "draw_stock"}, "open": None},
                   at=mover.session)  # the other's view of the log, before the move
    mover.session.act(mover.session.view.legal_moves[0])
    mover.flush()
    mover.outbox.clear()  # the move is in flight when the racing entry arrives
    _refused(mover, racing, OutOfTurn, "turn")


def test_a_knock_with_genuine_opens_but_too_much_deadwood_changes_nothing() -> None:
    """The shares check out, so only the rules engine refuses the knock: the deck must
    not keep the shown cards of a move that was never accepted."""
    for seed in range(31, 60):
        a, b = _playing("discard", seed=seed)
        mover, other = _roles(a, b)
        view = mover.session.view
        positions = sorted(view.hand.hand_of(mover.session.me))
        if not any(isinstance(m, Knock) for m in view.legal_moves):
            break
    else:  # pragma: no cover - the seeds above include such hands
        pytest.fail("no hand with deadwood over the knock limit")
    move = Knock(position=positions[0], melds=())
    opened = [p for p in positions if p not in mover.session._public]
    body = {"move": move.to_dict(), "open": mover.session._deck.make_open(opened)}
    _refused(other, forge(mover, "move", body, at=other.session), IllegalRemoteMove,
             "illegal")
