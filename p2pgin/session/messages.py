"""The message catalog of protocol version 2: every entry type and control frame.

Each signed message is a frozen, slotted, keyword-only dataclass that validates on
construction and converts to and from an entry ``body`` (``from_body`` is strict:
exactly the documented keys, each of the documented kind). ``FIELDS`` on every class is
the single source of the field tables in ``protocol/PROTOCOL.md``. Payloads of the deck
protocol (toss, shuffle, strips) and of the game (moves, rules) are JSON objects that
the mental layer and the game validate; here they are checked only for their shape.

Frames on the wire (inside the private link) are canonical JSON objects of two shapes:
a signed entry (the log layer's seven fields) or a control frame ``{"ctl": NAME, ...}``
(see :data:`CONTROL`), which is not signed and never logged.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Final

from p2pgin.log.entry import MAX_SEATS
from p2pgin.session.errors import BadBody

__all__ = [
    "CONTROL",
    "MESSAGES",
    "PROTOCOL_VERSION",
    "UNLOGGED",
    "Deal",
    "End",
    "EndKind",
    "Hello",
    "Message",
    "MoveMessage",
    "Rematch",
    "RematchAnswer",
    "Resume",
    "ResumeConsent",
    "Share",
    "Shuffle",
    "TakeBackAnswer",
    "TakeBackRequest",
    "TossCommit",
    "TossReveal",
    "parse_body",
]

#: Version spoken by this implementation; a hello with another version is refused.
PROTOCOL_VERSION: Final = 2
_MAX_NAME: Final = 40
_MAX_TEXT: Final = 4096
_MAX_EVIDENCE: Final = 2


def _hex(value: Any, nbytes: int) -> bool:
    if not isinstance(value, str) or len(value) != 2 * nbytes or value != value.lower():
        return False
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True


def _check_kind(kind: str, name: str, value: Any) -> Any:
    """Validate one body field by its documented kind; return the value."""
    if kind == "int":
        if type(value) is not int or value < 0:
            raise BadBody(f"{name} must be a non-negative int")
    elif kind == "seat":
        if type(value) is not int or not 0 <= value < MAX_SEATS:
            raise BadBody(f"{name} must be a seat 0..{MAX_SEATS - 1}")
    elif kind == "seat?":
        if value is not None:
            _check_kind("seat", name, value)
    elif kind == "seats":
        if type(value) is not int or not 2 <= value <= MAX_SEATS:
            raise BadBody(f"{name} must be a table size 2..{MAX_SEATS}")
    elif kind == "bool":
        if type(value) is not bool:
            raise BadBody(f"{name} must be a bool")
    elif kind == "str":
        if not isinstance(value, str) or len(value) > _MAX_TEXT:
            raise BadBody(f"{name} must be a string of at most {_MAX_TEXT} characters")
    elif kind == "word":
        if not isinstance(value, str) or not 1 <= len(value) <= 32 or not (
                value.replace("_", "").isalnum() and value.isascii() and value.islower()):
            raise BadBody(f"{name} must be a lower-case word of 1..32 letters, digits or _")
    elif kind == "name":
        if (not isinstance(value, str) or not 1 <= len(value) <= _MAX_NAME
                or not value.isprintable()):
            raise BadBody(f"{name} must be 1..{_MAX_NAME} printable characters")
    elif kind == "hex32":
        if not _hex(value, 32):
            raise BadBody(f"{name} must be 32 bytes of lowercase hex")
    elif kind == "hex64":
        if not _hex(value, 64):
            raise BadBody(f"{name} must be 64 bytes of lowercase hex")
    elif kind == "object":
        if not isinstance(value, dict):
            raise BadBody(f"{name} must be a JSON object")
    elif kind == "objects":
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise BadBody(f"{name} must be a list of JSON objects")
    elif kind == "entries":
        if (not isinstance(value, list) or len(value) > _MAX_EVIDENCE
                or not all(isinstance(v, dict) for v in value)):
            raise BadBody(f"{name} must be a list of at most {_MAX_EVIDENCE} entries")
    elif kind == "end_kind":
        if value not in EndKind.__members__.values():
            raise BadBody(f"{name} must be one of {sorted(EndKind)}")
        return EndKind(value)
    else:  # pragma: no cover - a catalog typo
        raise AssertionError(f"unknown field kind {kind!r}")
    return value


class Message:
    """Base of signed messages: ``TYPE`` is the entry type, ``SENDER`` who may send it.

    ``FIELDS`` maps each body key to ``(kind, meaning)``; ``SENDER`` is descriptive (the
    match machine is what enforces it). ``OPTIONAL`` names keys that may be left out:
    a boolean is then omitted when false (one spelling: present means true).
    """

    __slots__ = ()
    TYPE: ClassVar[str] = ""
    SENDER: ClassVar[str] = ""
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {}
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        for name, (kind, _) in self.FIELDS.items():
            value = getattr(self, name)
            if name in self.OPTIONAL and value is None:
                continue
            object.__setattr__(self, name, _check_kind(kind, name, value))

    @classmethod
    def from_body(cls, body: Any) -> Message:
        """Strictly parse an entry body.

        Raises:
            BadBody: not exactly the documented keys, or a value of the wrong kind.
        """
        if not isinstance(body, dict):
            raise BadBody(f"{cls.TYPE}: body must be an object")
        keys = set(body)
        if not set(cls.FIELDS) - cls.OPTIONAL <= keys <= set(cls.FIELDS):
            raise BadBody(f"{cls.TYPE} takes keys {sorted(cls.FIELDS)}, got {sorted(body)}")
        for name in cls.OPTIONAL & keys:
            if cls.FIELDS[name][0] == "bool" and body[name] is not True:
                raise BadBody(f"{cls.TYPE}: {name} is omitted when false, else true")
        return cls(**body)

    def to_body(self) -> dict[str, Any]:
        """The entry body (JSON values only; optional keys only when set)."""
        out: dict[str, Any] = {}
        for name in self.FIELDS:
            value = getattr(self, name)
            if name in self.OPTIONAL and (value is None or value is False):
                continue
            out[name] = value.value if isinstance(value, StrEnum) else value
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Message):
    """A seat's signed introduction: who I am, which seat, and the game I agree to play.

    Not a numbered log entry: the table's hellos (one per seat, in seat order) head the
    game file and fix the session id. A joiner signs its hello only after it has seen
    the host's, repeating the host's game and rules (that is its consent to them) and
    naming the host's hello by hash, so a hello cannot be moved to another table.
    """

    TYPE: ClassVar[str] = "hello"
    SENDER: ClassVar[str] = "every seat"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "version": ("int", "protocol version (2)"),
        "seat": ("seat", "the sender's seat: 0 is the host"),
        "seats": ("seats", "how many seats the table has (2..6)"),
        "game": ("word", "the game: gin, gin3, team_gin or rummy"),
        "rules": ("object", "the game's options by name (the host's stand; a joiner "
                  "repeats them)"),
        "key": ("hex32", "the sender's Ed25519 identity public key; signs this hello"),
        "nonce": ("hex32", "32 fresh random bytes: makes every session id new"),
        "name": ("name", "display name, 1..40 printable characters"),
        "table": ("hex32", "joiners only: the hash of the host's hello"),
        "port": ("int", "optional: the TCP port this seat listens on for the other seats"),
        "bot": ("bool", "optional, present (true) only for a computer player: the only "
                "kind of seat that may grant a take-back"),
    }
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"table", "port", "bot"})
    version: int
    seat: int
    seats: int
    game: str
    rules: dict[str, Any]
    key: str
    nonce: str
    name: str
    table: str | None = None
    port: int | None = None
    bot: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class TossCommit(Message):
    """A seat's commitment to its coin-toss nonce (seats in order, before any reveal)."""

    TYPE: ClassVar[str] = "toss_commit"
    SENDER: ClassVar[str] = "each seat in order"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "toss": ("object", "deck-protocol coin-toss commitment payload"),
    }
    toss: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class TossReveal(Message):
    """A seat's coin-toss nonce; after every seat's, the table's seed is fixed."""

    TYPE: ClassVar[str] = "toss_reveal"
    SENDER: ClassVar[str] = "each seat in order"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "toss": ("object", "deck-protocol coin-toss reveal payload"),
    }
    toss: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shuffle(Message):
    """One shuffle step of a deck: the previous deck permuted and masked with the
    sender's key, with a zero-knowledge proof that it is exactly that."""

    TYPE: ClassVar[str] = "shuffle"
    SENDER: ClassVar[str] = "each player of the deck in order"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "hand": ("int", "hand number, from 1"),
        "deck": ("int", "the deck's index in the hand (0 first)"),
        "step": ("object", "deck-protocol shuffle payload (output deck, key, proof)"),
    }
    hand: int
    deck: int
    step: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal(Message):
    """The opening deal of a deck: the sender's proven strips of every dealt position
    that is not its own and of every card dealt face up."""

    TYPE: ClassVar[str] = "deal"
    SENDER: ClassVar[str] = "each player of the deck in order"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "hand": ("int", "hand number"),
        "deck": ("int", "the deck's index in the hand"),
        "strips": ("object", "deck-protocol strip payload"),
    }
    hand: int
    deck: int
    strips: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveMessage(Message):
    """A move of the seat to move, with its own proven strips of the cards the move
    makes public (a discard, a knock's hand, a meld)."""

    TYPE: ClassVar[str] = "move"
    SENDER: ClassVar[str] = "the seat to move"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "move": ("object", "the game's move in wire form ({\"move\": kind, ...})"),
        "opens": ("objects", "deck-protocol strip payloads, one per deck in increasing "
                  "deck order, of the positions the move opens; empty when none"),
    }
    move: dict[str, Any]
    opens: list[dict[str, Any]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Share(Message):
    """A seat's proven strips of positions the deck must disclose now (a stock draw:
    every deck player but the drawer, in order)."""

    TYPE: ClassVar[str] = "share"
    SENDER: ClassVar[str] = "each other player of the deck in order"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "hand": ("int", "hand number"),
        "deck": ("int", "the deck's index in the hand"),
        "strips": ("object", "deck-protocol strip payload"),
    }
    hand: int
    deck: int
    strips: dict[str, Any]


