"""What the server's terminfo says of a client's TERM: its colours, and whether it can move the
cursor at all; read from the compiled files (``termsnake.terminfo``), since curses sets up only one
terminal a process."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ssh_client import Server, connect, openssh_command, player, running, start_classic
from test_log import left

from termsnake import terminfo
from termsnake.serve.terminal import CannotMoveCursor, ChannelOutput, ChannelTerminal

CUP = "cup=\\E[%i%p1%d;%p2%dH"
ENTRIES = (
    f"ts-mono|a terminal with no colours,\n\tcols#80, lines#24, {CUP},\n"
    f"ts-eight|a terminal of 8 colours,\n\tcolors#8, pairs#64, cols#80, {CUP},\n"
    f"ts-direct|a terminal of direct colour (32-bit numbers),\n\tcolors#0x1000000, {CUP},\n"
    "ts-glass|a glass tty,\n\tam, cols#80, bel=^G, cr=\\r, cud1=\\n, ind=\\n,\n"
    "ts-vt52|vt52's cursor addressing,\n\tcols#80, cup=\\EY%p1%' '%+%c%p2%' '%+%c,\n"
)
COLOUR = re.compile(rb"\x1b\[[0-9;]*[34][0-9][;m]")  # a foreground or background colour
BRIGHT_BLACK = b"\x1b[90m"  # the floor's colour, for terminals of 16 colours or more


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A terminfo folder (for TERMINFO) with the ENTRIES compiled."""
    tic = shutil.which("tic")
    if tic is None:
        pytest.skip("no tic (ncurses) to compile terminfo entries with")
    tmp = tmp_path_factory.mktemp("terminfo")
    (tmp / "entries.ti").write_text(ENTRIES)
    subprocess.run([tic, "-o", str(tmp / "ti"), str(tmp / "entries.ti")], check=True)
    return tmp / "ti"


@pytest.fixture(scope="module")
def terminfo_server(tmp_path_factory: pytest.TempPathFactory, folder: Path) -> Iterator[Server]:
    """The module's server: one that knows the ENTRIES, and takes the colours test's clients."""
    tmp = tmp_path_factory.mktemp("serve")
    with running(tmp, "--max-per-address", "8", env={"TERMINFO": str(folder)}) as s:
        yield s


async def board_drawn(port: int, name: str, kind: str) -> bytes:
    """All a client with TERM ``kind`` was sent, from the lobby through a game of classic
    (quit once drawn) to its summary."""
    async with await connect(port, name) as conn:
        p = await player(conn, term_type=kind)
        await start_classic(p, name)
        await p.keys(b"q")
        await p.wait_for("Moves (")
    return p.received


def test_colours_follow_the_clients_terminfo(terminfo_server: Server) -> None:
    # Every client got xterm-256color's colours, whatever its TERM: xterm-mono's too.
    kinds = {"mo": "ts-mono", "ei": "ts-eight", "di": "ts-direct", "un": "no-such-terminal",
             "lo": "x" * 100, "xt": "xterm-256color"}  # fmt: skip

    async def go() -> list[bytes]:
        drawn = (board_drawn(terminfo_server.port, name, kind) for name, kind in kinds.items())
        return list(await asyncio.gather(*drawn))

    mono, eight, direct, unknown, too_long, xterm = asyncio.run(go())
    assert not COLOUR.search(mono)
    assert COLOUR.search(eight) and BRIGHT_BLACK not in eight  # no bright colours on 8
    for sent in (direct, unknown, too_long, xterm):  # unknown ones: as xterm-256color
        assert COLOUR.search(sent) and BRIGHT_BLACK in sent


async def refused(port: int, name: str, kind: str) -> tuple[bytes, int | None]:
    """All a client with TERM ``kind`` was sent, and its exit status."""
    async with await connect(port, name) as conn:
        p = await player(conn, term_type=kind)
        await asyncio.wait_for(p.process.wait_closed(), 5)
        while not p.process.stdout.at_eof():
            await p.pump(0.1)
    return p.received, p.process.exit_status


@pytest.mark.parametrize("kind", ["ts-glass", "dumb", "dumb-emacs-ansi"])
def test_a_client_that_cannot_move_the_cursor_is_told_in_one_line(
    terminfo_server: Server, kind: str
) -> None:
    # The lobby was drawn with xterm's moves on a terminal that has none.
    said, status = asyncio.run(refused(terminfo_server.port, "gl", kind))
    assert said.decode() == (
        f"termsnake: your terminal (TERM={kind}) cannot move the cursor; connect from one that "
        "can, with TERM set to its real type (such as xterm-256color or linux)\r\n"
    )
    assert status == 1


@pytest.mark.skipif(shutil.which("ssh") is None, reason="no OpenSSH client here")
def test_openssh_on_a_glass_tty_is_told_and_exits(terminfo_server: Server, folder: Path) -> None:
    # As a person runs it: ssh sends its own TERM, and exits with the server's status; the
    # operator's log says why the visit ended.
    command = openssh_command(terminfo_server.port, "glass@127.0.0.1", "-tt")
    env = {**os.environ, "TERM": "ts-glass", "TERMINFO": str(folder)}
    began = time.monotonic()
    done = subprocess.run(
        command, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=20
    )
    assert time.monotonic() - began < 5
    assert done.stdout.startswith("termsnake: your terminal (TERM=ts-glass) cannot move")
    assert len(done.stdout.splitlines()) == 1 and "\x1b" not in done.stdout
    assert done.returncode == 1
    log = terminfo_server.wait_log("glass left after ")
    assert left(log, "glass") == "its terminal (TERM=ts-glass) cannot move the cursor"


