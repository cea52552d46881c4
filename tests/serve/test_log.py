"""The server's log, as an operator reads it: who logged in and left and why, connections refused
or cut off (counted, so that no client can flood the log), and the host key's fingerprint."""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import signal
import subprocess
from pathlib import Path

import asyncssh
import pytest
from ssh_client import (
    Player,
    Server,
    connect,
    openssh,
    openssh_command,
    player,
    running,
    start_classic,
)

from termsnake.serve import events
from termsnake.tui.session import END_DEAF

LONG = "bob " + "o" * 400  # a user name no escape is allowed in (asyncssh's saslprep)
SSH = pytest.mark.skipif(shutil.which("ssh") is None, reason="no OpenSSH client here")


def run(coro: object) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


def stopped(s: Server) -> list[str]:
    """The server stopped (SIGTERM): what it printed after its first line."""
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(10) == 0
    return s.log().splitlines()


def left(log: list[str], name: str) -> str:
    """Why ``name`` left, as the log says."""
    (line,) = [line for line in log if line.startswith(f"termsnake serve: {name} left after ")]
    match = re.fullmatch(r"termsnake serve: \S+ left after \d+ s: (.+); \d+ playing", line)
    assert match, line
    return match.group(1)


async def busy(p: Player) -> None:
    """Press a key in the lobby (down) every 0.2 s until the visit ends."""
    while not p.process.stdout.at_eof():
        try:
            p.process.stdin.write(b"s")
        except BrokenPipeError:  # the server closed the channel before its end was read
            return
        await p.pump(0.2)


@SSH
def test_the_log_says_who_logged_in_and_who_left_and_why(tmp_path: Path) -> None:
    # The operator could not tell who was on, nor why someone was cut off: nothing was logged.
    async def go(s: Server) -> None:
        async with await connect(s.port, "dan") as c_dan, await connect(s.port, "cy") as c_cy:
            dan, cy = await player(c_dan), await player(c_cy)
            await dan.wait_for("hello, dan")
            await cy.wait_for("hello, cy")  # nothing pressed: --idle ends it
            keys = asyncio.create_task(busy(dan))  # keys all the time: --max-time ends it
            quits = openssh_command(s.port, "ada@127.0.0.1", "-tt")  # as `printf q | ssh -tt`
            ada = await asyncio.to_thread(
                subprocess.run, quits, input="q", capture_output=True, text=True, timeout=20
            )
            assert "bye!" in ada.stdout
            async with await connect(s.port, LONG) as c_bob:  # cut to a name, and in the log
                await (await player(c_bob)).wait_for("hello, bob")
            await asyncio.wait_for(cy.process.wait_closed(), 10)
            await asyncio.wait_for(dan.process.wait_closed(), 10)
            await keys
        async with await connect(s.port, "eve") as c_eve:
            eve = await player(c_eve)
            await eve.wait_for("hello, eve")
            s.proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(eve.process.wait_closed(), 10)

    with running(tmp_path, "--idle", "1", "--max-time", "2") as s:
        run(go(s))
        assert s.proc.wait(10) == 0
        log = s.log().splitlines()
    assert "termsnake serve: ada logged in from 127.0.0.1; 3 playing" in log
    bob = "bob" + "o" * 13  # the name a player gets: at most 16 of the user name's characters
    said = f"{bob} logged in from 127.0.0.1 (asked for {LONG[:24]}… (404 characters)); 3 playing"
    assert f"termsnake serve: {said}" in log
    whys = {name: left(log, name) for name in ("ada", bob, "cy", "dan", "eve")}
    assert whys == {"ada": "quit", bob: "closed", "cy": "idle", "dan": "max-time",
                    "eve": "shutdown"}  # fmt: skip


@SSH
def test_refused_connections_are_counted_in_a_line_not_logged_one_by_one(tmp_path: Path) -> None:
    # A client opening connection after connection must not be able to fill the operator's
    # log: the first refusal of an address is said, the rest counted in one line.
    async def go(s: Server) -> None:
        async with await connect(s.port, "ada") as conn:
            await (await player(conn)).wait_for("hello, ada")  # its one place
            bob = await asyncio.to_thread(openssh, s.port, "bob@127.0.0.1", "-tt")
            assert "too many connections from your address" in bob.stdout
            for _ in range(60):  # past --max-per-address, then past --max-connect-rate too
                _, writer = await asyncio.open_connection("127.0.0.1", s.port)
                writer.write(b"SSH-2.0-flood\r\n")
                writer.close()
            await asyncio.sleep(0.5)

    with running(tmp_path, "--max-per-address", "1") as s:
        run(go(s))
        log = stopped(s)
    said = [line for line in log if "127.0.0.1" in line and " logged in " not in line]
    assert len(said) == 2, log
    assert said[0] == (
        "termsnake serve: 127.0.0.1 refused: too many connections from its address "
        "(--max-per-address)"
    )
    match = re.fullmatch(
        r"termsnake serve: 127\.0\.0\.1: 60 more refused or cut off in the last \d+ s "
        r"\((.*)\)",
        said[1],
    )
    assert match, said[1]
    counted = dict(part.split(": ") for part in match.group(1).split(", "))
    assert set(counted) == {"too many from the address", "too fast"}
    assert sum(map(int, counted.values())) == 60


