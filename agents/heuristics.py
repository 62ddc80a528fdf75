"""Heuristic players: greedy, card_counting, pair_holding, trump_saving, expert,
expert_rules.

All five share one decision skeleton (``HeuristicAgent``): decode the
observation, split the mask into moves, then decide by situation:

- ``open``: the first card of a round;
- ``throw_in``: add a card or pass during an attack volley;
- ``defend``: cover, transfer, show or take;
- the two-player end game (talon empty), by exact search for the players that
  count cards (``agents.endgame``);
- for ``expert``, the two-player late game (a few cards left in the talon), by
  perfect-information Monte Carlo: a few random deals of the unseen cards, each
  solved by the same exact search (capped), and the move with the best summed
  value (``agents.pimc.searched_move``, which ``ppo`` can use too).

``expert_rules`` (``ExpertRulesAgent``) is ``expert``'s rules without its searches,
compiled with numba (``agents.expert_kernel.expert_action``), for where speed matters: as a
batched opponent in PPO training, or as a playout policy.

Every choice is "the cheapest option" under a cost in card-value units, where
a card's value is its rank scaled to ``0..1`` plus ``1`` for a trump (so every
trump is worth more than every plain card). Each player switches on one idea
with a few named weights; ``expert`` combines them. Costs are computed only
from the observation (``agents.view``).
"""

from __future__ import annotations

import math

import numpy as np

from durak_env import Rules, core
from durak_env.actions import PASS, TAKE
from durak_env.cards import BEATS, NUM_CARDS, NUM_SUITS, cards_of, deck_mask, rank_of, suit_of
from durak_env.core import DEFEND

from . import weights as W
from .base import Agent
from .determinize import determinize_at, view_array
from .endgame import EndgameSolver
from .expert_kernel import expert_actions, miss_chance
from .pimc import search_applies, searched_move
from .view import MoveCodec, fast_decode

_BEATS = [[int(x) for x in row] for row in BEATS]
# A cover plan never needs more than this many candidate covers per attack card.
_MAX_CANDIDATES = 6


class Situation:
    """What one decision needs, computed once from the decoded observation.

    Attributes:
        v: the ``ObsView``.
        trump: trump suit.
        talon_frac: talon size over the talon right after the deal (1 early, 0 at the end).
        rank_count: for each rank index, how many cards of it the own hand holds.
        pool: cards whose place is unknown to this seat (other hands' unknown
            slots and the talon, minus the face-up trump card).
    """

    def __init__(self, v, rules: Rules, values: list[list[float]], deck: int):
        self.v = v
        self.trump = v.trump
        start_talon = max(1, rules.deck_size - rules.num_players * rules.hand_size)
        self.talon_frac = v.talon_size / start_talon
        self.value = values[v.trump]
        self.rank_count = {}
        for c in cards_of(v.hand):
            r = rank_of(c)
            self.rank_count[r] = self.rank_count.get(r, 0) + 1
        known = 0
        for k in v.known:
            known |= k
        face_up = (1 << v.trump_card) if v.trump_card >= 0 else 0
        self.pool = deck & ~(v.hand | v.discard | v.table | known | face_up)

    def is_trump(self, c: int) -> bool:
        return suit_of(c) == self.trump

    def pairs(self, c: int) -> int:
        """Other cards of c's rank in the own hand."""
        return self.rank_count.get(rank_of(c), 0) - 1

    def beat_prob(self, c: int, seat: int) -> float:
        """Chance that relative ``seat`` holds a card beating ``c`` (hypergeometric)."""
        v = self.v
        beaters = _BEATS[self.trump][c]
        if v.known[seat] & beaters:
            return 1.0
        slots = v.hand_size[seat] - v.known[seat].bit_count()
        total = self.pool.bit_count()
        good = (self.pool & beaters).bit_count()
        return 1.0 - miss_chance(slots, total, good)