@pytest.mark.parametrize(
    ("kind", "colours", "addressing"),
    [("ts-mono", -1, True), ("ts-eight", 8, True), ("ts-direct", 1 << 24, True),
     ("ts-glass", -1, False), ("ts-vt52", -1, True)],
)  # fmt: skip
def test_an_entry_is_read_from_its_file(
    folder: Path, monkeypatch: pytest.MonkeyPatch, kind: str, colours: int, addressing: bool
) -> None:
    monkeypatch.setenv("TERMINFO", str(folder))
    assert terminfo.look_up(kind) == terminfo.Entry(colours, addressing, kind != "ts-vt52")


def test_a_vt52_is_refused_in_one_line(terminfo_server: Server) -> None:
    # Its cursor moves are ESC Y and two characters: it was drawn on with xterm's (ESC [),
    # which it shows as text.
    said, status = asyncio.run(refused(terminfo_server.port, "vt", "ts-vt52"))
    assert said.decode() == (
        "termsnake: your terminal (TERM=ts-vt52) does not take the ANSI escapes termsnake "
        "draws with; connect from one that does, with TERM set to its real type (such as "
        "xterm-256color or linux)\r\n"
    )
    assert status == 1


def test_the_log_says_why_a_vt52_left(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERMINFO", str(folder))
    term = ChannelTerminal(ChannelOutput(lambda text: None, lambda: 0, 1 << 20), (80, 24))
    with pytest.raises(CannotMoveCursor) as caught:
        term.suit("ts-vt52")
    assert caught.value.why == "its terminal (TERM=ts-vt52) does not take ANSI escapes"


def test_a_hostile_name_is_not_looked_up(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A TERM is the client's to choose: a path out of the folder would read any file.
    monkeypatch.setenv("TERMINFO", str(folder))
    (folder / "t" / "t").mkdir(exist_ok=True)  # so that t/t/../ts-mono is a path to an entry
    assert terminfo.look_up("ts-mono") is not None
    for name in ("t/../ts-mono", str(folder / "t" / "ts-mono"), ".ts-mono", "ts-mono\x1b",
                 "ts-mono" + "-" * 60, ""):  # fmt: skip
        assert terminfo.look_up(name) is None


def test_what_is_no_entry_is_unknown(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # None of these may raise, or be waited on (a FIFO), or be taken for an entry.
    (tmp_path / "t").mkdir()
    entry = (folder / "t" / "ts-mono").read_bytes()
    (tmp_path / "t" / "ts-cut").write_bytes(entry[:20])
    (tmp_path / "t" / "ts-junk").write_bytes(b"\x1a\x01" + b"\xff" * 100)
    (tmp_path / "t" / "ts-huge").write_bytes(entry + b"\0" * terminfo.MAX_ENTRY)
    os.mkfifo(tmp_path / "t" / "ts-fifo")
    (tmp_path / "t" / "ts-folder").mkdir()
    monkeypatch.setenv("TERMINFO", str(tmp_path))
    for name in ("ts-cut", "ts-junk", "ts-huge", "ts-fifo", "ts-folder"):
        assert terminfo.look_up(name) is None, name


def test_a_damaged_entry_is_passed_over_for_the_next_folders(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As ncurses does: a broken copy in ~/.terminfo does not hide the system's good one.
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "ts-eight").write_bytes(b"\x1a\x01" + b"\xff" * 100)
    monkeypatch.setenv("TERMINFO", str(tmp_path))
    monkeypatch.setenv("TERMINFO_DIRS", str(folder))
    assert terminfo.look_up("ts-eight") == terminfo.Entry(8, True)


@pytest.mark.slow  # a server and a local game, both: CPU-heavy
def test_a_long_dumb_type_is_refused_as_the_local_game_refuses_it() -> None:
    # Too long for a terminfo name, so looked up nowhere; still a dumb terminal.
    kind = "dumb-" + "x" * 70
    with pytest.raises(CannotMoveCursor) as caught:
        ChannelTerminal(ChannelOutput(lambda text: None, lambda: 0, 1 << 20), (80, 24)).suit(kind)
    assert f"(TERM={kind[:64]}… (75 characters))" in str(caught.value)


async def screen_left(port: int, name: str, kind: str) -> list[str]:
    """The non-blank lines a client with TERM ``kind`` has on its screen once it has quit
    the lobby; its screen (pyte's) has no alternate screen, as vt100's and the Linux
    console's have none."""
    async with await connect(port, name) as conn:
        p = await player(conn, term_type=kind)
        await p.wait_for(f"hello, {name}")
        await p.keys(b"q")
        await asyncio.wait_for(p.process.wait_closed(), 5)
        while not p.process.stdout.at_eof():
            await p.pump(0.1)
    return [line.rstrip() for line in p.screen.display if line.strip()]


def test_a_terminal_without_an_alternate_screen_is_left_clear(terminfo_server: Server) -> None:
    # The lobby stayed on the client's screen, its goodbye run on from its last line
    # ("... q goes backbye!"): the alternate screen it was drawn on is xterm's.
    assert asyncio.run(screen_left(terminfo_server.port, "vt", "vt100")) == ["bye!"]
