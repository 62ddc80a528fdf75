"""Play Durak in the terminal against agents.

    python -m agents.play --players 2 --opponent expert
    python -m agents.play --players 3 --opponent greedy --opponent ppo:checkpoints/ppo.pt
    python -m agents.play --variant perevodnoy --seed 7 --seat 1 --record-dir my_games

The session (prompts, input, the record saved at the end, exit status) is
``durak_env.play``; this command gives it the agents of the registry
(``make_agent``), so ``--opponent`` takes any agent spec.
"""

from __future__ import annotations

import sys

from durak_env import play

from .registry import make_agent


def main(argv: list[str] | None = None, stdin=None, stdout=None) -> int:
    """Play one game (see ``durak_env.play.main``); returns the exit status."""
    return play.main(argv, stdin, stdout, agent_factory=make_agent)


if __name__ == "__main__":
    sys.exit(main())
