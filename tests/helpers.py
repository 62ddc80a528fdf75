"""Shared helpers for the rule tests: deals, random rule sets, state snapshots."""

from __future__ import annotations

import random

from tests.reference import SUITS, card_key, make_deck, suit_of

# docs/rules.md section 8.
WORKED_EXAMPLE_HANDS = [
    ["7S", "7C", "7D", "8H", "9C", "JD"],
    ["KC", "10D", "9S", "6H", "8C", "QD"],
    ["KH", "6C", "6D", "10H", "JC", "QH"],
]
WORKED_EXAMPLE_TALON = [
    "10C",
    "QC",
    "AC",
    "8D",
    "9D",
    "KD",
    "AD",
    "7H",
    "9H",
    "JH",
    "AH",
    "6S",
    "8S",
    "10S",
    "JS",
    "QS",
    "KS",
    "AS",
]
# (asked seat, legal moves, chosen move); chosen None marks a forced move (not asked).
WORKED_EXAMPLE_ROWS = [
    (0, {"play 7S", "play 7C", "play 7D", "play 8H", "play 9C", "play JD"}, "play 7C"),
    (0, {"play 7S", "play 7D", "pass"}, "pass"),
    (2, {"pass"}, None),
    (1, {"beat 7C KC", "beat 7C 8C", "beat 7C 9S", "take"}, "beat 7C KC"),
    (0, {"play 7S", "play 7D", "pass"}, "play 7D"),
    (0, {"play 7S", "pass"}, "pass"),
    (2, {"play KH", "pass"}, "play KH"),
    (2, {"pass"}, None),
    (0, {"play 7S", "pass"}, "pass"),
    (1, {"beat 7D 10D", "beat 7D QD", "beat 7D 9S", "beat KH 9S", "take"}, "beat 7D 10D"),
    (1, {"beat KH 9S", "take"}, "beat KH 9S"),
    (0, {"play 7S", "play 9C", "pass"}, "pass"),
    (2, {"play 10H", "pass"}, "pass"),
]


def replay_worked_example(game) -> None:
    """Play docs/rules.md section 8 row by row, asserting every asked row's legal moves."""
    expected_history = []
    for seat, legal, chosen in WORKED_EXAMPLE_ROWS:
        if chosen is None:
            (forced,) = legal
            expected_history.append((seat, forced))
            continue
        assert [tuple(h) for h in game.history] == expected_history
        assert game.to_act == seat
        assert set(game.legal_moves()) == legal
        game.play(chosen)
        expected_history.append((seat, chosen))
    assert [tuple(h) for h in game.history] == expected_history


def check_worked_example_end(game) -> None:
    """After the bito: draws 0:2, 2:1, 1:3 in that order; seat 1 attacks seat 2."""
    assert game.table == []
    assert sorted_hand(game.discard) == sorted_hand(["7C", "KC", "7D", "10D", "KH", "9S"])
    # Seat 0 drew 10C QC, then seat 2 drew AC, then seat 1 drew 8D 9D KD.
    assert sorted_hand(game.hands[0]) == sorted_hand(["7S", "8H", "9C", "JD", "10C", "QC"])
    assert sorted_hand(game.hands[2]) == sorted_hand(["6C", "6D", "10H", "JC", "QH", "AC"])
    assert sorted_hand(game.hands[1]) == sorted_hand(["6H", "8C", "QD", "8D", "9D", "KD"])
    assert game.talon == WORKED_EXAMPLE_TALON[6:]
    assert (game.attacker, game.defender, game.to_act) == (1, 2, 1)
    assert set(game.legal_moves()) == {f"play {c}" for c in game.hands[1]}
    assert not game.over


MAX_PLAYERS = {24: 4, 36: 6, 52: 8}
VARIANTS = ("prostoy", "podkidnoy", "perevodnoy")

# A game of random moves ends long before this; a longer one means a loop.
MOVE_BOUND = 20_000


def cards(text: str) -> list[str]:
    """``cards("7S 7C")`` -> ``["7S", "7C"]``."""
    return text.split()


def sorted_hand(hand) -> list[str]:
    return sorted(hand, key=card_key)


def rest_of_deck(deck_size: int, *used) -> list[str]:
    """Deck cards not in any of the given card lists, low to high."""
    taken = {c for group in used for c in group}
    return [c for c in make_deck(deck_size) if c not in taken]


