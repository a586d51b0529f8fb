"""Invitation codes and game tokens, kept in one file per role (mode 0600) in the games folder.

The host's file holds the game id, the one-time code (until used) and the token it gave; the
guest's holds the host's address, the token and its own game id. Either lets a restarted daemon
take up the unfinished network game with the same command.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import secrets
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.errors import GameFileError

if TYPE_CHECKING:
    from boardctl.storage import GameRecord, GameStore

log = logging.getLogger(__name__)

#: Letters of an invitation code: no 0/O, 1/I/L, so it can be read aloud and typed.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_token() -> str:
    return secrets.token_urlsafe(32)


def same_secret(given: str | None, stored: str | None) -> bool:
    """Constant-time comparison; None never matches."""
    return given is not None and stored is not None and hmac.compare_digest(given.encode(), stored.encode())


@dataclass(frozen=True)
class Ticket:
    """One side's hold on a network game."""

    role: str  # "host" or "join"
    game: str  # this board's game id (its files in the games folder)
    token: str | None = None  # given by the host once the code was used
    code: str | None = None  # host: the invitation code while unused
    address: str | None = None  # join: the host's address; host: the address printed
    color: str | None = None  # this board's colour
    host_game: str | None = None  # join: the host's id of the game (a new one means a rematch began)
    page: bool = False  # host: hosting began on the page's Invite (a restarted play/record daemon resumes it)

    def with_token(self, token: str) -> Ticket:
        return replace(self, token=token, code=None)


class TicketStore:
    """``network-host.json`` / ``network-join.json`` in ``folder``, written atomically with mode 0600."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, role: str) -> Path:
        return self.folder / f"network-{role}.json"  # boardctl.storage.NOT_GAMES: never taken for a game

    def load(self, role: str) -> Ticket | None:
        path = self.path(role)
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
            ticket = Ticket(**{k: data[k] for k in Ticket.__dataclass_fields__ if k in data})
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.warning("ignoring %s: %s", path, exc)
            return None
        if ticket.role != role or not isinstance(ticket.game, str):
            return None
        return ticket

    def save(self, ticket: Ticket) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(ticket.role)
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(asdict(ticket), fh)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        os.replace(tmp, path)

    def forget(self, role: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(role).unlink()



def unfinished_game(store: GameStore, ticket: Ticket | None) -> GameRecord | None:
    """The unfinished network game ``ticket`` points at, or None (finished, gone, unreadable)."""
    if ticket is None:
        return None
    try:
        record = store.load(ticket.game)
    except (GameFileError, OSError) as exc:
        log.warning("cannot resume the network game %s: %s", ticket.game, exc)
        return None
    return None if record.is_finished() or record.mode != "network" else record
