"""``resample_from_infostate`` of the OpenSpiel game: deals one seat cannot tell apart.

A deal is the deck order: the hands (``hand_size`` slots per seat) and the talon
positions, each drawn by a known seat at a known move (draw counts are public) or not
drawn yet. What seat ``p`` knows fixes its own slots and the face-up card; a card that
another seat ``q`` first showed at move ``t`` must sit in one of ``q``'s slots filled
before ``t``. Those slot sets are nested in time per seat, so placing the constrained
cards by deadline, each uniformly among the slots still free, and then shuffling every
other unseen card into the remaining slots, draws uniformly among such deals. The
engine then replays the moves; a deal it rejects is drawn again: one where another
seat would open the game (the first attacker holds the lowest trump, which is public),
or a rare edge such as a card drawn and played within one engine step.
"""

from __future__ import annotations

import numpy as np

from .actions import IllegalMoveError
from .cards import suit_of

_TRIES = 200


def _slots(state, player):
    """Per deck index: (owner seat or -1, move before which it was filled); the fixed cards."""
    r, deck = state.rules, state.deck
    n, h, size = r.num_players, r.hand_size, r.deck_size
    owner = [i // h if i < n * h else -1 for i in range(size)]
    filled = [-1 if i < n * h else 1 << 30 for i in range(size)]
    for j, seat, move in state.draws:
        owner[n * h + j], filled[n * h + j] = seat, move
    fixed = {i: deck[i] for i in range(size) if owner[i] == player}
    if size > n * h:  # the face-up card lies at the bottom of the talon
        fixed[size - 1] = deck[size - 1]
    return owner, filled, fixed


def _first_shown(state) -> dict[int, tuple[int, int]]:
    """card -> (seat, move index) where it first left a hand or was shown."""
    first: dict[int, tuple[int, int]] = {}
    for t, (seat, move) in enumerate(state.game.history):
        _kind, card, cover = state.layout.unpack(state.layout.encode(move))
        shown = cover if cover >= 0 else card  # beat: the covering card is the new one
        if shown >= 0:
            first.setdefault(shown, (seat, t))
    return first


def _draw_deck(state, player, rng) -> list[int] | None:
    owner, filled, fixed = _slots(state, player)
    size = state.rules.deck_size
    free = [i for i in range(size) if i not in fixed]
    hidden = [c for c in state.deck if c not in set(fixed.values())]
    deck = [-1] * size
    for i, c in fixed.items():
        deck[i] = c
    first = _first_shown(state)
    constrained = sorted((first[c][1], c) for c in hidden if c in first)
    taken = set()
    for t, c in constrained:
        seat = first[c][0]
        options = [i for i in free if i not in taken and owner[i] == seat and filled[i] < t]
        if not options:
            return None
        i = options[int(rng.integers(len(options)))]
        deck[i] = c
        taken.add(i)
    rest = [c for c in hidden if c not in first]
    slots = [i for i in free if i not in taken]
    for i, c in zip(slots, rng.permutation(np.array(rest, np.int64)).tolist(), strict=True):
        deck[i] = c
    return deck


def _replay(state, deck):
    """A new state dealt ``deck`` with ``state``'s moves replayed, or None if one fails."""
    new = state.get_game().new_initial_state()
    for c in deck:
        new.apply_action(c - state.low)
    if new.first_attacker() != state.first_attacker():
        return None
    moves = state.game.history
    while len(new.game.history) < len(moves):
        i = len(new.game.history)
        if new.game.history != moves[:i] or new.is_terminal():
            return None
        seat, move = moves[i]
        if new.game.to_act != seat:
            return None
        try:
            new.apply_action(new.layout.encode(move))
        except IllegalMoveError:
            return None
    return new if new.game.history == moves else None


def resample(state, player: int, rng: np.random.Generator):
    """A uniformly random state with ``player``'s information state (module docs)."""
    if state.game is None:  # still dealing: only the cards dealt to the player are known
        return _resample_deal(state, player, rng)
    for _ in range(_TRIES):
        deck = _draw_deck(state, player, rng)
        # with no talon the last card dealt names the trump suit, so its suit is known
        if deck is None or (state.face_up() < 0 and suit_of(deck[-1]) != suit_of(state.deck[-1])):
            continue
        new = _replay(state, deck)
        if new is not None:
            return new
    raise RuntimeError(f"no consistent deal found in {_TRIES} tries")  # pragma: no cover


def _resample_deal(state, player, rng):
    h, low = state.rules.hand_size, state.low
    mine = {i: c for i, c in enumerate(state.deck) if i // h == player}
    unseen = [low + i for i in range(state.rules.deck_size) if low + i not in mine.values()]
    shuffled = iter(rng.permutation(np.array(unseen, np.int64)).tolist())
    new = state.get_game().new_initial_state()
    for i in range(len(state.deck)):
        new.apply_action((mine[i] if i in mine else next(shuffled)) - state.low)
    return new
