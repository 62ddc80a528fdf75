"""OpenSpiel's IS-MCTS as a tournament agent (``openspiel_ismcts``; needs the openspiel extra).

OpenSpiel's Python ``ISMCTSBot`` searches ``python_durak`` (``durak_env.spiel``) from a
state rooted at the agent's position (``durak_env.spiel.position_state``): every
simulation starts from a fresh determinization of the agent's observation (the same
``agents.determinize`` the project's ``ismcts`` samples from) and plays out with
OpenSpiel's random rollouts through the Python game. So the two searches see the same
information and differ in the search itself and in its speed.

Parameters: ``simulations`` per move, or ``time_per_move`` seconds (then as many
simulations as fit), ``uct_c``, ``rollouts`` per leaf, ``seed``.
"""

from __future__ import annotations

import time

import numpy as np

from durak_env import Rules, core
from durak_env.cards import NUM_CARDS

from .base import Agent
from .determinize import determinize_at, view_array
from .view import fast_decode


def _bot_class():
    from open_spiel.python.algorithms import ismcts

    class TimedISMCTSBot(ismcts.ISMCTSBot):
        """OpenSpiel's bot, whose search can stop at a deadline instead of a count."""

        deadline: float | None = None

        def run_search(self, state):
            if self.deadline is None:
                return super().run_search(state)
            self.reset()
            self._root_node = self.create_new_node(state)
            while time.perf_counter() < self.deadline or self._root_node.total_visits == 0:
                self.run_simulation(self.sample_root_state(state))
            node = self.filter_illegals(self._root_node, state.legal_actions())
            return self.get_final_policy(state, node)

    return ismcts, TimedISMCTSBot


class OpenSpielISMCTSAgent(Agent):
    """OpenSpiel's IS-MCTS (its Python ``ISMCTSBot``) searching ``python_durak`` from
    determinizations of the agent's observation, with random rollouts; needs
    ``pip install -e ".[openspiel]"``.

    Args:
        simulations: simulations per move (when ``time_per_move`` is None).
        time_per_move: seconds of search per move instead of a count.
        uct_c: the UCT exploration constant.
        rollouts: random rollouts per new leaf.
        seed: seed of the agent's own randomness (None: the tournament's generator).
    """

    def __init__(self, rules: Rules, *, simulations: int = 100,
                 time_per_move: float | None = None, uct_c: float = 2.0, rollouts: int = 1,
                 seed: int | None = None):
        super().__init__(rules)
        try:
            from open_spiel.python.algorithms import mcts

            from durak_env import spiel
        except ImportError as e:
            raise ValueError('agent openspiel_ismcts needs OpenSpiel: pip install -e '
                             '".[openspiel]"') from e

        self.spiel, self.game = spiel, spiel.load_game(rules)
        self.simulations, self.uct_c, self.rollouts = int(simulations), float(uct_c), int(rollouts)
        self.time_per_move = None if time_per_move in (None, "None") else float(time_per_move)
        self.seed = None if seed in (None, "None") else int(seed)
        self._mcts = mcts
        self._prm = core.kernel_params(rules)
        self._st = core.new_state(1)
        self._cards = np.zeros(NUM_CARDS, np.int64)
        self.reset()

    def reset(self) -> None:
        self._rng = np.random.default_rng(self.seed) if self.seed is not None else None

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            rng: np.random.Generator) -> int:
        start = time.perf_counter()
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        src = self._rng if self._rng is not None else rng
        view = view_array(fast_decode(observation, self.rules))
        root = self.spiel.position_state(self.game, self._sampler(view), src)
        bot = self._bot(src)
        if self.time_per_move is not None:
            bot.deadline = start + self.time_per_move
        return int(bot.step(root))

    def _sampler(self, view: np.ndarray):
        def sample(rng: np.random.Generator) -> np.ndarray:
            self._st["rng"][0] = np.uint64(int(rng.integers(0, 2**63)))
            if not determinize_at(self._st, 0, self._prm, view, self._cards):
                raise RuntimeError("the observation could not be determinized")
            return self._st[0].copy()

        return sample

    def _bot(self, rng: np.random.Generator):
        ismcts, bot_class = _bot_class()
        seed = int(rng.integers(0, 2**31))
        evaluator = self._mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(seed))
        return bot_class(self.game, evaluator, self.uct_c, max_simulations=self.simulations,
                         random_state=np.random.RandomState(seed),
                         final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                         allow_inconsistent_action_sets=True)
