#!/usr/bin/env python3
"""Load on `termsnake serve`: N ssh clients, some running a bot at 8 moves a second, the rest
watching those games live, then connects and disconnects in a row. Only loopback; bounded in
count and time; stops by itself.

Usage: python scripts/serve_load.py [--sessions 64] [--bots 16] [--seconds 20] [--churn 200]
Reports: frames a session a second and how late they arrive after their tick of the game's 8 Hz
clock (p50/p95/max), the CPU of the server and of these clients (they share the machine), the
server's memory per session, and whether churn leaks memory or file descriptors.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import cast

import asyncssh

TERMSNAKE = str(Path(sys.executable).parent / "termsnake")
TICK = 1 / 8


def rss_kib(pid: int) -> int:
    """The process's resident memory, KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+)", status)
    return int(match.group(1)) if match else 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy() -> float:
    """CPU seconds every core of the machine has spent busy (not idle or waiting on disk)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def fds(pid: int) -> int:
    """Open file descriptors."""
    return len(os.listdir(f"/proc/{pid}/fd"))


async def connect(port: int, name: str) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect(
        "127.0.0.1", port=port, username=name, known_hosts=None, client_keys=None,
        agent_path=None,
    )  # fmt: skip


class Recorder(asyncssh.SSHClientSession[bytes]):
    """An ssh session that keeps the screen's bytes until ``measuring``, then only the time
    each packet arrives (taken as it arrives: no stream or task in between)."""

    def __init__(self) -> None:
        self.received = b""
        self.arrived = asyncio.Event()
        self.measuring = False
        self.times: list[float] = []

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if self.measuring:
            self.times.append(time.monotonic())
        else:
            self.received += data
            self.arrived.set()

    async def wait_for(self, needle: bytes) -> None:
        while needle not in self.received:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), 10)


def lateness(times: list[float]) -> list[float]:
    """How late each arrival is after its tick, in ms. The ticks are TICK apart, at the phase
    of the arrival from which the others are least late in all: the earliest of the bulk, so
    one frame late by most of a tick is counted late, not taken for the tick."""
    phases = [t % TICK for t in times]
    if not phases:
        return []
    start = min(phases, key=lambda a: sum((p - a) % TICK for p in phases))
    return [(p - start) % TICK * 1000 for p in phases]


async def watcher(
    port: int, name: str, window: tuple[float, float], late: list[float], live: int | None
) -> None:
    """Start a bot (greedy on open-20x20), or watch game ``live`` of the lobby's list, and
    record how late each frame arrives within ``window`` (monotonic start and end)."""
    async with await connect(port, name) as conn:
        chan, opened = await conn.create_session(
            Recorder, term_type="xterm", term_size=(100, 30), encoding=None
        )
        session = cast(Recorder, opened)
        if live is None:
            steps: tuple[bytes, ...] = (b"s\r", b"sssss\r", b"sssss\r")  # greedy, open-20x20
            ready = b"speed 8/s"
        else:
            steps = (b"ss\r", b"s" * live + b"\r")  # Watch a game in progress; the live-th
            ready = b"watching"
        for keys in steps:
            await asyncio.sleep(0.3)
            chan.write(keys)
        await session.wait_for(ready)
        await asyncio.sleep(max(0.5, window[0] - time.monotonic()))  # the whole screen has come
        session.measuring = True
        await asyncio.sleep(window[1] - time.monotonic())
        session.measuring = False
        late.extend(lateness(session.times))
        chan.write(b"q")
        conn.close()


async def churn(port: int, count: int) -> None:
    """Connect, see the lobby, quit: ``count`` times in a row."""
    for i in range(count):
        async with await connect(port, f"c{i}") as conn:
            proc = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            seen = b""
            while b"hello" not in seen:
                seen += await asyncio.wait_for(proc.stdout.read(65536), 10)
            proc.stdin.write(b"q")
            await asyncio.wait_for(proc.wait_closed(), 10)


def report(args: argparse.Namespace, late: list[float], cpu: tuple[float, float, float]) -> None:
    """Print how late the frames came, how many, and the CPU used."""
    late.sort()
    p95 = late[int(0.95 * (len(late) - 1))] if late else float("nan")
    within = sum(1 for x in late if x <= 20) / max(1, len(late))
    watchers = args.sessions - args.bots
    print(f"{args.sessions} sessions for {args.seconds:g} s: {args.bots} bots (greedy, 8 moves/s) "
          f"and {watchers} players watching them live:")  # fmt: skip
    print(f"  frames {len(late)} ({len(late) / args.sessions / args.seconds:.1f} a session a "
          f"second); late after their tick: median {statistics.median(late):.1f} ms, p95 "
          f"{p95:.1f} ms, max {late[-1]:.1f} ms; within 20 ms: {within:.1%}")  # fmt: skip
    server, own, machine = cpu
    print(f"  CPU: server {server:.0%} of one core, these clients {own:.0%}; the machine's "
          f"{os.cpu_count()} cores {machine:.0%} of one busy, so others "
          f"{max(0.0, machine - server - own):.0%}")  # fmt: skip


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "XDG_DATA_HOME": home, "HOME": home}
        server = subprocess.Popen(
            [TERMSNAKE, "serve", "--port", "0", "--max-per-address", str(args.sessions + 10),
             "--max-sessions", str(args.sessions + 10),
             "--max-connect-rate", str(args.sessions + args.churn + 10)],
            stdout=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        try:
            assert server.stdout is not None
            port = int(re.search(r":(\d+);", server.stdout.readline()).group(1))  # type: ignore[union-attr]
            await churn(port, 5)  # warm up: first imports, first key
            idle_rss, idle_fds = rss_kib(server.pid), fds(server.pid)
            late: list[float] = []
            # Bots first, watchers 4 s later; all measure the same window once every one is in.
            start = time.monotonic() + 8
            window = (start, start + args.seconds)
            tasks = [
                asyncio.create_task(watcher(port, f"b{i}", window, late, None))
                for i in range(args.bots)
            ]
            await asyncio.sleep(4)
            tasks += [
                asyncio.create_task(watcher(port, f"w{i}", window, late, i % args.bots))
                for i in range(args.sessions - args.bots)
            ]
            await asyncio.sleep(start - time.monotonic())
            cpu0, own0, all0 = cpu_seconds(server.pid), cpu_seconds(os.getpid()), machine_busy()
            loaded_rss = rss_kib(server.pid)
            await asyncio.sleep(window[1] - time.monotonic())
            cpu = (cpu_seconds(server.pid) - cpu0) / args.seconds
            own = (cpu_seconds(os.getpid()) - own0) / args.seconds
            machine = (machine_busy() - all0) / args.seconds
            await asyncio.gather(*tasks)
            report(args, late, (cpu, own, machine))
            print(f"  server memory {loaded_rss / 1024:.1f} MiB "
                  f"({(loaded_rss - idle_rss) / args.sessions:.0f} KiB a session over "
                  f"{idle_rss / 1024:.1f} MiB idle)")  # fmt: skip
            await asyncio.sleep(2)
            before_rss, before_fds = rss_kib(server.pid), fds(server.pid)
            await churn(port, args.churn)
            await asyncio.sleep(2)
            print(f"{args.churn} connects and disconnects: file descriptors {before_fds} -> "
                  f"{fds(server.pid)} (idle {idle_fds}); memory {before_rss / 1024:.1f} -> "
                  f"{rss_kib(server.pid) / 1024:.1f} MiB")  # fmt: skip
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(15)
            if server.stdout is not None:
                server.stdout.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--bots", type=int, default=16, help="sessions that start a bot")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--churn", type=int, default=200)
    asyncio.run(main(parser.parse_args()))
