"""A proven log told step by step, as a spectator saw it: what ``p2pgin replay`` shows.

Protocol v2 never reveals a hand's whole deck, so a replay cannot show every card: it
shows what the table showed, the public moves and public cards, each hand's showdown
(the melds and deadwood its result gives), and the scores. The steps come from the
verification itself: :func:`tell` runs :func:`p2pgin.records.verifier.verify_bytes`
with a watcher that records, for every entry the match machine commits, the public hand
the machine holds after it (no rule is re-implemented here; the machine and the games
decide everything). Only a record that verifies is told (:attr:`Story.ok`).

A story is a list of :class:`Step`: a hand dealt (``index`` 0), then each move (and
each take-back) of the hand, numbered from 1; the step that ends a hand carries its
result, the step that ends a match its outcome; rematch offers and an ending are steps
of their own. :meth:`Story.lines` is the plain replay: a line per step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.errors import IllegalMoveError, RevealError
from p2pgin.engine.gin_common import SeatedGin, SeatedResult
from p2pgin.engine.gin_team import TeamHand, TeamHandResult, TeamMove
from p2pgin.engine.gin_three import CutthroatHand, CutthroatHandResult
from p2pgin.engine.hand import HandResult
from p2pgin.engine.rummy_hand import RummyHand
from p2pgin.engine.rummy_score import RummyRoundResult
from p2pgin.records.report import Report, display_names, explain, printable
from p2pgin.records.verifier import Walked, verify_bytes
from p2pgin.session.endings import Ending
from p2pgin.session.events import (
    Ended,
    HandEnded,
    HandStarted,
    MatchEnded,
    MatchStarted,
    MoveMade,
    RematchAnswered,
    RematchOffered,
    TakeBackDone,
)

__all__ = ["ShowRow", "Step", "Story", "meld_text", "showdown", "table_scores", "tell"]

_DEAL: Final = "deal"
_MOVE: Final = "move"


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """The table after one thing happened.

    Attributes:
        kind: ``deal`` (a hand dealt), ``move``, ``takeback``, ``rematch`` (an offer or
            an answer), ``ending`` (an ``end`` entry, or a refuted claim).
        match_no, hand_no: where it happened (``hand_no`` 0: no hand yet).
        index: 0 for a hand's deal (and steps outside a hand), then 1, 2, ... per step
            of the hand.
        seat: who did it (``None``: nobody in particular).
        text: one sentence for people (cards in Unicode: ``10♦``).
        hand: the game's hand as the public knows it after this step, or ``None``.
        scores: the match's points toward its target after this step, per seat.
        result: the hand's result, on the step that ended the hand.
        outcome: the match's outcome, on the step that ended the match.
        ending: the ending, on an ``ending`` step.
    """

    kind: str
    match_no: int
    hand_no: int
    index: int
    seat: int | None
    text: str
    hand: Any = None
    scores: tuple[int, ...] = ()
    result: Any = None
    outcome: Any = None
    ending: Ending | None = None

    @property
    def in_hand(self) -> bool:
        """A step of a hand (its deal, a move, a take-back, an ending that cut it)."""
        return self.index > 0 or self.kind == _DEAL


@dataclass(frozen=True, slots=True, kw_only=True)
class ShowRow:
    """One seat at a showdown: what it showed (``what``: "knocked", "went out", ...),
    its melds, the cards it laid off on others' melds, its deadwood and their count."""

    seat: int
    what: str
    melds: tuple[tuple[Card, ...], ...] = ()
    laid_off: tuple[Card, ...] = ()
    deadwood: tuple[Card, ...] = ()
    count: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Story:
    """A verified record and its steps (empty when it does not verify: only a proven
    game is told)."""

    report: Report
    steps: tuple[Step, ...] = ()
    names: tuple[str, ...] = ()
    game: str = ""
    target: int | None = None

    @property
    def ok(self) -> bool:
        """The record verifies (a finished match, an upheld ending, a refuted claim)."""
        return self.report.ok

    @property
    def hands(self) -> tuple[int, ...]:
        """The numbers of the hands dealt, in order."""
        return tuple(s.hand_no for s in self.steps if s.kind == _DEAL)

    def first_step(self, hand_no: int) -> int | None:
        """The index in :attr:`steps` of hand ``hand_no``'s deal, if it was dealt."""
        return next((i for i, s in enumerate(self.steps)
                     if s.kind == _DEAL and s.hand_no == hand_no), None)

    def lines(self, hand_no: int | None = None, *,
              under: Callable[[Step], list[str]] | None = None) -> list[str]:
        """The plain replay: a line per step, each hand's scoring under its last move,
        the match's under the step that ends it, an ending with its details. With
        ``hand_no``, that hand only; ``under(step)``: lines to print under each step
        (a player's own cards)."""
        out: list[str] = []
        for step in self.steps:
            if hand_no is not None and (step.hand_no != hand_no or not step.in_hand):
                continue
            numbered = step.index and step.kind != "ending"
            out.append(f"  {step.index}. {step.text}" if numbered else step.text)
            if under is not None:
                out += under(step)
            if step.result is not None:
                out += [f"    {line}" for line in explain(step.result, self.names)]
            if step.outcome is not None and hand_no is None:
                out.append(f"Match {step.match_no}: {self.report.match_headline(step.outcome)}")
                out += [f"    {line}" for line in explain(step.outcome, self.names)]
            if step.ending is not None:
                out += [f"    {printable(line)}" for line in step.ending.details(self.names)[1:]]
        return out


