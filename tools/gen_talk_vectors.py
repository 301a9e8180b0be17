"""Write ``protocol/vectors/talk.json``: the exact bytes of lines of talk (PROTOCOL.md
§8a) for fixed keys, their hashes, the transcript header's ``talk`` digest, and lines
every seat must refuse, each with the reason.

Usage::

    python tools/gen_talk_vectors.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from genfile import write_or_check
from nacl.signing import SigningKey

from p2pgin.log.entry import GENESIS_PREV, sign_entry
from p2pgin.log.transcript import talk_digest
from p2pgin.session.talk import MAX_TEXT, SAY_TYPE, Talk, TalkRefused, sign_say

OUT = Path(__file__).resolve().parents[1] / "protocol" / "vectors" / "talk.json"
SESSION = "5e" * 32
HEAD = "a1" * 32


def _key(n: int) -> SigningKey:
    return SigningKey(bytes([n + 1]) * 32)


def build() -> dict[str, Any]:
    """The vectors, from this implementation."""
    seats = [_key(0), _key(1)]
    watcher = _key(5)
    lines = [
        sign_say(seats[0], session=SESSION, number=0, head=GENESIS_PREV, text="good luck",
                 seat=0),
        sign_say(seats[1], session=SESSION, number=0, head=HEAD, text="nice hand",
                 seat=1),
        sign_say(watcher, session=SESSION, number=0, head=HEAD, text="go ann!", seat=None),
        sign_say(seats[1], session=SESSION, number=1, head=HEAD,
                 text="\x1b[2J escapes are words too", seat=1),
    ]
    invalid = [
        ("forged: seat 0's name, seat 1's key",
         sign_say(seats[1], session=SESSION, number=5, head=HEAD, text="I resign", seat=0)),
        ("another table", sign_say(seats[0], session="00" * 32, number=5, head=HEAD,
                                   text="hi", seat=0)),
        ("too long", sign_say(seats[0], session=SESSION, number=5, head=HEAD,
                              text="x" * (MAX_TEXT + 1), seat=0)),
        ("a body with more than text", sign_entry(
            seats[0], session=SESSION, seq=5, prev=HEAD, sender=0, type=SAY_TYPE,
            body={"text": "hi", "move": "knock"})),
        ("a seat's key speaking as a spectator", sign_say(
            seats[0], session=SESSION, number=5, head=HEAD, text="hi", seat=None)),
    ]
    talk = Talk(SESSION, [k.verify_key for k in seats], watchers=True)
    for line in lines:
        talk.take(line)
    refused = []
    for what, line in invalid:
        try:
            talk.take(line)
        except TalkRefused as exc:
            refused.append({"what": what, "line": line.to_bytes().decode(),
                            "refused": exc.detail, "forged": exc.forged})
        else:  # pragma: no cover - the generator's own check
            raise AssertionError(f"{what}: taken")
    return {
        "about": "PROTOCOL.md §8a: lines of talk; keys are SigningKey(bytes([n+1])*32) "
                 "for seats 0, 1 (n = 0, 1) and a spectator (n = 5)",
        "session": SESSION,
        "seat_keys": [bytes(k.verify_key).hex() for k in seats],
        "watcher_key": bytes(watcher.verify_key).hex(),
        "lines": [{"line": e.to_bytes().decode(), "hash": e.hash()} for e in lines],
        "talk_hash": talk_digest(lines),
        "invalid": refused,
    }


def render() -> str:
    """The file's text."""
    return json.dumps(build(), indent=1, ensure_ascii=True) + "\n"


def main(argv: list[str]) -> int:
    return write_or_check(OUT, render(), argv, "tools/gen_talk_vectors.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
