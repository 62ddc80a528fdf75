"""What the single-game environments share: one game (a batch of one) and its legal moves.

The AEC env (``aec.py``) and the Gymnasium env (``gym_env.py``) both hold one game in a
``Batch`` of size one and drive it through the batch kernels; ``SingleGameEnv`` is that
common part: dealing, applying an action, the current observation and mask of the seat
to act, and rendering. Each env adds its own API on top.
"""

from __future__ import annotations

import numpy as np

from . import batch as bt
from .batch import Batch
from .render import render_state
from .rules import Rules


class SingleGameEnv:
    """Mixin over one game; call ``_init_game(rules)`` from ``__init__``.

    Attributes:
        rules: the rules of the game.
        layout: its ``ActionLayout``.
        render_mode: None, ``"ansi"`` or ``"human"`` (set by the env).
    """

    render_mode: str | None = None

    def _init_game(self, rules: Rules) -> None:
        self.rules = rules
        self._b = Batch(rules, 1)
        self.layout = self._b.layout
        self._rew = np.zeros(rules.num_players, np.float64)
        self._n_legal = 0

    def _fresh(self):
        """A new observation and an all-zero mask for the kernels to fill."""
        return np.empty(self._b.obs_size, np.float32), np.zeros(self.layout.n, np.int8)

    def _after(self, n, obs, mask):
        self._n_legal = n
        self._obs, self._mask = obs, mask
        self._to_act = self._b.to_act(0)

    def _deal(self, deal) -> int:
        """Deal at random (``deal`` None) or the given core arrays; returns the legal count."""
        obs, mask = self._fresh()
        b = self._b
        if deal is None:
            n = bt.deal_random_game(b.st, 0, b.prm, b.off, b.buf, b.deal_rng, mask, obs)
        else:
            n = bt.deal_game(b.st, 0, b.prm, b.off, *deal, b.buf, mask, obs)
        self._after(n, obs, mask)
        return n

    def _apply(self, a: int) -> int:
        """Apply a legal action id (and the forced moves after it); returns the legal count."""
        obs, mask = self._fresh()
        b = self._b
        n = bt.step_game(b.st, 0, b.prm, b.off, a, b.buf, mask, obs, self._rew)
        self._after(n, obs, mask)
        return n

    def _legal(self) -> np.ndarray:
        return self._b.buf[0, : self._n_legal]

    def _illegal_message(self, a: int, who: str) -> str:
        legal = ", ".join(self.layout.decode(int(x)) for x in self._legal())
        return f"illegal action {a} ({self.layout.decode(a)!r}) for {who}; legal moves: {legal}"

    def _repr_html_(self) -> str:
        """Cards as HTML/SVG in a notebook (the referee's view)."""
        from .html import render_html_state

        return render_html_state(self._b.st, 0, self.rules)

    def _warn_no_render_mode(self) -> None:
        raise NotImplementedError

    def render(self) -> str | None:
        """The position as text (``"ansi"``), or printed (``"human"``)."""
        if self.render_mode is None:
            self._warn_no_render_mode()
            return None
        text = render_state(self._b.st, 0, self.rules)
        if self.render_mode == "human":
            print(text)
            return None
        return text
