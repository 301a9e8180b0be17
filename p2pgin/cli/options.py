"""The command line's options as values: the table (game, seats, rules), the argument
types and validators, a seat's deadlines, its secret source and known peers (moved from
``cli.py``)."""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    from p2pgin.games import GameSpec
    from p2pgin.net.node import Deadlines



#: TCP port a host listens on by default.
DEFAULT_PORT: Final = 7531



#: The games a table plays (``--game``) and the table size each is played at (None:
#: any size from two to six).
GAMES: Final[dict[str, int | None]] = {"gin": 2, "gin3": 3, "team_gin": 4, "rummy": None}



#: The game ``--players N`` means when no ``--game`` is given.
_GAME_FOR_PLAYERS: Final = {2: "gin", 3: "gin3", 4: "team_gin", 5: "rummy", 6: "rummy"}



#: Rummy's variations: option -> field of its rules object.
RUMMY_VARIATIONS: Final = {
    "multiple_melds": "lay down more than one meld per turn",
    "aces_high_or_low": "an ace may end a run (Q K A) as well as start it",
    "discard_any_card": "the card taken from the discard pile may be discarded at once",
    "discard_final_card": "going out needs a discard of the last card",
    "shuffle_stock": "the discard pile is shuffled (proven) into a new stock",
    "reverse_scoring": "everyone scores their own cards; lowest total wins",
    "rummy_doubles": "going out in one turn scores double",
}



class BadOptions(ValueError):
    """Options that name no table p2pgin can play; the message says which and why."""



def _front_kind(args: argparse.Namespace) -> str:
    """``console`` (a person), ``agent`` (a computer or a script) or ``watch``. NB:
    nothing is imported (``play`` asks before it starts its bots)."""
    if getattr(args, "agent", None) is not None or getattr(args, "command", "") == "bot":
        return "agent"
    return "watch" if getattr(args, "command", "") == "watch" else "console"



def _table(args: argparse.Namespace) -> tuple[str, int, dict[str, Any]]:
    """The table this side proposes: ``(game, seats, rules in wire form)``.

    Raises:
        BadOptions: a game, table size or rule option that does not fit (named).
    """
    from p2pgin.games import GameSpecError, all_games, make_game

    game, players = getattr(args, "game", None), getattr(args, "players", None)
    saved = _saved_rules(args)
    if saved is not None:
        if game is not None and game != saved.game:
            raise BadOptions(f"rule set {saved.name} is for {_game_words(saved.game)}, not "
                             f"{_game_words(game)}")
        game = saved.game
        players = players or saved.players
    if game is None:
        game = _GAME_FOR_PLAYERS.get(players or 2, "gin")
    fixed = GAMES.get(game)
    if players is None:
        players = fixed or 2
    if fixed is not None and players != fixed:
        raise BadOptions(f"{_game_words(game)} is played by {fixed}, not {players} (for "
                         f"{players} players: --game {_GAME_FOR_PLAYERS.get(players, 'rummy')})")
    level, specs = getattr(args, "level", None), {s.name: s for s in all_games()}
    if level is not None and game in specs and level not in specs[game].bots.levels:
        playing = [s for s in specs.values() if level in s.bots.levels]  # registry order
        mine = [lv for lv in specs[game].bots.levels if lv != "random"]
        if not playing:
            raise BadOptions(f"no game has a {level} level")
        raise BadOptions(f"the {level} level plays {playing[0].title} ("
                         f"{', '.join(s.name for s in playing)}); for {specs[game].title} "
                         f"choose --level {', '.join(mine[:-1])} or {mine[-1]}")
    rules = _rules(args, game)
    try:
        make_game(game, rules, players)
    except GameSpecError as exc:
        raise BadOptions(str(exc)) from None
    return game, players, rules



