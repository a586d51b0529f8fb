"""Playing levels, for chess and xiangqi alike, as standard UCI options any engine understands.

The one home of every level rule, in the daemon's package (the engine program reads it too, through
``engine/levels.py``; no numba/numpy import here): the
named levels and their Chinese names, the Elo range a level request may name (config, CLI
and page validate through :func:`check_level`), and the engine's own ``UCI_Elo`` range.
The daemon sends ``uci_options(level)`` to whatever engine it runs (ours, Stockfish or
Fairy-Stockfish). Our engine maps ``Skill Level`` to a ``Strength`` (depth and node caps plus a
random pick among near-best moves) and ``UCI_Elo`` to a skill level; see docs/engine.md.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["CHINESE_NAMES", "ELO_MAX", "ELO_MIN", "LEVELS", "NAMED_LEVELS", "PRACTICE_LEVELS", "REQUEST_ELO_MAX",
           "REQUEST_ELO_MIN", "SKILL_MAX", "Level", "SkillParams", "check_level", "chinese_name", "skill_for_elo",
           "skill_params"]

ELO_MIN = 800  # our engine's UCI_Elo option
ELO_MAX = 2400
REQUEST_ELO_MIN = 400  # an Elo number asked for in config/CLI (clamped to each engine's own range)
REQUEST_ELO_MAX = 3200
SKILL_MAX = 20
NAMED_LEVELS = ("beginner", "intermediate", "advanced", "master")
PRACTICE_LEVELS = tuple(f"practice{n}" for n in range(1, 6))
CHINESE_NAMES = {"初级": "beginner", "中级": "intermediate", "高级": "advanced", "大师": "master"}


@dataclass(frozen=True)
class Level:
    """A named level: the Elo it aims at and the Skill Level used when Elo is unsupported."""

    name: str
    elo: int
    skill: int

    def uci_options(self, *, elo_range: tuple[int, int] | None = (ELO_MIN, ELO_MAX)) -> dict[str, int | bool]:
        """Options to send: UCI_Elo when the engine's range covers it, else Skill Level.

        Pass the engine's own UCI_Elo (min, max), or None when it has no UCI_Elo option.
        """
        if elo_range is not None and elo_range[0] <= self.elo <= elo_range[1]:
            return {"UCI_LimitStrength": True, "UCI_Elo": self.elo}
        return {"UCI_LimitStrength": False, "Skill Level": self.skill}


#: Each level: its label (the Elo it aims at on Stockfish 15.1's UCI_Elo scale) and the skill level
#: that plays there, chosen from measurement (bench.engine --calibrate: each level against
#: Stockfish at its label, those under Stockfish's floor of 1350 in a chain; docs/engine.md,
#: "Calibration (measured)"). Strength rises steeply at the low skills (skill 2 loses every game
#: to skill 5) and flattens at the top (skill 12 and full strength are about 200 Elo apart).
_TARGETS = (
    ("beginner", 900, 3),
    ("practice1", 1000, 4),
    ("practice2", 1200, 5),
    ("intermediate", 1300, 6),
    ("practice3", 1400, 7),
    ("practice4", 1600, 8),
    ("advanced", 1700, 10),
    ("practice5", 1800, 12),
    ("master", 2200, SKILL_MAX),
)
LEVELS: dict[str, Level] = {name: Level(name, elo, skill) for name, elo, skill in _TARGETS}
#: The chess UCI_Elo scale: the levels' (label, skill) pairs, below the lowest one the skill that
#: plays at ELO_MIN, and full strength from the master label up.
_CHESS_SCALE = ((ELO_MIN, 3), *sorted((elo, skill) for _, elo, skill in _TARGETS))


def skill_for_elo(elo: int, *, variant: str = "chess") -> int:
    """Our skill level for a UCI_Elo value: for chess interpolated between the measured levels (so a
    level's label gives that level's skill), for xiangqi (not calibrated on an Elo scale) linear
    between the option's bounds."""
    elo = max(ELO_MIN, min(ELO_MAX, elo))
    if variant != "chess":
        return round((elo - ELO_MIN) * SKILL_MAX / (ELO_MAX - ELO_MIN))
    for (lo_elo, lo_skill), (hi_elo, hi_skill) in itertools.pairwise(_CHESS_SCALE):
        if elo <= hi_elo:
            if hi_elo == lo_elo:
                return hi_skill
            return round(lo_skill + (hi_skill - lo_skill) * (elo - lo_elo) / (hi_elo - lo_elo))
    return SKILL_MAX


#: The node caps of the skills that sit between two depths (see skill_params): beginner (3) and
#: practice3 (7).
_HALF_DEPTH_NODES = {3: 1_000, 7: 1_600}


@dataclass(frozen=True)
class SkillParams:
    """Search limits behind one skill level (mirrors engine.searcher.Strength)."""

    max_depth: int
    max_nodes: int | None
    margin: int
    temperature: float


def skill_params(skill: int) -> SkillParams:
    """Depth/node caps and near-best randomness for a skill level 0-20 (20 = full strength)."""
    skill = max(0, min(SKILL_MAX, skill))
    if skill == SKILL_MAX:
        return SkillParams(99, None, 0, 0.0)
    # Strength jumps with each ply of depth (depth 2 lost all 40 games to depth 3; depth 3 at
    # about 1250 on Stockfish's scale, depth 4 at about 1700). A level between two depths gets the
    # deeper one within a node cap under which it completes on about half the moves: from a cold
    # table our search needs a median of 624 nodes for depth 3 and 1,641 for depth 4 on book
    # positions (docs/engine.md, "Calibration (measured)").
    depths = (1, 1, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 6, 6, 7, 8, 9, 10, 12)
    margin = round(2 * (SKILL_MAX - skill) ** 2)
    return SkillParams(
        max_depth=depths[skill],
        max_nodes=_HALF_DEPTH_NODES.get(skill, int(300 * 1.6 ** skill)),
        margin=margin,
        temperature=margin / 4,
    )


def chinese_name(level: str) -> str | None:
    """初级/中级/高级/大师 for the four named levels (as the xiangqi page shows them), else None."""
    return next((zh for zh, en in CHINESE_NAMES.items() if en == level), None)


_ELO_TEXT = re.compile(r"[0-9]{3,4}")


def check_level(value: Any) -> str:
    """A level request as given by config, CLI or page, canonical; raises ValueError naming the rule.

    Accepts a named level (or its Chinese name, returned in English), ``practice1``-``practice5``,
    or an Elo number (int or numeric string) from REQUEST_ELO_MIN to REQUEST_ELO_MAX.
    """
    if isinstance(value, str) and value in NAMED_LEVELS + PRACTICE_LEVELS:
        return value
    if isinstance(value, str) and value in CHINESE_NAMES:
        return CHINESE_NAMES[value]
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    # ASCII digits only: str.isdigit() also takes "١٥٠٠" and "¹", which int() reads or refuses.
    if isinstance(text, str) and _ELO_TEXT.fullmatch(text) and REQUEST_ELO_MIN <= int(text) <= REQUEST_ELO_MAX:
        return text
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:60] + "..."
    raise ValueError(
        f"must be one of {', '.join(NAMED_LEVELS)} ({', '.join(CHINESE_NAMES)}), practice1-practice5 "
        f"or an Elo number from {REQUEST_ELO_MIN} to {REQUEST_ELO_MAX}, got {shown}"
    )
