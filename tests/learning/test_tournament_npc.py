"""Games between characters: really played by the engine over UCI, saved as PGN, results entered
under the store's lock; the background runner survives being killed mid-round."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import pytest

from boardctl.engine_client import resolve_command
from boardctl.learning import npc_games
from boardctl.learning.npc_games import NodeEngine, Npc, play_game, run_round
from boardctl.learning.tournament import Format, Tournament, TournamentStore

ENGINE = resolve_command("")
#: A small budget keeps the tests quick; bench/tournament.py measures the real one.
NODES = 300


def test_node_engine_searches_by_nodes() -> None:
    engine = NodeEngine(ENGINE, level="1500", nodes=1234, options={"Contempt": 10, "NoSuchOption": 1})
    assert engine.go_command(5.0) == "go nodes 1234"


@pytest.mark.slow
def test_a_game_between_characters_is_played_by_the_rules() -> None:
    game = asyncio.run(
        play_game(Npc("Strong", 2000, uci_options={"NoSuchOption": 3}), Npc("Weak", 800), nodes=NODES, command=ENGINE, max_plies=60)
    )
    assert game.result in ("1-0", "0-1", "1/2-1/2")
    board = chess.Board()
    for uci in game.moves:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves
        board.push(move)
    if len(game.moves) < 60:  # ended by the rules: the result is the board's
        outcome = board.outcome(claim_draw=True)
        assert outcome is not None and outcome.result() == game.result
    else:
        assert game.result == "1/2-1/2" and "adjudicated" in game.termination
    parsed = chess.pgn.read_game(__import__("io").StringIO(game.pgn(event="test", round_number=1, nodes=NODES)))
    assert parsed is not None
    assert parsed.headers["White"] == "Strong" and parsed.headers["Black"] == "Weak"
    assert [m.uci() for m in parsed.mainline_moves()] == list(game.moves)


def _four(store: TournamentStore) -> Tournament:
    t = Tournament.new(
        [("Ann", 1600, False), ("Bob", 1400, False), ("Cid", 1000, False), ("You", 1200, True)],
        tournament_id="rr4",
        format=Format.ROUND_ROBIN,
    ).pair_next_round()
    store.save(t)
    return t


@pytest.mark.slow
def test_run_round_plays_only_the_characters_games(tmp_path: Path) -> None:
    store = TournamentStore(tmp_path)
    t = _four(store)
    assert len(npc_games.npc_games(t)) == 1  # 4 players: you play one board, the characters the other
    played = asyncio.run(run_round(store, "rr4", {}, nodes=NODES, command=ENGINE, max_plies=40))
    assert played == 1
    after = store.load("rr4")
    [mine] = [g for g in after.pending()]
    assert after.user() is not None and after.user().number in (mine.white, mine.black)  # type: ignore[union-attr]
    [done] = [g for g in after.round_games(1) if g.result is not None]
    pgn = npc_games.pgn_path(store, "rr4", done)
    assert pgn.exists()
    headers = chess.pgn.read_headers(pgn.open())
    assert headers is not None and headers["Result"] == done.result
    assert asyncio.run(run_round(store, "rr4", {}, nodes=NODES, command=ENGINE)) == 0  # nothing left


def test_one_runner_at_a_time(tmp_path: Path) -> None:
    store = TournamentStore(tmp_path)
    _four(store)
    with npc_games.runner_lock(store, "rr4") as first:
        assert first
        assert npc_games.is_running(store, "rr4")
    assert not npc_games.is_running(store, "rr4")


def _eight(store: TournamentStore) -> Tournament:
    entrants = [(f"C{i}", 900 + 100 * i, False) for i in range(7)] + [("You", 1200, True)]
    t = Tournament.new(entrants, tournament_id="rr8", format=Format.ROUND_ROBIN).pair_next_round()
    store.save(t)
    return t


@pytest.mark.slow
def test_background_runner_killed_mid_round_is_taken_up_again(tmp_path: Path) -> None:
    """kill -9 the runner (and its engines) while it plays; a new runner finishes the round, each
    game entered once, the file readable throughout."""
    store = TournamentStore(tmp_path)
    _eight(store)
    args = [sys.executable, "-m", "boardctl.learning.npc_games", "--folder", str(tmp_path), "--tournament", "rr8",
            "--nodes", str(NODES)]
    proc = subprocess.Popen(args, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(g.result for g in store.load("rr8").round_games(1)):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    cut = store.load("rr8")
    assert 1 <= sum(g.result is not None for g in cut.round_games(1)) <= 3
    assert not npc_games.is_running(store, "rr8")  # the lock died with it
    assert subprocess.run(args, timeout=300, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    done = store.load("rr8")
    assert npc_games.npc_games(done) == []
    for g in done.round_games(1):
        if g.result is not None:
            assert npc_games.pgn_path(store, "rr8", g).exists()
        assert cut.round_games(1)[done.round_games(1).index(g)].result in (None, g.result)  # never re-entered
    assert len(done.pending()) == 1  # yours


@pytest.mark.parametrize("level", ["", "1500"])
def test_npc_levels(level: str) -> None:
    npc = Npc("X", 1333, level=level)
    assert npc.engine_level == (level or "1333")


@pytest.mark.slow
def test_the_runner_and_the_command_never_import_numba() -> None:
    code = ("import sys, boardctl.learning.npc_games, boardctl.commands.tournament, boardctl.web.tournament_api; "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.slow
def test_seats_keep_their_engines_over_games_and_reseat_each_player() -> None:
    """The benchmarks' way (bench/characters.py): one pair of engine processes for many games,
    each game played from the start with that game's players; a caller's adjudication ends one."""

    async def scenario() -> None:
        async with npc_games.Seats(ENGINE, nodes=NODES) as seats:
            styled = Npc("Styled", 1500, level="1500", uci_options={"Style KingAttack": "300", "Contempt": "40"})
            first = await play_game(styled, Npc("Plain", 1500), nodes=NODES, seats=seats, max_plies=12)
            pids = [e.pid for e in seats.engines]
            assert seats.engines[0].extra == {"Style KingAttack": "300", "Contempt": "40"}
            calls: list[int] = []

            def stop_at_six(board: object) -> tuple[str, str] | None:
                calls.append(1)
                return ("0-1", "resigned") if len(calls) == 6 else None

            second = await play_game(Npc("Plain", 1200), styled, nodes=NODES, seats=seats, max_plies=40,
                                     adjudicate=stop_at_six)
            assert [e.pid for e in seats.engines] == pids  # the same processes
            assert seats.engines[0].extra == {} and seats.engines[0].level == "1200"
            assert seats.engines[1].level == "1500"
        assert len(first.moves) <= 12 and first.result in ("1-0", "0-1", "1/2-1/2")
        assert len(second.moves) == 6 and (second.result, second.termination) == ("0-1", "resigned")
        board = chess.Board()
        for uci in second.moves:  # from the start position: a new game, not the first one's end
            board.push_uci(uci)
        assert all(not e.is_alive() for e in seats.engines)

    asyncio.run(scenario())
