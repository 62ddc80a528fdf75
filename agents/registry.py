"""Agents named by strings: ``name`` or ``name:key=value,key=value`` (``ppo:PATH``).

Classes are registered by import path, so ``ismcts`` and ``ppo`` resolve only
when asked for and the registry works before their modules exist. A class is
built as ``cls(rules, **params)``; its keyword-only ``__init__`` parameters are
the spec's valid parameters, each value parsed as the type of its default.
"""

from __future__ import annotations

import importlib
import inspect
import math

from durak_env import Rules

from .base import Agent

REGISTRY: dict[str, str] = {
    "random": "agents.base:RandomAgent",
    "greedy": "agents.heuristics:GreedyAgent",
    "card_counting": "agents.heuristics:CardCountingAgent",
    "pair_holding": "agents.heuristics:PairHoldingAgent",
    "trump_saving": "agents.heuristics:TrumpSavingAgent",
    "expert": "agents.heuristics:ExpertAgent",
    "expert_rules": "agents.heuristics:ExpertRulesAgent",
    "ismcts": "agents.ismcts:ISMCTSAgent",
    # needs the openspiel extra (pip install -e ".[openspiel]")
    "openspiel_ismcts": "agents.openspiel_ismcts:OpenSpielISMCTSAgent",
    "ppo": "agents.ppo:PPOAgent",
}
# Agents whose spec after the colon is one positional value, e.g. ``ppo:runs/x/ckpt.pt``.
POSITIONAL = {"ppo": "path"}

AGENT_NAMES = tuple(REGISTRY)


def _load(name: str) -> type[Agent]:
    module, cls = REGISTRY[name].split(":")
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"agent {name!r} is registered as {REGISTRY[name]} but "
                         f"cannot be loaded: {e}") from e


def _convert(text: str, default, annotation=None):
    """Parse a spec value as the type of the parameter's default (or its annotation);
    ``none``/``null`` is None wherever the parameter admits None."""
    if text.lower() in ("none", "null") and (default is None or "None" in str(annotation)):
        return None
    if default is None:
        hint = str(annotation)
        for name, typ in (("float", float), ("int", int), ("bool", bool)):
            if name in hint:
                return _convert(text, typ(0))
        return text
    if isinstance(default, bool):
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"expected a boolean, got {text!r}")
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"expected a finite number, got {text!r}")
        return value
    return text


def _reason(e: Exception) -> str:
    if isinstance(e, OSError) and e.strerror and e.filename:
        return f"{e.filename}: {e.strerror}"
    return str(e)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"expert:w_pairs=1.5,w_trump=2"`` into the name and raw parameters."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    if name not in REGISTRY:
        raise ValueError(f"unknown agent {name!r}; valid agents: {', '.join(AGENT_NAMES)}")
    params: dict[str, str] = {}
    if name in POSITIONAL and rest and "=" not in rest.split(",")[0]:
        params[POSITIONAL[name]] = rest
        return name, params
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"agent parameter {item!r} in {spec!r} must be key=value")
        params[key.strip()] = value.strip()
    return name, params


def agent_params(cls: type[Agent]) -> dict[str, inspect.Parameter]:
    """The named (keyword-only) parameters of an agent class."""
    sig = inspect.signature(cls.__init__)
    return {k: p for k, p in sig.parameters.items()
            if k not in ("self", "rules") and p.kind == p.KEYWORD_ONLY}


def make_agent(spec: str, rules: Rules) -> Agent:
    """Build an agent from its spec string for the given rules.

    Raises:
        ValueError: unknown agent name or parameter (the message lists the valid
            ones), a value of the wrong type or out of range, or a ``ppo:`` checkpoint
            that is missing or unreadable; the message starts with the spec.
    """
    name, raw = parse_spec(spec)
    cls = _load(name)
    valid = agent_params(cls)
    kwargs = {}
    for key, text in raw.items():
        if key not in valid:
            raise ValueError(f"unknown parameter {key!r} for agent {name!r}; valid parameters: "
                             f"{', '.join(valid) or '(none)'}")
        try:
            kwargs[key] = _convert(text, valid[key].default, valid[key].annotation)
        except ValueError as e:
            raise ValueError(f"agent {name!r} parameter {key!r}: {e}") from None
    try:
        agent = cls(rules, **kwargs)
    except (ValueError, TypeError, OSError) as e:  # e.g. a missing ppo: checkpoint
        raise ValueError(f"agent {spec.strip()!r}: {_reason(e)}") from None
    agent.name = spec.strip()
    return agent
