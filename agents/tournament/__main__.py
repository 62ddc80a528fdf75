"""``python -m agents.tournament``: see ``agents.tournament.cli``."""

from .cli import main

main()
