"""Engines for the tests: Python one-liners run as real child processes, and how to tell that
a process has gone."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from termsnake.solvers.engine import EngineSolver

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "engines"
PY = shlex.quote(sys.executable)
# Reads the game and answers its name: what a bad engine does before it misbehaves.
HELLO = "import json,sys,time;sys.stdin.readline();print(json.dumps({'name':'bad'}),flush=True);"
# Answers each question as it comes (it watches its stdin grow) but never reads one, so its
# stdin (made small) fills up.
NOT_READING = HELLO + (
    "import array,fcntl,termios\nfcntl.fcntl(0,fcntl.F_SETPIPE_SZ,4096)\nseen=0\n"
    "while True:\n n=array.array('i',[0]);fcntl.ioctl(0,termios.FIONREAD,n)\n"
    " if n[0]>seen:\n  seen=n[0];print(json.dumps({'move':'R'}),flush=True)\n"
    " else:\n  time.sleep(0.001)"
)
# The engine starts a child of its own and names it in a file, then says its name.
SPAWNS = (
    "import subprocess,sys;p=subprocess.Popen(['sleep','30']);"
    "open(sys.argv[1],'w').write(str(p.pid));"
)


def engine(code: str, **kwargs: Any) -> EngineSolver:
    """An engine running the Python ``code``."""
    return EngineSolver(f"{PY} -c {shlex.quote(code)}", **kwargs)


def gone(pid: int) -> bool:
    """Whether the process no longer exists (reaped, not a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def dead(pid: int) -> bool:
    """Whether the process has gone within a second (a zombie, not reaped by init, counts)."""
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return gone(pid)
        if state == "Z":
            return True
        time.sleep(0.01)
    return False
