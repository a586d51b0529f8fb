"""Computer opponents with a character: a name, a rating, a style and an opening repertoire.

The list is data (``boardctl/data/characters.toml``, extended or overridden by the user's
``$XDG_CONFIG_HOME/boardctl/characters.toml``), validated here once. Each character plays one
game (``game``: chess, the default, or xiangqi, whose openings are the xiangqi book's and whose
style is the same options applied to the xiangqi evaluation, engine/xq_style.py). A character is played by
sending its :attr:`Character.uci_options` to our engine (style: evaluation weights, contempt
and its repertoire as the book, as Rodent IV's personalities do) and its :attr:`Character.level`
through the existing level machinery (strength). Ratings run from :data:`RATING_MIN` up to the
engine's measured full strength, :data:`RATING_MAX` (docs/performance.md, "The engine: chess": 51% against Stockfish at
``UCI_Elo`` 2000); no character is labelled above what the engine measures.
"""

from __future__ import annotations

import csv
import difflib
import functools
import logging
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from boardctl.errors import ConfigError
from boardctl.levels import ELO_MAX, ELO_MIN, check_level

if TYPE_CHECKING:
    from boardctl.learning.rating import Rating, RatingStore
    from boardctl.session import Settings
    from boardctl.storage import GameRecord

log = logging.getLogger(__name__)

#: The lowest rating a character may have, and the engine's measured full strength (the highest).
RATING_MIN = 800
RATING_MAX = 2000
MAX_FILE_BYTES = 1 << 20
MAX_CHARACTERS = 500
MAX_TEXT = 400
MAX_OPENINGS = 12
FILE_NAME = "characters.toml"

#: The style options our engine offers (engine/uci.py), with their ranges. `Style KingAttack`
#: is the danger the character sees for the enemy king, `Style KingSafety` the danger (and pawn
#: shield) it sees for its own: apart, as in Rodent IV, so an attacker need not fear for its king.
STYLE_OPTIONS: Mapping[str, tuple[int, int]] = MappingProxyType({
    "Style Material": (25, 400),
    "Style KingAttack": (0, 400),
    "Style Mobility": (0, 400),
    "Style PawnStructure": (0, 400),
    "Style KingSafety": (0, 400),
    "Contempt": (-200, 200),
})
BOOK_OPTION = "Book Lines"

#: Each style as engine options (percent of the normal weight; contempt in centipawns).
STYLES: Mapping[str, Mapping[str, int]] = MappingProxyType({
    "attacker": {"Style Material": 80, "Style KingAttack": 340, "Style KingSafety": 60, "Style Mobility": 150,
                 "Style PawnStructure": 60, "Contempt": 80},
    "gambiteer": {"Style Material": 70, "Style KingAttack": 220, "Style KingSafety": 80, "Style Mobility": 200,
                  "Style PawnStructure": 50, "Contempt": 50},
    "solid defender": {"Style Material": 110, "Style KingAttack": 40, "Style KingSafety": 200, "Style Mobility": 60,
                       "Style PawnStructure": 200, "Contempt": -150},
    "positional player": {"Style Material": 100, "Style KingAttack": 80, "Style KingSafety": 110,
                          "Style Mobility": 140, "Style PawnStructure": 170, "Contempt": 10},
    "endgame grinder": {"Style Material": 115, "Style KingAttack": 40, "Style KingSafety": 180, "Style Mobility": 90,
                        "Style PawnStructure": 160, "Contempt": 150},
    "materialist": {"Style Material": 150, "Style KingAttack": 60, "Style KingSafety": 100, "Style Mobility": 80,
                    "Style PawnStructure": 100, "Contempt": 0},
    "beginner who blunders": {"Style Material": 40, "Style KingAttack": 120, "Style KingSafety": 30,
                              "Style Mobility": 40, "Style PawnStructure": 25, "Contempt": 0},
})

_KEYS = frozenset({"id", "name", "rating", "style", "profile", "openings", "initials", "level", "options", "game"})
#: The games characters play, and where each game's opening names come from.
GAMES = ("chess", "xiangqi")
_OPENING_DATA = {"chess": "boardctl/data/openings.tsv", "xiangqi": "engine/data/xiangqi_openings.tsv"}
_REQUIRED = ("id", "name", "rating", "style", "profile", "openings")


class CharacterError(ConfigError):
    """A characters file that cannot be used, or a name that is no character; the message says
    which file and key, or which names come close."""