def table_scores(match: Any) -> tuple[int, ...]:
    """A match's points toward its target, per seat (a team's for both partners)."""
    teams = getattr(match, "teams", None)
    if teams is not None:
        t = teams.scores
        return (t[0], t[1], t[0], t[1])
    state = getattr(match, "state", None)
    if state is not None and hasattr(state, "scores"):
        return tuple(state.scores)
    for name in ("scores", "totals"):
        value = getattr(match, name, None)
        if value is not None:
            return tuple(value)
    return tuple(match.result().totals)


def meld_text(cards: Sequence[Card]) -> str:
    """Cards as one word: ``5♦6♦7♦``."""
    return "".join(c.unicode for c in cards)


def _cards(cards: Sequence[Card | None]) -> str:
    return " ".join(c.unicode for c in cards if c is not None)


def _gin_rows(hand: HandResult, seats: Sequence[int]) -> tuple[ShowRow, ...]:
    if hand.kind == "void" or hand.knocker is None:
        return ()
    knocker, defender = hand.knocker, 1 - hand.knocker
    what = {"gin": "went gin", "big_gin": "went big gin"}.get(hand.kind, "knocked")
    return (
        ShowRow(seat=seats[knocker], what=what, melds=hand.knocker_melds,
                deadwood=hand.knocker_deadwood_cards, count=hand.knocker_deadwood),
        ShowRow(seat=seats[defender], what="showed", melds=hand.defender_melds,
                laid_off=tuple(card for card, _ in hand.layoffs),
                deadwood=hand.defender_deadwood_cards, count=hand.defender_deadwood),
    )


def showdown(result: Any, seats: int) -> tuple[tuple[str, tuple[ShowRow, ...]], ...]:
    """A hand's showdown as its result gives it: per game of the hand (one, or two in
    team gin) a title and what each seat showed. A void or blocked hand shows nothing."""
    if isinstance(result, TeamHandResult):
        return tuple((f"Game {g}", _gin_rows(game.hand, game.seats))
                     for g, game in enumerate(result.games))
    if isinstance(result, CutthroatHandResult):
        return (("", _gin_rows(result.game.hand, result.game.seats)),)
    if isinstance(result, SeatedResult):
        return (("", _gin_rows(result.hand, result.seats)),)
    if isinstance(result, HandResult):
        return (("", _gin_rows(result, tuple(range(seats)))),)
    if isinstance(result, RummyRoundResult):
        if result.winner is None:
            return (("", ()),)
        rows = [ShowRow(seat=result.winner, what="went out", count=0)]
        rows += [ShowRow(seat=s, what="held", deadwood=result.hands[s], count=result.counts[s])
                 for s in result.show_order]
        return (("", tuple(rows)),)
    return ()


# --------------------------------------------------------------------------- telling


def _dealer_text(hand: Any, who: Callable[[int | None], str]) -> str:
    """Who deals and who plays, for a hand's first line."""
    if isinstance(hand, TeamHand):
        team = hand.dealing_team
        games = ", ".join(f"{who(g.seats[0])} against {who(g.seats[1])}" for g in hand.games)
        return f"{who(team)} & {who(team + 2)} deal; {games}"
    if isinstance(hand, CutthroatHand):
        a, b = hand.players
        return f"{who(hand.dealer)} deals and sits out; {who(a)} plays {who(b)}"
    if isinstance(hand, RummyHand):
        return f"{who(hand.dealer)} deals"
    seated: tuple[SeatedGin, ...] = getattr(hand, "games", ())
    if seated:
        return f"{who(seated[0].dealer_seat)} deals"
    return "dealt"


