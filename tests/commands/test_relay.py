"""``boardctl relay``'s options that need no broker: the ACL file, the pairings, its refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.broadcast.relay_server import acl_text
from boardctl.cli import main


def test_write_acl_gives_each_board_its_own_topics(tmp_path: Path) -> None:
    acl = tmp_path / "acl"
    assert main(["relay", "mqtt://hall/club-2026", "--write-acl", str(acl), "--boards", "1-3,top"]) == 0
    text = acl.read_text(encoding="utf-8")
    assert "user relay\ntopic read boardctl/club-2026/#" in text
    for board in ("1", "2", "3", "top"):
        assert (f"user board-{board}\ntopic write boardctl/club-2026/{board}/game\n"
                f"topic write boardctl/club-2026/{board}/status\n") in text
    # Mosquitto reads a user's lines up to the next "user": no board may write another's topics.
    blocks = text.split("\nuser ")[1:]
    for block in blocks:
        name = block.split("\n", 1)[0]
        if name.startswith("board-"):
            own = name.removeprefix("board-")
            assert all(f"/{own}/" in line for line in block.splitlines()[1:] if line.startswith("topic"))


def test_write_acl_from_the_pairings(tmp_path: Path) -> None:
    pairings = tmp_path / "r1.csv"
    pairings.write_text("board,white,black\n1,Ann,Bob\n2,Cid,Dan\n", encoding="utf-8")
    acl = tmp_path / "acl"
    assert main(["relay", "mqtt://hall/club", "--write-acl", str(acl), "--pairings", str(pairings)]) == 0
    assert "user board-2" in acl.read_text(encoding="utf-8")


@pytest.mark.parametrize(("argv", "said"), [
    (["relay", "mqtt://hall/club/7"], "must look like mqtt://BROKER[:PORT]/EVENT"),
    (["relay", "mqtt://hall/club", "--write-acl", "x"], "name the boards"),
    (["relay", "mqtt://hall/club", "--write-acl", "x", "--boards", "1-a+"], "not a board name"),
    (["relay", "mqtt://hall/club", "--pairings", "/nonexistent.csv"], "cannot read the pairings"),
    (["relay", "mqtt://hall/club", "--lichess-round", "no/such"], "not a Lichess round id"),
])
def test_refusals_are_one_line(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_acl_text_is_plain_mosquitto() -> None:
    text = acl_text("e", ["1"])
    assert all(line == "" or line.startswith(("#", "user ", "topic read ", "topic write ")) for line in text.splitlines())
