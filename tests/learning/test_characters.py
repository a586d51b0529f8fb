"""The shipped characters, table-driven, and the loader against hostile files."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from boardctl.errors import BoardctlError, ConfigError
from boardctl.learning.characters import (
    BOOK_OPTION,
    RATING_MAX,
    RATING_MIN,
    STYLE_OPTIONS,
    STYLES,
    Character,
    CharacterError,
    find_character,
    initials_of,
    level_for_rating,
    load_characters,
    opening_lines,
)
from engine.levels import check_level, skill_for_elo

NONE = Path("/nonexistent/characters.toml")
CHARACTERS = load_characters(user_file=NONE)


def test_at_least_thirty_with_unique_ids_and_names() -> None:
    assert len(CHARACTERS) >= 30
    assert len({c.id for c in CHARACTERS}) == len(CHARACTERS)
    assert len({c.name.casefold() for c in CHARACTERS}) == len(CHARACTERS)


def test_ratings_span_800_to_measured_full_strength() -> None:
    ratings = [c.rating for c in CHARACTERS]
    assert min(ratings) == RATING_MIN == 800
    assert max(ratings) == RATING_MAX
    assert ratings == sorted(ratings)  # load order: by rating


def test_every_style_is_used_several_times() -> None:
    for style in STYLES:
        assert sum(c.style == style for c in CHARACTERS) >= 3, style


@pytest.mark.parametrize("character", CHARACTERS, ids=lambda c: c.id)
def test_character_is_valid(character: Character) -> None:
    assert RATING_MIN <= character.rating <= RATING_MAX
    assert character.style in STYLES
    assert 10 <= len(character.profile) <= 400
    assert 1 <= len(character.initials) <= 3 and character.initials.isupper()
    assert check_level(character.level) == character.level
    for name, value in character.uci_options.items():
        if name == BOOK_OPTION:
            continue
        lo, hi = STYLE_OPTIONS[name]
        assert lo <= int(value) <= hi, (name, value)
    assert set(character.uci_options) == {*STYLE_OPTIONS, BOOK_OPTION}
    # the repertoire: names of the opening data, every line of each is in the book
    lines = opening_lines()
    assert character.openings and all(name in lines for name in character.openings)
    assert character.uci_options[BOOK_OPTION].split(";") == list(character.book_lines)
    for text in character.book_lines:
        game = chess.pgn.read_game(io.StringIO(text))
        assert game is not None and not game.errors and list(game.mainline_moves()), text


@pytest.mark.parametrize("character", CHARACTERS, ids=lambda c: c.id)
def test_repertoire_answers_both_colours(character: Character) -> None:
    """Each repertoire has a first move for White and an answer to 1. e4 or 1. d4 for Black."""
    firsts = {t.split()[1] for t in character.book_lines}
    answers = {t.split()[1] for t in character.book_lines if len(t.split()) > 2}
    assert firsts and answers, character.book_lines


def test_stronger_rating_never_weaker_level() -> None:
    skills = [skill_for_elo(int(c.level)) for c in CHARACTERS]
    assert skills == sorted(skills)
    # the engine's chess UCI_Elo scale is the measured one: a character plays at its rating
    assert [level_for_rating(r) for r in (RATING_MIN, 1234, RATING_MAX)] == [str(RATING_MIN), "1234", str(RATING_MAX)]
    assert skill_for_elo(int(level_for_rating(RATING_MIN))) == skill_for_elo(900)  # the beginner level's skill


def test_distinct_styles_give_distinct_options() -> None:
    by_style: dict[str, set[tuple[tuple[str, str], ...]]] = {}
    for c in CHARACTERS:
        style_options = tuple(sorted((k, v) for k, v in c.uci_options.items() if k != BOOK_OPTION))
        by_style.setdefault(c.style, set()).add(style_options)
    seen: dict[tuple[tuple[str, str], ...], str] = {}
    for style, option_sets in by_style.items():
        for options in option_sets:
            assert options not in seen or seen[options] == style, (style, seen.get(options))
            seen[options] = style


def test_no_two_characters_differ_only_in_name() -> None:
    keys = {(c.rating, c.style, c.openings) for c in CHARACTERS}
    assert len(keys) == len(CHARACTERS)


def test_attacker_and_defender_pull_opposite_ways() -> None:
    attack, defend = STYLES["attacker"], STYLES["solid defender"]
    assert attack["Style KingAttack"] >= 3 * defend["Style KingAttack"]
    assert defend["Style KingSafety"] >= 3 * attack["Style KingSafety"]  # the attacker risks its own king
    assert defend["Style PawnStructure"] >= 2 * attack["Style PawnStructure"]
    assert attack["Contempt"] > 0 > defend["Contempt"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [("ilya", "ilya"), ("ILYA", "ilya"), ("Ilya Inferno", "ilya"), ("  ilya   inferno ", "ilya"),
     ("benny blunder", "benny"), ("Max Maximus", "max")],
)
def test_find_character(query: str, expected: str) -> None:
    assert find_character(query, characters=CHARACTERS).id == expected


@pytest.mark.parametrize(("query", "hint"), [("ily", "ilya"), ("Benny Blundr", "Benny Blunder"), ("zzzz", "benny")])
def test_find_character_names_close_ones(query: str, hint: str) -> None:
    with pytest.raises(CharacterError, match=f"no character .*{hint}") as info:
        find_character(query, characters=CHARACTERS)
    assert isinstance(info.value, BoardctlError) and isinstance(info.value, ValueError)


def test_initials() -> None:
    assert initials_of("Benny Blunder") == "BB"
    assert initials_of("Max") == "M"
    assert initials_of("Jean-Luc Picard") == "JL"


GOOD = """
[[character]]
id = "newbie"
name = "New Bie"
rating = 1234
style = "attacker"
profile = "A new friend from the user's file."
openings = ["Vienna Game"]
options = { Contempt = "25" }
"""


def test_user_file_adds_and_overrides(tmp_path: Path) -> None:
    user = tmp_path / "characters.toml"
    user.write_text(GOOD + GOOD.replace('"newbie"', '"ilya"').replace("New Bie", "Ilya Tamed"), encoding="utf-8")
    loaded = load_characters(user_file=user)
    assert len(loaded) == len(CHARACTERS) + 1
    newbie = find_character("newbie", characters=loaded)
    assert newbie.uci_options["Contempt"] == "25" and newbie.level == level_for_rating(1234)
    assert newbie.uci_options["Style KingAttack"] == str(STYLES["attacker"]["Style KingAttack"])
    assert find_character("ilya", characters=loaded).name == "Ilya Tamed"


def test_default_user_file_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "boardctl").mkdir()
    (tmp_path / "boardctl" / "characters.toml").write_text(GOOD, encoding="utf-8")
    assert any(c.id == "newbie" for c in load_characters())


def _field(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


HOSTILE = [
    ("not toml", "[[character]\nid=", "not valid TOML"),
    ("unknown top key", 'colour = "red"\n' + GOOD, "unknown key 'colour'"),
    ("character not a table list", 'character = "x"', "must be [[character]] tables"),
    ("unknown key", _field('style = "attacker"', 'style = "attacker"\nstyel = 1'), "character[0].styel: unknown key (did you mean 'style'?)"),
    ("missing key", _field('profile = "A new friend from the user\'s file."', ""), "character[0].profile: missing"),
    ("rating too high", _field("1234", "2600"), ".rating: must be an integer from 800 to 2000"),
    ("rating too low", _field("1234", "300"), ".rating: must be an integer"),
    ("rating a string", _field("1234", '"1234"'), ".rating: must be an integer"),
    ("rating a bool", _field("1234", "true"), ".rating: must be an integer"),
    ("rating huge", _field("1234", "9" * 90), ".rating: must be an integer"),
    ("bad style", _field('"attacker"', '"coward"'), ".style: 'coward' is not a style"),
    ("style not a string", _field('"attacker"', "[1]"), ".style: must be a non-empty string"),
    ("empty name", _field('"New Bie"', '""'), ".name: must be a non-empty string"),
    ("control char", _field('"New Bie"', '"New\\u0007Bie"'), ".name: at most"),
    ("long profile", _field("A new friend", "x" * 500), ".profile: at most 400"),
    ("bad id", _field('"newbie"', '"New Bie"'), ".id: lower-case letters"),
    ("unknown opening", _field('["Vienna Game"]', '["Vienna Gam"]'), "openings[0]: 'Vienna Gam' is not in the chess opening data (boardctl/data/openings.tsv); close: Vienna Game"),
    ("openings empty", _field('["Vienna Game"]', "[]"), ".openings: must be a list of 1 to"),
    ("openings not list", _field('["Vienna Game"]', '"Vienna Game"'), ".openings: must be a list"),
    ("opening not string", _field('["Vienna Game"]', "[3]"), "openings[0]: 3 is not in the chess opening data"),
    ("bad option", _field('Contempt = "25"', 'Hash = "4"'), ".options.Hash: not a style option"),
    ("option out of range", _field('Contempt = "25"', 'Contempt = "900"'), ".options.Contempt: must be an integer -200..200"),
    ("option not number", _field('Contempt = "25"', 'Contempt = "lots"'), ".options.Contempt: must be an integer"),
    ("options not table", _field('options = { Contempt = "25" }', 'options = 3'), ".options: must be a table"),
    ("bad level", _field('options = { Contempt = "25" }', 'level = "godlike"'), ".level: must be one of"),
    ("duplicate id", GOOD + GOOD, "character[1].id: 'newbie' appears twice"),
    ("entry not table", "character = [1, 2]", "character[0]: must be a table"),
]


@pytest.mark.parametrize(("text", "message"), [(t, m) for _, t, m in HOSTILE], ids=[n for n, _, _ in HOSTILE])
def test_hostile_file_gives_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    user = tmp_path / "characters.toml"
    user.write_text(text, encoding="utf-8")
    with pytest.raises(CharacterError) as info:
        load_characters(user_file=user)
    assert str(user) in str(info.value)
    assert message in str(info.value)
    assert isinstance(info.value, ConfigError)


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"\xff\xfe[\x00", "not UTF-8"), (b"x" * (2 << 20), "larger than"), (b"[" * 20000, "too many tables")],
)
def test_hostile_bytes(tmp_path: Path, data: bytes, message: str) -> None:
    user = tmp_path / "characters.toml"
    user.write_bytes(data)
    with pytest.raises(CharacterError, match=message):
        load_characters(user_file=user)


def test_unreadable_user_file(tmp_path: Path) -> None:
    with pytest.raises(CharacterError, match="cannot read"):
        load_characters(user_file=tmp_path)  # a directory


def test_docs_style_table_matches_the_styles() -> None:
    import re

    text = (Path(__file__).resolve().parents[2] / "docs" / "learning.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([a-z ]+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (−?\d+) \|$", text, re.M)
    table = {name: [int(v.replace("−", "-")) for v in values] for name, *values in rows}
    assert table == {name: list(values.values()) for name, values in STYLES.items()}


@pytest.mark.parametrize(
    ("human", "result", "score"),
    [("white", "1-0", 1.0), ("white", "0-1", 0.0), ("white", "1/2-1/2", 0.5),
     ("black", "1-0", 0.0), ("black", "0-1", 1.0), ("black", "1/2-1/2", 0.5)],
)
def test_a_finished_game_against_a_character_is_rated_once(tmp_path: Path, human: str, result: str,
                                                          score: float) -> None:
    from boardctl.learning.characters import label, rate_finished_game
    from boardctl.learning.rating import RatingStore
    from boardctl.storage import GameRecord

    gus = find_character("gus", characters=CHARACTERS)
    white, black = ("Human", label(gus)) if human == "white" else (label(gus), "Human")
    record = GameRecord(id="g1", mode="play", white=white, black=black, result=result, human=human)
    store = RatingStore(tmp_path / "rating.json")
    rating = rate_finished_game(record, store=store, characters=CHARACTERS)
    assert rating is not None and rating.games == 1
    assert rating.history[0].score == score and rating.history[0].opponent_rating == gus.rating
    assert rating.value == pytest.approx(1200 + 40 * (score - 1 / (1 + 10 ** ((gus.rating - 1200) / 400))))
    assert rate_finished_game(record, store=store, characters=CHARACTERS) == rating  # the same game once


@pytest.mark.parametrize(
    "changes",
    [{"result": "*"}, {"mode": "record"}, {"black": "boardctl-engine (intermediate)"}, {"black": "Gus Gambit (1200)"}],
)
def test_other_games_are_not_rated(tmp_path: Path, changes: dict[str, Any]) -> None:
    from dataclasses import replace

    from boardctl.learning.characters import rate_finished_game
    from boardctl.learning.rating import RatingStore
    from boardctl.storage import GameRecord

    record = replace(GameRecord(id="g1", mode="play", white="Human", black="Gus Gambit (1000)", result="1-0",
                                human="white"), **changes)
    store = RatingStore(tmp_path / "rating.json")
    assert rate_finished_game(record, store=store, characters=CHARACTERS) is None
    assert not (tmp_path / "rating.json").exists()


def test_opponent_settings() -> None:
    from boardctl.learning.characters import NEUTRAL_OPTIONS, check_opponent, opponent_settings
    from boardctl.session import Settings

    settings, options = opponent_settings(Settings(level="beginner"), "Ilya Inferno")
    ilya = find_character("ilya", characters=CHARACTERS)
    assert settings.opponent == "Ilya Inferno (2000)" and settings.level == ilya.level
    assert options == ilya.uci_options
    plain, neutral = opponent_settings(settings, "")
    assert plain.opponent == "" and neutral == NEUTRAL_OPTIONS
    assert check_opponent("ILYA") == "ilya"
    for bad, message in [(3, "expected a character's id"), ("x" * 100, "expected"), ("nobody", "no character")]:
        with pytest.raises(CharacterError, match=message):
            check_opponent(bad)
    with pytest.raises(CharacterError, match="plays chess, not xiangqi"):
        check_opponent("ilya", variant="xiangqi")


XIANGQI = load_characters(user_file=NONE, game="xiangqi")


def test_xiangqi_has_characters_of_its_own_across_the_ratings() -> None:
    """Issue 35, finding 11: Opponents -> Play failed in xiangqi ("the characters play chess")."""
    assert len(XIANGQI) >= 8 and {c.game for c in XIANGQI} == {"xiangqi"}
    assert min(c.rating for c in XIANGQI) == RATING_MIN and max(c.rating for c in XIANGQI) == RATING_MAX
    assert {c.style for c in XIANGQI} >= {"attacker", "solid defender", "positional player"}
    assert not {c.id for c in XIANGQI} & {c.id for c in CHARACTERS}  # one id, one character
    assert {c.game for c in CHARACTERS} == {"chess"}  # tournaments and NPC games stay chess
    for c in XIANGQI:
        assert c.to_json()["game"] == "xiangqi"
        assert all(len(line.split()) >= 4 and all(len(m) == 4 for m in line.split()) for line in c.book_lines)


@pytest.mark.parametrize(("name", "game", "found", "message"), [
    ("laozhang", "xiangqi", "laozhang", None),
    ("Old Zhang", "xiangqi", "laozhang", None),
    ("gus", "chess", "gus", None),
    ("gus", "xiangqi", None, "Gus Gambit plays chess, not xiangqi"),
    ("laozhang", "chess", None, "Old Zhang plays xiangqi, not chess"),
    ("nobody", "xiangqi", None, "no character 'nobody'"),
])
def test_a_character_is_found_in_its_own_game(name: str, game: str, found: str | None, message: str | None) -> None:
    from boardctl.learning.characters import check_opponent

    if found is not None:
        assert find_character(name, game=game).id == found
        assert check_opponent(name, variant=game) == found
        return
    assert message is not None
    with pytest.raises(CharacterError, match=message):
        check_opponent(name, variant=game)


@pytest.mark.parametrize(("entry", "message"), [
    ('game = "go"\nopenings = ["same-direction cannons"]', "game: 'go' is not a game; one of chess, xiangqi"),
    ('game = "xiangqi"\nopenings = ["Vienna Game"]',
     "is not in the xiangqi opening data (engine/data/xiangqi_openings.tsv)"),
    ('openings = ["same-direction cannons"]', "is not in the chess opening data"),
])
def test_a_characters_game_and_its_openings_are_checked(entry: str, message: str, tmp_path: Path) -> None:
    user = tmp_path / "characters.toml"
    user.write_text('[[character]]\nid = "x"\nname = "X"\nrating = 1000\nstyle = "attacker"\n'
                    f'profile = "p"\n{entry}\n', encoding="utf-8")
    with pytest.raises(CharacterError, match=re.escape(message)):
        load_characters(user_file=user, game=None)


def test_xiangqi_openings_may_be_named_in_chinese(tmp_path: Path) -> None:
    user = tmp_path / "characters.toml"
    user.write_text('[[character]]\nid = "x"\nname = "X"\nrating = 1000\nstyle = "attacker"\n'
                    'profile = "p"\ngame = "xiangqi"\nopenings = ["顺炮"]\n', encoding="utf-8")
    (x,) = [c for c in load_characters(user_file=user, game="xiangqi") if c.id == "x"]
    assert x.book_lines == ("h2e2 h7e7 h0g2 h9g7 i0h0 i9h9",)
