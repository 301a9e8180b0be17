"""Verify a transcript and say what it proves: players, rules, hands, verdict.

``p2pgin verify`` needs no network and no secrets of its own. :func:`verify_transcript`
walks the transcript once, in log order, and checks what each entry may do at that
point: the header against the signed hellos; every signature, the hash chain and the
sequence (log layer); that each entry's type is allowed in the session state and was
sent by the player the session's transition table names; its body; the coin toss
(commitments opened); every deck payload through the mental layer's third-party
:class:`~p2pgin.mental.HandVerifier` (shuffle steps, shares, proofs, audits); every move
through the rules engine as the peers saw it (public cards only) and again once the
audit opened the whole deck; each hand's score and bonuses; the match result; and that
the header's claimed rules and result are the ones proved. A rematch accepted after
the match goes on in the same log; the earlier matches are kept in the report.

:func:`verify_entries` is the same walk for a bare entry list (both hellos, then the
log; no header): players, rules and session come from the hellos, and only the
header's own checks (keys, names, rules, seal, claimed result) are left out.

The first failure stops the walk and is reported with the entry (line, seq, type), the
rule broken and the peer at fault: the sender of a signed entry that breaks a game or
deck rule, the player the deck layer blames, or nobody when the file itself was altered
(a signature, chain link or header that no player signed).

The header's ``meta`` is written by one peer after the match and is not part of the
signed log; :func:`seal_transcript` lets the writer sign it (``meta["seal"]``) so that
every byte of the file is covered. ``meta`` is free-form and unsigned by the format
(``protocol/wire.md`` section 7), so an unsealed transcript (or one whose ``seal`` key was
renamed away) verifies with a note that its ``meta`` is not part of the proof.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from p2pgin.engine.cards import CARDS, Card
from p2pgin.engine.errors import IllegalMoveError, RevealError
from p2pgin.engine.explain import explain_hand
from p2pgin.engine.hand import UPCARD, HandResult, HandState, apply
from p2pgin.engine.match import MatchState
from p2pgin.engine.moves import BigGin, Discard, DrawStock, Knock, LayOff, Move
from p2pgin.engine.rules import Rules, RulesError
from p2pgin.log.canonical import JsonValue, canonical_dumps, hexbytes
from p2pgin.log.entry import Chain, Entry, verify_hello, verify_signature
from p2pgin.log.errors import LogError
from p2pgin.log.identity import fingerprint
from p2pgin.log.transcript import Transcript
from p2pgin.mental import (
    DECK_SIZE,
    CheatDetected,
    DeckError,
    HandVerifier,
    ProtocolMisuse,
    verify_toss,
)
from p2pgin.mental.deck import card_points
from p2pgin.mental.group import all_distinct, decode_points, decode_scalar, mult, scalar_invert
from p2pgin.mental.wire import check_header
from p2pgin.session.errors import MalformedFrame
from p2pgin.session.messages import (
    PROTOCOL_VERSION,
    Abandon,
    Accept,
    AuditResult,
    AuditReveal,
    Deal,
    DrawShare,
    Hello,
    MoveMessage,
    Rematch,
    RematchAnswer,
    Shuffle,
    TakeBackAnswer,
    TakeBackRequest,
    TossCommit,
    TossReveal,
    parse_body,
)
from p2pgin.session.session import TRANSITIONS, State

__all__ = [
    "SEAL_DOMAIN",
    "Failure",
    "HandReport",
    "Report",
    "proven_result",
    "seal_transcript",
    "verify_entries",
    "verify_transcript",
]

#: Prefix of the writer's signature over the header (``meta["seal"]``).
SEAL_DOMAIN: Final = b"p2pgin/transcript-seal/v1\x00"
_ROLE: Final = ("host", "joiner")
_S = State


def _count(n: int, one: str, many: str = "") -> str:
    """``n`` and the noun, singular or plural (``1 hand``, ``3 hands``)."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """The first thing that does not hold.

    ``line`` is the 1-based line of the transcript file (1 = header, 2 and 3 = hellos,
    ``seq + 4`` = log entry ``seq``); ``seq``/``type`` name a log entry when there is one;
    ``peer`` is the player at fault, ``None`` when no player signed the broken part.
    """

    line: int
    rule: str
    detail: str
    peer: int | None = None
    seq: int | None = None
    type: str | None = None

    @property
    def where(self) -> str:
        """Human name of the failing part of the file."""
        if self.line == 1:
            return "header (line 1)"
        if self.seq is None and self.type == "hello":
            return f"hello of player {self.line - 2} (line {self.line})"
        if self.seq is None:
            return f"end of file (line {self.line})"
        return f"entry {self.seq} ({self.type}, line {self.line})"

    def to_dict(self) -> dict[str, JsonValue]:
        """JSON form for ``--json``."""
        return {"line": self.line, "seq": self.seq, "type": self.type, "rule": self.rule,
                "peer": self.peer, "detail": self.detail, "where": self.where}


@dataclass(frozen=True, slots=True, kw_only=True)
class HandReport:
    """One audited hand: who dealt, the deck the audit opened, the moves and the result."""

    hand_no: int
    dealer: int
    deck: tuple[Card, ...]
    moves: tuple[tuple[int, Move], ...]
    result: HandResult
    take_backs: int = 0  # granted take-backs in this hand (the moves above are in force)

    def to_dict(self, names: Sequence[str] | None = None) -> dict[str, JsonValue]:
        """JSON form: number, dealer, move count and the engine's result (its explanation
        naming the players when ``names`` are given)."""
        result = self.result.to_dict()
        if names is not None:
            result["explanation"] = list(explain_hand(self.result, names=names))
        return {"hand": self.hand_no, "dealer": self.dealer, "moves": len(self.moves),
                "take_backs": self.take_backs, "result": result}


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """What the transcript proves (as far as it was checked) and the verdict.

    ``match`` is the last match of the log; ``earlier_matches`` the ones a rematch
    followed, in order.
    """

    session: str
    names: tuple[str, str]
    fingerprints: tuple[str, str]
    rules: Rules | None
    first_dealer: int | None
    hands: tuple[HandReport, ...]
    match: MatchState | None
    status: str  # match_over / abandoned / declined / incomplete
    entries: int
    failure: Failure | None = None
    notes: tuple[str, ...] = ()
    meta: dict[str, JsonValue] = field(default_factory=dict)
    earlier_matches: tuple[MatchState, ...] = ()

    @property
    def ok(self) -> bool:
        """True when everything in the transcript holds."""
        return self.failure is None

    def to_dict(self) -> dict[str, JsonValue]:
        """JSON form (``p2pgin verify --json``); explanations name the players."""
        result = None
        if self.match is not None and self.match.over:
            proven = self.match.result()
            result = proven.to_dict()
            result["explanation"] = list(proven.explain(self.names))
        return {
            "ok": self.ok,
            "session": self.session,
            "players": [{"name": n, "fingerprint": f, "role": r}
                        for n, f, r in zip(self.names, self.fingerprints, _ROLE, strict=True)],
            "rules": self.rules.to_dict() if self.rules is not None else None,
            "first_dealer": self.first_dealer,
            "status": self.status,
            "entries": self.entries,
            "hands": [h.to_dict(self.names) for h in self.hands],
            "result": result,
            "failure": self.failure.to_dict() if self.failure is not None else None,
            "notes": list(self.notes),
            "meta": self.meta,
        }

    def lines(self) -> list[str]:
        """The short human report."""
        names = self.names
        out = [f"session  {self.session}"]
        for p in (0, 1):
            out.append(f"player {p} {names[p]} ({self.fingerprints[p]}), {_ROLE[p]}")
        if self.rules is not None:
            out.append(f"rules    {'; '.join(self.rules.describe())}")
        if self.first_dealer is not None:
            out.append(f"first dealer: {names[self.first_dealer]}")
        for hand in self.hands:
            out.append(f"hand {hand.hand_no:>2}  dealer {names[hand.dealer]:<12} "
                       f"{len(hand.moves):>3} moves  {_result_text(hand.result, names)}")
        if self.match is not None and self.match.over:
            res = self.match.result()
            totals = res.totals
            winner = res.winner
            if winner is None:
                out.append(f"result   tie {totals[0]} to {totals[1]}")
            else:
                out.append(f"result   {names[winner]} wins {totals[winner]} to "
                           f"{totals[1 - winner]} ({_count(res.hands_played, 'hand')})")
        elif self.status != "match_over":
            out.append(f"status   {self.status}")
        out += [f"note     {n}" for n in self.notes]
        if self.failure is None:
            out.append(f"verdict  OK: {_count(self.entries, 'signed entry', 'signed entries')}"
                       f" and {_count(len(self.hands), 'audited hand')} check out (signatures, "
                       "chain, handshake, toss, deck proofs, audits, moves, scores, result)")
        else:
            f = self.failure
            who = ("nobody signed it: the file was altered" if f.peer is None
                   else f"{names[f.peer]} (player {f.peer}, {_ROLE[f.peer]})")
            out.append(f"verdict  FAILED at {f.where}")
            out.append(f"rule     {f.rule}")
            out.append(f"fault    {who}")
            out.append(f"detail   {f.detail}")
        return out


def _result_text(result: HandResult, names: Sequence[str]) -> str:
    if result.winner is None:
        return "void (stock ran out)"
    who = names[result.winner]
    if result.kind in ("knock", "undercut"):
        assert result.knocker is not None
        detail = (f"{names[result.knocker]} knocks with {result.knocker_deadwood}, "
                  f"defender {result.defender_deadwood}")
        kind = "undercut" if result.kind == "undercut" else "knock"
        return f"{kind}: {detail}; {who} +{result.points}"
    label = "big gin" if result.kind == "big_gin" else "gin"
    return f"{label} by {who} +{result.points}"


# ----------------------------------------------------------------------------- seal


def _seal_message(header: Mapping[str, JsonValue]) -> bytes:
    raw = header["meta"]
    meta = dict(raw) if isinstance(raw, dict) else {}
    meta.pop("seal", None)
    unsealed = dict(header)
    unsealed["meta"] = meta
    return SEAL_DOMAIN + canonical_dumps(unsealed)


def seal_transcript(transcript: Transcript, key: SigningKey, me: int) -> Transcript:
    """The transcript with ``meta["me"]`` and ``meta["seal"]``: the writer's signature
    over the whole header, so no byte of the file is left unauthenticated.

    Raises:
        ValueError: ``key`` is not player ``me``'s identity key.
    """
    if hexbytes(bytes(key.verify_key)) != transcript.players[me].key:
        raise ValueError(f"this key is not player {me}'s identity key")
    meta = {k: v for k, v in transcript.meta.items() if k != "seal"}
    meta["me"] = me
    unsealed = Transcript(session=transcript.session, players=transcript.players,
                          rules=transcript.rules, result=transcript.result,
                          entries=transcript.entries, meta=meta, version=transcript.version)
    seal = key.sign(_seal_message(unsealed.header())).signature.hex()
    return Transcript(session=transcript.session, players=transcript.players,
                      rules=transcript.rules, result=transcript.result,
                      entries=transcript.entries, meta={**meta, "seal": seal},
                      version=transcript.version)


def _check_seal(t: Transcript) -> str | None:
    """None when the seal holds; else why not. Unsealed headers are the caller's note."""
    meta = t.meta
    me = meta.get("me")
    if type(me) is not int or me not in (0, 1):
        return "a sealed header names its writer in meta.me (0 or 1)"
    seal = meta.get("seal")
    try:
        sig = bytes.fromhex(seal) if isinstance(seal, str) else b""
        VerifyKey(bytes.fromhex(t.players[me].key)).verify(_seal_message(t.header()), sig)
    except (ValueError, BadSignatureError):
        return f"the header seal is not player {me}'s signature over the header"
    return None


