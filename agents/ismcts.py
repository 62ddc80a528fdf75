"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration samples a *determinization* (``agents.determinize``): a full core
game record consistent with what the acting seat sees.

One tree is shared by all players: a node is reached by a sequence of
``(action, mover)`` edges, a child's statistics are the rewards of the player who
moved into it, and the searching seat selects by UCB with availability counts (a
child's ``avail`` counts the iterations in which its action was legal). In plain
single-observer ISMCTS (``opponent="tree"``) the other seats select by UCB too,
over the shared statistics, which models them as choosing one move for every hand
they might hold. With an opponent model (``opponent="expert_count"``, the default,
or another playout name) they move by that policy instead in a share
``model_share`` of the iterations (drawn per iteration; by UCB in the others), e.g.
by the ``expert`` heuristic's rules with card counting (``expert_action(count=True)``,
from what that seat could know in the sampled deal), and the tree branches on the
moves they make, so the searching seat's later choices depend on them. A full model
(``model_share=1``) exploits an opponent that plays like it and is exploited by one
that does not; the default half share keeps most of the gain against ``expert``
and loses only a little to plain ISMCTS head to head (the README has the figures).
Forced moves are applied by the core after every action and never appear in the tree.
Playouts run in the numba core with a random, a greedy or an expert-rules policy; the
reward of a node is that player's ``core.rewards`` at the end of the playout.

Everything per iteration (determinize, select, expand, playout, back-propagate)
is one numba kernel over preallocated tree arrays; Python only decodes the
observation and slices the budget into chunks when searching against the clock.

