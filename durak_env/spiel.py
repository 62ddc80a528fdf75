"""OpenSpiel: Durak as a pyspiel Python game, ``python_durak``, for any ``Rules``.

```python
import pyspiel
import durak_env.spiel  # registers python_durak

game = pyspiel.load_game("python_durak(num_players=3,variant=perevodnoy)")
state = game.new_initial_state()
while not state.is_terminal():
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(np.random.choice(outcomes, p=probs)))
    else:
        state.apply_action(state.legal_actions()[0])
print(state.returns())
```

The parameters are the ``Rules`` fields (``first_round_max_attack=0`` means none);
``durak_env.spiel.load_game(rules)`` builds the game string for you. Every rule comes
from the numba core through ``Game``: legal actions are the engine's, sorted ascending,
and forced moves (exactly one legal move) are applied by the engine, not asked.

- **Chance**: the deal is ``deck_size`` explicit chance nodes, each drawing the next card
  of the shuffled deck uniformly from the cards left (outcome ``i`` is the card with
  index ``i`` in the deck, the low card first): the first ``hand_size`` go to seat 0,
  the next to seat 1, ..., the rest form the talon, top first; the last is the face-up
  trump card (as ``core.deal_random`` deals).
- **Actions**: the ids of ``durak_env.ActionLayout``, ``num_distinct_actions = n``.
- **Returns**: the rewards of docs/rules.md section 6 (zero-sum), at the end only.
- **Observation** (imperfect recall): the tensor is the environments' observation of
  the seat (``durak_env.observation_layout``), the string the position as that seat may
  know it (``render_text``).
- **Information state** (perfect recall): the seat's own cards as dealt, the trump, the
  face-up card and the first attacker (public: the lowest trump opens), then every
  move of the game in order (all moves are public) and, where they happen, the cards the
  seat draws. The tensor holds the same as one-hot tokens (``seat``, ``kind`` with a 7th
  kind for a draw, ``card``, ``cover``) in a fixed number of slots, ``MAX_TOKENS``.
- **Length**: OpenSpiel needs a finite ``max_game_length``. Games of Durak can cycle, so
  a game that reaches ``max_tokens(rules)`` recorded events (``40 * deck_size``, far
  beyond random play, whose longest three-player games have about 800) ends as a draw.
- **resample_from_infostate**: a uniformly random deal and draw order consistent with
  what the seat knows: its own cards stay, every card another seat played was in that
  seat's hand before it played it, the face-up card stays at the bottom, the same seat
  opens the game; the moves are
  then replayed by the engine (a sample that does not replay is drawn again).
- **Serialization**: OpenSpiel's default (the action history), replayed on load.
"""

from __future__ import annotations

import dataclasses

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError('durak_env.spiel needs OpenSpiel: pip install "durak-rl[openspiel]"') from e

from .actions import K_BEAT, K_PASS, K_SHOW, K_TAKE, K_TRANSFER, ActionLayout
from .cards import deck_low_card, format_card, suit_of
from .game import Game
from .observation import observation_size
from .render import render_state
from .rules import Rules

SHORT_NAME = "python_durak"
_RULE_FIELDS = [f.name for f in dataclasses.fields(Rules)]
DEFAULTS = {f.name: (0 if f.default is None else f.default) for f in dataclasses.fields(Rules)}
K_DRAW = 6  # a token kind beyond the action kinds: a card the seat drew
NUM_KINDS = 7
_PUBLIC = -1  # a token every seat sees


def max_tokens(rules: Rules) -> int:
    """Events (moves and own draws) after which a game ends as a draw: OpenSpiel's bound."""
    return 40 * rules.deck_size


def rules_from_params(params: dict) -> Rules:
    """``Rules`` from game parameters (``first_round_max_attack=0`` is None)."""
    kw = {k: params[k] for k in _RULE_FIELDS if k in params}
    if kw.get("first_round_max_attack") == 0:
        kw["first_round_max_attack"] = None
    return Rules(**kw)


