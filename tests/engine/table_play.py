"""Test helper: play whole matches of any :class:`Game` the way the match machine will.

One full-knowledge *referee* hand knows every card (its decks are shuffled here); each
seat and one spectator keep their own :class:`GameHand` that learns a card only when the
contract says so: the opening deal's disclosures, a move's openings (public), and a
move's disclosures (to one seat or to all). Every step checks that all observers agree
(whose turn, what a move opens and discloses, the result) and that no observer knows a
card it was not given or holds a wrong identity. What an observer was given is recorded
so a test can compare it with what the rules entitle that seat to see.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from p2pgin.engine import BigGin, Knock, Move
from p2pgin.engine.game import Disclosure, Game, GameHand, GameMatch, HandOutcome, position

__all__ = [
    "Chooser",
    "HandRecord",
    "MatchRecord",
    "play_table_match",
    "random_chooser",
]

Chooser = Callable[[GameHand, int, random.Random], Move]
"""Picks the move of ``seat`` from that seat's own hand (what it knows), given an rng."""

HandCheck = Callable[[GameHand, list[GameHand], list[set[int]]], None]
"""Called at the end of every hand with the referee, the observers and what each was
given (knowledge only grows, so the end shows anything learnt on the way)."""


def random_chooser(hand: GameHand, seat: int, rng: random.Random) -> Move:
    """Uniform over the seat's legal moves, but knock (when offered) most of the time."""
    moves = hand.legal_moves()
    assert moves, f"seat {seat} has no legal move in {hand!r}"
    knocks = [m for m in moves if isinstance(getattr(m, "move", m), Knock | BigGin)]
    if knocks and rng.random() < 0.7:
        return rng.choice(knocks)
    return rng.choice(moves)


@dataclass
class HandRecord:
    """One hand as played: the shuffled decks, the moves, the result."""

    decks: dict[int, list[int]]
    moves: list[tuple[int, Move]] = field(default_factory=list)
    result: HandOutcome | None = None
    referee: GameHand | None = None
    given: list[set[int]] = field(default_factory=list)


@dataclass
class MatchRecord:
    """A whole match: its hands and the final match (every observer agreed on it)."""

    hands: list[HandRecord]
    match: GameMatch


def _shuffle(hand: GameHand, decks: dict[int, list[int]], rng: random.Random) -> GameHand:
    """Shuffle every deck of ``hand`` not shuffled yet; the referee learns every card."""
    for plan in hand.decks:
        if plan.deck in decks:
            continue
        order = list(plan.cards)
        rng.shuffle(order)
        decks[plan.deck] = order
        for index, card in enumerate(order):
            hand = hand.reveal(position(plan.deck, index), card)
    return hand


def play_table_match(
    game: Game,
    seed: bytes,
    rng: random.Random,
    choose: Chooser = random_chooser,
    *,
    first_dealer: int | None = None,
    check: HandCheck | None = None,
    max_hands: int = 400,
    max_moves: int = 2000,
) -> MatchRecord:
    """Play one match of ``game`` to its end through the contract only.

    Observers are seats ``0..seats-1`` and a spectator (index ``seats``).
    """
    n = game.seats
    referee_match = game.new_match(seed, first_dealer=first_dealer)
    matches = [game.new_match(seed, first_dealer=first_dealer) for _ in range(n + 1)]
    hands: list[HandRecord] = []
    while not referee_match.over:
        assert len(hands) < max_hands, "the match does not end"
        record = HandRecord(decks={})
        referee = referee_match.deal()
        observers = [m.deal() for m in matches]
        for o in observers:
            assert o.players == referee.players and o.decks == referee.decks
            assert o.opening_deal == referee.opening_deal and o.to_move == referee.to_move
        referee = _shuffle(referee, record.decks, rng)
        given: list[set[int]] = [set() for _ in observers]

        _disclose(referee.opening_deal, referee, observers, given)
        moves = 0
        while not referee.over:
            moves += 1
            assert moves <= max_moves, "the hand does not end"
            seat = referee.to_move
            assert seat is not None and all(o.to_move == seat for o in observers)
            move = choose(observers[seat], seat, rng)
            opens = referee.opens(move, seat)
            disclosures = referee.disclosures(move, seat)
            for o in observers:
                assert o.opens(move, seat) == opens
                assert o.disclosures(move, seat) == disclosures
            for pos in opens:  # NB: the mover's openings: its cards made public
                assert pos in given[seat], f"seat {seat} opens {pos}, which it never saw"
            _disclose(tuple(Disclosure(position=p, to=None) for p in opens), referee,
                      observers, given)
            decks_before = len(referee.decks)
            referee = referee.apply(move, seat)
            observers[:] = [o.apply(move, seat) for o in observers]
            if len(referee.decks) > decks_before:
                referee = _shuffle(referee, record.decks, rng)
            _disclose(disclosures, referee, observers, given)
            record.moves.append((seat, move))
        # NB: knowledge only grows, so a leak at any step still shows at the end
        _check_knowledge(referee, observers, given)
        if check is not None:
            check(referee, observers, given)
        result = referee.result
        assert result is not None
        for o in observers:
            assert o.over and o.result is not None
            assert o.result.to_dict() == result.to_dict()
        record.result = result
        record.referee = referee
        record.given = given
        hands.append(record)
        referee_match = referee_match.record(result)
        matches = [m.record(o.result) for m, o in zip(matches, observers, strict=True)]  # type: ignore[arg-type]
    final = referee_match.result().to_dict()
    assert all(m.over and m.result().to_dict() == final for m in matches)
    return MatchRecord(hands=hands, match=referee_match)


def _disclose(items: tuple[Disclosure, ...], referee: GameHand, observers: list[GameHand],
              given: list[set[int]]) -> None:
    """Reveal each item's card to its seat's observer (``to=None``: to every observer)."""
    for item in items:
        card = referee.known(item.position)
        assert card is not None
        targets = range(len(observers)) if item.to is None else (item.to,)
        for t in targets:
            observers[t] = observers[t].reveal(item.position, card)
            given[t].add(item.position)


def _check_knowledge(referee: GameHand, observers: list[GameHand], given: list[set[int]]) -> None:
    """Every observer knows exactly what it was given, each identity the referee's."""
    positions = [p for plan in referee.decks for p in plan.positions]
    for o, mine in zip(observers, given, strict=True):
        for p in positions:
            card = o.known(p)
            if p in mine:
                assert card is not None and card == referee.known(p)
            else:
                assert card is None, f"an observer knows position {p} it was never given"
