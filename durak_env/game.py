"""The ``Game`` API of docs/rules.md section 9: one game over the numba core (a batch of one).

Nothing here decides what is legal: moves are parsed into action ids, checked
against the core's legal list and applied by ``core.step``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from . import core, observation, records
from .actions import ActionLayout, IllegalMoveError
from .cards import NUM_CARDS, SUIT_NAMES, format_card, format_mask
from .checks import check_seed
from .deal import check_deal
from .rules import Rules

_LOG_ROWS = 4096


class Game:
    """One game of Durak driven move by move, in notation or by action id."""

    def __init__(self, rules: Rules):
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a durak_env.Rules, got {type(rules).__name__}")
        self.rules = rules
        self.layout = ActionLayout.of(rules)
        self._prm = core.kernel_params(rules)
        self._st = core.new_state(1)
        self._buf = np.zeros(self.layout.n, np.int64)
        self._log = np.zeros((_LOG_ROWS, 2), np.int32)
        self._n_legal = 0
        self._obs_off = observation.obs_offsets(rules)
        self.history: list[tuple[int, str]] = []
        self.deal_record: dict | None = None

    # ------------------------------------------------------------ construction

    @classmethod
    def new(cls, rules: Rules, seed: int | None = None) -> Game:
        """A random deal; the same seed gives the same game.

        Raises:
            TypeError, ValueError: ``seed`` is not None or an int in ``0..2**64-1``
                (``durak_env.checks.check_seed``).
        """
        seed = check_seed(seed)
        game = cls(rules)
        if seed is None:
            seed = core.fresh_seed()
        core.seed_games(game._st, np.array([seed], np.uint64))
        core.deal_random_at(game._st, 0, game._prm)
        game._record_deal()
        game._settle()
        return game

    @classmethod
    def from_deal(
        cls,
        rules: Rules,
        hands: Sequence[Sequence[str]],
        talon: Sequence[str] = (),
        discard: Sequence[str] = (),
        trump: str | None = None,
        first_attacker: int | None = None,
    ) -> Game:
        """A given position at the start of a round (see docs/rules.md section 9).

        Raises:
            ValueError: naming the field (``hands``, ``talon``, ``discard``,
                ``trump``, ``first_attacker``) that makes the position invalid.
        """
        game = cls(rules)
        d = check_deal(rules, hands, talon, discard, trump, first_attacker)
        talon_arr = np.full(NUM_CARDS, -1, np.int8)
        talon_arr[: len(d["talon"])] = d["talon"]
        core.deal_at(
            game._st, 0, game._prm, np.array(d["hands"], np.uint64), talon_arr,
            len(d["talon"]), np.uint64(d["discard"]), d["trump"], d["trump_card"],
            -1 if first_attacker is None else first_attacker,
        )
        game._record_deal()
        game._settle()
        return game

    @classmethod
    def from_state(cls, rules: Rules, record) -> Game:
        """A game going on from a full position, a ``core.STATE_DTYPE`` record (a search's
        determinization, for instance); forced moves from there are applied. The history
        starts at that position and ``deal_record`` is None."""
        game = cls(rules)
        game._st[0] = record
        game._settle()
        return game

    def _record_deal(self):
        self.deal_record = {
            "hands": self.hands,
            "talon": self.talon,
            "discard": self.discard,
            "trump": self.trump_suit,
            "first_attacker": self.attacker,
        }

    def _settle(self):
        n, k = core.play_forced_at(self._st, 0, self._prm, self._buf, self._log)
        self._after(n, k)

    def _after(self, n_legal, n_forced):
        if n_forced > _LOG_ROWS:  # pragma: no cover - longer than any real game
            raise RuntimeError("forced-move log overflow")
        for seat, a in self._log[:n_forced]:
            self.history.append((int(seat), self.layout.decode(int(a))))
        self._n_legal = int(n_legal)

    # ------------------------------------------------------------ moves

    def legal_actions(self) -> np.ndarray:
        """Legal action ids of the player to act (empty once the game is over)."""
        return self._buf[: self._n_legal].copy()

    def legal_moves(self) -> list[str]:
        return [self.layout.decode(int(a)) for a in self._buf[: self._n_legal]]

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(self.layout.n, np.int8)
        mask[self._buf[: self._n_legal]] = 1
        return mask

    def play(self, move: str) -> None:
        """Apply a move in notation, then every forced move after it.

        Raises:
            IllegalMoveError: malformed or illegal; the game is unchanged.
        """
        if self.over:
            raise IllegalMoveError(f"the game is over; cannot play {move!r}")
        self._apply(self.layout.encode(move), move)

    def step(self, action: int) -> None:
        """Apply a legal action id, then every forced move after it."""
        a = self.layout.check_id(action)
        if self.over:
            raise IllegalMoveError(f"the game is over; cannot play action {a}")
        self._apply(a, self.layout.decode(a))

    def _apply(self, action: int, spelled: str):
        if action not in self._buf[: self._n_legal]:
            raise IllegalMoveError(
                f"illegal move {spelled!r} for seat {self.to_act}; "
                f"legal moves: {', '.join(self.legal_moves())}"
            )
        seat = self.to_act
        n, k = core.step_at(self._st, 0, self._prm, action, self._buf, self._log)
        self.history.append((seat, self.layout.decode(action)))
        self._after(n, k)

    # ------------------------------------------------------------ views

    def observe(self, seat: int) -> np.ndarray:
        """What ``seat`` may see, as the environments' observation vector."""
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not (
            0 <= seat < self.rules.num_players
        ):
            raise ValueError(f"seat must be in 0..{self.rules.num_players - 1}, got {seat!r}")
        out = np.zeros(observation.observation_size(self.rules), np.float32)
        observation.encode_at(self._st, 0, self._prm, self._obs_off, int(seat), out)
        return out

    @property
    def state(self) -> np.ndarray:
        """The game as a one-record ``core.STATE_DTYPE`` array (the referee's view)."""
        return self._st

    @property
    def to_act(self) -> int | None:
        return None if self.over else int(self._st[0]["to_act"])

    @property
    def over(self) -> bool:
        return int(self._st[0]["phase"]) == core.OVER

    @property
    def hands(self) -> list[list[str]]:
        return [format_mask(m) for m in self._st[0]["hands"][: self.rules.num_players]]

    @property
    def table(self) -> list[tuple[str, str | None]]:
        r = self._st[0]
        out = []
        for i in range(int(r["n_attack"])):
            cover = int(r["cover"][i])
            out.append(
                (format_card(int(r["attack"][i])), format_card(cover) if cover >= 0 else None)
            )
        return out

    @property
    def talon(self) -> list[str]:
        r = self._st[0]
        return [format_card(int(c)) for c in r["talon"][r["talon_top"] : r["talon_end"]]]

    @property
    def discard(self) -> list[str]:
        return format_mask(self._st[0]["discard"])

    @property
    def trump_suit(self) -> str:
        return SUIT_NAMES[int(self._st[0]["trump"])]

    @property
    def attacker(self) -> int | None:
        return None if self.over else int(self._st[0]["attacker"])

    @property
    def defender(self) -> int | None:
        return None if self.over else int(self._st[0]["defender"])

    @property
    def durak(self) -> int | None:
        d = int(self._st[0]["durak"])
        return d if self.over and d >= 0 else None

    @property
    def out_order(self) -> list[int]:
        return [int(p) for p in self._st[0]["out_order"][: self._st[0]["n_out"]]]

    @property
    def rewards(self) -> list[float]:
        out = np.zeros(self.rules.num_players, np.float64)
        core.rewards_at(self._st, 0, self._prm, out)
        return out.tolist()

    # ------------------------------------------------------------ records, notebooks

    def to_record(self, meta: dict | None = None) -> dict:
        """This game as a JSON-able record (rules, deal, every move); see ``records.py``."""
        return records.to_record(self, meta)

    @classmethod
    def from_record(cls, record: dict) -> Game:
        """Replay a record written by ``to_record``.

        Raises:
            ValueError: the record is malformed or does not replay (the message says where).
        """
        for game, seat, _move, _forced in iter_replay(record):
            if seat is None:
                return game
        raise AssertionError("iter_replay always ends with the final position")

    def _repr_html_(self) -> str:
        from .html import render_html

        return render_html(self)

    def __repr__(self) -> str:
        state = "over" if self.over else f"seat {self.to_act} to act"
        return f"Game({self.rules}, {state}, {len(self.history)} moves)"


