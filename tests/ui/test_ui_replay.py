"""Replay: a finished match folded through the engine, stepped with keys."""

from __future__ import annotations

import random

from ui_harness import LocalGame
from ui_screens import SizedOutput

from p2pgin.engine import MatchState, Rules
from p2pgin.ui.render import plain_text
from p2pgin.ui.replay import ReplayHand, ReplayViewer, build_steps, replay_lines

NAMES = ("Alice", "Bob")


def played_match(seed: int, rules: Rules) -> list[ReplayHand]:
    """A whole match of engine-only hands (both sides the simple harness player)."""
    rng = random.Random(seed)
    chooser = LocalGame(seed)._simple_opponent
    match = MatchState.new(rules, 0)
    hands = []
    while not match.over:
        deck = list(range(52))
        rng.shuffle(deck)
        state = match.deal(deck)
        moves = []
        while not state.over:
            player = state.to_move
            move = chooser(state)
            moves.append((player, move))
            state = state.apply(move, player)
        hands.append(ReplayHand(deck=deck, moves=moves))
        match = match.record(state.result)
    return hands


def test_steps_follow_every_move_and_end_with_the_match_result() -> None:
    rules = Rules.preset("standard", target=60)
    hands = played_match(4, rules)
    steps = build_steps(rules, 0, hands, NAMES)
    assert len(steps) == sum(len(h.moves) + 1 for h in hands)
    assert steps[0].line == "Hand 1: Alice deals"
    assert steps[-1].match.over
    ends = [s for s in steps if s.result is not None]
    assert len(ends) == len(hands)
    lines = replay_lines(steps, NAMES)
    assert any(line.startswith("  1. Bob ") for line in lines)
    totals = steps[-1].match.result().totals
    assert lines[-1].endswith(f"wins the match by {abs(totals[0] - totals[1])}.")
    assert all(line.isascii() for line in replay_lines(steps, NAMES, ascii=True))


def test_viewer_steps_back_and_forth_and_jumps_to_a_hand() -> None:
    rules = Rules.preset("standard", target=60)
    steps = build_steps(rules, 0, played_match(5, rules), NAMES)
    viewer = ReplayViewer(steps, NAMES)
    text = plain_text(viewer.render())
    assert "hand 1/" in text and "move 0/" in text
    assert "Alice (dealer)" in text and "Bob:" in text
    viewer.go(3)
    text = plain_text(viewer.render())
    assert "move 3/" in text and f">   3. {steps[3].line}" in text
    viewer.go(-1)
    assert viewer.at == 2
    hands = max(s.hand_no for s in steps)
    assert hands >= 2
    assert viewer.hand(2) and viewer.step.hand_no == 2 and viewer.step.index == 0
    end = next(i for i, s in enumerate(steps) if s.result is not None)
    viewer.go_to(end)
    text = plain_text(viewer.render())
    assert "Scoring" in text
    assert steps[end].result.explanation[-1].split(":")[0].replace("Player 0", "Alice").replace(
        "Player 1", "Bob") in text


def test_replay_keys_in_the_application() -> None:
    import asyncio

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input

    from p2pgin.ui.replay import create_replay_app

    rules = Rules.preset("standard", target=60)
    steps = build_steps(rules, 0, played_match(6, rules), NAMES)
    viewer = ReplayViewer(steps, NAMES)

    async def main() -> None:
        with create_pipe_input() as inp, create_app_session(input=inp, output=SizedOutput()):
            app = create_replay_app(viewer)
            task = asyncio.ensure_future(app.run_async())
            await asyncio.sleep(0.05)
            inp.send_text("\x1b[C\x1b[C\x1b[C\x1b[D")  # right x3, left
            await asyncio.sleep(0.05)
            assert viewer.at == 2
            inp.send_text("2\r")
            await asyncio.sleep(0.05)
            assert viewer.step.hand_no == 2 and viewer.step.index == 0
            inp.send_text("q")
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_the_replay_keys_stay_on_the_last_row_at_the_smallest_size() -> None:
    from types import SimpleNamespace

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from ui_screens import _draw

    from p2pgin.ui.render import MIN_COLUMNS, MIN_ROWS
    from p2pgin.ui.replay import create_replay_app

    rules = Rules.preset("standard", target=60)
    steps = build_steps(rules, 0, played_match(5, rules), NAMES)
    viewer = ReplayViewer(steps, NAMES)
    viewer.go_to(len(steps) - 1)  # the match's end: the longest screen (scoring, totals)
    output = SizedOutput(MIN_COLUMNS, MIN_ROWS)
    with create_pipe_input() as inp, create_app_session(input=inp, output=output):
        rows, _ = _draw(SimpleNamespace(app=create_replay_app(viewer)))
    assert rows[-1].strip().startswith("<- -> move") and rows[-1].endswith("q quit"), rows
    assert "Scoring" in "\n".join(rows)


def test_a_screen_taller_than_the_terminal_scrolls_with_down_and_up() -> None:
    """At the smallest size the match's last step (scoring and match totals) does not fit:
    the key row says how to scroll, Down brings the totals into view, another step starts
    at its top again."""
    from types import SimpleNamespace

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from ui_screens import _draw, press

    from p2pgin.ui.render import MIN_COLUMNS, MIN_ROWS
    from p2pgin.ui.replay import create_replay_app

    rules = Rules.preset("standard", target=60)
    steps = build_steps(rules, 0, played_match(5, rules), NAMES)
    viewer = ReplayViewer(steps, NAMES)
    output = SizedOutput(MIN_COLUMNS, MIN_ROWS)
    with create_pipe_input() as inp, create_app_session(input=inp, output=output):
        built = SimpleNamespace(app=create_replay_app(viewer))
        rows, _ = _draw(built)
        assert "Home End ends" in rows[-1]  # the deal fits: nothing to scroll
        viewer.go_to(len(steps) - 1)
        rows, _ = _draw(built)
        screen = "\n".join(rows)
        assert "wins the match by" not in screen and "Up Dn more" in rows[-1], screen
        for _ in range(10):
            rows = press(built, "\x1b[B")  # Down
        screen = "\n".join(rows)
        assert "wins the match by" in screen and rows[-1].endswith("q quit"), screen
        rows = press(built, "\x1b[A" * 30)  # Up, back to the top
        assert rows[0].lstrip().startswith("p2pgin replay"), rows
        press(built, "\x1b[B" * 10 + "\x1b[D")  # scrolled down, then one step back
        rows, _ = _draw(built)
        assert rows[0].lstrip().startswith("p2pgin replay"), rows


def test_a_hand_number_past_the_last_says_there_is_no_such_hand() -> None:
    """ "9 Enter" on a shorter match did nothing, silently."""
    from types import SimpleNamespace

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from ui_screens import press

    from p2pgin.ui.replay import create_replay_app

    rules = Rules.preset("standard", target=60)
    hands = played_match(5, rules)
    assert len(hands) < 9
    viewer = ReplayViewer(build_steps(rules, 0, hands, NAMES), NAMES)
    with create_pipe_input() as inp, create_app_session(input=inp, output=SizedOutput()):
        built = SimpleNamespace(app=create_replay_app(viewer))
        rows = press(built, "9\r")
        assert rows[-1].strip() == f"no hand 9: the match has {len(hands)} hands", rows[-1]
        assert viewer.at == 0  # nothing moved
        rows = press(built, "\x1b[C")  # the next key: the keys are back
        assert "q quit" in rows[-1]