# ----------------------------------------------------------------------------- fast deck


class _Fallback(Exception):
    """The optimistic deck check met something unusual: verify again the careful way."""


def _fb(ok: bool) -> None:
    if not ok:
        raise _Fallback


def _perm(value: object) -> list[int]:
    _fb(isinstance(value, list) and len(value) == DECK_SIZE
        and all(type(v) is int for v in value) and sorted(value) == list(range(DECK_SIZE)))
    assert isinstance(value, list)
    return value


def _index(value: object) -> int:
    if type(value) is not int or not 0 <= value < DECK_SIZE:
        raise _Fallback
    return value


def _scalars(value: object) -> list[bytes]:
    _fb(isinstance(value, list) and len(value) == DECK_SIZE)
    assert isinstance(value, list)
    keys = [decode_scalar(v, peer=0, field="keys") for v in value]
    _fb(all_distinct(keys) is None)
    return keys


class _FastDeck:
    """A hand's deck checked from its audit first (optimistic third-party verification).

    When both audits are in the log, every shuffle step can be recomputed from the
    revealed secrets (4 x 52 multiplications); a logged deck equal byte for byte to its
    recomputation is made of valid group elements; a dealer's share is correct exactly
    when it equals the audited key (``k * D == r * D`` for a prime-order ``D`` means
    ``k = r``), and a non-dealer's share whose source and key equal the audited ones is
    correct (any other one falls back). So the per-share multiplications, the unmasking
    and the subgroup checks of
    :class:`~p2pgin.mental.HandVerifier` are not needed. ``feed`` mirrors its checks
    and answers; whenever anything differs from the honest shape it raises
    :class:`_Fallback` and the whole transcript is verified again with ``HandVerifier``,
    which then names the fault exactly. Accepting here implies ``HandVerifier`` accepts.
    """

    def __init__(self, *, sid: bytes, hand_no: int, seed: bytes, dealer: int,
                 steps: Sequence[object], audits: Mapping[int, object]) -> None:
        self.sid, self.hand_no, self.a, self.b = sid, hand_no, dealer, 1 - dealer
        kinds = ("deck.mask", "deck.remask", "deck.lock")
        _fb(len(steps) == 3 and set(audits) == {0, 1})
        try:
            mask_p, remask_p, lock_p = (
                check_header(p, k, sid, hand_no, 0) for p, k in zip(steps, kinds, strict=True))
            audit_a = check_header(audits[self.a], "deck.audit", sid, hand_no, self.a)
            audit_b = check_header(audits[self.b], "deck.audit", sid, hand_no, self.b)
            decks = [decode_points(p.get(f), peer=0, field=f, count=DECK_SIZE)
                     for p, f in ((mask_p, "deck"), (remask_p, "deck"), (lock_p, "locked"),
                                  (lock_p, "deck"))]
            _fb(all(all_distinct(d) is None for d in decks))
            d1, d2, d3, z = decks
            sigma, tau = _perm(audit_a.get("perm")), _perm(audit_b.get("perm"))
            r, s = _scalars(audit_a.get("keys")), _scalars(audit_b.get("keys"))
            _fb("mask" not in audit_b)
            mask = decode_scalar(audit_a.get("mask"), peer=0, field="mask")
            _fb(mask not in r)
            points = card_points(sid, seed, hand_no)
            _fb(all(mult(mask, points[sigma[i]]) == d1[i] for i in range(DECK_SIZE)))
            _fb(all(mult(s[j], d1[tau[j]]) == d2[j] for j in range(DECK_SIZE)))
            _fb(all(mult(r[j], d2[j]) == d3[j] for j in range(DECK_SIZE)))
            inverse = scalar_invert(mask)
            _fb(all(mult(inverse, d3[j]) == z[j] for j in range(DECK_SIZE)))
        except DeckError:
            raise _Fallback from None
        self.steps = tuple(steps)
        self.audit_payloads = {self.a: audits[self.a], self.b: audits[self.b]}
        self.sigma, self.tau, self.r, self.s = sigma, tau, r, s
        self.stage = 0
        self.audited: set[int] = set()
        self.a_shares: dict[int, bytes] = {}
        self.b_shares: dict[int, tuple[int, bytes]] = {}
        self.sources: dict[int, int] = {}
        self.dealt: dict[int, int] = {}
        self.public: dict[int, Card] = {}
        self.deck: tuple[Card, ...] | None = None

    def feed(self, sender: int, payload: object) -> Card | None:
        """As ``HandVerifier.feed`` for an honest payload; :class:`_Fallback` otherwise."""
        kind = payload.get("type") if isinstance(payload, dict) else None
        if self.stage < 3:
            author = self.b if self.stage == 1 else self.a
            _fb(sender == author and payload == self.steps[self.stage])
            self.stage += 1
            return None
        if kind == "deck.audit":
            _fb(sender not in self.audited and payload == self.audit_payloads[sender])
            self.audited.add(sender)
            if len(self.audited) == 2:
                self.deck = tuple(CARDS[self.sigma[self.tau[j]]] for j in range(DECK_SIZE))
            return None
        _fb(kind in ("deck.deal", "deck.open"))
        try:
            p = check_header(payload, kind, self.sid, self.hand_no, sender)  # type: ignore[arg-type]
            key = decode_scalar(p.get("key"), peer=sender, field="key")
        except DeckError:
            raise _Fallback from None
        pos = _index(p.get("position"))
        if sender == self.b:
            src = _index(p.get("source"))
        else:
            _fb("source" not in p)
            src = -1
        if kind == "deck.deal":
            _fb(type(p.get("to")) is int and p.get("to") == 1 - sender)
            holder = self.b_shares if sender == self.a else self.a_shares
            _fb(pos not in holder and pos not in self.dealt)
        if sender == self.a:
            old = self.a_shares.get(pos)
            if old is not None:
                _fb(old == key)
                return None
            _fb(key == self.r[pos])
            self.a_shares[pos] = key
        else:
            old_b = self.b_shares.get(pos)
            if old_b is not None:
                _fb(old_b == (src, key))
                return None
            _fb(src not in self.sources and (src, key) == (self.tau[pos], self.s[pos]))
            self.b_shares[pos] = (src, key)
            self.sources[src] = pos
        if kind == "deck.deal":
            self.dealt[pos] = 1 - sender
        if pos in self.public or pos not in self.a_shares or pos not in self.b_shares:
            return None
        card = CARDS[self.sigma[self.tau[pos]]]
        _fb(card not in self.public.values())
        self.public[pos] = card
        return card


