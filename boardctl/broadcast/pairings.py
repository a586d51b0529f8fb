"""Who plays on which board: a CSV file, a FIDE TRF-16 file, or a ``boardctl tournament``'s round.

A ``boardctl tournament`` file (``tournaments/<id>.json`` in the data folder): the round asked (the
latest paired one if none is), its games in the order the tournament paired them, byes left out.

CSV: a header line naming at least ``board``, ``white`` and ``black`` (``red`` for ``white`` in
xiangqi), and optionally ``round``; one line per board. TRF-16: the ``001`` player lines, and
for the round asked (the last one with pairings if none is asked) each game once, its boards
numbered as the pairing programs list them: the higher-placed player's board first (by the
better of the two starting ranks).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from boardctl.broadcast.schema import BroadcastError

#: A pairings file larger than this is not a club's (and is refused before it is read whole).
MAX_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Pairing:
    board: str
    white: str
    black: str
    round: str = ""


def board_key(name: str) -> str:
    """How a topic's board name meets a pairing's: ``7``, ``b7``, ``board-07`` all mean board 7."""
    digits = re.findall(r"[0-9]+", name)
    return str(int(digits[-1])) if digits else name.lower()


def read_pairings(path: Path, *, round_no: int | None = None) -> dict[str, Pairing]:
    """The pairings in ``path`` by :func:`board_key`; BroadcastError names the file and line."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise BroadcastError(f"{path}: larger than {MAX_BYTES} bytes")
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise BroadcastError(f"{path}: cannot read the pairings ({exc})") from None
    if path.suffix.lower() == ".json":
        return parse_tournament(text, where=str(path), round_no=round_no)
    if path.suffix.lower() == ".trf" or text.startswith("012 ") or "\n001 " in text or text.startswith("001 "):
        return parse_trf(text, where=str(path), round_no=round_no)
    return parse_csv(text, where=str(path))


def parse_csv(text: str, *, where: str = "pairings") -> dict[str, Pairing]:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise BroadcastError(f"{where}: empty")
    head = [h.strip().lower() for h in rows[0]]
    head = ["white" if h == "red" else h for h in head]
    missing = [h for h in ("board", "white", "black") if h not in head]
    if missing:
        raise BroadcastError(f"{where}:1: the header must name board, white and black (missing {', '.join(missing)})")
    out: dict[str, Pairing] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(head):
            raise BroadcastError(f"{where}:{number}: {len(row)} columns, the header has {len(head)}")
        cells = {h: c.strip()[:100] for h, c in zip(head, row, strict=True)}
        if not cells["board"]:
            raise BroadcastError(f"{where}:{number}: no board")
        key = board_key(cells["board"])
        if key in out:
            raise BroadcastError(f"{where}:{number}: board {cells['board']} paired twice")
        out[key] = Pairing(cells["board"], cells["white"], cells["black"], cells.get("round", ""))
    return out


def parse_trf(text: str, *, where: str = "pairings", round_no: int | None = None) -> dict[str, Pairing]:
    """Boards of one round of a TRF-16 file (columns as FIDE's TRF-16 describes the ``001`` line)."""
    names: dict[int, str] = {}
    rank_of: dict[int, float] = {}
    games: dict[int, dict[int, tuple[int, str]]] = {}  # round -> start number -> (opponent, colour)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("001 "):
            continue
        try:
            start = int(line[4:8])
            name = line[14:47].strip()
        except ValueError:
            raise BroadcastError(f"{where}:{number}: not a TRF-16 player line") from None
        names[start] = name[:100]
        rank_text = line[85:89].strip()
        rank_of[start] = float(rank_text) if rank_text.isdigit() else float(start)
        rounds = line[89:]  # each round: 2 blanks, opponent (4), blank, colour, blank, result
        for index in range(0, len(rounds), 10):
            block = rounds[index:index + 10]
            if len(block.strip()) == 0:
                continue
            opponent, colour = block[2:6].strip(), block[7:8]
            if opponent.isdigit() and int(opponent) > 0 and colour in "wb":
                games.setdefault(index // 10 + 1, {})[start] = (int(opponent), colour)
    if not names:
        raise BroadcastError(f"{where}: no TRF-16 player lines (001)")
    if not games:
        raise BroadcastError(f"{where}: no paired games in any round")
    chosen = round_no if round_no is not None else max(games)
    if chosen not in games:
        raise BroadcastError(f"{where}: round {chosen} has no pairings (rounds with pairings: "
                             f"{', '.join(str(r) for r in sorted(games))})")
    pairs = sorted(((min(rank_of.get(white, white), rank_of.get(black, black)), white, black)
                    for white, (black, colour) in games[chosen].items() if colour == "w"))
    return {str(board): Pairing(str(board), names.get(white, f"#{white}"), names.get(black, f"#{black}"), str(chosen))
            for board, (_, white, black) in enumerate(pairs, start=1)}


def parse_tournament(text: str, *, where: str = "pairings", round_no: int | None = None) -> dict[str, Pairing]:
    """Boards of one round of a ``boardctl tournament`` file."""
    import json

    from boardctl.learning.tournament import Tournament

    try:
        tournament = Tournament.from_json(json.loads(text), where=where)
    except (ValueError, TypeError, AttributeError, KeyError) as exc:
        raise BroadcastError(f"{where}: not a boardctl tournament file ({str(exc)[:200]})") from None
    names = {p.number: p.name[:100] for p in tournament.players}
    paired = sorted({g.round for g in tournament.games})
    if not paired:
        raise BroadcastError(f"{where}: no round paired yet")
    chosen = round_no if round_no is not None else paired[-1]
    games = [g for g in tournament.games if g.round == chosen and g.black is not None]
    if not games:
        raise BroadcastError(f"{where}: round {chosen} has no games (paired rounds: {', '.join(map(str, paired))})")
    return {str(board): Pairing(str(board), names[g.white], names[g.black] if g.black is not None else "", str(chosen))
            for board, g in enumerate(games, start=1)}
