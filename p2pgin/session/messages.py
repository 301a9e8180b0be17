"""The message catalog: every logged entry type and every control frame, with its fields.

Each logged message is a frozen, slotted, keyword-only dataclass that validates on
construction and converts to and from an entry ``body`` (``from_body`` is strict: exactly
the documented keys, each of the documented kind). ``FIELDS`` on every class is the single
source of the field table in ``protocol/PROTOCOL.md``. Deck-protocol payloads (toss,
shuffle, shares, audit secrets) are JSON objects whose inner fields the mental layer
defines and validates; here they are checked only to be objects.

Frames on the wire are canonical JSON objects of two shapes: a signed entry (the log
layer's seven fields; types ``hello`` and ``error`` are signed but never appended to the
log) or a control frame ``{"ctl": NAME, ...}`` (ping, pong, head), which is not signed
and not logged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from p2pgin.engine.moves import Move, MoveFormatError, move_from_dict
from p2pgin.engine.rules import Rules, RulesError
from p2pgin.session.errors import MalformedFrame

__all__ = [
    "CONTROL",
    "MESSAGES",
    "PROTOCOL_VERSION",
    "Abandon",
    "Accept",
    "AuditResult",
    "AuditReveal",
    "Deal",
    "Decline",
    "DrawShare",
    "ErrorMessage",
    "Hello",
    "Message",
    "MoveMessage",
    "Rematch",
    "RematchAnswer",
    "Shuffle",
    "TakeBackAnswer",
    "TakeBackRequest",
    "TossCommit",
    "TossReveal",
    "parse_body",
]

#: Version spoken by this implementation; a hello with another version is refused.
PROTOCOL_VERSION: Final = 1
_MAX_NAME: Final = 40


def _bad(what: str) -> MalformedFrame:
    return MalformedFrame(what)


def _check_kind(kind: str, name: str, value: Any) -> Any:
    """Validate one body field by its documented kind; return the typed value."""
    if kind == "int":
        if type(value) is not int or value < 0:
            raise _bad(f"{name} must be a non-negative int")
        return value
    if kind == "player":
        if type(value) is not int or value not in (0, 1):
            raise _bad(f"{name} must be 0 or 1")
        return value
    if kind == "player?":
        return None if value is None else _check_kind("player", name, value)
    if kind == "bool":
        if type(value) is not bool:
            raise _bad(f"{name} must be a bool")
        return value
    if kind == "str":
        if not isinstance(value, str) or len(value) > 4096:
            raise _bad(f"{name} must be a string of at most 4096 characters")
        return value
    if kind == "name":
        if (not isinstance(value, str) or not 1 <= len(value) <= _MAX_NAME
                or not value.isprintable()):
            raise _bad(f"{name} must be 1..{_MAX_NAME} printable characters")
        return value
    if kind == "hex32":
        if not isinstance(value, str) or len(value) != 64 or value != value.lower():
            raise _bad(f"{name} must be 32 bytes of lowercase hex")
        try:
            bytes.fromhex(value)
        except ValueError:
            raise _bad(f"{name} must be 32 bytes of lowercase hex") from None
        return value
    if kind == "hex64":
        if not isinstance(value, str) or len(value) != 128 or value != value.lower():
            raise _bad(f"{name} must be 64 bytes of lowercase hex")
        try:
            bytes.fromhex(value)
        except ValueError:
            raise _bad(f"{name} must be 64 bytes of lowercase hex") from None
        return value
    if kind == "object":
        if not isinstance(value, dict):
            raise _bad(f"{name} must be a JSON object")
        return value
    if kind == "object?":
        return None if value is None else _check_kind("object", name, value)
    if kind == "rules":
        try:
            return Rules.from_dict(value)
        except (RulesError, TypeError) as exc:
            raise _bad(f"{name}: {exc}") from None
    if kind == "move":
        try:
            return move_from_dict(value)
        except (MoveFormatError, TypeError) as exc:
            raise _bad(f"{name}: {exc}") from None
    if kind == "role":
        if value not in ("host", "join"):
            raise _bad(f"{name} must be 'host' or 'join'")
        return value
    raise AssertionError(f"unknown field kind {kind!r}")  # pragma: no cover


def _to_json(kind: str, value: Any) -> Any:
    if kind == "rules":
        return value.to_dict()
    if kind == "move":
        return value.to_dict()
    return value


_PARSED: Final = (Rules, Move)


class Message:
    """Base of logged messages: ``TYPE`` is the entry type, ``SENDER`` who may send it.

    ``FIELDS`` maps each body key to ``(kind, meaning)``; ``SENDER`` is descriptive
    (the transition table in ``session.py`` is what enforces it). ``OPTIONAL`` names
    boolean keys that are omitted when false (one spelling each: present means true), so
    adding one leaves every existing body byte for byte as it was.
    """

    __slots__ = ()
    TYPE: ClassVar[str] = ""
    SENDER: ClassVar[str] = ""
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {}
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        # NB: FIELDS names exactly the dataclass fields (the body keys); iterating it
        # spares a dataclasses.fields() tuple per message.
        for name, (kind, _) in self.FIELDS.items():
            value = getattr(self, name)
            if kind in ("rules", "move") and isinstance(value, _PARSED):
                continue
            object.__setattr__(self, name, _check_kind(kind, name, value))

    @classmethod
    def from_body(cls, body: Any) -> Message:
        """Strictly parse an entry body. Raises ``MalformedFrame`` naming the problem."""
        if not isinstance(body, dict):
            raise _bad(f"{cls.TYPE}: body must be an object")
        keys = set(body)
        if not set(cls.FIELDS) - cls.OPTIONAL <= keys <= set(cls.FIELDS):
            raise _bad(f"{cls.TYPE} takes keys {sorted(cls.FIELDS)}, got {sorted(body)}")
        for name in cls.OPTIONAL & keys:
            if body[name] is not True:
                raise _bad(f"{cls.TYPE}: {name} is omitted when false, else true")
        return cls(**body)

    def to_body(self) -> dict[str, Any]:
        """The entry body (JSON values only; optional keys only when true)."""
        return {
            name: _to_json(kind, getattr(self, name)) for name, (kind, _) in self.FIELDS.items()
            if name not in self.OPTIONAL or getattr(self, name)
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Message):
    """Opens a connection: who I am and what I propose (signed by ``key``, not logged as
    a numbered entry; both hellos head the game file and fix the session id)."""

    TYPE: ClassVar[str] = "hello"
    SENDER: ClassVar[str] = "both"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "version": ("int", "protocol version (1)"),
        "role": ("role", "'host' (player 0) or 'join' (player 1)"),
        "key": ("hex32", "the sender's Ed25519 identity public key; signs this hello"),
        "nonce": ("hex32", "32 fresh random bytes: makes every session id new"),
        "name": ("name", "display name, 1..40 printable characters"),
        "rules": ("rules", "proposed rule options (all of them, by name); the host's stand"),
        "bot": ("bool", "optional, present (true) only for a computer opponent: the only "
                "kind of peer that may grant a take-back"),
    }
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"bot"})
    version: int
    role: str
    key: str
    nonce: str
    name: str
    rules: Rules
    bot: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Accept(Message):
    """The joiner accepts the host's rules; first entry of the log (seq 0)."""

    TYPE: ClassVar[str] = "accept"
    SENDER: ClassVar[str] = "joiner"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "rules": ("rules", "the rules accepted: must equal the host's hello rules"),
    }
    rules: Rules


