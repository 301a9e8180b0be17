"""Replay: step through a verified match as a spectator saw it (protocol v2).

Protocol v2 never opens a hand's whole deck, so the replay shows what the table showed:
every public move and public card, how many cards each player held face down, the
stock and the discard pile, Rummy's melds on the table, each hand's showdown (melds,
layoffs and deadwood as the hand's result gives them) and its scoring, the scores, and
how the match ended. The steps are :class:`p2pgin.records.steps.Story`'s, built by the
verification itself; this module only draws them, for any game and table size.

Keys: Right/Space/``l`` next step, Left/``h`` previous, PageDown/``n`` next hand,
PageUp/``p`` previous hand, Home/End first/last, ``1``-``9`` then Enter jump to hand N,
Down/Up (``j``/``k``) scroll a screen taller than the terminal, ``q`` quit.
:func:`replay_lines` is the plain mode: one line per step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window

from p2pgin.engine.cards import Card
from p2pgin.engine.rummy_hand import RummyHand
from p2pgin.games import UnknownGame, find_game
from p2pgin.records.report import explain, game_title, printable
from p2pgin.records.steps import ShowRow, Step, Story, showdown
from p2pgin.ui.frags import ScrollCursor
from p2pgin.ui.style import (
    ESCAPE_WAIT,
    asciify,
    build_style,
    card_class,
    card_label,
    terminal_is_utf8,
)

__all__ = ["ReplayViewer", "create_replay_app", "replay_lines", "run_replay"]

#: Past steps of the hand shown above the current one (fewer with a result below).
_HISTORY: Final = 6
_HISTORY_AT_RESULT: Final = 2


def replay_lines(story: Story, hand_no: int | None = None, *, ascii: bool = False,
                 lines: Callable[[int | None], list[str]] | None = None) -> list[str]:
    """The plain replay: :meth:`Story.lines`, or ``lines(hand_no)`` (a story told from a
    seat), in ASCII card labels with ``ascii``."""
    text = (story.lines if lines is None else lines)(hand_no)
    return [asciify(line) for line in text] if ascii else text



def _in_teams(game: str, seats: int) -> bool:
    """The story's table of ``seats`` played as two teams of partners."""
    try:
        return find_game(game).in_teams(seats)
    except UnknownGame:
        return False

