"""Third-party verification of a game file or transcript: replay everything, trust nothing.

A verifier holds no secrets. It checks the hash chain and every signature (log layer),
recomputes the coin toss from the revealed nonces, feeds each hand's deck payloads to
``p2pgin.mental.verify_hand`` (which checks every shuffle step, share and audit and,
after both audits, yields the whole deck), and replays every move through the rules
engine with all 52 cards known, checking that each move came from the player to move.
The result is the match as the log proves it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2pgin.engine.errors import IllegalMoveError
from p2pgin.engine.hand import HandState, apply
from p2pgin.engine.match import MatchState
from p2pgin.engine.moves import MoveFormatError, move_from_dict
from p2pgin.engine.rules import Rules, RulesError
from p2pgin.log.entry import Chain, Entry
from p2pgin.log.errors import LogError
from p2pgin.mental.cointoss import SEED_TAG
from p2pgin.mental.deck import verify_hand
from p2pgin.mental.errors import DeckError
from p2pgin.mental.group import tagged_hash

__all__ = ["VerificationError", "Verified", "verify_log"]


class VerificationError(ValueError):
    """The log does not prove a valid match; the message names the entry and rule."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Verified:
    """What a valid log proves: the (last) match state, ``over`` if finished, the matches
    before it when a rematch followed, and every audited hand's deck."""

    session: str
    rules: Rules
    match: MatchState | None
    decks: tuple[tuple[int, ...], ...]
    complete_hands: int
    earlier_matches: tuple[MatchState, ...] = ()


def verify_log(entries: Sequence[Entry]) -> Verified:
    """Verify both hellos and the log that follows them.

    Raises:
        VerificationError: the first broken rule (chain, signature, deck, engine).
    """
    try:
        chain = Chain.replay(entries)
        rules = Rules.from_dict(entries[0].body["rules"])
    except (LogError, RulesError, KeyError, IndexError) as exc:
        raise VerificationError(f"log: {exc}") from None
    sid = bytes.fromhex(chain.session)
    nonces: dict[int, bytes] = {}
    match: MatchState | None = None
    seed = b""
    payloads: list[tuple[int, object]] = []
    state: HandState | None = None
    decks: list[tuple[int, ...]] = []
    moves: list[tuple[int, Any]] = []
    hand_no = 0
    matches: list[MatchState] = []
    for e in chain.entries:
        body = e.body
        try:
            if e.type == "toss_reveal":
                nonces[e.sender] = bytes.fromhex(body["toss"]["nonce"])
                if len(nonces) == 2:
                    outcome = tagged_hash(SEED_TAG, sid, nonces[0], nonces[1])
                    seed = outcome[:32]
                    match = MatchState.new(rules, outcome[32] & 1)
                    hand_no = 1
            elif e.type == "rematch_answer" and body.get("accept") is True:
                if match is None or match.winner is None:
                    raise VerificationError(f"entry {e.seq}: rematch before a match ended")
                matches.append(match)
                match = MatchState.new(rules, match.winner)
            elif e.type == "shuffle":
                payloads.append((e.sender, body["step"]))
            elif e.type == "deal":
                payloads += [(e.sender, p) for p in body["shares"]["shares"]]
                payloads += [(e.sender, p) for p in body["upcard"]["opens"]]
            elif e.type == "draw_share":
                payloads += [(e.sender, p) for p in body["share"]["shares"]]
            elif e.type == "move":
                moves.append((e.sender, move_from_dict(body["move"])))
                if body["open"] is not None:
                    payloads += [(e.sender, p) for p in body["open"]["opens"]]
            elif e.type == "audit":
                payloads.append((e.sender, body["secrets"]))
            elif e.type == "audit_result" and match is not None and e.sender == match.dealer:
                verifier = verify_hand(session_id=sid, hand_no=hand_no, seed=seed,
                                       dealer=match.dealer, entries=payloads)
                if verifier.deck is None:
                    raise VerificationError(f"hand {hand_no}: no complete audit")
                state = HandState.deal(rules, match.dealer, verifier.deck)
                for sender, move in moves:
                    state = apply(state, move, sender)
                if state.result is None:
                    raise VerificationError(f"hand {hand_no} did not end before its audit")
                match = match.record(state.result)
                decks.append(tuple(int(c) for c in verifier.deck))
                payloads, moves = [], []
                hand_no += 1
        except VerificationError:
            raise
        except (DeckError, IllegalMoveError, MoveFormatError) as exc:
            raise VerificationError(f"entry {e.seq} ({e.type}): {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise VerificationError(f"entry {e.seq} ({e.type}): malformed: {exc}") from None
    return Verified(session=chain.session, rules=rules, match=match, decks=tuple(decks),
                    complete_hands=len(decks), earlier_matches=tuple(matches))
