"""Per-colour style scales of the evaluation (``sided_tables``, ``Style KingAttack`` /
``Style KingSafety``): neutral they change nothing, and set they change only the side they name."""

from __future__ import annotations

import chess
import numpy as np
import pytest

import engine.evaluate as E
from engine.position import Position, tables
from engine.style import Style, style_tables, tropism

# Positions with king attacks of either side (two attackers or more near a king), shelters of
# 0..3 pawns, and quiet ones, so every branch of the king terms is met.
FENS = (
    chess.STARTING_FEN,
    "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQK2R w KQ - 0 6",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1b2rk1/ppq1bppp/2n1pn2/3p2B1/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 10",
    "r4rk1/pp3ppp/2n5/3q4/3P2b1/2PB1N2/P4PPP/R2Q1RK1 b - - 0 15",
    "2kr3r/ppp2ppp/2n5/2b1q3/4n3/2N2N2/PPPBBPPP/R2QK2R w KQ - 0 11",
    "r1bqr1k1/ppp2pBp/2np2p1/8/2BnP2Q/2N5/PPP2PPP/R3K2R b KQ - 0 11",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 40",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "r2q1rk1/1b2bppp/p2p1n2/1p2p1N1/4P1Q1/1BN5/PPP2PPP/R1B2RK1 w - - 0 14",
    "4r1k1/5ppp/8/3Q4/8/5N2/5PPP/6K1 b - - 0 30",
    "r1bq1rk1/pp3ppp/2n1p3/3n4/1b1P4/2NB1N2/PP3PPP/R1BQ1RK1 w - - 0 10",
)


def _score(fen: str, ev: np.ndarray) -> int:
    pos = Position.from_board(chess.Board(fen))
    return int(E.evaluate(tables(), ev, pos.bb, pos.mb, pos.st))


def _mirror(fen: str) -> str:
    return chess.Board(fen).mirror().fen()


def test_neutral_scales_are_the_plain_evaluation() -> None:
    base = E.eval_tables()
    neutral = E.sided_tables(base)
    assert np.array_equal(neutral, base)
    assert list(base[E.SIDE_PCT_AT:E.SIDE_PCT_AT + 6]) == [100, 100, 100, 100, 0, 0]
    assert np.array_equal(style_tables(Style(scales=(("Style KingAttack", 100), ("Style KingSafety", 100)))), base)
    for fen in FENS:
        assert _score(fen, neutral) == _score(fen, base)


def test_side_scales_are_not_in_the_weights_file() -> None:
    text = E.weights_to_json(E.eval_tables())
    assert "SIDE_STYLE" not in text
    back, _ = E.weights_from_json(text)
    assert np.array_equal(back, E.eval_tables())


@pytest.mark.parametrize("fen", FENS)
@pytest.mark.parametrize(("danger", "shield", "tropism"),
                         [((300, 100), (100, 100), (0, 0)), ((100, 250), (100, 100), (0, 0)),
                          ((60, 300), (200, 100), (20, 0)), ((100, 100), (0, 300), (0, 15)),
                          ((0, 0), (50, 50), (-10, 30))])
def test_a_sided_evaluation_is_its_colour_mirror(fen: str, danger: tuple[int, int], shield: tuple[int, int],
                                                 tropism: tuple[int, int]) -> None:
    """Scaling White's terms in a position scores as scaling Black's in the mirrored one."""
    base = E.eval_tables()
    ev = E.sided_tables(base, danger=danger, shield=shield, tropism=tropism)
    swapped = E.sided_tables(base, danger=danger[::-1], shield=shield[::-1], tropism=tropism[::-1])
    assert _score(fen, ev) == _score(_mirror(fen), swapped)


@pytest.mark.parametrize("fen", FENS)
def test_king_attack_and_safety_pull_apart_for_the_side_played(fen: str) -> None:
    """With the hand-set weights (every king danger a penalty, every shield a bonus): for the
    side to move, more attack on the enemy king never lowers its score, more fear for its own
    king never raises it, a bigger own shield never lowers it."""
    base = E.default_weights()
    side = 0 if chess.Board(fen).turn == chess.WHITE else 1
    plain = _score(fen, base)

    def mine(pct: int) -> tuple[int, int]:
        return (pct, 100) if side == 0 else (100, pct)

    def theirs(pct: int) -> tuple[int, int]:
        return (100, pct) if side == 0 else (pct, 100)

    for pct in (0, 50, 200, 400):
        attack = _score(fen, E.sided_tables(base, danger=theirs(pct)))
        fear = _score(fen, E.sided_tables(base, danger=mine(pct)))
        shield = _score(fen, E.sided_tables(base, shield=mine(pct)))
        near = _score(fen, E.sided_tables(base, tropism=((pct, 0) if side == 0 else (0, pct))))
        assert (attack >= plain) if pct > 100 else (attack <= plain)
        assert (fear <= plain) if pct > 100 else (fear >= plain)
        assert (shield >= plain) if pct > 100 else (shield <= plain)
        assert near >= plain