def _first_face_up(hand: Any) -> str:
    """The card the deal shows (gin's upcard, Rummy's first discard)."""
    if isinstance(hand, RummyHand):
        top = hand.discard_top
        card = None if top is None else hand.known(top)
        return "" if card is None else f"; the first discard is {card.unicode}"
    cards = [g.state.upcard for g in getattr(hand, "games", ())]
    shown = [c.unicode for c in cards if c is not None]
    if not shown:
        return ""
    return f"; the upcard{'s are' if len(shown) > 1 else ' is'} {' and '.join(shown)}"


def _gin_game(hand: Any, seat: int, move: Any) -> tuple[SeatedGin | None, Any, str]:
    """The seated gin game a move is played in, the gin move itself, and a note naming
    the game when the hand has two."""
    games = getattr(hand, "games", ())
    if isinstance(move, TeamMove):
        inner = move.move
        if move.deck is not None:
            return games[move.deck], inner, f" (game {move.deck})"
        for g, game in enumerate(games):
            if game.player_of(seat) is not None:
                return game, inner, f" (game {g})"
        return None, inner, ""
    return (games[0] if games else None), move, ""


def _seen(hand: Any, pos: int | None) -> str:
    """The card at ``pos`` as the table knows it in ``hand`` ("?" if it does not)."""
    known = None if pos is None else hand.known(pos)
    return "?" if known is None else known.unicode


def _gin_text(before: Any, after: Any, seat: int, move: Any, who: str) -> str:
    """A gin move for a spectator: the card it moved when the table saw it."""
    game, inner, note = _gin_game(before, seat, move)
    if game is None:
        return f"{who}: {inner.kind.replace('_', ' ')}{note}"
    state = game.state
    game_after = None
    for g in getattr(after, "games", ()):
        if g.seats == game.seats and g.deck == game.deck:
            game_after = g
    seen = game_after.state if game_after is not None else state
    kind = inner.kind

    def card(pos: int | None, where: Any = seen) -> str:
        return _seen(where, pos)

    def melds(ms: Sequence[Sequence[int]]) -> str:
        return " ".join("".join(card(p) for p in meld) for meld in ms)

    top = state.discard_top
    if kind == "pass_upcard":
        return f"{who} passes the upcard {card(top, state)}{note}"
    if kind == "take_upcard":
        return f"{who} takes the upcard {card(top, state)}{note}"
    if kind == "draw_discard":
        return f"{who} takes {card(top, state)} from the discard pile{note}"
    if kind == "draw_stock":
        return f"{who} draws from the stock{note}"
    if kind == "discard":
        return f"{who} discards {card(inner.position)}{note}"
    if kind == "knock":
        return (f"{who} knocks, melds {melds(inner.melds)}, and discards "
                f"{card(inner.position)} face down{note}")
    if kind == "big_gin":
        return f"{who} goes big gin: {melds(inner.melds)}{note}"
    if kind == "lay_off":
        shown = melds(inner.melds) or "no melds"
        laid = " ".join(card(p) for p, _ in inner.layoffs)
        return (f"{who} shows {shown}" + (f" and lays off {laid}" if laid else "")
                + note)
    return f"{who}: {kind.replace('_', ' ')}{note}"


def _rummy_text(before: RummyHand, after: Any, seat: int, move: Any,
                who: str) -> str:
    seen = after if after is not None else before
    kind = move.kind

    def card(pos: int | None, where: Any = seen) -> str:
        return _seen(where, pos)

    if kind == "draw_stock":
        return f"{who} draws from the stock"
    if kind == "draw_discard":
        return f"{who} takes {card(before.discard_top, before)} from the discard pile"
    if kind == "meld":
        return f"{who} melds {''.join(card(p) for p in move.positions)}"
    if kind == "lay_off":
        meld = before.table[move.meld] if move.meld < len(before.table) else None
        onto = "" if meld is None else "".join(card(p, before) for p in meld.positions)
        return f"{who} lays off {card(move.position)} on {onto or 'a meld'}"
    if kind == "discard":
        out = " and goes out" if after is not None and after.went_out == seat else ""
        return f"{who} discards {card(move.position)}{out}"
    if kind == "show":
        cards = " ".join(card(p) for p in before.hand_of(seat))
        return f"{who} shows {cards or 'nothing'}"
    return f"{who}: {kind.replace('_', ' ')}"


def _after(before: Any, seat: int, move: Any, opened: dict[int, Any]) -> Any:
    """The hand once ``move`` is applied, as the machine applied it (the opened cards
    revealed first); ``None`` if the game refuses (it never does for a proven move)."""
    hand = before
    try:
        for pos, card in opened.items():
            hand = hand.reveal(pos, card)
        return hand.apply(move, seat)
    except (IllegalMoveError, RevealError):  # pragma: no cover - the machine applied this very move
        return None


