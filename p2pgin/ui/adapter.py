"""From the session's ``PlayerView`` and events to the console's :class:`Table`.

This module and its helpers (:mod:`p2pgin.ui.tables` for what every seat sees,
:mod:`p2pgin.ui.history` for events) build the screen's model; where games differ they
ask the game's console face (:class:`~p2pgin.games.panel.GamePanel`, found by
:func:`p2pgin.ui.faces.panel_of`), which fills the table's game part
(``table_fields``). The rest of :mod:`p2pgin.ui` reads only :mod:`p2pgin.ui.model`.

At a gin table the console acts on the local seat's own two-handed game, a
:class:`~p2pgin.games.gin.seat.GinSeatView` (:func:`gin_view`, once per view). Moves are
never built here: the console picks one of ``view.legal_moves`` (:func:`find_move`), so
it can only send what the engine offers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.engine.game import SeatView
from p2pgin.engine.melds import best_melds
from p2pgin.engine.rules import Rules
from p2pgin.games import UnknownGame, find_game, game_for_players
from p2pgin.games.gin.panel import GinPanel
from p2pgin.games.gin.seat import SESSION_KINDS, GinSeatView, seat_game
from p2pgin.log.identity import PeerCheck, PeerStatus
from p2pgin.session.view import PlayerView
from p2pgin.ui.bonuses import sheet_totals
from p2pgin.ui.faces import panel_of
from p2pgin.ui.history import History, event_line, inner_move, move_kind, move_position
from p2pgin.ui.memory import hands_before, in_match, match_audits, memory_fields
from p2pgin.ui.model import Table
from p2pgin.ui.tables import (
    game_title,
    match_points,
    score_sheet,
    seat_lines,
    seat_names,
    team_lines,
)

__all__ = [
    "GinSeatView",
    "History",
    "action_of",
    "best_of",
    "build_table",
    "cards_of",
    "deadwood_after",
    "default_hinter",
    "describe_move",
    "engine_refusal",
    "event_line",
    "find_move",
    "gin_view",
    "hints_available",
    "move_kind",
    "rules_text",
    "why_not",
]

def action_of(kind: str, game: str) -> str:
    """The console action name of a move kind of ``game`` (``draw_stock`` -> ``stock``)."""
    return panel_of(game).action_of(kind)


def find_move(view: AnyView | None, kind: str, position: int | None = None) -> Any | None:
    """The legal move of ``kind`` (and ``position`` if given) in ``view``, else None."""
    if view is None or (not view.my_turn and kind not in ("next", "rematch")):
        return None
    for move in view.legal_moves:
        if move_kind(move) != kind:
            continue
        if position is not None and move_position(move) != position:
            continue
        return move
    return None


def hints_available() -> bool:
    """Whether :func:`default_hinter` will find a strategy, without importing the bots
    (their tables take a while to build: the console asks for them at the first hint)."""
    import importlib.util

    return importlib.util.find_spec("p2pgin.bots") is not None


def default_hinter() -> Any | None:
    """The hard bot's choice for the local player's own view (a gin game's, or Rummy's):
    the game's bots' hint (:attr:`~p2pgin.games.spec.GameSpec.bots`), given the table's
    hand as this seat knows it."""

    def hinter(view: AnyView) -> Any:
        table = view.table if isinstance(view, GinSeatView) else view
        if table.me is None:
            raise ValueError("a hint is for a seat's own cards")
        return find_game(table.game).bots.hint(SeatView(hand=table.hand, seat=table.me))

    return hinter


AnyView = PlayerView | GinSeatView
"""A view the console reads: the session's, or my own gin game's made from it."""


def gin_view(view: AnyView) -> AnyView:
    """The console's view of a session view: at a gin table where I hold a seat, my own
    game as a :class:`GinSeatView`; any other view (Rummy, a lobby, a spectator, a shim
    already) as it is. Projected once per view (the last few are kept)."""
    if isinstance(view, GinSeatView):
        return view
    me = view.me
    if not isinstance(panel_of(view.game or "gin"), GinPanel) or me is None or (
            view.stage == "lobby"):
        return view
    return seat_game(view, seat_names(view))


#: Rules lines by game and wire form: a table's rules never change, so they are said once.
_RULES_SAID: dict[tuple[str, tuple[tuple[str, Any], ...]], str] = {}


def rules_text(view: AnyView) -> str:
    """The game's rules in one line (the host's, in the lobby; a game's defaults when
    the view has none, or none its game reads)."""
    raw = view.rules
    if isinstance(raw, Rules):
        return "; ".join(raw.describe())
    key = (view.game, tuple(sorted(raw.items())) if isinstance(raw, dict) else ())
    said = _RULES_SAID.get(key)
    if said is None:
        if len(_RULES_SAID) > 64:
            _RULES_SAID.clear()
        said = _RULES_SAID[key] = _rules_line(view.game, raw)
    return said


def _rules_line(game: str, raw: Any) -> str:
    try:
        codec = find_game(game).rules
    except UnknownGame:
        codec = game_for_players(2).rules
    try:
        rules = codec.from_wire(raw) if raw else codec.from_options(None, None, {})
    except (TypeError, ValueError):
        rules = codec.from_options(None, None, {})
    return "; ".join(rules.describe())


def _target(view: AnyView) -> int:
    raw = view.rules
    if isinstance(raw, dict) and isinstance(raw.get("target"), int):
        return int(raw["target"])
    return int(raw.target or 100) if isinstance(raw, Rules) else 100


def build_table(
    view: Any,
    *,
    link: str = "connected",
    peer_info: PeerCheck | None = None,
    peers: Mapping[int, PeerCheck] | None = None,
    history: History | None = None,
    can_undo: bool = False,
    can_hint: bool = False,
    lobby: Sequence[str] = (),
    evidence: Sequence[Any] = (),
    overdue: Any = None,
) -> Table:
    """The screen's model for ``view`` (a session ``PlayerView`` of any game and size).

    Args:
        peer_info: at two seats, the other seat's identity check (fingerprint, status).
        peers: every other seat's identity check (seat -> check), at any size.
        overdue: the handle's current overdue step (it replaces the history's).
    """
    history = history if history is not None else History()
    if isinstance(view, GinSeatView):
        view = view.table
    names = seat_names(view)
    game = view.game or "gin"
    me = view.me
    stage = view.stage
    fingerprints = view.fingerprints
    panel = panel_of(game)
    fields: dict[str, Any] = {}
    if stage != "lobby":
        fields = panel.table_fields(view, names)
        source = panel.memory_of(view, names)
        if source is not None:
            fields.update(memory_fields(source.hand, source.players, source.me, names,
                                        knocks=source.knocks))
    actions: set[str] = set(fields.pop("actions", set()))
    if view.my_turn and can_hint and fields.get("phase") in ("upcard", "draw", "discard",
                                                               "play") and fields.get("hand"):
        actions.add("hint")
    if can_undo:
        actions.add("undo")
    for move in view.legal_moves:
        kind = move_kind(move)
        if kind in SESSION_KINDS:
            actions.add(kind)
    if stage == "match_over" and "accept_rematch" not in actions:
        actions.add("rematch")
    overdue_note = history.overdue
    if overdue is not None:
        from p2pgin.ui.trust import overdue_note as make_overdue

        overdue_note = make_overdue(overdue, names)
    if overdue_note is not None and history.ending is None and (
            stage not in ("match_over", "closed", "lobby")
            or (stage == "match_over" and overdue_note.owed == "rematch_answer")):
        # NB: an unanswered rematch offer lapses with E (the match before it stands)
        actions.add("end")
    else:
        overdue_note = None
    scores, boxes = match_points(view) if stage != "lobby" else ((0,) * len(names),) * 2
    columns, sheet = score_sheet(view, names) if stage != "lobby" else ((), ())
    opp = fields.get("opp_seat")
    if opp is None and len(names) == 2 and me in (0, 1):
        opp = 1 - me
    opp_fp = ""
    status = ""
    if len(names) == 2 and opp is not None:
        opp_fp = (peer_info.fingerprint if peer_info is not None else "") or (
            fingerprints[opp] if opp < len(fingerprints) else "")
        status = "" if peer_info is None else peer_info.status.value
    changed = [names[s] for s, check in (peers or {}).items()
               if check.status is PeerStatus.CHANGED and s < len(names)]
    if changed and not status:
        status = "CHANGED"
    if len(names) > 2 and opp is not None and opp < len(fingerprints):
        opp_fp = fingerprints[opp]
    cheat = history.cheat
    if cheat and evidence:
        cheat += f"; evidence: {evidence[-1]}"
    problem = history.link_problem if link in ("connecting", "reconnecting") else ""
    if not problem and history.links_down and stage not in ("match_over", "closed"):
        down = [names[s] for s in sorted(history.links_down) if s < len(names) and s != me]
        if down and len(names) > 2:
            problem = f"Link to {', '.join(down)} lost; trying again"
    before = hands_before(view)
    return Table(
        me=me,
        names=names,
        game=game,
        opp_fingerprint=opp_fp,
        peer_status=status,
        rules_text=rules_text(view),
        link=link,
        link_problem=problem,
        stage=stage,
        hand_no=in_match(view.hand_no, before),
        my_turn=bool(view.my_turn),
        scores=scores,
        boxes=boxes,
        target=_target(view),
        actions=frozenset(actions),
        log=tuple(history.log),
        audits=match_audits(history.audits, before),
        cheat=cheat,
        waiting_for=view.waiting_for,
        reveal=history.reveal,  # NB: kept into the next hand so ``e`` can show it again
        match_end=history.match_end,
        can_undo=can_undo,
        lobby=tuple(lobby),
        sheet=sheet,
        sheet_columns=columns,
        sheet_totals=sheet_totals(view.match) if stage != "lobby" else (),
        seat_lines=seat_lines(view, names, links_down=frozenset(history.links_down),
                              fingerprints=fingerprints) if stage != "lobby" else (),
        teams=team_lines(view, names),
        overdue=overdue_note,
        ending=history.ending,
        game_title=game_title(view) if panel.words.titled or len(names) != 2 else "",
        changed_keys=tuple(changed),
        **fields,
    )


def cards_of(view: Any, melds: Iterable[Iterable[int]]) -> tuple[tuple[Card, ...], ...]:
    """Melds named by deck positions (an engine move's) as cards, from the view."""
    hand = view.hand
    return tuple(tuple(hand.known(p) for p in meld) for meld in melds)


def engine_refusal(view: Any, move: Any) -> str:
    """Why the engine refuses ``move`` for the local player now ("" if it takes it):
    a declaration the player arranged is checked before anything is sent."""
    from p2pgin.engine import IllegalMoveError, apply

    try:
        apply(view.hand, move, view.me)
    except IllegalMoveError as exc:
        return str(exc)
    return ""


def deadwood_after(table: Table, card: Card) -> int:
    """Deadwood of the best arrangement of the hand without ``card``."""
    return best_melds([c for c in table.hand if c != card]).deadwood


def best_of(table: Table, cards: Iterable[Card]) -> Card | None:
    """The card among ``cards`` whose discard leaves the least deadwood."""
    options = sorted(cards, key=lambda c: (deadwood_after(table, c), c))
    return options[0] if options else None


def why_not(table: Table, action: str) -> str:
    """A sentence saying why ``action`` cannot be done now."""
    return panel_of(table.game).why_not(table, action)


def describe_move(table: Table, move: Any, *, ascii: bool = False,
                  typed: bool = False) -> tuple[str, Card | None]:
    """A hint's text and the card it is about (to put the cursor on). ``typed``: name
    the command to type (``--plain``) instead of the key."""
    kind = move_kind(move)
    move = inner_move(move)
    position = move_position(move)
    card = None
    if position is not None:
        card = next((c for c, p in table.positions.items() if p == position), None)
    return panel_of(table.game).describe_move(table, kind, move, card, ascii=ascii,
                                              typed=typed)
