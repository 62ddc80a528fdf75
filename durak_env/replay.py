"""Step through a game record.

    python -m durak_env.replay records/durak_20261130_120000_seed7.json
    python -m durak_env.replay FILE --seat 1      # only what seat 1 could see
    python -m durak_env.replay FILE --step        # wait for Enter after each move

Prints the position before each decision (the text renderer, referee's view or
``--seat``'s view), the move chosen and the forced moves that follow it, then the
final position and the result. The whole record is checked first (as
``Game.from_record`` checks it): a file that is not a valid record, or a bad argument,
prints one line on stderr and exits with status 2 before any output.
"""

from __future__ import annotations

import sys

from .cli import ArgumentParser, count
from .game import Game, iter_replay
from .records import load_record
from .term import render_terminal, use_color


def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(
        prog="python -m durak_env.replay", description="Step through a Durak game record (JSON)."
    )
    p.add_argument("file", help="a record written by Game.to_record / python -m agents.play")
    p.add_argument("--seat", type=count(0), default=None, help="show only this seat's view")
    p.add_argument("--step", action="store_true", help="wait for Enter after each move")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    args = p.parse_args(argv)
    color = {"always": True, "never": False}.get(args.color, use_color())
    try:
        record = load_record(args.file)
        rules = Game.from_record(record).rules  # every check, before any output
        if args.seat is not None and args.seat >= rules.num_players:
            raise ValueError(f"--seat must be in 0..{rules.num_players - 1}, got {args.seat}")
    except (ValueError, OSError) as e:
        p.error(f"{args.file}: {getattr(e, 'strerror', None) or e}")
    try:
        _replay(record, args.seat, args.step, color)
    except KeyboardInterrupt:
        print()
    return 0


def _replay(record: dict, seat: int | None, step: bool, color: bool) -> None:
    players = (record.get("meta") or {}).get("players")
    game, pending = None, []
    for n_decision, (game, who, move, forced) in enumerate(iter_replay(record)):
        if n_decision == 0 and game.history:
            print("Forced at the start: " + _moves(game.history, players))
        if pending:
            print("  then forced: " + _moves(pending, players))
        print()
        print(render_terminal(game, seat, color=color))
        if who is None:
            break
        print(f"Move {n_decision + 1}: {_name(who, players)}: {move}")
        if step and _wait():
            return
        pending = forced  # filled in by the iterator when it applies the move
    _result(game, players)


def _moves(moves, players) -> str:
    return "; ".join(f"{_name(p, players)}: {m}" for p, m in moves)


def _name(p: int, players) -> str:
    if players and p < len(players):
        return f"seat {p} ({players[p]})"
    return f"seat {p}"


def _wait() -> bool:
    """Wait for Enter; True once the input has ended (stop replaying)."""
    try:
        return input("[Enter] ") == "q"
    except EOFError:
        return True


def _result(game, players) -> None:
    if not game.over:
        print(f"The record stops here ({len(game.history)} moves; the game is not over).")
    elif game.durak is None:
        print("Result: a draw.")
    else:
        print(
            f"Result: {_name(game.durak, players)} is the durak; "
            f"out in order: {', '.join(str(p) for p in game.out_order) or '-'}."
        )


if __name__ == "__main__":
    sys.exit(main())
