"""The PPO network, its masked categorical policy, checkpoints and ``PPOAgent``.

The policy is a masked categorical over the *legal* actions only. The dense 0/1
mask that the environment gives is turned into a padded list of legal action ids
(``legal_lists``); logits are gathered for those ids and the padding gets a large
negative logit (MicroRTS-Py's ``CategoricalMasked``, in sparse form). The legal
lists are the mask stored with the rollout and reused in the update.

Heads (``network.head``):

- ``factored`` (default): ``logit(beat a b) = u[a] + v[b] + w[a, b]`` with ``u``,
  ``v`` computed from the state and ``w`` a learned static pair bias, so the output
  layer has ``2 + 5 D`` units instead of ``2 + D + D*D + ...`` (1334 for 36 cards).
- ``dense``: one output unit per action id.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from numba import njit
from torch import nn

from durak_env import Rules
from durak_env.actions import K_BEAT, K_PASS, K_PLAY, K_SHOW, K_TAKE, K_TRANSFER, ActionLayout
from durak_env.atomic import atomic_write
from durak_env.cards import NUM_CARDS
from durak_env.observation import LAYOUT_VERSION, O_TALON, obs_offsets, observation_size, state_size
from durak_env.symmetry import RankPacking, SuitSymmetry

from .base import Agent
from .endgame import EndgameSolver
from .pimc import search_applies, searched_move
from .view import fast_decode

CHECKPOINT_FORMAT = 1
NEG = -1e9  # logit of an illegal (padding) entry
PLAY_SETTINGS = ("endgame_symmetries", "policy_symmetries")
"""``NetworkConfig`` fields that hold no weights: a trained checkpoint may change them
(``agents.finetune``, ``scripts/ship_checkpoint.py --set``)."""


def check_symmetries(name: str, n) -> None:
    """Raise ValueError unless ``n`` is a number of suit renamings: an int from 1 to 24."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 24:
        raise ValueError(f"{name} must be an int from 1 to 24, got {n!r}")


