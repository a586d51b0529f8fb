"""The evaluation's runtime weights: the file, the groups a style scales, and colour symmetry."""

from __future__ import annotations

import json
import math
from pathlib import Path

import chess
import numpy as np
import pytest

from engine import evaluate as E
from engine.position import Position, tables

FENS = (
    chess.STARTING_FEN,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7",
    "2r2rk1/pp1q1ppp/2n1pn2/3p4/3P4/2PBPN2/P1Q2PPP/R4RK1 b - - 3 15",
    "8/5pk1/6p1/3P4/8/6P1/5PK1/8 w - - 0 40",
    "8/8/4k3/8/2P5/8/4K3/8 b - - 0 60",
    "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
    "r3k2r/pbppqpb1/1pn3p1/7p/1N2pPn1/1PP4N/PB1P2PP/2QRKR2 w kq - 0 1",
    "6k1/5ppp/8/8/8/8/1q3PPP/3R2K1 w - - 0 30",
    "rnbq1bnr/ppppkppp/8/4p3/4P3/8/PPPPKPPP/RNBQ1BNR w - - 2 3",
    "8/2k5/8/3b4/8/8/5K2/8 w - - 0 70",
    "3rr1k1/1p3ppp/p1p5/4b3/2B1P1n1/2N3P1/PPP2P1P/R2R2K1 w - - 0 20",
    "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/5N1P/PPBN1PP1/R1BQR1K1 w - - 1 13",
    "7k/P7/8/8/8/8/6pp/K7 b - - 0 50",
    "2kr3r/ppp2ppp/2n5/2b1q3/4n3/2N2N2/PPPBBPPP/R2QK2R w KQ - 0 11",
)


def _score(fen: str, ev: np.ndarray) -> int:
    pos = Position.from_board(chess.Board(fen))
    return int(E.evaluate(tables(), ev, pos.bb, pos.mb, pos.st))


def test_layout_blocks_tile_the_array_and_groups_stay_inside_it() -> None:
    covered = np.zeros(E.EV_SIZE, dtype=int)
    for at, size in E.LAYOUT.values():
        covered[at:at + size] += 1
    assert (covered == 1).all()
    required = {"material", "pst", "mobility", "pawn_structure", "passed_pawns", "king_safety"}
    assert required <= set(E.WEIGHT_GROUPS)
    seen: set[int] = set()
    for blocks in E.WEIGHT_GROUPS.values():
        for block in blocks:
            assert 0 <= block.start < block.stop <= E.PHASE_TOTAL_AT
            assert not seen & set(block), "groups overlap"
            seen |= set(block)


