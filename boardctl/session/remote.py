"""Network games, the session's side: the other side's moves, results, takebacks and offers come
in; this board's moves and button requests go out (docs/network-protocol.md). The faces that
carry them (boardctl.network, boardctl.online) give their input through the daemon
(``Daemon.remote_input``: a :class:`RemoteInput`) and read the game from the session."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from boardctl.core.rules import Color
from boardctl.events import Button, Code, EngineReplied, GameDecided, RemoteTakeback
from boardctl.session.effects import NOTHING
from boardctl.session.model import LocalMove, RemoteMoveError, legal

if TYPE_CHECKING:
    from boardctl.session.game import Session
    from boardctl.session.model import Settings


class RemotePlay:
    """Owns this board's ``requests`` for the other side not yet taken, the other side's
    ``offer`` awaiting an answer here ("draw", "takeback" or "rematch"), this board's
    ``rematch_offered``, the ``rematch_advice`` given instead of a rematch where the other side
    cannot start one (Lichess), and ``restoring`` (the tracker put back on the running game)."""

    def __init__(self, session: Session) -> None:
        self._s = session
        self.requests: list[str] = []
        self.offer: str | None = None
        self.rematch_offered = False
        self.rematch_advice: str | None = None
        self.restoring = False

    def local_color(self) -> Color | None:
        """This board's colour in a ``network`` game (None in other modes)."""
        s = self._s
        if s.settings.mode != "network" or s.record.human not in s.variant.color_names:
            return None
        return s.record.human == s.variant.color_names[0]

    def is_remote_turn(self) -> bool:
        """A ``network`` game with the other side to move (its move is awaited or lit)."""
        local = self.local_color()
        return local is not None and self._s.board.turn != local

    def opponent(self) -> str | None:
        """In a network game, the other board's player as the record names them (``Guest``)."""
        s = self._s
        if s.settings.mode != "network" or s.record.human not in s.variant.color_names:
            return None
        theirs = s.record.black if s.record.human == s.variant.color_names[0] else s.record.white
        return theirs or None

    def set_players(self, white: str, black: str) -> None:
        """The names in the record (both boards of a network game write the same)."""
        record = self._s.record
        if (record.white, record.black) != (white, black):
            record.white, record.black = white, black
            self._s._dirty = True

    def moves(self) -> list[str]:
        """The game's moves as the network sees them: the record's, then the remote move lit here
        and not yet made by hand (it is already the other side's move)."""
        s = self._s
        moves = list(s.record.moves)
        if s.pending is not None and self.is_remote_turn():
            moves.append(s.pending.uci())
        return moves

    def clocks(self) -> list[float | None]:
        """The ``[%clk]`` of each of :meth:`moves` (the lit remote move's: its mover's time)."""
        s = self._s
        clocks = list(s.record.clocks)
        if s.pending is not None and self.is_remote_turn():
            clocks.append(s.timing.shown_left)
        return clocks

    def local_moves(self, since: int = 0) -> list[LocalMove]:
        """Moves completed on this board by its own colour from ply ``since`` on (to send)."""
        local = self.local_color()
        if local is None:
            return []
        record = self._s.record
        start = self._s.variant.board(record.fen).turn
        out = []
        for ply in range(max(0, since), len(record.moves)):
            mover = start if ply % 2 == 0 else not start
            if mover == local:
                out.append(LocalMove(ply, record.moves[ply], record.clocks[ply]))
        return out

    def move(self, ply: int, uci: str, t: float, *, clock: float | None = None) -> bool:
        """The other side's move number ``ply`` (from 0): lit as ``remote-move`` for this board's
        player to make by hand, whose time runs from now. True if it is new, False if it was
        applied already (sent twice); RemoteMoveError if it cannot be this game's move ``ply``.
        ``clock``: the mover's time left as the authoritative side counts it."""
        s = self._s
        s._advance(t)
        moves = self.moves()
        if ply < len(moves):
            if moves[ply] == uci:
                return False
            raise RemoteMoveError(f"move {ply + 1}: {uci} differs from the game's {moves[ply]}")
        if ply > len(moves):
            raise RemoteMoveError(f"move {ply + 1}: the game has only {len(moves)} moves; a move is missing")
        if s.is_over():
            raise RemoteMoveError(f"move {ply + 1}: the game is over ({s.record.result})")
        if not self.is_remote_turn():
            raise RemoteMoveError(f"move {ply + 1}: it is this board's turn, not the other side's")
        move = legal(s.board, uci)
        if move is None:
            raise RemoteMoveError(f"move {ply + 1}: {uci!r} is not a legal move in {s.board.fen()}")
        s.game_log.entry(EngineReplied(t, move, None))  # a replay shows it as the daemon did
        s.referee.draw_offer = False
        self.offer = None
        s.display.light([])
        s.warning = None
        s.serial += 1
        s._dirty = True
        s.timing.remote_shown(t, clock)
        s.turning.assumed()
        s._apply(s.tracker.expect(move, t))
        s._after(t)
        return True

    def set_move_clocks(self, clocks: list[float | None]) -> None:
        """The authoritative side's ``[%clk]`` per move, for the moves both have."""
        record = self._s.record
        changed = False
        for ply, value in enumerate(clocks[: len(record.clocks)]):
            if record.clocks[ply] != value:
                record.clocks[ply] = value
                changed = True
        if changed:
            self._s._dirty = True

    def end(self, result: str, termination: str, t: float) -> None:
        """The authoritative side ended the game (resignation, agreement, flag, claim), or with
        ``*`` aborted it (no result; ``termination`` says why, ``abandoned`` is not resumed)."""
        s = self._s
        s._advance(t)
        record = s.record
        if result == "*":
            if (record.result, record.termination) != (result, termination):
                record.result, record.termination = result, termination
                s.game_log.entry(GameDecided(t, result, termination))
                s._dirty = True
            return
        if result not in ("1-0", "0-1", "1/2-1/2"):
            return
        if not s.is_over():
            s.referee.end(result, termination, t)
        elif (record.result, record.termination) != (result, termination):
            record.result, record.termination = result, termination  # the host's word is final
            s.game_log.entry(GameDecided(t, result, termination))
            s._dirty = True

    def takeback(self, moves: int, t: float) -> None:
        """The authoritative game is ``moves`` long now: take back what this board has beyond it."""
        s = self._s
        s._advance(t)
        lit = s.pending is not None and self.is_remote_turn() and len(s.record.moves) >= moves
        plies = len(s.record.moves) - moves
        if lit or plies > 0:
            s.game_log.entry(RemoteTakeback(t, moves))  # replay cannot tell it from this board's events
        if lit:
            s.turning.assumed()
            s._apply(s.tracker.expect(None, t))
        if plies > 0:
            self.offer = None
            s.turning.assumed()
            s._apply(s.tracker.take_back(plies, t))
            if s.is_over():
                s.record.result, s.record.termination = "*", ""

    def request(self, kind: str, t: float) -> None:
        """The other side offers a draw or asks for a takeback (this board's button answers:
        the same button accepts), or declined this side's offer."""
        s = self._s
        s._advance(t)
        if kind in ("draw", "takeback") and not s.is_over():
            self.offer = kind
            s.referee.draw_offer = kind == "draw"
            s.warning = f"your opponent offers a {kind}: press {kind} to accept, or move to decline" if kind == "draw" \
                else "your opponent asks to take back a move: press takeback to accept"
            if kind == "draw":
                s.display.light_kings(Code.DRAW_OFFER)
                s.display.sound(Code.DRAW_OFFER)
        elif kind == "rematch" and s.is_over():
            if self.rematch_offered:  # both asked: the host starts it
                s.warning = "rematch agreed: it starts on both boards"
            else:
                self.offer = kind
                s.warning = "your opponent offers a rematch (colours swapped): press new-game to accept"
        elif kind == "decline":
            self.rematch_offered = False
            s.warning = "your opponent declined"
            s.referee.draw_offer = False
            s.display.light([])

    def ask_new_game(self, t: float) -> None:
        """A new game asked for in a network game (the new-game button, the page's New game, the
        start position set up after the result): refused while the game runs; after the result
        a rematch is offered to the other side (or its offer accepted). Neither board starts it
        alone: the host starts it on both once agreed (docs/network-protocol.md, "Rematch")."""
        s = self._s
        s._advance(t)
        if not s.is_over():
            s.warning = ("a new game cannot start during a network game: resign, offer a draw or claim first; "
                         "after the result, new-game offers your opponent a rematch")
        elif self.rematch_advice is not None:
            s.warning = self.rematch_advice
        elif self.offer == "rematch":
            self.offer = None
            self.requests.append("accept")
            s.warning = "rematch accepted: it starts on both boards (colours swapped)"
        elif self.rematch_offered:
            s.warning = "rematch offered: waiting for your opponent to press new-game"
        else:
            self.rematch_offered = True
            self.requests.append("rematch")
            s.warning = "rematch offered (colours swapped): waiting for your opponent to press new-game"

    def start_rematch(self, t: float, *, color: str, white: str, black: str, fen: str | None = None) -> None:
        """Begin the agreed rematch on this board: ``color`` is this board's colour in it."""
        s = self._s
        self.rematch_offered = False
        self.offer = None
        settings: Settings = replace(s.settings, color=color)
        s.new_game(t, fen=fen, settings=settings)
        self.set_players(white, black)
        s.warning = f"rematch: you play {color}; set the pieces up"

    def take_requests(self) -> list[str]:
        """This board's requests for the other side since the last call (NETWORK_REQUESTS)."""
        requests, self.requests = self.requests, []
        return requests

    def button(self, button: Button, t: float) -> None:
        """Resign, draw, takeback and claim in a network game: passed to the other side."""
        s = self._s
        if s.is_over():  # one record on both boards: its result is final (no takeback either)
            s.warning = f"the game is over ({s.record.result})"
            return
        local = self.local_color()
        assert local is not None
        if button == Button.RESIGN:
            self.requests.append("resign")
            s.referee.resign(local, t)
        elif button == Button.CLAIM:
            self.requests.append("claim")
            s.referee.claim(t)
        elif button in (Button.DRAW, Button.TAKEBACK):
            kind = "draw" if button == Button.DRAW else "takeback"
            if self.offer == kind:
                self.requests.append("accept")
                self.offer = None
                if kind == "draw":
                    s.referee.end("1/2-1/2", "draw agreed", t)
                s.warning = None if kind == "takeback" else s.warning
            else:
                self.requests.append(kind)
                s.warning = f"{kind} {'offered' if kind == 'draw' else 'asked'}: waiting for your opponent"

    def keep_game(self, t: float) -> None:
        """The tracker began a game by itself in a network game (the start position set up after
        the result, or a cleared board set up): that asks for a rematch; the game stays."""
        s = self._s
        if s.is_over():
            s.turning.assumed()
            s.tracker.finish()  # the pieces now stand for the next game; no move counts until agreed
        else:
            lit = legal(s.record.board(), s.record.pending) if s.record.pending else None
            self.restoring = True
            try:
                s.turning.assumed()
                s._apply(s.tracker.new_game(t, s.record.board()))
                if lit is not None and self.is_remote_turn():
                    s._apply(s.tracker.expect(lit, t))
            finally:
                self.restoring = False
        s.display.tracker_leds = s.tracker.leds()
        self.ask_new_game(t)


