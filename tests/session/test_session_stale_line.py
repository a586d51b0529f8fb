"""After a takeback the engine's best line and score are not shown for a position that is gone
(issue 35, finding 12: "9...h5 10. Qh3" stayed with White to move)."""

from __future__ import annotations

from collections.abc import Callable

import chess
import pytest
from test_session import Hands

from boardctl.engine_client import Reply
from boardctl.events import Button
from boardctl.session import Session, Settings


def answer(hands: Hands, uci: str, score: int, pv: str) -> None:
    request = hands.session.engine_request()
    assert request is not None and request.kind == "move"
    line = tuple(chess.Move.from_uci(m) for m in pv.split())
    hands.session.engine_replied(request, Reply(chess.Move.from_uci(uci), score, line), hands.t)


def _button_after_the_reply(hands: Hands) -> None:
    hands.move("g8f6")  # the engine's reply made on the board
    hands.press(Button.TAKEBACK)  # two plies: the reply and the human's move


def _button_while_pending(hands: Hands) -> None:
    hands.press(Button.TAKEBACK)  # the reply still lit: only the human's move goes


def _by_hand(hands: Hands) -> None:
    hands.move("g8f6")
    hands.move("f6g8")  # the engine's reply put back by hand
    hands.move("f3g1")  # and the human's move


#: (name, how, the moves left, the hands that set the pieces back as the game now has them)
TAKEBACKS: list[tuple[str, Callable[[Hands], None], list[str], list[str]]] = [
    ("button-after-the-reply", _button_after_the_reply, ["e2e4", "e7e5"], ["f6g8", "f3g1"]),
    ("button-while-pending", _button_while_pending, ["e2e4", "e7e5"], ["f3g1"]),
    ("by-hand", _by_hand, ["e2e4", "e7e5"], []),
]


@pytest.mark.parametrize(("name", "take_back", "left", "restore"), TAKEBACKS, ids=[t[0] for t in TAKEBACKS])
def test_a_takeback_clears_the_engines_line_and_score(name: str, take_back: Callable[[Hands], None],
                                                       left: list[str], restore: list[str]) -> None:
    session = Session(Settings(mode="play", color="white", takeback="apply"))
    hands = Hands(session)
    hands.move("e2e4")
    answer(hands, "e7e5", -20, "e7e5 g1f3 b8c6")
    hands.move("e7e5")
    hands.move("g1f3")
    answer(hands, "g8f6", -30, "g8f6 f3e5 d7d6")
    assert session.state_line()["pv"] == "2...Nf6 3. Nxe5 d6"
    take_back(hands)
    line = session.state_line()
    assert line["moves"] == left
    assert line["pv"] is None and line["eval"] is None, (line["pv"], line["eval"])
    # the engine's next answer is shown again, from the position now on the board
    for uci in restore:
        hands.move(uci)
    assert session.tracker.is_matching()
    hands.move("d2d4")
    hands.t += 5
    session.tick(hands.t)
    answer(hands, "e5d4", -10, "e5d4 d1d4")
    assert session.state_line()["pv"] == "2...exd4 3. Qxd4" and session.state_line()["eval"] == {"cp": 10}
