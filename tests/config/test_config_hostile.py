"""Bad config files: each is one ConfigError naming the file and the key or line, never a traceback."""

from __future__ import annotations

import codecs
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl import config
from boardctl.errors import BoardctlError, ConfigError

GOOD = '[web]\nport = 8080\nhost = "127.0.0.1"\n[engine]\nlevel = "beginner"\n'

#: (name, file bytes, what the message must name: a key, or "line N").
BAD_FILES: list[tuple[str, bytes, str]] = [
    # encodings
    ("utf8-bom", codecs.BOM_UTF8 + GOOD.encode(), "line 1"),
    ("utf16-bom", GOOD.encode("utf-16"), "line 1"),
    ("utf16-le", GOOD.encode("utf-16-le"), "line 1"),
    ("utf16-be", GOOD.encode("utf-16-be"), "line 1"),
    ("utf32", GOOD.encode("utf-32"), "line 1"),
    ("latin1", '[engine]\nlevel = "débutant"\n'.encode("latin-1"), "line 2"),
    ("cp1252-comment", "# caf\xe9\n[web]\nport = 1\n".encode("cp1252"), "line 1"),
    ("stray-byte-line-4", b"[web]\nport = 8080\n\n\xff = 1\n", "line 4"),
    ("surrogate-bytes", b'[engine]\npath = "\xed\xa0\x80"\n', "line 2"),
    ("nul-byte-raw", b"[web]\nport = 80\x00\n", "line 2"),
    # structure too deep or too big
    ("arrays-5000-deep", b"[web]\nport = " + b"[" * 5000 + b"]" * 5000 + b"\n", "line 2"),
    ("arrays-17-deep", b"[game]\n\ncolor = " + b"[" * 17 + b"]" * 17 + b"\n", "line 3"),
    ("inline-tables-3000-deep", b"[web]\nport = " + b"{a = " * 3000 + b"1" + b" }" * 3000 + b"\n", "line 2"),
    ("unclosed-5000", b"[web]\nport = " + b"[" * 5000 + b"\n", "line 2"),
    ("int-5000-digits", b"[web]\nport = 1" + b"0" * 5000 + b"\n", "line 2"),
    ("int-401-digits", b"[board]\nsettle = 1" + b"0" * 400 + b"\n", "line 2"),
    ("float-401-digits", b"[board]\nsettle = 1." + b"5" * 400 + b"\n", "line 2"),
    ("huge-file", b"# " + b"x" * (config.MAX_FILE_BYTES + 10) + b"\n", "larger than"),
    # strings that would fail far from the file
    ("nul-in-games-dir", b'[storage]\ngames_dir = "/tmp/a\\u0000b"\n', "storage.games_dir"),
    ("tab-in-engine-path", b'[engine]\npath = "/usr/bin/\\tstockfish"\n', "engine.path"),
    ("newline-in-serial-url", b'[board]\nserial_url = "/dev/tty\\nACM0"\n', "board.serial_url"),
    ("escape-in-pinout", b'[board]\npinout = "\\u001b[31m"\n', "board.pinout"),
    ("del-in-games-dir", b'[storage]\ngames_dir = "a\\u007fb"\n', "storage.games_dir"),
    ("long-engine-path", b'[engine]\npath = "' + b"a" * 5000 + b'"\n', "engine.path"),
    ("empty-games-dir", b'[storage]\ngames_dir = ""\n', "storage.games_dir"),
    # web.host
    ("host-words", b'[web]\nhost = "not a host"\n', "web.host"),
    ("host-bracketed-v6", b'[web]\nhost = "[::1]"\n', "web.host"),
    ("host-with-port", b'[web]\nhost = "127.0.0.1:8080"\n', "web.host"),
    ("host-url", b'[web]\nhost = "http://localhost"\n', "web.host"),
    ("host-number", b"[web]\nhost = 127001\n", "web.host"),
    ("host-userinfo", b'[web]\nhost = "127.0.0.1:P@evil.com"\n', "web.host"),
    ("host-label-too-long", b'[web]\nhost = "' + b"a" * 64 + b'.com"\n', "web.host"),
    ("host-nul", b'[web]\nhost = "local\\u0000host"\n', "web.host"),
    # wrong types and ranges
    ("port-string", b'[web]\nport = "8080"\n', "web.port"),
    ("port-negative", b"[web]\nport = -1\n", "web.port"),
    ("port-float", b"[web]\nport = 80.5\n", "web.port"),
    ("port-bool", b"[web]\nport = true\n", "web.port"),
    ("port-date", b"[web]\nport = 1979-05-27\n", "web.port"),
    ("port-array", b"[web]\nport = [8080]\n", "web.port"),
    ("port-table", b"[web]\nport = {value = 8080}\n", "web.port"),
    ("settle-inf", b"[board]\nsettle = inf\n", "board.settle"),
    ("settle-nan", b"[board]\nsettle = nan\n", "board.settle"),
    ("debounce-negative", b"[board]\ndebounce = -0.1\n", "board.debounce"),
    ("movetime-huge", b"[engine]\nmovetime = 1e300\n", "engine.movetime"),
    ("level-unicode-digits", '[engine]\nlevel = "١٥٠٠"\n'.encode(), "engine.level"),
    ("level-float", b"[engine]\nlevel = 1500.0\n", "engine.level"),
    ("level-huge", b"[engine]\nlevel = 99999999999999999999\n", "engine.level"),
    ("time-control-unicode", '[game]\ntime_control = "١٥+١٠"\n'.encode(), "game.time_control"),
    ("time-control-huge", b'[game]\ntime_control = "' + b"9" * 400 + b'+0"\n', "game.time_control"),
    ("time-control-zero", b'[game]\ntime_control = "0+5"\n', "game.time_control"),
    ("pin-int", b"[web]\npin = 123456\n", "web.pin"),
    ("pin-long", b'[web]\npin = "1234567890123"\n', "web.pin"),
    ("arbiter-string", b'[game]\narbiter = "yes"\n', "game.arbiter"),
    ("color-list", b'[game]\ncolor = ["white"]\n', "game.color"),
    ("backend-long", b'[board]\nbackend = "' + b"x" * 100_000 + b'"\n', "board.backend"),
    # keys and sections
    ("unknown-key", b"[web]\nprot = 8080\n", "web.prot"),
    ("unknown-section", b"[webb]\nport = 8080\n", "webb.port"),
    ("top-level-key", b"port = 8080\n", "port"),
    ("nested-table", b"[web.tls]\ncert = 1\n", "web.tls"),
    ("long-key", b"[web]\n" + b"k" * 10_000 + b" = 1\n", "web.kkkk"),
    ("array-of-tables", b"[[web]]\nport = 1\n", "web"),
    # not TOML
    ("unclosed-section", b"[board\n", "line 1"),
    ("duplicate-key", b"[web]\nport = 1\nport = 2\n", "line 3"),
    ("bare-word", b"[web]\nport = eighty\n", "line 2"),
    ("unterminated-string", b'[web]\nhost = "127.0.0.1\n', "line 2"),
    ("unterminated-multiline", b'[web]\nhost = """127\n\n', "line"),
    ("ini-style", b"[web]\nport: 8080\n", "line 2"),
    ("json", b'{"web": {"port": 8080}}', "line 1"),
]


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_bytes(data)
    return path


