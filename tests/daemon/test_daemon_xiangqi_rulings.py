"""The 棋例 through the real daemon and replay (``boardctl record --board sim --stdio --variant
xiangqi``, then ``boardctl replay`` of its log): a forbidden cycle is warned on the state line and
lost when repeated, an allowed cycle's draw is claimed, and ``--xiangqi-rules asian`` keeps
pyffish's rulings. A few catalogue cases, in both colours; the catalogue itself is checked in
process (tests/variants/xiangqi/test_chinese_rules.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from boardctl.core.geometry import XIANGQI_9X10
from boardctl.variants.xiangqi.board import XiangqiBoard
from tests.variants.xiangqi.chinese_catalogue import CATALOGUE, Case, mirrored

pytestmark = pytest.mark.slow
G = XIANGQI_9X10


def _events(case: Case, cycles: int, extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Lift and place each move's piece (captures never happen in a cycle), settling between."""
    board = XiangqiBoard(case.fen)
    t, lines = 0.5, [{"t": 0}]
    for uci in list(case.moves) * cycles:
        move = board.parse_uci(uci)
        for square, occupied in ((move.from_square, False), (move.to_square, True)):
            t += 0.2
            lines.append({"t": round(t, 3), "square": G.square_name(square), "occupied": occupied})
        t += 0.8
        lines.append({"t": round(t, 3)})
        board.push(move)
    for line in extra or []:
        t += 0.3
        lines.append({**line, "t": round(t, 3)})
    lines.append({"t": round(t + 2.0, 3)})
    return lines


def _record(tmp_path: Path, case: Case, lines: list[dict[str, Any]], *extra: str) -> list[dict[str, Any]]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    out = subprocess.run(
        [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web", "--variant", "xiangqi",
         "--games-dir", str(tmp_path / "games"), "--fen", case.fen, *extra],
        input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True, text=True, timeout=120,
        env=env,
    )
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr[-3000:]
    return [json.loads(x) for x in out.stdout.splitlines()]


def _replayed(tmp_path: Path) -> str:
    (log,) = (tmp_path / "games").glob("*.jsonl")
    out = subprocess.run([sys.executable, "-m", "boardctl", "replay", str(log)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def _case(rule: str, index: int = 0) -> Case:
    return [c for c in CATALOGUE if c.rule == rule][index]


LOSSES = [_case("check and chase"), mirrored(_case("perpetual chase")), _case("perpetual mate threat", 0)]


@pytest.mark.parametrize("case", LOSSES, ids=[f"{c.rule}-{c.fen.split()[1]}" for c in LOSSES])
def test_a_forbidden_cycle_is_warned_then_lost_in_the_daemon_and_replay(tmp_path: Path, case: Case) -> None:
    states = _record(tmp_path, case, _events(case, 2))
    assert case.loser is not None
    warned = [s for s in states if "必须变着" in (s.get("warning") or "")]
    assert warned and any(led["why"] == "must-vary" for led in warned[0]["leds"])
    assert warned[0]["warning"].startswith(f"{case.loser.capitalize()} must vary")
    last = states[-1]
    result = "0-1" if case.loser == "red" else "1-0"
    assert last["result"] == result and "判负" in last["termination"], last["termination"]
    assert last["moves"] == list(case.moves) * 2
    pgn = _replayed(tmp_path)
    assert f'[Result "{result}"]' in pgn and last["termination"] in pgn


def test_an_allowed_cycle_is_claimed_in_the_daemon_and_replay(tmp_path: Path) -> None:
    case = _case("checks and one idle")
    states = _record(tmp_path, case, _events(case, 2, [{"button": "claim"}]))
    assert any("双方不变作和" in (s.get("warning") or "") for s in states)
    last = states[-1]
    assert (last["result"], last["termination"]) == ("1/2-1/2", "draw claimed: repetition (双方不变作和)")
    pgn = _replayed(tmp_path)
    assert '[Result "1/2-1/2"]' in pgn and "双方不变作和" in pgn


def test_the_asian_rules_are_kept_by_the_flag(tmp_path: Path) -> None:
    case = _case("check and chase")
    last = _record(tmp_path, case, _events(case, 2), "--xiangqi-rules", "asian")[-1]
    assert (last["result"], last["termination"]) == ("1/2-1/2", "repetition")
    pgn = _replayed(tmp_path)  # the log's header carries the rules: replay rules as the daemon did
    assert '[Result "1/2-1/2"]' in pgn


@pytest.mark.parametrize(("rules", "result"), [("chinese", "0-1"), ("asian", "1/2-1/2")])
def test_replay_of_a_hand_made_log_rules_the_arbiter_s_case(tmp_path: Path, rules: str, result: str) -> None:
    """The issue's command: ``boardctl replay --variant xiangqi --fen ...`` of a log with no header."""
    case = _case("check and chase")
    log = tmp_path / "arbiter.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in _events(case, 2)[1:]), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "boardctl", "replay", "--variant", "xiangqi", "--fen", case.fen, "--xiangqi-rules", rules,
         str(log)], capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert f'[Result "{result}"]' in out.stdout
    if rules == "chinese":
        assert "check and chase (一将一捉判负)" in out.stdout