def game_string(rules: Rules) -> str:
    """The ``pyspiel.load_game`` string of ``rules`` (only the fields that differ)."""
    d = dataclasses.asdict(rules)
    if d["first_round_max_attack"] is None:
        d["first_round_max_attack"] = 0
    parts = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in d.items()
             if v != DEFAULTS[k]]
    return f"{SHORT_NAME}({','.join(parts)})" if parts else SHORT_NAME


def load_game(rules: Rules | None = None, **kwargs) -> pyspiel.Game:
    """``pyspiel.load_game`` of Durak under ``rules`` (or the Rules fields as keywords)."""
    return pyspiel.load_game(game_string(rules or Rules(**kwargs)))


_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Durak (durak_env, numba core)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class DurakGame(pyspiel.Game):
    """Durak under the ``Rules`` given by the game parameters."""

    def __init__(self, params=None):
        self.rules = rules_from_params({**DEFAULTS, **(params or {})})
        self.layout = ActionLayout.of(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.layout.n, max_chance_outcomes=self.rules.deck_size,
            num_players=self.rules.num_players, min_utility=-1.0, max_utility=1.0,
            utility_sum=0.0, max_game_length=max_tokens(self.rules))
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self):
        return DurakState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if iig_obs_type is not None and (
                iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                or not iig_obs_type.public_info):
            raise ValueError("python_durak observes for one seat (private SINGLE_PLAYER, "
                             "public info) only")
        return InfoStateObserver(self.rules) if recall else PositionObserver(self.rules)


