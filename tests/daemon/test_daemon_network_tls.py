"""``host --tls-cert/--tls-key`` serves wss:// and prints the certificate's fingerprint beside the
code; ``join --fingerprint`` trusts exactly that certificate (a self-signed one made here)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from network.harness import Board, free_port

pytestmark = pytest.mark.slow

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")


@needs_openssl
def test_wss_with_a_self_signed_certificate(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    host_port = free_port()
    host = Board(["host", "--board", "sim", "--stdio", "--port", str(host_port), "--games-dir", str(tmp_path / "host"),
                  "--tls-cert", str(cert), "--tls-key", str(key)], tmp_path / "host-home")
    boards = [host]
    try:
        invite = host.next_line(30)["invite"]
        assert invite["address"] == f"wss://127.0.0.1:{host_port}/net"
        assert len(invite["fingerprint"].split(":")) == 32
        # Without the fingerprint the self-signed certificate is not trusted: refused, status 2.
        refused = subprocess.run(
            [*Board.command(), "join", invite["address"], "--code", invite["code"], "--board", "sim", "--stdio",
             "--no-web", "--games-dir", str(tmp_path / "refused")],
            input="", capture_output=True, text=True, timeout=60,
            env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "refused-config")},
        )
        assert refused.returncode == 2 and "not trusted" in refused.stderr
        guest = Board(["join", invite["address"], "--code", invite["code"], "--fingerprint", invite["fingerprint"],
                       "--board", "sim", "--stdio", "--no-web", "--games-dir", str(tmp_path / "guest")],
                      tmp_path / "guest-home")
        boards.append(guest)
        for board in boards:
            board.send({})
        guest.wait_for(lambda s: (s.get("network") or {}).get("connected"), 30)
        host.make("e2e4")
        guest.wait_for(lambda s: s["pending"] == "e2e4", 30)
        for board in boards:
            assert board.close() == 0
    finally:
        for board in boards:
            if board.proc.poll() is None:
                board.kill()
