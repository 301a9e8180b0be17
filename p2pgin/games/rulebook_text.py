"""The rule book's sections the rules screen shows: GENERATED from
docs/rules.md by tools/gen_rulebook.py (do not edit; run the tool).
"""

from __future__ import annotations

from typing import Final

__all__ = ["SECTIONS"]

SECTIONS: Final[dict[str, tuple[str, ...]]] = {
    '## 3. The deal': (
        ('The dealer deals ten cards to each player, one at a time, starting with the '
         'other player (the non-dealer). The next card, face up, is the upcard: the '
         'first card of the discard pile. The rest, face down, is the stock.'),
    ),
    '## 4. The upcard': (
        'The non-dealer moves first and may take the upcard or pass.',
        ('Whoever takes the upcard then discards a different card, and play continues '
         "with the other player's turn."),
        'If the non-dealer passes, the dealer may take it or pass.',
        ('If both pass, the non-dealer starts by drawing from the stock (not the '
         'upcard), and play carries on normally.'),
    ),
    '## 5. A turn': (
        ('A turn is: draw one card (the top of the stock or the top of the discard '
         'pile), then either discard one card face up or end the hand by knocking.'),
        ('A card taken from the discard pile this turn (the upcard included) may not '
         'be discarded this same turn; a card drawn from the stock may.'),
        'A player can only discard or meld cards from their own hand.',
        ('Moves are only accepted from the player whose turn it is, and every move is '
         'checked before it changes anything (the other peer is not trusted).'),
    ),
    '## 6. Knocking': (
        ('After drawing, a player whose deadwood, with one card discarded, is at most '
         'the knock limit may knock: the card goes face down, and the player lays out '
         "their melds. What is not in a declared meld is the knocker's deadwood and "
         'must be within the limit.'),
        ("Declared melds must be real sets or runs of the knocker's own cards, without "
         'overlap.'),
        'Knocking is allowed on the very last permitted turn (see stock exhaustion).',
    ),
    "## 7. The defender's answer and layoffs": (
        ('After a knock the other player (the defender) lays out their own melds and '
         "may lay off deadwood cards onto the knocker's melds: the fourth card of a "
         'three-card set, or the next card at either end of a run.'),
        ('Layoffs may chain: 7♥ then 8♥ onto 4♥5♥6♥. Each card goes to one place only. '
         'A chained card is declared after the card it rests on.'),
    ),
    '## 8. Gin and big gin': (
        ('Knocking with zero deadwood is gin. The defender still lays out its own '
         'melds but may not lay off anything.'),
        ('Big gin (option big_gin): after drawing, all eleven cards form melds; the '
         'player declares them without discarding. Without the option it is refused '
         '(the player can still go gin by discarding one card).'),
    ),
    '## 9. Scoring a hand': (
        ("Knock: if the defender's deadwood after layoffs is higher than the "
         "knocker's, the knocker scores the difference."),
        ("Undercut: if the defender's count is equal to or lower than the knocker's, "
         'the defender scores the undercut bonus plus the difference.'),
        ("Gin: the knocker scores the gin bonus plus the defender's deadwood (own "
         'melds only, no layoffs). A gin cannot be undercut.'),
        "Big gin: the big-gin bonus (31) plus the defender's deadwood.",
        ('Every finished hand carries a line-by-line explanation of its score, e.g. '
         '"Player 0 knocks with 6 (…). Player 1 melds …, laid off 7♥ on 4♥5♥6♥, left '
         'with 15 (5♣ K♦). Knocker scores 15 − 6 = 9." The console may re-render it '
         "with the players' names."),
        ('Every random legal hand ends in a consistent state: all 52 cards accounted '
         'for and the score equal to a from-scratch recomputation.'),
    ),
    '## 10. Running out of stock': (
        ('When a player draws from the stock leaving only two cards there, and then '
         'discards instead of knocking, the hand is void: nobody scores and the same '
         'dealer deals again.'),
        ("Nothing else limits a hand's length: two players who only ever take the top "
         'of the discard pile never shorten the stock. The engine does not forbid this '
         '(no standard rule does); a computer player must not repeat a take-and-throw '
         'cycle forever.'),
    ),
    '## 11. The match': (
        'Hand points add up; the first player to reach the target wins the match.',
        ('The winner of a hand deals the next one (option winner_deals=False: the '
         'loser does).'),
        ('At the end, each player gets a box bonus for every hand they won. Boxes do '
         'not count toward the target. The winner gets the game bonus.'),
        ('Shutout: if the loser scored no hand points, the game bonus is doubled '
         '(option shutout="hand_points": the winner\'s hand points are doubled instead; '
         '"none": nothing).'),
        ('The match result itemises hand points, boxes, game bonus, shutout bonus and '
         'totals.'),
    ),
    '### Oklahoma': (
        ("The upcard's value is the hand's knock limit: its number for two to ten, 10 "
         'for a picture card. An ace upcard means only gin may end the hand (limit 0).'),
        ('A spade upcard doubles everything the hand scores: the difference and any '
         'gin, big-gin or undercut bonus. Box bonuses are counted per hand won at the '
         'end of the match and are not doubled; the game and shutout bonuses are not '
         'affected.'),
        'The match target is 150.',
    ),
    '## 17. Three players: cutthroat (`gin3`)': (
        ('Two seats play each hand; the third deals it and sits it out. This is the '
         'rotation described at <http://ginrummy.com/partnership.html> (the dealer '
         'deals to the other two and does not play; the winner plays the previous '
         'dealer; the loser deals next); the scoring and settlement follow the '
         'cutthroat rule of <https://rummyrulebook.com/pages/cutthroat-gin-rummy/> '
         '(first to 100, game bonus, a box per hand won, each player pays the '
         'difference in score to each opponent, a shut-out player pays the winner an '
         "extra game bonus). Seats sit clockwise in seat order: seat s's left is seat "
         's + 1 (mod 3).'),
        ('The hand. The dealer deals to the two others and holds no cards: the seat on '
         "the dealer's left receives first (the even positions) and moves first, the "
         'third seat receives the odd positions. The deck is shuffled by the two '
         "players only (the one receiving second, then the one on the dealer's left); "
         'the dealer holds no layer of it and is never dealt or disclosed a hidden '
         'card. Between the two players the hand is two-player gin, sections 3-10.'),
        ('The next hand. The loser of a hand deals the next one and sits it out; the '
         'winner plays the seat that sat out. (Option winner_deals does not apply.)'),
        ('A void hand scores nothing and is dealt again by the same dealer to the same '
         'two seats.'),
        ('Scores are individual; the first seat whose hand points reach the target '
         '(100) wins the match.'),
        ("Settlement. At the end every seat's *score* is its hand points plus a box "
         'bonus per hand it won, plus the game bonus for the winner. Each pair '
         'settles: seat a against seat b gets score[a] − score[b], and a seat that '
         'scored no hand points (shut out) also pays the winner the shutout bonus '
         "(option shutout: game_bonus the game bonus, hand_points the winner's hand "
         "points, none nothing), separately for each shut-out seat. A seat's net "
         'result is the sum against both others; the nets add up to zero. The result '
         "lists hand points, boxes, bonuses, each seat's total (its score plus the "
         "shutout bonuses it collects), every pair's settlement and the nets, line by "
         'line. Example: hand points 20, 105, 0 with 2, 3, 0 hands won and seat 1 the '
         'winner give scores 70, 280, 0; seat 2 is shut out and pays seat 1 100; seat '
         '0 against seat 1 is −210, seat 0 against seat 2 +70, seat 1 against seat 2 '
         '+380; nets −140, +590, −450.'),
        "First dealer: from the table's seed as in section 16 (modulo 3), or given.",
        ('The sitting-out dealer moving is refused (sitting-out), and so is a player '
         'moving out of turn (out-of-turn); a result of another hand is refused by the '
         'match (wrong-hand).'),
        ("Results explain themselves with the seats' names: the hand's gin scoring and "
         'who deals and sits out next.'),
    ),
    '## 18. Four players: team gin (`team_gin`)': (
        ('Two teams of two, partners opposite: team 0 is seats 0 and 2, team 1 seats 1 '
         'and 3. Every hand is two separate two-handed gin games played at the same '
         'time, each player against an opponent of the other team. The scoring follows '
         'the partnership gin of '
         '<http://www.rummy-games.com/rules/partnership-gin-rummy.html> (one score per '
         "team, partners' results combined, game to 125, boxes for the team, partners "
         'opposite alternating opponents) and '
         '<http://www.bicyclecards.com/card-games/rule/partnership-rummy> (the winners '
         'of a hand deal the next; drawn hands are not replayed).'),
        ("Pairings. Game 0 is seat 0's game, game 1 seat 2's. In hands 0, 2, 4, ... "
         'seat 0 plays seat 1 and seat 2 plays seat 3; in hands 1, 3, 5, ... seat 0 '
         'plays seat 3 and seat 2 plays seat 1.'),
        ('Decks. Game g is dealt from its own deck g (engine positions 0..51 and '
         "52..103), shuffled by that game's two players only, its dealer first; each "
         "deck's positions 0..19 go to its game's players by parity and its position "
         '20 (engine 20 and 72) is shown to everyone. A seat holds no layer of the '
         "other game's deck: it sees its own game (its cards and the public ones) and "
         'only the public cards of the other game.'),
        ('Dealers. One team deals both games of a hand: in each game its member deals, '
         "the other player receives first and moves first. The first dealer's team "
         '(section 16, modulo 4) deals the first hand; then the team that won a hand '
         'deals the next (option winner_deals=False: the team that lost it); after a '
         'hand nobody won the same team deals again.'),
        ("Turns. One seat moves at a time. Game 0 starts; a player's consecutive moves "
         'in its game are one turn (a draw and its discard, taking the upcard and the '
         'discard after it, a pass, a knock, a declaration); after a move that passes '
         'the turn to the other player of its game, or ends the game, the other game '
         'moves if it is still running. A finished game drops out and the other goes '
         'on alone; the hand ends when both have ended.'),
        ("Moves name engine positions of their own game's deck (a knock in game 1 "
         'names positions 52..103); a move that names none (a draw, the upcard) '
         "belongs to the mover's game. A move naming the other deck's positions is "
         'refused (other-game), positions of both decks or of none are malformed '
         '(MoveFormatError).'),
        ("A hand's team score. Each game is scored as two-player gin (gin, big-gin and "
         "undercut bonuses and Oklahoma's doubling belong to that game). When every "
         'game won was won by one team, that team wins the hand and scores the results '
         'added; when each team won a game, the team with the larger result wins the '
         'hand and scores the difference; equal results score nothing. A void game '
         'scores nothing and is not replayed (the other game counts alone; both void: '
         'nothing). The team that wins the hand gets a box. A claimed team score that '
         'does not follow this is refused (team-score).'),
        ("The match is two-player gin's (section 11) with the teams as players: team "
         'hand points to the target, 125 (TeamGin.preset()), a box per hand won, the '
         'game bonus, the shutout bonus when the losing team scored no hand points. '
         "Each seat's total is its team's."),
        "Results explain both games and the team score with the seats' names.",
        'A match refuses a result of another hand (wrong-hand).',
    ),
    '### 15.1 Cards and melds': (
        ('Ranks low to high A 2 3 4 5 6 7 8 9 10 J Q K; aces are low unless a '
         'variation says otherwise. A card counts its pips, an ace 1, ten, jack, queen '
         'and king 10.'),
        'A set is three or four cards of one rank.',
        ('A run is three or more cards of one suit in consecutive ranks (A 2 3 is a '
         'run).'),
    ),
    '### 15.2 The first dealer and the deal': (
        ("The first dealer is drawn from the table's 32-byte seed (the coin toss every "
         'seat agreed on): each seat in order draws a card from a deck shuffled by the '
         'seed, and the high card deals. Ranks count aces low; equal ranks are settled '
         'by suit, spades over hearts over diamonds over clubs. The draw is exact: the '
         'deck is the cards 0..51 in index order (suit * 13 + rank, clubs diamonds '
         'hearts spades, ace..king); seat 0, then 1, ... takes the card at index u of '
         'the n cards left, where u = w mod n for the next 32-bit word w below 2^32 - '
         '(2^32 mod n) of the stream SHA-256("p2pgin/rummy/first-dealer/v1" || seed || '
         'b), b = 0, 1, ... as 8 bytes big-endian, each digest read as eight '
         'big-endian words.'),
        ("The tie rule is fair: every seat's card is uniformly random and the order "
         '(rank, then suit) is total, so each seat deals first with chance 1/N.'),
        'A rematch may name the first dealer instead.',
        'After each round the deal passes to the left.',
        ('Deal: two players 10 cards each, three or four players 7, five or six '
         'players 6.'),
        ('The dealer deals one card at a time, starting with the player to the left. '
         'The next card is turned face up to start the discard pile; the rest is the '
         'stock. In engine positions (card i of deck d is 52*d + i): position j < N*k '
         'goes to seat (dealer + 1 + j) mod N, position N*k is the upcard, the stock '
         'is drawn from N*k + 1 upwards.'),
        "The player to the dealer's left plays first; play goes to the left.",
    ),
    '### 15.3 A turn': (
        ('A turn: draw the top card of the stock or of the discard pile; then '
         'optionally lay down one meld; then optionally lay off any number of cards '
         "onto melds on the table, anyone's; then discard one card."),
        ('A lay-off is the fourth card of a three-card set or the next card at either '
         'end of a run; a lay-off that fits nothing is refused (invalid-layoff).'),
        ('A meld that is not a set or a run is refused (invalid-meld); so is a second '
         'meld in one turn (second-meld) unless the multiple melds variation is on.'),
        ("The order is the rule's: a meld after a lay-off in the same turn is refused "
         '(meld-after-lay-off). This never costs a player anything: a meld uses only '
         "the player's own cards, so it can always come first."),
        ('Melds on the table are never rearranged: each move adds a meld or one card '
         'to one meld, and nothing leaves the table.'),
        ('A card taken from the discard pile may not be discarded in the same turn '
         '(discard-taken-card); later turns may, and a card drawn from the stock may '
         'go at once.'),
        ('The turn can always end: a meld or lay-off that would leave only the card '
         'just taken from the pile (which may not be discarded) is refused '
         '(stranded-taken-card), unless that card can then be laid off to go out.'),
        ('Only the seat to move may move (out-of-turn); a move must suit the phase '
         "(wrong-phase) and name cards of the mover's own hand (not-in-hand). Every "
         'move is checked, and a refused move changes nothing.'),
        ('legal_moves lists every legal move (every meld and lay-off the rules allow, '
         'every discard), and every move it lists is accepted.'),
    ),
    '### 15.4 Running out of stock': (
        ('When the stock runs out, the discard pile is turned over, not shuffled, to '
         'form the new stock. Precisely: right after the discard that ends a turn in '
         'which the last stock card was drawn, every card of the pile but that discard '
         "becomes the stock, the pile's bottom card (the upcard, the first time) on "
         "top; the discard just made stays face up as the new pile. The stock's "
         'positions keep their cards, which everyone has seen, so a draw from it '
         'discloses nothing new.'),
        'The stock is renewed this way as often as it runs out.',
        ('A stalled round is blocked (the one guard, so that a round always ends; '
         'normal play does not meet it): when the stock runs out at the end of the '
         'sixth whole stock in a row (STALLED_STOCKS; the dealt stock counts, then '
         'each renewed one) during which no card left any hand by a meld or a lay-off, '
         'the round ends at that discard: nobody went out, nobody scores, nobody '
         'shows, and the deal passes to the left. A run of up to five quiet stocks '
         'does not count against a round. Without the guard a round can go on for '
         'ever: with "discard final card", players holding one or two cards while the '
         'table takes none of the other cards can never go out. With it a round ends, '
         'since every meld or lay-off moves a card to the table for good. (As in gin, '
         'players who only ever take the discard never shorten the stock; the engine '
         'does not forbid that.) How often bots meet the guard: bench/rummy_bots.py '
         '(docs/performance.md, "Rummy bots").'),
    ),
    '### 15.5 Going out and scoring': (
        ('A player left with no cards after melding and laying off goes out at once, '
         'without discarding; a player who discards the last card goes out too.'),
        ('After someone goes out, every other player shows the cards left in hand, in '
         "turn from the winner's left (Show, which the session plays by itself), and "
         'then the round is scored.'),
        ('The player who went out wins the round and scores the total count of every '
         "other player's cards."),
        ('Every round carries a line-by-line explanation of its score, which the '
         "console may re-render with the players' names."),
        ('Points add up over rounds until a player reaches the target (100 by '
         'default); the match result itemises every round and the totals.'),
        ('Random legal play of every combination of the variations at every table size '
         'ends in consistent rounds: 52 cards conserved, no card in two places, every '
         "meld on the table a meld, the score equal to the reference's."),
    ),
    '### 15.6 Variations': (
        ('Multiple melds (multiple_melds): a player may lay down more than one meld in '
         'a turn.'),
        ('Aces high or low (aces_high_or_low): an ace may end a run (Q K A) or start '
         'it (A 2 3), never both at once: K A 2 is not a run. An ace still counts 1.'),
        ('Discard any card (discard_any_card): the card just taken from the pile may '
         'be discarded at once.'),
        ('Discard final card (discard_final_card): a player goes out only by '
         'discarding the last card; a meld or lay-off that would leave no card is '
         'refused (must-keep-discard).'),
        ('Shuffle the stock (shuffle_stock): the pile (all but the discard just made) '
         'is shuffled by every seat, proven, before it becomes the stock: the round '
         'gets a new deck (DeckPlan: the next deck index, every seat shuffles, cards = '
         "the pile's cards from the bottom up) whose positions 52*d + i form the "
         'stock; a draw from it is disclosed to the drawer only.'),
        ('Reverse scoring (reverse_scoring): every player but the winner scores the '
         'count of their own cards, the winner nothing; when a total reaches the '
         'target, the lowest total wins, and seats tied for the lowest share the win.'),
        ('Rummy scores double (rummy_doubles): a player who goes out in one turn '
         'without having laid down any card (meld or lay-off) in an earlier turn of '
         "the round scores double; with reverse scoring the others' counts are "
         'doubled. Without the variation a rummy is noted in the explanation and '
         'scores single.'),
        ('Presets: basic (every variation off, target 100), also named straight and '
         'traditional. target (1..100000) is the total that ends the match.'),
    ),
}
