"""What every generator in tools/ does with the text it makes: write it, or with
``--check`` say whether the file already holds it (exit 1 when stale)."""

from __future__ import annotations

from pathlib import Path


def write_or_check(out: Path, text: str, argv: list[str], tool: str) -> int:
    """Write ``text`` to ``out``, or (``--check`` in ``argv``) compare; the exit status."""
    if "--check" in argv:
        same = out.exists() and out.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{out} is stale: run {tool}")
        return 0 if same else 1
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0
