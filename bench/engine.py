"""Benchmark the rules engine: meld search speed and full random hands per second.

* ``best_melds_10_us`` / ``best_melds_11_us``: median µs per ``best_melds`` call over
  random hands (no cache), measured with ``bench/melds.py``'s ``median_us`` (batches of
  100 different hands, fastest of three repeats per batch).
* ``reference_10_us``: the brute-force reference (``testkit/gin_reference.py``) on the
  same kind of hands, in the same run.
* ``random_hands_per_s``: full-knowledge hands played to the end by a uniform random
  player over ``legal_moves`` (called at every step, knock options included), presets
  standard / classic / oklahoma in turn; batches of 50 hands, each replayed three times
  and the fastest kept. The same run times the floor: as many random choices as moves
  played, without the engine.
* ``rummy_random_rounds_per_s``: full-knowledge Rummy rounds at a four-seat table played
  to the end by a uniform random player over ``legal_moves`` (melds and lay-offs
  included), the 128 combinations of the variations in turn, a reshuffled stock's order
  drawn by the bench and revealed; batches of 20 rounds, each replayed three times and
  the fastest kept. Its floor, in the same run: as many random choices as moves played.
* ``table_hands_per_s_2`` / ``_3`` / ``_4``: hands of ``gin``, ``gin3`` and ``team_gin``
  played through the table contract (``p2pgin/engine/game.py``) the way the match
  machine drives one observer: every card revealed, then per move ``legal_moves``,
  ``opens``, ``disclosures`` and ``apply``, a uniform random player choosing. The floor,
  ``table_direct_hands_per_s_N``, is the same hands and moves on the engine's own
  ``HandState`` (``legal_moves`` + ``apply``; a four-player hand is two such games) in
  the same run; ``table_overhead_N`` is contract time over direct time. Batches of 50
  hands, fastest of three repeats per batch, as above.

    python bench/engine.py           # human-readable lines
    python bench/engine.py --json    # one JSON object
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from collections.abc import Callable

import _repo  # noqa: F401  (this checkout first on the import path: p2pgin, testkit)
from melds import median_us  # bench/melds.py

from p2pgin.engine import (
    CARDS,
    HandState,
    Move,
    Rules,
    apply,
    best_melds,
    legal_moves,
)
from p2pgin.engine.game import GameHand, position
from p2pgin.engine.gin_game import GinGame
from p2pgin.engine.gin_team import TeamGin, TeamHand, TeamMove
from p2pgin.engine.gin_three import CutthroatGin
from p2pgin.engine.rummy import RummyHand
from testkit.gin_reference import ref_best_melds
from testkit.rummy_variants import ALL_RULES, shuffle_new_decks

__all__ = ["main", "random_hands", "rummy_random_rounds", "table_hands"]

TABLE_GAMES = {2: "gin", 3: "gin3", 4: "team_gin"}
_SINGLE_GAMES = {2: GinGame, 3: CutthroatGin}  # four seats: TeamHand.deal

PRESETS = (Rules.preset("standard"), Rules.preset("classic"), Rules.preset("oklahoma"))


def _play_batch(decks: list[list[int]], first: int, seed: int) -> tuple[int, Counter[str]]:
    """Play one batch of hands with a uniform random player; (moves played, result kinds)."""
    choice = random.Random(seed).choice
    kinds: Counter[str] = Counter()
    moves_played = 0
    for i, deck in enumerate(decks, first):
        state = HandState.deal(PRESETS[i % 3], i & 1, deck)
        while not state.over:
            options: tuple[Move, ...] = legal_moves(state)
            state = apply(state, choice(options))
            moves_played += 1
        result = state.result
        assert result is not None
        kinds[result.kind] += 1
    return moves_played, kinds


Batch = Callable[[list[list[int]], int, int], tuple[int, Counter[str]]]


def _timed_batches(
    play: Batch, decks: list[list[int]], seed: int, batch: int
) -> tuple[float, float, int, Counter[str]]:
    """Play ``decks`` in batches; each batch timed three times, fastest kept.

    Returns (wall seconds, CPU seconds, moves played, outcomes) for all of them.
    Replaying a batch with the same decks and seed repeats exactly the same moves, so
    the fastest repeat is the engine's time with the least interference from other
    processes on this shared machine; CPU time (``time.process_time``) leaves out the
    time spent waiting for a core.
    """
    wall = cpu = 0.0
    moves_played = 0
    outcomes: Counter[str] = Counter()
    for first in range(0, len(decks), batch):
        chunk = decks[first:first + batch]
        best_wall = best_cpu = float("inf")
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            played, chunk_outcomes = play(chunk, first, seed + first)
            best_wall = min(best_wall, time.perf_counter() - t0)
            best_cpu = min(best_cpu, time.process_time() - c0)
        wall += best_wall
        cpu += best_cpu
        moves_played += played
        outcomes += chunk_outcomes
    return wall, cpu, moves_played, outcomes


def random_hands(
    count: int, seed: int, batch: int = 50
) -> tuple[float, float, int, Counter[str]]:
    """Play ``count`` gin hands (see :func:`_timed_batches`); outcomes are result kinds."""
    rng = random.Random(seed)
    decks = []
    for _ in range(count):
        deck = list(range(52))
        rng.shuffle(deck)
        decks.append(deck)
    return _timed_batches(_play_batch, decks, seed, batch)


def _play_rummy_batch(
    decks: list[list[int]], first: int, seed: int
) -> tuple[int, Counter[str]]:
    """Play one batch of four-seat Rummy rounds at random; (moves played, outcomes)."""
    rng = random.Random(seed)
    choice = rng.choice
    outcomes: Counter[str] = Counter()
    moves_played = 0
    for i, deck in enumerate(decks, first):
        state = RummyHand.deal(ALL_RULES[i % len(ALL_RULES)], 4, i % 4, deck)
        while not state.over:
            known = len(state.decks)
            state = state.apply(choice(state.legal_moves()))
            if len(state.decks) > known:  # a reshuffled stock: the bench "shuffles" it
                state = shuffle_new_decks(state, known, rng)
            moves_played += 1
        result = state.result
        assert result is not None
        outcomes[result.out_by] += 1
    return moves_played, outcomes


def rummy_random_rounds(
    count: int, seed: int, batch: int = 20
) -> tuple[float, float, int, Counter[str]]:
    """Play ``count`` four-seat Rummy rounds (see :func:`_timed_batches`); outcomes are
    how the rounds ended."""
    rng = random.Random(seed)
    decks = [rng.sample(range(52), 52) for _ in range(count)]
    return _timed_batches(_play_rummy_batch, decks, seed, batch)


def _table_deal(seats: int, i: int) -> GameHand:
    """Hand ``i`` of a ``seats``-seat gin table (dealers and pairings vary with ``i``)."""
    if seats == 4:
        return TeamHand.deal(TeamGin.preset().rules, i, i % 2)
    game = _SINGLE_GAMES[seats](Rules())
    return game.new_match(bytes(32), first_dealer=i % seats).deal()


def _contract_batch(seats: int, decks: list[dict[int, list[int]]], first: int,
                    seed: int) -> list[tuple[GameHand, list[tuple[int, Move]]]]:
    """Play hands through the contract (one full-knowledge observer); the final hands
    and their moves."""
    choice = random.Random(seed).choice
    out = []
    for i, order in enumerate(decks, first):
        hand = _table_deal(seats, i)
        for plan in hand.decks:
            for index, card in enumerate(order[plan.deck]):
                hand = hand.reveal(position(plan.deck, index), card)
        played = []
        while not hand.over:
            seat = hand.to_move
            assert seat is not None
            move = choice(hand.legal_moves())
            hand.opens(move, seat)
            hand.disclosures(move, seat)
            hand = hand.apply(move, seat)
            played.append((seat, move))
        out.append((hand, played))
    return out


def _direct_batch(plans: list[tuple[list[tuple[int, list[int]]], list[tuple[int, int, Move]]]],
                  rules: Rules) -> None:
    """The same hands on the engine's own states: per move ``legal_moves`` + ``apply``."""
    for games, moves in plans:
        states = [HandState.deal(rules, dealer, deck) for dealer, deck in games]
        for g, player, move in moves:
            legal_moves(states[g])
            states[g] = apply(states[g], move, player)