def _saved_rules(args: argparse.Namespace) -> Any:
    """The rule set saved as ``--rules NAME`` (``p2pgin rules save``), or None for a
    preset or no ``--rules``. Read once per command line (a bot reads it before its data
    directory becomes its own).

    Raises:
        BadOptions: the name is neither a preset nor a saved set, or the file is bad.
    """
    if "saved_rules" in vars(args):
        return args.saved_rules
    name = getattr(args, "rules", None)
    found = None
    if not name:
        args.saved_rules = None
        return None
    from p2pgin.cli.rulesets import RuleSetError, load_rule_sets, preset_names

    if name.lower() not in preset_names():
        try:
            sets = load_rule_sets()
        except RuleSetError as exc:
            raise BadOptions(str(exc)) from None
        found = sets.get(name.lower())
        if found is None:
            presets = ", ".join(preset_names())
            raise BadOptions(f"--rules {name}: neither a preset ({presets}) nor a saved rule "
                             f"set ({', '.join(sorted(sets)) or 'none saved'}; p2pgin rules "
                             "list)")
    args.saved_rules = found
    return found



def _game_words(game: str) -> str:
    """The game in words, from the registry (a name it does not know, as it is)."""
    from p2pgin.games import UnknownGame, find_game

    try:
        return find_game(game).title
    except UnknownGame:
        return game



def _rules(args: argparse.Namespace, game: str) -> dict[str, Any]:
    """The rules of ``game`` this side proposes, in wire form: ``--rules-json`` (a
    rematch's, or the local bots' of ``play``), else the preset and its options.

    Raises:
        BadOptions: an unknown preset, or an option the game does not have.
    """
    raw = getattr(args, "rules_json", None)
    if raw:
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise BadOptions(f"--rules-json is not JSON: {exc}") from None
        if not isinstance(value, dict):
            raise BadOptions("--rules-json must be a JSON object")
        return value
    preset = getattr(args, "rules", None)
    target = getattr(args, "target", None)
    chosen = [v for v in RUMMY_VARIATIONS if getattr(args, v, False)]
    saved = _saved_rules(args)
    if saved is not None:
        return _from_saved(args, saved, game)
    spec = _spec(game)
    flags = _flags(args, spec, game, chosen)
    try:
        return dict(spec.rules.from_options(preset, target or None, flags).to_dict())
    except ValueError as exc:  # NB: the game's RulesError, its words as they are
        raise BadOptions(str(exc)) from None


def _spec(game: str) -> GameSpec:
    """The registry's spec of ``game``.

    Raises:
        BadOptions: no game of that name (the registry's words).
    """
    from p2pgin.games import UnknownGame, find_game

    try:
        return find_game(game)
    except UnknownGame as exc:
        raise BadOptions(str(exc)) from None


def _flags(args: argparse.Namespace, spec: GameSpec, game: str,
           chosen: list[str]) -> dict[str, bool]:
    """The rule flags set (``--big-gin``, Rummy's variations) as the game's options, each
    refused at a game that does not own it.

    Raises:
        BadOptions: a flag of another game's.
    """
    owned = {option.dest for option in spec.rules.options}
    big_gin = bool(getattr(args, "big_gin", False))
    if big_gin and "big_gin" not in owned:
        raise BadOptions(f"--big-gin is a gin option; {spec.title} has none")
    foreign = [v for v in chosen if v not in owned]
    if foreign:
        raise BadOptions(f"--{foreign[0].replace('_', '-')} is a Rummy variation; "
                         f"{_game_words(game)} has none")
    flags = dict.fromkeys(chosen, True)
    if big_gin:
        flags["big_gin"] = True
    return flags



def _from_saved(args: argparse.Namespace, saved: Any, game: str) -> dict[str, Any]:
    """The rules of the saved set ``saved``, with the options given beside it.

    Raises:
        BadOptions: the set's options are not the game's (an edited file, another
            version of p2pgin), or an option beside it does not fit.
    """
    import dataclasses

    spec = _spec(game)
    overrides: dict[str, Any] = {}
    if getattr(args, "target", None):
        overrides["target"] = args.target
    chosen = [v for v in RUMMY_VARIATIONS if getattr(args, v, False)]
    overrides.update(_flags(args, spec, game, chosen))
    try:
        read: Any = spec.rules.from_wire(dict(saved.options))  # NB: a frozen dataclass
        rules = dataclasses.replace(read, **overrides)
    except (ValueError, TypeError) as exc:
        raise BadOptions(f"rule set {saved.name}: {exc} (p2pgin rules save "
                         f"{saved.name} ... saves it again)") from None
    return dict(rules.to_dict())



