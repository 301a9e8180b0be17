"""Replay: step through a finished match with every card face up.

The input is what a transcript proves once each hand's audit has opened the deck:
per hand, the 52 cards in deck-position order and the moves in order. Whoever reads
the transcript (``p2pgin replay``/``verify``) supplies those; :func:`build_steps`
folds them through the real engine, so a replay shows exactly the states the
verifier checked, with the engine's scoring explanation at each hand's end.

Keys: Right/Space/``l`` next move, Left/``h`` previous, PageDown/``n`` next hand,
PageUp/``p`` previous hand, Home/End first/last, ``1``-``9`` then Enter (or
``:hand N``) jump to hand N, Down/Up (``j``/``k``) scroll a screen taller than the
terminal, ``q`` quit. :func:`replay_lines` is the plain mode: one line per move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window

from p2pgin.engine import HandResult, HandState, MatchState, Rules, best_melds
from p2pgin.engine.cards import Card
from p2pgin.engine.explain import explain_hand
from p2pgin.ui.adapter import move_kind
from p2pgin.ui.render import ScrollCursor
from p2pgin.ui.style import (
    ESCAPE_WAIT,
    asciify,
    build_style,
    card_class,
    card_label,
    terminal_is_utf8,
)

__all__ = [
    "ReplayHand",
    "ReplayStep",
    "ReplayViewer",
    "build_steps",
    "replay_lines",
    "run_replay",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayHand:
    """One hand as the audit opened it: the deck in position order and the moves."""

    deck: Sequence[int]
    moves: Sequence[tuple[int, Any]]  # (player, engine move), in order


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayStep:
    """The table after one move (``index`` 0 is the deal) of hand ``hand_no``."""

    hand_no: int
    index: int
    moves: int  # moves in this hand
    state: HandState
    match: MatchState  # the match before this hand is recorded (after, at its end)
    line: str  # what happened, one sentence ("" for the deal)
    result: HandResult | None = None


def _move_line(names: Sequence[str], state: HandState, player: int, move: Any) -> str:
    """One sentence for a move, with the card it moved (every card is known here)."""
    who = names[player]
    kind = move_kind(move)
    card = None
    position = getattr(move, "position", None)
    if kind in ("take_upcard", "draw_discard"):
        position = state.discard_top
    elif kind == "draw_stock":
        position = state.stock_top
    if position is not None:
        card = state.known(position)
    label = card.unicode if card is not None else "?"
    return {
        "take_upcard": f"{who} takes the upcard {label}",
        "pass_upcard": f"{who} passes the upcard",
        "draw_stock": f"{who} draws {label} from the stock",
        "draw_discard": f"{who} takes {label} from the discard pile",
        "discard": f"{who} discards {label}",
        "knock": f"{who} knocks, discarding {label} face down",
        "big_gin": f"{who} goes big gin",
        "lay_off": f"{who} shows melds and lays off",
    }.get(kind, f"{who}: {kind}")


def build_steps(
    rules: Rules, first_dealer: int, hands: Sequence[ReplayHand], names: Sequence[str]
) -> list[ReplayStep]:
    """Fold every hand's moves through the engine; one step per move plus the deal.

    Raises:
        IllegalMoveError: a move was not legal (a transcript ``verify`` would reject).
    """
    steps: list[ReplayStep] = []
    match = MatchState.new(rules, first_dealer)
    for hand_no, hand in enumerate(hands, start=1):
        state = match.deal(hand.deck)
        total = len(hand.moves)
        steps.append(ReplayStep(hand_no=hand_no, index=0, moves=total, state=state,
                                match=match, line=f"Hand {hand_no}: {names[state.dealer]} deals"))
        for i, (player, move) in enumerate(hand.moves, start=1):
            line = _move_line(names, state, player, move)
            state = state.apply(move, player)
            result = state.result
            if result is not None:
                match = match.record(result)
            steps.append(ReplayStep(hand_no=hand_no, index=i, moves=total, state=state,
                                    match=match, line=line, result=result))
    return steps


def replay_lines(steps: Sequence[ReplayStep], names: Sequence[str], *,
                 ascii: bool = False) -> list[str]:
    """Plain replay: one line per move, each hand's explanation, then the match total."""
    out: list[str] = []
    for step in steps:
        out.append(step.line if step.index == 0 else f"  {step.index}. {step.line}")
        if step.result is not None:
            out += [f"    {line}" for line in explain_hand(step.result, names)]
    if steps:
        out += list(steps[-1].match.result().explain(names))
    return [asciify(line) for line in out] if ascii else out


