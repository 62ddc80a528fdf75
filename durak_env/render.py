"""Text rendering of a position, with Unicode suits; shared by ``Game`` and the envs.

``render_text(game)`` shows the referee's view (every hand); ``render_text(game,
seat)`` shows what that seat may know (docs/rules.md section 7): its own hand, and for
the other seats their hand size and the cards known to be in their hand.
"""

from __future__ import annotations

from . import core
from .cards import SUIT_SYMBOLS, cards_of, pretty_card, rank_of, suit_of
from .rules import Rules


def render_text(game, seat: int | None = None) -> str:
    """A readable picture of a ``Game``: hands, table, trump, talon, whose turn.

    Args:
        game: a ``durak_env.Game``.
        seat: None for the referee's view, or the seat whose knowledge to show.
    """
    return render_state(game.state, 0, game.rules, seat)


def _cards(mask: int, trump: int) -> str:
    """Cards grouped by suit, trumps last, low to high."""
    ids = sorted(cards_of(mask), key=lambda c: (suit_of(c) == trump, suit_of(c), rank_of(c)))
    return " ".join(pretty_card(c) for c in ids) or "-"


def _table(r) -> str:
    pairs = []
    for i in range(int(r["n_attack"])):
        a, c = int(r["attack"][i]), int(r["cover"][i])
        pairs.append(pretty_card(a) + "/" + (pretty_card(c) if c >= 0 else "?"))
    return "  ".join(pairs) or "empty"


def _roles(r, p) -> str:
    roles = []
    if int(r["phase"]) != core.OVER:
        if p == r["attacker"]:
            roles.append("attacker")
        if p == r["defender"]:
            roles.append("defender, takes" if r["take"] else "defender")
    if r["shown"][p]:
        roles.append("showed a trump")
    return f" ({', '.join(roles)})" if roles else ""


def _hand_line(r, p, seat, trump) -> str:
    hand = int(r["hands"][p])
    n = bin(hand).count("1")
    if not r["in_game"][p]:
        order = [int(q) for q in r["out_order"][: r["n_out"]]]
        # A seat dealt no cards (``Game.from_deal``) is out without having left in play.
        if p not in order:
            return "out (no cards at the deal)"
        return f"out (#{order.index(p) + 1} to leave)"
    if seat is None or seat == p:
        return f"{_cards(hand, trump)}  [{n}]"
    known = int(r["known"][p])
    return f"{n} cards" + (f", known: {_cards(known, trump)}" if known else "")


def render_state(st, g: int, rules: Rules, seat: int | None = None) -> str:
    """Render game ``g`` of a ``core.new_state`` batch; see ``render_text``."""
    n = rules.num_players
    if seat is not None and (isinstance(seat, bool) or not 0 <= seat < n):
        raise ValueError(f"seat must be None or in 0..{n - 1}, got {seat!r}")
    r = st[g]
    trump = int(r["trump"])
    talon = int(r["talon_end"] - r["talon_top"])
    face_up = int(r["trump_card"])
    head = f"Durak, {rules.variant}, {n} players, {rules.deck_size} cards"
    trump_line = f"Trump {SUIT_SYMBOLS[trump]}"
    if talon > 0 and face_up >= 0:
        trump_line += f" (face up: {pretty_card(face_up)})"
    trump_line += f" | talon {talon} | discard {bin(int(r['discard'])).count('1')}"
    lines = [head, trump_line, "Table: " + _table(r)]
    over = int(r["phase"]) == core.OVER
    to_act = -1 if over else int(r["to_act"])
    for p in range(n):
        mark = ">" if p == to_act else " "
        you = " (you)" if p == seat else ""
        lines.append(f"{mark} seat {p}{you}{_roles(r, p)}: {_hand_line(r, p, seat, trump)}")
    lines.append(_status(r, over, to_act))
    return "\n".join(lines)


def _status(r, over, to_act) -> str:
    if over:
        durak = int(r["durak"])
        return "Game over: " + (f"seat {durak} is the durak" if durak >= 0 else "draw")
    phase = "attack" if int(r["phase"]) == core.ATTACK else "defence"
    return f"Seat {to_act} to act ({phase})"