def table_hands(seats: int, count: int, seed: int, batch: int = 50) -> tuple[float, float, int]:
    """(contract seconds, direct seconds, moves) for ``count`` hands of a table."""
    rng = random.Random(seed)
    decks = []
    for _ in range(count):
        order = {}
        for deck in range(2 if seats == 4 else 1):
            cards = list(range(52))
            rng.shuffle(cards)
            order[deck] = cards
        decks.append(order)
    rules = TeamGin.preset().rules if seats == 4 else Rules()
    contract = direct = 0.0
    moves_played = 0
    for first in range(0, count, batch):
        chunk = decks[first:first + batch]
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            played = _contract_batch(seats, chunk, first, seed + first)
            best = min(best, time.perf_counter() - t0)
        contract += best
        plans = []
        for (hand, moves), order in zip(played, chunk, strict=True):
            games = hand.games  # type: ignore[attr-defined]
            where = {seat: (g, game.player_of(seat)) for g, game in enumerate(games)
                     for seat in game.seats}
            local = [(*where[seat], m.move if isinstance(m, TeamMove) else m)
                     for seat, m in moves]
            plans.append(([(game.state.dealer, order[game.deck]) for game in games], local))
            moves_played += len(moves)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            _direct_batch(plans, rules)
            best = min(best, time.perf_counter() - t0)
        direct += best
    return contract, direct, moves_played