@dataclass(frozen=True)
class Character:
    """One opponent. ``uci_options`` are sent to our engine as they are (style and book);
    ``level`` goes through the level machinery (``--level``)."""

    id: str
    name: str
    rating: int
    style: str
    profile: str
    initials: str
    level: str
    uci_options: Mapping[str, str]
    openings: tuple[str, ...]
    book_lines: tuple[str, ...] = field(default=(), kw_only=True)  # the movetext of every line
    game: str = field(default="chess", kw_only=True)  # the game it plays (GAMES)

    def to_json(self) -> dict[str, Any]:
        """What the page shows (no book lines: they are the engine's business)."""
        return {"id": self.id, "name": self.name, "rating": self.rating, "style": self.style,
                "profile": self.profile, "initials": self.initials, "level": self.level,
                "openings": list(self.openings), "game": self.game}


def level_for_rating(rating: int) -> str:
    """The level (a UCI_Elo number ``--level`` takes) that plays at ``rating``: our engine's chess
    UCI_Elo scale is the measured one (engine/levels.py), so it is the rating itself."""
    return str(max(ELO_MIN, min(ELO_MAX, rating)))


def initials_of(name: str) -> str:
    """``"Benny Blunder"`` -> ``"BB"``: the first letters of the first two words."""
    words = [w for w in name.replace("-", " ").split() if w[:1].isalpha()]
    return "".join(w[0].upper() for w in words[:2]) or name[:2].upper()


@functools.cache
def opening_lines() -> Mapping[str, tuple[str, ...]]:
    """Opening name -> the movetext of every line of that name in the opening data."""
    text = resources.files("boardctl").joinpath("data/openings.tsv").read_text(encoding="utf-8")
    lines: dict[str, list[str]] = {}
    for row in csv.DictReader(text.splitlines(), delimiter="\t"):
        lines.setdefault(row["name"], []).append(row["pgn"])
    return MappingProxyType({name: tuple(pgns) for name, pgns in lines.items()})