def test_attack_scale_moves_the_score_where_a_king_is_attacked() -> None:
    fen = "r1bqr1k1/ppp2pBp/2np2p1/8/2BnP2Q/2N5/PPP2PPP/R3K2R b KQ - 0 11"  # White's pieces around Black's king
    white = chess.Board(fen)
    white.turn = chess.WHITE
    base = E.eval_tables()
    plain = _score(white.fen(), base)
    assert _score(white.fen(), style_tables(Style(scales=(("Style KingAttack", 300),)), 0)) > plain
    # the same scale for Black's side scales the danger of the White king, which is safe here
    assert _score(white.fen(), style_tables(Style(scales=(("Style KingAttack", 300),)), 1)) == plain


@pytest.mark.parametrize("bad", [(-1, 100), (100, 10_001), (100,), (1.5, 100)])
def test_bad_scales_are_refused(bad: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="percentages"):
        E.sided_tables(E.eval_tables(), danger=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("fen", "white_near", "black_near"), [
    ("r1bqr1k1/ppp2pBp/2np2p1/8/2BnP2Q/2N5/PPP2PPP/R3K2R w KQ - 0 11", 1, 0),  # Bg7 (Qh4 is too far)
    ("q5k1/5pBp/5N2/8/8/8/5PPP/Q5K1 b - - 0 1", 2, 0),  # Bg7 and Nf6 by Black's king
    ("rnb1kbnr/pppp1ppp/8/8/4P3/5q2/PPPP1PPP/RNBQKBNR w KQkq - 0 3", 0, 1),  # Qf3 by White's king
    (chess.STARTING_FEN, 0, 0),
])
def test_tropism_counts_the_pieces_within_two_squares_of_the_enemy_king(fen: str, white_near: int,
                                                                          black_near: int) -> None:
    """The bonus moves the score only with pieces that close, and by more with more of them."""
    base = E.default_weights()
    plain = _score(fen, base)
    white = _score(fen, E.sided_tables(base, tropism=(40, 0))) - plain
    black = _score(fen, E.sided_tables(base, tropism=(0, 40))) - plain
    sign = 1 if chess.Board(fen).turn == chess.WHITE else -1
    assert (sign * white > 0) == (white_near > 0) and sign * white >= 0
    assert (-sign * black > 0) == (black_near > 0) and -sign * black >= 0
    if white_near:  # linear in the bonus (tapered by the phase, so up to rounding)
        half = _score(fen, E.sided_tables(base, tropism=(20, 0))) - plain
        assert abs(white - 2 * half) <= 2


@pytest.mark.parametrize(("scales", "sided"), [
    ((("Style KingAttack", 300), ("Style KingSafety", 60)), True),
    ((("Style KingSafety", 200),), True),
    ((("Style KingAttack", 100), ("Style Material", 150)), False),
    ((("Style Mobility", 50),), False),
])
def test_style_tables_depend_on_the_side_played_only_when_sided(scales: tuple[tuple[str, int], ...],
                                                                sided: bool) -> None:
    style = Style(scales=scales)
    assert style.is_sided is sided
    white, black = style_tables(style, 0), style_tables(style, 1)
    assert (not np.array_equal(white, black)) is sided
    at = E.SIDE_PCT_AT
    values = dict(scales)
    attack, safety = values.get("Style KingAttack", 100), values.get("Style KingSafety", 100)
    assert list(white[at:at + 6]) == [safety, attack, safety, 100, tropism(attack), 0]
    assert list(black[at:at + 6]) == [attack, safety, 100, safety, 0, tropism(attack)]


@pytest.mark.parametrize(("attack", "bonus"), [
    (100, 0), (101, 0), (103, 1), (130, 10), (220, 40), (300, 66), (400, 100),
    (99, 0), (97, -1), (80, -6), (60, -13), (40, -20), (0, -33),
])
def test_tropism_follows_king_attack_both_ways(attack: int, bonus: int) -> None:
    """An attacker is drawn to the enemy king, a style that cares little for the attack keeps its
    pieces away (the defender's ``Style KingAttack`` 40): symmetric around 100%, 1 cp per 3%."""
    assert tropism(attack) == bonus
    assert tropism(attack) == -tropism(200 - attack) if attack <= 200 else True


def test_a_low_king_attack_scores_pieces_near_the_enemy_king_lower() -> None:
    fen = "q5k1/5pBp/5N2/8/8/8/5PPP/Q5K1 w - - 0 1"  # Bg7 and Nf6 by Black's king, White to move
    plain = _score(fen, E.eval_tables())
    shy = _score(fen, style_tables(Style(scales=(("Style KingAttack", 40),)), 0))
    keen = _score(fen, style_tables(Style(scales=(("Style KingAttack", 300),)), 0))
    assert shy < plain < keen