def test_weights_round_trip_through_json(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    ev = E.default_weights()
    ev[:E.PHASE_TOTAL_AT] += rng.integers(-40, 40, size=E.PHASE_TOTAL_AT)
    ev[E.PHASE_W_AT:E.PHASE_W_AT + 6] = np.abs(ev[E.PHASE_W_AT:E.PHASE_W_AT + 6]) + 1
    ev = E.with_derived(ev)
    record = {"seed": 3, "K": 1.25, "date": "2026-01-01"}
    path = tmp_path / "w.json"
    path.write_text(E.weights_to_json(ev, tuner=record))
    back, tuner = E.weights_from_json(path.read_text())
    assert np.array_equal(back, ev)
    assert tuner == record
    assert np.array_equal(E.load_weights(path), ev)


def test_missing_file_means_the_hand_set_weights(tmp_path: Path) -> None:
    assert np.array_equal(E.load_weights(tmp_path / "absent.json"), E.default_weights())


def test_the_committed_weights_file_loads_with_its_tuner_record() -> None:
    ev, tuner = E.weights_from_json(E.WEIGHTS_FILE.read_text(), source=str(E.WEIGHTS_FILE))
    assert np.array_equal(ev, E.eval_tables())
    assert isinstance(tuner, dict) and ("seed" in tuner or "source" in tuner)


def _doc() -> dict[str, object]:
    doc = json.loads(E.weights_to_json(E.default_weights()))
    assert isinstance(doc, dict)
    return doc


def _broken(edit: str) -> str:
    doc = _doc()
    weights = doc["weights"]
    assert isinstance(weights, dict)
    if edit == "format":
        doc["format"] = "something else"
    elif edit == "short block":
        weights["MAT_MG"] = [1, 2, 3]
    elif edit == "float":
        weights["TEMPO"] = [1.5]
    elif edit == "missing block":
        del weights["MOB_EG"]
    elif edit == "missing piece":
        del weights["PST_MG"]["queen"]
    elif edit == "no phase":
        weights["PHASE_W"] = [0, 0, 0, 0, 0, 0]
    elif edit == "weights not object":
        doc["weights"] = [1, 2]
    return json.dumps(doc)


@pytest.mark.parametrize(("edit", "named"), [
    ("format", "format"), ("short block", "MAT_MG"), ("float", "TEMPO"), ("missing block", "MOB_EG"),
    ("missing piece", "PST_MG"), ("no phase", "phase"), ("weights not object", "weights"),
])
def test_broken_weights_files_are_refused_naming_the_field(edit: str, named: str) -> None:
    with pytest.raises(ValueError, match=named) as info:
        E.weights_from_json(_broken(edit), source="my.json")
    assert "my.json" in str(info.value)


def test_not_json_is_refused() -> None:
    with pytest.raises(ValueError, match="not JSON"):
        E.weights_from_json("{oops", source="x.json")


@pytest.mark.parametrize("group", sorted(E.WEIGHT_GROUPS))
@pytest.mark.parametrize("factor", [0.0, 0.5, 1.3, 2.0])
def test_scaled_tables_scales_only_the_named_group(group: str, factor: float) -> None:
    base = E.eval_tables()
    out = E.scaled_tables({group: factor}) if not (group == "phase" and factor == 0) else None
    if out is None:
        with pytest.raises(ValueError):
            E.scaled_tables({group: factor})
        return
    inside = np.zeros(E.EV_SIZE, dtype=bool)
    for block in E.WEIGHT_GROUPS[group]:
        inside[block.start:block.stop] = True
    assert np.array_equal(out[inside], np.rint(base[inside] * factor).astype(np.int64))
    rest = ~inside
    rest[E.PHASE_TOTAL_AT] = False
    assert np.array_equal(out[rest], base[rest])
    assert out[E.PHASE_TOTAL_AT] == E.phase_total(out)
    assert not out.flags.writeable and base.flags.writeable is False


def test_scaled_tables_combines_groups_and_leaves_the_base_alone() -> None:
    base = E.eval_tables().copy()
    out = E.scaled_tables({"mobility": 2.0, "king_safety": 0.5})
    mob = E.WEIGHT_GROUPS["mobility"][0]
    shield = E.WEIGHT_GROUPS["king_safety"][0]
    assert np.array_equal(out[mob.start:mob.stop], base[mob.start:mob.stop] * 2)
    assert np.array_equal(out[shield.start:shield.stop], np.rint(base[shield.start:shield.stop] * 0.5))
    assert np.array_equal(E.eval_tables(), base)
    assert np.array_equal(E.scaled_tables({}), base)


@pytest.mark.parametrize("scales", [{"aggression": 1.0}, {"material": -1.0}, {"pst": math.nan},
                                    {"mobility": math.inf}])
def test_scaled_tables_refuses_unknown_groups_and_bad_factors(scales: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        E.scaled_tables(scales)


def test_the_hand_set_weights_score_the_start_position_as_the_tempo_only() -> None:
    ev = E.default_weights()
    assert _score(chess.STARTING_FEN, ev) == E.TEMPO


def _weight_sets() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(11)
    noisy = E.default_weights()
    noisy[:E.PHASE_TOTAL_AT] += rng.integers(-30, 30, size=E.PHASE_TOTAL_AT)
    noisy[E.PHASE_W_AT:E.PHASE_W_AT + 6] = rng.integers(0, 9, size=6)
    noisy[E.PHASE_W_AT + 4] = 8
    return [("hand-set", E.default_weights()), ("file", E.eval_tables()),
            ("styled", E.scaled_tables({"mobility": 1.5, "king_safety": 2.0, "material": 0.8})),
            ("noisy", E.with_derived(noisy))]


@pytest.mark.parametrize(("name", "ev"), _weight_sets())
def test_the_colour_mirror_gives_the_same_score_to_the_side_to_move(name: str, ev: np.ndarray) -> None:
    """Colours and turn swapped, ranks flipped: White's view of the score is negated."""
    for fen in FENS:
        board = chess.Board(fen)
        mirrored = board.mirror()
        assert _score(fen, ev) == _score(mirrored.fen(), ev), (name, fen)