class BadTarget(ValueError):
    """What to join is neither a join code nor ``HOST[:PORT]``; the message says which."""



#: A join code as shown (groups of four symbols): text of this shape is never a host name.
_CODE_SHAPE = re.compile(r"[0-9a-z]{4}(?:[- ][0-9a-z]{1,4})+", re.IGNORECASE)



#: One label of a host name (RFC 1123): letters, digits, inner hyphens.
_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)", re.IGNORECASE)



class Address(NamedTuple):
    """A host to dial and its TCP port (what ``HOST[:PORT]`` or a join code names)."""

    host: str
    port: int



def _parse_target(target: str) -> Address:
    """``HOST[:PORT]`` (IPv6 as ``[addr]:port``) or a join code (tried first when the
    text has no ``.`` or ``:``), the port 1 to 65535 (default :data:`DEFAULT_PORT`).

    Raises:
        BadTarget: a mistyped join code, a host that is no IP address or host name, or a
            port that is not a number from 1 to 65535 (the message says which).
    """
    text = target.strip()
    if ":" not in text and "." not in text:
        from p2pgin.net.joincode import JoinCodeError, decode_join_code

        try:
            return Address(*decode_join_code(text))
        except JoinCodeError as exc:
            if _CODE_SHAPE.fullmatch(text):
                raise BadTarget(f"{target!r} is not a valid join code ({exc}); check it "
                                "against the host's screen, or give HOST[:PORT]") from None
    port_text = ""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest and not rest.startswith(":"):
            raise BadTarget(f"{target!r} is not HOST[:PORT] ([IPv6 address]:PORT)")
        port_text = rest[1:] if rest else str(DEFAULT_PORT)
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    elif ":" in text:
        host = text  # NB: a bare IPv6 address (no port: its colons are the address's)
        port_text = str(DEFAULT_PORT)
    else:
        host, port_text = text, str(DEFAULT_PORT)
    why = _bad_host(host)
    if why:
        raise BadTarget(f"{target!r}: {why}")
    return Address(host, _port_number(port_text, lowest=1, what=f"{target!r}: the port"))



def _bad_host(host: str) -> str:
    """Why ``host`` is neither an IP address nor a host name ("" when it is one)."""
    import ipaddress

    if not host:
        return "no host before the port"
    try:
        ipaddress.ip_address(host)
        return ""
    except ValueError:
        pass
    if ":" in host or host.replace(".", "").isdigit():
        return f"{host} is not an IP address"
    labels = host.removesuffix(".").split(".")
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return f"{host} is not a host name (letters, digits and hyphens between dots)"
    return ""



def _port_number(text: str, *, lowest: int, what: str = "a port") -> int:
    """``text`` as a TCP or UDP port from ``lowest`` to 65535.

    Raises:
        BadTarget: it is not a whole number in that range.
    """
    try:
        value = int(text.strip())
    except ValueError:
        raise BadTarget(f"{what} must be a number from {lowest} to 65535, not "
                        f"{text!r}") from None
    if not lowest <= value <= 65535:
        raise BadTarget(f"{what} must be a number from {lowest} to 65535, not {value}")
    return value



def _secret_source(args: argparse.Namespace) -> random.Random:
    """Where a session draws its secrets (hello nonce, toss and deck seeds).

    NB: always the operating system's CSPRNG in play; only the hidden test flag ``--seed``
    makes a session reproducible. A seeded Mersenne Twister here would make every deck
    secret predictable from a 64-bit seed.
    """
    seed = getattr(args, "seed", None)
    return random.SystemRandom() if seed is None else random.Random(seed)



