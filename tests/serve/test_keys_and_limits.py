"""The server's own files and the limits a client cannot talk its way past: key files read as any
user file is (capped, no pipes), a host key made through a link that points nowhere yet, bad
options said in one line, window sizes clamped, refused connections counted."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
from dataclasses import asdict
from pathlib import Path

import asyncssh
import pytest
from ssh_client import Server, connect, openssh, openssh_command, player, running

from termsnake.commands import cli
from termsnake.commands.serve import options_from
from termsnake.serve import listen, server
from termsnake.serve.address import reached_at, with_port
from termsnake.serve.gate import Gate, Stage
from termsnake.serve.hostkey import HostKeyError, load_or_create, read_authorized_keys
from termsnake.serve.limits import DEFAULTS, MAX_COLUMNS, MAX_PENDING_INPUT, MAX_ROWS
from termsnake.serve.rates import Arrivals, client_of
from termsnake.serve.terminal import ChannelOutput, ChannelTerminal


def test_a_new_host_key_is_private_and_a_link_to_it_stays(tmp_path: Path) -> None:
    link = tmp_path / "key"
    link.symlink_to(tmp_path / "keys" / "host")  # points nowhere yet
    (tmp_path / "keys").mkdir()
    key, made = load_or_create(link)
    assert made and link.is_symlink()
    target = tmp_path / "keys" / "host"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    again, made = load_or_create(link)
    assert not made and again.public_data == key.public_data  # made once, then reused


@pytest.mark.slow  # servers started again and again: CPU-heavy
def test_the_server_says_when_it_makes_a_host_key_after_where_it_listens(tmp_path: Path) -> None:
    # A mistyped --host-key made a new key without a word (clients then meet a new key).
    said = []
    for _ in range(2):  # the second time, the same key again: nothing to say
        with running(tmp_path) as s:
            assert s.proc.stdout is not None
            s.proc.send_signal(signal.SIGTERM)
            said.append(s.proc.stdout.read())
    fingerprint, made, *_ = said[0].splitlines()
    assert fingerprint.startswith("termsnake serve: host key SHA256:")  # at every start
    path = tmp_path / "data" / "termsnake" / "ssh_host_ed25519_key"
    assert made == f"termsnake serve: made a new host key at {path}"
    assert said[1].splitlines()[0] == fingerprint and "made" not in said[1]


@pytest.mark.parametrize("kind", ["junk", "pem", "device", "pipe", "directory", "loop"])
def test_a_host_key_that_cannot_be_read_is_one_line(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "key"
    if kind == "junk":
        path.write_bytes(b"\x1b[2J not a key\n")
    elif kind == "pem":
        path.write_bytes(b"-----BEGIN [OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH\n")
    elif kind == "pipe":
        os.mkfifo(path)  # opening it would wait for a writer for ever
    elif kind == "directory":
        path.mkdir()
    elif kind == "loop":
        path.symlink_to(tmp_path / "other")  # the key's links go round: no file, and no room
        (tmp_path / "other").symlink_to(path)  # for a new one that keeps the links
    else:
        path = Path("/dev/zero")  # endless: refused unread
    with pytest.raises(HostKeyError) as e:
        load_or_create(path)
    assert "\n" not in str(e.value) and str(e.value)
    assert kind != "loop" or (path.is_symlink() and "symbolic links" in str(e.value))


def test_authorized_keys_are_read_and_junk_is_refused(tmp_path: Path) -> None:
    public = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode()
    good = tmp_path / "good"
    good.write_text(public)
    read = read_authorized_keys(good)
    assert (read.read, read.skipped, read.warning()) == (1, (), None)
    for data, says in [
        # An empty file, which asyncssh read as admitting no one, is refused as one of junk is.
        (b"", r"no public keys asyncssh can read \(the file has none\)"),
        (b"# nobody yet\n\n", r"\(the file has none\)"),
        (b"junk\n", r"no public keys asyncssh can read \(line 1\)$"),
        (b"\njunk\n# x\nmore junk\n", r"\(line 2; 1 more line it cannot read\)$"),
        (b"-----BEGIN ( PUBLIC KEY-----\n", "a malformed PEM header"),  # asyncssh: re.error
        (b"\xff\xfe", "not UTF-8"),
        (b"x" * (2 * 1024 * 1024), "too large"),
    ]:
        bad = tmp_path / "bad"
        bad.write_bytes(data)
        with pytest.raises(HostKeyError, match=says):
            read_authorized_keys(bad)


def test_authorized_keys_lines_asyncssh_cannot_read_are_skipped_and_said_in_one_line(
    tmp_path: Path,
) -> None:
    # asyncssh left them out without a word: a key mistyped kept its holder out, unsaid.
    ada, bo = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    bad_option = b'environment="NOEQUALS" ' + bo.export_public_key().strip()
    lines = [b"# the players", ada.export_public_key().strip(), b"ssh-ed25519 AAAAmistyped",
             b"", bad_option, b"junk\rmore"]  # fmt: skip
    path = tmp_path / "keys"
    path.write_bytes(b"\n".join(lines) + b"\n")
    warning = (
        "skipped 3 lines asyncssh cannot read (the first, line 3); admitting the 1 key it read"
    )

    async def go(port: int) -> None:
        async with await connect(port, "ada", client_keys=[ada]) as conn:
            await (await player(conn)).wait_for("hello, ada")
        with pytest.raises(asyncssh.PermissionDenied):  # its line was skipped
            await connect(port, "bo", client_keys=[bo])

    with running(tmp_path, "--authorized-keys", str(path)) as s:
        asyncio.run(go(s.port))
        s.proc.send_signal(signal.SIGTERM)
        said = [line for line in s.log().splitlines() if "authorized-keys" in line]
    assert said == [f"termsnake serve: warning: --authorized-keys {path}: {warning}"]
    read = read_authorized_keys(path)
    assert (read.read, read.skipped, read.warning()) == (1, (3, 5, 6), warning)  # as an editor
    # numbers the lines: asyncssh would split line 6 in two, at the carriage return


def test_authorized_keys_lines_are_lines_as_openssh_counts_them(tmp_path: Path) -> None:
    # A line asyncssh could not read was "not a key, certificate or subject", also a real key
    # after a byte order mark or with a comment that is not ASCII (asyncssh refuses those); a
    # line was split at \f, U+2028 and the like: a key in another's comment was admitted.
    ada, bo, cy = (asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()
                   for _ in range(3))  # fmt: skip
    path = tmp_path / "keys"
    lines = ["\ufeff" + ada, f"{ada} caf\u00e9", f"{ada} comment\f{bo}", f"{ada} x\u2028y", cy]
    path.write_text("\r\n".join(lines) + "\r\n", encoding="utf-8", newline="")
    read = read_authorized_keys(path)
    assert (read.read, read.skipped) == (1, (1, 2, 3, 4))
    assert read.warning() == (
        "skipped 4 lines asyncssh cannot read (the first, line 1: a byte order mark before it: "
        "save the file without one); admitting the 1 key it read"
    )
    key = asyncssh.import_public_key(cy)
    assert read.keys.validate(key, "h", "127.0.0.1") is not None
    for other in (ada, bo):
        assert read.keys.validate(asyncssh.import_public_key(other), "h", "127.0.0.1") is None
    path.write_text(f"{ada} comment\f{bo}\n", encoding="utf-8")
    with pytest.raises(HostKeyError, match="line 1: a character asyncssh takes for the end"):
        read_authorized_keys(path)


def test_a_key_whose_comment_is_not_ascii_is_said_to_be_skipped_for_it(tmp_path: Path) -> None:
    # OpenSSH takes it; asyncssh reads no entry from it and says only that: the line was named,
    # and its holder kept out, with no word of why.
    key = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()
    path = tmp_path / "keys"
    path.write_text(f"{key} jos\u00e9@laptop\n", encoding="utf-8")
    with pytest.raises(HostKeyError) as info:
        read_authorized_keys(path)
    assert str(info.value) == (
        "no public keys asyncssh can read (line 1: it holds '\u00e9' (U+00E9), and asyncssh reads "
        "no key whose comment is not ASCII)"
    )


def test_an_empty_authorized_keys_file_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # asyncssh read it as admitting no one, and the server served on: nobody could log in.
    # (A server that cannot start, in a process of its own: test_start_errors.py.)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "keys").write_bytes(b"")
    assert cli.main(["serve", "--port", "0", "--authorized-keys", str(tmp_path / "keys")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"termsnake serve: --authorized-keys {tmp_path / 'keys'}: no public "
                   "keys asyncssh can read (the file has none)\n")  # fmt: skip


def test_each_serve_option_reaches_the_server_and_the_others_keep_their_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command line fills the server's Options field by field, each from the option of its
    # name: one given must reach the server, and one not given must not be lost.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    seen: list[server.Config] = []

    async def serve(config: server.Config, **_: object) -> None:
        seen.append(config)

    monkeypatch.setattr(listen, "serve", serve)
    given = {"host": "::1", "max_per_address": 1, "max_time": 60.0, "max_input_rate": 5}
    argv = ["--host", "[::1]", "--max-per-address", "1", "--max-time", "60"]
    assert cli.main(["serve", *argv, "--max-input-rate", "5"]) == 0
    (config,) = seen
    assert asdict(config.options) == {**asdict(DEFAULTS), **given}


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("max_time", None, "Options.max_time has no option --max-time"),
        ("max_time", "60", "Options.max_time is of type float; --max-time gave '60'"),  # no type=
        ("max_sessions", 1.5, "Options.max_sessions is of type int; --max-sessions gave 1.5"),
    ],
)
def test_an_option_the_server_cannot_take_fails_as_the_server_starts(
    name: str, value: object, says: str
) -> None:
    # argparse's values are untyped (mypy sees Any): an option whose type= gave the wrong kind
    # reached the server as it was, to fail on a player.
    args = argparse.Namespace(**{**asdict(DEFAULTS), name: value})
    if value is None:  # the option is missing
        delattr(args, name)
    with pytest.raises(TypeError, match=re.escape(says)):
        options_from(args)
    assert options_from(argparse.Namespace(**asdict(DEFAULTS))) == DEFAULTS


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--port", "99999"], "expected a number from 0 to 65535, not 99999"),
        (["--host", ""], "--host: give an address (0.0.0.0 or :: for every interface)"),
        (["--authorized-keys", "JUNK"], "--authorized-keys JUNK: no public keys"),
        (["--host-key", "/dev/zero"], "host key /dev/zero: a pipe, socket or device, not a file"),
        # An empty path took the default key without a word.
        (["--host-key", ""], "--host-key: give the key file's path, not an empty string"),
        (["--authorized-keys", ""], "--authorized-keys: give the file of keys, not an empty"),
        (["--login-timeout", "0"], "must be at least 0.001 and at most 3600, not 0"),
    ],
)
def test_bad_serve_options_are_one_line_and_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    Path("JUNK").write_text("\x1b]0;title\x07 nothing\n")
    assert cli.main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and "\x1b" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_window_is_clamped_to_what_any_screen_shows() -> None:
    out = ChannelOutput(lambda text: None, lambda: 0, 1 << 20)
    term = ChannelTerminal(out, (2**31 - 1, 0))
    assert (term.width, term.height) == (MAX_COLUMNS, 1)
    term.resize(80, 2**31 - 1)  # a client's window change: drawn to this height, padded
    assert (term.width, term.height) == (80, MAX_ROWS)
    term.resize(-5, 24)
    assert (term.width, term.height) == (1, 24)


def test_a_key_flood_is_kept_to_the_input_cap_between_reads() -> None:
    # blessed moves what waits into a buffer of its own at each read: the cap counts both.
    term = ChannelTerminal(ChannelOutput(lambda text: None, lambda: 0, 1 << 20), (80, 24))
    for _ in range(20):
        term.feed(b"x" * 32768)  # an SSH packet's worth between two reads
        assert term.inkey(timeout=0.1) == ""  # a flood: dropped, its first key too
        assert len(term._keyboard_buf) + term._pending <= MAX_PENDING_INPUT


def test_late_terminal_replies_are_keys_no_screen_takes() -> None:
    # blessed reads on past each late XTVERSION reply by calling inkey again, a level deeper
    # each time: a thousand of them were a RecursionError that ended the session.
    term = ChannelTerminal(ChannelOutput(lambda text: None, lambda: 0, 1 << 20), (80, 24))
    errors = len(term.errors)
    term.feed(b"\x1bP>|x\x1b\\" * 7)
    key = term.inkey(timeout=0.1)
    assert key.name == "XTVERSION_RESPONSE" and len(term.errors) == errors
    term.feed(b"\x1bP>|x\x1b\\" * 1000)  # more than a person types: dropped as a flood
    assert term.inkey(timeout=0.1) == "" and len(term.errors) == errors


def test_refused_connections_are_counted_until_they_close() -> None:
    gate = Gate(max_sessions=2, max_per_address=1)
    assert gate.admit(1, "a") == (None, None)
    for _ in range(2):
        refusal, _ = gate.admit(2, "a")
        assert "too many connections" in (refusal or "") and not gate.crowded()
    assert gate.admit(3, "a")[0] is not None and gate.crowded()  # the next are dropped unheard
    gate.release_refused()
    assert not gate.crowded()
    gate.release(1)
    assert gate.admit(4, "a") == (None, None)


def test_new_connections_from_an_address_take_from_a_bucket_that_fills_in_a_minute() -> None:
    arrivals = Arrivals(per_minute=3, most=2)
    assert [arrivals.allow("a", 0.0) for _ in range(4)] == [True, True, True, False]
    assert arrivals.allow("b", 0.0)  # each address has its own
    assert not arrivals.allow("a", 19.0)  # one comes back every 20 s
    assert arrivals.allow("a", 21.0) and not arrivals.allow("a", 21.0)
    assert arrivals.allow("c", 22.0) and len(arrivals) == 2  # past ``most``, b is forgotten
    assert arrivals.allow("d", 100.0) and len(arrivals) == 1  # a minute untouched: as new
    assert [arrivals.allow("a", 100.0) for _ in range(4)] == [True, True, True, False]


def test_the_places_count_games_and_the_longest_waiting_is_let_go_for_a_newcomer() -> None:
    # Silent connections from many addresses filled every place before any game began.
    gate = Gate(max_sessions=2, max_per_address=3)
    assert [gate.admit(n, f"10.0.0.{n}") for n in (1, 2)] == [(None, None), (None, None)]
    assert gate.admit(3, "10.0.0.3") == (None, 1)  # two may wait: the first is let go
    assert gate.start(1) is not None  # and cannot start a game
    assert gate.start(2) is None and gate.start(3) is None and gate.playing == 2
    assert gate.admit(4, "10.0.0.4") == (None, None)  # waiting does not need a free game
    assert "full" in (gate.start(4) or "")
    for n in (1, 2, 3, 4):
        gate.release(n)
    assert gate.total == 0 and gate.playing == 0


def test_a_newcomer_pushes_out_the_longest_waiting_of_those_got_least_far() -> None:
    gate = Gate(max_sessions=3, max_per_address=9)
    for n in (1, 2, 3):
        gate.admit(n, f"10.0.0.{n}")
    gate.advance(1, Stage.AUTHENTICATING)
    gate.advance(2, Stage.HEARD)
    assert gate.admit(4, "10.0.0.4") == (None, 3)  # the silent one, though it came last
    assert gate.admit(5, "10.0.0.5") == (None, 4)
    gate.advance(5, Stage.HEARD)
    gate.advance(5, Stage.SILENT)  # never back
    # helper-48: the newcomer itself went when all the others had talked, so a few that talked
    # once and then stalled kept every newcomer out until the login timeout.
    assert gate.admit(6, "10.0.0.6") == (None, 2)  # the longest waiting of those heard
    assert gate.start(6) is None and gate.start(1) is None and gate.start(5) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", ""])
def test_a_server_on_every_address_says_to_connect_to_this_machines_name(host: str) -> None:
    # It said "ssh -p 2222 NAME@0.0.0.0", which reaches no server.
    assert reached_at(host) == socket.gethostname()


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "192.0.2.7", "snake.example.org"])
def test_a_server_on_one_address_says_that_address(host: str) -> None:
    assert reached_at(host) == host


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


needs_ipv6 = pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback here")


@pytest.mark.parametrize(
    ("host", "written"),
    [("::", "[::]:2614"), ("2001:db8::7", "[2001:db8::7]:2614"), ("0.0.0.0", "0.0.0.0:2614")],
)
def test_an_ipv6_address_is_written_in_brackets_before_its_port(host: str, written: str) -> None:
    # It said "listening on :::2614": which colon is the port's?
    assert with_port(host, 2614) == written


@needs_ipv6
@pytest.mark.skipif(shutil.which("ssh") is None, reason="no OpenSSH client here")
def test_a_server_on_ipv6_says_where_in_brackets_and_how_ssh_connects(tmp_path: Path) -> None:
    with running(tmp_path, "--host", "::1") as s:
        assert s.first_line.startswith(f"termsnake serve: listening on [::1]:{s.port}; ")
        hint = s.first_line.partition("connect with: ")[2].split()
        assert hint == ["ssh", "-p", str(s.port), "NAME@::1"]  # ssh takes no brackets there
        done = openssh(s.port, "ada@::1", "-T")  # the hint as typed (no -t: told to add it)
        assert "termsnake needs a terminal" in done.stdout, done.stderr


@pytest.mark.skipif(shutil.which("ssh") is None, reason="no OpenSSH client here")
def test_a_command_over_ssh_is_told_in_a_line_what_to_type(server: Server) -> None:
    # `ssh -p P ada@host play` read only ssh's "exec request failed on channel 0", exit 255.
    for tty in ("-T", "-tt"):
        command = [*openssh_command(server.port, "cmd@127.0.0.1", tty), "play"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=20)
        assert done.returncode == 1, done.stderr
        said = done.stdout + done.stderr
        assert "runs no commands: use ssh -t, no command" in said, said
        assert "request failed" not in said, said


@needs_ipv6
def test_a_server_that_cannot_listen_on_ipv6_says_where_in_brackets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with socket.socket(socket.AF_INET6) as taken:
        taken.bind(("::1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["serve", "--host", "::1", "--port", str(port)]) == 2
        assert f"cannot listen on [::1]:{port}: " in capsys.readouterr().err
        # Given in brackets, as it is written before a port: the same address, not a name.
        assert cli.main(["serve", "--host", "[::1]", "--port", str(port)]) == 2
        err = capsys.readouterr().err
        assert f"cannot listen on [::1]:{port}: " in err and "already in use" in err, err
    # With its port: said so, not looked up as a host name.
    assert cli.main(["serve", "--host", "[::1]:2222"]) == 2
    err = capsys.readouterr().err
    assert "argument --host: give the address alone (the port is --port's)" in err, err


def test_the_per_address_limits_count_an_ipv6_client_by_its_64() -> None:
    # helper-53: each address of a /64 had its own 30 connections a minute and 3 at once.
    arrivals = Arrivals(30)
    allowed = [arrivals.allow(client_of(f"2001:db8::{i:x}"), 0.0) for i in range(1, 101)]
    assert sum(allowed) == 30
    assert client_of("2001:db8:0:1::5") != client_of("2001:db8::5")  # another /64
    assert client_of("::ffff:192.0.2.7") == client_of("192.0.2.7") == "192.0.2.7"
    assert client_of("?") == "?"