class ReplayViewer:
    """A cursor over a story's steps and the screen of the current one."""

    def __init__(self, story: Story, *, ascii: bool = False) -> None:
        if not story.steps:
            raise ValueError("nothing to replay: the log has no step")
        self.story = story
        self.steps = story.steps
        self.names = story.names
        self.ascii = ascii
        self.at = 0
        self.typed = ""
        #: Why the last key did nothing (shown on the key row until the next key).
        self.message = ""
        #: The body line of the current step kept in view after Down/Up.
        self.cursor = ScrollCursor()
        #: Whether the body does not fit its window (set by the app; shown in the keys).
        self.overflows: Any = lambda: False
        self._counts: dict[int, int] = {}
        for s in self.steps:
            if s.index:
                self._counts[s.hand_no] = max(self._counts.get(s.hand_no, 0), s.index)

    @property
    def step(self) -> Step:
        return self.steps[self.at]

    def go(self, delta: int) -> None:
        """Move ``delta`` steps (clamped to the record)."""
        self.go_to(self.at + delta)

    def go_to(self, index: int) -> None:
        self.at = max(0, min(len(self.steps) - 1, index))

    def hand(self, hand_no: int) -> bool:
        """Jump to the deal of hand ``hand_no``; False if there is no such hand."""
        found = self.story.first_step(hand_no)
        if found is None:
            return False
        self.at = found
        return True

    def next_hand(self, delta: int) -> None:
        """The next (``delta`` 1) or previous (-1) hand's deal, else the last/first step."""
        hands = self.story.hands
        current = self.step.hand_no
        if delta > 0:
            later = [h for h in hands if h > current]
            if later:
                self.hand(later[0])
            else:
                self.go_to(len(self.steps) - 1)
            return
        start = self.story.first_step(current)
        if start is not None and start < self.at:
            self.at = start
            return
        earlier = [h for h in hands if h < current]
        if earlier:
            self.hand(earlier[-1])
        else:
            self.go_to(0)

    # ------------------------------------------------------------------ drawing

    def _label(self, card: Card) -> str:
        return card_label(card, ascii=self.ascii)

    def _cards(self, out: StyleAndTextTuples, cards: Sequence[Card]) -> None:
        for i, card in enumerate(cards):
            if i:
                out.append(("", " "))
            out.append((card_class(card), self._label(card)))

    def _meld(self, out: StyleAndTextTuples, cards: Sequence[Card]) -> None:
        out.append(("", "["))
        self._cards(out, cards)
        out.append(("", "]"))

    def _who(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def _held(self, out: StyleAndTextTuples, label: str, cards: Sequence[Card | None],
              *, mark: str = "") -> None:
        """A player's hand as the table sees it: the public cards, then how many are face
        down."""
        known = [c for c in cards if c is not None]
        hidden = len(cards) - len(known)
        out.append(("class:value", f" {label}{mark}: "))
        self._cards(out, known)
        if hidden:
            joiner = " and " if known else ""
            out.append(("class:label", f"{joiner}{hidden} face down"))
        elif not cards:
            out.append(("class:label", "no cards"))
        out.append(("", "\n"))

    def _turn(self, seat: int) -> str:
        step = self.step
        hand = step.hand
        over = step.result is not None or step.ending is not None
        to_move = None if hand is None or over else hand.to_move
        return " (to move)" if to_move == seat else ""

    def _gin_game(self, out: StyleAndTextTuples, game: Any, title: str, *,
                  dealer_shown: bool = True) -> None:
        """One gin game: the non-dealer, the stock and discard pile, the dealer (not
        marked in three-player gin, whose dealer sits out)."""
        state = game.state
        if title:
            out.append(("class:title", f" {title}\n"))
        dealer = state.dealer
        for player in (1 - dealer, dealer):
            seat = game.seats[player]
            label = self._who(seat) + (" (dealer)" if player == dealer and dealer_shown
                                       else "")
            self._held(out, label, state.hand_cards(player), mark=self._turn(seat))
            if player != dealer:
                self._gin_piles(out, state)

    def _gin_piles(self, out: StyleAndTextTuples, state: Any) -> None:
        pile = state.discard_pile
        top = state.discard_top
        out.append(("class:label", f"   Stock {state.stock_count}   Discard "))
        card = None if top is None else state.known(top)
        if card is not None:
            out.append((card_class(card), self._label(card)))
            if len(pile) > 1:
                out.append(("class:label", f" ({len(pile)} in the pile)"))
        else:
            out.append(("class:label", "(empty)"))
        limit = state.knock_limit
        if limit is not None:
            out.append(("class:label", f"   Knock limit {limit}"))
        out.append(("", "\n"))

    def _rummy(self, out: StyleAndTextTuples, hand: RummyHand) -> None:
        top = hand.discard_top
        card = None if top is None else hand.known(top)
        out.append(("class:label", f" Stock {hand.stock_count}   Discard "))
        if card is not None:
            out.append((card_class(card), self._label(card)))
            pile = len(hand.discard_pile)
            if pile > 1:
                out.append(("class:label", f" ({pile} in the pile)"))
        else:
            out.append(("class:label", "(empty)"))
        if hand.renewals:
            out.append(("class:label", f"   stock renewed {hand.renewals}x"))
        out.append(("", "\n"))
        if hand.table:
            out.append(("class:label", " On the table:"))
            for meld in hand.table:
                out.append(("", f"  {self._who(meld.owner)} "))
                self._meld(out, [c for c in (hand.known(p) for p in meld.positions)
                                 if c is not None])
            out.append(("", "\n"))
        for seat in range(hand.seats):
            label = self._who(seat) + (" (dealer)" if seat == hand.dealer else "")
            self._held(out, label, hand.hand_cards(seat), mark=self._turn(seat))

    def _table(self, out: StyleAndTextTuples, hand: Any) -> None:
        if isinstance(hand, RummyHand):
            self._rummy(out, hand)
            return
        games = getattr(hand, "games", ())
        sitting = getattr(hand, "sitting_out", None)
        for g, game in enumerate(games):
            title = (f"Game {g}: {self._who(game.seats[0])} against {self._who(game.seats[1])}"
                     if len(games) > 1 else "")
            self._gin_game(out, game, title, dealer_shown=sitting is None)
        if sitting is not None:
            out.append(("class:label", f" {self._who(sitting)} dealt and sits this hand "
                        "out\n"))

    def _show_row(self, out: StyleAndTextTuples, row: ShowRow) -> None:
        out.append(("class:value", f"  {self._who(row.seat)} {row.what}"))
        if row.melds or row.laid_off or row.deadwood:
            out.append(("", ": "))
        for meld in row.melds:
            self._meld(out, meld)
            out.append(("", " "))
        if row.laid_off:
            out.append(("class:label", "laid off "))
            self._cards(out, row.laid_off)
            out.append(("", " "))
        if row.deadwood:
            out.append(("class:label", "deadwood " if row.what != "held" else ""))
            self._cards(out, row.deadwood)
        if row.count is not None and (row.deadwood or row.what != "went out"):
            out.append(("class:label", f"  ({row.count})"))
        out.append(("", "\n"))

    def _scores(self, step: Step) -> str:
        scores = step.scores
        if not scores:
            return ""
        target = f" (match to {self.story.target})" if self.story.target else ""
        if _in_teams(self.story.game, len(scores)):
            teams = ", ".join(f"{self._who(t)} & {self._who(t + 2)} {scores[t]}"
                              for t in (0, 1))
            return f" Score {teams}{target}"
        each = ", ".join(f"{self._who(s)} {v}" for s, v in enumerate(scores))
        return f" Score {each}{target}"

    def render(self) -> StyleAndTextTuples:
        """The whole replay screen for the current step."""
        step = self.step
        hands = len(self.story.hands)
        if not step.hand_no:
            where = ""
        elif step.in_hand:
            where = f"  hand {step.hand_no}/{hands}  step {step.index}/" \
                    f"{self._counts.get(step.hand_no, 0)}"
        else:
            where = f"  after hand {step.hand_no}/{hands}"
        players = " vs ".join(self.names)
        out: StyleAndTextTuples = [
            ("class:title", " p2pgin replay"), ("class:label", f"{where}\n"),
            ("class:value", f" {players}"),
            ("class:label", f": {game_title(self.story.game, len(self.names))}\n"),
        ]
        scores = self._scores(step)
        if scores:
            out.append(("class:label", scores + "\n"))
        out.append(("", "\n"))
        if step.hand is not None:
            self._table(out, step.hand)
            out.append(("", "\n"))
        self._history(out, step)
        if step.result is not None:
            out.append(("class:title", "\n Showdown\n"))
            for title, rows in showdown(step.result, len(self.names)):
                if title:
                    out.append(("class:label", f"  {title}\n"))
                if not rows:
                    out.append(("class:label", "  nobody shows: the hand scores nothing\n"))
                for row in rows:
                    self._show_row(out, row)
            out.append(("class:title", "\n Scoring\n"))
            for line in explain(step.result, self.names):
                out.append(("", f"  {line}\n"))
        if step.outcome is not None:
            out.append(("class:title",
                        f"\n {self.story.report.match_headline(step.outcome)}\n"))
            for line in explain(step.outcome, self.names):
                out.append(("class:value", f"  {line}\n"))
        ending = step.ending
        if ending is not None:
            for line in ending.details(self.names)[1:]:
                out.append(("class:value", f"  {printable(line)}\n"))
            if ending.culprit is not None:
                out.append(("class:value", f"  At fault: {self._who(ending.culprit)}.\n"))
        if self.ascii:
            out = [(f[0], asciify(f[1])) for f in out]
        return self.cursor.apply(out, self.at)

    def _history(self, out: StyleAndTextTuples, step: Step) -> None:
        """The last few steps of this hand, up to the current one."""
        first = self.at - step.index  # NB: a hand's steps follow its deal, numbered
        shown = _HISTORY_AT_RESULT if step.result is not None else _HISTORY
        for i in range(max(first, self.at - shown), self.at + 1):
            s = self.steps[i]
            mark = ">" if i == self.at else " "
            if s.index and s.kind == "ending":  # the last step of the hand it cut
                text = f"{mark}      {s.text}"
            elif s.index:
                text = f"{mark} {s.index:>3}. {s.text}"
            else:
                text = f"{mark} {s.text}"
            out.append(("class:log.latest" if i == self.at else "class:log", text + "\n"))

    def scroll_to(self, line: int) -> None:
        """Keep body line ``line`` of the current step in view (Down/Up)."""
        self.cursor.scroll_to(self.at, line)

    def render_keys(self) -> StyleAndTextTuples:
        """The bottom row: a typed hand number, a message, else the keys."""
        if self.typed:
            return [("class:confirm", f" go to hand: {self.typed}_  (Enter: go, Esc: cancel)")]
        if self.message:
            return [("class:error", f" {self.message}")]
        out: StyleAndTextTuples = []
        # NB: at 72 columns there is room for five keys: a screen taller than the
        # terminal shows how to scroll it in place of Home/End.
        ends = ("Up Dn", "more") if self.overflows() else ("Home End", "ends")
        for key, what in (("<- ->", "step"), ("PgUp PgDn", "hand"), ("1-9 Enter", "hand N"),
                          ends, ("q", "quit")):
            out += [("class:keys.key", f" {key}"), ("class:keys", f" {what} ")]
        return out

    def go_to_typed(self) -> None:
        """Jump to the typed hand number, or say there is no such hand."""
        if self.typed and not self.hand(int(self.typed)):
            hands = len(self.story.hands)
            self.message = (f"no hand {int(self.typed)}: the record has {hands} "
                            f"hand{'s' if hands != 1 else ''}")
        self.typed = ""


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
    bind(["enter"], viewer.go_to_typed)
    for digit in "0123456789":
        bind([digit], lambda d=digit: setattr(viewer, "typed", viewer.typed + d))

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


async def run_replay(story: Story, *, ascii: bool | None = None, four_colour: bool = False,
                     start_hand: int = 1) -> None:
    """Replay ``story`` full screen in this terminal, from hand ``start_hand``."""
    ascii = not terminal_is_utf8() if ascii is None else ascii
    viewer = ReplayViewer(story, ascii=ascii)
    viewer.hand(start_hand)
    await create_replay_app(viewer, four_colour=four_colour).run_async()