# ----------------------------------------------------------------------------- walk


class _Fail(Exception):
    def __init__(self, rule: str, detail: str, peer: int | None) -> None:
        super().__init__(detail)
        self.rule = rule
        self.detail = detail
        self.peer = peer


def _dealt_to(player: int, dealer: int) -> tuple[int, ...]:
    return tuple(range(1, 20, 2)) if player == dealer else tuple(range(0, 20, 2))


def _items(payload: Mapping[str, Any], key: str, count: int, sender: int) -> list[Any]:
    items = payload.get(key)
    if set(payload) != {key} or not isinstance(items, list) or len(items) != count:
        raise _Fail("malformed", f"expected {{{key!r}: [{count} payloads]}}", sender)
    return items


class _Walker:
    """The third party's replay of one transcript (state shaped like the session's)."""

    def __init__(self, hellos: tuple[Hello, Hello], chain: Chain, log: Sequence[Entry],
                 *, fast: bool) -> None:
        self.hellos = hellos
        self.chain = chain
        self.log = log
        self.index = 0
        self.fast = fast
        self.sid = bytes.fromhex(chain.session)
        self.rules: Rules = hellos[0].rules
        self.state = _S.RULES
        self.toss: list[tuple[int, object]] = []
        self.seed = b""
        self.first_dealer: int | None = None
        self.match: MatchState | None = None
        self.hand_no = 0
        self.hand: HandState | None = None
        self.deck: HandVerifier | _FastDeck | None = None
        self.public: set[int] = set()
        self.moves: list[tuple[int, Move, int]] = []  # sender, move, seq
        self.result: HandResult | None = None
        self.hands: list[HandReport] = []
        self.take_backs = 0  # granted in the current hand
        self.earlier: list[MatchState] = []  # matches a rematch followed

    # -- table

    def speaker(self, role: str) -> int | None:
        if role == "host":
            return 0
        if role == "joiner":
            return 1
        if role in ("dealer", "non_dealer"):
            if self.match is None:
                return None
            dealer = self.match.dealer if self.hand is None else self.hand.dealer
            return dealer if role == "dealer" else 1 - dealer
        if role in ("mover", "not_mover"):
            if self.hand is None or self.hand.to_move is None:
                return None
            return self.hand.to_move if role == "mover" else 1 - self.hand.to_move
        if role in ("winner", "loser"):
            winner = None if self.match is None else self.match.winner
            if winner is None:
                return None
            return winner if role == "winner" else 1 - winner
        if role == "bot":
            bots = [p for p in (0, 1) if self.hellos[p].bot]
            return None if not bots else (-1 if len(bots) == 2 else bots[0])
        return -1

    def step(self, e: Entry) -> None:
        row = TRANSITIONS[self.state]
        if e.type not in row:
            raise _Fail("unexpected", f"no {e.type!r} is allowed in state "
                        f"{self.state.value}", e.sender)
        role, nexts = row[e.type]
        who = self.speaker(role)
        if who != -1 and who != e.sender:
            raise _Fail("out_of_turn", f"{e.type!r} in state {self.state.value} is the "
                        f"{role}'s (player {who}) to send", e.sender)
        try:
            msg = parse_body(e.type, e.body)
        except MalformedFrame as exc:
            raise _Fail("malformed", str(exc), e.sender) from None
        try:
            self.handle(msg, e)
        except DeckError as exc:
            if isinstance(exc, CheatDetected):
                raise _Fail(exc.reason.value, str(exc), exc.peer) from None
            raise _Fail("deck", str(exc), e.sender) from None
        assert self.state in nexts or self.state is _S.CHEATED, (self.state, nexts)

    # -- handlers

    def handle(self, msg: Any, e: Entry) -> None:
        sender = e.sender
        if isinstance(msg, Accept):
            if msg.rules != self.rules:
                raise _Fail("rules", "accepted rules differ from the host's hello", sender)
            self.state = _S.TOSS_COMMIT_HOST
        elif msg.TYPE == "decline":
            self.state = _S.DECLINED
        elif isinstance(msg, Abandon):
            seq, cited = msg.last_common_seq, msg.last_common_hash
            if cited != "00" * 32 and (seq >= e.seq or self.chain[seq].hash() != cited):
                raise _Fail("abandon", "abandon cites an entry that is not in the log", sender)
            self.state = _S.ABANDONED
        elif isinstance(msg, TossCommit | TossReveal):
            self.toss.append((sender, msg.toss))
            order = (_S.TOSS_COMMIT_HOST, _S.TOSS_COMMIT_JOINER, _S.TOSS_REVEAL_HOST,
                     _S.TOSS_REVEAL_JOINER, _S.SHUFFLE_DEALER)
            self.state = order[order.index(self.state) + 1]
            if self.state is _S.TOSS_REVEAL_JOINER:
                # NB: check the first reveal at its own entry, not at the second; the
                # toss is incomplete (ProtocolMisuse) until then, as expected
                with contextlib.suppress(ProtocolMisuse):
                    verify_toss(self.sid, self.toss)
            if self.state is _S.SHUFFLE_DEALER:
                self.seed, dealer = verify_toss(self.sid, self.toss)
                self.first_dealer = dealer
                self.match = MatchState.new(self.rules, dealer)
                self.start_hand()
        elif isinstance(msg, Shuffle):
            self.check_hand(msg.hand, sender)
            self.feed(sender, msg.step)
            steps = (_S.SHUFFLE_DEALER, _S.SHUFFLE_NON_DEALER, _S.LOCK_DEALER, _S.DEAL_DEALER)
            self.state = steps[steps.index(self.state) + 1]
        elif isinstance(msg, Deal):
            self.deal(msg, sender)
        elif isinstance(msg, MoveMessage):
            self.move(msg, e)
        elif isinstance(msg, DrawShare):
            hand = self.hand
            assert hand is not None
            if msg.position != hand.last_drawn:
                raise _Fail("malformed", f"share for position {msg.position}, the drawn "
                            f"position is {hand.last_drawn}", sender)
            (item,) = _items(msg.share, "shares", 1, sender)
            self.feed(sender, item, msg.position)
            self.state = _S.PLAY
        elif isinstance(msg, AuditReveal):
            self.check_hand(msg.hand, sender)
            self.feed(sender, msg.secrets)
            self.state = (_S.AUDIT_NON_DEALER if self.state is _S.AUDIT_DEALER
                          else _S.VERDICT_NON_DEALER)
        elif isinstance(msg, AuditResult):
            self.verdict(msg, sender)
        elif isinstance(msg, TakeBackAnswer):
            self.take_back(msg, e)
        elif isinstance(msg, Rematch):
            self.state = _S.REMATCH
        elif isinstance(msg, RematchAnswer):
            self.rematch(msg.accept)
        else:  # pragma: no cover - the table admits no other type
            raise _Fail("unexpected", f"unexpected {msg.TYPE}", sender)

    def check_hand(self, hand_no: int, sender: int) -> None:
        if hand_no != self.hand_no:
            raise _Fail("malformed", f"payload for hand {hand_no}, this is hand "
                        f"{self.hand_no}", sender)

    def feed(self, sender: int, payload: object, position: int | None = None) -> Card | None:
        assert self.deck is not None
        if position is not None and (not isinstance(payload, dict)
                                     or payload.get("position") != position):
            raise _Fail("malformed", f"expected a share of position {position}", sender)
        return self.deck.feed(sender, payload)

    def start_hand(self) -> None:
        assert self.match is not None
        self.hand_no += 1
        self.hand = None
        self.result = None
        self.public = set()
        self.moves = []
        self.take_backs = 0
        self.deck = self.fast_deck() if self.fast else None
        if self.deck is None:
            self.deck = HandVerifier(session_id=self.sid, hand_no=self.hand_no,
                                     seed=self.seed, dealer=self.match.dealer)
        self.state = _S.SHUFFLE_DEALER

    def fast_deck(self) -> _FastDeck | None:
        """The optimistic deck of this hand when its shuffle and both audits are in the
        log ahead (looked up unverified: they are checked when the walk reaches them)."""
        assert self.match is not None
        steps: list[object] = []
        audits: dict[int, object] = {}
        for e in self.log[self.index + 1:]:
            hand = e.body.get("hand")
            if e.type == "shuffle" and hand == self.hand_no + 1:
                break
            if hand != self.hand_no:
                continue
            if e.type == "shuffle" and len(steps) < 3:
                steps.append(e.body.get("step"))
            elif e.type == "audit" and e.sender not in audits:
                audits[e.sender] = e.body.get("secrets")
                if len(audits) == 2:
                    break
        if len(steps) < 3 or len(audits) < 2:
            return None
        try:
            return _FastDeck(sid=self.sid, hand_no=self.hand_no, seed=self.seed,
                             dealer=self.match.dealer, steps=steps, audits=audits)
        except _Fallback:
            return None

    def deal(self, msg: Deal, sender: int) -> None:
        assert self.match is not None and self.deck is not None
        dealer = self.match.dealer
        for pos, item in zip(_dealt_to(1 - sender, dealer),
                             _items(msg.shares, "shares", 10, sender), strict=True):
            self.feed(sender, item, pos)
        (up,) = _items(msg.upcard, "opens", 1, sender)
        self.feed(sender, up, UPCARD)
        if self.state is _S.DEAL_DEALER:
            self.state = _S.DEAL_NON_DEALER
            return
        try:
            self.hand = self.match.deal().reveal_many(self.deck.public.items())
        except RevealError as exc:
            raise _Fail("reveal", f"opened cards contradict each other: {exc}", sender) from None
        self.public = {UPCARD}
        self.state = _S.PLAY

    def move(self, msg: MoveMessage, e: Entry) -> None:
        hand, sender, move = self.hand, e.sender, msg.move
        assert hand is not None and self.deck is not None
        if isinstance(move, Discard) and not hand.holds(sender, move.position):
            raise _Fail("not-in-hand", f"position {move.position} is not in the "
                        f"{_ROLE[sender]}'s hand", sender)
        wanted: Sequence[int] = ()
        if isinstance(move, Discard):
            wanted = (move.position,)
        elif isinstance(move, Knock | BigGin | LayOff):
            wanted = hand.hand_of(sender)
        positions = sorted(p for p in wanted if p not in self.public)
        learnt: dict[int, Card] = {}
        if positions:
            if msg.open is None:
                raise _Fail("malformed", f"{move.kind} must open positions {positions}",
                            sender)
            items = _items(msg.open, "opens", len(positions), sender)
            for pos, item in zip(positions, items, strict=True):
                self.feed(sender, item, pos)
            public = self.deck.public
            learnt = {p: public[p] for p in positions if p in public}
        elif msg.open is not None:
            raise _Fail("malformed", f"{move.kind} opens nothing here; open must be null",
                        sender)
        try:
            state = hand.reveal_many(learnt.items()) if learnt else hand
            new = apply(state, move, sender)
        except RevealError as exc:
            raise _Fail("reveal", f"opened cards contradict the deal: {exc}", sender) from None
        except IllegalMoveError as exc:
            raise _Fail(getattr(exc, "rule", "illegal-move"), str(exc), sender) from None
        self.public.update(positions)
        self.moves.append((sender, move, e.seq))
        self.hand = new
        if new.over:
            self.result = new.result
            self.state = _S.AUDIT_DEALER
        elif isinstance(move, DrawStock):
            self.state = _S.DRAW_SHARE
        else:
            self.state = _S.PLAY

    def take_back(self, msg: TakeBackAnswer, e: Entry) -> None:
        """A computer opponent's answer: the requester's signature at this position, no
        stock draw, knock or hand end crossed; on grant, the hand replayed without the
        retracted moves (cards already known stay known)."""
        requester = 1 - e.sender
        try:
            request = Entry(session=e.session, seq=e.seq, prev=e.prev, sender=requester,
                            type=TakeBackRequest.TYPE,
                            body=TakeBackRequest(moves=msg.moves).to_body(),
                            sig=msg.request_sig)
            verify_signature(request, self.chain.keys[requester])
        except LogError:
            raise _Fail("takeback", "the answer does not carry the requester's signed "
                        "request made at this position", e.sender) from None
        hand, match = self.hand, self.match
        assert hand is not None and match is not None
        own = [i for i, (player, _, _) in enumerate(self.moves) if player == requester]
        if len(own) < msg.moves:
            raise _Fail("takeback", f"{msg.moves} move(s) asked, only {len(own)} of this "
                        "hand", e.sender)
        cut = own[-msg.moves]
        if any(isinstance(m, DrawStock | Knock | BigGin | LayOff) for _, m, _ in self.moves[cut:]):
            raise _Fail("takeback", "a take-back never crosses a draw from the stock",
                        e.sender)
        if not msg.grant:
            return
        state = match.deal().reveal_many(
            (p, c) for p, c in enumerate(hand.knowledge) if c is not None)
        for player, move, _ in self.moves[:cut]:
            state = apply(state, move, player)
        del self.moves[cut:]
        self.hand = state
        self.take_backs += 1

    def verdict(self, msg: AuditResult, sender: int) -> None:
        assert self.match is not None and self.deck is not None and self.result is not None
        self.check_hand(msg.hand, sender)
        deck = self.deck.deck
        if deck is None:  # pragma: no cover - the table requires both audits first
            raise _Fail("no_audit", "verdict without both audits", sender)
        if (msg.ok, msg.rule, msg.culprit) != (True, "", None):
            raise _Fail("false_verdict", "the audit checks out but this verdict names "
                        f"{msg.rule or 'a failure'}", sender)
        if self.state is _S.VERDICT_NON_DEALER:
            self.state = _S.VERDICT_DEALER
            return
        self.full_replay(deck)
        self.hands.append(HandReport(
            hand_no=self.hand_no, dealer=self.match.dealer, deck=deck,
            moves=tuple((s, m) for s, m, _ in self.moves), result=self.result,
            take_backs=self.take_backs))
        self.match = self.match.record(self.result)
        if self.match.over:
            self.state = _S.MATCH_OVER
            self.hand = None
        else:
            self.start_hand()

    def rematch(self, accept: bool) -> None:
        """The winner's answer: a new match under the same rules, the winner dealing
        first and hand numbers going on (as the session does), or the match stays over."""
        match = self.match
        assert match is not None and match.winner is not None
        if not accept:
            self.state = _S.MATCH_OVER
            return
        self.earlier.append(match)
        self.match = MatchState.new(self.rules, match.winner)
        self.start_hand()

    def full_replay(self, deck: tuple[Card, ...]) -> None:
        """Every move again with the whole audited deck known: legal when made, and the
        same result as the play with public cards only."""
        assert self.match is not None
        state = HandState.deal(self.rules, self.match.dealer, deck)
        for sender, move, seq in self.moves:
            try:
                state = apply(state, move, sender)
            except IllegalMoveError as exc:
                raise _MoveFail(seq, getattr(exc, "rule", "illegal-move"), str(exc),
                                sender) from None
        if state.result != self.result:
            raise _Fail("score", f"hand {self.hand_no}: the audited deck scores "
                        "differently from the play", None)


