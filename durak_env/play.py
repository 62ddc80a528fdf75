"""A terminal game of Durak, a human against agents: the session of ``python -m agents.play``.

    python -m agents.play --players 2 --opponent expert
    python -m agents.play --players 3 --opponent greedy --opponent ppo:checkpoints/ppo.pt
    python -m agents.play --variant perevodnoy --seed 7 --seat 1 --record-dir my_games

When you are asked to act you see your hand, the table and the numbered legal
moves. Answer with a number or with the move in notation (``beat 7c k♣``,
``play TH``, ``take``; any spelling the card parser accepts). ``?`` shows the
moves again, ``q`` abandons the game. Input is read line by line from stdin, so a
session can be scripted. At the end every hand is shown and the game record
(``durak_env.records``) is saved as JSON; its path is printed.

The engine knows no agents: ``main`` builds the opponents with the ``agent_factory``
it is given (``agents.play`` passes ``agents.make_agent``), any callable
``(spec, rules) -> agent`` whose agents have ``name``, ``reset()`` and
``act(observation, action_mask, rng)``.

Exit status: 0 when the game was played to the end or abandoned with ``q``, 1 when
the input ended first, 2 on a bad command line (one line on stderr, before the game
starts; that includes a ``--record-dir`` that cannot be written), 130 on Ctrl-C. An
abandoned game's record is saved too (it replays up to where the game stopped); if it
cannot be written where asked after all, it goes to the system's temporary directory,
and failing that to stdout, so a finished game is never lost. An input line longer than
``MAX_LINE`` characters is refused without being held in memory.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .actions import IllegalMoveError
from .checks import check_writable_dir
from .cli import ArgumentParser, add_rules_arguments, count, rules_from_args
from .cli import seed as seed_arg
from .core import fresh_seed
from .game import Game
from .records import dumps, save_record
from .rules import Rules
from .term import render_terminal

PROG = "python -m agents.play"
MAX_LINE = 1000  # characters of one answer; longer lines are refused in bounded memory


class _Quit(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _parser(prog: str) -> ArgumentParser:
    p = ArgumentParser(prog=prog, description="Play Durak against agents in the terminal.")
    add_rules_arguments(p)
    p.add_argument(
        "--opponent",
        action="append",
        metavar="SPEC",
        help="agent spec (random, greedy, expert, ismcts, ppo:CHECKPOINT, ...); "
        "give it once for every opponent or once per opponent seat "
        "(default expert)",
    )
    p.add_argument("--seat", type=count(0), default=0, help="your seat (default 0)")
    p.add_argument("--seed", type=seed_arg, default=None,
                   help="deal and agent seed, an int in 0..2**64-1 (default random)")
    p.add_argument(
        "--record-dir", default="records", help="directory for the game record (default ./records)"
    )
    p.add_argument("--no-record", action="store_true", help="do not save a game record")
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="ANSI colour (default: only on a terminal)",
    )
    return p


def _opponent_specs(args, n: int) -> dict[int, str]:
    specs = args.opponent or ["expert"]
    others = [p for p in range(n) if p != args.seat]
    if len(specs) == 1:
        specs = specs * len(others)
    if len(specs) != len(others):
        raise ValueError(
            f"--opponent: give one spec for all opponents or one per opponent "
            f"seat ({len(others)}), got {len(specs)}"
        )
    return dict(zip(others, specs, strict=True))


class Session:
    """One game between a human on ``seat`` and agents on the other seats."""

    def __init__(self, game: Game, seat: int, agents: dict, rng, out, inp, color: bool):
        self.game, self.seat, self.agents = game, seat, agents
        self.rng, self.out, self.inp, self.color = rng, out, inp, color
        self.shown = 0  # history entries already printed

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def run(self) -> None:
        self._print_new_moves(after_decision=False)
        while not self.game.over:
            if self.game.to_act == self.seat:
                self._human_turn()
            else:
                self._agent_turn()
            self._print_new_moves()

    def _print_new_moves(self, after_decision: bool = True) -> None:
        """The last decision (if any) and the forced moves the engine applied after it."""
        first_forced = self.shown + 1 if after_decision else self.shown
        for i, (p, move) in enumerate(self.game.history[self.shown :], self.shown):
            who = "you" if p == self.seat else f"seat {p} ({self.agents[p].name})"
            self.say(f"  {who}: {move}" + (" (forced)" if i >= first_forced else ""))
        self.shown = len(self.game.history)

    def _agent_turn(self) -> None:
        p = self.game.to_act
        a = self.agents[p].act(self.game.observe(p), self.game.action_mask(), self.rng)
        self.game.step(int(a))

    def _human_turn(self) -> None:
        self.say()
        self.say(render_terminal(self.game, self.seat, color=self.color))
        moves = self.game.legal_moves()
        self._list_moves(moves)
        while True:
            text = self._ask()
            try:
                move = self._parse(text, moves)
                if move is None:
                    continue
                self.game.play(move)
                return
            except IllegalMoveError as e:
                self.say(f"Not accepted: {e}")
                self.say(
                    "Enter a number from the list or a move such as "
                    f"{moves[0]!r} ('?' lists the moves, 'q' quits)."
                )

    def _list_moves(self, moves: list[str]) -> None:
        self.say("Your legal moves:")
        for i, m in enumerate(moves, 1):
            self.say(f"  {i:>2}. {m}")

    def _ask(self) -> str:
        print("Your move: ", end="", file=self.out, flush=True)
        line = self.inp.readline(MAX_LINE + 1)
        if not line:
            self.say()
            raise _Quit("end of input")
        if len(line) > MAX_LINE and not line.endswith("\n"):
            _skip_line(self.inp)
            self.say()
            self.say(f"Not accepted: a move is at most {MAX_LINE} characters.")
            return ""
        if not _isatty(self.inp):
            self.say(line.rstrip("\n"))  # echo scripted input so the transcript reads well
        return line.strip()

    def _parse(self, text: str, moves: list[str]) -> str | None:
        if not text:
            self.say("Please enter a move (a number or e.g. 'take').")
            return None
        if text.lower() in ("?", "help", "h"):
            self.say(render_terminal(self.game, self.seat, color=self.color))
            self._list_moves(moves)
            return None
        if text.lower() in ("q", "quit", "exit"):
            raise _Quit("you quit")
        if text.isdigit():
            k = int(text)
            if not 1 <= k <= len(moves):
                raise IllegalMoveError(f"there is no move number {k}; choose 1..{len(moves)}")
            return moves[k - 1]
        return text


def _skip_line(inp) -> None:
    """Read and drop the rest of an over-long line, ``MAX_LINE`` characters at a time."""
    while True:
        chunk = inp.readline(MAX_LINE)
        if not chunk or chunk.endswith("\n"):
            return


def _isatty(stream) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _finish(session: Session, game: Game, seat: int, deal_hands) -> None:
    say = session.say
    say()
    say(render_terminal(game, None, color=session.color))
    say("Hands as dealt:")
    for p, hand in enumerate(deal_hands):
        who = "you" if p == seat else session.agents[p].name
        say(f"  seat {p} ({who}): {' '.join(hand)}")
    if not game.over:
        return
    if game.durak is None:
        say("Result: a draw.")
    elif game.durak == seat:
        say("Result: you are the durak.")
    else:
        say(f"Result: you won; seat {game.durak} ({session.agents[game.durak].name}) is the durak.")


def main(
    argv: list[str] | None = None,
    stdin=None,
    stdout=None,
    *,
    agent_factory: Callable[[str, Rules], object],
    prog: str = PROG,
) -> int:
    """Parse the command line, play one game on stdin/stdout, save its record.

    Args:
        argv: the arguments (default ``sys.argv[1:]``).
        stdin, stdout: the human's input and the transcript (default the terminal).
        agent_factory: builds an opponent from its ``--opponent`` spec and the rules.
        prog: the command's name in its help and error messages.

    Returns:
        The exit status (see the module docstring).
    """
    parser = _parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # a bad argument (one line on stderr) or --help
        return int(e.code or 0)
    out = stdout or sys.stdout
    inp = stdin or sys.stdin
    try:
        rules = rules_from_args(args)
        if not 0 <= args.seat < rules.num_players:
            raise ValueError(f"--seat must be in 0..{rules.num_players - 1}, got {args.seat}")
        specs = _opponent_specs(args, rules.num_players)
        agents = {p: agent_factory(spec, rules) for p, spec in specs.items()}
        if not args.no_record:
            check_writable_dir("--record-dir", args.record_dir)
    except ValueError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    # A short seed, so that it is easy to type back in.
    seed = args.seed if args.seed is not None else fresh_seed(10**9)
    for agent in agents.values():
        agent.reset()
    game = Game.new(rules, seed=seed)
    color = {"always": True, "never": False}.get(args.color)
    if color is None:
        from .term import use_color

        color = use_color(out)
    session = Session(game, args.seat, agents, np.random.default_rng(seed), out, inp, color)
    names = ", ".join(f"seat {p}: {a.name}" for p, a in agents.items())
    session.say(
        f"Durak ({rules.variant}, {rules.num_players} players, {rules.deck_size} cards), "
        f"seed {seed}. You are seat {args.seat}; {names}."
    )
    status = 0
    try:
        session.run()
    except _Quit as q:
        session.say(f"Game abandoned: {q.reason}.")
        status = 1 if q.reason == "end of input" else 0
    except KeyboardInterrupt:
        session.say("\nGame abandoned: interrupted.")
        status = 130
    _finish(session, game, args.seat, game.deal_record["hands"])
    if not args.no_record:
        players = ["human" if p == args.seat else agents[p].name for p in range(rules.num_players)]
        meta = {
            "players": players,
            "seed": seed,
            "human_seat": args.seat,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        name = f"durak_{time.strftime('%Y%m%d_%H%M%S', time.gmtime())}_seed{seed}.json"
        _save(session, game.to_record(meta), Path(args.record_dir), name)
    return status


def _save(session: Session, record: dict, directory: Path, name: str) -> None:
    """Save the record in ``directory``, else in the temporary directory, else print it."""
    for where in (directory, Path(tempfile.gettempdir())):
        try:
            path = save_record(record, _free_path(where / name))
        except OSError as e:
            print(f"could not save the game record in {where}: {e.strerror or e}",
                  file=sys.stderr)
            continue
        session.say(f"Game record saved to {path}")
        return
    session.say("Game record (save it as a .json file to replay it):")
    session.say(dumps(record))


def _free_path(path: Path) -> Path:
    k = 1
    base = path
    while path.exists():
        path = base.with_name(f"{base.stem}_{k}{base.suffix}")
        k += 1
    return path


if __name__ == "__main__":
    print(f"the terminal game is {PROG}; this module is its library and knows no agents",
          file=sys.stderr)
    sys.exit(2)
