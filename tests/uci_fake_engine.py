"""A small scripted UCI engine for xiangqi, run as a real subprocess by tests/test_uci.py.

``python uci_fake_engine.py LOG [BEHAVIOUR]``: every command it reads is appended to LOG.
It answers ``go`` with the first legal move (by boardctl's xiangqi rules), an ``info`` line with
a score and a two-move pv first. Behaviours: ``normal``; ``no-variant`` (offers no UCI_Variant);
``die-once`` (exits at its first ``go`` if LOG has no ``died`` line yet); ``slow`` (answers
``go`` only at ``stop``); ``slow-once`` (so until the first ``stop``); ``mate`` (reports ``score mate 3``); ``book`` (``info string book move``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from boardctl.variants import get_variant


def main() -> None:
    log = Path(sys.argv[1])
    behaviour = sys.argv[2] if len(sys.argv) > 2 else "normal"
    variant = get_variant("xiangqi")
    board = variant.board()
    pending: str | None = None

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def best() -> str:
        moves = list(board.generate_legal_moves())
        first = moves[0]
        after = board.copy(stack=False)
        after.push(first)
        reply = next(iter(after.generate_legal_moves()))
        score = "mate 3" if behaviour == "mate" else "cp 42"
        if behaviour == "book":
            say("info string book move")
        else:
            say(f"info depth 2 score {score} pv {first.uci()} {reply.uci()}")
        return f"bestmove {first.uci()}"

    for raw in sys.stdin:
        line = raw.strip()
        with log.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        words = line.split()
        if line == "uci":
            say("id name fake-xq 1")
            if behaviour != "no-variant":
                say("option name UCI_Variant type combo default chess var chess var xiangqi")
            say("option name Skill Level type spin default 20 min 0 max 20")
            say("option name UCI_LimitStrength type check default false")
            say("option name UCI_Elo type spin default 2400 min 800 max 2400")
            say("uciok")
        elif line == "isready":
            say("readyok")
        elif words[:2] == ["position", "fen"]:
            at = words.index("moves") if "moves" in words else len(words)
            board = variant.board(" ".join(words[2:at]))
            for uci in words[at + 1:]:
                board.push(board.parse_uci(uci))
        elif words[:1] == ["go"]:
            if behaviour == "die-once" and "died" not in log.read_text(encoding="utf-8"):
                with log.open("a", encoding="utf-8") as f:
                    f.write("died\n")
                sys.exit(3)
            if behaviour == "slow" or (behaviour == "slow-once" and "stop" not in log.read_text(encoding="utf-8")):
                pending = best()
            else:
                say(best())
        elif line == "stop" and pending is not None:
            say(pending)
            pending = None
        elif line == "quit":
            return


if __name__ == "__main__":
    main()