@dataclass
class NetworkConfig:
    """The policy/value network (an MLP trunk shared by both heads)."""

    hidden: list[int] = field(default_factory=lambda: [256, 256])
    """Widths of the hidden layers of the shared trunk."""
    activation: str = "relu"
    """``relu`` or ``tanh``."""
    head: str = "factored"
    """``factored`` (beat logits u[a] + v[b] + pair bias) or ``dense`` (one unit per action)."""
    critic: str = "shared"
    """``shared``: the value head reads the policy's trunk; ``global``: an asymmetric critic,
    its own MLP over the global state (every hand and the talon, ``VectorEnv.state``),
    used in training only: the policy never reads the state."""
    critic_hidden: list[int] = field(default_factory=lambda: [256, 256])
    """Widths of the global critic's hidden layers (``critic: global`` only)."""
    endgame_talon: int | None = None
    """An end-game expert: observations with at most this many cards in the talon are
    played by a second trunk and policy head of the same shape, which the ``endgame``
    stage starts as a copy of the main ones and fits to solved positions (until then the
    main head plays everywhere). None: one head for the whole game."""
    endgame_hidden: list[int] | None = None
    """Widths of the end-game expert's trunk. None: those of the main trunk, and the stage
    starts the expert as a copy of the main trunk and head; other widths start it from
    its own fresh weights (a wider expert fits solved positions better)."""
    endgame_symmetries: int = 1
    """Suit renamings (``durak_env.symmetry``, 1 to 24, the identity first) whose
    log-probabilities the end-game expert averages when it plays (not while it is being
    fitted, which shows each position under one random renaming). More average out more
    of the expert's fitting noise, at that many times its cost per end-game move."""
    endgame_pack_ranks: bool = False
    """The end-game expert reads each position with its dead ranks (every card discarded)
    moved below the live ones (``durak_env.symmetry.RankPacking``), so that positions
    that differ only in where those gaps lie are one position to it."""
    policy_symmetries: int = 1
    """Suit renamings (1 to 24, the identity first) whose log-probabilities the main head
    averages when it plays as an agent (``PPOAgent``, whose ``symmetries`` overrides it).
    Never in training: the rollouts and the PPO update see the main head as it is, so the
    update reproduces the log-probabilities the rollouts sampled with."""

    def validate(self) -> None:
        if not self.hidden or any(not isinstance(h, int) or h < 1 for h in self.hidden):
            raise ValueError(f"network.hidden must be a non-empty list of ints >= 1, "
                             f"got {self.hidden!r}")
        if self.activation not in ("relu", "tanh"):
            raise ValueError(f"network.activation must be 'relu' or 'tanh', "
                             f"got {self.activation!r}")
        if self.head not in ("factored", "dense"):
            raise ValueError(f"network.head must be 'factored' or 'dense', got {self.head!r}")
        if self.critic not in ("shared", "global"):
            raise ValueError(f"network.critic must be 'shared' or 'global', got {self.critic!r}")
        if not self.critic_hidden or any(not isinstance(h, int) or h < 1
                                         for h in self.critic_hidden):
            raise ValueError(f"network.critic_hidden must be a non-empty list of ints >= 1, "
                             f"got {self.critic_hidden!r}")
        if self.endgame_talon is not None and (isinstance(self.endgame_talon, bool) or
                                               not isinstance(self.endgame_talon, int)
                                               or self.endgame_talon < 0):
            raise ValueError(f"network.endgame_talon must be null or an int >= 0, "
                             f"got {self.endgame_talon!r}")
        if self.endgame_hidden is not None and (
                not isinstance(self.endgame_hidden, list) or not self.endgame_hidden
                or any(isinstance(h, bool) or not isinstance(h, int) or h < 1
                       for h in self.endgame_hidden)):
            raise ValueError(f"network.endgame_hidden must be null or a non-empty list of "
                             f"ints >= 1, got {self.endgame_hidden!r}")
        if self.endgame_hidden is not None and self.endgame_talon is None:
            raise ValueError("network.endgame_hidden shapes the end-game expert: set "
                             "network.endgame_talon too")
        check_symmetries("network.endgame_symmetries", self.endgame_symmetries)
        check_symmetries("network.policy_symmetries", self.policy_symmetries)
        if self.endgame_symmetries > 1 and self.endgame_talon is None:
            raise ValueError("network.endgame_symmetries averages the end-game expert: set "
                             "network.endgame_talon too")
        if not isinstance(self.endgame_pack_ranks, bool):
            raise ValueError(f"network.endgame_pack_ranks must be true or false, "
                             f"got {self.endgame_pack_ranks!r}")
        if self.endgame_pack_ranks and self.endgame_talon is None:
            raise ValueError("network.endgame_pack_ranks shapes the end-game expert's input: "
                             "set network.endgame_talon too")


# ---------------------------------------------------------------- masks as legal lists


@njit(cache=True)
def _fill_legal(mask, width, ids, counts):
    for b in range(mask.shape[0]):
        k = 0
        for a in range(mask.shape[1]):
            if mask[b, a]:
                ids[b, k] = a
                k += 1
        counts[b] = k
        for j in range(k, width):
            ids[b, j] = 0


