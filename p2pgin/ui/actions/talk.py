"""The console's talk: ``:say``, the quick phrases, ``:mute``, who watches."""

from __future__ import annotations

from p2pgin.session.talk import PHRASES, TalkRefusedError
from p2pgin.ui.actions.commands import CommandActions
from p2pgin.ui.commands import Command
from p2pgin.ui.model import Table
from p2pgin.ui.talk import SPECTATORS, watcher_lines

__all__ = ["TalkActions"]


class TalkActions(CommandActions):
    """Talk at the table: a line, a quick phrase, muting a player, who watches."""

    #: The spectators last seen watching through this seat (key fingerprints).
    _watchers_seen: tuple[str, ...] = ()

    def talk(self, text: str) -> None:
        """Say ``text`` at the table; a refusal (empty, too long...) is the message."""
        try:
            self.handle.say(text)
        except TalkRefusedError as exc:
            self.say(str(exc), error=True)

    def quick_phrase(self, number: int) -> None:
        """Say quick phrase ``number`` (0: the first of ``PHRASES``)."""
        self.talk(PHRASES[number])

    def mute(self, who: str, *, muted: bool = True) -> None:
        """Stop (or start again) showing a seat's talk, by name, or every spectator's."""
        who = who.strip()
        names = self.table.names
        found = [s for s, n in enumerate(names) if n.lower() == who.lower() and s != self.table.me]
        if who.lower() in (SPECTATORS, "spectator", "watchers"):
            key, label = SPECTATORS, "the spectators"
        elif found:
            key, label = f"seat {found[0]}", names[found[0]]
        else:
            others = [n for s, n in enumerate(names) if s != self.table.me]
            self.say(f"mute whom? {' | '.join([*others, SPECTATORS])}", error=True)
            return
        if muted:
            self.history.muted.add(key)
            self.say(f"{label} muted: their talk is not shown (:unmute {who})")
        else:
            self.history.muted.discard(key)
            self.say(f"{label} unmuted")

    def execute(self, command: Command) -> list[str]:
        """The talk commands; every other one as before."""
        name, text = command.name, command.word or ""
        if name == "say":
            self.ui.message, self.ui.error = "", False
            self.talk(text)
        elif name in ("mute", "unmute"):
            self.mute(text, muted=name == "mute")
        else:
            return super().execute(command)
        return [self.ui.message] if self.ui.message else []

    def refresh(self) -> Table:
        """As before, with a log line when a spectator comes or leaves."""
        now = tuple(self.handle.watchers)
        if now != self._watchers_seen:
            self.history.log.extend(watcher_lines(self._watchers_seen, now))
            self._watchers_seen = now
        return super().refresh()