With two players, once the talon is empty (or holds only the face-up trump) every
determinization is the same position, so sampling is wasted work: the agent asks the
exact end-game solver (``agents.endgame``, at most ``endgame_nodes`` nodes per move,
0 turns it off) and searches as usual only when the solver gives up or proves every
move lost (the search's choice then gives an imperfect opponent the most chances).
Before that, with 1 to ``pimc_talon`` cards left in the talon, every move is first rated
by ``pimc_values`` (exact search of a few sampled deals, as ``expert`` does) and the tree
search only breaks ties between the best-rated moves.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from durak_env import Rules, core
from durak_env.cards import NUM_CARDS
from durak_env.checks import check_number, check_seed

from .base import Agent
from .determinize import MAXP, determinize, view_array
from .endgame import EndgameSolver
from .pimc import pimc_values
from .playouts import PLAYOUTS, advance, greedy_at, playout, policy_action
from .view import fast_decode

# Edges are keyed by action and mover: the same action id by another seat is another edge.
KEY_SEATS = MAXP
NO_NODE = -1
# The columns of t_stats, one row per node.
STAT_VISITS, STAT_REWARD, STAT_AVAIL, NUM_STATS = 0, 1, 2, 3
# The opponent id that means "the other seats select by UCB too" (no policy model).
OPPONENT_TREE = -1
# Iterations per numba call when the search watches the clock: short enough that the
# search stops close to its deadline.
_CHUNK = 256
# Of ``max_time``: the sampled exact search may use this share; the tree search stops
# early enough that even a chunk taking twice its predecessor's time ends before
# ``_SAFE`` of it (a loaded machine's hiccups fit in the rest).
_PIMC_SHARE = 0.5
_SAFE = 0.85


# ---------------------------------------------------------------- the tree


@njit(cache=True)
def _find_child(t_child, t_sib, t_key, node, key):
    ch = t_child[node]
    while ch != NO_NODE:
        if t_key[ch] == key:
            return ch
        ch = t_sib[ch]
    return NO_NODE


@njit(cache=True)
def _new_child(t_child, t_sib, t_key, t_stats, meta, node, key):
    """Append a child; NO_NODE when the tree is full."""
    k = meta[0]
    if k >= t_key.shape[0]:
        return NO_NODE
    meta[0] = k + 1
    t_key[k] = key
    t_child[k] = NO_NODE
    t_sib[k] = t_child[node]
    t_child[node] = k
    t_stats[k, STAT_VISITS] = 0.0
    t_stats[k, STAT_REWARD] = 0.0
    t_stats[k, STAT_AVAIL] = 0.0
    return k


@njit(cache=True)
def _select(t_child, t_sib, t_key, t_stats, node, buf, n, mover, c, untried):
    """Bump availability of the legal children; return (best child by UCB, untried count).

    Untried legal actions go to ``untried``; the best child is NO_NODE if none exists.
    """
    best, best_v, k = NO_NODE, -1e300, 0
    for i in range(n):
        ch = _find_child(t_child, t_sib, t_key, node, buf[i] * KEY_SEATS + mover)
        if ch == NO_NODE:
            untried[k] = buf[i]
            k += 1
            continue
        t_stats[ch, STAT_AVAIL] += 1.0
        visits = t_stats[ch, STAT_VISITS]
        avail = t_stats[ch, STAT_AVAIL]
        v = t_stats[ch, STAT_REWARD] / visits + c * np.sqrt(np.log(avail) / visits)
        if v > best_v:
            best, best_v = ch, v
    return best, k


@njit(cache=True)
def _modelled_step(r, prm, opponent, t_child, t_sib, t_key, t_stats, meta, node, buf, n, mover,
                   c, untried):
    """An opponent's move by the playout policy ``opponent``: a branch of the tree, not a
    choice. Returns (the move, its child; NO_NODE when the tree is full)."""
    a = policy_action(r, prm, buf, n, opponent)
    key = a * KEY_SEATS + mover
    # count the legal children as available (UCB iterations read it), the
    # policy's move too, also when it is new here
    _select(t_child, t_sib, t_key, t_stats, node, buf, n, mover, c, untried)
    ch = _find_child(t_child, t_sib, t_key, node, key)
    if ch == NO_NODE:
        ch = _new_child(t_child, t_sib, t_key, t_stats, meta, node, key)
        if ch != NO_NODE:
            t_stats[ch, STAT_AVAIL] = 1.0
    return a, ch


@njit(cache=True)
def _ucb_step(r, t_child, t_sib, t_key, t_stats, meta, node, buf, n, mover, c, untried):
    """A random untried move, which expands the tree, else the best child by UCB.
    Returns (the move, its child; NO_NODE when the tree is full, whether it expanded)."""
    ch, k = _select(t_child, t_sib, t_key, t_stats, node, buf, n, mover, c, untried)
    if k > 0:
        a = untried[core.rng_below(r, k)]
        ch = _new_child(t_child, t_sib, t_key, t_stats, meta, node, a * KEY_SEATS + mover)
        return a, ch, True
    return t_key[ch] // KEY_SEATS, ch, False


@njit(cache=True)
def search(st, prm, view, iterations, c, policy, opponent, share, t_child, t_sib, t_key,
           t_stats, meta, buf, log, cards, path, movers, rew, untried):
    """Run ISMCTS iterations on the tree (root = node 0) using game 0 of ``st``.

    ``t_stats[node]`` is (visits, total reward of the mover into it, availability);
    ``meta[0]`` the node count. Returns the iterations done (fewer only when the
    view cannot be determinized).
    """
    b = core.borrowed
    st, prm, view, t_child, t_sib, t_key = b(st), b(prm), b(view), b(t_child), b(t_sib), b(t_key)
    t_stats, meta, buf, log, cards, path = b(t_stats), b(meta), b(buf), b(log), b(cards), b(path)
    movers, rew, untried = b(movers), b(rew), b(untried)
    r = st[0]
    for it in range(iterations):
        if not determinize(r, prm, view, cards):
            return it
        # this iteration the other seats play by the model (chance ``share``), or by UCB
        modelled = opponent != OPPONENT_TREE and share > 0.0 and (
            share >= 1.0 or core.rng_below(r, 1 << 24) < share * (1 << 24))
        n = core.legal_actions(r, prm, buf)
        node, depth = 0, 0
        while n > 0 and depth < path.shape[0]:
            mover = r.to_act
            if modelled and mover != 0:
                a, ch = _modelled_step(r, prm, opponent, t_child, t_sib, t_key, t_stats, meta,
                                       node, buf, n, mover, c, untried)
                expanded = False
            else:
                a, ch, expanded = _ucb_step(r, t_child, t_sib, t_key, t_stats, meta, node, buf,
                                            n, mover, c, untried)
            n = advance(r, prm, a, buf, log)
            if ch == NO_NODE:
                break
            path[depth], movers[depth] = ch, mover
            depth += 1
            node = ch
            if expanded:
                break
        playout(r, prm, n, buf, log, policy)
        core.rewards(r, prm, rew)
        for i in range(depth):
            t_stats[path[i], STAT_VISITS] += 1.0
            t_stats[path[i], STAT_REWARD] += rew[movers[i]]
    return iterations


@njit(cache=True)
def root_visits(t_child, t_sib, t_key, t_stats, out):
    """Visits of each root child into out[action] (the root mover is seat 0)."""
    ch = t_child[0]
    while ch != NO_NODE:
        out[t_key[ch] // KEY_SEATS] = t_stats[ch, STAT_VISITS]
        ch = t_sib[ch]


# ---------------------------------------------------------------- the agent


def _optional(value, typ):
    """``value``, or the text ``""``/``none`` as None and other text parsed as ``typ``."""
    if isinstance(value, str):
        return None if value.lower() in ("", "none") else typ(value)
    return value


def _check_options(iterations, time_per_move, max_time, playout: str, opponent: str,
                   model_share: float) -> None:
    """Raise ValueError for an ``ISMCTSAgent`` option out of range."""
    if int(iterations) < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations!r}")
    if time_per_move is not None and not time_per_move > 0:
        raise ValueError(f"time_per_move must be > 0 or None, got {time_per_move!r}")
    if max_time is not None and not max_time > 0:
        raise ValueError(f"max_time must be > 0 or None, got {max_time!r}")
    if playout not in PLAYOUTS:
        raise ValueError(f"playout must be one of {PLAYOUTS}, got {playout!r}")
    if opponent != "tree" and opponent not in PLAYOUTS:
        raise ValueError(f"opponent must be 'tree' or one of {PLAYOUTS}, got {opponent!r}")
    if not 0.0 <= model_share <= 1.0:
        raise ValueError(f"model_share must be in [0, 1], got {model_share!r}")


class ISMCTSAgent(Agent):
    """ISMCTS player over the numba core.

    Args:
        rules: the rules to play.
        iterations: iterations per decision (the budget when ``time_per_move`` is None).
        time_per_move: seconds per decision; when set it replaces ``iterations`` (the
            tree then holds at most ``max_nodes`` or 2**18 nodes).
        c: UCB exploration constant (rewards are in -1..1).
        playout: playout policy: ``"random"``, ``"greedy"``, ``"saving"`` (greedy,
            but takes rather than pay a high trump while the talon is full) or
            ``"expert"`` (``expert_action``: the expert heuristic's rules, reading the
            defender's cards in the determinization) or ``"expert_count"`` (the same
            rules judging the defender's cards by card counting, as ``expert`` does).
        opponent: how the other seats move inside the tree: ``"tree"`` (each chooses
            by UCB over the shared statistics, as in plain single-observer ISMCTS) or a
            playout policy name, which models them as playing by it (the default
            ``"expert_count"``: the ``expert`` heuristic's rules with card counting,
            from what that seat could know). The tree still branches on their moves,
            so the searching seat's later choices depend on what they did.
        model_share: the chance, drawn per iteration, that the other seats follow the
            model in that iteration; otherwise they choose by UCB as with ``"tree"``
            (0: plain ISMCTS, the same search as ``opponent="tree"``; 1: always the
            model). A full model exploits an opponent that plays like it and is
            exploited by one that does not; the default 0.5 keeps most of the gain
            and loses only a little to plain ISMCTS (see the README's figures).
        max_time: seconds per decision at most, the sampled and exact searches
            included (None: no cap). The sampled search stops dealing at half of it,
            and the tree search stops early so as to end by 85% of it even if its last
            chunk of iterations takes twice as long as the one before. It is reached
            mostly after a sampled search or on a loaded machine, and then the result
            depends on the machine's speed: pass None for bit-for-bit reproducible play.
        seed: seeds the search (re-seeded by ``reset``); None draws each search's seed
            from the ``rng`` given to ``act``.
        max_nodes: tree capacity; 0 picks ``iterations + 2``, enough for any search.
        endgame_nodes: node cap per move of the exact two-player end-game solver, used
            instead of the search once the talon is empty or holds only the face-up
            trump (0: off; ignored with more than two players).
        pimc_talon: with two players and 1 to this many cards in the talon (before the
            end-game solver applies), first rate every move by ``pimc_values`` and
            search only to break ties between the best-rated moves (0: off; needs
            ``endgame_nodes``).
        pimc_samples, pimc_nodes: deals per such decision (fewer if ``max_time`` runs
            short), and the node cap of each move's search in each deal.
    """

    name = "ismcts"

    def __init__(self, rules: Rules, *, iterations: int = 4000, time_per_move: float | None = None,
                 c: float = 0.7, playout: str = "expert", opponent: str = "expert_count",
                 model_share: float = 0.5, max_time: float | None = 0.1,
                 seed: int | None = None,
                 max_nodes: int = 0, endgame_nodes: int = 10000, pimc_talon: int = 3,
                 pimc_samples: int = 16, pimc_nodes: int = 1000):
        super().__init__(rules)
        # the registry passes untyped None defaults as text
        time_per_move, seed = _optional(time_per_move, float), _optional(seed, int)
        model_share = float(model_share)
        _check_options(iterations, time_per_move, max_time, playout, opponent, model_share)
        check_number("c", c, 0.0)
        check_seed(seed)
        self.opponent = opponent
        self.model_share = model_share
        self.iterations = int(iterations)
        self.time_per_move = time_per_move
        self.max_time = max_time
        self.c = float(c)
        self.playout = playout
        self.seed = seed
        self.prm = core.kernel_params(rules)
        self.endgame_nodes = int(endgame_nodes)
        self.pimc_talon, self.pimc_samples = int(pimc_talon), int(pimc_samples)
        self.pimc_nodes = int(pimc_nodes)
        self._solver = (EndgameSolver(rules, self.endgame_nodes, last_card=True, cheap_first=True)
                        if self.endgame_nodes > 0 and rules.num_players == 2 else None)
        self._allocate(int(max_nodes))
        self.last_iterations = 0
        self.reset()

    def _allocate(self, max_nodes: int) -> None:
        """The tree arrays (``max_nodes`` nodes, 0: enough for the budget) and the scratch
        arrays of the kernels."""
        # with a policy opponent, one iteration may add a node per opponent move on its
        # path; a full tree only stops growing (the iteration plays out from there)
        per_it = 1 if self.opponent == "tree" else 16
        cap = max_nodes or (per_it * self.iterations + 2 if self.time_per_move is None
                            else 1 << 18)
        self._t_child = np.full(cap, NO_NODE, np.int32)
        self._t_sib = np.full(cap, NO_NODE, np.int32)
        self._t_key = np.zeros(cap, np.int64)
        self._t_stats = np.zeros((cap, NUM_STATS), np.float64)
        self._meta = np.zeros(1, np.int64)
        self._st = core.new_state(1)
        n_act = int(self.prm[core.A_N])
        self._buf = np.zeros(n_act, np.int64)
        self._untried = np.zeros(n_act, np.int64)
        self._log = np.zeros((0, 2), np.int32)
        self._cards = np.zeros(NUM_CARDS, np.int64)
        self._path = np.zeros(4096, np.int64)
        self._movers = np.zeros(4096, np.int64)
        self._rew = np.zeros(self.rules.num_players, np.float64)
        self._visits = np.zeros(n_act, np.float64)

    def reset(self) -> None:
        self._seed_rng = np.random.default_rng(self.seed) if self.seed is not None else None
        if self._solver is not None:
            self._solver.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            rng: np.random.Generator) -> int:
        start = time.perf_counter()
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        src = self._seed_rng if self._seed_rng is not None else rng
        self._st["rng"][0] = np.uint64(int(src.integers(0, 2**63)))
        v = fast_decode(observation, self.rules)
        view = view_array(v)
        if self._solver is not None and self._solver.applies(v):
            a = self._solve_exactly(v, view, legal)
            if a is not None:
                self.last_iterations = 0
                return a
        elif self._solver is not None and 0 < v.talon_size <= self.pimc_talon:
            legal = self._best_by_sampling(view, legal, src, start)
            if len(legal) == 1:
                self.last_iterations = 0
                return int(legal[0])
        self._run(view, start)
        self._visits[:] = -1.0
        root_visits(self._t_child, self._t_sib, self._t_key, self._t_stats, self._visits)
        scores = self._visits[legal]
        if scores.max() < 0:  # the view could not be determinized: should not happen
            return int(src.choice(legal))
        return int(legal[int(np.argmax(scores))])

    def _solve_exactly(self, v, view: np.ndarray, legal: np.ndarray) -> int | None:
        """The solver's move when it proves a win or a draw; None to search instead."""
        first = int(greedy_at(self._st, self.prm, view, self._cards, self._buf))
        # the solver breaks ties by order: the greedy policy's move first, then ascending ids
        order = sorted((int(a) for a in legal), key=lambda a: a != first)
        a = self._solver.solve(v, order)
        if a is None or self._solver.value < 0:
            return None
        return int(a)

    def _best_by_sampling(self, view: np.ndarray, legal: np.ndarray,
                          rng: np.random.Generator, start: float) -> np.ndarray:
        """The legal moves with the best ``pimc_values`` total (all of them if the view
        cannot be determinized)."""
        deadline = None if self.max_time is None else start + _PIMC_SHARE * self.max_time
        total = pimc_values(self._solver, view, [int(a) for a in legal], self.pimc_samples,
                            self.pimc_nodes, rng, self._cards, deadline)
        return legal if total is None else legal[total == total.max()]

    def _run(self, view: np.ndarray, start: float) -> None:
        """Search from an empty tree: ``iterations``, or until ``time_per_move`` has
        passed, and never past ``max_time`` since ``start``."""
        self._meta[0] = 1
        self._t_child[0] = NO_NODE
        opponent = OPPONENT_TREE if self.opponent == "tree" else PLAYOUTS.index(self.opponent)
        args = (self.c, PLAYOUTS.index(self.playout), opponent, self.model_share,
                self._t_child, self._t_sib, self._t_key, self._t_stats, self._meta, self._buf,
                self._log, self._cards, self._path, self._movers, self._rew, self._untried)
        budget, chunk = self.iterations, _CHUNK
        deadline = start + _SAFE * self.max_time if self.max_time is not None else np.inf
        if self.time_per_move is not None:
            budget, chunk = len(self._t_key) - 2, 16
            deadline = min(deadline, time.perf_counter() + self.time_per_move)
        elif deadline == np.inf:
            self.last_iterations = search(self._st, self.prm, view, budget, *args)
            return
        done, now = 0, time.perf_counter()
        while done < budget:
            n = min(chunk, budget - done)
            k = search(self._st, self.prm, view, n, *args)
            done += k
            last, now = now, time.perf_counter()
            if k < n or now + 2 * (now - last) >= deadline:  # the next chunk might overrun
                break
        self.last_iterations = done
