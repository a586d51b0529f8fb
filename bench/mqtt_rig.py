"""A private Mosquitto and a link that can be cut: what the broadcast's tests, bench and demo run on.

:class:`Broker` starts Debian's ``mosquitto`` on a free port with a generated config (never the
system service), its retained messages and sessions persisted in its own folder, and restarts it
on the same port. :class:`CuttableLink` is a TCP relay between one board and the broker whose
connections can be dropped and refused for a while: a board's Wi-Fi going away.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mosquitto_path() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()), None)


class Broker:
    """``mosquitto -c <generated config>`` on 127.0.0.1:``port``; ``start``/``stop``/``restart``."""

    def __init__(self, folder: Path, *, port: int | None = None, listener: str = "", anonymous: bool = True,
                 extra: str = "") -> None:
        """``listener``: lines for the listener (TLS files); ``anonymous``: whether clients need
        no credentials; ``extra``: more lines (``password_file``, ``acl_file``)."""
        exe = mosquitto_path()
        if exe is None:
            raise FileNotFoundError("mosquitto is not installed (make test installs Debian's mosquitto)")
        self.exe = exe
        self.folder = folder
        self.port = port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "mosquitto.conf"
        # Run as the user running the tests (as root, mosquitto would otherwise become the
        # "mosquitto" user, which cannot write in the test's private folder).
        self.config.write_text(
            f"user {pwd.getpwuid(os.getuid()).pw_name}\n"
            f"listener {self.port} 127.0.0.1\n{listener}\n"
            f"allow_anonymous {'true' if anonymous else 'false'}\npersistence true\n"
            f"persistence_location {folder}/\nautosave_interval 1\nmax_queued_messages 100000\n"
            f"message_size_limit 262144\nlog_dest file {folder}/mosquitto.log\n{extra}",
            encoding="utf-8")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, *, timeout: float = 10.0) -> None:
        self.process = subprocess.Popen([self.exe, "-c", str(self.config)], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited with {self.process.returncode}; see {self.folder}/mosquitto.log")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return
            time.sleep(0.05)
        raise TimeoutError(f"mosquitto did not listen on {self.port}")

    def stop(self) -> None:
        """SIGTERM (it saves its retained messages and sessions) and wait."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self, *, down: float = 0.0) -> None:
        self.stop()
        time.sleep(down)
        self.start()

    def __enter__(self) -> Broker:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


class CuttableLink:
    """A TCP relay on a free port to ``target``; :meth:`cut` drops every connection through it and
    refuses new ones for a while (runs on the caller's event loop)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self._server: asyncio.Server | None = None
        self._down_until = 0.0
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def cut(self, seconds: float) -> None:
        self._down_until = time.monotonic() + seconds
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    @property
    def is_down(self) -> bool:
        return time.monotonic() < self._down_until

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.is_down:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.IncompleteReadError):
                pass
            finally:
                dst.transport.abort()

        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        except asyncio.CancelledError:  # the loop is ending: this connection goes with it, quietly
            writer.transport.abort()
            up_writer.transport.abort()
        self._writers -= {writer, up_writer}

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self.cut(0)
            await self._server.wait_closed()
