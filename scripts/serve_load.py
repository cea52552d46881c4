#!/usr/bin/env python3
"""Load on `termsnake serve`: N ssh clients, some running a bot at 8 moves a second, the rest
watching those games live, then
connects and disconnects in a row. Only loopback; bounded in count and time; stops by itself.

Usage: python scripts/serve_load.py [--sessions 64] [--bots 16] [--seconds 20] [--churn 200]
Reports: how late frames arrive against the game's 8 Hz clock (p50/p95/max), the server's CPU
and memory per session, and whether churn leaks memory or file descriptors.
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


def fds(pid: int) -> int:
    """Open file descriptors."""
    return len(os.listdir(f"/proc/{pid}/fd"))


async def connect(port: int, name: str) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect(
        "127.0.0.1", port=port, username=name, known_hosts=None, client_keys=None,
        agent_path=None,
    )  # fmt: skip


async def watcher(
    port: int, name: str, seconds: float, lateness: list[float], live: int | None
) -> None:
    """Start a bot (greedy on open-20x20), or watch game ``live`` of the lobby's list, and
    record when each frame arrives."""
    async with await connect(port, name) as conn:
        proc = await conn.create_process(term_type="xterm", term_size=(100, 30), encoding=None)
        seen = b""
        if live is None:
            steps: tuple[bytes, ...] = (b"s\r", b"sssss\r", b"sssss\r")  # greedy, open-20x20
            ready = b"speed 8/s"
        else:
            steps = (b"ss\r", b"s" * live + b"\r")  # Watch a game in progress; the live-th
            ready = b"watching"
        for keys in steps:
            await asyncio.sleep(0.3)
            proc.stdin.write(keys)
        while ready not in seen:
            seen += await asyncio.wait_for(proc.stdout.read(65536), 10)
        first = None
        frames = 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                await asyncio.wait_for(proc.stdout.read(65536), 1)
            except TimeoutError:
                continue
            now = time.monotonic()
            if first is None:
                first = now
                continue
            frames += 1
            # The game's clock ticks every TICK from the first frame: how far a frame arrives
            # from the nearest tick (a frame split in two packets arrives twice).
            lateness.append(abs((now - first + TICK / 2) % TICK - TICK / 2) * 1000)
        proc.stdin.write(b"q")
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


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "XDG_DATA_HOME": home, "HOME": home}
        server = subprocess.Popen(
            [TERMSNAKE, "serve", "--port", "0", "--max-per-address", str(args.sessions + 10),
             "--max-sessions", str(args.sessions + 10)],
            stdout=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        try:
            assert server.stdout is not None
            port = int(re.search(r":(\d+);", server.stdout.readline()).group(1))  # type: ignore[union-attr]
            await churn(port, 5)  # warm up: first imports, first key
            idle_rss, idle_fds = rss_kib(server.pid), fds(server.pid)
            lateness: list[float] = []
            tasks = [
                asyncio.create_task(watcher(port, f"b{i}", args.seconds + 8, lateness, None))
                for i in range(args.bots)
            ]
            await asyncio.sleep(4)  # the bots play; now their watchers come
            tasks += [
                asyncio.create_task(watcher(port, f"w{i}", args.seconds, lateness, i % args.bots))
                for i in range(args.sessions - args.bots)
            ]
            await asyncio.sleep(4)  # every watcher in
            cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
            loaded_rss = rss_kib(server.pid)
            await asyncio.gather(*tasks)
            cpu = (cpu_seconds(server.pid) - cpu0) / (time.monotonic() - t0)
            lateness.sort()
            p95 = lateness[int(0.95 * (len(lateness) - 1))] if lateness else float("nan")
            within = sum(1 for x in lateness if x <= 20) / max(1, len(lateness))
            watchers = args.sessions - args.bots
            print(f"{args.sessions} sessions for {args.seconds} s: {args.bots} bots (greedy, "
                  f"8 moves/s) and {watchers} players watching them live:")  # fmt: skip
            median = statistics.median(lateness)
            print(f"  frames {len(lateness)}; distance from the 8 Hz clock: median "
                  f"{median:.1f} ms, p95 {p95:.1f} ms, max {lateness[-1]:.1f} ms;"
                  f" within 20 ms: {within:.1%}")  # fmt: skip
            print(f"  server CPU {cpu:.0%} of one core; memory {loaded_rss / 1024:.1f} MiB "
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--bots", type=int, default=16, help="sessions that start a bot")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--churn", type=int, default=200)
    asyncio.run(main(parser.parse_args()))