class DurakState(pyspiel.State):
    """A deal in progress, then a ``Game`` driven by action ids; see the module docs."""

    def __init__(self, game: DurakGame):
        super().__init__(game)
        self.rules, self.layout = game.rules, game.layout
        self.low = deck_low_card(self.rules.deck_size)
        self.deck: list[int] = []  # card ids in the order dealt
        self.game: Game | None = None
        self.tokens: list[tuple] = []  # (seen by: seat or _PUBLIC, seat, kind, card, cover)
        self.draws: list[tuple[int, int, int]] = []  # (talon index, seat, move index)
        self.capped = False
        self.root: Root | None = None  # set for a state rooted at a position

    # ------------------------------------------------------------ OpenSpiel API

    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self.game is None:
            return pyspiel.PlayerId.CHANCE
        return self.game.to_act

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(int(a) for a in self.game.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(range(self.rules.deck_size)) - {c - self.low for c in self.deck})
        return [(i, 1.0 / len(left)) for i in left]

    def _apply_action(self, action: int) -> None:
        if self.game is None:
            self.deck.append(self.low + int(action))
            if len(self.deck) == self.rules.deck_size:
                self._start()
            return
        g = self.game
        moves, top = len(g.history), int(g.state[0]["talon_top"])
        g.step(int(action))
        self._record(moves, top)
        if not g.over and len(self.tokens) >= max_tokens(self.rules):
            self.capped = True

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {format_card(self.low + int(action))}"
        return self.layout.decode(int(action))

    def is_terminal(self) -> bool:
        return self.game is not None and (self.game.over or self.capped)

    def returns(self) -> list[float]:
        if self.game is None or not self.game.over:
            return [0.0] * self.rules.num_players
        return [float(r) for r in self.game.rewards]

    def __str__(self) -> str:
        if self.game is None:
            return f"dealing: {len(self.deck)} of {self.rules.deck_size} cards dealt"
        return render_state(self.game.state, 0, self.rules) + ("\n(capped)" if self.capped else "")

    # ------------------------------------------------------------ the deal and the record

    def _start(self) -> None:
        n, h = self.rules.num_players, self.rules.hand_size
        hands = [[format_card(c) for c in self.deck[p * h:(p + 1) * h]] for p in range(n)]
        talon = [format_card(c) for c in self.deck[n * h:]]
        trump = None if talon else "SCDH"[suit_of(self.deck[-1])]
        self.game = Game.from_deal(self.rules, hands=hands, talon=talon, trump=trump)
        self._record(0, 0)

    def _record(self, first_move: int, talon_top: int) -> None:
        """Tokens of the moves since ``first_move`` and of the cards drawn meanwhile."""
        g = self.game
        for seat, move in g.history[first_move:]:
            kind, card, cover = self.layout.unpack(self.layout.encode(move))
            self.tokens.append((_PUBLIC, seat, kind, card, cover))
        top = int(g.state[0]["talon_top"])
        talon = g.state[0]["talon"]
        hands = g.state[0]["hands"]
        for j in range(talon_top, top):
            c = int(talon[j])
            holders = [p for p in range(self.rules.num_players) if int(hands[p]) >> c & 1]
            seat = holders[0] if holders else self._first_player_of(c, first_move)
            seen = _PUBLIC if c == self.face_up() else seat
            self.tokens.append((seen, seat, K_DRAW, c, -1))
            self.draws.append((j, seat, first_move))

    def _first_player_of(self, card: int, since: int) -> int:
        for seat, move in self.game.history[since:]:
            _, c, cover = self.layout.unpack(self.layout.encode(move))
            if card in (c, cover):
                return seat
        raise AssertionError(f"drawn card {format_card(card)} is nowhere")  # pragma: no cover

    def first_attacker(self) -> int:
        """The seat that opened the game (public: the rule of docs/rules.md section 2)."""
        return int(self.game.deal_record["first_attacker"])

    def face_up(self) -> int:
        """The face-up trump card at the bottom of the talon, -1 if the talon was empty."""
        if self.root is not None:
            return self.root.face_up
        n, h = self.rules.num_players, self.rules.hand_size
        return self.deck[-1] if len(self.deck) > n * h else -1

    # ------------------------------------------------------------ what a seat knows

    def own_deal(self, player: int) -> list[int]:
        h = self.rules.hand_size
        return self.deck[player * h:(player + 1) * h]

    def visible_tokens(self, player: int) -> list[tuple]:
        return [t for t in self.tokens if t[0] in (_PUBLIC, player)]

    # ------------------------------------------------------------ resampling

    def resample_from_infostate(self, player_id: int, probability_sampler):
        """A state ``player_id`` cannot tell from this one (module docs), drawn uniformly."""
        from .spiel_resample import resample

        seed = int(probability_sampler() * 2**62)
        rng = np.random.default_rng(seed)
        if self.root is not None:
            return self.root.resample(self, int(player_id), rng)
        return resample(self, int(player_id), rng)


class Root:
    """What a state rooted at a position knows of its root (``position_state``)."""

    def __init__(self, sample, player: int, views: list[str], face_up: int):
        self.sample, self.player, self.views, self.face_up = sample, player, views, face_up

    def resample(self, state: DurakState, player: int, rng) -> DurakState:
        if player != self.player or state.tokens:
            raise NotImplementedError(
                "a state rooted at a position resamples only at the root, for its player")
        return position_state(state.get_game(), self.sample, rng)


def position_state(game: DurakGame, sample, rng: np.random.Generator) -> DurakState:
    """A state that starts at a position instead of a deal, for searches from one seat's view.

    ``sample(rng)`` returns a full ``core.STATE_DTYPE`` record that the player to act
    cannot tell from the real position (a determinization of its observation); the
    state's ``resample_from_infostate`` at the root draws another one. Information
    states are that player's observation at the root (imperfect recall before it,
    perfect recall after it), as the project's own ``ismcts`` sees the game.
    """
    record = sample(rng)
    state = DurakState(game)
    state.game = Game.from_state(game.rules, record)
    n = game.rules.num_players
    views = [state.game.observe(p).tobytes().hex() for p in range(n)]
    r = state.game.state[0]
    face_up = int(r["trump_card"]) if r["talon_end"] > r["talon_top"] else -1
    state.root = Root(sample, state.game.to_act, views, face_up)
    return state


