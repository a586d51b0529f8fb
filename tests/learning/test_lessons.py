"""The lesson state machine (pure, over UCI names) and the lesson file's shape, table-driven."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.learning.lessons import (
    INTENT_END,
    INTENT_HINT,
    INTENT_REPLY,
    Lesson,
    LessonError,
    LessonMove,
    LessonState,
    Line,
    Mode,
    StepKind,
    Verdict,
    choose_line,
    parse_spec,
)


def _line(name: str, moves: str) -> Line:
    return Line(name, tuple(LessonMove(uci=m, san=m.upper(), note=f"why {m}") for m in moves.split()))


#: A made-up lesson: main line and three variations that branch at White's 3rd ply, at Black's
#: 4th ply and at White's 5th ply.
LESSON = Lesson(
    key="toy",
    title="Toy",
    eco="C50",
    summary="",
    main=_line("main", "a1 b1 a2 b2 a3 b3"),
    variations=(
        _line("v-white-3", "a1 b1 x2 b2"),
        _line("v-black-4", "a1 b1 a2 y2 a3"),
        _line("v-white-5", "a1 b1 a2 b2 z3 b3 z4"),
    ),
)


def _start(target: int, *, color: bool = True, mode: Mode = Mode.GUIDED) -> LessonState:
    return LessonState(lesson=LESSON, color=color, mode=mode, target=target)


@dataclass(frozen=True)
class Case:
    name: str
    color: bool
    mode: Mode
    target: int
    #: user moves tried at each of the user's turns ("!" = expect wrong, then the right move)
    tries: tuple[str, ...]
    #: expected verdicts in order
    verdicts: tuple[Verdict, ...]
    #: the line the run finishes on, and its final score (moves, first try, mistakes)
    final_line: str
    score: tuple[int, int, int]


CASES = [
    Case("white follows main", True, Mode.GUIDED, 0, ("a1", "a2", "a3"), (Verdict.RIGHT,) * 3, "main", (3, 3, 0)),
    Case(
        "white errs once",
        True,
        Mode.GUIDED,
        0,
        ("a1", "q9", "a2", "a3"),
        (Verdict.RIGHT, Verdict.WRONG, Verdict.RIGHT, Verdict.RIGHT),
        "main",
        (3, 2, 1),
    ),
    Case(
        "white errs twice on one move",
        True,
        Mode.QUIZ,
        0,
        ("a1", "q9", "b1", "a2", "a3"),
        (Verdict.RIGHT, Verdict.WRONG, Verdict.WRONG, Verdict.RIGHT, Verdict.RIGHT),
        "main",
        (3, 2, 2),
    ),
    Case(
        "white picks another line's move",
        True,
        Mode.GUIDED,
        0,
        ("a1", "x2"),
        (Verdict.RIGHT, Verdict.ALSO_RIGHT),
        "v-white-3",
        (2, 2, 0),
    ),
    Case(
        "white on the late-branching line",
        True,
        Mode.GUIDED,
        3,
        ("a1", "a2", "z3", "z4"),
        (Verdict.RIGHT,) * 4,
        "v-white-5",
        (4, 4, 0),
    ),
    Case(
        "white plays main where the target branched: switch back",
        True,
        Mode.QUIZ,
        3,
        ("a1", "a2", "a3"),
        (Verdict.RIGHT, Verdict.RIGHT, Verdict.ALSO_RIGHT),
        "main",
        (3, 3, 0),
    ),
    Case("black follows main", False, Mode.GUIDED, 0, ("b1", "b2", "b3"), (Verdict.RIGHT,) * 3, "main", (3, 3, 0)),
    Case("black's own branch", False, Mode.QUIZ, 2, ("b1", "y2"), (Verdict.RIGHT,) * 2, "v-black-4", (2, 2, 0)),
    Case(
        "black leaves its branch for main",
        False,
        Mode.QUIZ,
        2,
        ("b1", "b2", "b3"),
        (Verdict.RIGHT, Verdict.ALSO_RIGHT, Verdict.RIGHT),
        "main",
        (3, 3, 0),
    ),
    Case(
        "black errs after the reply",
        False,
        Mode.GUIDED,
        0,
        ("b1", "a2", "b2", "b3"),
        (Verdict.RIGHT, Verdict.WRONG, Verdict.RIGHT, Verdict.RIGHT),
        "main",
        (3, 2, 1),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_runs(case: Case) -> None:
    state = _start(case.target, color=case.color, mode=case.mode)
    tries = list(case.tries)
    verdicts: list[Verdict] = []
    while not state.is_over():
        step = state.step()
        if step.kind is StepKind.REPLY:
            assert step.intent == INTENT_REPLY
            move, state = state.reply()
            assert move == step.move
            continue
        assert step.kind is StepKind.YOUR_MOVE
        assert step.intent == (INTENT_HINT if case.mode is Mode.GUIDED else None)
        assert tries, f"{case.name}: the run wants more moves after {state.played}"
        answer = state.play(tries.pop(0))
        verdicts.append(answer.verdict)
        if answer.verdict is Verdict.WRONG:
            assert answer.takeback is not None
            assert answer.intent == "lesson-wrong"
            assert answer.expected == step.move
            assert answer.state.played == state.played  # the wrong move is not kept
        else:
            assert answer.takeback is None and answer.intent is None
        state = answer.state
    assert not tries
    assert tuple(verdicts) == case.verdicts
    assert state.line.name == case.final_line
    end = state.step()
    assert end.kind is StepKind.END and end.move is None and end.intent == INTENT_END
    score = state.score
    assert (score.moves, score.first_try, score.mistakes) == case.score
    assert state.played == state.line.ucis


def test_the_hint_is_the_target_lines_move_with_its_note() -> None:
    state = _start(1)
    step = state.step()
    assert step.move == LessonMove("a1", "A1", "why a1")
    state = state.play("a1").state
    _, state = state.reply()
    assert state.step().move == LessonMove("x2", "X2", "why x2")


@pytest.mark.parametrize(
    ("color", "action", "message"),
    [
        (True, "reply", "not the other side's turn"),
        (False, "play", "other side's turn"),
    ],
)
def test_out_of_turn_is_refused(color: bool, action: str, message: str) -> None:
    state = _start(0, color=color)
    with pytest.raises(LessonError, match=message):
        state.reply() if action == "reply" else state.play("a1")


def test_nothing_after_the_end() -> None:
    state = LessonState(lesson=LESSON, color=True, mode=Mode.GUIDED, target=1, played=("a1", "b1", "x2", "b2"))
    assert state.is_over()
    with pytest.raises(LessonError, match="ended"):
        state.play("a3")
    with pytest.raises(LessonError):
        state.reply()


def test_runs_differ_and_prefer_unpractised_lines() -> None:
    rng = random.Random(7)
    chosen = {choose_line(LESSON, rng) for _ in range(60)}
    assert chosen == {0, 1, 2, 3}
    practised = {LESSON.lines[i].line_id: 2 for i in (0, 1, 3)}
    assert {choose_line(LESSON, random.Random(s), practised=practised) for s in range(20)} == {2}
    seeds = [LessonState.start(LESSON, color=True, mode=Mode.QUIZ, rng=random.Random(s)).target for s in range(30)]
    assert len(set(seeds)) > 1
    # the same seed gives the same run
    assert LessonState.start(LESSON, color=True, mode=Mode.QUIZ, rng=random.Random(3)) == LessonState.start(
        LESSON, color=True, mode=Mode.QUIZ, rng=random.Random(3)
    )


def test_score_fraction() -> None:
    state = _start(0)
    assert state.score.fraction == 0.0
    state = state.play("a1").state
    assert state.score.percent == 100


# ---------------------------------------------------------------------- the file's shape

GOOD = """
title = "Toy"
eco = "C50"
summary = "s"
[main]
name = "Main"
moves = [["e4", "note"], ["e5", "note two"]]
[[variation]]
name = "V"
moves = "1. e4 c5 2. Nf3"
"""


def test_a_good_file() -> None:
    spec = parse_spec(GOOD, key="toy", source="toy.toml")
    assert spec.main.sans == ("e4", "e5")
    assert spec.main.notes == ("note", "note two")
    assert spec.variations[0].sans == ("e4", "c5", "Nf3")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("title = ", "toy.toml: "),
        (GOOD.replace('eco = "C50"', 'eco = "Z99"'), "toy.toml.eco"),
        (GOOD.replace('title = "Toy"', ""), "missing key 'title'"),
        (GOOD.replace('["e5", "note two"]', '["e5", ""]'), "main.moves[1]: every main-line move needs a note"),
        (GOOD.replace('["e5", "note two"]', '["e5 Nf3", "x"]'), "main.moves[1]: expected exactly one move"),
        (GOOD.replace('["e5", "note two"]', '["e5", "a\\nb\\nc"]'), "main.moves[1]: a note has at most 2 lines"),
        (GOOD.replace('["e5", "note two"]', '"e5"'), "main.moves[1]: expected"),
        (GOOD.replace('moves = [["e4"', 'moves = "e4" #'), "main.moves: the main line needs"),
        (GOOD.replace('moves = "1. e4 c5 2. Nf3"', "moves = 3"), "variation[0].moves: expected"),
        (GOOD.replace('moves = "1. e4 c5 2. Nf3"', 'moves = ""'), "variation[0].moves: no moves"),
        (GOOD.replace("[[variation]]", "[[variations]]"), "unknown key 'variations'"),
        (GOOD.replace('name = "V"', 'name = "V"\ncolour = 1'), "variation[0]: unknown key 'colour'"),
        (GOOD.split("[[variation]]")[0], "expected [[variation]] tables"),
        (GOOD.replace('moves = "1. e4 c5 2. Nf3"', 'moves = "e4 \\u00e9\\u00e9"'), "variation[0].moves: move 2"),
    ],
)
def test_bad_files_name_the_place(text: str, fragment: str) -> None:
    with pytest.raises(LessonError) as info:
        parse_spec(text, key="toy", source="toy.toml")
    assert fragment in str(info.value)
    assert str(info.value).startswith("toy.toml")


def test_a_toml_syntax_error_names_the_line() -> None:
    with pytest.raises(LessonError, match=r"toy.toml: .*line 3"):
        parse_spec('title = "a"\neco = "C50"\nsummary = = 2\n', key="toy", source="toy.toml")


@pytest.mark.parametrize("key", ["", "Italian", "../x", "a b", "x" * 41])
def test_bad_keys(key: str) -> None:
    with pytest.raises(LessonError, match="not a lesson name"):
        parse_spec(GOOD, key=key, source="f.toml")


_toml_values = st.recursive(
    st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.floats(allow_nan=False)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["name", "moves", "x"]), inner, max_size=3),
    max_leaves=6,
)


def _dump(value: object) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_dump(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{k} = {_dump(v)}" for k, v in value.items()) + "}"


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from(["title", "eco", "summary", "main", "variation", "extra"]), _toml_values, max_size=5)
)
def test_hostile_structures_give_one_clear_error(doc: dict[str, object]) -> None:
    text = "\n".join(f"{k} = {_dump(v)}" for k, v in doc.items())
    try:
        parse_spec(text, key="toy", source="toy.toml")
    except LessonError as exc:
        assert str(exc).startswith("toy.toml")


@given(st.text(max_size=300))
def test_hostile_text_gives_one_clear_error(text: str) -> None:
    try:
        parse_spec(text, key="toy", source="toy.toml")
    except LessonError as exc:
        assert str(exc).startswith("toy.toml")


@given(st.binary(max_size=200))
def test_hostile_bytes_in_a_file(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    from boardctl.learning.lessons import read_spec

    path = tmp_path_factory.mktemp("l") / "toy.toml"
    path.write_bytes(data)
    try:
        read_spec(path)
    except LessonError as exc:
        assert "toy.toml" in str(exc)


@given(
    color=st.booleans(),
    quiz=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    tries=st.lists(st.sampled_from(["a1", "b1", "a2", "b2", "a3", "b3", "x2", "y2", "z3", "z4", "q9"]), max_size=40),
)
def test_any_sequence_of_tries_keeps_the_invariants(color: bool, quiz: bool, seed: int, tries: list[str]) -> None:
    """Whatever is played: the moves kept are a prefix of the target line, wrong tries change
    nothing but the tally, and the tally adds up."""
    mode = Mode.QUIZ if quiz else Mode.GUIDED
    state = LessonState.start(LESSON, color=color, mode=mode, rng=random.Random(seed))
    wrong = right = 0
    for uci in tries:
        while not state.is_over() and not state.is_users_turn():
            _, state = state.reply()
        if state.is_over():
            break
        before = state
        answer = state.play(uci)
        state = answer.state
        if answer.verdict is Verdict.WRONG:
            wrong += 1
            assert state.played == before.played and state.target == before.target
            assert answer.takeback == uci
        else:
            right += 1
            assert state.played == (*before.played, uci)
        assert state.line.ucis[: state.ply] == state.played
    assert state.score.mistakes == wrong
    # a move missed and not yet made counts among the moves (issue 35: never "1 of 1 right, 1 wrong")
    assert state.score.moves == right + (1 if state.missed_this_move else 0)
    assert 0 <= state.score.first_try <= right
    assert state.score.first_try <= state.score.moves - (1 if wrong else 0)
    assert 0.0 <= state.score.fraction <= 1.0
