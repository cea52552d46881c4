"""What a plugin writes to file descriptors 1 and 2 as it is imported (past sys.stdout and
sys.stderr: os.write, C code, a child) is dropped as its prints are: it reached the terminal
raw, before the server's "listening" line too."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from plugin_folders import plugins_in
from pty_harness import Pty, quiet_env, run_plain, termsnake_command

from termsnake.exits import ctrl_c
from termsnake.solvers import fdaside
from termsnake.solvers.fdaside import descriptors_aside

# Escapes that would clear the screen, colour it red and retitle the window, more than a pipe
# holds on fd 1, and a line of its logging (which in `serve` joins the server's log).
NOISY = (
    "import logging, os\n"
    "logging.getLogger('noisy').warning('logged as it loads')\n"
    "os.write(1, b'\\x1b[2J\\x1b[31mFD1 at import\\r\\n')\n"
    "os.write(2, b'\\x1b]0;title\\x07FD2 at import\\n')\n"
    "os.write(1, b'x' * 200000)\n"
)


def noisy_env(tmp_path: Path) -> dict[str, str]:
    return {**quiet_env(tmp_path), "PYTHONPATH": str(plugins_in(tmp_path, {"noisy": NOISY}))}


def assert_none_of_it(text: str) -> None:
    assert "FD1" not in text and "FD2" not in text and "x" * 100 not in text
    assert "\x1b" not in text and "\x07" not in text


def test_solvers_lists_the_plugin_and_nothing_it_wrote(tmp_path: Path) -> None:
    r = run_plain(tmp_path, "solvers", env=noisy_env(tmp_path))
    assert r.returncode == 0
    assert_none_of_it(r.stdout + r.stderr)
    assert "zznoisy     oddbots 1.0" in r.stdout.splitlines()
    assert r.stderr == ""  # its logging had no handler: Python's last resort is sys.stderr


def test_bench_prints_its_table_and_nothing_the_plugin_wrote(tmp_path: Path) -> None:
    args = ("bench", "--ai", "zznoisy", "--size", "6x6", "--games", "2", "--jobs", "2")
    r = run_plain(tmp_path, *args, env=noisy_env(tmp_path))
    assert r.returncode == 0 and r.stderr == ""
    assert_none_of_it(r.stdout)
    assert [line.split()[0] for line in r.stdout.splitlines()] == ["solver", "zznoisy"]


def test_a_write_more_than_a_pipe_holds_does_not_wait_for_its_reader(tmp_path: Path) -> None:
    # stdout a pipe read only once the command has ended, as `x=$(termsnake solvers)` with a
    # reader that is slow to start: the plugin's write waited for it, for ever.
    proc = subprocess.Popen(
        [termsnake_command(), "solvers"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=noisy_env(tmp_path),
    )
    try:
        code = proc.wait(timeout=30)
    finally:
        proc.kill()
        out = proc.communicate()[0]
    assert code == 0 and b"zznoisy" in out and b"FD1" not in out


def test_serve_says_listening_first_and_keeps_the_plugin_s_log(tmp_path: Path) -> None:
    env = {**noisy_env(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.Popen(
        [termsnake_command(), "serve", "--port", "0"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # waited for, as scripts wait for it
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert first.startswith("termsnake serve: listening on ")
    assert_none_of_it(first + out + err)
    # Its logging is the server's log still: the lines the log's threads wrote while fds 1
    # and 2 were put aside went through their own copies of them.
    assert err.splitlines()[0] == "termsnake serve: logged as it loads"


def test_a_game_with_the_plugin_shows_nothing_it_wrote(tmp_path: Path) -> None:
    t = Pty(["--ai", "zznoisy", "--size", "8x8", "--speed", "40"], tmp_path,
            env={"PYTHONPATH": str(plugins_in(tmp_path, {"noisy": NOISY}))})  # fmt: skip
    try:
        t.wait_for("steps", timeout=30)
        t.send("q")
        assert t.wait_exit(timeout=30) == 0
    finally:
        t.close()
    raw = bytes(t.raw)
    assert b"FD1" not in raw and b"FD2" not in raw and b"\x1b]0;title" not in raw


def test_the_descriptors_are_put_back_however_the_block_ends(
    capfd: pytest.CaptureFixture[str],
) -> None:
    print("before", flush=True)
    with pytest.raises(KeyboardInterrupt), descriptors_aside():
        os.write(1, b"\x1b[2Jaside\n")
        with descriptors_aside():  # within another: put back by the outer one only
            pass
        os.write(2, b"aside\n")
        raise KeyboardInterrupt
    os.write(1, b"after\n")
    os.write(2, b"after\n")
    assert capfd.readouterr() == ("before\nafter\n", "after\n")


def test_a_closed_descriptor_stays_closed() -> None:
    # /dev/null takes the lowest free descriptor: 1, once closed, which is put aside too.
    script = (
        "import os, sys\n"
        "from termsnake.solvers.fdaside import descriptors_aside\n"
        "os.close(1)\n"
        "with descriptors_aside():\n"
        "    os.write(1, b'aside')\n"
        "try:\n"
        "    os.fstat(1)\n"
        "except OSError:\n"
        "    os.write(2, b'closed')\n"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert (r.returncode, r.stderr) == (0, b"closed")


# Closes every descriptor open on the file $OUT_FILE but 1 (aside on /dev/null as it runs): the
# copy fd 1 was kept in, as a library's os.closerange(3, ...) at import would.
CLOSES_OUT = (
    "import os\n"
    "out = os.stat(os.environ['OUT_FILE'])\n"
    "for fd in range(3, 256):\n"
    "    try:\n"
    "        st = os.fstat(fd)\n"
    "    except OSError:\n"
    "        continue\n"
    "    if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):\n"
    "        os.close(fd)\n"
)


def test_a_plugin_that_closed_the_copy_of_stdout_fails_the_listing(tmp_path: Path) -> None:
    # fd 1 was left on /dev/null: `termsnake solvers > file` wrote nothing and exited 0.
    out = tmp_path / "out"
    env = {
        **quiet_env(tmp_path),
        "PYTHONPATH": str(plugins_in(tmp_path, {"closer": CLOSES_OUT})),
        "OUT_FILE": str(out),
    }
    with out.open("w") as stdout:
        r = subprocess.run(
            [termsnake_command(), "solvers"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            timeout=60,
        )
    assert r.returncode == 1 and out.read_text() == ""
    assert r.stderr.splitlines() == [
        "termsnake: warning: plugin 'zzcloser' (closer:Bot, from oddbots 1.0) failed to import:"
        " DescriptorsLost: it closed file descriptors it had not opened: termsnake's standard"
        " output; listed as not loading",
        "termsnake: error: standard output is not open for writing",
    ]


def test_descriptors_closed_in_the_block_are_said_and_refuse_writes(tmp_path: Path) -> None:
    # Refused, not on /dev/null (everything printed would vanish, the exit 0), nor closed (the
    # next file opened would take fd 1, and print() write into it).
    script = (
        "import os, sys\n"
        "from termsnake.solvers.fdaside import DescriptorsLost, descriptors_aside\n"
        "said = []\n"
        "try:\n"
        "    with descriptors_aside():\n"
        "        os.closerange(3, 256)\n"
        "except DescriptorsLost as e:\n"
        "    said.append(str(e))\n"
        "for fd in (1, 2):\n"
        "    try:\n"
        "        os.write(fd, b'shown nowhere')\n"
        "    except OSError as e:\n"
        "        said.append(f'{fd}: {e.errno}')\n"
        "with open(sys.argv[1], 'w') as f:\n"
        "    f.write(repr([f.fileno() > 2, *said]))\n"
    )
    report = tmp_path / "said"
    r = subprocess.run([sys.executable, "-c", script, report], capture_output=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
    assert report.read_text() == repr(
        [
            True,
            "it closed file descriptors it had not opened: termsnake's standard output and "
            "standard error",
            f"1: {errno.EBADF}",
            f"2: {errno.EBADF}",
        ]
    )


def test_a_ctrl_c_as_they_are_put_aside_or_back_leaves_them_where_they_were() -> None:
    # One that came as the signals began to be held (before the putting aside) had them put
    # back all the same: a copy of an earlier block's, closed by then or another file since,
    # went onto fd 1 and 2. One that came so as they were put back left them on /dev/null, and
    # the command's own last line ("interrupted") with them.
    before = [_where(fd) for fd in (1, 2)]
    fds = Path("/proc/self/fd")
    open_fds = len(list(fds.iterdir())) if fds.is_dir() else None
    handler = signal.signal(signal.SIGINT, ctrl_c)
    try:
        moment = 0
        while True:
            moment += 1
            sent = _with_sigint_at(moment)
            assert [_where(fd) for fd in (1, 2)] == before, f"a Ctrl-C at moment {moment}"
            assert fdaside._Aside.depth == 0, f"a Ctrl-C at moment {moment}"
            if open_fds is not None:
                assert len(list(fds.iterdir())) == open_fds, f"a Ctrl-C at moment {moment}"
            if not sent:  # the block ended before that moment
                break
    finally:
        signal.signal(signal.SIGINT, handler)
    assert moment > 10, "no moment was seen"


def _where(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _with_sigint_at(moment: int) -> bool:
    """A ``descriptors_aside`` block, a SIGINT sent at its ``moment``-th moment where Python
    runs a signal's handler (as a function starts, as a call of a built-in returns); whether
    it was sent."""
    seen = 0
    sent = False

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal seen, sent
        if event in ("call", "c_return"):
            seen += 1
            if seen == moment:
                sent = True
                signal.raise_signal(signal.SIGINT)

    sys.setprofile(profile)
    try:
        with descriptors_aside():
            pass
    except KeyboardInterrupt:
        pass
    finally:
        sys.setprofile(None)
    return sent
