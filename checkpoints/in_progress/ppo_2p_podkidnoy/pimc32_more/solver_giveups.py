"""How often the end-game solver gives up at ppo's node cap, and whether a deeper one
settles those positions (a probe, not part of the product).

    python checkpoints/in_progress/ppo_2p_podkidnoy/pimc32_more/solver_giveups.py GAMES NODES

Plays GAMES games of the shipped two-player checkpoint's greedy policy against
``expert_rules`` (batched, seed 5) and, at each of its decisions with a choice once every
card is placed, asks the solver for a move with 50,000 nodes per move (``ppo``'s and
``expert``'s cap). Where it gives up (no proven win and some move unsolved: the policy's
first choice plays), it asks again with NODES nodes. Prints the decisions, the give-ups at
each cap, how many of the deeper answers differ from the policy's first choice, and the
seconds spent in each solver."""
import sys
import time

from agents.endgame import EndgameSolver
from agents.ppo import load_checkpoint
from agents.selfplay import play_against
from agents.view import fast_decode


def main() -> None:
    games, nodes = int(sys.argv[1]), int(sys.argv[2])
    net, _ = load_checkpoint("checkpoints/ppo_2p_podkidnoy.pt")
    rules = net.rules
    small = EndgameSolver(rules, 50_000, last_card=True, cheap_first=True)
    big = EndgameSolver(rules, nodes, last_card=True, cheap_first=True)
    c = {"decisions": 0, "gave_up": 0, "deeper_gave_up": 0, "deeper_differs": 0}
    seconds = [0.0, 0.0]

    def on_decision(obs, ids, counts, rows, actions):
        for g in rows:
            if counts[g] < 2:
                continue
            v = fast_decode(obs[g], rules)
            if not small.applies(v):
                continue
            order = [int(a) for a in ids[g, :counts[g]]]
            c["decisions"] += 1
            small.reset()
            t0 = time.perf_counter()
            a = small.solve(v, order)
            seconds[0] += time.perf_counter() - t0
            if a is not None:
                continue
            c["gave_up"] += 1
            big.reset()
            t0 = time.perf_counter()
            b = big.solve(v, order)
            seconds[1] += time.perf_counter() - t0
            c["deeper_gave_up"] += b is None
            c["deeper_differs"] += b is not None and b != order[0]

    play_against(net, rules, "expert_rules", games, 5, greedy=True, on_decision=on_decision,
                 num_threads=1)
    print(c, f"seconds at 50,000 nodes {seconds[0]:.1f}, at {nodes:,} {seconds[1]:.1f}")


if __name__ == "__main__":
    main()
