"""Take-back: a person playing a computer asks it to take back its own last moves.

The request is signed at the position it is made but never logged by itself; the
computer's ``takeback_answer`` logged at that very position carries its signature
(PROTOCOL.md §4). A grant replays the hand without the retracted moves, which is
possible because a hand is a pure fold of its moves; only at a table of two, never
across a move the deck had to serve (a stock draw: that card has been seen), and never
across a move that showed the requester a card it could not see before (the other
side's discard, knock, layoffs or melds: what was seen cannot be unseen). A card taken
from the discard pile was public already: taking it shows nothing.

Every refusal has a typed reason (:class:`TakeBackRefusal`): the requester's own
session refuses to ask (:class:`TakeBackRefusedError`), and a computer seat answers a
request it may not grant with a logged refusal that every seat reads the same reason
from (a modified program that asks anyway learns why, and cannot ask again at the very
next position).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from p2pgin.engine.errors import IllegalMoveError, RevealError
from p2pgin.engine.game import GameHand
from p2pgin.log.chain import Chain
from p2pgin.log.entry import Entry
from p2pgin.session.errors import Fault, LocalProtocolError, Rule
from p2pgin.session.events import Event, TakeBackDone, TakeBackRefusal
from p2pgin.session.messages import TakeBackAnswer, TakeBackRequest
from p2pgin.session.seating import Seating
from p2pgin.session.state import Stage, TableState

__all__ = [
    "PendingTakeBack",
    "Refused",
    "TakeBackRefusal",
    "TakeBackRefusedError",
    "judge_takeback_answer",
    "refused_just_now",
    "takeback_plan",
    "takeback_request",
]


@dataclass(frozen=True, slots=True)
class PendingTakeBack:
    """A take-back request waiting for its answer: the signed request (never logged) and
    the seat that asked (mine, or the person's a computer seat answers)."""

    request: Entry
    requester: int


@dataclass(frozen=True, slots=True)
class Refused:
    """Why a take-back is not allowed: the typed ``reason`` and a sentence for people."""

    reason: TakeBackRefusal
    text: str

    def __str__(self) -> str:
        return self.text


class TakeBackRefusedError(LocalProtocolError):
    """This seat asked for a take-back the protocol refuses (nothing was sent)."""

    def __init__(self, refused: Refused) -> None:
        super().__init__(refused.text)
        self.refused = refused


def takeback_request(session: str, seq: int, prev: str, requester: int, moves: int,
                     sig: str) -> Entry:
    """The unlogged request a ``takeback_answer`` carries the signature of, rebuilt."""
    return Entry(session=session, seq=seq, prev=prev, sender=requester,
                 type=TakeBackRequest.TYPE, body=TakeBackRequest(moves=moves).to_body(),
                 sig=sig)



def takeback_plan(seating: Seating, state: TableState, requester: int, moves: int
                  ) -> tuple[int, GameHand] | Refused:
    """Where a take-back of ``requester``'s last ``moves`` moves cuts this hand and
    the hand replayed without the rest; or why it is refused."""
    if seating.seats != 2:
        return Refused(TakeBackRefusal.TABLE, "take-back: only at a table of two")
    if not seating.bots[1 - requester]:
        return Refused(TakeBackRefusal.PERSON,
                       "take-back: only a computer opponent (hello with bot) grants one")
    hand, match = state.hand, state.match
    if state.stage is not Stage.PLAY or hand is None or match is None:
        return Refused(TakeBackRefusal.STAGE,
                       f"take-back: only during play (stage {state.stage.value})")
    own = [i for i, played in enumerate(state.moves) if played.seat == requester]
    if len(own) < moves:
        return Refused(TakeBackRefusal.MOVES,
                       f"take-back: {moves} move(s) asked, only {len(own)} of this hand")
    cut = own[-moves]
    if any(played.dealt for played in state.moves[cut:]):
        return Refused(TakeBackRefusal.DECK, "take-back: never across a move the deck had "
                       "to serve (a stock draw: that card has been seen)")
    try:
        replay = match.deal()
        for plan in hand.decks:
            for pos in plan.positions:
                card = hand.known(pos)
                if card is not None:
                    replay = replay.reveal(pos, int(card))
        for played in state.moves[:cut]:
            replay = replay.apply(played.move, played.seat)
        kept, later = replay, replay
        for played in state.moves[cut:]:
            if played.seat != requester and later.opens(played.move, played.seat):
                return Refused(TakeBackRefusal.SHOWN, "take-back: never across a move that "
                               "showed you a card (a discard, knock or layoff of the other "
                               "side: what was seen cannot be unseen)")
            later = later.apply(played.move, played.seat)
    except (IllegalMoveError, RevealError) as exc:  # pragma: no cover - replayed before
        return Refused(TakeBackRefusal.STAGE, f"take-back: the hand does not replay: {exc}")
    return cut, kept


def refused_just_now(chain: Chain, requester: int) -> bool:
    """Whether the log's last entry refuses ``requester`` a take-back: a computer seat
    answers one request per position, so a refused one is not asked again at once (a
    program that asks anyway cannot grow the log with refusals)."""
    if not len(chain):
        return False
    last = chain[len(chain) - 1]
    return (last.type == TakeBackAnswer.TYPE and last.body.get("requester") == requester
            and not last.body.get("grant"))


def judge_takeback_answer(seating: Seating, chain: Chain, entry: Entry, msg: TakeBackAnswer,
                          state: TableState) -> tuple[TableState, tuple[Event, ...]]:
    """What a computer seat's answer to a take-back request does, checked: it answers
    another seat's request signed at this very position, and a grant is allowed (a
    refusal always is: it changes nothing, and says the protocol's reason if it has one).

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
    if isinstance(plan, Refused):
        if msg.grant:
            raise Fault(seat, Rule.TAKEBACK, plan.text, entry=entry)
        # NB: a refusal of a take-back the protocol refuses anyway: every seat reads the
        # same reason from the log
        return state, (TakeBackDone(requester=requester, granted=False,
                                    detail=plan.text.removeprefix("take-back: "),
                                    refusal=plan.reason),)
    cut, replay = plan
    if not msg.grant:
        return state, (TakeBackDone(requester=requester, granted=False,
                                    detail="refused by the computer opponent"),)
    retracted = len(state.moves) - cut
    new = replace(state, hand=replay, moves=state.moves[:cut])
    return new, (TakeBackDone(requester=requester, granted=True, retracted=retracted),)