@dataclass(slots=True)
class _Teller:
    """The watcher: turns each committed entry's events into steps."""

    names: tuple[str, ...]
    steps: list[Step] = field(default_factory=list)
    match_no: int = 0
    index: int = 0

    def who(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def add(self, walked: Walked, kind: str, text: str, *, seat: int | None = None,
            hand: Any = None, index: int | None = None) -> None:
        state = walked.machine.state
        match = state.match
        self.steps.append(Step(
            kind=kind, match_no=self.match_no, hand_no=walked.before.hand_no
            if kind != _DEAL else state.hand_no, index=self.index if index is None else index,
            seat=seat, text=printable(text), hand=hand,
            scores=() if match is None else table_scores(match)))

    def attach(self, **fields: Any) -> None:
        """Set fields of the last step (a move that ended a hand, a match)."""
        last = self.steps[-1]
        self.steps[-1] = Step(**{**{f: getattr(last, f) for f in Step.__dataclass_fields__},
                                 **fields})

    def __call__(self, walked: Walked) -> None:
        machine, before = walked.machine, walked.before
        ended_hand = any(isinstance(e, HandEnded) for e in walked.events)
        for event in walked.events:
            match event:
                case MatchStarted(match_no=number):
                    self.match_no = number
                case HandStarted(hand_no=number):
                    hand = machine.state.hand
                    self.index = 0
                    self.add(walked, _DEAL, f"Hand {number}: "
                             f"{_dealer_text(hand, self.who)}{_first_face_up(hand)}",
                             hand=hand, index=0)
                case MoveMade(seat=seat, move=move, opened=opened):
                    hand = (_after(before.hand, seat, move, opened) if ended_hand
                            else machine.state.hand)
                    self.index += 1
                    who = self.who(seat)
                    if isinstance(before.hand, RummyHand):
                        text = _rummy_text(before.hand, hand, seat, move, who)
                    else:
                        text = _gin_text(before.hand, hand, seat, move, who)
                    self.add(walked, _MOVE, text, seat=seat, hand=hand)
                case TakeBackDone(requester=requester, granted=granted, retracted=n,
                                  detail=detail):
                    self.index += 1
                    asker, answer = self.who(requester), self.who(walked.entry.sender)
                    text = (f"{answer} grants {asker}'s take-back: {n} move"
                            f"{'s' if n != 1 else ''} taken back" if granted
                            else f"{answer} does not take back: {detail or 'refused'}")
                    self.add(walked, "takeback", text, seat=walked.entry.sender,
                             hand=machine.state.hand)
                case HandEnded(result=result):
                    self.attach(result=result)
                case MatchEnded(result=result):
                    self.attach(outcome=result)
                case RematchOffered(seat=seat):
                    self.add(walked, "rematch", f"{self.who(seat)} offers a rematch",
                             seat=seat, index=0)
                case RematchAnswered(seat=seat, accept=accept):
                    self.add(walked, "rematch", f"{self.who(seat)} "
                             f"{'accepts' if accept else 'declines'}", seat=seat, index=0)
                case Ended(ending=ending):
                    # NB: an ending that cut a hand is the last step of that hand
                    cut = before.hand is not None and self.index > 0
                    self.add(walked, "ending", "Ended: " + ending.headline(self.names),
                             seat=ending.by, hand=before.hand,
                             index=self.index + 1 if cut else 0)
                    self.attach(ending=ending)
                case _:
                    pass


def tell(data: bytes) -> Story:
    """Verify a transcript or game file (bytes) and tell it step by step.

    Raises:
        Unreadable: no p2pgin record at all (:func:`p2pgin.records.sniff.sniff`).
    """
    teller = _Teller(names=())
    names: list[tuple[str, ...]] = []

    def watch(walked: Walked) -> None:
        if not names:
            names.append(display_names(walked.machine.seating.names))
            teller.names = names[0]
        teller(walked)

    report = verify_bytes(data, watch=watch)
    if not report.ok:
        return Story(report=report)
    steps = list(teller.steps)
    refuted = report.refuted
    if refuted is not None:
        cut = bool(steps) and steps[-1].in_hand and steps[-1].hand_no == refuted.hand_no
        steps.append(Step(kind="ending", match_no=teller.match_no,
                          hand_no=refuted.hand_no, index=steps[-1].index + 1 if cut else 0,
                          seat=refuted.seat,
                          text=printable(f"Ended: {report.who(refuted.seat)} ended the match "
                                         f"with a false {refuted.kind} claim, refuted by the "
                                         "log"),
                          hand=None, scores=steps[-1].scores if steps else ()))
    target = report.rules.get("target")
    return Story(report=report, steps=tuple(steps), names=report.names, game=report.game,
                 target=target if isinstance(target, int) else None)
