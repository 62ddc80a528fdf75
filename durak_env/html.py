"""HTML rendering of a position with inline SVG cards, for notebooks (``_repr_html_``).

``render_html(game)`` is the referee's view (every hand face up);
``render_html(game, seat)`` shows only what that seat may know (docs/rules.md section
7): its own hand face up, each other hand as card backs with its count, with the
cards known to be in it (picked up from the table, the drawn trump card, shown
trumps) face up. Hidden cards do not appear anywhere in the HTML, not even in
attributes. Every face-up card is an ``<svg data-card="7C">`` with a ``<title>``.

``render_html_state(st, g, rules, seat)`` renders game ``g`` of a core state batch
(the record array of ``core.new_state``), for the environments.
"""

from __future__ import annotations

from html import escape

from . import core
from .cards import RANK_NAMES as _RANKS
from .cards import SUIT_NAMES, SUIT_SYMBOLS, cards_of, format_card, rank_of, suit_of
from .rules import Rules

_RED = "#c0392b"
_BLACK = "#1a1a1a"
_CSS = """
.durak-pos{font-family:system-ui,sans-serif;font-size:13px;line-height:1.3;color:#222;
  background:#eef4ee;border:1px solid #9bb89b;border-radius:8px;padding:8px 10px;
  display:inline-block;min-width:420px}
.durak-pos .durak-head{font-weight:600;margin-bottom:4px}
.durak-pos .durak-row{display:flex;align-items:center;gap:8px;margin:4px 0;flex-wrap:wrap}
.durak-pos .durak-label{min-width:150px}
.durak-pos .durak-act{background:#fff6cc;border-radius:4px}
.durak-pos .durak-cards{display:flex;gap:2px;flex-wrap:wrap;align-items:center}
.durak-pos .durak-pair{display:inline-flex;flex-direction:column;margin-right:6px}
.durak-pos .durak-pair svg+svg{margin-top:-40px;margin-left:14px}
.durak-pos .durak-muted{color:#666}
.durak-pos svg{display:block}
"""


def render_html(game, seat: int | None = None) -> str:
    """The position of a ``Game`` as an HTML fragment (see the module docstring).

    Args:
        game: a ``durak_env.Game``.
        seat: None for the referee's view, or the seat whose knowledge to show.
    """
    return render_html_state(game.state, 0, game.rules, seat)


def render_html_state(st, g: int, rules: Rules, seat: int | None = None) -> str:
    """Render game ``g`` of a core state batch; see ``render_html``."""
    n = rules.num_players
    if seat is not None and (isinstance(seat, bool) or not 0 <= seat < n):
        raise ValueError(f"seat must be None or in 0..{n - 1}, got {seat!r}")
    r = st[g]
    parts = [f"<style>{_CSS}</style>", '<div class="durak-pos">']
    parts.append(f'<div class="durak-head">{escape(_headline(rules, seat))}</div>')
    parts.append(_info_row(r))
    parts.append(_table_row(r))
    parts += [_seat_row(r, p, seat) for p in range(n)]
    parts.append(f'<div class="durak-row"><b>{escape(_status(r))}</b></div>')
    parts.append("</div>")
    return "\n".join(parts)


# ---------------------------------------------------------------- pieces


def _headline(rules: Rules, seat) -> str:
    view = "referee's view" if seat is None else f"seat {seat}'s view"
    return f"Durak, {rules.variant}, {rules.num_players} players, {rules.deck_size} cards ({view})"


def _info_row(r) -> str:
    trump = int(r["trump"])
    talon = int(r["talon_end"]) - int(r["talon_top"])
    face_up = int(r["trump_card"])
    colour = _RED if trump in (2, 3) else _BLACK
    items = [
        f'<span>Trump <span style="color:{colour};font-size:20px" '
        f'title="trump {SUIT_NAMES[trump]}">{SUIT_SYMBOLS[trump]}</span></span>'
    ]
    if talon > 0 and face_up >= 0:
        items.append(f"<span>face up</span>{card_svg(face_up, trump)}")
    items.append(f"<span>Talon</span>{back_svg(talon)}")
    items.append(f"<span>Discard {_popcount(r['discard'])}</span>")
    return '<div class="durak-row">' + "".join(items) + "</div>"


def _table_row(r) -> str:
    trump = int(r["trump"])
    pairs = []
    for i in range(int(r["n_attack"])):
        a, c = int(r["attack"][i]), int(r["cover"][i])
        cover = card_svg(c, trump) if c >= 0 else ""
        pairs.append(f'<span class="durak-pair">{card_svg(a, trump)}{cover}</span>')
    body = "".join(pairs) or '<span class="durak-muted">empty</span>'
    return (
        '<div class="durak-row"><span class="durak-label">Table</span>'
        f'<div class="durak-cards">{body}</div></div>'
    )