def _is_bot(args: argparse.Namespace) -> bool:
    """A computer player says so in its signed hello (only such a seat may be asked for
    a take-back; statistics count each bot level apart)."""
    return getattr(args, "command", "") == "bot" or getattr(args, "agent", None) == "bot"



def _loopback(address: str) -> bool:
    """Whether ``address`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    return address.startswith("127.") or address in ("::1", "localhost")



def _agent_meta(args: argparse.Namespace) -> dict[str, Any]:
    """Who plays this side, for ``resume`` to give the seat back to the same player. NB:
    ``play``'s ``--level`` is the opponents', so a person's side records no level."""
    if _front_kind(args) != "agent":
        return {"kind": "person"}
    if getattr(args, "agent", None) == "random":
        return {"kind": "random", "delay": getattr(args, "delay", 0.0) or 0.0}
    return {"kind": "bot", "level": getattr(args, "level", None) or "normal",
            "delay": getattr(args, "delay", 0.0) or 0.0}



def _deadlines(args: argparse.Namespace) -> Deadlines:
    """How long this seat waits for the others. A person is told and decides; a computer
    ends the wait itself (after ``--abandon-after``, default 15 minutes for a person it
    plays and a minute for a machine step), so a silent seat never hangs it."""
    from p2pgin.net.node import Deadlines

    after = getattr(args, "abandon_after", None)
    if _front_kind(args) == "agent":
        # NB: a computer also stops offering an ending nobody comes for (10 minutes)
        return Deadlines(person=after or 900.0, step=after or 60.0, auto_end=True,
                         deliver=600.0, host_gone=after or 30.0)
    return Deadlines(person=after or 120.0, step=after or 30.0, host_gone=after or 30.0)



def _known_peers() -> Callable[[str, bytes], Any]:
    """The known-peers check of each seat's identity key (a changed key is flagged)."""
    from p2pgin.log.identity import KnownPeers, PeerStatus

    known = KnownPeers()

    def check(name: str, key: bytes) -> Any:
        result = known.check(name, key)
        if result.status is PeerStatus.NEW:
            known.remember(name, key)
        return result

    return check



proposed_table = _table



def _players(text: str) -> int:
    """A table size: 2 to 6 (``--players``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 2 <= value <= 6:
        raise argparse.ArgumentTypeError(f"a table has 2 to 6 seats, not {value}")
    return value



def _positive(text: str) -> int:
    """A whole number above zero (``--target``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value



def _listen_port(text: str) -> int:
    """A TCP port to listen on (``--port``): 0 (any free port) to 65535."""
    try:
        return _port_number(text, lowest=0, what="a port to listen on")
    except BadTarget as exc:
        raise argparse.ArgumentTypeError(f"{exc} (0: any free port)") from None



def _udp_port(text: str) -> int:
    """A UDP port (``--discovery-port``): 1 to 65535."""
    try:
        return _port_number(text, lowest=1)
    except BadTarget as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None



def _target(text: str) -> Address:
    """A host to dial (``join``, ``watch``, ``bot --join``): ``HOST[:PORT]`` or a join
    code, the port 1 to 65535."""
    try:
        return _parse_target(text)
    except BadTarget as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None



def _host_port(text: str) -> str:
    """``HOST:PORT`` to dial, kept as text (``resume --host-at``, written by ``play``)."""
    host, port = _target(text)
    return f"{host}:{port}"



def _listen_address(text: str) -> str:
    """An address of this machine to listen on (``--listen``): ``0.0.0.0`` (every IPv4
    interface), ``::``, ``localhost`` or one interface's IP address. A trial bind to a
    free port says whether the address is this machine's (nothing is sent)."""
    import ipaddress
    import socket

    if text == "localhost":
        return text
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an IP address (0.0.0.0 listens on every interface)") from None
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as trial:
            trial.bind((text, 0))
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot listen on {text}: "
                                         f"{exc.strerror or exc}") from None
    return text
