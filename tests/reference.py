"""Plain-Python reference implementation of the rules in docs/rules.md.

It exists only to check the numba core (differential tests) and is written from the
rule book alone, never from ``durak_env``. It is slow on purpose: every decision is a
small function named after the rule it implements.

Readings of docs/rules.md shared with the engine:

* transfer/show target: the next seat clockwise after the defender that is still in
  the game and holds at least one card;
* the attack limit of a round is fixed when the round starts (first_round_max_attack
  while the discard pile is empty), and also bounds transfers;
* throwers: the main attacker, then clockwise from the player after the defender;
  with ``throw_in="neighbors"`` only the main attacker and the player after the
  defender (just the main attacker when that player is the main attacker);
* a volley ends after ``len(throwers)`` consecutive passes since the last card;
* drawing: every player still in the game, clockwise from the opener (from the
  player after him when he became the final defender), the final defender last;
* ``out_order`` records departures during this game only, not players whose hands
  were already empty in a ``from_deal`` position.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = "SCDH"
SUIT_SYMBOLS = {"♠": "S", "♣": "C", "♦": "D", "♥": "H"}
LOWEST_RANK = {24: "9", 36: "6", 52: "2"}
VERB_ARITY = {"play": 1, "pass": 0, "take": 0, "beat": 2, "transfer": 1, "show": 1}


class IllegalMoveError(ValueError):
    """A malformed or illegal move given to ``RefGame.play``."""


# --------------------------------------------------------------------------- cards


def make_deck(deck_size: int) -> list[str]:
    """Every card of the deck, sorted low to high (rank, then suit S C D H)."""
    low = RANKS.index(LOWEST_RANK[deck_size])
    return [rank + suit for rank in RANKS[low:] for suit in SUITS]


def parse_card(text: str) -> str:
    """Canonical form of a card spelled any way docs/rules.md section 1 allows."""
    if not isinstance(text, str):
        raise ValueError(f"card must be a string, got {type(text).__name__}")
    raw = text.strip()
    if len(raw) < 2:
        raise ValueError(f"malformed card {text!r}")
    suit = SUIT_SYMBOLS.get(raw[-1], raw[-1].upper())
    rank = raw[:-1].upper()
    rank = "10" if rank == "T" else rank
    if suit not in SUITS or rank not in RANKS:
        raise ValueError(f"malformed card {text!r}")
    return rank + suit


_RANK_INDEX = {rank: i for i, rank in enumerate(RANKS)}
_CARD_KEY = {rank + suit: (i, j) for rank, i in _RANK_INDEX.items() for j, suit in enumerate(SUITS)}


def rank_of(card: str) -> int:
    return _RANK_INDEX[card[:-1]]


def suit_of(card: str) -> str:
    return card[-1]


def card_key(card: str) -> tuple[int, int]:
    """Sort key: rank, then suit in the order S C D H."""
    return _CARD_KEY[card]


def beats(cover: str, attack: str, trump: str) -> bool:
    """docs/rules.md section 1: same suit and higher rank, or a trump over a non-trump."""
    if suit_of(cover) == suit_of(attack):
        return rank_of(cover) > rank_of(attack)
    return suit_of(cover) == trump


def parse_move(move) -> str:
    """Canonical form of a move string; raises IllegalMoveError if malformed."""
    if not isinstance(move, str):
        raise IllegalMoveError(f"move must be a string, got {type(move).__name__}")
    parts = move.split()
    if not parts:
        raise IllegalMoveError("empty move")
    verb = parts[0].lower()
    if verb not in VERB_ARITY:
        raise IllegalMoveError(f"unknown move {parts[0]!r} in {move!r}")
    if len(parts) - 1 != VERB_ARITY[verb]:
        raise IllegalMoveError(f"{verb!r} takes {VERB_ARITY[verb]} card(s): {move!r}")
    try:
        cards = [parse_card(p) for p in parts[1:]]
    except ValueError as exc:
        raise IllegalMoveError(f"{exc} in move {move!r}") from None
    return " ".join([verb, *cards])


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class RefRules:
    """Same fields and defaults as ``durak_env.Rules``; no validation."""

    num_players: int = 2
    deck_size: int = 36
    hand_size: int = 6
    variant: str = "podkidnoy"
    throw_in: str = "all"
    max_attack: int = 6
    first_round_max_attack: int | None = None
    transfer_show_trump: bool = False


# --------------------------------------------------------------------------- game


class RefGame:
    """One game of Durak driven move by move (docs/rules.md section 9 surface)."""

    # ------------------------------------------------------------ construction

    def __init__(self, rules, hands, talon, discard, trump, first_attacker):
        self.rules = rules
        self.n = rules.num_players
        self._hands: list[list[str]] = [list(h) for h in hands]
        self._talon: list[str] = list(talon)
        self._discard: list[str] = list(discard)
        self.trump_suit: str = trump
        self._in_game = [bool(h) for h in self._hands]
        # Only departures during this game are recorded; players already out in a
        # from_deal position left at an unknown time (docs/rules.md does not order them).
        self.out_order: list[int] = []
        self.history: list[tuple[int, str]] = []
        self.over = False
        self.durak: int | None = None
        self.rewards = [0.0] * self.n
        self._table: list[list] = []
        if first_attacker is None:
            first_attacker = self._first_attacker()
        self._start_round(first_attacker)
        self._apply_forced_moves()

    @classmethod
    def from_deal(cls, rules, hands, talon, discard=(), trump=None, first_attacker=None):
        """Game at the start of a round; validates like docs/rules.md section 9."""
        hands = [[parse_card(c) for c in h] for h in hands]
        talon = [parse_card(c) for c in talon]
        discard = [parse_card(c) for c in discard]
        cls._check_deal(rules, hands, talon, discard)
        trump = cls._check_trump(talon, trump)
        if first_attacker is not None and not (
            0 <= first_attacker < rules.num_players and hands[first_attacker]
        ):
            raise ValueError(f"first_attacker {first_attacker} is not in the game")
        return cls(rules, hands, talon, discard, trump, first_attacker)

    @staticmethod
    def _check_deal(rules, hands, talon, discard):
        if len(hands) != rules.num_players:
            raise ValueError(f"hands: expected {rules.num_players} hands, got {len(hands)}")
        cards = [c for h in hands for c in h] + talon + discard
        if len(set(cards)) != len(cards):
            raise ValueError("hands, talon and discard: duplicate card")
        if sorted(cards, key=card_key) != make_deck(rules.deck_size):
            raise ValueError("hands, talon and discard are not a partition of the deck")
        if talon and not all(hands):
            raise ValueError("hands: an empty hand is allowed only with an empty talon")
        if sum(1 for h in hands if h) < 2:
            raise ValueError("hands: at least two hands must hold cards")

    @staticmethod
    def _check_trump(talon, trump):
        if trump is not None:
            trump = SUIT_SYMBOLS.get(trump, str(trump).upper())
            if trump not in SUITS:
                raise ValueError(f"trump: unknown suit {trump!r}")
        if not talon:
            if trump is None:
                raise ValueError("trump: needed when the talon is empty")
            return trump
        if trump is not None and trump != suit_of(talon[-1]):
            raise ValueError(f"trump {trump} contradicts the face-up card {talon[-1]}")
        return suit_of(talon[-1])

    def _first_attacker(self) -> int:
        """docs/rules.md section 2: lowest trump; without trumps the lowest rank, lowest seat."""
        trumps = [
            (rank_of(c), s)
            for s, h in enumerate(self._hands)
            for c in h
            if suit_of(c) == self.trump_suit
        ]
        if trumps:
            return min(trumps)[1]
        return min((rank_of(c), s) for s, h in enumerate(self._hands) for c in h)[1]

    # ------------------------------------------------------------ public view

    @property
    def hands(self) -> list[list[str]]:
        return [sorted(h, key=card_key) for h in self._hands]

    @property
    def table(self) -> list[tuple[str, str | None]]:
        return [(a, c) for a, c in self._table]

    @property
    def talon(self) -> list[str]:
        return list(self._talon)

    @property
    def discard(self) -> list[str]:
        return list(self._discard)

    @property
    def to_act(self) -> int | None:
        if self.over:
            return None
        if self._phase == "volley":
            return self._throwers[self._turn]
        return self.defender

    def legal_moves(self) -> list[str]:
        if self.over:
            return []
        if self._phase == "volley":
            return self._volley_moves(self.to_act)
        return self._defence_moves()

    def play(self, move) -> None:
        """Apply one move, then every forced move after it."""
        if self.over:
            raise IllegalMoveError("the game is over")
        canonical = parse_move(move)
        legal = self.legal_moves()
        if canonical not in legal:
            raise IllegalMoveError(
                f"illegal move {canonical!r} for seat {self.to_act}; legal: {legal}"
            )
        self._apply(canonical)
        self._apply_forced_moves()

    # ------------------------------------------------------------ seats

    def _next_in_game(self, seat: int) -> int:
        for step in range(1, self.n + 1):
            other = (seat + step) % self.n
            if self._in_game[other]:
                return other
        return seat

    def _first_in_game_from(self, seat: int) -> int:
        """The seat itself if still in the game, else the next one clockwise."""
        return seat if self._in_game[seat] else self._next_in_game(seat)

    def _compute_throwers(self) -> list[int]:
        """docs/rules.md section 3: main attacker, then clockwise from the player after defender."""
        a, d = self.attacker, self.defender
        if self.rules.variant == "prostoy":
            return [a]
        after_defender = self._next_in_game(d)
        if self.rules.throw_in == "neighbors":
            return [a] if after_defender == a else [a, after_defender]
        order = [a]
        for step in range(self.n):
            seat = (after_defender + step) % self.n
            if self._in_game[seat] and seat not in (a, d):
                order.append(seat)
        return order

    def _transfer_target(self) -> int | None:
        for step in range(1, self.n):
            seat = (self.defender + step) % self.n
            if self._in_game[seat] and self._hands[seat]:
                return seat
        return None

    # ------------------------------------------------------------ round start

    def _start_round(self, attacker: int) -> None:
        self.attacker = attacker
        self._opener = attacker
        self.defender = self._next_in_game(attacker)
        first_round = self.rules.first_round_max_attack is not None and not self._discard
        self._limit = self.rules.first_round_max_attack if first_round else self.rules.max_attack
        self._throwers = self._compute_throwers()
        self._table = []
        self._taking = False
        self._opening = True
        self._shown: set[int] = set()
        self._start_volley()

    def _start_volley(self) -> None:
        self._phase = "volley"
        self._turn = 0
        self._passes = 0

    # ------------------------------------------------------------ legal moves

    def _uncovered(self) -> list[str]:
        return [a for a, c in self._table if c is None]

    def _table_ranks(self) -> set[int]:
        return {rank_of(c) for pair in self._table for c in pair if c is not None}

    def _room_for_one_more(self) -> bool:
        """docs/rules.md section 3 limits: attack count and uncovered vs defender's hand."""
        if len(self._table) + 1 > self._limit:
            return False
        return len(self._uncovered()) + 1 <= len(self._hands[self.defender])

    def _addable_cards(self, seat: int) -> list[str]:
        hand = self._hands[seat]
        if not self._room_for_one_more():
            return []
        if not self._table:
            return list(hand)
        if self.rules.variant == "prostoy":
            opening_rank = rank_of(self._table[0][0])
            return [c for c in hand if rank_of(c) == opening_rank]
        ranks = self._table_ranks()
        return [c for c in hand if rank_of(c) in ranks]

    def _volley_moves(self, seat: int) -> list[str]:
        moves = [f"play {c}" for c in sorted(self._addable_cards(seat), key=card_key)]
        if self._table:
            moves.append("pass")
        return moves

    def _beat_moves(self) -> list[str]:
        hand = sorted(self._hands[self.defender], key=card_key)
        return [
            f"beat {a} {b}" for a in self._uncovered() for b in hand if beats(b, a, self.trump_suit)
        ]

    def _transfer_moves(self) -> list[str]:
        if self.rules.variant != "perevodnoy" or len(self._uncovered()) != len(self._table):
            return []
        target = self._transfer_target()
        if target is None:
            return []
        attack_rank = rank_of(self._table[0][0])
        count = len(self._table)
        target_size = len(self._hands[target])
        moves = []
        for card in sorted(self._hands[self.defender], key=card_key):
            if rank_of(card) != attack_rank:
                continue
            if count + 1 <= self._limit and target_size >= count + 1:
                moves.append(f"transfer {card}")
            if self._may_show(card) and target_size >= count:
                moves.append(f"show {card}")
        return moves

    def _may_show(self, card: str) -> bool:
        return (
            bool(self.rules.transfer_show_trump)
            and suit_of(card) == self.trump_suit
            and self.defender not in self._shown
        )

    def _defence_moves(self) -> list[str]:
        return self._beat_moves() + self._transfer_moves() + ["take"]

    # ------------------------------------------------------------ applying moves

    def _apply_forced_moves(self) -> None:
        while not self.over:
            moves = self.legal_moves()
            assert moves, "a player to act must have a legal move"
            if len(moves) != 1:
                return
            self._apply(moves[0])

    def _apply(self, move: str) -> None:
        self.history.append((self.to_act, move))
        verb, *cards = move.split()
        handler = {
            "play": self._do_play,
            "pass": self._do_pass,
            "beat": self._do_beat,
            "take": self._do_take,
            "transfer": self._do_transfer,
            "show": self._do_show,
        }[verb]
        handler(*cards)

    def _do_play(self, card: str) -> None:
        self._hands[self.to_act].remove(card)
        self._table.append([card, None])
        self._passes = 0

    def _do_pass(self) -> None:
        self._passes += 1
        if self._passes >= len(self._throwers):
            self._end_volley()
        else:
            self._turn = (self._turn + 1) % len(self._throwers)

    def _end_volley(self) -> None:
        self._opening = False
        if self._taking:
            self._end_round(taken=True)
        elif not self._uncovered():
            self._end_round(taken=False)
        else:
            self._phase = "defence"

    def _do_beat(self, attack: str, cover: str) -> None:
        self._hands[self.defender].remove(cover)
        for pair in self._table:
            if pair[0] == attack:
                pair[1] = cover
        if self._uncovered():
            return
        if self.rules.variant == "prostoy":
            self._end_round(taken=False)
        else:
            self._start_volley()

    def _do_take(self) -> None:
        self._taking = True
        if self.rules.variant == "prostoy":
            self._end_round(taken=True)
        else:
            self._start_volley()

    def _do_transfer(self, card: str) -> None:
        target = self._transfer_target()
        self._hands[self.defender].remove(card)
        self._table.append([card, None])
        self._pass_defence_to(target)

    def _do_show(self, card: str) -> None:
        self._shown.add(self.defender)
        self._pass_defence_to(self._transfer_target())

    def _pass_defence_to(self, target: int) -> None:
        self.attacker, self.defender = self.defender, target
        self._throwers = self._compute_throwers()
        self._start_volley()

    # ------------------------------------------------------------ round end

    def _end_round(self, taken: bool) -> None:
        cards = [c for pair in self._table for c in pair if c is not None]
        self._table = []
        if taken:
            self._hands[self.defender].extend(cards)
        else:
            self._discard.extend(cards)
        self._draw_cards()
        self._leave_empty_hands()
        alive = [s for s in range(self.n) if self._in_game[s]]
        if len(alive) <= 1:
            self._finish(alive[0] if alive else None)
            return
        start = (self.defender + 1) % self.n if taken else self.defender
        self._start_round(self._first_in_game_from(start))

    def _draw_order(self) -> list[int]:
        """docs/rules.md section 5.2: opener first (or the one after him), clockwise,
        defender last."""
        d = self.defender
        start = self._opener if self._opener != d else self._next_in_game(d)
        seats = [(start + step) % self.n for step in range(self.n)]
        return [s for s in seats if self._in_game[s] and s != d] + [d]

    def _draw_cards(self) -> None:
        for seat in self._draw_order():
            hand = self._hands[seat]
            while self._talon and len(hand) < self.rules.hand_size:
                hand.append(self._talon.pop(0))

    def _leave_empty_hands(self) -> None:
        if self._talon:
            return
        for seat in range(self.n):
            if self._in_game[seat] and not self._hands[seat]:
                self._in_game[seat] = False
                self.out_order.append(seat)

    def _finish(self, durak: int | None) -> None:
        self.over = True
        self.durak = durak
        self.attacker = None
        self.defender = None
        self._phase = "over"
        if durak is not None:
            self.rewards = [1.0 / (self.n - 1)] * self.n
            self.rewards[durak] = -1.0


def sorted_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=card_key)
