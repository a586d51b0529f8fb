"""Chess opening lessons: SAN lines checked move by move with python-chess, turned into UCI.

The files live in ``boardctl/data/lessons/<key>.toml`` (docs/learning.md describes the format);
a user may add more in a folder of their own.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import chess

from boardctl.learning.lessons import (
    Lesson,
    LessonError,
    LessonMove,
    LessonSpec,
    Line,
    LineSpec,
    read_spec,
)

#: The lessons shipped with boardctl, by command name (issue 15, section 4).
LESSON_KEYS = (
    "italian",
    "evans",
    "two-knights",
    "hungarian",
    "three-knights",
    "four-knights",
    "spanish",
    "philidor",
    "petrov",
)


def _resolve_line(spec: LineSpec) -> Line:
    board = chess.Board()
    moves: list[LessonMove] = []
    for i, (san, note) in enumerate(zip(spec.sans, spec.notes, strict=True)):
        try:
            move = board.parse_san(san)
        except ValueError:
            number = f"{i // 2 + 1}{'.' if i % 2 == 0 else '...'}"
            raise LessonError(
                f"{spec.where}.moves: move {number} {san!r} is not legal after "
                f"{' '.join(m.san for m in moves) or 'the start'}"
            ) from None
        moves.append(LessonMove(uci=move.uci(), san=board.san(move), note=note))
        board.push(move)
    return Line(name=spec.name, moves=tuple(moves))


def resolve(spec: LessonSpec) -> Lesson:
    """``spec`` with every move checked legal; LessonError names the file, the line and the move."""
    main = _resolve_line(spec.main)
    variations = tuple(_resolve_line(v) for v in spec.variations)
    seen: dict[str, str] = {main.line_id: spec.main.where}
    for line, v in zip(variations, spec.variations, strict=True):
        if line.line_id in seen:
            raise LessonError(f"{v.where}: the same moves as {seen[line.line_id]}")
        seen[line.line_id] = v.where
    return Lesson(
        key=spec.key,
        title=spec.title,
        eco=spec.eco,
        summary=spec.summary,
        main=main,
        variations=variations,
    )


def load_file(path: Path) -> Lesson:
    """The lesson in ``path``, checked."""
    return resolve(read_spec(path))


def shipped_folder() -> Path:
    """The folder of the lessons that ship with boardctl."""
    return Path(str(resources.files("boardctl").joinpath("data/lessons")))


def lesson_names(folder: Path | None = None) -> list[str]:
    """The lesson keys in ``folder`` (default: the shipped ones), sorted."""
    root = folder or shipped_folder()
    return sorted(p.stem for p in root.glob("*.toml"))


def load_lesson(key: str, *, folder: Path | None = None) -> Lesson:
    """The lesson called ``key``; LessonError lists the choices when there is none."""
    root = folder or shipped_folder()
    names = lesson_names(root)
    if key not in names:
        raise LessonError(f"no lesson called {key[:40]!r}: choose one of {', '.join(names)}")
    return load_file(root / f"{key}.toml")