@SSH
def test_a_client_offering_keys_not_held_is_logged_once_and_any_admitted_key_takes_any_name(
    tmp_path: Path,
) -> None:
    keys = []
    for i in range(8):
        key = asyncssh.generate_private_key("ssh-ed25519" if i < 7 else "ecdsa-sha2-nistp256")
        keys.append(tmp_path / f"key{i}")
        key.write_private_key(keys[-1])
        keys[-1].chmod(0o600)
    held = [asyncssh.read_private_key(k) for k in keys[6:]]  # the last two only
    (tmp_path / "authorized").write_bytes(b"".join(k.export_public_key() for k in held))
    with running(tmp_path, "--authorized-keys", str(tmp_path / "authorized")) as s:
        cut = openssh(s.port, "mal@127.0.0.1", "-T", keys=keys[:7])  # 6 unknown: cut off
        assert "too many failed login tries" in cut.stderr
        # The log could not tell apart two players holding two keys: it names the one used,
        # not the others offered (ssh offers the unknown one first, and then the other).
        quits = openssh_command(s.port, "zoe@127.0.0.1", "-tt", keys=[keys[0], keys[7]])
        zoe = subprocess.run(quits, input="q", capture_output=True, text=True, timeout=20)
        assert "bye!" in zoe.stdout

        async def go() -> None:  # names are not tied to keys: one key is anyone
            for name in ("ann", "root"):
                async with await connect(s.port, name, client_keys=[held[0]]) as conn:
                    await (await player(conn)).wait_for(f"hello, {name}")

        run(go())
        log = stopped(s)
    assert "termsnake serve: 127.0.0.1 (mal) cut off: too many failed login tries" in log
    ed25519, ecdsa = (f"{k.get_fingerprint()} ({k.get_algorithm()})" for k in held)
    assert [line for line in log if " logged in " in line] == [
        f"termsnake serve: zoe logged in from 127.0.0.1 with key {ecdsa}; 1 playing",
        f"termsnake serve: ann logged in from 127.0.0.1 with key {ed25519}; 1 playing",
        f"termsnake serve: root logged in from 127.0.0.1 with key {ed25519}; 1 playing",
    ]
    if shutil.which("ssh-keygen") is not None:  # as ssh-keygen -lf prints it
        listed = subprocess.run(["ssh-keygen", "-lf", str(tmp_path / "authorized")],
                                capture_output=True, text=True).stdout.split("\n")  # fmt: skip
        assert [line.split()[1] for line in listed if line] == [k.get_fingerprint() for k in held]


@pytest.mark.slow  # servers started again and again: CPU-heavy
def test_the_host_key_fingerprint_follows_the_listening_line_at_every_start(
    tmp_path: Path,
) -> None:
    # It was said only when the key was made: the operator ran ssh-keygen to tell friends.
    said = []
    for _ in range(2):
        with running(tmp_path) as s:
            said.append(stopped(s)[0])
    assert said[0] == said[1]
    key = tmp_path / "data" / "termsnake" / "ssh_host_ed25519_key"
    fingerprint = asyncssh.read_private_key(key).get_fingerprint()
    assert said[0] == f"termsnake serve: host key {fingerprint} (ssh-ed25519)"
    if shutil.which("ssh-keygen") is not None:  # as ssh-keygen -lf prints it, and ssh shows
        shown = subprocess.run(["ssh-keygen", "-lf", str(key)], capture_output=True, text=True)
        assert shown.stdout.split()[1] == fingerprint


def test_refusals_are_said_once_an_address_an_interval_and_many_addresses_in_few_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    tally = events.Tally(interval=60, most=4, clock=lambda: now[0])
    with caplog.at_level(logging.INFO, "termsnake.serve"):
        for i in range(1000):
            tally.add("10.0.0.1", events.TOO_FAST if i % 2 else events.NO_GAME, "x" * 500)
        assert len(caplog.messages) == 1  # the first, at once
        assert caplog.messages[0].startswith("10.0.0.1 (xxxx") and len(caplog.messages[0]) < 120
        now[0] = 30.0
        for i in range(1000):  # as many addresses (IPv6 /64s are plenty)
            tally.add(f"10.1.{i // 256}.{i % 256}", events.TOO_MANY_HERE)
        tally.flush()  # the interval is not over: nothing more
        assert len(caplog.messages) == 4
        now[0] = 61.0
        tally.flush()
    assert caplog.messages[4:] == [
        "10.0.0.1: 999 more refused or cut off in the last 1 min 1 s (too fast: 500, "
        "left before a game: 499)",
        "997 refused or cut off from 4+ other addresses in the last 1 min 1 s "
        "(too many from the address: 997)",
    ]
    caplog.clear()
    tally.flush(force=True)  # a new interval: nothing counted yet
    assert caplog.messages == []


