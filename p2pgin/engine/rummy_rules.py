"""The options of a Rummy match: one frozen value every seat signs before the first deal.

Basic Rummy (also called Straight or Traditional Rummy) is every variation off and a
target of 100. Each variation is one boolean and they combine freely; the presets are
named combinations. ``to_dict``/``from_dict`` are the stable wire form (only ints and
bools), so the options can go into the signed hellos and every seat can check that it
plays the same game. The rule book (docs/rules.md, "Rummy") says what each option does
and names the test that pins it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Final

from p2pgin.engine.rules import RulesError

__all__ = [
    "MAX_SEATS",
    "MIN_SEATS",
    "RUMMY_PRESETS",
    "RulesError",
    "RummyRules",
    "deal_size",
]

MIN_SEATS: Final = 2
MAX_SEATS: Final = 6
_DEAL_SIZES: Final = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}


def deal_size(seats: int) -> int:
    """Cards dealt to each player: 10 for two players, 7 for three or four, 6 for five or six.

    Raises:
        RulesError: ``seats`` is not 2..6.
    """
    if isinstance(seats, bool) or seats not in _DEAL_SIZES:
        raise RulesError(f"Rummy is for {MIN_SEATS} to {MAX_SEATS} players, got {seats!r}")
    return _DEAL_SIZES[seats]


@dataclass(frozen=True, slots=True, kw_only=True)
class RummyRules:
    """Options of a Rummy match. Build with :meth:`preset`; every field is documented here.

    Attributes:
        multiple_melds: a player may lay down more than one meld in a turn (off: at most
            one meld per turn).
        aces_high_or_low: an ace may end a run (Q K A) as well as start it (A 2 3), never
            both at once (no K A 2). Off: aces are low only. An ace counts 1 either way.
        discard_any_card: a card taken from the discard pile may be discarded in the same
            turn (off: it may not).
        discard_final_card: a player goes out only by discarding their last card; a meld
            or lay-off that would leave no card in hand is refused.
        shuffle_stock: when the stock runs out, the discard pile (all but its top card) is
            shuffled by every player, proven, before it becomes the new stock (off: it is
            turned over, not shuffled).
        reverse_scoring: every player who did not go out scores the cards left in their
            own hand, the player who went out scores nothing; once a total reaches the
            target, the lowest total wins.
        rummy_doubles: a player who goes out in one turn without having laid down any card
            in an earlier turn of the round ("rummy") scores double (with reverse
            scoring: the others' counts are doubled).
        target: the total that ends the match once a player reaches it.
    """

    multiple_melds: bool = False
    aces_high_or_low: bool = False
    discard_any_card: bool = False
    discard_final_card: bool = False
    shuffle_stock: bool = False
    reverse_scoring: bool = False
    rummy_doubles: bool = False
    target: int = 100

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("int", int):
                if not isinstance(value, int) or isinstance(value, bool):
                    raise RulesError(f"{f.name} must be an int, got {value!r}")
            elif not isinstance(value, bool):
                raise RulesError(f"{f.name} must be a bool, got {value!r}")
        if not 1 <= self.target <= 100_000:
            raise RulesError(f"target must be 1..100000, got {self.target}")

    @classmethod
    def preset(cls, name: str = "basic", **overrides: Any) -> RummyRules:
        """A named preset (``basic``, also ``straight`` and ``traditional``) with overrides.

        Example: ``RummyRules.preset("basic", multiple_melds=True, target=150)``.

        Raises:
            RulesError: unknown preset or option, or a bad value.
        """
        try:
            base = RUMMY_PRESETS[name]
        except KeyError:
            choices = sorted(RUMMY_PRESETS)
            raise RulesError(f"unknown Rummy preset {name!r}; choose one of {choices}") from None
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise RulesError(f"unknown Rummy option(s) {sorted(unknown)}")
        return replace(base, **overrides)

    @classmethod
    def variation_names(cls) -> tuple[str, ...]:
        """The boolean options, in declaration order (the variations of Basic Rummy)."""
        return tuple(f.name for f in fields(cls) if f.type in ("bool", bool))

    def to_dict(self) -> dict[str, int | bool]:
        """Every option by name; stable keys, only ints and bools."""
        return dict(asdict(self))

    @classmethod
    def from_dict(cls, data: Any) -> RummyRules:
        """Inverse of :meth:`to_dict`; strict: every option present, nothing else.

        Raises:
            RulesError: not a mapping, missing or unknown keys, or a bad value.
        """
        if not isinstance(data, dict):
            raise RulesError("Rummy rules must be a mapping")
        names = {f.name for f in fields(cls)}
        missing, unknown = names - set(data), set(data) - names
        if missing or unknown:
            raise RulesError(
                f"Rummy rules keys: missing {sorted(missing)}, unknown {sorted(unknown)}"
            )
        return cls(**data)

    def describe(self) -> tuple[str, ...]:
        """Human lines summarising the options (for the lobby and the console)."""
        lines = [
            "one meld per turn" if not self.multiple_melds else "any number of melds per turn",
            "aces high or low (Q K A or A 2 3, never K A 2)"
            if self.aces_high_or_low
            else "aces low (A 2 3)",
            "the card taken from the discard pile may be discarded at once"
            if self.discard_any_card
            else "the card taken from the discard pile may not be discarded that turn",
            "going out needs a final discard"
            if self.discard_final_card
            else "a player may go out by melding or laying off the last cards",
            "an exhausted stock is renewed from the discard pile, "
            + ("shuffled" if self.shuffle_stock else "turned over, not shuffled"),
        ]
        if self.reverse_scoring:
            lines.append(
                f"reverse scoring: each player scores their own cards; at {self.target} "
                "the lowest total wins"
            )
        else:
            lines.append(f"the player who goes out scores the others' cards; first to "
                         f"{self.target} wins")
        if self.rummy_doubles:
            lines.append("going out in one turn (rummy) scores double")
        return tuple(lines)


RUMMY_PRESETS: Final[dict[str, RummyRules]] = {
    "basic": RummyRules(),
    "straight": RummyRules(),
    "traditional": RummyRules(),
}