class ReplayViewer:
    """Cursor over the steps and the text of the current one."""

    def __init__(self, steps: Sequence[ReplayStep], names: Sequence[str], *,
                 ascii: bool = False) -> None:
        if not steps:
            raise ValueError("nothing to replay: no hands")
        self.steps = list(steps)
        self.names = tuple(names)
        self.ascii = ascii
        self.at = 0
        self.typed = ""
        #: Why the last key did nothing (shown on the key row until the next key).
        self.message = ""
        #: The body line of the current step kept in view after Down/Up.
        self.cursor = ScrollCursor()
        #: Whether the body does not fit its window (set by the app; shown in the keys).
        self.overflows: Any = lambda: False

    @property
    def step(self) -> ReplayStep:
        return self.steps[self.at]

    def go(self, delta: int) -> None:
        """Move ``delta`` steps (clamped to the match)."""
        self.at = max(0, min(len(self.steps) - 1, self.at + delta))

    def go_to(self, index: int) -> None:
        self.at = max(0, min(len(self.steps) - 1, index))

    def hand(self, hand_no: int) -> bool:
        """Jump to the deal of hand ``hand_no``; False if there is no such hand."""
        for i, step in enumerate(self.steps):
            if step.hand_no == hand_no and step.index == 0:
                self.at = i
                return True
        return False

    def next_hand(self, delta: int) -> None:
        target = self.step.hand_no + delta
        if not self.hand(target):
            self.go_to(0 if delta < 0 else len(self.steps) - 1)

    def _cards(self, out: StyleAndTextTuples, cards: Sequence[Card]) -> None:
        for i, card in enumerate(cards):
            if i:
                out.append(("", " "))
            out.append((card_class(card), card_label(card, ascii=self.ascii)))

    def _hand(self, out: StyleAndTextTuples, player: int) -> None:
        state = self.step.state
        cards = [c for c in state.hand_cards(player) if c is not None]
        found = best_melds(cards) if len(cards) <= 11 else None
        dealer = " (dealer)" if player == state.dealer else ""
        out.append(("class:value", f" {self.names[player]}{dealer}: "))
        if found is None:
            self._cards(out, cards)
        else:
            for meld in found.melds:
                out.append(("", "["))
                self._cards(out, meld)
                out.append(("", "] "))
            self._cards(out, found.deadwood_cards)
            out.append(("class:label", f"  deadwood {found.deadwood}"))
        out.append(("", "\n"))

    def render(self) -> StyleAndTextTuples:
        """The whole replay screen for the current step."""
        step = self.step
        state = step.state
        hands = max(s.hand_no for s in self.steps)
        out: StyleAndTextTuples = [
            ("class:title", f" p2pgin replay  {self.names[0]} vs {self.names[1]}"),
            ("class:label", f"  hand {step.hand_no}/{hands}  move {step.index}/{step.moves}\n"),
        ]
        scores = step.match.scores
        out.append(("class:label", f" Score {self.names[0]} {scores[0]}, "
                    f"{self.names[1]} {scores[1]} (target {step.match.rules.target})\n\n"))
        self._hand(out, 1)
        top = state.discard_top
        out.append(("class:label", f" Stock {state.stock_count}   Discard "))
        if top is not None and state.known(top) is not None:
            card = state.known(top)
            assert card is not None
            out.append((card_class(card), card_label(card, ascii=self.ascii)))
        else:
            out.append(("class:label", "(empty)"))
        limit = state.knock_limit
        out.append(("class:label", f"   Knock limit {limit if limit is not None else '-'}\n"))
        self._hand(out, 0)
        out.append(("", "\n"))
        first = self.at - step.index
        # NB: with the hand's result below, fewer past moves, so the scoring fits too.
        shown = 2 if step.result is not None else 6
        for i in range(max(first, self.at - shown), self.at + 1):
            s = self.steps[i]
            mark = ">" if i == self.at else " "
            out.append(("class:log.latest" if i == self.at else "class:log",
                        f"{mark} {s.index:>3}. {s.line}\n" if s.index else f"{mark} {s.line}\n"))
        if step.result is not None:
            out.append(("class:title", "\n Scoring\n"))
            for line in explain_hand(step.result, self.names):
                out.append(("", f"  {line}\n"))
            if step.match.over:
                for line in step.match.result().explain(self.names):
                    out.append(("class:value", f"  {line}\n"))
        if self.ascii:
            out = [(f[0], asciify(f[1])) for f in out]
        return self.cursor.apply(out, self.at)

    def scroll_to(self, line: int) -> None:
        """Keep body line ``line`` of the current step in view (Down/Up)."""
        self.cursor.scroll_to(self.at, line)

    def render_keys(self) -> StyleAndTextTuples:
        """The bottom row: a typed hand number, else the keys (never pushed off the
        screen by a long hand result)."""
        if self.typed:
            return [("class:confirm", f" go to hand: {self.typed}_  (Enter: go, Esc: cancel)")]
        if self.message:
            return [("class:error", f" {self.message}")]
        out: StyleAndTextTuples = []
        # NB: at 72 columns there is room for five keys: a screen taller than the
        # terminal shows how to scroll it in place of Home/End.
        ends = ("Up Dn", "more") if self.overflows() else ("Home End", "ends")
        for key, what in (("<- ->", "move"), ("PgUp PgDn", "hand"), ("1-9 Enter", "hand N"),
                          ends, ("q", "quit")):
            out += [("class:keys.key", f" {key}"), ("class:keys", f" {what} ")]
        return out