class EndKind(StrEnum):
    """How an ``end`` entry ends the match."""

    ABANDON = "abandon"  # the author leaves
    TIMEOUT = "timeout"  # the author waited past the deadline for the seat that owes a step
    ACCUSE = "accuse"    # the author holds signed entries of a seat that break a rule
    CROSSED = "crossed"  # another seat's ending took a position this log already filled


@dataclass(frozen=True, slots=True, kw_only=True)
class End(Message):
    """The last entry of a match that does not finish: who ends it, why, and the
    signed evidence anyone re-checks against the log."""

    TYPE: ClassVar[str] = "end"
    SENDER: ClassVar[str] = "any seat"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "kind": ("end_kind", "abandon, timeout, accuse or crossed"),
        "seat": ("seat?", "the seat the ending names: the one who leaves, is silent, "
                 "is accused or wrote the crossing entry"),
        "owed": ("str", "timeout: the step the silent seat owes (as the machine names it); "
                 "else empty"),
        "rule": ("str", "accuse: the rule the accused entry breaks; else empty"),
        "evidence": ("entries", "the signed entries the ending rests on (accuse: the "
                     "offending entry, or both entries of an equivocation; crossed: the "
                     "other seat's ending)"),
        "reason": ("str", "free text for people"),
    }
    kind: EndKind
    seat: int | None
    owed: str = ""
    rule: str = ""
    evidence: list[dict[str, Any]]
    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rematch(Message):
    """After a finished match, a seat offers another one under the same rules."""

    TYPE: ClassVar[str] = "rematch"
    SENDER: ClassVar[str] = "any seat, once the match is over"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchAnswer(Message):
    """Every other seat's answer to a rematch offer, in seat order; when all accept, a
    new match starts in the same log (hand numbers go on)."""

    TYPE: ClassVar[str] = "rematch_answer"
    SENDER: ClassVar[str] = "each seat but the offerer, in order"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "accept": ("bool", "true accepts; false declines (the offer lapses)"),
    }
    accept: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeBackRequest(Message):
    """A player asks the computer opponent to take back its own last ``moves`` moves of
    this hand. Signed like an entry with the ``seq`` and ``prev`` of the position it is
    made at, but never logged by itself: the computer's ``takeback_answer`` at that very
    position carries its signature."""

    TYPE: ClassVar[str] = "takeback_request"
    SENDER: ClassVar[str] = "a person playing against a computer"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "moves": ("int", "how many of the requester's own most recent moves of this hand "
                  "to take back (at least 1)"),
    }
    moves: int

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if self.moves < 1:
            raise BadBody("moves must be at least 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeBackAnswer(Message):
    """The computer opponent's answer to a take-back request, logged at the position
    the request names; on ``grant`` every seat replays the hand without the moves."""

    TYPE: ClassVar[str] = "takeback_answer"
    SENDER: ClassVar[str] = "a computer seat (its hello says bot)"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "moves": ("int", "the request's moves (at least 1)"),
        "request_sig": ("hex64", "the requester's signature of its takeback_request, whose "
                        "session, seq and prev are this entry's"),
        "requester": ("seat", "the seat that asked"),
        "grant": ("bool", "true takes the moves back; false leaves the hand as it is"),
    }
    moves: int
    request_sig: str
    requester: int
    grant: bool

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if self.moves < 1:
            raise BadBody("moves must be at least 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumeConsent(Message):
    """A seat agrees that a match ended by a broken link goes on (PROTOCOL.md §5, "A
    broken link heals").
    Signed like an entry with the ``seq`` and ``prev`` of the ``resume`` it agrees to
    (the position after the log's timeout, on top of it), but never logged by itself:
    that ``resume`` carries its signature."""

    TYPE: ClassVar[str] = "resume_consent"
    SENDER: ClassVar[str] = "every seat but the resume's writer"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "crossed": ("hex32", "the hash of the writer's own timeout the resume carries"),
    }
    crossed: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume(Message):
    """After a broken link, the match goes on: the seat the log's timeout named shows
    its own timeout, which crossed the log (it waited for a step the log holds), and
    every other seat's consent; the log goes on from the state before the timeout."""

    TYPE: ClassVar[str] = "resume"
    SENDER: ClassVar[str] = "the seat the ending timeout named"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "crossed": ("entries", "the writer's own timeout, at an earlier position this log "
                    "filled differently (exactly one entry)"),
        "consents": ("objects", "every other seat's consent in seat order, each "
                     "{\"seat\": N, \"sig\": hex64}: its signature of a resume_consent "
                     "with this entry's session, seq and prev"),
    }
    crossed: list[dict[str, Any]]
    consents: list[dict[str, Any]]

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if len(self.crossed) != 1:
            raise BadBody("crossed carries exactly one entry")
        seats = []
        for consent in self.consents:
            if set(consent) != {"seat", "sig"}:
                raise BadBody("a consent is {\"seat\": N, \"sig\": hex64}")
            seats.append(_check_kind("seat", "consent seat", consent["seat"]))
            _check_kind("hex64", "consent sig", consent["sig"])
        if seats != sorted(set(seats)) or not seats:
            raise BadBody("consents: one per other seat, in seat order")