def test_the_table_is_broad() -> None:
    assert len(BAD_FILES) >= 50
    assert len({name for name, _, _ in BAD_FILES}) == len(BAD_FILES)


@pytest.mark.parametrize(("name", "data", "needle"), BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_each_bad_file_is_one_error_naming_file_and_key_or_line(tmp_path: Path, name: str, data: bytes, needle: str) -> None:
    path = write(tmp_path, name, data)
    with pytest.raises(ConfigError) as info:
        config.load({}, files=[path])
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    assert needle in message, message
    assert isinstance(info.value, BoardctlError) and isinstance(info.value, ValueError)
    assert len(message) < 600 and "\n" not in message


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "0.0.0.0", "::", "", "localhost", "boardctl.local",
                                  "pi4", "fe80::1%eth0", "192.168.1.20", "my-board.example.org."])
def test_good_hosts_pass(tmp_path: Path, host: str) -> None:
    path = write(tmp_path, "host", f'[web]\nhost = "{host}"\n'.encode())
    assert config.load({}, files=[path]).web_host == host


def test_a_good_file_with_brackets_and_digits_in_strings_and_comments(tmp_path: Path) -> None:
    text = (
        "# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ a comment with brackets " + "1" * 200 + "\n"
        '[engine]\npath = "/opt/engine [' + "[" * 40 + '] --x ' + "9" * 200 + '"\n'
        "[storage]\ngames_dir = '''/srv/[games]" + "{" * 40 + "'''\n"
    )
    cfg = config.load({}, files=[write(tmp_path, "ok", text.encode())])
    assert cfg.engine_path.endswith("9" * 200)


def test_a_config_path_with_a_nul_byte_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        config.load({}, files=[Path(str(tmp_path) + "/a\x00b.toml")])


@pytest.mark.slow
@pytest.mark.parametrize(("name", "data", "needle"), [c for c in BAD_FILES if c[0] in (
    "utf8-bom", "utf16-bom", "latin1", "arrays-5000-deep", "nul-in-games-dir", "host-words", "int-5000-digits",
)])
def test_the_command_stops_with_one_line_and_no_traceback(tmp_path: Path, name: str, data: bytes, needle: str) -> None:
    path = write(tmp_path, name, data)
    result = subprocess.run(
        [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
         "--games-dir", str(tmp_path / "games"), "--config", str(path)],
        input='{"t": 0}\n', capture_output=True, text=True, timeout=60,
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")},
    )
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"boardctl record: error: {path}: ") and needle in line


toml_fragments = st.sampled_from([
    "[web]", "[board]", "[engine]", "[game]", "[storage]", "port", "host", "level", "settle", "games_dir",
    " = ", "=", '"', "'", '"""', "'''", "[", "]", "{", "}", ",", "\n", "#", "\\", "\\u0000", "1", "9" * 120, "-",
    ".", "e", "inf", "nan", "true", "1979-05-27", "\ufeff", "\x00", "é", "\t", " ",
])


@pytest.mark.fuzz
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(toml_fragments, max_size=40).map("".join) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
       st.sampled_from(["utf-8", "utf-16", "latin-1"]))
def test_fuzzed_config_files_are_loaded_or_one_config_error(tmp_path: Path, text: str, encoding: str) -> None:
    path = tmp_path / "fuzz.toml"
    path.write_bytes(text.encode(encoding, "surrogatepass") if encoding != "latin-1" else text.encode("latin-1", "replace"))
    try:
        config.load({}, files=[path])
    except ConfigError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: ")
        assert re.search(r"line \d+|[a-z_]+\.[a-z_]+|'|larger than", message), message
