"""Regenerate the generated sections of protocol/PROTOCOL.md from the code's own tables.

The state table, the lobby's table, the message catalog, the control frames and the
error codes in PROTOCOL.md are written between ``<!-- BEGIN GENERATED: name -->``
and ``<!-- END GENERATED: name -->`` markers by this tool, from ``TRANSITIONS``,
``LOBBY_TRANSITIONS``, ``MESSAGES``, ``CONTROL`` and the error classes;
``tests/session/test_protocol_doc.py`` fails when the file is stale. Run
``python tools/gen_protocol_doc.py`` to update it, ``--check`` to only compare.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2pgin.session.errors import rule_codes  # noqa: E402
from p2pgin.session.lobby import LOBBY_TRANSITIONS  # noqa: E402
from p2pgin.session.messages import CONTROL, MESSAGES  # noqa: E402
from p2pgin.session.state import TRANSITIONS, Stage  # noqa: E402

#: Who writes each entry type: the player's agent (a decision), the seat's session by
#: itself (a step that needs no decision), or a seat that ends the match.
_TAKER = {
    "toss_commit": "session", "toss_reveal": "session", "shuffle": "session",
    "deal": "session", "share": "session", "move": "agent (`act`); a forced move: session",
    "takeback_answer": "agent of a computer seat", "rematch": "agent (`act`)",
    "rematch_answer": "agent (`act`)", "end": "`abandon()`, `end_silent()`, or the session "
    "(accusation, crossing)",
    "resume": "session (a broken link healed: every other seat's consent came)",
}

__all__ = ["DOC", "render_sections", "update"]

DOC = ROOT / "protocol" / "PROTOCOL.md"
_BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<name>[a-z_]+) -->\n)(?P<body>.*?)"
    r"(<!-- END GENERATED: (?P=name) -->)",
    re.S,
)


def _states() -> str:
    lines = [
        "| stage | entry type | written by | next stage(s) | taken by |",
        "|---|---|---|---|---|",
    ]
    for stage, row in TRANSITIONS.items():
        if not row:
            lines.append(f"| `{stage.value}` | - | - | (terminal) | - |")
        for type_, (speaker, nexts) in row.items():
            targets = ", ".join(f"`{n.value}`" for n in nexts)
            lines.append(f"| `{stage.value}` | `{type_}` | {speaker} | {targets} | "
                         f"{_TAKER[type_]} |")
    return "\n".join(lines) + "\n"


def _lobby() -> str:
    lines = [
        "| role | stage | event | what it is | next stage(s) |",
        "|---|---|---|---|---|",
    ]
    for (role, stage), row in LOBBY_TRANSITIONS.items():
        if not row:
            lines.append(f"| {role.value} | `{stage.value}` | - | - | (terminal) |")
        for event, (what, nexts) in row.items():
            targets = ", ".join(f"`{n.value}`" for n in nexts)
            lines.append(f"| {role.value} | `{stage.value}` | `{event.__name__}` | {what} | "
                         f"{targets} |")
    return "\n".join(lines) + "\n"


def _diagram() -> str:
    lines = ["```mermaid", "stateDiagram-v2", "    [*] --> toss: every seat's hello"]
    for stage, row in TRANSITIONS.items():
        for type_, (_speaker, nexts) in row.items():
            if type_ == "end":
                continue
            for nxt in nexts:
                lines.append(f"    {stage.value} --> {nxt.value}: {type_}")
    lines.append("    note right of play: any live stage --> ended: end (any seat)")
    lines.append(f"    {Stage.ENDED.value} --> [*]")
    lines.append("```")
    return "\n".join(lines) + "\n"


def _catalog() -> str:
    out: list[str] = []
    for type_, cls in MESSAGES.items():
        doc = " ".join((cls.__doc__ or "").split())
        out.append(f"### `{type_}`\n\n{doc}\n\nSent by: {cls.SENDER}.\n")
        out.append("| field | kind | meaning |\n|---|---|---|")
        for name, (kind, meaning) in cls.FIELDS.items():
            out.append(f"| `{name}` | {kind} | {meaning} |")
        out.append("")
    return "\n".join(out)


def _control() -> str:
    lines = ["| `ctl` | field | meaning |", "|---|---|---|"]
    for name, fields in CONTROL.items():
        for field, meaning in fields.items():
            lines.append(f"| `{name}` | `{field}` | {meaning} |")
    return "\n".join(lines) + "\n"


def _errors() -> str:
    lines = ["| rule | meaning |", "|---|---|"]
    for rule, meaning in rule_codes().items():
        lines.append(f"| `{rule}` | {meaning} |")
    return "\n".join(lines) + "\n"


def render_sections() -> dict[str, str]:
    """Every generated section's text by marker name."""
    return {
        "states": _states(),
        "lobby": _lobby(),
        "diagram": _diagram(),
        "catalog": _catalog(),
        "control": _control(),
        "errors": _errors(),
    }


def update(text: str) -> str:
    """``text`` with every generated block replaced by its current rendering."""
    sections = render_sections()

    def sub(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in sections:
            raise KeyError(f"unknown generated section {name!r}")
        return match.group(1) + sections[name] + match.group(4)

    return _BLOCK.sub(sub, text)


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    new = update(text)
    if "--check" in argv:
        if new != text:
            print("protocol/PROTOCOL.md is stale: run python tools/gen_protocol_doc.py")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
