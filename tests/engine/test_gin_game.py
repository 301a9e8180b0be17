"""Two-player gin through the table contract: the engine's own game, seat for player."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine import (
    Defence,
    Discard,
    DrawDiscard,
    DrawStock,
    HandOverError,
    HandState,
    Knock,
    MatchError,
    MatchState,
    MoveFormatError,
    OutOfTurnError,
    PassUpcard,
    Rules,
    TakeUpcard,
    propose_layoff,
)
from p2pgin.engine.game import Disclosure, Game, GameHand, GameMatch
from p2pgin.engine.gin_common import FIRST_DEALER_TAG, first_dealer_from_seed
from p2pgin.engine.gin_game import GinGame, GinHand, GinMatch
from tests.engine.engine_play import check_terminal, make_deck
from tests.engine.gin_table_checks import check_entitlement
from tests.engine.table_play import play_table_match

PRESETS = [Rules.preset(name, big_gin=big) for name in ("standard", "classic", "oklahoma")
           for big in (False, True)]


def full_hand(hand: GinHand, deck: list[int]) -> GinHand:
    for pos, card in enumerate(deck):
        hand = hand.reveal(pos, card)
    return hand


@settings(max_examples=15, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), shuffle=st.integers(0, 2**32),
       rules=st.sampled_from(PRESETS))
def test_two_player_matches_through_the_contract_equal_the_engine_used_directly(
    seed: bytes, shuffle: int, rules: Rules
) -> None:
    game = GinGame(rules)
    played = play_table_match(game, seed, random.Random(shuffle))
    match = played.match
    assert isinstance(match, GinMatch)
    direct = MatchState.new(rules, first_dealer_from_seed("gin", seed, 2))
    for record in played.hands:
        state = HandState.deal(rules, direct.dealer, record.decks[0])
        for seat, move in record.moves:
            state = state.apply(move, seat)
        check_terminal(state)
        assert state.result == record.result
        assert record.referee is not None
        assert state.history == record.referee.state.history  # type: ignore[attr-defined]
        direct = direct.record(state.result)  # type: ignore[arg-type]
    assert match.state == direct
    assert match.result().result == direct.result()
    assert match.result().winners == (direct.winner,)
    assert match.result().totals == direct.result().totals


def test_the_first_dealer_is_one_bit_of_a_tagged_hash_of_the_seed() -> None:
    dealers = set()
    for i in range(64):
        seed = hashlib.sha256(i.to_bytes(4, "big")).digest()
        digest = hashlib.sha256(FIRST_DEALER_TAG + b"\x00gin\x00" + seed).digest()
        expected = digest[7] & 1
        assert GinGame().new_match(seed).dealer == expected
        dealers.add(expected)
    assert dealers == {0, 1}


def test_a_rematch_names_its_first_dealer_and_a_bad_seed_or_dealer_is_refused() -> None:
    seed = bytes(32)
    drawn = GinGame().new_match(seed).dealer
    assert GinGame().new_match(seed, first_dealer=1 - drawn).dealer == 1 - drawn
    for bad in (2, -1, True, "0"):
        with pytest.raises(MatchError):
            GinGame().new_match(seed, first_dealer=bad)  # type: ignore[arg-type]
    for seed_bad in (b"", bytes(31), bytes(33), "x" * 32):
        with pytest.raises(MatchError):
            GinGame().new_match(seed_bad)  # type: ignore[arg-type]


def test_one_deck_shuffled_by_the_dealer_then_the_non_dealer_and_the_deal_by_parity() -> None:
    for dealer in (0, 1):
        hand = GinGame().new_match(bytes(32), first_dealer=dealer).deal()
        assert hand.players == (0, 1)
        (plan,) = hand.decks
        assert plan.deck == 0 and plan.players == (dealer, 1 - dealer)
        assert plan.cards == tuple(range(52))
        deal = hand.opening_deal
        assert deal[:20] == tuple(
            Disclosure(position=p, to=dealer if p % 2 else 1 - dealer) for p in range(20))
        assert deal[20:] == (Disclosure(position=20, to=None),)
        assert hand.to_move == 1 - dealer and hand.forced_move() is None
        assert isinstance(hand, GameHand)


def test_the_contract_types_are_met() -> None:
    game = GinGame()
    match = game.new_match(bytes(32))
    assert isinstance(game, Game) and isinstance(match, GameMatch)
    assert game.name == "gin" and game.seats == 2
    assert Rules.from_dict(game.rules_dict()) == game.rules
    assert GinGame.from_rules_dict(game.rules_dict()) == game


def test_moves_come_from_their_wire_form_and_bad_ones_are_refused() -> None:
    game = GinGame()
    move = Knock(position=3, melds=((1, 5, 7),))
    assert game.move_from_dict(move.to_dict()) == move
    for bad in ({"move": "discard", "position": 52}, {"move": "fly"}, ["discard"], None):
        with pytest.raises(MoveFormatError):
            game.move_from_dict(bad)  # type: ignore[arg-type]


# Non-dealer (seat 0, dealer seat 1). After drawing 6H (22) the non-dealer melds
# AC2C3C 5H5S5D 6H7H8H and knocks with 2S, discarding KD (18); the dealer lays off 4C (1)
# and 9H (3).
DECK = make_deck(
    non_dealer="AC 2C 3C 5H 5S 5D 7H 8H 2S KD",
    dealer="4C 9H JH 2D 3H 4S 6S 8C TD QC",
    upcard="KS",
    stock="QD 6H",
)
KNOCK = Knock(position=18, melds=((0, 2, 4), (6, 8, 10), (12, 14, 22)))


def test_openings_a_discard_its_card_a_knock_eleven_a_layoff_ten_and_a_draw_is_private() -> None:
    hand = full_hand(GinGame().new_match(bytes(32), first_dealer=1).deal(), DECK)
    assert hand.opens(PassUpcard(), 0) == () and hand.disclosures(PassUpcard(), 0) == ()
    hand = hand.apply(PassUpcard(), 0).apply(PassUpcard(), 1)
    assert hand.disclosures(DrawStock(), 0) == (Disclosure(position=21, to=0),)
    assert hand.opens(DrawStock(), 0) == ()
    hand = hand.apply(DrawStock(), 0)
    assert hand.disclosures(DrawStock(), 0) == ()  # not the draw phase: nothing
    assert hand.opens(Discard(position=21), 0) == (21,)
    assert hand.opens(Discard(position=1), 0) == ()  # not the mover's card
    hand = hand.apply(Discard(position=21), 0)
    # the dealer takes the public QD: a pile draw opens and discloses nothing
    assert hand.opens(DrawDiscard(), 1) == () and hand.disclosures(DrawDiscard(), 1) == ()
    hand = hand.apply(DrawDiscard(), 1)
    hand = hand.apply(Discard(position=19), 1)
    hand = hand.apply(DrawStock(), 0)  # 6H
    assert hand.opens(KNOCK, 0) == (*range(0, 20, 2), 22)
    hand = hand.apply(KNOCK, 0)
    layoff = propose_layoff(hand.state)
    assert set(hand.state.hand_of(1)) == {*range(1, 19, 2), 21}
    assert hand.opens(layoff, 1) == tuple(range(1, 19, 2))  # 21 (QD) is public already
    assert sorted(p for p, _ in layoff.layoffs) == [1, 3]
    hand = hand.apply(layoff, 1)
    assert hand.over and hand.to_move is None
    assert hand.result is not None and hand.result.kind == "knock" and hand.result.winner == 0


def test_a_move_out_of_turn_or_after_the_hand_is_refused_by_name() -> None:
    hand = full_hand(GinGame().new_match(bytes(32), first_dealer=1).deal(), DECK)
    for method in (hand.apply, hand.opens, hand.disclosures):
        with pytest.raises(OutOfTurnError):
            method(TakeUpcard(), 1)
        with pytest.raises(OutOfTurnError):
            method(TakeUpcard(), 2)
    hand = hand.apply(PassUpcard(), 0).apply(PassUpcard(), 1).apply(DrawStock(), 0)
    hand = hand.apply(Discard(position=21), 0).apply(DrawDiscard(), 1)
    hand = hand.apply(Discard(position=19), 1).apply(DrawStock(), 0)
    hand = hand.apply(KNOCK, 0).apply(Defence(), 1)
    assert hand.over
    for method in (hand.apply, hand.opens, hand.disclosures):
        with pytest.raises(HandOverError):
            method(DrawStock(), 0)


def test_a_seat_learns_its_own_cards_its_draws_and_public_cards_only() -> None:
    for i in range(4):
        played = play_table_match(GinGame(PRESETS[i]), bytes([i]) * 32, random.Random(i),
                                  check=check_entitlement)
        assert played.match.over


def test_the_public_positions_a_seated_game_keeps_are_the_engines_at_every_step() -> None:
    rng = random.Random(11)
    for i in range(150):
        hand = GinGame(PRESETS[i % len(PRESETS)]).new_match(bytes(32), first_dealer=i % 2).deal()
        deck = list(range(52))
        rng.shuffle(deck)
        hand = full_hand(hand, deck)
        while not hand.over:
            assert hand.game.public == hand.state.public_positions()
            seat = hand.to_move
            assert seat is not None
            moves = hand.legal_moves()
            move = next((m for m in moves if isinstance(m, Knock)), None)
            if move is None or rng.random() < 0.5:
                move = rng.choice(moves)
            hand = hand.apply(move, seat)
        assert hand.game.public == hand.state.public_positions()