def _seat_row(r, p: int, seat) -> str:
    trump = int(r["trump"])
    over = int(r["phase"]) == core.OVER
    acting = not over and int(r["to_act"]) == p
    label = f"Seat {p}" + (" (you)" if p == seat else "") + _roles(r, p, over)
    label = ("&#9654; " if acting else "") + escape(label)
    cls = "durak-row durak-act" if acting else "durak-row"
    return (
        f'<div class="{cls}"><span class="durak-label">{label}</span>'
        f'<div class="durak-cards">{_hand(r, p, seat, trump)}</div></div>'
    )


def _roles(r, p, over) -> str:
    roles = []
    if not over:
        if p == int(r["attacker"]):
            roles.append("attacker")
        if p == int(r["defender"]):
            roles.append("defender, takes" if int(r["take"]) else "defender")
    if int(r["shown"][p]):
        roles.append("showed a trump")
    return f" ({', '.join(roles)})" if roles else ""


def _hand(r, p, seat, trump) -> str:
    hand = int(r["hands"][p])
    if not int(r["in_game"][p]):
        order = [int(x) for x in r["out_order"][: int(r["n_out"])]]
        text = (f"out (#{order.index(p) + 1} to leave)" if p in order
                else "out (no cards at the deal)")
        return f'<span class="durak-muted">{text}</span>'
    if seat is None or seat == p:
        shown = _sorted(hand, trump)
        hidden = 0
    else:
        shown = _sorted(int(r["known"][p]) & hand, trump)
        hidden = _popcount(hand) - len(shown)
    cards = "".join(card_svg(c, trump) for c in shown)
    if hidden:
        cards += back_svg(hidden)
    count = f'<span class="durak-muted">&nbsp;{_popcount(hand)} cards</span>'
    return (cards or '<span class="durak-muted">no cards</span>') + count


def _status(r) -> str:
    if int(r["phase"]) == core.OVER:
        durak = int(r["durak"])
        return "Game over: " + (f"seat {durak} is the durak" if durak >= 0 else "draw")
    phase = "attack" if int(r["phase"]) == core.ATTACK else "defence"
    return f"Seat {int(r['to_act'])} to act ({phase})"


def _sorted(mask: int, trump: int) -> list[int]:
    return sorted(cards_of(mask), key=lambda c: (suit_of(c) == trump, suit_of(c), rank_of(c)))


def _popcount(mask) -> int:
    return bin(int(mask)).count("1")


# ---------------------------------------------------------------- SVG cards


def card_svg(card: int, trump: int | None = None) -> str:
    """One face-up card as inline SVG (``data-card`` holds its notation)."""
    rank, suit = _RANKS[rank_of(card)], suit_of(card)
    sym = SUIT_SYMBOLS[suit]
    colour = _RED if suit in (2, 3) else _BLACK
    border = "#d4a017" if suit == trump else "#555"
    return (
        f'<svg class="durak-card" data-card="{format_card(card)}" width="40" height="58" '
        f'viewBox="0 0 40 58" role="img"><title>{rank}{sym}</title>'
        f'<rect x="1" y="1" width="38" height="56" rx="4" fill="#fff" stroke="{border}" '
        f'stroke-width="{2 if suit == trump else 1}"/>'
        f'<text x="4" y="15" font-size="13" font-weight="600" fill="{colour}" '
        f'font-family="sans-serif">{rank}</text>'
        f'<text x="4" y="28" font-size="12" fill="{colour}">{sym}</text>'
        f'<text x="24" y="48" font-size="20" text-anchor="middle" fill="{colour}">{sym}</text>'
        "</svg>"
    )


def back_svg(count: int) -> str:
    """A card back with a count on it (a face-down pile or the hidden part of a hand)."""
    return (
        f'<svg class="durak-back" width="40" height="58" viewBox="0 0 40 58" role="img">'
        f"<title>{count} face-down card{'s' if count != 1 else ''}</title>"
        '<rect x="1" y="1" width="38" height="56" rx="4" fill="#2c4f8c" stroke="#1b2f55"/>'
        '<rect x="5" y="5" width="30" height="48" rx="3" fill="none" stroke="#9fb6e0" '
        'stroke-dasharray="3 2"/>'
        f'<text x="20" y="35" font-size="15" font-weight="600" text-anchor="middle" '
        f'fill="#fff" font-family="sans-serif">{count}</text></svg>'
    )
