"""Each way `termsnake serve` cannot start is one line, in the server's log after what it said
before, and exit 2: no traceback, no control character from the command line or a file."""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from plugin_folders import plugins_in
from ssh_client import TERMSNAKE

from termsnake.commands import cli
from termsnake.serve.address import why_not

IN_USE = "Address already in use (another program listens there: stop it, or choose another --port)"


@contextmanager
def taken_port() -> Iterator[int]:
    """A port of 127.0.0.1 another socket listens on, for the block."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def one_line(err: str) -> str:
    """The only line of ``err``, checked to hold no traceback or escape."""
    assert "Traceback" not in err and "\x1b" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data directory of the test's own, and the test's folder as the current one."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path


def test_a_port_in_use_is_said_without_asyncios_tuple(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was "error while attempting to bind on address ('127.0.0.1', 2222): address already
    # in use": Python's tuple, and nothing of what to do.
    with taken_port() as port:
        assert cli.main(["serve", "--port", str(port)]) == 2
    said = one_line(capsys.readouterr().err)
    assert said == f"termsnake serve: cannot listen on 127.0.0.1:{port}: {IN_USE}"


def test_an_address_not_on_this_host_is_said_so(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 192.0.2.1 is for documentation (RFC 5737): no machine's interface has it.
    assert cli.main(["serve", "--port", "0", "--host", "192.0.2.1"]) == 2
    said = one_line(capsys.readouterr().err)
    assert said == ("termsnake serve: cannot listen on 192.0.2.1:0: Cannot assign requested "
                    "address (no network interface of this machine has that address)")  # fmt: skip


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("a" * 64, "label too long"),  # a part of a name has 63 letters at most
        ("box..example", "label empty or too long"),
        ("box\udcff", "Invalid character '\\udcff'"),  # a byte not UTF-8 on the command line
    ],
)
def test_a_host_no_look_up_can_take_is_a_usage_error(
    home: Path, capsys: pytest.CaptureFixture[str], host: str, why: str
) -> None:
    # They were a traceback of the idna codec, from the look-up under asyncio.
    assert cli.main(["serve", "--port", "0", "--host", host]) == 2
    said = one_line(capsys.readouterr().err)
    assert f"argument --host: not a host name or address ({why})" in said, said


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--host-key", "FILE/key"], "host key FILE/key: Not a directory"),
        (["--host-key", "\x1b[2Jkey/"], "host key \\x1b[2Jkey: Is a directory"),
        (["--authorized-keys", "gone\x07"], "--authorized-keys gone\\x07: No such file or"),
    ],
)
def test_a_key_file_that_cannot_be_used_is_one_line(
    home: Path, capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    Path("FILE").write_text("")
    Path("\x1b[2Jkey").mkdir()
    assert cli.main(["serve", "--port", "0", *args]) == 2
    said = one_line(capsys.readouterr().err)
    assert said.startswith(f"termsnake serve: {says}"), said


def test_the_reasons_a_bind_fails_are_said_with_what_to_do() -> None:
    assert why_not(OSError(errno.EACCES, "error while ..."), "0.0.0.0", 22) == (
        "Permission denied (a port below 1024 needs root, or the capability CAP_NET_BIND_SERVICE)"
    )
    assert why_not(OSError(errno.EACCES, "error while ..."), "0.0.0.0", 2222) == (
        "Permission denied"
    )
    assert why_not(OSError(errno.EINVAL, "error while ..."), "fe80::1", 2222) == (
        "Invalid argument (a link-local address needs its interface, as in fe80::1%eth0)"
    )
    looked_up = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert why_not(looked_up, "nowhere", 2222) == "Name or service not known"


def test_what_a_plugin_logged_comes_whole_before_the_error_to_a_slow_reader(
    tmp_path: Path,
) -> None:
    # The error was printed straight to stderr and the process exited: the log's lines its
    # thread had not written yet (a reader slower than the plugin's logging) were lost, and the
    # error was not the last line.
    logs = ("import logging\nfor i in range(2000):\n"
            "    logging.getLogger('chatty').warning('line %d %s', i, 'x' * 100)\n")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(plugins_in(tmp_path, {"chatty": logs})),
           "XDG_DATA_HOME": str(tmp_path / "data")}  # fmt: skip
    with taken_port() as port:
        proc = subprocess.Popen(
            [TERMSNAKE, "serve", "--port", str(port)], env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        time.sleep(1.5)  # its stderr's pipe fills meanwhile: the log's thread waits
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and out == ""
    lines = err.splitlines()
    assert lines[-1] == f"termsnake serve: cannot listen on 127.0.0.1:{port}: {IN_USE}"
    assert lines[:-1] == [f"termsnake serve: line {i} {'x' * 100}" for i in range(2000)]
