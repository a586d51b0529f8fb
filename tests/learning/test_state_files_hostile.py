"""Hostile state files (rating, lesson progress, tournaments): one clear StateFileError naming the
file, never a traceback from deep inside."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.learning.atomic import StateFileError
from boardctl.learning.progress import ProgressStore
from boardctl.learning.rating import RatingStore
from boardctl.learning.tournament import Format, Tournament, TournamentStore

WHEN = "2026-12-01T18:00:00Z"

_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
_json = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=10)


def _valid_documents(tmp: Path) -> dict[str, Any]:
    rating = RatingStore(tmp / "rating.json")
    rating.record(game_id="g", opponent="Ann", opponent_rating=1400, score=1.0, when=WHEN)
    t = Tournament.new([("A", 2000, False), ("B", 1900, True), ("C", 1800, False)], tournament_id="t", format=Format.ROUND_ROBIN)
    TournamentStore(tmp).save(t.pair_next_round())
    return {
        "rating": json.loads((tmp / "rating.json").read_text()),
        "tournament": json.loads((tmp / "t.json").read_text()),
        "progress": {"version": 1, "lessons": {"toy": {"runs": 1, "quiz_runs": 0, "last_quiz": None, "best_quiz": None, "lines": {"e2e4": 1}}}},
    }


def _paths(doc: Any) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``doc``."""
    out: list[tuple[Any, ...]] = [()]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += [(k, *p) for p in _paths(v)]
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += [(i, *p) for p in _paths(v)]
    return out


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = json.loads(json.dumps(doc))
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return copy


def _load(kind: str, path: Path) -> None:
    if kind == "rating":
        RatingStore(path).load()
    elif kind == "progress":
        ProgressStore(path).load()
    else:
        TournamentStore(path.parent).load(path.stem)


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _valid_documents(tmp_path_factory.mktemp("valid"))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["rating", "progress", "tournament"]), data=st.data(), value=_json)
def test_one_value_replaced(tmp_path: Path, documents: dict[str, Any], kind: str, data: st.DataObject, value: Any) -> None:
    doc = documents[kind]
    path_in_doc = data.draw(st.sampled_from(_paths(doc)))
    hostile = _replace(doc, path_in_doc, value)
    file = tmp_path / ("t.json" if kind == "tournament" else f"{kind}.json")
    file.write_text(json.dumps(hostile))
    try:
        _load(kind, file)
    except StateFileError as exc:
        assert str(file) in str(exc)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["rating", "progress", "tournament"]), raw=st.binary(max_size=64))
def test_raw_bytes(tmp_path: Path, kind: str, raw: bytes) -> None:
    file = tmp_path / ("t.json" if kind == "tournament" else f"{kind}.json")
    file.write_bytes(raw)
    try:
        _load(kind, file)
    except StateFileError as exc:
        assert str(file) in str(exc)
