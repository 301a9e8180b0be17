"""Take-back: a person playing a computer asks it to take back its own last moves.

The request is signed at the position it is made but never logged by itself; the
computer's ``takeback_answer`` logged at that very position carries its signature
(PROTOCOL.md §4). A grant replays the hand without the retracted moves, which is
possible because a hand is a pure fold of its moves; never across a move the deck had
to serve (a stock draw: that card has been seen), and only at a table of two.
"""

from __future__ import annotations

from dataclasses import replace

from p2pgin.engine.errors import IllegalMoveError, RevealError
from p2pgin.engine.game import GameHand
from p2pgin.log.chain import Chain
from p2pgin.log.entry import Entry
from p2pgin.session.errors import Fault, Rule
from p2pgin.session.events import Event, TakeBackDone
from p2pgin.session.messages import TakeBackAnswer, TakeBackRequest
from p2pgin.session.seating import Seating
from p2pgin.session.state import Stage, TableState

__all__ = ["judge_takeback_answer", "takeback_plan", "takeback_request"]


def takeback_request(session: str, seq: int, prev: str, requester: int, moves: int,
                     sig: str) -> Entry:
    """The unlogged request a ``takeback_answer`` carries the signature of, rebuilt."""
    return Entry(session=session, seq=seq, prev=prev, sender=requester,
                 type=TakeBackRequest.TYPE, body=TakeBackRequest(moves=moves).to_body(),
                 sig=sig)



def takeback_plan(seating: Seating, state: TableState, requester: int, moves: int
                  ) -> tuple[int, GameHand] | str:
    """Where a take-back of ``requester``'s last ``moves`` moves cuts this hand and
    the hand replayed without the rest; or why it is refused."""
    if seating.seats != 2:
        return "take-back: only at a table of two"
    if not seating.bots[1 - requester]:
        return "take-back: only a computer opponent (hello with bot) grants one"
    hand, match = state.hand, state.match
    if state.stage is not Stage.PLAY or hand is None or match is None:
        return f"take-back: only during play (stage {state.stage.value})"
    own = [i for i, played in enumerate(state.moves) if played.seat == requester]
    if len(own) < moves:
        return f"take-back: {moves} move(s) asked, only {len(own)} of this hand"
    cut = own[-moves]
    if any(played.dealt for played in state.moves[cut:]):
        return ("take-back: never across a move the deck had to serve (a stock draw: "
                "that card has been seen)")
    try:
        replay = match.deal()
        for plan in hand.decks:
            for pos in plan.positions:
                card = hand.known(pos)
                if card is not None:
                    replay = replay.reveal(pos, int(card))
        for played in state.moves[:cut]:
            replay = replay.apply(played.move, played.seat)
    except (IllegalMoveError, RevealError) as exc:  # pragma: no cover - replayed before
        return f"take-back: the hand does not replay: {exc}"
    return cut, replay


def judge_takeback_answer(seating: Seating, chain: Chain, entry: Entry, msg: TakeBackAnswer,
                          state: TableState) -> tuple[TableState, tuple[Event, ...]]:
    """What a computer seat's answer to a take-back request does, checked: it answers
    another seat's request signed at this very position, and the take-back is allowed.

    Raises:
        Fault: naming the computer seat (rule ``takeback``).
    """
    seat, requester = entry.sender, msg.requester
    if not seating.bots[seat] or requester == seat or requester >= seating.seats:
        raise Fault(seat, Rule.TAKEBACK, "only a computer seat answers another seat's "
                    "take-back request", entry=entry)
    request = takeback_request(seating.session_id, entry.seq, entry.prev, requester,
                               msg.moves, msg.request_sig)
    if not chain.authentic(request):
        raise Fault(seat, Rule.TAKEBACK, "takeback_answer does not carry the requester's "
                    "signed request made at this position", entry=entry)
    plan = takeback_plan(seating, state, requester, msg.moves)
    if isinstance(plan, str):
        raise Fault(seat, Rule.TAKEBACK, plan, entry=entry)
    cut, replay = plan
    if not msg.grant:
        return state, (TakeBackDone(requester=requester, granted=False,
                                    detail="refused by the computer opponent"),)
    retracted = len(state.moves) - cut
    new = replace(state, hand=replay, moves=state.moves[:cut])
    return new, (TakeBackDone(requester=requester, granted=True, retracted=retracted),)