@dataclass(frozen=True, slots=True, kw_only=True)
class Decline(Message):
    """The joiner declines the host's rules; the session ends without a match."""

    TYPE: ClassVar[str] = "decline"
    SENDER: ClassVar[str] = "joiner"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "reason": ("str", "free text for the host's screen"),
    }
    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class TossCommit(Message):
    """First step of the commit-reveal coin toss (first dealer and session seed)."""

    TYPE: ClassVar[str] = "toss_commit"
    SENDER: ClassVar[str] = "host, then joiner"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "toss": ("object", "deck-protocol coin-toss commitment payload"),
    }
    toss: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class TossReveal(Message):
    """Reveal of a coin-toss contribution; after both, first dealer and seed are fixed."""

    TYPE: ClassVar[str] = "toss_reveal"
    SENDER: ClassVar[str] = "host, then joiner"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "toss": ("object", "deck-protocol coin-toss reveal payload"),
    }
    toss: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shuffle(Message):
    """One shuffle step of this hand's deck: the dealer's mask (mask every card with one
    key, permute), the non-dealer's remask (a key per position, permute), the dealer's
    lock (a key per position, committed; whole-deck mask stripped)."""

    TYPE: ClassVar[str] = "shuffle"
    SENDER: ClassVar[str] = "dealer, non-dealer, dealer"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "hand": ("int", "hand number, from 1"),
        "step": ("object", "deck-protocol payload deck.mask, deck.remask or deck.lock"),
    }
    hand: int
    step: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal(Message):
    """Private shares for the opponent's ten positions and this peer's upcard share."""

    TYPE: ClassVar[str] = "deal"
    SENDER: ClassVar[str] = "dealer, then non-dealer"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "shares": ("object", "deck-protocol shares: the opponent's positions (even to the "
                   "non-dealer, odd to the dealer)"),
        "upcard": ("object", "deck-protocol open share of position 20"),
    }
    shares: dict[str, Any]
    upcard: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveMessage(Message):
    """A move of the rules engine by the player to move.

    ``open`` carries the mover's own opening shares for the cards the move makes public:
    the discarded card; the knocker's eleven cards; big gin's eleven; the defender's ten.
    """

    TYPE: ClassVar[str] = "move"
    SENDER: ClassVar[str] = "the player to move"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "move": ("move", "the engine move (wire form of p2pgin.engine.moves)"),
        "open": ("object?", "deck-protocol open shares, or null when nothing opens"),
    }
    move: Move
    open: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawShare(Message):
    """After a stock draw, the other peer's private share of the drawn position."""

    TYPE: ClassVar[str] = "draw_share"
    SENDER: ClassVar[str] = "the player not drawing"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "position": ("int", "the stock position just drawn"),
        "share": ("object", "deck-protocol private share for the drawer"),
    }
    position: int
    share: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditReveal(Message):
    """End of hand: the sender discloses this hand's shuffle secrets."""

    TYPE: ClassVar[str] = "audit"
    SENDER: ClassVar[str] = "dealer, then non-dealer"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "hand": ("int", "hand number"),
        "secrets": ("object", "deck-protocol audit disclosure"),
    }
    hand: int
    secrets: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditResult(Message):
    """A peer's signed verdict on the hand's audit (recomputed from both disclosures)."""

    TYPE: ClassVar[str] = "audit_result"
    SENDER: ClassVar[str] = "non-dealer, then dealer"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "hand": ("int", "hand number"),
        "ok": ("bool", "true when every step checked out"),
        "rule": ("str", "empty, or the deck rule the culprit broke"),
        "culprit": ("player?", "null, or the player named by the audit"),
    }
    hand: int
    ok: bool
    rule: str = ""
    culprit: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Rematch(Message):
    """After the match, its loser offers another match under the same rules."""

    TYPE: ClassVar[str] = "rematch"
    SENDER: ClassVar[str] = "the match's loser"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchAnswer(Message):
    """The winner's answer; on ``accept`` a new match starts, the winner dealing first."""

    TYPE: ClassVar[str] = "rematch_answer"
    SENDER: ClassVar[str] = "the match's winner"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "accept": ("bool", "true starts a new match (same log, hand numbers go on)"),
    }
    accept: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeBackRequest(Message):
    """The player asks a computer opponent to take back its own last ``moves`` moves of
    this hand (and every move after the first of them). Signed like an entry, with the
    ``seq`` and ``prev`` of the position it was made at, but not logged by itself: the
    opponent's ``takeback_answer`` at that very position carries its signature, so the
    request never races the opponent's own next entry for a place in the log."""

    TYPE: ClassVar[str] = "takeback_request"
    SENDER: ClassVar[str] = "the player on move, or the one who just moved"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "moves": ("int", "how many of the requester's own most recent moves of this hand "
                  "to take back (at least 1)"),
    }
    moves: int

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if self.moves < 1:
            raise _bad("moves must be at least 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeBackAnswer(Message):
    """A computer opponent's answer to a take-back request, logged at the position the
    request names; on ``grant`` both peers replay the hand without the retracted moves."""

    TYPE: ClassVar[str] = "takeback_answer"
    SENDER: ClassVar[str] = "the computer opponent (a peer whose hello says bot)"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "moves": ("int", "the request's moves (at least 1)"),
        "request_sig": ("hex64", "the requester's signature of its takeback_request, whose "
                        "session, seq and prev are this entry's and sender the other player"),
        "grant": ("bool", "true takes the moves back; false leaves the hand as it is"),
    }
    moves: int
    request_sig: str
    grant: bool

    def __post_init__(self) -> None:
        Message.__post_init__(self)
        if self.moves < 1:
            raise _bad("moves must be at least 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class Abandon(Message):
    """The waiting player ends the match: the peer did not come back."""

    TYPE: ClassVar[str] = "abandon"
    SENDER: ClassVar[str] = "either (the one left waiting)"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "last_common_seq": ("int", "seq of the last entry both peers provably had, "
                            "or 0 with an all-zero hash for none"),
        "last_common_hash": ("hex32", "hash of that entry"),
        "reason": ("str", "free text"),
    }
    last_common_seq: int
    last_common_hash: str
    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorMessage(Message):
    """Signed statement of the rule the peer broke, sent before closing (not logged)."""

    TYPE: ClassVar[str] = "error"
    SENDER: ClassVar[str] = "either"
    FIELDS: ClassVar[dict[str, tuple[str, str]]] = {
        "rule": ("str", "the rule code (see Error codes)"),
        "detail": ("str", "human explanation"),
        "evidence": ("str", "SHA-256 hex of the offending frame, or empty"),
    }
    rule: str
    detail: str
    evidence: str = ""


