"""Control frames: the unsigned, never-logged frames between linked peers, as values.

One parser (:func:`read_control`, :func:`parse_control`) turns a frame's bytes into one
frozen value per kind, or a :class:`BadControl` with the one-line detail the session
drops the link with. ``to_bytes`` writes the canonical JSON the session sends, so a
frame parsed and written again is the same bytes. The parser is exactly as lenient as
the protocol has always been (PROTOCOL.md lists the fields, :data:`messages.CONTROL`):
a lobby frame's non-int ``seat`` offers nothing, a decline's ``reason`` and ``name`` are
cut to 80 and 40 characters, unknown extra fields of most kinds are ignored. What a
kind means depends on who receives it and when; that is the session's table, not this
module's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from p2pgin.log.canonical import JsonValue, canonical_dumps, canonical_loads
from p2pgin.log.entry import Entry
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.session.errors import Unattributable

__all__ = [
    "CONTROL_KINDS",
    "BadControl",
    "Control",
    "Decline",
    "Head",
    "LobbyOffer",
    "Need",
    "Ping",
    "Pong",
    "TableFrame",
    "Watch",
    "control_kind",
    "parse_control",
    "read_control",
    "unknown_control",
]

#: A decline's reason and name are cut to these lengths (they reach the host's screen).
_MAX_REASON: Final = 80
_MAX_NAME: Final = 40


class BadControl(Unattributable):
    """A control frame that is not one (or not one this side takes): the link is dropped
    with :attr:`detail`; it proves nothing about any seat."""


def unknown_control(kind: str) -> BadControl:
    """The refusal of a frame of an unknown kind, or of a kind not taken here and now."""
    return BadControl(f"unknown or malformed control frame {kind!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Control:
    """Base of every control frame; ``KIND`` is its ``ctl`` word."""

    KIND: ClassVar[str] = ""

    def fields(self) -> dict[str, JsonValue]:
        """The frame's fields besides ``ctl``, as they go on the wire."""
        raise NotImplementedError

    def to_bytes(self) -> bytes:
        """The canonical JSON of the frame (what the session sends)."""
        return canonical_dumps({"ctl": self.KIND, **self.fields()})


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(Control):
    """A keep-alive; the other side answers with a :class:`Pong` of the same ``n``."""

    KIND: ClassVar[str] = "ping"
    n: int

    def fields(self) -> dict[str, JsonValue]:
        return {"n": self.n}