def _bindings(viewer: ReplayViewer, scroll: Any) -> KeyBindings:
    kb = KeyBindings()

    def bind(keys: Sequence[str], action: Any) -> None:
        def handler(event: KeyPressEvent, action: Any = action) -> None:
            viewer.message = ""
            action()

        for key in keys:
            kb.add(key)(handler)

    bind(["right", "l", " "], lambda: viewer.go(1))
    bind(["left", "h", "backspace"], lambda: viewer.go(-1))
    bind(["pagedown", "n"], lambda: viewer.next_hand(1))
    bind(["pageup", "p"], lambda: viewer.next_hand(-1))
    bind(["home"], lambda: viewer.go_to(0))
    bind(["end"], lambda: viewer.go_to(len(viewer.steps) - 1))
    bind(["down", "j"], lambda: scroll(1))
    bind(["up", "k"], lambda: scroll(-1))
    for digit in "0123456789":
        bind([digit], lambda d=digit: setattr(viewer, "typed", viewer.typed + d))

    @kb.add("enter")
    def _(event: KeyPressEvent) -> None:
        """Jump to the typed hand number (or say there is no such hand)."""
        viewer.message = ""
        if viewer.typed and not viewer.hand(int(viewer.typed)):
            hands = max(step.hand_no for step in viewer.steps)
            viewer.message = (f"no hand {int(viewer.typed)}: the match has "
                              f"{hands} hand{'s' if hands != 1 else ''}")
        viewer.typed = ""

    @kb.add("escape", eager=True)
    def _(event: KeyPressEvent) -> None:
        """Forget a typed hand number."""
        viewer.typed = ""

    @kb.add("q")
    @kb.add("c-c")
    def _(event: KeyPressEvent) -> None:
        """Leave the replay."""
        event.app.exit()

    return kb


def create_replay_app(viewer: ReplayViewer, *, four_colour: bool = False) -> Application[None]:
    """The replay application (built inside the app session that runs it)."""
    body = Window(FormattedTextControl(viewer.render), wrap_lines=True)

    def overflows() -> bool:
        info = body.render_info
        return info is not None and (info.first_visible_line() > 0 or
                                     info.last_visible_line() < info.ui_content.line_count - 1)

    def scroll(lines: int) -> None:
        """Down (``lines`` > 0) / Up: move the body by lines when it does not fit."""
        info = body.render_info
        if info is None:
            return
        # NB: keys typed ahead arrive before the next redraw: count from the line asked
        # for last (on this step) when it is further than what the screen shows.
        asked = viewer.cursor.line(viewer.at)
        if lines > 0:
            base = info.last_visible_line() if asked is None else max(
                asked, info.last_visible_line())
            viewer.scroll_to(min(info.ui_content.line_count - 1, base + lines))
        else:
            base = info.first_visible_line() if asked is None else min(
                asked, info.first_visible_line())
            viewer.scroll_to(base + lines)

    viewer.overflows = overflows
    app: Application[None] = Application(
        layout=Layout(HSplit([
            body,
            Window(FormattedTextControl(viewer.render_keys), height=1),
        ])),
        key_bindings=_bindings(viewer, scroll),
        style=build_style(four_colour=four_colour),
        full_screen=True,
    )
    app.ttimeoutlen = ESCAPE_WAIT
    return app


async def run_replay(
    steps: Sequence[ReplayStep], names: Sequence[str], *, ascii: bool | None = None,
    plain: bool = False, four_colour: bool = False, start_hand: int = 1,
) -> None:
    """Replay a match in this terminal (``plain``: print it, one line per move)."""
    ascii = not terminal_is_utf8() if ascii is None else ascii
    if plain:
        for line in replay_lines(steps, names, ascii=ascii):
            print(line)
        return
    viewer = ReplayViewer(steps, names, ascii=ascii)
    viewer.hand(start_hand)
    await create_replay_app(viewer, four_colour=four_colour).run_async()