def _floor_seconds(moves_played: int, seed: int) -> float:
    """Seconds for the random choices alone (one per move, over 12-move lists)."""
    choice = random.Random(seed).choice
    options = tuple(range(12))
    t0 = time.perf_counter()
    for _ in range(moves_played):
        choice(options)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="emit one JSON object")
    parser.add_argument("-n", type=int, default=20000, help="random meld hands per size")
    parser.add_argument("--hands", type=int, default=3000, help="random hands per round")
    parser.add_argument("--rummy-rounds", type=int, default=640,
                        help="random four-seat Rummy rounds")
    parser.add_argument("--table-hands", type=int, default=600,
                        help="hands per table size through the contract")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    hands10 = [tuple(rng.sample(CARDS, 10)) for _ in range(args.n)]
    hands11 = [tuple(rng.sample(CARDS, 11)) for _ in range(args.n)]
    few = hands10[: max(100, args.n // 50)]

    elapsed, cpu, moves_played, kinds = random_hands(args.hands, args.seed)
    floor = _floor_seconds(moves_played, args.seed) / args.hands
    r_wall, r_cpu, r_moves, r_outcomes = rummy_random_rounds(args.rummy_rounds, args.seed)
    r_floor = _floor_seconds(r_moves, args.seed) / args.rummy_rounds
    results: dict[str, float | int | dict[str, int]] = {
        "best_melds_10_us": median_us(best_melds, hands10),
        "best_melds_11_us": median_us(best_melds, hands11),
        "reference_10_us": median_us(ref_best_melds, few, repeats=1),
        "random_hands_per_s": args.hands / elapsed,
        "random_hands_per_cpu_s": args.hands / cpu,
        "random_moves_per_hand": moves_played / args.hands,
        "random_us_per_move": elapsed / moves_played * 1e6,
        "random_choice_floor_hands_per_s": 1 / floor,
        "random_hand_kinds": dict(sorted(kinds.items())),
        "hands": args.hands,
        "n": args.n,
        "rummy_random_rounds_per_s": args.rummy_rounds / r_wall,
        "rummy_random_rounds_per_cpu_s": args.rummy_rounds / r_cpu,
        "rummy_random_moves_per_round": r_moves / args.rummy_rounds,
        "rummy_random_us_per_move": r_wall / r_moves * 1e6,
        "rummy_random_choice_floor_rounds_per_s": 1 / r_floor,
        "rummy_round_outcomes": dict(sorted(r_outcomes.items())),
        "rummy_rounds": args.rummy_rounds,
    }
    for seats in TABLE_GAMES:
        contract, direct, moves = table_hands(seats, args.table_hands, args.seed + seats)
        results[f"table_hands_per_s_{seats}"] = args.table_hands / contract
        results[f"table_direct_hands_per_s_{seats}"] = args.table_hands / direct
        results[f"table_overhead_{seats}"] = contract / direct
        results[f"table_moves_per_hand_{seats}"] = moves / args.table_hands
    results["table_hands"] = args.table_hands
    if args.json:
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v
                          for k, v in results.items()}))
        return
    r = results
    print(f"best_melds, 10 random cards:   {r['best_melds_10_us']:.2f} µs median per call")
    print(f"best_melds, 11 random cards:   {r['best_melds_11_us']:.2f} µs")
    print(f"brute-force reference, 10:     {r['reference_10_us']:.1f} µs")
    print(f"random full-knowledge hands:   {r['random_hands_per_s']:.0f} per second "
          f"({r['random_moves_per_hand']:.1f} moves per hand, "
          f"{r['random_us_per_move']:.2f} µs per legal_moves + apply)")
    print(f"  per CPU second (process time): {r['random_hands_per_cpu_s']:.0f}")
    print(f"floor (random choices alone):  {r['random_choice_floor_hands_per_s']:.0f} hands/s")
    print(f"hand outcomes: {r['random_hand_kinds']}")
    print(f"random Rummy rounds, 4 seats:  {r['rummy_random_rounds_per_s']:.0f} per second "
          f"({r['rummy_random_moves_per_round']:.1f} moves per round, "
          f"{r['rummy_random_us_per_move']:.2f} µs per legal_moves + apply)")
    print(f"  per CPU second (process time): {r['rummy_random_rounds_per_cpu_s']:.0f}")
    print(f"floor (random choices alone):  "
          f"{r['rummy_random_choice_floor_rounds_per_s']:.0f} rounds/s")
    print(f"round outcomes: {r['rummy_round_outcomes']} "
          "(all 128 variation sets in turn, batches of 20)")
    for seats, name in TABLE_GAMES.items():
        print(f"{name + ' through the contract:':<31}{r[f'table_hands_per_s_{seats}']:.0f} hands/s "
              f"({r[f'table_moves_per_hand_{seats}']:.1f} moves per hand); floor, the engine "
              f"directly: {r[f'table_direct_hands_per_s_{seats}']:.0f} hands/s "
              f"(contract {r[f'table_overhead_{seats}']:.2f}x)")
    print(f"({args.hands} hands in batches of 50, fastest of 3 per batch; {args.n} meld hands; "
          f"{args.table_hands} hands per table size; {args.rummy_rounds} Rummy rounds; "
          f"seed {args.seed})")


if __name__ == "__main__":
    main()