class _MoveFail(_Fail):
    def __init__(self, seq: int, rule: str, detail: str, peer: int | None) -> None:
        super().__init__(rule, detail, peer)
        self.seq = seq


_STATUS: Final = {_S.MATCH_OVER: "match_over", _S.ABANDONED: "abandoned",
                  _S.DECLINED: "declined"}


def proven_result(match: MatchState | None) -> dict[str, JsonValue]:
    """The result a header must claim for what the log proves: the engine's match
    result when the match is over, else ``{}`` (no result)."""
    if match is None or not match.over:
        return {}
    out: dict[str, JsonValue] = match.result().to_dict()
    return out


def verify_transcript(t: Transcript, *, fast: bool = True) -> Report:
    """Check everything the transcript claims (see the module docstring).

    ``fast`` checks each fully audited hand's deck from its audit first (see
    :class:`_FastDeck`); anything unusual makes it verify again with ``fast=False``,
    which feeds every payload to the mental layer's ``HandVerifier`` as it comes, so the
    verdict and the failure reported are the same either way.

    Never raises for a bad transcript: the :class:`Report` carries the failure.
    """
    return _verify(t.entries, t, fast=fast)


def verify_entries(entries: Sequence[Entry], *, fast: bool = True) -> Report:
    """Check a bare entry list (both hellos, then the log) as :func:`verify_transcript`
    checks a transcript, for callers that hold a game file rather than a transcript.

    Names, keys, rules and session come from the signed hellos; there is no header, so
    its checks (and the claimed result) are skipped and ``meta`` is empty. Line numbers
    in a failure count as if a header were line 1. Never raises for a bad log.
    """
    return _verify(entries, None, fast=fast)


