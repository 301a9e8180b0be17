"""The declaration editor's ``m`` visits only places a card can legally go (issue 23,
bug 10): the engine's own tests of a meld (``is_meld``) and of a layoff
(``check_layoffs``) decide; the editor writes none of the rules.

``m`` put A♣ onto a knocker's 4♣ 4♥ 4♠ and showed "deadwood 10"; Enter then refused
with the engine's message in ASCII card codes, cut at the screen's edge.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine import CARDS, IllegalMeldError, Layoff, check_layoffs, is_meld, parse_cards
from p2pgin.games.gin.arrange import Arrangement, destinations, move_card, place_of
from p2pgin.ui.style import card_labels_in


def _defender(hand: str, theirs: list[str], melds: list[str] = ()) -> Arrangement:  # type: ignore[assignment]
    return Arrangement.start("layoff", parse_cards(hand),
                             melds=[parse_cards(m) for m in melds],
                             theirs=[parse_cards(m) for m in theirs])


def test_an_ace_is_never_laid_off_on_a_set_of_fours() -> None:
    arrangement = _defender("AC 3D 5H 7C QH JS KH 2H 4D 6D", ["4C 4H 4S", "8C 9C TC"])
    ace, four, seven = parse_cards("AC 4D 7C")
    assert destinations(arrangement, ace) == []  # it can go nowhere but where it is
    moved, where = move_card(arrangement, ace)
    assert (moved, where) == (arrangement, "")
    assert destinations(arrangement, four) == ["their meld 1"]
    assert destinations(arrangement, seven) == ["their meld 2"]
    moved, where = move_card(arrangement, four)
    assert where == "their meld 1" and moved.deadwood_value == arrangement.deadwood_value - 4


def test_a_card_goes_into_a_meld_it_completes_or_one_being_built_not_any_meld() -> None:
    hand = parse_cards("7C 7D 7H 7S 4H 5H 6H 8H AC 2C")
    knock = Arrangement.start("knock", hand, melds=[parse_cards("7C 7D 7S"),
                                                    parse_cards("4H 5H 6H 7H 8H")])
    four = parse_cards("4H")[0]
    # 4♥ into the 7s: no meld. A new meld: 4♥ can start one (with 5♥ 6♥). Deadwood: yes.
    assert destinations(knock, four) == ["new meld", "deadwood"]
    seven = parse_cards("7H")[0]
    assert destinations(knock, seven) == ["new meld", "deadwood", "meld 1"]  # cycle order
    started, where = move_card(knock, four)  # a meld being built: 5♥ may join it
    assert where == "meld 3"
    five = parse_cards("5H")[0]
    assert "meld 3" in destinations(started, five)
    assert "meld 1" not in destinations(started, five)  # not into the 7s


def test_gin_has_no_deadwood_to_move_a_card_to() -> None:
    hand = parse_cards("7C 7D 7H 4H 5H 6H 8H 9H 2C 2D")
    gin = Arrangement.start("gin", [*hand, parse_cards("2S")[0]],
                            melds=[parse_cards("7C 7D 7H"), parse_cards("4H 5H 6H 8H 9H"),
                                   parse_cards("2C 2D 2S")])
    assert all(place != "deadwood" for card in hand for place in destinations(gin, card))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(CARDS), min_size=10, max_size=10, unique=True),
       st.integers(0, 9), st.integers(1, 12))
def test_every_place_m_visits_is_one_the_engine_takes(cards: list, pick: int, presses: int
                                                     ) -> None:
    # the defender's hand against a knocker's set of fours and a run of clubs (cards of
    # the hand that the knocker holds are left out)
    theirs = [parse_cards("4C 4H 4S"), parse_cards("8C 9C TC")]
    held = [c for c in cards if c not in {*theirs[0], *theirs[1]}]
    if not held:
        return
    arrangement = Arrangement.start("layoff", held, theirs=theirs)
    card = held[pick % len(held)]
    for _ in range(presses):
        arrangement, where = move_card(arrangement, card)
        if not where:
            break
        assert where == place_of(arrangement, card)
        if where.startswith("their meld "):
            try:
                check_layoffs(theirs, (), [Layoff(c, i) for c, i in arrangement.laid], held)
            except IllegalMeldError as exc:  # pragma: no cover - the failure shown
                raise AssertionError(f"m laid {card} off illegally: {exc}") from None
        elif where.startswith("meld "):
            meld = arrangement.melds[int(where.split()[1]) - 1]
            if len(meld) >= 3:
                assert is_meld(meld), meld


def test_engine_words_use_the_screen_card_symbols() -> None:
    text = "layoff AC does not extend 4C 4H 4S: a set takes the fourth card of its rank"
    assert card_labels_in(text) == ("layoff A♣ does not extend 4♣ 4♥ 4♠: a set takes the "
                                    "fourth card of its rank")
    assert card_labels_in("meld TD JD QD", ascii=True) == "meld TD JD QD"
    assert card_labels_in("as 10S and TS go") == "as 10♠ and 10♠ go"  # words stay words
