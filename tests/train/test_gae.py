"""Per-seat GAE: the vectorized bookkeeping + compute_gae against plain Python loops."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.ppo_update import compute_gae  # noqa: E402
from agents.rollout import Rollout, SeatBook  # noqa: E402


def _record_events(events, t_len, b, p):
    """Feed (t, env, seat, is_learner, value, end_rewards or None) into a Rollout."""
    ro, book = Rollout(t_len, b, obs_size=1), SeatBook(b, p)
    ro.clear()
    by_t = {}
    for ev in events:
        by_t.setdefault(ev[0], []).append(ev)
    for t in range(t_len):
        evs = by_t.get(t, [])
        learner = [(e, s, v) for (_, e, s, is_l, v, _) in evs if is_l]
        for e, _, v in learner:
            ro.value[t, e] = v
            ro.learner[t, e] = True
        if learner:
            envs = np.array([x[0] for x in learner])
            seats = np.array([x[1] for x in learner])
            book.record(ro, t, envs, seats)
        ended = [(e, r) for (_, e, _, _, _, r) in evs if r is not None]
        if ended:
            rew = np.zeros((b, p), np.float32)
            for e, r in ended:
                rew[e] = r
            book.finish(ro, np.array([e for e, _ in ended]), rew)
    return ro


def _reference(events, gamma, lam):
    """Plain loops: split each env's decisions into games, then per learner seat."""
    adv = {}
    per_env = {}
    for ev in sorted(events):
        per_env.setdefault(ev[1], []).append(ev)
    for evs in per_env.values():
        game = []
        for ev in evs:
            game.append(ev)
            if ev[5] is not None or ev is evs[-1]:
                ended = ev[5] is not None
                seats = {s for (_, _, s, is_l, _, _) in game if is_l}
                for seat in seats:
                    traj = [(t, v) for (t, _, s, is_l, v, _) in game if s == seat and is_l]
                    if ended:
                        r, nxt_v, a, trainable = float(ev[5][seat]), 0.0, 0.0, traj
                        for k in range(len(traj) - 1, -1, -1):
                            t, v = traj[k]
                            delta = r - v if k == len(traj) - 1 else gamma * nxt_v - v
                            a = delta + (gamma * lam * a if k < len(traj) - 1 else 0.0)
                            adv[(t, ev[1])] = a
                            nxt_v = v
                    else:  # still running: the last decision only bootstraps
                        trainable = traj[:-1]
                        nxt_v, a = traj[-1][1] if traj else 0.0, 0.0
                        for k in range(len(trainable) - 1, -1, -1):
                            t, v = trainable[k]
                            delta = gamma * nxt_v - v
                            a = delta + gamma * lam * a
                            adv[(t, ev[1])] = a
                            nxt_v = v
                game = []
    return adv


def _check(events, t_len, b, p, gamma=0.99, lam=0.9):
    ro = _record_events(events, t_len, b, p)
    tr = ro.trainable()
    adv, ret = compute_gae(ro.value.numpy(), ro.reward, ro.done, ro.nxt, tr, gamma, lam)
    ref = _reference(events, gamma, lam)
    assert set(ref) == {(int(t), int(e)) for t, e in zip(*np.nonzero(tr), strict=True)}
    for (t, e), a in ref.items():
        assert adv[t, e] == pytest.approx(a, abs=1e-5), (t, e)
        assert ret[t, e] == pytest.approx(a + float(ro.value[t, e]), abs=1e-5)


def test_hand_made_interleaved_two_seats():
    # One env, seats 0 and 1 alternate; seat 0 moves twice in a row at t=2,3
    # (seat 1 took a forced move in between, which is never a decision).
    # The game ends at t=4 (seat 1's move): seat 0 gets -1, seat 1 gets +1.
    events = [
        (0, 0, 0, True, 0.1, None),
        (1, 0, 1, True, 0.2, None),
        (2, 0, 0, True, 0.3, None),
        (3, 0, 0, True, 0.4, None),
        (4, 0, 1, True, 0.5, (-1.0, 1.0)),
        # the next game in the same env: seat 1 opens, the rollout ends mid-game
        (5, 0, 1, True, 0.6, None),
        (6, 0, 0, True, 0.7, None),
        (7, 0, 1, True, 0.8, None),
    ]
    ro = _record_events(events, 8, 1, 2)
    adv, _ = compute_gae(ro.value.numpy(), ro.reward, ro.done, ro.nxt, ro.trainable(), 1.0, 1.0)
    # gamma = lambda = 1: the advantage is the final reward minus the value
    # seat 0's last decision (t=3) carries the -1; seat 1's (t=4) the +1.
    assert adv[:5, 0] == pytest.approx([-1.1, 0.8, -1.3, -1.4, 0.5])
    # second game: seat 1's t=5 bootstraps from its pending t=7; seat 0's t=6 is pending
    assert adv[5, 0] == pytest.approx(0.8 - 0.6)
    assert adv[6, 0] == 0 and adv[7, 0] == 0
    assert not ro.trainable()[6, 0] and not ro.trainable()[7, 0]
    _check(events, 8, 1, 2)


def test_opponent_seats_are_environment():
    # Seat 1 is an opponent (not learner): only seat 0's decisions form a trajectory.
    events = [
        (0, 0, 0, True, 0.5, None),
        (1, 0, 1, False, 0.0, None),
        (2, 0, 0, True, 0.25, None),
        (3, 0, 1, False, 0.0, (1.0, -1.0)),
    ]
    ro = _record_events(events, 4, 1, 2)
    adv, ret = compute_gae(ro.value.numpy(), ro.reward, ro.done, ro.nxt, ro.trainable(), 1.0, 0.5)
    # t=2: delta = 1 - 0.25; t=0: delta = 0.25 - 0.5, plus 0.5 * 0.75
    assert adv[2, 0] == pytest.approx(0.75)
    assert adv[0, 0] == pytest.approx(-0.25 + 0.5 * 0.75)
    assert ret[0, 0] == pytest.approx(adv[0, 0] + 0.5)
    _check(events, 4, 1, 2, gamma=1.0, lam=0.5)


@pytest.mark.parametrize("p", [2, 3, 4])
def test_random_interleavings_match_the_loop(p):
    rng = np.random.default_rng(p)
    t_len, b = 40, 6
    events = []
    for e in range(b):
        learner = rng.random(p) < 0.7
        for t in range(t_len):
            seat = int(rng.integers(p))
            end = rng.random() < 0.08
            r = tuple(rng.normal(size=p).round(2)) if end else None
            events.append((t, e, seat, bool(learner[seat]), float(rng.normal()), r))
            if end:
                learner = rng.random(p) < 0.7
    _check(events, t_len, b, p)