class HeuristicAgent(Agent):
    """The shared skeleton; see the module docstring. Subclasses choose the weights.

    Args (all keyword-only, in card-value units unless said otherwise):
        w_trump: extra cost of spending a trump, scaled by how full the talon is.
        w_high: extra trump cost per unit of the trump's rank (high trumps cost more).
        w_pairs: reward for keeping/using cards whose rank the hand holds several of.
        w_count: weight of the estimated chance that an attack card gets beaten.
        take_base, take_card: cost of taking: once, and per card on the table.
        throw_max: throw in a card only when its cost is at most this.
        junk_max: while the defender takes, give only cards of at most this value.
        force_take: also throw in a plain card (any card once the talon is empty) whose
            chance of being beaten is at most this (-1: never).
        search_nodes: node cap of the exact two-player end-game search (0: off).
        search_last_card: start that search already when the talon holds only the
            face-up trump (by default only once the talon is empty).
        search_cheap_first: the search tries cheap cards first (see ``EndgameSolver``).
        pimc_talon: with two players and 1 to this many cards in the talon (when the
            end-game search does not apply yet), decide by the sampled exact search of
            ``agents.pimc.searched_move`` (0: off; needs ``search_nodes``).
        pimc_samples: random deals of the unseen cards per such decision.
        pimc_nodes: node cap of the search of each move in each deal (a move whose
            search hits it counts as a draw in that deal).
    """

    def __init__(self, rules: Rules, *, w_trump: float = 0.0, w_high: float = 0.0,
                 w_pairs: float = 0.0, w_count: float = 0.0, take_base: float = math.inf,
                 take_card: float = 0.0, throw_max: float = math.inf,
                 junk_max: float = math.inf, force_take: float = -1.0,
                 search_nodes: int = 0, search_last_card: bool = False,
                 search_cheap_first: bool = False, pimc_talon: int = 0,
                 pimc_samples: int = 20, pimc_nodes: int = 2000):
        super().__init__(rules)
        self.w_trump, self.w_high, self.w_pairs, self.w_count = w_trump, w_high, w_pairs, w_count
        self.take_base, self.take_card = take_base, take_card
        self.throw_max, self.junk_max, self.force_take = throw_max, junk_max, force_take
        self.codec = MoveCodec(rules)
        self.values = self._card_values(rules)
        self.deck = deck_mask(rules.deck_size)
        self.solver = (EndgameSolver(rules, search_nodes, search_last_card, search_cheap_first)
                       if search_nodes > 0 and rules.num_players == 2 else None)
        self.pimc_talon, self.pimc_samples, self.pimc_nodes = pimc_talon, pimc_samples, pimc_nodes
        self._cards = np.zeros(NUM_CARDS, np.int64)

    @staticmethod
    def _card_values(rules: Rules) -> list[list[float]]:
        low_rank = rank_of(rules.low_card)
        top = 12 - low_rank
        out = []
        for trump in range(NUM_SUITS):
            row = [0.0] * 52
            for c in cards_of(deck_mask(rules.deck_size)):
                row[c] = (rank_of(c) - low_rank) / top + (1.0 if suit_of(c) == trump else 0.0)
            out.append(row)
        return out

    # ------------------------------------------------------------ entry point

    def reset(self):
        if self.solver is not None:
            self.solver.reset()

    def act(self, observation, action_mask, rng):
        mv = self.codec.moves(action_mask)
        if len(mv.ids) == 1:
            return mv.ids[0]
        v = fast_decode(observation, self.rules)
        s = Situation(v, self.rules, self.values, self.deck)
        if search_applies(self.solver, v, self.pimc_talon):
            return searched_move(self.solver, v, self._preference(s, mv), self.pimc_samples,
                                 self.pimc_nodes, rng, self._cards)
        return self._decide(s, mv)

    def _decide(self, s: Situation, mv) -> int:
        if s.v.phase == DEFEND:
            return self.defend(s, mv)
        if s.v.n_attack == 0:
            return self.codec.play(self.open(s, mv.plays))
        return self.throw_in(s, mv)

    def _preference(self, s: Situation, mv) -> list[int]:
        """Legal actions, the heuristic's choice first (the search breaks ties by order)."""
        first = self._decide(s, mv)
        return [first] + [a for a in mv.ids if a != first]

    # ------------------------------------------------------------ costs

    def trump_cost(self, s: Situation, c: int) -> float:
        """Extra cost of parting with trump c now (0 for plain cards)."""
        if not s.is_trump(c):
            return 0.0
        r = s.value[c] - 1.0
        return s.talon_frac * (self.w_trump + self.w_high * r)

    def spend_cost(self, s: Situation, c: int) -> float:
        """Cost of giving up card c from the hand, against an average card (0.75)."""
        return (s.value[c] - 0.75 + self.trump_cost(s, c)
                + self.w_pairs * 0.5 * min(s.pairs(c), 1))

    def attack_cost(self, s: Situation, c: int) -> float:
        """Cost of putting c on the table as an attack card."""
        cost = s.value[c] + self.trump_cost(s, c) - self.w_pairs * min(s.pairs(c), 2)
        if self.w_count:
            cost += self.w_count * s.beat_prob(c, s.v.defender)
        return cost

    # ------------------------------------------------------------ attack

    def open(self, s: Situation, plays: list[int]) -> int:
        """The opening card: the cheapest attack."""
        return min(plays, key=lambda c: (self.attack_cost(s, c), c))

    def throw_in(self, s: Situation, mv) -> int:
        """Add the cheapest card when it is cheap enough, else pass."""
        if not mv.plays:
            return PASS
        c = min(mv.plays, key=lambda c: (self.attack_cost(s, c), c))
        if s.v.take:
            return self.codec.play(c) if self.gift_ok(s, c) else 0
        return self.codec.play(c) if self.throw_ok(s, c) else 0

    def throw_ok(self, s: Situation, c: int) -> bool:
        limit = self.throw_max + (1.0 - s.talon_frac) * 2.0 if s.v.talon_size else math.inf
        if self.attack_cost(s, c) <= limit:
            return True
        if self.force_take < 0 or s.is_trump(c) and s.v.talon_size:
            return False
        return s.beat_prob(c, s.v.defender) <= self.force_take

    def gift_ok(self, s: Situation, c: int) -> bool:
        """Whether to hand c to a defender who takes: junk only, unless the talon is out."""
        return s.v.talon_size == 0 and not s.is_trump(c) or s.value[c] <= self.junk_max

    # ------------------------------------------------------------ defence

    def defend(self, s: Situation, mv) -> int:
        """Show, transfer, cover or take, whichever is cheapest."""
        if mv.shows:
            return self.codec.show(mv.shows[0])
        plan = self.cover_plan(s, mv)
        cover = math.inf if plan is None else plan[0]
        if mv.transfers:
            c = min(mv.transfers, key=lambda c: (self.spend_cost(s, c), c))
            if self.spend_cost(s, c) <= cover:
                return self.codec.transfer(c)
        if plan is None:
            return TAKE
        if self.take_cost(s) < cover:
            return TAKE
        a, b = plan[1][0]
        return self.codec.beat(a, b)

    def take_cost(self, s: Situation) -> float:
        n = (s.v.table).bit_count()
        return self.take_base + self.take_card * n

    def cover_plan(self, s: Situation, mv) -> tuple[float, list[tuple[int, int]]] | None:
        """The cheapest way to cover every uncovered card, or None if there is none."""
        options: dict[int, list[int]] = {}
        for a, b in mv.beats:
            options.setdefault(a, []).append(b)
        attacks = cards_of(s.v.attack_uncovered)
        if any(a not in options for a in attacks):
            return None
        cost = {b: self.spend_cost(s, b) for a in attacks for b in options[a]}
        cands = [(a, sorted(options[a], key=lambda b: (cost[b], b))[:_MAX_CANDIDATES])
                 for a in attacks]
        cands.sort(key=lambda x: len(x[1]))
        return _best_assignment(cands, cost)