def user_file() -> Path:
    """``$XDG_CONFIG_HOME/boardctl/characters.toml``, beside the config file."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "boardctl" / FILE_NAME


def _read_toml(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CharacterError(f"{where}: not valid TOML ({exc})") from None
    except (ValueError, RecursionError) as exc:  # an integer past Python's digit limit, deep nesting
        raise CharacterError(f"{where}: not valid TOML ({type(exc).__name__})") from None


def _read_file(path: Path) -> dict[str, Any] | None:
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise CharacterError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise CharacterError(f"{path}: larger than {MAX_FILE_BYTES} bytes; is it a characters file?")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CharacterError(f"{path}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    if text.count("[") + text.count("{") > 20 * MAX_CHARACTERS:
        raise CharacterError(f"{path}: too many tables or arrays")
    return _read_toml(text, str(path))


def _text(entry: Mapping[str, Any], key: str, where: str, *, limit: int = MAX_TEXT) -> str:
    value = entry[key]
    if not isinstance(value, str) or not value.strip():
        raise CharacterError(f"{where}.{key}: must be a non-empty string, got {_shown(value)}")
    if len(value) > limit or any(ord(c) < 32 for c in value):
        raise CharacterError(f"{where}.{key}: at most {limit} printable characters, got {_shown(value)}")
    return value.strip()


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def _options(entry: Mapping[str, Any], style: str, where: str) -> dict[str, str]:
    options = {name: str(value) for name, value in STYLES[style].items()}
    extra = entry.get("options", {})
    if not isinstance(extra, dict):
        raise CharacterError(f"{where}.options: must be a table such as {{ Contempt = \"20\" }}, got {_shown(extra)}")
    for name, value in extra.items():
        if name not in STYLE_OPTIONS:
            raise CharacterError(f"{where}.options.{name}: not a style option; one of {', '.join(STYLE_OPTIONS)}")
        lo, hi = STYLE_OPTIONS[name]
        number = value if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(value, str) and value.strip().lstrip("+-").isascii() and value.strip().lstrip("+-").isdigit():
            number = int(value) if len(value) < 10 else None
        if number is None or not lo <= number <= hi:
            raise CharacterError(f"{where}.options.{name}: must be an integer {lo}..{hi}, got {_shown(value)}")
        options[name] = str(number)
    return options


def character_from_entry(entry: Any, *, where: str) -> Character:
    """One ``[[character]]`` table, checked key by key; CharacterError names ``where`` and the key."""
    if not isinstance(entry, dict):
        raise CharacterError(f"{where}: must be a table, got {_shown(entry)}")
    for key in entry:
        if key not in _KEYS:
            close = difflib.get_close_matches(str(key), _KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise CharacterError(f"{where}.{key}: unknown key{hint}; keys are {', '.join(sorted(_KEYS))}")
    for key in _REQUIRED:
        if key not in entry:
            raise CharacterError(f"{where}.{key}: missing")
    ident = _text(entry, "id", where, limit=32)
    if not ident.isascii() or not all(c.isalnum() or c in "-_" for c in ident) or ident != ident.lower():
        raise CharacterError(f"{where}.id: lower-case letters, digits, - and _ only, got {_shown(ident)}")
    where = f"{where} ({ident})"
    name = _text(entry, "name", where, limit=60)
    rating = entry["rating"]
    if isinstance(rating, bool) or not isinstance(rating, int) or not RATING_MIN <= rating <= RATING_MAX:
        raise CharacterError(f"{where}.rating: must be an integer from {RATING_MIN} to {RATING_MAX} "
                             f"(the engine's measured full strength), got {_shown(rating)}")
    style = _text(entry, "style", where, limit=40)
    if style not in STYLES:
        raise CharacterError(f"{where}.style: {_shown(style)} is not a style; one of {', '.join(STYLES)}")
    profile = _text(entry, "profile", where)
    game = entry.get("game", "chess")
    if game not in GAMES:
        raise CharacterError(f"{where}.game: {_shown(game)} is not a game; one of {', '.join(GAMES)}")
    openings = entry["openings"]
    if not isinstance(openings, list) or not 1 <= len(openings) <= MAX_OPENINGS:
        raise CharacterError(f"{where}.openings: must be a list of 1 to {MAX_OPENINGS} opening names, "
                             f"got {_shown(openings)}")
    known = opening_lines() if game == "chess" else _xiangqi_lines()
    book: list[str] = []
    for i, opening in enumerate(openings):
        if not isinstance(opening, str) or opening not in known:
            close = difflib.get_close_matches(str(opening), list(known), n=3) if isinstance(opening, str) else []
            hint = f"; close: {', '.join(close)}" if close else ""
            raise CharacterError(f"{where}.openings[{i}]: {_shown(opening)} is not in the {game} opening data "
                                 f"({_OPENING_DATA[game]}){hint}")
        book.extend(known[opening])
    initials = _text(entry, "initials", where, limit=3) if "initials" in entry else initials_of(name)
    if "level" in entry:
        raw = entry["level"]
        try:
            level = check_level(str(raw) if isinstance(raw, int) and not isinstance(raw, bool) else raw)
        except ValueError as exc:
            raise CharacterError(f"{where}.level: {exc}") from None
    else:
        level = level_for_rating(rating)
    options = _options(entry, style, where)
    options[BOOK_OPTION] = ";".join(book)
    return Character(id=ident, name=name, rating=rating, style=style, profile=profile, initials=initials,
                     level=level, uci_options=MappingProxyType(options), openings=tuple(openings),
                     book_lines=tuple(book), game=game)


def _xiangqi_lines() -> Mapping[str, tuple[str, ...]]:
    """Xiangqi opening name (English or Chinese) -> its line, as the engine's Book Lines take it."""
    from boardctl.openings import xiangqi_opening_lines

    return {name: (moves,) for name, moves in xiangqi_opening_lines().items()}


def characters_from_toml(table: Mapping[str, Any], *, where: str) -> tuple[Character, ...]:
    """The characters of one parsed file, in file order; ids must be unique within it."""
    unknown = [key for key in table if key != "character"]
    if unknown:
        raise CharacterError(f"{where}: unknown key {unknown[0]!r}; a characters file has [[character]] tables only")
    entries = table.get("character", [])
    if not isinstance(entries, list):
        raise CharacterError(f"{where}.character: must be [[character]] tables")
    if len(entries) > MAX_CHARACTERS:
        raise CharacterError(f"{where}: more than {MAX_CHARACTERS} characters")
    out: list[Character] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        character = character_from_entry(entry, where=f"{where}: character[{i}]")
        if character.id in seen:
            raise CharacterError(f"{where}: character[{i}].id: {character.id!r} appears twice")
        seen.add(character.id)
        out.append(character)
    return tuple(out)


@functools.cache
def _shipped() -> tuple[Character, ...]:
    text = resources.files("boardctl").joinpath(f"data/{FILE_NAME}").read_text(encoding="utf-8")
    return characters_from_toml(_read_toml(text, f"boardctl/data/{FILE_NAME}"), where=f"boardctl/data/{FILE_NAME}")