def iter_replay(record: dict) -> Iterator[tuple]:
    """Step through a record (``records.py``) decision by decision.

    Yields ``(game, seat, move, forced)`` before each decision: ``game`` is the
    position where ``seat`` chooses ``move``; once the caller resumes the
    iterator, the move is applied, and ``forced`` (a list of ``(seat, move)``,
    filled in place) holds the forced moves the engine applied after it. Last
    comes ``(game, None, None, [])``: the position after every move of the
    record. The same ``Game`` object is updated in place throughout; the forced
    moves of the deal itself are ``game.history`` at the first item.

    Raises:
        ValueError: the record is malformed or does not replay, or its ``result``
            is not what the moves give (checked before the last item, the same
            checks as ``Game.from_record``); the message names the field or the
            move (by index) that is wrong.
    """
    rules, deal, moves = records.read_record(record)
    try:
        game = Game.from_deal(rules, **deal)
    except ValueError as e:
        raise ValueError(f"deal: {e}") from None
    records.check_forced(moves, 0, game.history)
    i = len(game.history)
    while i < len(moves):
        seat, move = moves[i]
        if game.over:
            raise ValueError(
                f"moves[{i}]: the game is already over, yet the record goes on "
                f"with seat {seat}: {move!r}"
            )
        if seat != game.to_act:
            raise ValueError(
                f"moves[{i}]: seat {seat} plays {move!r}, but seat {game.to_act} is to act"
            )
        forced: list[tuple[int, str]] = []
        yield game, seat, move, forced
        try:
            game.play(move)
        except IllegalMoveError as e:
            raise ValueError(f"moves[{i}]: {e}") from None
        records.check_forced(moves, i + 1, game.history)
        forced.extend(game.history[i + 1 :])
        i = len(game.history)
    records.check_result(record, game)
    yield game, None, None, []