def legal_lists(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense 0/1 mask ``[B, A]`` -> legal ids ``int64[B, W]`` (0-padded) and counts ``[B]``.

    ``W`` is the largest number of legal actions in the batch.
    """
    mask = np.ascontiguousarray(mask)
    counts = mask.sum(1, dtype=np.int64) if mask.dtype != np.bool_ else mask.sum(1)
    width = max(int(counts.max()) if len(counts) else 1, 1)
    ids = np.empty((mask.shape[0], width), np.int64)
    _fill_legal(mask.view(np.int8) if mask.dtype == np.bool_ else mask, width, ids, counts)
    return ids, counts


def legal_valid(counts: torch.Tensor, width: int) -> torch.Tensor:
    """Bool ``[B, W]``: True on real entries of the legal lists, False on padding."""
    return torch.arange(width, device=counts.device)[None, :] < counts[:, None]


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


def _factored_tables(lay: ActionLayout) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per action id: index of its unit, of its second unit (beat) and of its pair bias."""
    d, low = lay.deck_size, lay.low_card
    zero_unit, zero_pair = 2 + 5 * d, d * d
    i1 = np.zeros(lay.n, np.int64)
    i2 = np.full(lay.n, zero_unit, np.int64)
    ip = np.full(lay.n, zero_pair, np.int64)
    # Units: pass, take, then one block of d per kind (play, attack card of a beat, its
    # cover, transfer, show), indexed by card id - low.
    first_unit = {K_PLAY: 2, K_BEAT: 2 + d, K_TRANSFER: 2 + 3 * d, K_SHOW: 2 + 4 * d}
    for a in range(lay.n):
        kind, card, cover = lay.unpack(a)
        if kind == K_TAKE:
            i1[a] = 1
        elif kind != K_PASS:
            i1[a] = first_unit[kind] + card - low
        if kind == K_BEAT:
            i2[a] = 2 + 2 * d + cover - low
            ip[a] = (card - low) * d + cover - low
    return torch.from_numpy(i1), torch.from_numpy(i2), torch.from_numpy(ip)


def _mlp(width: int, hidden: list[int], act) -> tuple[nn.Sequential, int]:
    layers = []
    for h in hidden:
        layers += [layer_init(nn.Linear(width, h)), act()]
        width = h
    return nn.Sequential(*layers), width


class PPONet(nn.Module):
    """MLP trunk over the observation with a policy head over legal actions; the value
    head reads the same trunk (``critic: shared``) or its own MLP over the global state
    (``critic: global``, training only)."""

    def __init__(self, rules: Rules, cfg: NetworkConfig):
        super().__init__()
        cfg.validate()
        self.rules, self.cfg = rules, cfg
        self.layout = ActionLayout.of(rules)
        self.act = nn.ReLU if cfg.activation == "relu" else nn.Tanh  # the layers' class
        self.trunk, width = _mlp(observation_size(rules), cfg.hidden, self.act)
        self.global_critic = cfg.critic == "global"
        if self.global_critic:
            self.critic_trunk, cwidth = _mlp(state_size(rules), cfg.critic_hidden, self.act)
        else:
            cwidth = width
        d = rules.deck_size
        self.actor = self.new_actor(width)
        if cfg.head == "factored":
            self.pair_bias = nn.Parameter(torch.zeros(d * d))
            i1, i2, ip = _factored_tables(self.layout)
            self.register_buffer("i1", i1, persistent=False)
            self.register_buffer("i2", i2, persistent=False)
            self.register_buffer("ip", ip, persistent=False)
        self.critic = layer_init(nn.Linear(cwidth, 1), std=1.0)
        self.endgame = None
        if cfg.endgame_talon is not None:
            self.endgame = EndgameExpert(self, cfg.endgame_talon)

    def new_actor(self, width: int) -> nn.Linear:
        """A fresh policy head over a trunk of output ``width``."""
        units = 2 + 5 * self.rules.deck_size if self.cfg.head == "factored" else self.layout.n
        return layer_init(nn.Linear(width, units), std=0.01)

    def head_modules(self) -> dict[str, nn.Module | nn.Parameter]:
        """The main trunk and policy head, which the end-game expert copies."""
        heads = {"trunk": self.trunk, "actor": self.actor}
        if self.cfg.head == "factored":
            heads["pair_bias"] = self.pair_bias
        return heads

    def value(self, hidden: torch.Tensor, state: torch.Tensor | None) -> torch.Tensor | None:
        """Value ``[B]`` from the trunk's ``hidden`` or, with a global critic, ``state``
        (None without a state: players acting need no value)."""
        if self.global_critic:
            if state is None:
                return None
            return self.critic(self.critic_trunk(state)).squeeze(-1)
        return self.critic(hidden).squeeze(-1)

    def legal_logits(self, hidden: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor,
                     actor: nn.Linear | None = None,
                     pair_bias: torch.Tensor | None = None) -> torch.Tensor:
        """Logits ``[B, W]`` of the listed action ids from the main head (or the given
        ``actor`` and ``pair_bias``) over ``hidden``; padding gets ``NEG``."""
        out = (actor or self.actor)(hidden)
        if self.cfg.head == "factored":
            out = nn.functional.pad(out, (0, 1))
            pair = nn.functional.pad(self.pair_bias if pair_bias is None else pair_bias, (0, 1))
            logits = (out.gather(1, self.i1[ids]) + out.gather(1, self.i2[ids])
                      + pair[self.ip[ids]])
        else:
            logits = out.gather(1, ids)
        return torch.where(valid, logits, torch.full_like(logits, NEG))

    def policy_logits(self, x: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor,
                      hidden: torch.Tensor | None = None,
                      renamed: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        """Logits ``[B, W]`` of the listed action ids for observations ``x``: the main
        head's, and the end-game expert's where it plays (``hidden``: the main trunk's
        output of ``x``, if already computed). With ``renamed`` (``renamings``), the main
        head plays the mean of its log-probabilities under those suit renamings (at play
        time: ``PPOAgent``'s ``symmetries``)."""
        if renamed is None:
            logits = self.legal_logits(self.trunk(x) if hidden is None else hidden, ids, valid)
        else:
            logits = renamed_mean(lambda xs, ids_s, valid_s: self.legal_logits(
                self.trunk(xs), ids_s, valid_s), x, ids, valid, *renamed)
        if self.endgame is not None and self.endgame.active:
            rows = torch.nonzero(self.endgame.plays(x)).squeeze(1)
            if len(rows):
                logits = logits.index_put((rows,), self.endgame.logits(x[rows], ids[rows],
                                                                       valid[rows]))
        return logits

    @property
    def expert_frozen(self) -> bool:
        """Whether an end-game expert plays and no weight of it trains (fine-tuning)."""
        eg = self.endgame
        return (eg is not None and eg.active
                and not any(p.requires_grad for p in eg.parameters()))

    def frozen_rows(self, x: torch.Tensor) -> torch.Tensor | None:
        """Bool ``[B]``: the rows of observations ``x`` that a frozen end-game expert plays
        (``expert_frozen``), whose moves no trainable weight chooses; None without a
        frozen expert."""
        return self.endgame.plays(x) if self.expert_frozen else None

    def get_action_and_value(self, x: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor,
                             action: torch.Tensor | None = None, greedy: bool = False,
                             state: torch.Tensor | None = None, with_logp_all: bool = False,
                             greedy_expert: bool = False):
        """Masked categorical over the legal lists.

        Args:
            x: observations ``[B, obs_size]``.
            ids, valid: the legal lists (``legal_lists``) and their padding mask.
            action: positions in the legal lists to score; sampled when None.
            greedy: with ``action=None``, take the most likely action instead.
            state: global states ``[B, state_size]`` for a global critic (value only; the
                value is None without it).
            with_logp_all: also return the log-probabilities of every listed action.
            greedy_expert: when sampling, the rows the end-game expert plays take its most
                likely action, as they do at play time (``endgame.finetune_greedy``).

        Returns:
            (position in the legal list, log-probability, entropy, value[, logp_all])
        """
        hidden = self.trunk(x)
        logits = self.policy_logits(x, ids, valid, hidden)
        logp_all = torch.log_softmax(logits, -1)
        if action is None:
            if greedy:
                action = logits.argmax(-1)
            else:  # Gumbel-max sampling; padding keeps its huge negative logit
                u = torch.rand_like(logits).clamp_(1e-20, 1.0)
                action = (logits - torch.log(-torch.log(u))).argmax(-1)
                if greedy_expert and self.endgame is not None and self.endgame.active:
                    action = torch.where(self.endgame.plays(x), logits.argmax(-1), action)
        logp = logp_all.gather(1, action[:, None]).squeeze(1)
        p = logp_all.exp()
        entropy = -(p * torch.where(valid, logp_all, torch.zeros_like(logp_all))).sum(-1)
        value = self.value(hidden, state)
        if with_logp_all:
            return action, logp, entropy, value, logp_all
        return action, logp, entropy, value


def set_cross_entropy(net: PPONet, obs, ids, counts, good) -> torch.Tensor:
    """Minus the log of the policy's probability of the labelled moves (``good``: a bool
    mask over the legal lists; with one move per row, the masked cross-entropy)."""
    valid = legal_valid(counts, ids.shape[1])
    logits = net.policy_logits(obs, ids, valid)
    on_good = logits.masked_fill(~(good & valid), NEG)
    return (torch.logsumexp(logits, 1) - torch.logsumexp(on_good, 1)).mean()


class EndgameExpert(nn.Module):
    """A second trunk and policy head for the end game (``network.endgame_talon``).

    It plays the observations with at most ``talon`` cards in the talon once ``active``
    (a buffer, saved with the weights); ``start`` makes it a copy of the main trunk and
    head and switches it on, so that the policy is unchanged until the expert is fitted.
    The gate reads the observation only, so the expert is part of the policy: no search.
    """

    def __init__(self, net: PPONet, talon: int):
        super().__init__()
        self.talon = talon
        self._net = [net]  # not a submodule: the main net owns this module
        self._talon_index = int(obs_offsets(net.rules)[O_TALON])
        self._talon_scale = float(net.rules.hand_size)
        hidden = net.cfg.endgame_hidden
        self.copies_main = hidden is None or hidden == net.cfg.hidden
        if self.copies_main:
            self.trunk = copy.deepcopy(net.trunk)
            self.actor = copy.deepcopy(net.actor)
        else:
            self.trunk, width = _mlp(observation_size(net.rules), hidden, net.act)
            self.actor = net.new_actor(width)
        self.pair_bias = (nn.Parameter(net.pair_bias.detach().clone())
                          if net.cfg.head == "factored" else None)
        self.register_buffer("_active", torch.zeros((), dtype=torch.bool))
        self.set_symmetries(net.cfg.endgame_symmetries)
        self._pack = RankPacking(net.rules) if net.cfg.endgame_pack_ranks else None

    @property
    def active(self) -> bool:
        return bool(self._active)

    def set_symmetries(self, n: int) -> None:
        """Average over ``n`` suit renamings from now on (``network.endgame_symmetries`` at
        first; fine-tuning may play fewer, ``endgame.finetune_symmetries``). They derive from
        the rules, so they are not saved with the weights."""
        check_symmetries("symmetries", n)
        sym = renamings(self._net[0].rules, n) if n > 1 else (None, None)
        self.register_buffer("_sym_obs", sym[0], persistent=False)
        self.register_buffer("_sym_actions", sym[1], persistent=False)
        self.symmetries = n

    def start(self) -> None:
        """Copy the main trunk and head into the expert (of another shape, keep its fresh
        weights) and let it play."""
        net = self._net[0]
        if self.copies_main:
            self.trunk.load_state_dict(net.trunk.state_dict())
            self.actor.load_state_dict(net.actor.state_dict())
        if self.pair_bias is not None:
            with torch.no_grad():
                self.pair_bias.copy_(net.pair_bias)
        self._active.fill_(True)

    def talon_sizes(self, x: torch.Tensor | np.ndarray) -> torch.Tensor | np.ndarray:
        """``[B]``: the talon size of each row of observations ``x`` (as read from the
        observation, a float within rounding of the integer)."""
        return x[:, self._talon_index] * self._talon_scale

    def plays(self, x: torch.Tensor | np.ndarray,
              talon: int | None = None) -> torch.Tensor | np.ndarray:
        """Bool ``[B]``: the rows of observations ``x`` (a tensor or an array) that the
        expert plays: at most ``talon`` cards in the talon (default: the expert's own
        bound; a smaller one picks a part of them)."""
        return self.talon_sizes(x) < (self.talon if talon is None else talon) + 0.5

    def logits(self, x: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, W]`` of the listed action ids; with ``network.endgame_symmetries``
        > 1, the mean of the log-probabilities under that many suit renamings of the
        observations and the ids, unless the expert is being fitted (in training mode
        with trainable weights; frozen, as in fine-tuning, it plays as it will play).
        With ``network.endgame_pack_ranks`` it reads the packed positions."""
        net = self._net[0]
        if self._pack is not None:
            packed = self._pack.pack(x.detach().cpu().numpy(), ids.detach().cpu().numpy())
            x, ids = (torch.from_numpy(a).to(t.device) for a, t in zip(packed, (x, ids),
                                                                         strict=True))
        if self._sym_obs is None or (  # plain, or being fitted
                self.training and any(p.requires_grad for p in self.parameters())):
            return net.legal_logits(self.trunk(x), ids, valid, self.actor, self.pair_bias)
        return renamed_mean(lambda xs, ids_s, valid_s: net.legal_logits(
            self.trunk(xs), ids_s, valid_s, self.actor, self.pair_bias),
            x, ids, valid, self._sym_obs, self._sym_actions)


def renamings(rules: Rules, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The observation gather indices ``[n, obs]`` and action maps ``[n, actions]`` of
    ``n`` suit renamings (``durak_env.symmetry``): the identity first, spread over the 24."""
    sym = SuitSymmetry(rules)
    k = np.arange(n) * len(sym) // n
    return torch.from_numpy(sym.obs_index[k]), torch.from_numpy(sym.action_map[k])


def renamed_mean(head, x: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor,
                 sym_obs: torch.Tensor, sym_actions: torch.Tensor) -> torch.Tensor:
    """The mean of the log-probabilities ``head(x, ids, valid)`` gives under each suit
    renaming of the observations and the listed ids (``renamings``); padding gets ``NEG``.

    ``head`` maps observations ``[B, obs]``, listed ids ``[B, W]`` and their padding mask
    to logits ``[B, W]``; all renamings go through it as one batch."""
    b, n = len(x), len(sym_obs)
    xs = torch.gather(x.unsqueeze(0).expand(n, -1, -1), 2,
                      sym_obs.unsqueeze(1).expand(-1, b, -1)).reshape(n * b, -1)
    ids_s = torch.gather(sym_actions, 1, ids.reshape(1, -1).expand(n, -1))
    logits = head(xs, ids_s.reshape(n * b, -1), valid.repeat(n, 1))
    logp = torch.log_softmax(logits, 1).reshape(n, b, -1).mean(0)
    return torch.where(valid, logp, torch.full_like(logp, NEG))


# ---------------------------------------------------------------- checkpoints


def save_checkpoint(path: str | Path, net: PPONet, optimizer=None, config: dict | None = None,
                    extra: dict | None = None) -> None:
    """Write weights, optimizer, config, rules and the observation layout version."""
    data = {
        "format": CHECKPOINT_FORMAT,
        "model": net.state_dict(),
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "network": dataclasses.asdict(net.cfg),
        "rules": net.rules.to_dict(),
        "layout_version": LAYOUT_VERSION,
        "obs_size": observation_size(net.rules),
        "num_actions": net.layout.n,
        "config": config or {},
        **(extra or {}),
    }
    with atomic_write(path, binary=True) as f:  # a kill mid-save leaves the last checkpoint
        torch.save(data, f)


def load_checkpoint(path: str | Path, rules: Rules | None = None) -> tuple[PPONet, dict]:
    """Rebuild the network of a checkpoint.

    Raises:
        FileNotFoundError: no such file.
        ValueError: not a checkpoint of this trainer, or made for other rules or
            another observation layout than ``rules`` / the installed ``durak_env``.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {str(path)!r} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as e:  # noqa: BLE001 - any unpickling failure means "not a checkpoint"
        raise ValueError(f"{path} is not a readable PPO checkpoint: {e}") from None
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not a PPO checkpoint (format {CHECKPOINT_FORMAT})")
    if data["layout_version"] != LAYOUT_VERSION:
        raise ValueError(
            f"{path} was trained on observation layout version {data['layout_version']}, "
            f"but durak_env now has LAYOUT_VERSION={LAYOUT_VERSION}; retrain the agent")
    ck_rules = Rules.from_dict(data["rules"])
    if rules is not None and ck_rules != rules:
        diff = {k: (v, getattr(rules, k)) for k, v in ck_rules.to_dict().items()
                if getattr(rules, k) != v}
        raise ValueError(f"{path} was trained for other rules; differing fields "
                         f"(checkpoint, requested): {diff}")
    net = PPONet(ck_rules, NetworkConfig(**data["network"]))
    net.load_state_dict(data["model"])
    net.eval()
    return net, data


class PPOAgent(Agent):
    """A trained PPO policy behind the agent interface ``act(obs, mask, rng) -> int``.

    Args:
        rules: the rules to play; must match the checkpoint's.
        path: checkpoint file (``.pt``) written by ``train.py``.
        greedy: play the most likely action (True) or sample from the policy.
        endgame_nodes: with two players, once every card is placed (talon empty or only
            the face-up trump left), play the exact end-game solver's move
            (``agents.endgame``, at most this many nodes per move; ties and unsolved
            positions go to the policy). 0 (default): the policy alone.
        pimc_talon, pimc_samples, pimc_nodes: with two players and 1 to ``pimc_talon``
            cards in the talon, rate every move by ``pimc_values`` (exact search of
            ``pimc_samples`` random deals, ``pimc_nodes`` nodes per move) and play the
            policy's favourite among the best (needs ``endgame_nodes``; 0: off). Both
            searches are ``agents.pimc.searched_move``, as ``expert`` plays them.
        symmetries: the main head plays the mean of its log-probabilities under this
            many suit renamings of the position (1 to 24, the identity first; 1: as
            trained). No search: the same network, shown each renaming at once, as the
            end-game expert's ``network.endgame_symmetries`` does for the expert. None
            (default): the checkpoint's ``network.policy_symmetries``.
    """

    name = "ppo"

    def __init__(self, rules: Rules | None = None, *, path: str = "", greedy: bool = True,
                 endgame_nodes: int = 0, pimc_talon: int = 0, pimc_samples: int = 16,
                 pimc_nodes: int = 1000, symmetries: int | None = None):
        if not path:
            raise ValueError("PPOAgent needs path=CHECKPOINT (spec 'ppo:PATH')")
        if rules is not None and not isinstance(rules, Rules):
            raise ValueError(f"rules must be a durak_env.Rules, got {type(rules).__name__}")
        for key, value in (("endgame_nodes", endgame_nodes), ("pimc_talon", pimc_talon),
                           ("pimc_samples", pimc_samples), ("pimc_nodes", pimc_nodes)):
            if not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{key} must be an integer >= 0, got {value!r}")
        if pimc_talon > 0 and endgame_nodes == 0:
            raise ValueError("pimc_talon needs the end-game solver: set endgame_nodes > 0")
        if symmetries is not None and (isinstance(symmetries, bool) or not isinstance(
                symmetries, (int, np.integer)) or not 1 <= symmetries <= 24):
            raise ValueError(f"symmetries must be an integer from 1 to 24, got {symmetries!r}")
        self.net, self.checkpoint = load_checkpoint(path, rules)
        self.symmetries = int(self.net.cfg.policy_symmetries if symmetries is None
                              else symmetries)
        self._renamed = (renamings(self.net.rules, self.symmetries) if self.symmetries > 1
                         else None)
        self.rules = self.net.rules
        self.greedy = bool(greedy)
        self.path = str(path)
        self.pimc_talon, self.pimc_samples = int(pimc_talon), int(pimc_samples)
        self.pimc_nodes = int(pimc_nodes)
        self._solver = None
        if endgame_nodes > 0 and self.rules.num_players == 2:
            self._solver = EndgameSolver(self.rules, int(endgame_nodes), last_card=True,
                                         cheap_first=True)
            self._cards = np.zeros(NUM_CARDS, np.int64)

    @classmethod
    def load(cls, path: str | Path, rules: Rules | None = None, greedy: bool = True) -> PPOAgent:
        return cls(rules, path=str(path), greedy=greedy)

    def reset(self) -> None:
        """The policy is memoryless; the end-game solver forgets its table."""
        if self._solver is not None:
            self._solver.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            rng: np.random.Generator | None = None) -> int:
        """A legal action id for one observation (sampling uses ``rng``)."""
        obs, mask = np.asarray(observation)[None], np.asarray(action_mask)[None]
        if self._solver is not None and np.count_nonzero(mask) > 1:
            v = fast_decode(observation, self.rules)
            if search_applies(self._solver, v, self.pimc_talon):
                rng = rng if rng is not None else np.random.default_rng()
                order = [int(a) for a in self.preference(obs, mask)]
                return searched_move(self._solver, v, order, self.pimc_samples,
                                     self.pimc_nodes, rng, self._cards)
        return int(self.act_batch(obs, mask, rng)[0])

    def preference(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The legal action ids of one observation, most likely under the policy first."""
        ids, counts, logits = self._legal_logits(obs, mask)
        return ids[0][np.argsort(-logits[0, :counts[0]], kind="stable")]

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator | None = None) -> np.ndarray:
        """Action ids for a batch of observations and dense masks (the policy alone)."""
        ids, _, logits = self._legal_logits(obs, mask)
        if self.greedy:
            pos = logits.argmax(1)
        else:
            rng = rng if rng is not None else np.random.default_rng()
            g = rng.gumbel(size=logits.shape).astype(np.float32)
            pos = (logits + g).argmax(1)
        return ids[np.arange(len(ids)), pos]

    @torch.inference_mode()
    def _legal_logits(self, obs: np.ndarray,
                      mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Padded legal ids, their counts and logits (padding: ``NEG``) of a batch."""
        ids, counts = legal_lists(mask)
        if (counts == 0).any():
            raise ValueError("an action mask has no legal action")
        valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
        x = torch.as_tensor(np.ascontiguousarray(obs), dtype=torch.float32)
        return ids, counts, self.net.policy_logits(x, torch.from_numpy(ids), valid,
                                                   renamed=self._renamed).numpy()

    def __repr__(self) -> str:
        search = "" if self._solver is None else (
            f", endgame_nodes={self._solver.max_nodes}, pimc_talon={self.pimc_talon}")
        sym = f", symmetries={self.symmetries}" if self.symmetries > 1 else ""
        return f"PPOAgent({self.path!r}, greedy={self.greedy}{search}{sym})"