#: Logged (and pre-session signed) message types by entry ``type``.
MESSAGES: Final[dict[str, type[Message]]] = {
    cls.TYPE: cls
    for cls in (
        Hello, Accept, Decline, TossCommit, TossReveal, Shuffle, Deal,
        MoveMessage, DrawShare, AuditReveal, AuditResult, Rematch, RematchAnswer, Abandon,
        TakeBackRequest, TakeBackAnswer, ErrorMessage,
    )
}

#: Control frames: unsigned, never logged. name -> {field: meaning}.
CONTROL: Final[dict[str, dict[str, str]]] = {
    "ping": {"n": "int echoed in the pong"},
    "pong": {"n": "the ping's n"},
    "head": {
        "session": "session id (hex)",
        "next": "the sender's next seq (its log length)",
        "hash": "hash of the sender's last entry, or zeros",
    },
}


def parse_body(type_: str, body: Any) -> Message:
    """The message for an entry ``type`` and ``body``. Raises ``MalformedFrame``."""
    cls = MESSAGES.get(type_)
    if cls is None:
        raise _bad(f"unknown message type {type_!r}")
    try:
        return cls.from_body(body)
    except MalformedFrame:
        raise
    except (TypeError, ValueError) as exc:
        raise _bad(f"{type_}: {exc}") from None