def _token_text(t) -> str:
    _seen, seat, kind, card, cover = t
    if kind == K_DRAW:
        return f"s{seat} draws {format_card(card)}"
    if kind == K_PASS:
        return f"s{seat} pass"
    if kind == K_TAKE:
        return f"s{seat} take"
    if kind == K_BEAT:
        return f"s{seat} beat {format_card(card)} {format_card(cover)}"
    verb = "show" if kind == K_SHOW else ("transfer" if kind == K_TRANSFER else "play")
    return f"s{seat} {verb} {format_card(card)}"


def info_state_string(state: DurakState, player: int) -> str:
    """Seat ``player``'s perfect-recall information state as text."""
    if state.root is not None:
        return "\n".join([f"p{player} root {state.root.views[player]}"]
                         + [_token_text(t) for t in state.visible_tokens(player)])
    own = " ".join(format_card(c) for c in state.own_deal(player))
    if state.game is None:
        return f"p{player} dealt [{own}] {len(state.deck)}/{state.rules.deck_size}"
    face_up = state.face_up()
    head = (f"p{player} trump {'SCDH'[suit_of(state.deck[-1])]} face-up "
            f"{format_card(face_up) if face_up >= 0 else '-'} hand [{own}] "
            f"first attacker s{state.first_attacker()}")
    return "\n".join([head] + [_token_text(t) for t in state.visible_tokens(player)])


class PositionObserver:
    """Imperfect recall: the environments' observation vector and the seat's view as text."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.tensor = np.zeros(observation_size(rules), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: DurakState, player: int) -> None:
        if state.game is None:
            self.tensor.fill(0)
            for c in state.own_deal(player):  # the piece "hand" comes first
                self.tensor[c - state.low] = 1.0
        else:
            self.tensor[:] = state.game.observe(player)

    def string_from(self, state: DurakState, player: int) -> str:
        if state.game is None:
            return info_state_string(state, player)
        return render_state(state.game.state, 0, self.rules, player)


class InfoStateObserver:
    """Perfect recall: ``info_state_string``, and the same as one-hot tokens."""

    def __init__(self, rules: Rules):
        n, d = rules.num_players, rules.deck_size
        self.rules, self.low = rules, deck_low_card(d)
        pieces = [("player", (n,)), ("dealt", (d,)), ("first_attacker", (n,)),
                  ("trump_suit", (4,)), ("face_up", (d,)), ("seat", (max_tokens(rules), n)),
                  ("kind", (max_tokens(rules), NUM_KINDS)), ("card", (max_tokens(rules), d)),
                  ("cover", (max_tokens(rules), d))]
        self.tensor = np.zeros(sum(int(np.prod(s)) for _, s in pieces), np.float32)
        self.dict, i = {}, 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[i:i + size].reshape(shape)
            i += size

    def set_from(self, state: DurakState, player: int) -> None:
        self.tensor.fill(0)
        v, low = self.dict, self.low
        v["player"][player] = 1
        if state.root is not None:  # rooted at a position: the moves since the root
            self._tokens(state, player)
            return
        for c in state.own_deal(player):
            v["dealt"][c - low] = 1
        if state.game is None:
            return
        v["first_attacker"][state.first_attacker()] = 1
        v["trump_suit"][suit_of(state.deck[-1])] = 1
        if state.face_up() >= 0:
            v["face_up"][state.face_up() - low] = 1
        self._tokens(state, player)

    def _tokens(self, state: DurakState, player: int) -> None:
        v, low = self.dict, self.low
        for i, (_seen, seat, kind, card, cover) in enumerate(state.visible_tokens(player)):
            v["seat"][i, seat], v["kind"][i, kind] = 1, 1
            if card >= 0:
                v["card"][i, card - low] = 1
            if cover >= 0:
                v["cover"][i, cover - low] = 1

    def string_from(self, state: DurakState, player: int) -> str:
        return info_state_string(state, player)


pyspiel.register_game(_GAME_TYPE, DurakGame)
