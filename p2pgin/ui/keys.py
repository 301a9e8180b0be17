"""Key bindings: every key maps to one :class:`~p2pgin.ui.controller.Console` method.

While melds are declared (after ``k`` / ``g``, or Enter after the other player
knocked) the engine's best arrangement is shown: the arrows pick a card, ``m`` moves it
to the next place it can legally go (another meld, the deadwood, or one of the
knocker's melds to lay it off), ``b`` goes back to the best one, Enter declares (the
engine checks it first), ``n`` cancels.

Keys mean one thing each, and the letters the typed commands share mean the same
there (``:s``, ``:t``, ``:p``, ``:d 7h``, ``:k``, ``:g``, ``:h``, ``:n``, ``:r``, ``:u``,
``:q``). Left/Right, ``H``/``L``, Tab/Shift-Tab move the cursor; Up/Down jump between
melds and deadwood; ``1``..``9``, ``0``, ``-`` pick card 1..11; ``s`` stock, ``t``
take the discard pile's top (or the upcard), ``p`` pass, ``d`` or Enter discard (Enter
also lays off after a knock and closes an overlay), ``k`` knock, ``g`` gin, ``m`` meld
(Rummy: lay one down; declaring: move a card), ``a`` Rummy's lay off (before the deal:
accept the rules), ``x`` decline, ``h`` hint, ``o`` sort, ``M`` card memory, ``v`` the
discard pile (Rummy: and the melds), ``e`` last hand's result, ``n`` next hand, ``r`` rematch, ``u``
take-back, ``i`` seats, ``w``/``E`` a silent seat, ``:`` command line, ``?`` help,
``q`` quit. A key that does nothing in this game says so.

Why ``h`` is the hint and not "left": the issue asks for both ``hjkl`` movement and
``h`` hint / ``k`` knock; a one-row hand needs only left/right, so the action keys
keep their letters and vi users get ``l`` (right) and ``H``/``L``.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from p2pgin.ui.controller import Console
from p2pgin.ui.ordering import PICK_KEYS
from p2pgin.ui.talk import QUICK_KEYS

__all__ = ["build_key_bindings"]


def build_key_bindings(
    console: Console,
    *,
    command_active: Callable[[], bool],
    open_command: Callable[[], None],
    run_command: Callable[[], None],
    close_command: Callable[[], None],
    after: Callable[[], None],
    scroll_overlay: Callable[[int], None] = lambda pages: None,
    scroll_log: Callable[[int], None] = lambda pages: None,
    table_shown: Callable[[], bool] = lambda: True,
) -> KeyBindings:
    """The console's key bindings.

    Args:
        console: the actions.
        command_active / open_command / run_command / close_command: the ``:`` line.
        after: called after every handled key (exits the app when quit was confirmed).
        scroll_overlay: PgUp/PgDn in an open overlay (pages, negative: up).
        scroll_log: PgUp/PgDn with no overlay open: the log back and forth (pages).
        table_shown: False while the screen shows something else than the table (a
            terminal below the minimum size): then no key acts on the game, only ``q``
            (or Ctrl-C) asks to quit, on that screen, and ``y``/``n`` answer it.
    """
    kb = KeyBindings()
    shown = Condition(table_shown)
    typing = Condition(command_active) & shown
    confirming = Condition(lambda: console.confirming) & shown
    choosing = Condition(lambda: console.choosing) & shown & ~Condition(command_active)
    playing = (shown & ~Condition(command_active) & ~Condition(lambda: console.confirming)
               & ~Condition(lambda: console.choosing))

    def bind(*keys: str, filter: Filter | None = None) -> Callable[
        [Callable[[], None]], Callable[[], None]
    ]:
        def register(action: Callable[[], None]) -> Callable[[], None]:
            @kb.add(*keys, filter=filter if filter is not None else playing,
                    eager=keys == ("escape",))
            def _(event: KeyPressEvent) -> None:
                console.clear_message()  # NB: an old message never outlives the next key
                action()
                after()

            return action

        return register

    for key in ("left", "H"):
        bind(key)(lambda: console.move_cursor(-1))
    bind("s-tab")(lambda: console.move_cursor(-1))
    for key in ("right", "l", "L", "tab"):
        bind(key)(lambda: console.move_cursor(1))
    bind("up")(lambda: console.move_group(-1))
    bind("down")(lambda: console.move_group(1))
    for number, key in enumerate(PICK_KEYS, start=1):
        bind(key)(lambda n=number: console.pick(n))  # type: ignore[misc]
    bind("s")(console.draw_stock)
    bind("t")(console.take)
    bind("d")(lambda: console.discard())
    bind("p")(console.pass_upcard)
    bind("enter")(console.enter)
    bind("k")(lambda: console.knock())
    bind("g")(lambda: console.gin())
    bind("b")(lambda: console.say("b is for declaring melds: the best declaration again"))
    bind("h")(console.hint)
    bind("c")(console.review_hand)
    bind("o")(console.cycle_sort)
    bind("M")(console.toggle_memory)
    bind("v")(lambda: console.toggle_overlay("pile"))
    bind("e")(console.show_result)
    bind("?")(lambda: console.toggle_overlay("help"))
    bind("R")(lambda: console.toggle_overlay("rules"))
    for number, key in enumerate(QUICK_KEYS):
        bind(key)(lambda n=number: console.quick_phrase(n))  # type: ignore[misc]
    bind("escape")(console.close_overlay)
    overlay_open = playing & Condition(lambda: bool(console.ui.overlay))
    bind("pagedown", filter=overlay_open)(lambda: scroll_overlay(1))
    bind("pageup", filter=overlay_open)(lambda: scroll_overlay(-1))
    bind("pagedown", filter=playing & ~overlay_open)(lambda: scroll_log(1))
    bind("pageup", filter=playing & ~overlay_open)(lambda: scroll_log(-1))
    bind("n")(console.next_hand)
    bind("r")(console.rematch)
    bind("u")(console.undo)
    bind("a")(console.accept_or_lay)
    bind("m")(lambda: console.meld())
    bind("i")(lambda: console.toggle_overlay("seats"))
    bind("w")(console.keep_waiting)
    bind("E")(console.end_match)
    bind("x")(console.decline_rules)
    bind("q")(console.request_quit)
    bind("c-c", filter=~typing)(console.request_quit)

    # Numbered choices (which meld, where to lay a card off): a digit picks.
    for number in range(1, 10):
        bind(str(number), filter=choosing)(lambda n=number: console.choose(n))  # type: ignore[misc]
    bind("enter", filter=choosing)(lambda: console.choose(1))
    for key in ("escape", "n"):
        bind(key, filter=choosing)(console.cancel_choice)
    bind("q", filter=choosing)(console.request_quit)

    for key in ("y", "Y"):
        bind(key, filter=confirming)(lambda: console.answer(True))
    for key in ("n", "N", "escape"):
        bind(key, filter=confirming)(lambda: console.answer(False))
    # Declaring melds (after k or g, or Enter after the other player knocked): the
    # engine's proposal is shown; the cursor picks a card, m moves it, Enter declares.
    arranging = confirming & Condition(lambda: console.ui.arrange is not None)
    for key in ("left", "H", "s-tab"):
        bind(key, filter=arranging)(lambda: console.move_cursor(-1))
    for key in ("right", "l", "L", "tab"):
        bind(key, filter=arranging)(lambda: console.move_cursor(1))
    bind("m", filter=arranging)(console.move_arranged)
    bind("b", filter=arranging)(console.reset_arrangement)
    bind("enter", filter=arranging)(lambda: console.answer(True))

    # NB: while the table is hidden a key must not act blind: the player cannot see what
    # it would do. Every other key is swallowed (the app's own bindings are all off).
    hidden = ~shown
    asking_quit = hidden & Condition(lambda: console.asking_quit)
    bind("q", filter=hidden & ~asking_quit)(console.request_quit)
    bind("c-c", filter=hidden & ~asking_quit)(console.request_quit)
    for key in ("y", "Y"):
        bind(key, filter=asking_quit)(lambda: console.answer(True))
    for key in ("n", "N", "escape"):
        bind(key, filter=asking_quit)(lambda: console.answer(False))

    @kb.add("<any>", filter=hidden)
    def _(event: KeyPressEvent) -> None:
        """Nothing acts while the table is not shown."""

    @kb.add(":", filter=playing)
    def _(event: KeyPressEvent) -> None:
        """Open the command line."""
        open_command()

    @kb.add("enter", filter=typing)
    def _(event: KeyPressEvent) -> None:
        """Run the typed command."""
        run_command()
        after()

    @kb.add("escape", filter=typing, eager=True)
    @kb.add("c-c", filter=typing)
    def _(event: KeyPressEvent) -> None:
        """Leave the command line without running it."""
        close_command()

    return kb
