"""Test helpers for Rummy: decks from readable hands, random play, a referee that runs the
match machine's loop over N observers, and a from-scratch check of a finished round.

The referee plays ``engine/game.py``'s loop literally: every observer (each seat and a
spectator) starts from a round that knows nothing and learns only what the deck would
tell it: the opening deal's disclosures to it or to all, the positions a move opens
(before the move is applied), and the disclosures after it. A reshuffled stock is
"shuffled" here with the test's own random generator, known only to the referee.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from p2pgin.bots.rummy_referee import RummyTable
from p2pgin.engine.cards import parse_cards
from p2pgin.engine.moves import Move
from p2pgin.engine.rummy import (
    Discard,
    LayOff,
    Meld,
    RummyHand,
    RummyPhase,
    RummyRoundResult,
    RummyRules,
    deal_size,
)
from testkit.rummy_variants import ALL_RULES, shuffle_new_decks
from tests.engine.rummy_reference import (
    ref_count,
    ref_is_meld,
    ref_round_points,
    ref_stock_story,
)

__all__ = [
    "ALL_RULES",
    "Policy",
    "Referee",
    "check_stock_story",
    "check_terminal",
    "live_cards",
    "make_deck",
    "play_round",
    "random_policy",
    "shuffle_new_decks",
]

Policy = Callable[[RummyHand, tuple[Move, ...], random.Random], Move]

def make_deck(seats: int, dealer: int, hands: Sequence[str], upcard: str,
              stock: str = "") -> list[int]:
    """Deck 0 in position order from readable hands: ``hands[s]`` is seat ``s``'s cards
    (dealt one at a time from the dealer's left), then the upcard, then ``stock`` in
    drawing order, then the remaining cards in index order."""
    size = deal_size(seats)
    parsed = [parse_cards(h) for h in hands]
    assert len(parsed) == seats and all(len(h) == size for h in parsed), "wrong hand sizes"
    deck = [0] * (seats * size)
    for seat, cards in enumerate(parsed):
        for j, card in enumerate(cards):
            deck[j * seats + (seat - dealer - 1) % seats] = card
    deck += [*parse_cards(upcard), *parse_cards(stock)]
    used = set(deck)
    assert len(used) == len(deck), "a card appears twice"
    deck += [c for c in range(52) if c not in used]
    return deck


def random_policy(state: RummyHand, moves: tuple[Move, ...], rng: random.Random) -> Move:
    """Uniform over the legal moves, but a meld or lay-off (when offered) 70 % of the
    time, so rounds end in a few hundred moves."""
    down = [m for m in moves if isinstance(m, Meld | LayOff)]
    if down and rng.random() < 0.7:
        return rng.choice(down)
    return rng.choice(moves)


def play_round(
    rules: RummyRules,
    seats: int,
    rng: random.Random,
    policy: Policy = random_policy,
    *,
    dealer: int | None = None,
    deck: Sequence[int] | None = None,
    max_moves: int = 20_000,
) -> tuple[RummyHand, list[Move]]:
    """One full-knowledge round to the end; returns the final state and the moves."""
    if deck is None:
        shuffled = list(range(52))
        rng.shuffle(shuffled)
        deck = shuffled
    if dealer is None:
        dealer = rng.randrange(seats)
    state = RummyHand.deal(rules, seats, dealer, deck)
    moves: list[Move] = []
    while not state.over:
        options = state.legal_moves()
        move = policy(state, options, rng)
        decks = len(state.decks)
        state = state.apply(move)
        state = shuffle_new_decks(state, decks, rng)
        moves.append(move)
        assert len(moves) < max_moves, "the round did not end"
    return state, moves


def live_cards(state: RummyHand) -> dict[int, int]:
    """Every live position of a full-knowledge round -> its card (hands, stock, pile,
    table); asserts no position is in two places."""
    places: list[int] = []
    for seat in range(state.seats):
        places += state.hand_of(seat)
    places += state.stock
    places += state.discard_pile
    for meld in state.table:
        places += meld.positions
    assert len(places) == len(set(places)), "a position is in two places"
    out = {}
    for p in places:
        card = state.known(p)
        assert card is not None
        out[p] = int(card)
    return out


def check_conservation(state: RummyHand) -> None:
    """All 52 cards, each in exactly one live place (full-knowledge states)."""
    cards = live_cards(state)
    assert sorted(cards.values()) == list(range(52)), "cards not conserved"


def check_stock_story(states: Sequence[RummyHand]) -> None:
    """The stock, the pile, the renewals and a stall of ``states`` (a round after each of
    its moves, in order, the last with the whole history) agree with the reference's
    story of the moves."""
    last = states[-1]
    moves = [(p.seat, p.move.kind, len(p.move.positions) if isinstance(p.move, Meld) else 1)
             for p in last.history]
    story = ref_stock_story(last.seats, deal_size(last.seats), moves)
    assert len(story) == len(moves)
    for state, step in zip(states, story[len(story) - len(states):], strict=True):
        assert (state.stock_count, len(state.discard_pile), state.renewals,
                state.blocked) == step, (len(state.history), step)


def check_terminal(state: RummyHand) -> RummyRoundResult:
    """Assert a finished round is consistent; recompute its score from scratch."""
    assert state.over and state.to_move is None and state.phase is RummyPhase.OVER
    result = state.result
    assert result is not None
    check_conservation(state)
    check_stock_story([state])
    rules = state.rules
    for meld in state.table:
        assert ref_is_meld([int(state.known(p)) for p in meld.positions],  # type: ignore[arg-type]
                           rules.aces_high_or_low)
    winner = state.went_out
    assert winner == result.winner
    if winner is None:  # blocked: a stalled round (the reference agreed above)
        assert state.blocked and result.out_by == "blocked"
        assert state.stock_count == 0 and len(state.discard_pile) >= 2
        assert result.renewals == state.renewals
        assert all(state.hand_size(s) for s in range(state.seats))
        assert result.points == (0,) * state.seats
        assert isinstance(state.history[-1].move, Discard)
        assert result.explanation
        return result
    assert state.hand_size(winner) == 0
    hands = [[int(c) for c in state.hand_cards(s)] for s in range(state.seats)]  # type: ignore[arg-type]
    for s in range(state.seats):
        assert sorted(hands[s]) == sorted(int(c) for c in result.hands[s])
        if s != winner:
            assert hands[s], "only the winner has no cards"
            assert result.counts[s] == ref_count(hands[s])
    # rummy: the winner's moves before its last turn include no meld or lay-off
    history = state.history
    last_turn_start = max(i for i, h in enumerate(history)
                          if h.seat == winner and h.move.kind in ("draw_stock", "draw_discard"))
    laid_before = any(h.seat == winner and isinstance(h.move, Meld | LayOff)
                      for h in history[:last_turn_start])
    assert result.rummy == (not laid_before)
    expected = ref_round_points(state.seats, winner, hands, reverse=rules.reverse_scoring,
                                rummy=result.rummy, rummy_doubles=rules.rummy_doubles)
    assert list(result.points) == expected
    last = history[len(history) - state.seats]  # the move that went out, before N-1 shows
    assert last.seat == winner
    assert result.out_by == {Discard: "discard", Meld: "meld", LayOff: "lay_off"}[type(last.move)]
    if rules.discard_final_card:
        assert result.out_by == "discard"
    assert result.show_order == tuple((winner + k) % state.seats for k in range(1, state.seats))
    assert result.explanation and all(isinstance(line, str) for line in result.explanation)
    return result


class Referee(RummyTable):
    """The bots' referee (a full-knowledge round, one view per seat, a spectator), with
    the contract's promises checked at every step."""

    def step(self, move: Move) -> None:
        """Play ``move`` for the seat to move, as the match machine would."""
        seat = self.full.to_move
        assert seat is not None
        opened = self.full.opens(move, seat)
        disclosures = self.full.disclosures(move, seat)
        for view in self.observers:  # every observer asks the same question, same answer
            assert view.disclosures(move, seat) == disclosures
            assert view.opens(move, seat) == opened
        super().step(move)
        for view in self.observers:
            assert view.decks == self.full.decks

    def check_no_leak(self) -> None:
        """Each observer knows exactly its own cards and the public ones."""
        for seat, view in enumerate(self.views):
            assert view.knowledge == self.full.view_for(seat).knowledge
        assert self.spectator.knowledge == self.full.view_for(None).knowledge
        public = self.full.public_positions
        for seat, view in enumerate(self.views):
            own = set(view.hand_of(seat))
            for pos, card in enumerate(view.knowledge):
                if card is not None:
                    assert pos in own or pos in public, (seat, pos)
        for view in self.observers:
            assert (view.phase, view.to_move, view.stock, view.discard_pile, view.table,
                    view.history) == (self.full.phase, self.full.to_move, self.full.stock,
                                      self.full.discard_pile, self.full.table,
                                      self.full.history)
