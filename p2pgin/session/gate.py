"""The identity check of a new connection once a match began (PROTOCOL.md section 5).

Sans-IO, like the session it guards: frames in, frames to send out, a verdict. The net
layer pumps it on every (re)connection before the session hears anything, so a stranger
(a replayed hello, junk, someone at the host's old address) is turned away without
touching the session's state or log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.entry import Entry, hello_key, verify_hello
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.session.errors import ProtocolError

if TYPE_CHECKING:
    from p2pgin.session.session import Session

__all__ = ["ResumeGate"]


def _control(payload: bytes) -> dict[str, Any] | None:
    """``payload`` as a control frame object (``{"ctl": ...}``), else None."""
    if not payload.startswith(b'{"ctl":'):
        return None
    try:
        obj = canonical_loads(payload)
    except CanonicalError:
        return None
    return obj if isinstance(obj, dict) else None


class ResumeGate:
    """Admits a connection once the other end sent the opponent's hello and signed
    ``nonce`` (our fresh challenge) with that hello's identity key.

    Send :meth:`opening` first; pass every frame read to :meth:`receive` and send what
    it returns (our proof for the other side's challenge) until :attr:`admitted` or
    :attr:`refused`. Frames that arrive meanwhile are kept in :attr:`held`, hello first,
    for the session once admitted.
    """

    def __init__(self, session: Session, nonce: bytes) -> None:
        peer_hello = session.hellos[1 - session.me]
        if not session.session_id or peer_hello is None:
            raise ValueError("a resume gate needs a session whose hellos are known")
        self._session = session
        self._nonce = nonce
        self._key = bytes(hello_key(peer_hello))
        self._hello_seen = False
        self._proven = False
        #: Frames for the session once admitted (the peer's hello first).
        self.held: list[bytes] = []
        #: Why the connection is refused ("" while it is not).
        self.refused = ""

    @property
    def admitted(self) -> bool:
        """True once the opponent proved its identity key on this connection."""
        return self._hello_seen and self._proven and not self.refused

    def opening(self) -> list[bytes]:
        """Our hello and our challenge: sent first, before reading anything."""
        return [self._session.my_hello.to_bytes(),
                canonical_dumps({"ctl": "challenge", "nonce": self._nonce.hex()})]

    def receive(self, payload: bytes) -> list[bytes]:
        """Take one frame from the other end; return the frames to send in reply."""
        if self.refused or self.admitted:
            raise ValueError("the gate has decided; pass frames to the session instead")
        if not self._hello_seen:
            # NB: the peer's hello is the first thing it sends on every connection.
            try:
                key = bytes(verify_hello(Entry.from_bytes(payload), sender=1 - self._session.me))
            except LogError as exc:
                self.refused = f"not the peer's hello ({type(exc).__name__}: {exc})"
                return []
            if key != self._key:
                self.refused = "a hello from another identity key"
                return []
            self._hello_seen = True
            self.held.append(payload)
            return []
        obj = _control(payload)
        kind = None if obj is None else obj.get("ctl")
        if obj is not None and kind == "challenge":
            try:
                return [canonical_dumps(self._session.answer_challenge(obj))]
            except ProtocolError as exc:
                self.refused = f"a malformed challenge ({exc})"
                return []
        if obj is not None and kind == "proof":
            sig = obj.get("sig")
            if (set(obj) != {"ctl", "nonce", "sig"} or obj["nonce"] != self._nonce.hex()
                    or not isinstance(sig, str)
                    or not self._session.check_resume_proof(self._nonce, _unhex(sig))):
                self.refused = "a wrong proof of identity (a replayed hello?)"
                return []
            self._proven = True
            return []
        self.held.append(payload)  # NB: the other side's session may already talk
        return []


def _unhex(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        return b""