def _best_assignment(cands, cost):
    best = [math.inf, None]
    chosen: list[tuple[int, int]] = []

    def dfs(i, used, total):
        if total >= best[0]:
            return
        if i == len(cands):
            best[0], best[1] = total, list(chosen)
            return
        a, bs = cands[i]
        for b in bs:
            if not used >> b & 1:
                chosen.append((a, b))
                dfs(i + 1, used | 1 << b, total + cost[b])
                chosen.pop()

    dfs(0, 0, 0.0)
    return None if best[1] is None else (best[0], best[1])


class GreedyAgent(HeuristicAgent):
    """Attacks and throws in with the lowest card, plain cards before trumps; covers
    with the cheapest card that beats; takes only when it cannot cover everything.
    In perevodnoy it shows a trump whenever it may, and transfers when the transfer
    card is no dearer than the cheapest cover.

    Args:
        throw_trumps: also throw in trumps (after every plain card); default yes.
    """

    def __init__(self, rules: Rules, *, throw_trumps: bool = True):
        super().__init__(rules, throw_max=math.inf if throw_trumps else 0.999)
        self.throw_trumps = throw_trumps

    def throw_ok(self, s, c):
        return self.throw_trumps or not s.is_trump(c)

    def gift_ok(self, s, c):
        return self.throw_ok(s, c)


class CardCountingAgent(HeuristicAgent):
    """Tracks the unseen cards, attacks with what each defender is least likely to beat,
    throws in to force takes, and solves the two-player end game exactly.

    Args:
        w_count: cost weight of the chance that an attack card gets beaten.
        force_take: throw in a card whose chance of being beaten is at most this,
            whatever it costs (trumps excepted while the talon lasts).
        search_nodes: node cap of the end-game search (0 turns it off).
    """

    def __init__(self, rules: Rules, *, w_count: float = 0.6, force_take: float = 0.25,
                 search_nodes: int = 3000):
        super().__init__(rules, w_count=w_count, take_base=math.inf, throw_max=0.8,
                         junk_max=0.5, force_take=force_take, search_nodes=search_nodes)


class PairHoldingAgent(HeuristicAgent):
    """Keeps pairs and sets of equal rank for multi-card attacks: opens with ranks it holds
    several of, throws in their mates, and avoids breaking sets when covering.

    Args:
        w_pairs: value of each extra card of the same rank.
        throw_max: throw in a card only when its cost is at most this.
    """

    def __init__(self, rules: Rules, *, w_pairs: float = 0.4, throw_max: float = 0.8):
        super().__init__(rules, w_pairs=w_pairs, throw_max=throw_max, junk_max=0.5)