def test_players_coming_and_going_again_and_again_are_counted_past_a_budget(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Each login and leaving was a line without bound: logging in and out again and again, from
    # many addresses, flooded the operator's log.
    now = [0.0]
    visits = events.Visits(interval=60, most=3, clock=lambda: now[0])
    with caplog.at_level(logging.INFO, "termsnake.serve"):
        for i in range(5):
            visits.arrived()
            visits.logged_in(f"p{i}", None, f"10.0.0.{i}", 1)
            visits.left(f"p{i}", 1.0, "quit", 0)
        assert caplog.messages == [
            "p0 logged in from 10.0.0.0; 1 playing",
            "p0 left after 1 s: quit; 0 playing",
            "p1 logged in from 10.0.0.1; 1 playing",
        ]
        now[0] = 60.0
        visits.flush()
        assert caplog.messages[3:] == [
            "7 more players' lines not shown in the last 1 min 0 s (left: 4, logged in: 3)"
        ]
        visits.logged_in("q", None, "10.0.0.9", 1)  # a new interval: room again
    assert caplog.messages[4:] == ["q logged in from 10.0.0.9; 1 playing"]


def test_a_visit_is_counted_as_running_at_close_from_its_arrival_not_its_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Counted as its line was said, a visit that arrived just before "stopped" and said its
    # line just after was neither counted nor logged.
    visits = events.Visits(interval=60, most=10)
    with caplog.at_level(logging.INFO, "termsnake.serve"):
        visits.arrived()
        visits.arrived()
        visits.logged_in("ada", None, "10.0.0.1", 2)
        visits.left("ada", 1.0, "quit", 1)
        assert visits.close() == 1  # the second arrived and has not left
        visits.logged_in("bo", None, "10.0.0.2", 1)
        visits.left("bo", 1.0, "shutdown", 0)
    assert caplog.messages == [
        "ada logged in from 10.0.0.1; 2 playing",
        "ada left after 1 s: quit; 1 playing",
    ]


@pytest.mark.slow  # a server started with each damage: CPU-heavy
@SSH
def test_a_damaged_key_presets_file_is_one_line_then_kept_aside_and_said(tmp_path: Path) -> None:
    # Read at every login: a line each time would flood the log; overwritten, it would be lost.
    folder = tmp_path / "data" / "termsnake" / "serve"
    folder.mkdir(parents=True)
    (folder / "key-presets.json").write_bytes(b"\x1b[2J{not json")
    with running(tmp_path) as s:
        for typed in ("q", "q", "ssss\rs\rx"):  # the third chooses azerty (whose x quits)
            ran = openssh(s.port, "ada@127.0.0.1", "-tt", input=typed)
            assert "Keys: default" in ran.stdout and ran.stdout.endswith("bye!\n")
        assert "Keys: azerty" in openssh(s.port, "ada@127.0.0.1", "-tt", input="x").stdout
        log = stopped(s)
    (aside,) = folder.glob("key-presets.json.corrupt-*")
    assert aside.read_bytes() == b"\x1b[2J{not json"
    presets = [line for line in log if "key-presets.json" in line]
    where = f"termsnake serve: {folder}/key-presets.json: bad JSON at line 1, column 1: "
    assert presets == [f"{where}Expecting value; read as no key presets stored",
                       f"{where}Expecting value; kept it as {aside.name} and started a new key "
                       "presets file"], log  # fmt: skip
    assert not [line for line in log if "Traceback" in line or "\x1b" in line]


@pytest.mark.slow  # a server waiting out a held lock: CPU-heavy
def test_trouble_keeping_a_score_is_one_line_in_the_log(tmp_path: Path) -> None:
    # The server dropped the scores' warnings: a damaged scores.json was set aside, and a score
    # that could not be saved was lost, without a word to the operator.
    folder = tmp_path / "data" / "termsnake" / "serve"
    folder.mkdir(parents=True)
    (folder / "scores.json").write_bytes(b"\x1b[2J{not json")

    async def go(s: Server) -> None:
        async with await connect(s.port, "ada") as conn:
            p = await player(conn)
            await start_classic(p, "ada")
            for again, then in ((b"r", "a direction key starts"), (b"x", "hello, ada")):
                await p.keys(b"w")  # up, into the wall
                await p.wait_for("DIED: press any key")
                await p.pump(END_DEAF + 0.2)  # keys pressed sooner are taken for the game's
                await p.keys(b" ")
                await p.wait_for("r plays again")
                await p.keys(again)
                await p.wait_for(then)

    with running(tmp_path) as s:
        run(go(s))
        log = stopped(s)
    (aside,) = folder.glob("scores.json.corrupt-*")
    assert aside.read_bytes() == b"\x1b[2J{not json"
    said = [line for line in log if "scores.json" in line]
    where = f"termsnake serve: {folder}/scores.json: bad JSON at line 1, column 1: "
    assert said == [f"{where}Expecting value; kept it as {aside.name} and started a new scores "
                    "file"], log  # fmt: skip
    assert '"player": "ada"' in (folder / "scores.json").read_text(encoding="utf-8")