@dataclass(frozen=True, slots=True, kw_only=True)
class Pong(Control):
    """The answer to a ping (``n`` is None when the other side sent no int)."""

    KIND: ClassVar[str] = "pong"
    n: int | None

    def fields(self) -> dict[str, JsonValue]:
        return {"n": self.n}


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyOffer(Control):
    """(Host to newcomer) the host's hello, the seat offered, who is seated.

    ``seat_given`` tells a frame that says ``"seat": null`` (every seat is taken) from
    one without the field. ``hello_error`` is why the ``hello`` field held no entry
    (None when it was an entry or absent): the joiner refuses it only when it reads it.
    """

    KIND: ClassVar[str] = "lobby"
    hello: Entry | None
    seat: int | None
    seated: tuple[str, ...] = ()
    seat_given: bool = True
    hello_error: str | None = None

    def fields(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {"hello": None if self.hello is None else self.hello.to_dict()}
        if self.seat_given:
            out["seat"] = self.seat
        out["seated"] = list(self.seated)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Decline(Control):
    """(Joiner to host) it leaves the lobby, and why, in its display name."""

    KIND: ClassVar[str] = "decline"
    reason: str
    name: str

    def fields(self) -> dict[str, JsonValue]:
        return {"reason": self.reason, "name": self.name}


@dataclass(frozen=True, slots=True, kw_only=True)
class TableFrame(Control):
    """The table formed: every seat's hello, seat order, and where each seat listens.

    ``hellos_error`` is why the ``hellos`` field held no entries (None when it did)."""

    KIND: ClassVar[str] = "table"
    hellos: tuple[Entry, ...]
    addresses: tuple[str, ...] = ()
    hellos_error: str | None = None

    def fields(self) -> dict[str, JsonValue]:
        return {"hellos": [h.to_dict() for h in self.hellos], "addresses": list(self.addresses)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Watch(Control):
    """A spectator asks to watch the table from log position ``start``."""

    KIND: ClassVar[str] = "watch"
    start: int = 0

    def fields(self) -> dict[str, JsonValue]:
        return {"from": self.start}


@dataclass(frozen=True, slots=True, kw_only=True)
class Head(Control):
    """The sender's log: its session, its next seq and the hash of its last entry
    (``hash`` is None when the frame carried no string)."""

    KIND: ClassVar[str] = "head"
    session: str
    next: int
    hash: str | None

    def fields(self) -> dict[str, JsonValue]:
        return {"session": self.session, "next": self.next, "hash": self.hash}


@dataclass(frozen=True, slots=True, kw_only=True)
class Need(Control):
    """The sender lacks (or cannot link) the log from ``start`` on: send from there."""

    KIND: ClassVar[str] = "need"
    start: int

    def fields(self) -> dict[str, JsonValue]:
        return {"from": self.start}


#: Every kind of control frame by its ``ctl`` word.
CONTROL_KINDS: Final[dict[str, type[Control]]] = {
    cls.KIND: cls for cls in (Ping, Pong, LobbyOffer, Decline, TableFrame, Watch, Head, Need)}


def control_kind(data: bytes) -> tuple[str, Mapping[str, JsonValue]]:
    """The ``ctl`` word and the object of a frame that is not a signed entry.

    Raises:
        BadControl: not canonical JSON, or not an object with a string ``ctl``.
    """
    try:
        obj = canonical_loads(data)
    except CanonicalError as exc:
        raise BadControl(f"frame is not canonical JSON: {exc.detail}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("ctl"), str):
        raise BadControl("a frame is a signed entry or a control frame")
    return obj["ctl"], obj


def _entries(raw: JsonValue) -> tuple[tuple[Entry, ...], str | None]:
    """The entries of a ``table`` frame's ``hellos`` (none if not a list), or why not."""
    if not isinstance(raw, list):
        return (), None
    try:
        return tuple(Entry(**h) for h in raw), None
    except (LogError, TypeError) as exc:
        return (), str(exc)


def _parse_lobby(obj: Mapping[str, JsonValue]) -> LobbyOffer:
    raw, hello, error = obj.get("hello"), None, None
    if raw is not None:
        try:
            hello = Entry(**raw)
        except (LogError, TypeError) as exc:
            error = str(exc)
    seat, seated = obj.get("seat"), obj.get("seated")
    names = (tuple(seated) if isinstance(seated, list) and all(isinstance(n, str) for n in seated)
             else ())
    return LobbyOffer(hello=hello, seat=seat if type(seat) is int else None, seated=names,
                      seat_given="seat" in obj, hello_error=error)


def _parse_ping(obj: Mapping[str, JsonValue]) -> Ping:
    n = obj.get("n")
    if type(n) is not int or len(obj) != 2:
        raise unknown_control(Ping.KIND)
    return Ping(n=n)


def _parse_pong(obj: Mapping[str, JsonValue]) -> Pong:
    if len(obj) != 2:
        raise unknown_control(Pong.KIND)
    n = obj.get("n")
    return Pong(n=n if type(n) is int else None)


def _parse_decline(obj: Mapping[str, JsonValue]) -> Decline:
    reason, name = obj.get("reason"), obj.get("name")
    return Decline(reason=reason[:_MAX_REASON] if isinstance(reason, str) else "",
                   name=name[:_MAX_NAME] if isinstance(name, str) else "")


def _parse_table(obj: Mapping[str, JsonValue]) -> TableFrame:
    hellos, error = _entries(obj.get("hellos"))
    addresses = obj.get("addresses")
    where = (tuple(a if isinstance(a, str) else "" for a in addresses)
             if isinstance(addresses, list) else ())
    return TableFrame(hellos=hellos, addresses=where, hellos_error=error)


def _parse_watch(obj: Mapping[str, JsonValue]) -> Watch:
    start = obj.get("from")
    return Watch(start=start if type(start) is int and start >= 0 else 0)


def _parse_head(obj: Mapping[str, JsonValue]) -> Head:
    session, nxt, head = obj.get("session"), obj.get("next"), obj.get("hash")
    if not isinstance(session, str) or type(nxt) is not int or nxt < 0:
        raise BadControl("head: not this table's, or malformed")
    return Head(session=session, next=nxt, hash=head if isinstance(head, str) else None)


def _parse_need(obj: Mapping[str, JsonValue]) -> Need:
    start = obj.get("from")
    if type(start) is not int or start < 0:
        raise BadControl("need: from is a non-negative int")
    return Need(start=start)


_PARSERS: Final[dict[str, Callable[[Mapping[str, JsonValue]], Control]]] = {
    Ping.KIND: _parse_ping, Pong.KIND: _parse_pong, LobbyOffer.KIND: _parse_lobby,
    Decline.KIND: _parse_decline, TableFrame.KIND: _parse_table, Watch.KIND: _parse_watch,
    Head.KIND: _parse_head, Need.KIND: _parse_need}


def parse_control(obj: Mapping[str, JsonValue]) -> Control:
    """The control frame an object with a string ``ctl`` is.

    Raises:
        BadControl: an unknown kind, or a malformed frame of a known one (today's details:
            ``unknown or malformed control frame 'x'``, ``need: from is a non-negative
            int``, ``head: not this table's, or malformed``).
    """
    kind = obj.get("ctl")
    if not isinstance(kind, str):
        raise BadControl("a frame is a signed entry or a control frame")
    parse = _PARSERS.get(kind)
    if parse is None:
        raise unknown_control(kind)
    return parse(obj)


def read_control(data: bytes) -> Control:
    """:func:`parse_control` of a frame's bytes (see :func:`control_kind`)."""
    return parse_control(control_kind(data)[1])
