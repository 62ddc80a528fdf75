"""Game records: ``Game.from_record(g.to_record())`` reproduces the game exactly, through
JSON, for random games of every variant (finished or stopped midway) and for injected
positions; malformed or inconsistent records raise ``ValueError`` saying where."""

import copy
import json
import random

import pytest

from durak_env import Game, Rules
from durak_env.game import iter_replay
from durak_env.records import dumps, load_record, save_record
from tests.helpers import final_state, random_move, random_position, random_rules_kwargs, snapshot

VARIANT_RULES = [
    dict(num_players=2),
    dict(num_players=4, variant="prostoy"),
    dict(num_players=3, variant="podkidnoy", throw_in="neighbors", first_round_max_attack=5),
    dict(num_players=2, variant="perevodnoy"),
    dict(num_players=5, variant="perevodnoy", transfer_show_trump=True),
    dict(num_players=6, deck_size=36),  # no talon: the trump card stays in a hand
    dict(num_players=3, deck_size=52, hand_size=7, variant="perevodnoy"),
    dict(num_players=4, deck_size=24, variant="perevodnoy", transfer_show_trump=True),
]


def through_json(record: dict) -> dict:
    return json.loads(dumps(record))


def assert_same_game(a: Game, b: Game) -> None:
    assert snapshot(a) == snapshot(b)
    assert final_state(a) == final_state(b)
    assert a.deal_record == b.deal_record
    assert a.trump_suit == b.trump_suit


def play_random(game: Game, rng: random.Random, stop: int | None = None) -> None:
    moves = 0
    while not game.over and (stop is None or moves < stop):
        game.play(random_move(game, rng, eager=rng.random() < 0.5))
        moves += 1


@pytest.mark.parametrize("kwargs", VARIANT_RULES, ids=lambda k: "-".join(map(str, k.values())))
def test_round_trip_every_variant(kwargs):
    rules = Rules(**kwargs)
    rng = random.Random(str(kwargs))
    for seed in range(12):
        game = Game.new(rules, seed=seed)
        play_random(game, rng)
        assert game.over
        again = Game.from_record(through_json(game.to_record()))
        assert_same_game(game, again)
        assert again.history == game.history  # forced moves included, in order


def test_round_trip_random_rules_and_unfinished_games():
    rng = random.Random(2024)
    for i in range(60):
        rules = Rules(**random_rules_kwargs(rng))
        game = Game.new(rules, seed=i)
        play_random(game, rng, stop=rng.choice([0, 1, 5, 20, None]))
        again = Game.from_record(through_json(game.to_record(meta={"i": i})))
        assert_same_game(game, again)
        if not again.over:  # the replayed game goes on exactly like the original
            move = random_move(game, rng)
            game.play(move)
            again.play(move)
            assert_same_game(game, again)


def test_round_trip_injected_positions():
    rng = random.Random(7)
    for _ in range(40):
        rules = Rules(**random_rules_kwargs(rng))
        game = Game.from_deal(rules, **random_position(rng, rules))
        play_random(game, rng)
        assert_same_game(game, Game.from_record(through_json(game.to_record())))


def test_record_contents():
    game = Game.new(Rules(num_players=3), seed=5)
    play_random(game, random.Random(5))
    rec = game.to_record(meta={"players": ["a", "b", "c"]})
    assert (rec["format"], rec["version"]) == ("durak-record", 1)
    assert rec["rules"] == Rules(num_players=3).to_dict()
    assert rec["deal"]["hands"] == game.deal_record["hands"]
    assert rec["moves"] == [[s, m] for s, m in game.history]
    assert rec["result"] == {
        "over": True,
        "durak": game.durak,
        "out_order": game.out_order,
        "rewards": game.rewards,
    }
    assert rec["meta"] == {"players": ["a", "b", "c"]}
    json.dumps(rec)  # plain JSON types only


def test_save_and_load(tmp_path):
    game = Game.new(Rules(variant="perevodnoy"), seed=11)
    play_random(game, random.Random(11))
    path = save_record(game.to_record(), tmp_path / "sub" / "g.json")
    assert_same_game(game, Game.from_record(load_record(path)))
    assert save_record(game, tmp_path / "h.json").read_text() == path.read_text()


def test_iter_replay_visits_every_decision():
    game = Game.new(Rules(num_players=3), seed=3)
    play_random(game, random.Random(3))
    start, steps = None, []
    for g, seat, move, forced in iter_replay(game.to_record()):
        if start is None:
            start = list(g.history)  # forced moves of the deal
        if seat is None:
            assert_same_game(g, game)
            break
        assert g.to_act == seat and move in g.legal_moves()
        steps.append((seat, move, forced))  # forced is filled in once the move is applied
    rebuilt = start + [m for seat, move, forced in steps for m in [(seat, move), *forced]]
    assert rebuilt == game.history


