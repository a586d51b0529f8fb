"""Impossible set-ups are refused everywhere with one error naming every fault (issue 10, point 8)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import chess
import pytest

from boardctl import cli
from boardctl.daemon import ActionError, Daemon
from boardctl.errors import BoardctlError, PositionError
from boardctl.positions import board_from_fen, faults
from boardctl.session import Session, Settings
from boardctl.storage import GameStore
from boardctl.variants.chess.positions import FAULTS

#: (FEN, words the error must contain). Each is a fault ``chess.Board.status()`` reports.
IMPOSSIBLE = [
    ("4k3/8/8/8/8/8/4P3/3KK3 w - - 0 1", "more than one king"),
    ("8/8/8/8/8/8/4P3/4K3 w - - 0 1", "no black king"),
    ("4k3/8/8/8/8/8/4P3/8 w - - 0 1", "no white king"),
    ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", "the side not to move is in check"),
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawns on the first or last rank"),
    ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawns on the first or last rank"),
    ("4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", "more than 8 white pawns"),
    ("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1", "castling rights"),
    ("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", "en passant"),
    ("4k3/8/8/8/8/8/8/8 w - - 0 1", "no white king"),
    ("8/8/8/8/8/8/8/8 w - - 0 1", "the board is empty"),
    ("4k3/8/3N4/1B6/8/8/8/4RK2 b - - 0 1", "checked by more than two pieces"),
]


@pytest.mark.parametrize(("fen", "words"), IMPOSSIBLE)
def test_every_status_fault_is_named(fen: str, words: str) -> None:
    assert chess.Board(fen).status() != chess.STATUS_VALID
    with pytest.raises(PositionError, match=words) as info:
        board_from_fen(fen, where="--fen")
    assert str(info.value).startswith("--fen: impossible position (")
    assert isinstance(info.value, BoardctlError) and isinstance(info.value, ValueError)


def test_every_fault_python_chess_knows_has_a_name() -> None:
    known = sum(FAULTS, chess.STATUS_VALID)
    named = [flag for flag in chess.Status if flag and flag.name and not flag.name.startswith("RACE")]
    assert all(flag & known for flag in named)
    assert faults(chess.Board()) == []


def test_not_a_fen_at_all() -> None:
    with pytest.raises(PositionError, match="not a valid FEN"):
        board_from_fen("no fen here", where="--fen")


@pytest.mark.parametrize(("fen", "words"), IMPOSSIBLE[:5])
def test_replay_fen_exits_with_status_2(fen: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text('{"t": 1.0}\n', encoding="utf-8")
    assert cli.main(["replay", str(log), "--fen", fen]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert words in err and "--fen" in err and err.count("\n") == 1


@pytest.mark.parametrize("mode", ["record", "play"])
def test_play_and_record_refuse_an_impossible_fen(mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fen, words = IMPOSSIBLE[0]
    argv = [mode, "--board", "sim", "--stdio", "--no-web", "--games-dir", str(tmp_path / "games"), "--fen", fen]
    if mode == "play":
        argv += ["--engine", "/bin/false-engine-that-is-never-started"]
    code = cli.main(argv)
    _, err = capsys.readouterr()
    assert code == 2
    assert words in err


@pytest.mark.parametrize(("fen", "words"), IMPOSSIBLE[:4])
def test_new_game_action_refuses_an_impossible_fen(fen: str, words: str, tmp_path: Path) -> None:
    async def go() -> None:
        daemon = Daemon(Session(Settings(mode="record")), store=GameStore(tmp_path / "games"))
        with pytest.raises(ActionError, match=words):
            await daemon.submit({"new-game": {"fen": fen}})
        assert daemon.session.board.fen() == chess.STARTING_FEN
        await daemon.submit({"new-game": {"fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}})
        assert daemon.session.record.fen == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
        await daemon.close()

    asyncio.run(go())


def test_xiangqi_setups_are_checked_by_the_xiangqi_reader() -> None:
    from boardctl.variants import get_variant

    xiangqi = get_variant("xiangqi")
    board = board_from_fen("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1", where="--fen", variant=xiangqi)
    assert board.geometry is xiangqi.geometry and board.fen().startswith("4k4/R8/")
    for fen in ("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",  # the generals face each other
                "9/9/9/9/9/9/9/9/9/4K4 w - - 0 1",  # no black general
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"):  # a chess FEN
        with pytest.raises(PositionError, match="--fen"):
            board_from_fen(fen, where="--fen", variant=xiangqi)
