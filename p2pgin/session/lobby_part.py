"""The lobby before a table forms: the host offers seats and hears hellos, a joiner
signs for its seat (or declines), a spectator asks to watch; the table forms from the
hellos (the rules are in :mod:`p2pgin.session.lobby`)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from p2pgin.log.entry import Entry, hello_key, sign_hello
from p2pgin.session.control import Decline, LobbyOffer, TableFrame
from p2pgin.session.errors import Fault, LobbyRefused, Unattributable
from p2pgin.session.events import TableFormed
from p2pgin.session.lobby import (
    IF_SAME,
    Declined,
    Formed,
    HelloTaken,
    HostHelloKnown,
    LobbyState,
    News,
    SeatOffered,
    Signed,
    TableFull,
    check_joiner_hello,
    check_table,
    read_host_hello,
)
from p2pgin.session.machine import Machine
from p2pgin.session.messages import PROTOCOL_VERSION, Hello
from p2pgin.session.model import Role
from p2pgin.session.secrets import SeatSecrets
from p2pgin.session.takeback_part import TakeBacks


class LobbySide(TakeBacks):
    """The lobby's side of a session, up to the table forming."""

    def _sign_hello(self, *, seat: int, seats: int, game: str, rules: dict[str, Any],
                    table: str | None, port: int | None) -> Entry:
        hello = Hello(version=PROTOCOL_VERSION, seat=seat, seats=seats, game=game,
                      rules=rules, key="00" * 32, nonce=bytes(self._rng.randbytes(32)).hex(),
                      name=self.name, table=table, port=port, bot=self.bot)
        return sign_hello(self._key, sender=seat, body=hello.to_body())

    def _offer_seat(self, link: Hashable) -> None:
        lobby = self.lobby
        assert lobby is not None and lobby.host_hello is not None
        info = self._links[link]
        info.offered = lobby.free_seat()
        if info.offered is not None:
            info.offers.add(info.offered)
        self._send(link, LobbyOffer(hello=lobby.host_hello, seat=self._links[link].offered,
                                    seated=tuple(lobby.seated_names())).to_bytes())

    def _lobby_news(self) -> None:
        """Tell every lobby link who is seated now, and each newcomer its seat now."""
        lobby = self.lobby
        assert lobby is not None
        free = lobby.free_seat()
        for link, info in self._links.items():
            if info.spectator:
                continue
            if info.seat is None:
                info.offered = free
                if free is not None:
                    info.offers.add(free)
            self._send(link, LobbyOffer(
                hello=None, seat=info.seat if info.seat is not None else info.offered,
                seated=tuple(lobby.seated_names())).to_bytes())

    def _take_hello(self, link: Hashable, hello: Entry) -> None:
        """(Host) a joiner's hello for the seat it was offered."""
        lobby, info = self.lobby, self._links.get(link)
        assert lobby is not None and lobby.host_hello is not None and info is not None
        seat = info.offered
        if seat is not None and hello.sender in info.offers:
            # NB: newcomers arriving together are all offered the lowest free seat, and
            # the news that one took it crosses the others' hellos: a hello for a seat
            # this connection was offered earlier is as good as the offer now. (Not any
            # free seat: a newcomer must not pick its place, a partner in team gin.)
            seat = hello.sender
        try:
            check_joiner_hello(lobby, hello, seat, info.key)
        except LobbyRefused as exc:
            self._drop(link, exc.detail)
            return
        assert seat is not None
        if seat in lobby.hellos:
            self._offer_seat(link)  # NB: another newcomer's hello took it first
            return
        lobby = self._commit_lobby(HelloTaken(seat=seat, hello=hello))
        info.seat, info.offered = seat, None
        if not lobby.full:
            self._lobby_news()
            return
        self._form(lobby.table_hellos())
        for other, other_info in list(self._links.items()):
            if other_info.seat is not None or other_info.spectator:
                self._send_table(other)
            else:
                self._turn_away(other)  # NB: still in the lobby: the last seat is taken
        self._advance()

    def _take_lobby(self, link: Hashable, frame: LobbyOffer) -> None:
        """(Joiner) the host's lobby: its hello, my seat, who is seated."""
        lobby = self.lobby
        if lobby.declined:
            return  # NB: a frame sent before the host heard that I declined
        if frame.hello is not None or frame.hello_error is not None:
            try:
                hello = read_host_hello(frame, self._links[link].key)
            except LobbyRefused as exc:
                self._drop(link, exc.detail)
                return
            seats = hello.body["seats"]
            assert isinstance(seats, int)
            lobby = self._commit_lobby(HostHelloKnown(hello=hello, seats=seats,
                                                      signed=self.my_hello is not None))
            if self._refuse_host(link, lobby):
                return
        seat = frame.seat
        if seat is None and frame.seat_given:
            # NB: no seat is offered only when every seat is taken (PROTOCOL.md §9): said
            # by the host, or by a seat of a table that formed without me
            self._commit_lobby(TableFull())
            return
        if lobby.host_hello is None:
            self._drop(link, "lobby: no host hello yet")
            return
        lobby = self._commit_lobby(SeatOffered(seat=seat))
        mine = self.my_hello
        if lobby.offered is None or (mine is not None and mine.sender == lobby.offered):
            return
        if mine is not None or not self._asks_rules():
            # NB: a first offer I accept, or my seat went to another newcomer's hello
            # first and I am offered the next one: sign for it.
            self._sign_for_seat(link)

    def _refuse_host(self, link: Hashable, lobby: LobbyState) -> bool:
        """(Joiner) True when the host's hello is not the table the joiner was told of:
        it declines there and then (the lobby closes; the host hears why)."""
        if self._check_host is None or lobby.host_hello is None or self.my_hello is not None:
            return False
        body = lobby.host_hello.body
        rules = body.get("rules")
        refused = self._check_host(str(body.get("game")),
                                   rules if isinstance(rules, dict) else {}, lobby.seats)
        if not refused:
            return False
        lobby = self._commit_lobby(Declined(
            reason="your table is not the one announced on the LAN", refused=refused))
        self._send(link, Decline(reason=lobby.declined, name=self.name or "").to_bytes())
        return True

    def _asks_rules(self) -> bool:
        policy = self._accept_rules
        if policy == IF_SAME:
            lobby = self.lobby
            host = lobby.host_hello if lobby is not None else None
            return host is None or self._proposed != (host.body.get("game"),
                                                      host.body.get("rules"))
        return policy is None

    def _sign_for_seat(self, link: Hashable | None) -> None:
        lobby = self.lobby
        assert lobby is not None and lobby.host_hello is not None and lobby.offered is not None
        host = lobby.host_hello.body
        rules = host.get("rules")
        assert isinstance(rules, dict)
        self.my_hello = self._sign_hello(seat=lobby.offered, seats=lobby.seats,
                                         game=str(host.get("game")), rules=rules,
                                         table=lobby.host_hello.hash(),
                                         port=self._port)
        self._commit_lobby(Signed())
        self._send(link if link is not None else self._host_link(), self.my_hello.to_bytes())

    def _host_link(self) -> Hashable | None:
        lobby = self.lobby
        if lobby is None or lobby.host_hello is None:
            return None
        key = bytes(hello_key(lobby.host_hello))
        return next((link for link, info in self._links.items() if info.key == key), None)

    def _take_table(self, link: Hashable, frame: TableFrame) -> None:
        """(Joiner, spectator) the table formed: every seat's hello."""
        if frame.hellos_error is not None:
            self._drop(link, f"table: {frame.hellos_error}")
            return
        hellos = frame.hellos
        if self.machine is not None:
            if hellos != self.machine.seating.hellos:
                self._drop(link, "table: other hellos than this table's")
            return
        if self.role is Role.JOINER:
            try:
                check_table(hellos, self.lobby, self.my_hello)
            except LobbyRefused as exc:
                self._drop(link, exc.detail)
                return
        try:
            self._form(hellos)
        except (Unattributable, Fault) as exc:
            self._drop(link, f"table: {exc}")
            return
        # NB: a seat that formed first may have dialled me before my table came (its
        # table frame can come first, on its link): every link learns its seat now.
        for other, info in list(self._links.items()):
            if info.seat is not None or info.spectator:
                continue
            info.seat = next((s for s, h in enumerate(hellos)
                              if bytes(hello_key(h)) == info.key), None)
            if info.seat is None:
                self._drop(other, "not a seat of this table")
            elif other != link:
                self._send_table(other)
                self._send_head(other)
        if link not in self._links:
            return
        me = self.me
        if me is not None:
            for seat, address in enumerate(frame.addresses):
                if 0 < seat < me and address:
                    self._out.connect.append((seat, address))
        self._send_head(link)
        self._advance()

    def _form(self, hellos: tuple[Entry, ...]) -> None:
        """The table's hellos are known: build the machine; the log begins."""
        me = self.me if self.role is not Role.SPECTATOR else None
        secrets = None
        if me is not None:
            secrets = SeatSecrets(me, "", self._rng)
        machine = Machine.from_hellos(hellos, observer=secrets)
        if secrets is not None:
            secrets.session_id = machine.session_id
            secrets.prepare(1)
        self._secrets = secrets
        self.machine = machine
        self._commit_lobby(Formed())
        self._out.hellos = hellos
        table = machine.seating
        self._out.events.append(TableFormed(session_id=machine.session_id, names=table.names,
                                            fingerprints=table.fingerprints))

    def _take_decline(self, link: Hashable, frame: Decline) -> None:
        """(Host, lobby) a newcomer declined the host's game and rules."""
        reason = frame.reason
        who = frame.name or "a player"
        self._drop(link, f"declined: {reason}")
        # NB: for the host's lobby screen (unsigned words: the screen escapes them)
        why = f" ({reason})" if reason and reason != "declined the host's rules" else ""
        self._commit_lobby(News(text=f"{who} declined your game and rules{why}"))
        self._lobby_news()

    def _take_watch(self, link: Hashable) -> None:
        """A spectator asks to watch: it gets the table (now, or when it forms)."""
        info = self._links[link]
        if not self.allow_spectators or info.seat is not None:
            self._drop(link, "this table takes no spectators" if not self.allow_spectators
                       else "a seat does not watch")
            return
        info.spectator, info.offered = True, None
        if self.machine is not None:
            self._send_table(link)
            self._send_head(link)
        elif self.role is Role.HOST:
            self._lobby_news()