class TrumpSavingAgent(HeuristicAgent):
    """Spends trumps, high ones above all, only when the talon is nearly empty or there is
    no other way, and would rather take cheap cards than pay a high trump early.

    Args:
        w_trump: extra cost of any trump while the talon is full (fades as it empties).
        w_high: extra cost per rank of the trump (an ace costs ``w_trump + w_high``).
        take_base, take_card: what taking costs, once and per card on the table.
    """

    def __init__(self, rules: Rules, *, w_trump: float = 0.5, w_high: float = 1.0,
                 take_base: float = 1.5, take_card: float = 0.4):
        super().__init__(rules, w_trump=w_trump, w_high=w_high, take_base=take_base,
                         take_card=take_card, throw_max=0.8, junk_max=0.5)


class ExpertAgent(HeuristicAgent):
    """Card counting, pair holding and trump saving combined, with weights tuned by the
    tournament (see the README); the strongest heuristic.

    Args:
        w_count, force_take: as ``card_counting``.
        w_pairs: as ``pair_holding``.
        w_trump, w_high, take_base, take_card: as ``trump_saving``.
        throw_max, junk_max: throw-in thresholds (see ``HeuristicAgent``).
        search_nodes, search_last_card, search_cheap_first: the end-game search, which
            ``expert`` starts already when only the face-up trump is left in the talon,
            trying cheap cards first.
        pimc_talon, pimc_samples, pimc_nodes: with two players and 1 to 3 cards in the
            talon, ``expert`` solves 8 random deals of the unseen cards exactly (1,000
            nodes per move) and plays the move with the best summed value.

    The two-player search defaults were chosen by tournaments against ``card_counting``
    (the README has the figures). With more players neither search applies and the
    weights alone decide.
    """

    def __init__(self, rules: Rules, *, w_count: float = W.W_COUNT,
                 force_take: float = W.FORCE_TAKE, w_pairs: float = W.W_PAIRS,
                 w_trump: float = W.W_TRUMP, w_high: float = W.W_HIGH,
                 take_base: float = W.TAKE_BASE, take_card: float = W.TAKE_CARD,
                 throw_max: float = W.THROW_MAX, junk_max: float = W.JUNK_MAX,
                 search_nodes: int = 50000,
                 search_last_card: bool = True, search_cheap_first: bool = True,
                 pimc_talon: int = 3, pimc_samples: int = 8, pimc_nodes: int = 1000):
        super().__init__(rules, w_trump=w_trump, w_high=w_high, w_pairs=w_pairs,
                         w_count=w_count, take_base=take_base, take_card=take_card,
                         throw_max=throw_max, junk_max=junk_max, force_take=force_take,
                         search_nodes=search_nodes, search_last_card=search_last_card,
                         search_cheap_first=search_cheap_first, pimc_talon=pimc_talon,
                         pimc_samples=pimc_samples, pimc_nodes=pimc_nodes)


class ExpertRulesAgent(Agent):
    """``expert``'s decision rules without its searches, compiled: the numba
    ``agents.expert_kernel.expert_action`` with card counting, on a state rebuilt from the
    observation (``determinize``; the rules read only what the seat sees, so the deal
    of the unseen cards does not matter). It plays as ``expert:search_nodes=0,
    pimc_talon=0`` does, except that it covers several attack cards by a greedy plan,
    card by card, where ``expert`` finds the cheapest assignment. The same rules,
    batched, are the ``expert_rules`` training opponent of ``selfplay.heuristics``.
    """

    name = "expert_rules"

    def __init__(self, rules: Rules):
        super().__init__(rules)
        self.prm = core.kernel_params(rules)
        self._st = core.new_state(1)
        self._buf = np.zeros((1, int(self.prm[core.A_N])), np.int64)
        self._n = np.zeros(1, np.int32)
        self._rows = np.zeros(1, np.int64)
        self._out = np.zeros(1, np.int64)
        self._cards = np.zeros(NUM_CARDS, np.int64)

    def act(self, observation, action_mask, rng):
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        view = view_array(fast_decode(observation, self.rules))
        if not determinize_at(self._st, 0, self.prm, view, self._cards):
            raise ValueError("expert_rules: the observation describes no possible position")
        self._n[0] = core.legal_actions_at(self._st, 0, self.prm, self._buf[0])
        expert_actions(self._st, self.prm, self._buf, self._n, self._rows, self._out)
        return int(self._out[0])


__all__ = [
    "CardCountingAgent",
    "ExpertAgent",
    "ExpertRulesAgent",
    "GreedyAgent",
    "HeuristicAgent",
    "PairHoldingAgent",
    "TrumpSavingAgent",
]