def test_bad_record_file(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(ValueError, match="not a JSON game record"):
        load_record(p)


def _finished_record() -> dict:
    game = Game.new(Rules(num_players=3), seed=1)
    play_random(game, random.Random(1))
    return game.to_record()


def _first_decision(rec) -> int:
    """Index in ``moves`` of the first move that was a choice (not forced at the deal)."""
    return len(Game.from_deal(Rules.from_dict(rec["rules"]), **rec["deal"]).history)


def _edit(fn):
    def make():
        rec = copy.deepcopy(_finished_record())
        fn(rec)
        return rec

    return make


def _set_moves_entry(rec, i, value):
    rec["moves"][i] = value


def _wrong_seat(rec):
    i = _first_decision(rec)
    rec["moves"][i][0] = (rec["moves"][i][0] + 1) % 3


def _illegal_move(rec):
    rec["moves"][_first_decision(rec)][1] = "take"  # the opening move is never take


def _forced_mismatch(rec):
    hist = Game.from_record(rec).history
    # Find a forced pass (a move right after another move of a different seat is not
    # enough to know; replay and look for the engine's own moves instead).
    game = Game.from_deal(Rules.from_dict(rec["rules"]), **rec["deal"])
    for _seat, move in rec["moves"][len(game.history) :]:
        before = len(game.history)
        game.play(move)
        if len(game.history) > before + 1:  # forced moves follow this decision
            rec["moves"][before + 1][1] = "take" if hist[before + 1][1] != "take" else "pass"
            return
    raise AssertionError("no forced move in the game")


def _extra_move(rec):
    rec["moves"].append([0, "pass"])


def _result_mismatch(rec):
    rec["result"]["durak"] = (rec["result"]["durak"] + 1) % 3


BAD_RECORDS = [
    ("not a dict", lambda: [1, 2], "must be a dict"),
    ("wrong format", _edit(lambda r: r.update(format="chess")), "format must be"),
    ("future version", _edit(lambda r: r.update(version=2)), "unsupported record version"),
    ("no moves", _edit(lambda r: r.pop("moves")), "missing"),
    ("unknown key", _edit(lambda r: r.update(colour="red")), "unknown key"),
    ("bad rules", _edit(lambda r: r["rules"].update(num_players=9)), "rules: num_players"),
    ("unknown rules field", _edit(lambda r: r["rules"].update(jokers=2)), "rules: unknown"),
    ("deal key", _edit(lambda r: r["deal"].update(seed=1)), "deal: unknown key"),
    ("deal card", _edit(lambda r: r["deal"]["talon"].__setitem__(0, "1X")), "deal: talon"),
    (
        "deal twice",
        _edit(lambda r: r["deal"]["talon"].__setitem__(0, r["deal"]["hands"][0][0])),
        "appears twice",
    ),
    ("moves type", _edit(lambda r: r.update(moves="play 7C")), "moves must be a list"),
    ("move shape", _edit(lambda r: _set_moves_entry(r, 0, [0])), r"moves\[0\] must be"),
    ("move seat type", _edit(lambda r: _set_moves_entry(r, 0, ["0", "pass"])), r"moves\[0\]"),
    ("wrong seat", _edit(_wrong_seat), "is to act"),
    ("illegal move", _edit(_illegal_move), "illegal move"),
    (
        "malformed move",
        _edit(lambda r: r["moves"][_first_decision(r)].__setitem__(1, "jump")),
        "unknown move",
    ),
    ("forced move differs", _edit(_forced_mismatch), "forced move"),
    ("move after the end", _edit(_extra_move), "already over"),
    ("result differs", _edit(_result_mismatch), "result.durak"),
]


@pytest.mark.parametrize(
    "make, match", [(m, x) for _, m, x in BAD_RECORDS], ids=[name for name, _, _ in BAD_RECORDS]
)
def test_bad_records_raise_value_error(make, match):
    with pytest.raises(ValueError, match=match):
        Game.from_record(make())


def test_hand_written_record_in_any_spelling():
    # A short record typed by hand: lower case and symbols are accepted for choices.
    game = Game.from_deal(
        Rules(),
        hands=[["7S", "8S"], ["9S", "10S"]],
        talon=[],
        discard=[c for c in _deck36() if c not in ("7S", "8S", "9S", "10S")],
        trump="H",
    )
    play_random(game, random.Random(0))
    rec = game.to_record()
    first = _first_decision(rec)
    seat, move = rec["moves"][first]
    rec["moves"][first] = [seat, move.replace("S", "♠").lower()]
    assert_same_game(game, Game.from_record(rec))


def _deck36():
    from durak_env.cards import format_mask

    return format_mask(sum(1 << c for c in range(16, 52)))
