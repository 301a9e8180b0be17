"""Typed errors of the session layer, split three ways by what they prove.

* :class:`LocalProtocolError`: *this* program asked for something the protocol does not
  allow now (acting out of turn, after the end); nothing was sent or changed.
* :class:`Unattributable`: bytes that prove nothing about any seat (not canonical, a
  signature that does not verify, another session, a gap). Anyone on the path could
  have made them, so they end no match: the connection they came on is dropped and
  the seats resume.
* :class:`Fault`: an *authentic* entry of a seat (signed by its key, for this session)
  that breaks a named rule. That entry is the evidence: the honest seat ends the match
  with an ``accuse`` entry carrying it, which every other seat and any verifier
  re-checks against the log before believing anything.

Every rule is a short stable code (:class:`Rule`) listed in ``protocol/PROTOCOL.md``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from p2pgin.log.entry import Entry

__all__ = [
    "BadBody",
    "Fault",
    "LobbyReason",
    "LobbyRefused",
    "LocalProtocolError",
    "ProtocolError",
    "Rule",
    "Unattributable",
    "rule_codes",
]


class Rule(StrEnum):
    """Why an authentic entry is refused (the ``rule`` of a :class:`Fault`)."""

    MALFORMED = "malformed"        # the body is not exactly the documented fields
    STATE = "state"                # its type has no place in the match now
    TURN = "turn"                  # another seat owes the next entry
    ILLEGAL = "illegal"            # the game's rules refuse the move
    DECK = "deck"                  # the deck protocol refuses a shuffle, strip or toss
    TAKEBACK = "takeback"          # a take-back the protocol forbids
    EQUIVOCATION = "equivocation"  # two different entries of one seat at one position
    CLAIM = "claim"                # an ending whose claim the log contradicts


class ProtocolError(Exception):
    """Base of session errors; ``rule`` is the stable code of the broken rule."""

    rule: ClassVar[str] = "protocol"

    def __init__(self, detail: str) -> None:
        super().__init__(f"[{self.rule}] {detail}")
        self.detail = detail


class LocalProtocolError(ProtocolError):
    """This program misused the session (acted out of turn, after the end, ...)."""

    rule = "local"


class Unattributable(ProtocolError):
    """Bytes that prove nothing about any seat: the connection is dropped, not the match.

    ``evidence`` keeps the bytes (for the evidence files of the peer that got them).
    """

    rule = "link"

    def __init__(self, detail: str, *, evidence: bytes | None = None) -> None:
        super().__init__(detail)
        self.evidence = evidence


class LobbyReason(StrEnum):
    """Why a hello or a table is refused in the lobby (the ``reason`` of a
    :class:`LobbyRefused`)."""

    NO_SEAT_OFFERED = "no_seat_offered"  # a hello on a connection offered no seat
    BAD_HELLO = "bad_hello"              # not a well-formed, well-signed hello
    WRONG_KEY = "wrong_key"              # signed by another key than the connection's
    OTHER_TERMS = "other_terms"          # not the host's game, rules, size or hello
    OTHER_VERSION = "other_version"      # the host speaks another protocol version
    NOT_HOST_HELLO = "not_host_hello"    # the host's hello is not a host's (seat 0)
    OTHER_TABLE = "other_table"          # a formed table that is not the one I sat at


class LobbyRefused(Unattributable):
    """A lobby's hello or table refused: the connection it came on is dropped with
    :attr:`detail` (it proves nothing about any seat of a table not yet formed)."""

    def __init__(self, reason: LobbyReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


class BadBody(ValueError):
    """A message body that is not exactly its documented fields (raised by the catalog;
    the machine turns it into a :class:`Fault` of the entry's signer)."""


class Fault(ProtocolError):
    """An authentic entry of seat ``culprit`` that breaks ``rule``.

    Attributes:
        culprit: the seat that signed the offending entry (or entries).
        rule: a :class:`Rule`.
        entry: the offending signed entry: the evidence a third party re-checks.
        second: for an equivocation, the other signed entry at the same position.
        reason: the deck or engine reason in a word (``bad_proof``, ``not-in-hand``),
            or "".
    """

    rule = "fault"

    def __init__(
        self,
        culprit: int,
        rule: Rule,
        detail: str,
        *,
        entry: Entry,
        second: Entry | None = None,
        reason: str = "",
    ) -> None:
        super().__init__(f"seat {culprit}: [{rule.value}] {detail}")
        self.culprit = culprit
        self.fault_rule = rule
        self.detail = detail
        self.entry = entry
        self.second = second
        self.reason = reason

    @property
    def code(self) -> str:
        """The rule code with the deck or engine reason, e.g. ``deck:bad_proof``."""
        return f"{self.fault_rule.value}:{self.reason}" if self.reason else self.fault_rule.value


def rule_codes() -> dict[str, str]:
    """Every rule code with its one-line meaning, for PROTOCOL.md."""
    return {
        Rule.MALFORMED.value: "The body is not exactly the message's documented fields.",
        Rule.STATE.value: "The entry's type has no place in the match now.",
        Rule.TURN.value: "Another seat owes the next entry.",
        Rule.ILLEGAL.value: "The game's rules refuse the move.",
        Rule.DECK.value: "The deck protocol refuses a shuffle, strip or coin-toss payload.",
        Rule.TAKEBACK.value: "A take-back the protocol forbids.",
        Rule.EQUIVOCATION.value: "Two different signed entries of one seat at one position.",
        Rule.CLAIM.value: "An ending whose claim the log contradicts.",
    }