#: Signed message types by entry ``type`` (every one but ``hello``,
#: ``takeback_request`` and ``resume_consent`` is a numbered log entry).
MESSAGES: Final[dict[str, type[Message]]] = {
    cls.TYPE: cls
    for cls in (
        Hello, TossCommit, TossReveal, Shuffle, Deal, MoveMessage, Share, End, Rematch,
        RematchAnswer, TakeBackRequest, TakeBackAnswer, Resume, ResumeConsent,
    )
}

#: Signed types that are never numbered log entries.
UNLOGGED: Final = frozenset({Hello.TYPE, TakeBackRequest.TYPE, ResumeConsent.TYPE})

#: Control frames: unsigned (the private link authenticates them), never logged.
#: name -> {field: meaning}.
CONTROL: Final[dict[str, dict[str, str]]] = {
    "ping": {"n": "int echoed in the pong"},
    "pong": {"n": "the ping's n"},
    "head": {
        "session": "session id (hex)",
        "next": "the sender's next seq (its log length)",
        "hash": "hash of the sender's last entry, or zeros",
    },
    "need": {"from": "the first seq the sender lacks or cannot link: send from there on"},
    "table": {
        "hellos": "every seat's signed hello, seat order (the host's lobby is full)",
        "addresses": "per seat, \"host:port\" where it listens, or \"\"",
    },
    "lobby": {
        "hello": "the host's signed hello",
        "seat": "the seat offered to this joiner, or null (the table is full)",
        "seated": "the names of the seats taken so far, \"\" for a free seat",
    },
    "decline": {"reason": "why a joiner leaves the lobby (the host's rules, ...)",
                "name": "the joiner's display name (unsigned: for the host's screen only)"},
    "watch": {"from": "a spectator asks for the log from this seq on"},
}


def parse_body(type_: str, body: Any) -> Message:
    """The message for an entry ``type`` and ``body``.

    Raises:
        BadBody: unknown type, or a body that is not exactly the documented fields.
    """
    cls = MESSAGES.get(type_)
    if cls is None:
        raise BadBody(f"unknown message type {type_!r}")
    try:
        return cls.from_body(body)
    except BadBody:
        raise
    except (TypeError, ValueError) as exc:
        raise BadBody(f"{type_}: {exc}") from None