def random_rules_kwargs(rng: random.Random) -> dict:
    """A random valid rule set as keyword arguments of ``Rules``."""
    deck_size = rng.choice((24, 36, 52))
    num_players = rng.randint(2, MAX_PLAYERS[deck_size])
    max_hand = min(8, deck_size // num_players)
    variant = rng.choice(VARIANTS)
    return dict(
        num_players=num_players,
        deck_size=deck_size,
        hand_size=rng.randint(min(3, max_hand), max_hand),
        variant=variant,
        throw_in=rng.choice(("all", "neighbors")),
        max_attack=rng.randint(4, 6),
        first_round_max_attack=rng.choice((None, 5)),
        transfer_show_trump=variant == "perevodnoy" and rng.random() < 0.5,
    )


def fresh_deal(rng: random.Random, rules) -> dict:
    """A shuffled deck dealt as docs/rules.md section 2 says, as from_deal keyword arguments."""
    deck = make_deck(rules.deck_size)
    rng.shuffle(deck)
    size = rules.hand_size
    hands = [deck[i * size : (i + 1) * size] for i in range(rules.num_players)]
    talon = deck[rules.num_players * size :]
    trump = suit_of(hands[-1][-1]) if not talon else None
    return dict(hands=hands, talon=talon, discard=[], trump=trump, first_attacker=None)


def random_position(rng: random.Random, rules) -> dict:
    """A random start-of-round position (any hand sizes, talon, discard)."""
    deck = make_deck(rules.deck_size)
    rng.shuffle(deck)
    n = rules.num_players
    if rng.random() < 0.4:
        alive = sorted(rng.sample(range(n), rng.randint(2, n)))
    else:
        alive = list(range(n))
    sizes = _random_hand_sizes(rng, rules, len(alive))
    hands = [[] for _ in range(n)]
    for seat, size in zip(alive, sizes, strict=False):
        hands[seat], deck = deck[:size], deck[size:]
    if len(alive) < n or not deck or rng.random() < 0.3:
        talon_size = 0
    else:
        talon_size = rng.randint(1, len(deck))
    talon, discard = deck[:talon_size], deck[talon_size:]
    trump = rng.choice((None, suit_of(talon[-1]))) if talon else rng.choice(SUITS)
    first = rng.choice([None, *alive])
    return dict(hands=hands, talon=talon, discard=discard, trump=trump, first_attacker=first)


def tight_endgame(rng: random.Random, rules) -> dict:
    """Empty talon and one to three cards per hand: players empty their hands
    mid-round, transfers skip them, leaving and draws happen often."""
    deck = make_deck(rules.deck_size)
    rng.shuffle(deck)
    n = rules.num_players
    alive = sorted(rng.sample(range(n), rng.randint(2, n)))
    hands = [[] for _ in range(n)]
    for seat in alive:
        size = rng.randint(1, 3)
        hands[seat], deck = deck[:size], deck[size:]
    first = rng.choice([None, *alive])
    return dict(hands=hands, talon=[], discard=deck, trump=rng.choice(SUITS), first_attacker=first)


def _random_hand_sizes(rng: random.Random, rules, count: int) -> list[int]:
    budget = rules.deck_size
    sizes = []
    for left in range(count, 0, -1):
        top = min(rules.hand_size + 3, budget - (left - 1))
        size = rng.randint(1, max(1, top))
        sizes.append(size)
        budget -= size
    return sizes


def snapshot(game) -> dict:
    """Everything comparable about a game at one moment (order-free where unspecified)."""
    return dict(
        legal=set(game.legal_moves()),
        hands=[sorted_hand(h) for h in game.hands],
        table=[tuple(pair) for pair in game.table],
        talon=list(game.talon),
        discard=sorted_hand(game.discard),
        to_act=game.to_act,
        attacker=game.attacker,
        defender=game.defender,
        over=game.over,
    )


def final_state(game) -> dict:
    return dict(
        durak=game.durak,
        out_order=list(game.out_order),
        rewards=[round(r, 9) for r in game.rewards],
        history=[(int(s), m) for s, m in game.history],
    )


def random_move(game, rng: random.Random, eager: bool = False) -> str:
    """Uniform over the sorted legal moves; ``eager`` mostly avoids pass and take,
    which makes long rounds (limits, transfer chains) far more frequent."""
    moves = sorted(game.legal_moves())
    if eager:
        active = [m for m in moves if m not in ("pass", "take")]
        if active and rng.random() < 0.85:
            return rng.choice(active)
    return rng.choice(moves)


def play_out(game, rng: random.Random, bound: int = MOVE_BOUND) -> int:
    """Play random moves to the end; returns the number of choices made."""
    moves = 0
    while not game.over:
        assert moves < bound, "game did not terminate"
        game.play(random_move(game, rng))
        moves += 1
    return moves


def hand_checked_end_game():
    """Talon empty, trump spades; seat 0 attacks with 6C 6D AS against 7C 7D. Opening
    with AS (unbeatable) then 6C, 6D wins; opening with 6C loses (7C beats it, and seat 0
    is left with AS and 6D against 7D). Returns ``(rules, game)``."""
    from durak_env import Game, Rules

    rules = Rules()
    deck = Game.new(rules, 0)
    rest = [c for h in deck.hands for c in h] + deck.talon
    mine, theirs = ["6C", "6D", "AS"], ["7C", "7D"]
    discard = [c for c in rest if c not in mine + theirs]
    return rules, Game.from_deal(rules, hands=[mine, theirs], discard=discard, trump="S",
                                 first_attacker=0)