class RemoteInput:
    """The other side's messages (the link to the other board, Lichess) as one input, opened by
    the daemon (``with Daemon.remote_input(reason) as game``): each method is one message; the
    session answers once, on leaving (``effects``), and the daemon carries that out with
    ``reason``. Leaving with an exception answers nothing: what was applied is answered with the
    next input. Blocks may nest (a rematch begun while an offer is answered): each answers what
    the game did up to its end."""

    def __init__(self, session: Session, reason: str | None = None) -> None:
        self._s = session
        self.reason = reason
        self.effects = NOTHING

    def __enter__(self) -> RemoteInput:
        self._s._inputs += 1
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self._s._inputs -= 1
        if kind is None:
            self.effects = self._s.answer()

    def move(self, ply: int, uci: str, t: float, *, clock: float | None = None) -> bool:
        """:meth:`RemotePlay.move`: True if the move is new, False if it was applied already."""
        before = len(self._s.remote.moves())
        self._s.remote_move(ply, uci, t, clock=clock)
        return len(self._s.remote.moves()) > before

    def end(self, result: str, termination: str, t: float) -> None:
        self._s.remote_end(result, termination, t)

    def takeback(self, moves: int, t: float) -> None:
        self._s.remote_takeback(moves, t)

    def request(self, kind: str, t: float) -> None:
        self._s.remote_request(kind, t)

    def sync_clock(self, remaining: dict[str, float], running: str | None, t: float) -> None:
        self._s.sync_clock(remaining, running, t)

    def move_clocks(self, clocks: list[float | None]) -> None:
        self._s.set_move_clocks(clocks)

    def players(self, white: str, black: str) -> None:
        self._s.set_players(white, black)

    def start_rematch(self, t: float, *, color: str, white: str, black: str, fen: str | None = None) -> None:
        self._s.start_rematch(t, color=color, white=white, black=black, fen=fen)

    def new_game(self, t: float, *, settings: Settings) -> None:
        """A network game begins on this board (the page's Invite): no lesson or replay goes on."""
        self._s.guide = None
        self._s.new_game(t, settings=settings)

    def warn(self, warning: str) -> None:
        """What the other side's link says to the player (a refused move, an aborted game)."""
        self._s.warning = warning
