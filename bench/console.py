"""Benchmark one discard between two real nodes, with a headless console on each side.

One process, one event loop: two :class:`~p2pgin.net.node.Node` s over loopback TCP (real
private links), a host (``Session.host``, gin, standard rules) and a joiner, both people,
seeded ``random.Random(1)``/``(2)``, keys ``SigningKey(bytes([n + 1]) * 32)``. Each node
gets the console application ``create_console_app(node)`` built inside its own
``create_app_session(input=create_pipe_input(), output=<80x24 dummy output>)`` and run as
a task of the same loop. Keys go in through the pipes as a person's would. The player to
move is driven by its own key strip (``p`` pass, ``s`` stock) until only a discard is
left, then Enter discards the card under the cursor (the card just drawn). Of the
``--moves N`` discards measured so, each is either timed (no profiler running) or
counted (``sys.setprofile``), in turn, so that counting never slows the timing:

* ``key_to_screen_ms``: from the Enter written to the mover's pipe until the other
  console's renderer has drawn a frame whose table shows the discarded card on top of
  the pile (the renderer's ``render`` is wrapped). Median and p90 of the timed discards.
* ``engine_calls_per_move``: calls of code under ``p2pgin/engine/`` made for a console
  frame: the nearest frame of ``p2pgin`` outside the engine on the call's stack is one of
  ``p2pgin/ui/``, of a game's console face under ``p2pgin/games/`` (its ``panel.py``,
  ``actions.py``, ``seat.py``, and ``games/kit.py``), or ``session/view.py``'s
  ``build_view``: the engine work done to show the move (and to
  check the mover's key), both consoles together. The engine work of the protocol is not
  in it: the move the mover's console sends runs through ``Node.act``, the session and
  its machine, which a seat does with or without a console (``protocol_engine_calls``
  counts those calls, made beneath a console frame but for the session). The window runs
  from the key until both consoles have drawn the move and no frame was drawn for 50 ms.
  ``engine_calls_total`` counts every engine call in the window.
  ``floor_engine_calls``: the same discard made in the same run by ``node.act`` between
  two nodes with no console (the same seeds and keys, so the same cards), every engine
  call from the act until the other seat's view has it and 50 ms passed.
* ``view_pulls_per_move``: per console, reads of its node's ``view`` made under a
  console frame. ``refreshes_per_move``: ``Console.refresh`` calls per console.
  ``redraws_per_move``: ``renderer.render`` calls per console. Every per-console figure
  is ``[mover, other]``, the median over the counted discards.
* ``view_work``: what the view reads cost beneath (``build_view``, the console's
  ``gin_view`` and ``Rules.from_dict`` calls, both consoles), where those functions exist.
* ``--screens-digest``: SHA-256 over the settled 80x24 screen text of both consoles (what
  the renderer last drew) after every move of the run, passes and draws included: the
  "screens did not change" check of issue 25. A move has settled when both tables show
  the same stock, pile and player to move, and no frame was drawn for 50 ms. The one
  thing on those screens that differs from run to run, the port of the other end of the
  link that the log shows (``Connected: 127.0.0.1:35734.``: the operating system picks
  it), is hashed as ``127.0.0.1:<port>``.

    python bench/console.py [--moves N] [--screens-digest] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

import _repo  # (this checkout first on the import path)
from nacl.signing import SigningKey
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pgin.engine.rules import Rules
from p2pgin.net.node import Node
from p2pgin.session import Session
from p2pgin.ui.app import ConsoleApp, create_console_app

ROOT = _repo.ROOT
PACKAGE = str(ROOT / "p2pgin") + "/"
ENGINE = PACKAGE + "engine/"
UI = PACKAGE + "ui/"
GAMES = PACKAGE + "games/"
VIEW = PACKAGE + "session/view.py"
#: The modules of ``p2pgin/games/`` that are the console's: each game's face (its panel,
#: its actions, its seat's own game) and the pure kit they draw with.
_FACES = ("/panel.py", "/actions.py", "/seat.py", "games/kit.py")
#: Seconds with no frame drawn after which a change counts as shown everywhere.
QUIET = 0.05
#: An address the console shows whose port the operating system picked (see --screens-digest).
LOOPBACK_PORT = re.compile(r"\b127\.0\.0\.1:\d+")
DEADLINE = 30.0


class SizedOutput(DummyOutput):
    """A dummy terminal of 80 columns and 24 rows (the smallest the console supports)."""

    def get_size(self) -> Size:
        return Size(rows=24, columns=80)


def key(n: int) -> SigningKey:
    return SigningKey(bytes([n + 1]) * 32)


async def until(check: Callable[[], bool], timeout: float = DEADLINE) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.002)


async def table(*, linger: float = 0.2) -> list[Node]:
    """Two people at a gin table over loopback, dealt and in play."""
    host = Session.host(key(0), seats=2, game="gin", rules=Rules.preset("standard").to_dict(),
                        name="Ann", rng=random.Random(1))
    nodes = [Node(host, None, identity=key(0), linger=linger)]
    port = await nodes[0].listen("127.0.0.1", 0)
    joiner = Session.join(key(1), name="Bob", rng=random.Random(2), bot=False)
    nodes.append(Node(joiner, None, identity=key(1), linger=linger))
    nodes[1].dial("127.0.0.1", port)
    await until(lambda: all(n.view.stage == "play" for n in nodes))
    return nodes


def _code(owner: Any, name: str) -> CodeType | None:
    """The code object of ``owner.name`` (a function, method or property), if it exists:
    the figures beneath the headline ones name functions the redesign may move."""
    member = getattr(owner, name, None)
    member = getattr(member, "fget", member)
    member = getattr(member, "__func__", member)
    return getattr(member, "__code__", None)


class Counts:
    """A ``sys.setprofile`` hook counting one window's calls."""

    def __init__(self, nodes: list[Node], consoles: list[Any]) -> None:
        self.nodes, self.consoles = nodes, consoles
        self.c: Counter[str] = Counter()
        self._console_code: dict[CodeType, bool] = {}
        from p2pgin.session import view as view_module

        self.node_view = _code(Node, "view")
        self.refresh = _code(type(consoles[0]), "refresh") if consoles else None
        self.named: dict[CodeType, str] = {}
        for owner, name, label in ((view_module, "build_view", "build_view"),
                                   (Rules, "from_dict", "rules_from_dict")):
            code = _code(owner, name)
            if code is not None:
                self.named[code] = label
        try:
            from p2pgin.ui import adapter
        except ImportError:
            pass
        else:
            code = _code(adapter, "gin_view")
            if code is not None:
                self.named[code] = "gin_view"

    def _is_console(self, code: CodeType) -> bool:
        known = self._console_code.get(code)
        if known is None:
            f = code.co_filename
            known = (f.startswith(UI) or (f == VIEW and code.co_name == "build_view")
                     or (f.startswith(GAMES) and f.endswith(_FACES)))
            self._console_code[code] = known
        return known

    def _under_console(self, frame: FrameType | None) -> bool:
        """Whether a console frame is on the stack above ``frame`` (any depth)."""
        while frame is not None:
            if self._is_console(frame.f_code):
                return True
            frame = frame.f_back
        return False

    def _console_asked(self, frame: FrameType | None) -> bool:
        """Whether the engine call whose caller is ``frame`` is the console's own work:
        the nearest frame of ``p2pgin`` outside the engine is a console frame. A move the
        console sends goes through the session and its machine (the protocol's work, which
        a seat does with or without a console), so their engine calls are not counted."""
        while frame is not None:
            f = frame.f_code.co_filename
            if f.startswith(PACKAGE) and not f.startswith(ENGINE):
                return self._is_console(frame.f_code)
            frame = frame.f_back
        return False

    def __call__(self, frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        code = frame.f_code
        filename = code.co_filename
        if not filename.startswith(PACKAGE):
            return
        c = self.c
        c["p2pgin"] += 1
        if filename.startswith(ENGINE):
            c["engine"] += 1
            if self._console_asked(frame.f_back):
                c["engine_console"] += 1
            elif self._under_console(frame.f_back):
                c["engine_protocol"] += 1
        label = self.named.get(code)
        if label is not None:
            c[label] += 1
        if code is self.node_view and self._under_console(frame.f_back):
            me = frame.f_locals.get("self")
            for i, node in enumerate(self.nodes):
                if node is me:
                    c[f"view_pulls_{i}"] += 1
        elif code is self.refresh:
            me = frame.f_locals.get("self")
            for i, console in enumerate(self.consoles):
                if console is me:
                    c[f"refreshes_{i}"] += 1


class Seat:
    """One node with its console application, its pipe and its drawn frames."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self._pipe_cm = create_pipe_input()
        self.pipe = self._pipe_cm.__enter__()
        session = create_app_session(input=self.pipe, output=SizedOutput())
        session.__enter__()
        try:
            self.built: ConsoleApp = create_console_app(node)
            renderer = self.built.app.renderer
            self.renders = 0
            self.last_render = 0.0
            self.on_render: Callable[[], None] | None = None
            drawn = renderer.render

            def render(*args: Any, **kwargs: Any) -> None:
                drawn(*args, **kwargs)
                self.renders += 1
                self.last_render = time.perf_counter()
                if self.on_render is not None:
                    self.on_render()

            renderer.render = render  # type: ignore[method-assign]
            self.task = asyncio.ensure_future(self.built.app.run_async())
        finally:
            session.__exit__(None, None, None)

    @property
    def console(self) -> Any:
        return self.built.console

    def screen(self) -> str:
        """The 80x24 text the renderer last drew."""
        screen = self.built.app.renderer._last_screen
        if screen is None:
            return ""
        size = SizedOutput().get_size()
        return "\n".join("".join(screen.data_buffer[y][x].char for x in range(size.columns))
                         .rstrip() for y in range(size.rows))

    async def close(self) -> None:
        if not self.built.app.is_done:
            self.built.app.exit(result="quit")
        try:
            await asyncio.wait_for(self.task, 5)
        except (TimeoutError, asyncio.CancelledError):
            self.task.cancel()
        self._pipe_cm.__exit__(None, None, None)


def _public(seat: Seat) -> tuple[Any, ...]:
    t = seat.console.table
    return (t.hand_no, t.stock, t.pile, t.to_move)


async def settle(seats: list[Seat], since: float) -> None:
    """Until both tables show the same public state, each drew a frame after ``since``,
    and no frame was drawn for :data:`QUIET` seconds."""
    def quiet() -> bool:
        last = max(s.last_render for s in seats)
        return (_public(seats[0]) == _public(seats[1])
                and all(s.last_render > since for s in seats)
                and time.perf_counter() - last >= QUIET)

    await until(quiet)


def _mover(seats: list[Seat]) -> int | None:
    turns = [s for s, seat in enumerate(seats) if seat.console.table.my_turn]
    return turns[0] if len(turns) == 1 else None


async def to_a_discard(seats: list[Seat], screens: list[str]) -> int:
    """Drive the player to move by its keys until only a discard is left; its seat."""
    async with asyncio.timeout(DEADLINE):
        while True:
            mover = _mover(seats)
            if mover is None:
                await asyncio.sleep(0.01)
                continue
            actions = seats[mover].console.table.actions
            if "discard" in actions and "stock" not in actions and "pass" not in actions:
                return mover
            if "pass" in actions:
                press = "p"
            elif "stock" in actions:
                press = "s"
            else:
                raise RuntimeError(f"no pass, stock or discard among {sorted(actions)}")
            since = time.perf_counter()
            seats[mover].pipe.send_text(press)
            await until(lambda m=mover, a=actions: seats[m].console.table.actions != a)
            await settle(seats, since)
            screens.extend(s.screen() for s in seats)


async def one_discard(seats: list[Seat], counts: Counts | None) -> float:
    """Enter from the player to move; the milliseconds until the other screen showed it."""
    mover = _mover(seats)
    assert mover is not None
    other = seats[1 - mover]
    card = seats[mover].console.cursor
    shown_at: list[float] = []

    def check() -> None:
        pile = other.console.table.pile
        if not shown_at and pile and pile[-1] == card:
            shown_at.append(time.perf_counter())

    for seat in seats:
        seat.renders = 0
    other.on_render = check
    t0 = time.perf_counter()
    if counts is not None:
        sys.setprofile(counts)
    try:
        seats[mover].pipe.send_text("\r")
        await until(lambda: bool(shown_at))
        await settle(seats, t0)
    finally:
        sys.setprofile(None)
        other.on_render = None
    return (shown_at[0] - t0) * 1000


async def floor(played: list[tuple[int, Any, bool]]) -> list[int]:
    """Engine calls of each discard of ``played`` (seat, move, is_discard: what the
    consoles sent, in order) made again by ``node.act`` at a table with no console."""
    nodes = await table()
    found: list[int] = []
    try:
        for seat, move, is_discard in played:
            node, other = nodes[seat], nodes[1 - seat]
            await until(lambda n=node, m=move: n.view.my_turn and m in n.view.legal_moves)
            if not is_discard:
                node.act(move)
                continue
            await asyncio.sleep(QUIET)
            counts = Counts(nodes, [])
            sys.setprofile(counts)
            try:
                node.act(move)
                await until(lambda o=other: o.view.my_turn)
                await asyncio.sleep(QUIET)
            finally:
                sys.setprofile(None)
            found.append(counts.c["engine"])
    finally:
        for node in nodes:
            await node.aclose()
    return found


def _median(values: list[int] | list[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


async def measure(moves: int) -> dict[str, Any]:
    nodes = await table()
    played: list[tuple[int, Any, bool]] = []
    discarding = [False]
    for i, node in enumerate(nodes):
        def act(move: Any, _i: int = i, _act: Callable[[Any], None] = node.act) -> None:
            _act(move)
            played.append((_i, move, discarding[0]))

        node.act = act  # type: ignore[method-assign]
    seats = [Seat(n) for n in nodes]
    screens: list[str] = []
    timed: list[float] = []
    counted: list[tuple[int, Counter[str]]] = []
    try:
        await settle(seats, 0.0)
        screens.extend(s.screen() for s in seats)
        for i in range(moves):
            mover = await to_a_discard(seats, screens)
            counts = Counts(nodes, [s.console for s in seats]) if i % 2 else None
            discarding[0] = True
            ms = await one_discard(seats, counts)
            discarding[0] = False
            screens.extend(s.screen() for s in seats)
            if counts is None:
                timed.append(ms)
            else:
                counts.c["renders_0"], counts.c["renders_1"] = (seats[0].renders,
                                                                seats[1].renders)
                counted.append((mover, counts.c))
    finally:
        for seat in seats:
            await seat.close()
        for node in nodes:
            await node.aclose()
    floors = await floor(played)

    def per_console(name: str) -> list[float]:
        return [_median([c[f"{name}_{m if side == 0 else 1 - m}"] for m, c in counted])
                for side in (0, 1)]

    def both(name: str) -> float:
        return _median([c[name] for _, c in counted])

    return {
        "key_to_screen_ms": {"median": round(_median(timed), 1),
                             "p90": round(_p90(timed), 1)},
        "engine_calls_per_move": both("engine_console"),
        "engine_calls_total": both("engine"),
        "protocol_engine_calls": both("engine_protocol"),
        "floor_engine_calls": _median(floors),
        "p2pgin_calls_total": both("p2pgin"),
        "view_pulls_per_move": per_console("view_pulls"),
        "redraws_per_move": per_console("renders"),
        "refreshes_per_move": per_console("refreshes"),
        "view_work": {name: both(name) for name in ("build_view", "gin_view",
                                                    "rules_from_dict")},
        "moves": moves,
        "timed_moves": len(timed),
        "counted_moves": len(counted),
        "screens": len(screens),
        "screens_digest": hashlib.sha256("\f".join(
            LOOPBACK_PORT.sub("127.0.0.1:<port>", s) for s in screens).encode()).hexdigest(),
    }


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="console.py", description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=20,
                        help="discards measured, half timed, half counted (default 20)")
    parser.add_argument("--screens-digest", action="store_true",
                        help="also print the digest of every settled screen")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    if not 2 <= args.moves <= 24:
        parser.error(f"--moves must be 2 to 24 (the discards of one hand), not {args.moves}")
    out = asyncio.run(measure(args.moves))
    digest = out.pop("screens_digest")
    if args.screens_digest:
        out["screens_digest"] = digest
    out["python"] = sys.version.split()[0]
    out["commit"] = _commit()
    if args.json:
        print(json.dumps(out))
        return 0
    k = out["key_to_screen_ms"]
    print(f"key_to_screen_ms: median {k['median']}, p90 {k['p90']} "
          f"({out['timed_moves']} discards; target: no higher than main's, same machine)")
    print(f"engine_calls_per_move: {out['engine_calls_per_move']:g} under the consoles "
          f"(target <= 150; median of {out['counted_moves']} discards); "
          f"{out['engine_calls_total']:g} in all, {out['protocol_engine_calls']:g} of "
          f"them the session's for the mover's key; floor with no console "
          f"{out['floor_engine_calls']:g}")
    mover, other = out["view_pulls_per_move"]
    print(f"view_pulls_per_move: mover {mover:g}, other {other:g} (target 1 each)")
    mover, other = out["redraws_per_move"]
    print(f"redraws_per_move: mover {mover:g}, other {other:g} (target 1 each)")
    mover, other = out["refreshes_per_move"]
    print(f"refreshes_per_move: mover {mover:g}, other {other:g} (target 1 each)")
    work = ", ".join(f"{name} {value:g}" for name, value in out["view_work"].items())
    print(f"view work beneath, both consoles: {work}")
    if args.screens_digest:
        print(f"screens digest: {digest} ({out['screens']} screens)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