def load_characters(*, user_file: Path | None = None, game: str | None = "chess") -> tuple[Character, ...]:
    """The shipped characters of ``game`` (None: every game's), with the user's file over them
    (same id: replaced; new id: added), sorted by rating then name. ``user_file`` defaults to the
    one beside the config file. Tournaments and their background games are chess: the default."""
    path = user_file if user_file is not None else globals()["user_file"]()
    by_id = {c.id: c for c in _shipped()}
    table = _read_file(path)
    if table is not None:
        for character in characters_from_toml(table, where=str(path)):
            by_id[character.id] = character
    chosen = [c for c in by_id.values() if game is None or c.game == game]
    return tuple(sorted(chosen, key=lambda c: (c.rating, c.name)))


def find_character(name: str, *, characters: tuple[Character, ...] | None = None,
                   game: str = "chess") -> Character:
    """The character of ``game`` whose id or name is ``name`` (case-insensitive); CharacterError
    lists close names, and names the game a character of another game plays."""
    pool = characters if characters is not None else load_characters(game=game)
    wanted = " ".join(name.split()).casefold()
    for character in pool:
        if wanted in (character.id.casefold(), character.name.casefold()):
            return character
    if characters is None:
        other = next((c for c in load_characters(game=None) if wanted in (c.id.casefold(), c.name.casefold())), None)
        if other is not None:
            raise CharacterError(f"{other.name} plays {other.game}, not {game}; the {game} characters are "
                                 + ", ".join(c.id for c in pool))
    names = [c.id for c in pool] + [c.name for c in pool]
    close = difflib.get_close_matches(name, names, n=4, cutoff=0.5)
    close += [c.id for c in pool if wanted and wanted in c.name.casefold() and c.id not in close]
    hint = f"; did you mean {', '.join(close[:5])}?" if close else f"; the characters are {', '.join(c.id for c in pool)}"
    shown = name if len(name) <= 40 else name[:40] + "..."
    raise CharacterError(f"no character {shown!r}{hint}")


def label(character: Character) -> str:
    """How the character is named in the PGN and on the page: ``"Ilya Inferno (2000)"``."""
    return f"{character.name} ({character.rating})"


def rating_file() -> Path:
    """Your rating, beside the saved games' folder (boardctl/learning/rating.py keeps it)."""
    from boardctl.config import data_dir

    return data_dir() / "rating.json"


_SCORES = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def rate_finished_game(record: GameRecord, *, store: RatingStore,
                       characters: tuple[Character, ...] | None = None) -> Rating | None:
    """Count a finished game of yours against a character in your rating (once per game id);
    None for anything else: unfinished, recorded, or against the plain engine. The character is
    the one the record names (``label``), so a game started from the page counts too."""
    import datetime as dt

    from boardctl.variants import get_variant

    if record.mode != "play" or record.result not in _SCORES or record.human not in ("white", "black"):
        return None
    if record.variant not in GAMES or not get_variant(record.variant).capabilities.is_rated:
        return None  # the rating is a chess rating: a xiangqi game against a character is not counted
    theirs = record.black if record.human == "white" else record.white
    pool = characters if characters is not None else load_characters()
    character = next((c for c in pool if label(c) == theirs), None)
    if character is None:
        return None
    score = _SCORES[record.result][0 if record.human == "white" else 1]
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    rating = store.record(game_id=record.id, opponent=character.name, opponent_rating=character.rating,
                          score=score, when=when)
    log.info("rated game %s against %s: your rating is now %d", record.id, character.name, rating.rounded)
    return rating


#: The options that play the plain engine again (no style, no repertoire): each option's default.
NEUTRAL_OPTIONS: Mapping[str, str] = MappingProxyType({
    "Style Material": "100", "Style KingAttack": "100", "Style Mobility": "100", "Style PawnStructure": "100",
    "Style KingSafety": "100", "Contempt": "0", BOOK_OPTION: "<empty>",
})


def check_opponent(value: Any, *, variant: str = "chess") -> str:
    """A character of ``variant``'s game asked for by the page or the command line, as its id;
    CharacterError (a ValueError) names the fault."""
    if not isinstance(value, str) or len(value) > 80:
        raise CharacterError(f"expected a character's id or name, got {_shown(value)}")
    if variant not in GAMES:
        raise CharacterError(f"no characters play {variant}")
    return find_character(value, game=variant).id


def opponent_settings(settings: Settings, opponent: str) -> tuple[Settings, Mapping[str, str]]:
    """``settings`` for a game against the character ``opponent`` (its level and its name), and
    the engine options to send; ``""`` is the plain engine again (the level kept, options reset)."""
    from dataclasses import replace

    if not opponent:
        return replace(settings, opponent=""), NEUTRAL_OPTIONS
    character = find_character(opponent, game=settings.variant)
    return replace(settings, level=character.level, opponent=label(character)), character.uci_options
