"""Issue 29, finding 5: every path under the games folder is resolved safely. A symlink loop, a
dangling or outward link, a directory, or a games folder that is itself a loop answers 404 (never
500) for both ``/api/games/<name>.pgn`` and the viewer's ``/api/games/<name>.json``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest
from test_web_server import RecordingDaemon

from boardctl.web.server import WebServer

_PGN = '[Event "boardctl"]\n[White "Human"]\n[Black "Engine"]\n[Result "*"]\n\n1. e4 *\n'


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "good.pgn").write_text(_PGN)
    (folder / "loop.pgn").symlink_to(folder / "loop.pgn")
    (folder / "a.pgn").symlink_to(folder / "b.pgn")
    (folder / "b.pgn").symlink_to(folder / "a.pgn")
    (folder / "dangling.pgn").symlink_to(folder / "gone.pgn")
    (folder / "dir.pgn").mkdir()
    outside = tmp_path / "outside.pgn"
    outside.write_text(_PGN)
    (folder / "out.pgn").symlink_to(outside)
    return folder


BAD = ["loop", "a", "b", "dangling", "dir", "out", "missing", "..%2Fgames%2Fgood"]


async def _get(base: str, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(base + path) as response:
        return response.status, await response.text()


def _serve(folder: Path, paths: list[str]) -> list[tuple[int, str]]:
    daemon = RecordingDaemon()
    daemon.games_dir = folder

    async def main() -> list[tuple[int, str]]:
        async with WebServer(daemon, host="127.0.0.1", port=0, pin=None) as server:
            return [await _get(server.url, path) for path in paths]

    return asyncio.run(asyncio.wait_for(main(), 30))


@pytest.mark.parametrize("suffix", [".json", ".pgn"])
def test_odd_entries_of_the_games_folder_answer_404(tmp_path: Path, suffix: str) -> None:
    folder = _folder(tmp_path)
    answers = _serve(folder, [f"api/games/{name}{suffix}" for name in BAD] + [f"api/games/good{suffix}"])
    for name, (status, text) in zip(BAD, answers, strict=False):
        assert status == 404 and "no game" in text, (name, status, text)
    assert answers[-1][0] == 200


def test_a_games_folder_that_is_a_symlink_loop_answers_404(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.symlink_to(folder)
    answers = _serve(folder, ["api/games/x.json", "api/games/x.pgn", "api/games"])
    assert [status for status, _ in answers] == [404, 404, 200]


def test_game_path_resolves_only_files_inside_the_folder(tmp_path: Path) -> None:
    from boardctl.web.server import game_path

    folder = _folder(tmp_path)
    assert game_path(folder, "good.pgn") == (folder / "good.pgn").resolve()
    for name in BAD[:-1]:
        assert game_path(folder, f"{name}.pgn") is None, name
    assert game_path(folder, "../outside.pgn") is None and game_path(None, "good.pgn") is None