def _hello_identity(entry: Entry) -> tuple[str, str]:
    """Best-effort name and fingerprint of a hello (for the report before it is checked)."""
    name, key = entry.body.get("name"), entry.body.get("key")
    try:
        fp = fingerprint(bytes.fromhex(key)) if isinstance(key, str) else "?"
    except ValueError:
        fp = "?"
    return (name if isinstance(name, str) else "?"), fp


def _verify(entries: Sequence[Entry], t: Transcript | None, *, fast: bool) -> Report:
    """The one walk behind both entry points; ``t`` is the header, when there is one."""
    if t is not None:
        names = (t.players[0].name, t.players[1].name)
        fps = (t.players[0].fingerprint, t.players[1].fingerprint)
        session, meta = t.session, dict(t.meta)
    else:
        ids = [_hello_identity(e) for e in entries[:2]] + [("?", "?")] * 2
        names, fps = (ids[0][0], ids[1][0]), (ids[0][1], ids[1][1])
        session, meta = "", {}
    notes: list[str] = []
    walker: _Walker | None = None
    count = max(0, len(entries) - 2)

    def report(failure: Failure | None, status: str) -> Report:
        return Report(
            session=session, names=names, fingerprints=fps,
            rules=walker.rules if walker else None,
            first_dealer=walker.first_dealer if walker else None,
            hands=tuple(walker.hands) if walker else (),
            match=walker.match if walker else None, status=status, entries=count,
            failure=failure, notes=tuple(notes), meta=dict(meta),
            earlier_matches=tuple(walker.earlier) if walker else (),
        )

    def header_fail(rule: str, detail: str) -> Report:
        return report(Failure(line=1, rule=rule, detail=detail), "incomplete")

    # -- hellos and header
    if len(entries) < 2:
        return report(Failure(line=len(entries) + 2, rule="handshake",
                              detail="a transcript starts with both hellos"), "incomplete")
    hellos: list[Hello] = []
    for index in (0, 1):
        hello = entries[index]
        try:
            verify_hello(hello, sender=index)
            msg = parse_body("hello", hello.body)
        except LogError as exc:
            return report(Failure(line=2 + index, rule=exc.rule, detail=exc.detail,
                                  type="hello"), "incomplete")
        except MalformedFrame as exc:
            return report(Failure(line=2 + index, rule="malformed", detail=str(exc),
                                  type="hello", peer=index), "incomplete")
        assert isinstance(msg, Hello)
        if msg.role != ("host", "join")[index]:
            return report(Failure(line=2 + index, rule="handshake", type="hello", peer=index,
                                  detail=f"player {index}'s hello claims role {msg.role}"),
                          "incomplete")
        if msg.version != PROTOCOL_VERSION:
            return report(Failure(line=2 + index, rule="version", type="hello",
                                  peer=index, detail=f"protocol version {msg.version}"),
                          "incomplete")
        hellos.append(msg)
    chain = Chain(entries[0], entries[1])
    log = entries[2:]
    walker = _Walker((hellos[0], hellos[1]), chain, log, fast=fast)
    if t is None:
        names = (hellos[0].name, hellos[1].name)
        fps = (fingerprint(chain.keys[0]), fingerprint(chain.keys[1]))
        session = chain.session
    else:
        for index in (0, 1):
            if hexbytes(bytes(chain.keys[index])) != t.players[index].key:
                return header_fail("header",
                                   f"player {index}'s key is not the one in its hello")
            if names[index] != hellos[index].name:
                return header_fail("header",
                                   f"player {index}'s name is not the one in its hello")
        if chain.session != t.session:
            return header_fail("header", "the session id is not the hash of the hellos")
        try:
            header_rules = Rules.from_dict(t.rules)
        except (RulesError, TypeError, ValueError) as exc:
            return header_fail("header", f"rules: {exc}")
        if header_rules != walker.rules or header_rules.to_dict() != t.rules:
            return header_fail("rules", "the header's rules are not the ones the host proposed")
        if "seal" in t.meta:
            problem = _check_seal(t)
            if problem is not None:
                return header_fail("seal", problem)
        else:
            notes.append("header meta is not sealed by its writer (it is not part of the proof)")

    # -- the log, in order
    for index, entry in enumerate(log):
        line = index + 4
        try:
            chain.append(entry)
        except LogError as exc:
            return report(Failure(line=line, rule=exc.rule, detail=exc.detail,
                                  seq=entry.seq, type=entry.type), "incomplete")
        walker.index = index
        try:
            walker.step(entry)
        except _Fallback:
            return _verify(entries, t, fast=False)
        except _MoveFail as exc:
            return report(Failure(line=exc.seq + 4, rule=exc.rule, detail=exc.detail,
                                  peer=exc.peer, seq=exc.seq, type="move"), "incomplete")
        except _Fail as exc:
            return report(Failure(line=line, rule=exc.rule, detail=exc.detail, peer=exc.peer,
                                  seq=entry.seq, type=entry.type), "incomplete")
        if (walker.state in _STATUS and index + 1 < len(log)
                and log[index + 1].type not in TRANSITIONS[walker.state]):
            nxt = log[index + 1]
            return report(Failure(line=line + 1, rule="after_end", seq=nxt.seq, type=nxt.type,
                                  detail="entries after the end of the match"), "incomplete")

    status = _STATUS.get(walker.state)
    if status is None:
        return report(Failure(line=len(entries) + 2, rule="incomplete",
                              detail=f"the log ends in state {walker.state.value}: "
                              "the match neither ended nor was abandoned"), "incomplete")
    if t is not None and dict(t.result) != proven_result(walker.match):
        return report(Failure(line=1, rule="result",
                              detail="the header's result is not the one the log proves"),
                      status)
    return report(None, status)
