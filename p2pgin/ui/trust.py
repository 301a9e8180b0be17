"""What the player is told when trust is at stake: a seat that stays silent past its
deadline, and how a match ended without finishing (abandoned, timed out, a rule broken
and caught, a false claim refuted, two endings that crossed).

Why a module of its own: these are the sentences that decide whether a player believes
the program (issue 15). Each says who is named, who found it (this program, or another
seat whose claim this program checked against the signed log), and what the record
holds; the record is the same one ``p2pgin verify`` checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from p2pgin.session.endings import Ending
from p2pgin.ui.model import EndingNote, OverdueNote

__all__ = ["RECORD_LINE", "WATCHER_RECORD_LINE", "ending_headline", "ending_note",
           "overdue_choice", "overdue_log", "overdue_note", "overdue_text", "owed_words"]

RECORD_LINE: Final = ("The record is saved in your game file, every entry signed by its "
                      "seat: `p2pgin verify` checks it and reaches the same verdict.")
#: A spectator keeps no game file: the record is the players'.
WATCHER_RECORD_LINE: Final = ("The record is in the players' game files, every entry "
                              "signed by its seat: `p2pgin verify` checks a transcript of "
                              "it and reaches the same verdict.")

_OWED: Final = {
    "move": "move",
    "share": "share of a card",
    "shuffle": "shuffle",
    "deal": "deal",
    "toss_commit": "coin-toss commitment",
    "toss_reveal": "coin-toss reveal",
    "rematch_answer": "answer to the rematch offer",
}


def owed_words(owed: str) -> str:
    """The step a seat owes, in words (``share`` -> ``share of a card``)."""
    return _OWED.get(owed, owed.replace("_", " "))


def _a(words: str) -> str:
    """``words`` with its indefinite article (``a move``, ``an answer ...``)."""
    return f"{'an' if words[:1].lower() in 'aeiou' else 'a'} {words}"


def _who(names: Sequence[str], seat: int | None, me: int | None) -> str:
    if seat is None:
        return "nobody"
    if seat == me:
        return "you"
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def overdue_note(event: Any, names: Sequence[str]) -> OverdueNote:
    """An ``Overdue`` event as the console keeps it."""
    seat = int(event.seat)
    return OverdueNote(seat=seat, name=names[seat] if seat < len(names) else f"seat {seat}",
                       owed=str(event.owed), waited=float(event.waited),
                       person=bool(event.person))


def _waited(note: OverdueNote) -> str:
    return f"{note.waited / 60:.0f} min" if note.waited >= 90 else f"{note.waited:.0f} s"


def overdue_text(note: OverdueNote) -> str:
    """One sentence: who is silent, what is owed, for how long (a seat is a player,
    never "it": the step is named, not whose it is)."""
    whose = "" if note.person else "'s program"
    return f"{note.name}{whose} has not sent {_a(owed_words(note.owed))} for {_waited(note)}"


def overdue_choice(note: OverdueNote, *, typed: bool = False) -> str:
    """What the player may do about a silent seat (the status line; the banner says who
    is silent and for how long, so this does not repeat it)."""
    if typed:
        return f"Type wait to wait for {note.name}, or end to end the match (the record " \
               f"names {note.name})."
    return f"w: wait for {note.name}, E: end the match (the record names {note.name})"


def overdue_log(note: OverdueNote) -> str:
    """The log's record of a deadline that passed (the banner shows it as it stands)."""
    return f"Deadline passed: {note.name} owes {_a(owed_words(note.owed))} ({_waited(note)})."


def ending_headline(ending: Ending, names: Sequence[str]) -> str:
    """The ending's one sentence (the session's), a silent seat's worded as a player's:
    ``Ann ended the match: Bob did not send the move in time.``"""
    kind = str(ending.kind)
    if kind != "timeout":
        return str(ending.headline(names))
    by, named = _who(names, ending.by, None), _who(names, ending.named, None)
    return (f"{by} ended the match: {named} did not send the "
            f"{owed_words(ending.owed or 'step')} in time.")


def ending_note(ending: Ending, names: Sequence[str], me: int | None) -> EndingNote:
    """How the match ended (a session ``Ending``), its headline and what it means here."""
    kind = str(ending.kind)
    by, named = ending.by, ending.named
    who_by, who_named = _who(names, by, me), _who(names, named, me)
    headline = ending_headline(ending, names)
    lines: list[str] = []
    alarm = False
    if kind == "abandon":
        if by == me:
            lines.append("You left the match: the record names you as the one who left.")
        else:
            lines.append(f"{_cap(who_by)} left the match: nothing more can be played, and "
                         f"the record names {who_by} as the one who left.")
    elif kind == "timeout":
        owed = owed_words(ending.owed or "step")
        if named == me:
            lines.append(f"{_cap(who_by)} stopped waiting for your {owed}: the record names "
                         "you as the silent seat (a link that stayed down counts as silence).")
        elif by == me:
            lines.append(f"You ended the wait: {who_named} did not send the {owed} in time, "
                         f"and the record names {who_named} as the silent seat.")
        else:
            lines.append(f"{_cap(who_by)} ended the wait for {who_named}'s {owed}: the "
                         f"record names {who_named} as the silent seat.")
    elif kind == "accuse":
        alarm = True
        rule = ending.rule
        if rule == "claim":
            if by == me:
                lines.append(f"Refuted by you: {who_named} claimed that a seat broke the rules; "
                             "your program checked the claim against the signed log and it "
                             "does not hold.")
            else:
                lines.append(f"Refuted: {who_named} claimed that a seat broke the rules; "
                             f"{who_by} and your program checked the claim against the signed "
                             "log and it does not hold.")
            lines.append(f"The record names {who_named} as the false accuser.")
        else:
            what = ("signed two different entries at one position" if rule == "equivocation"
                    else f"broke the rules [{rule}]")
            if named == me:
                lines.append(f"The record names you: {who_by} holds an entry your program "
                             f"signed that {what.replace('broke', 'breaks')}.")
            elif by == me:
                lines.append(f"Detected by you: {who_named} {what}. The signed entry that "
                             "proves it is in the record.")
            else:
                lines.append(f"Claimed by {who_by}, and upheld: your program checked the "
                             f"signed evidence against the log. {_cap(who_named)} {what}.")
    else:  # crossed
        other = ending.crossed[0] if ending.crossed else "an ending"
        lines.append(f"{_cap(who_named)} wrote {other} while {who_by} had already gone on: "
                     f"the record keeps every signed entry and names {who_named}.")
    if ending.hand_cut and ending.hand_no:
        lines.append(f"Hand {ending.hand_no} was not finished: it does not count.")
    if ending.reason:
        lines.append(f"Reason given: {ending.reason}")
    lines.append(RECORD_LINE if me is not None else WATCHER_RECORD_LINE)
    return EndingNote(kind=kind, headline=headline, meaning=tuple(lines), alarm=alarm)
