"""bench --record-dir on a full disk: the rows measured are printed all the same, the replays
stop at the first that cannot be written, one line says which and why, exit 1."""

from __future__ import annotations

import errno
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from engine_doubles import EXAMPLES, PY

from termsnake.bench import pool
from termsnake.commands import cli
from termsnake.commands.bench import LOG_LOST
from termsnake.formats import fileio
from termsnake.formats.replay import load_replay
from termsnake.formats.verify import verify

NO_SPACE = os.strerror(errno.ENOSPC)
STOPPED = "no more replays are written; the games go on being measured"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_replay_that_cannot_be_written_stops_the_recording_not_the_run(
    jobs: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(pool, "START_METHOD", "fork")  # quicker workers; the writes are ours
    written = 3
    calls = []
    real_write = fileio.write_atomic

    def fills_up(path: str | os.PathLike[str], data: bytes, **kwargs: object) -> None:
        calls.append(Path(path).name)
        if len(calls) > written:
            raise OSError(errno.ENOSPC, NO_SPACE)
        real_write(path, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fileio, "write_atomic", fills_up)
    record = tmp_path / "rec"
    args = ["bench", "--ai", "hamilton,greedy", "--size", "4x4", "--games", "6", "--json"]
    code = cli.main([*args, "--jobs", jobs, "--record-dir", str(record)])
    out, err = capsys.readouterr()
    assert code == 1  # the output's failure (README, Exit codes), not bad usage
    rows = json.loads(out)
    assert [(row["solver"], row["games"]) for row in rows] == [("hamilton", 6), ("greedy", 6)]
    assert rows[0]["wins"] == 6  # measured as ever: hamilton wins every 4x4 game
    failed = record / "hamilton-open-4x4-len1-seed4.json"
    assert err == f"termsnake bench: error: cannot write {failed}: {NO_SPACE}; {STOPPED}\n"
    # No write tried after the first that failed: the replays are the run's first games.
    assert calls[written:] == [failed.name]
    kept = sorted(p.name for p in record.iterdir())
    assert kept == [f"hamilton-open-4x4-len1-seed{s}.json" for s in (1, 2, 3)]


def test_the_table_is_printed_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(path: str | os.PathLike[str], data: bytes, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, NO_SPACE)

    monkeypatch.setattr(fileio, "write_atomic", full)
    args = ["bench", "--ai", "hamilton", "--size", "4x4", "--games", "2"]
    assert cli.main([*args, "--record-dir", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    header, row = out.splitlines()
    assert header.split()[:2] == ["solver", "level"]
    assert row.split()[:4] == ["hamilton", "open-4x4", "16", "2"]
    assert err.count("\n") == 1 and f": {NO_SPACE}; {STOPPED}" in err
    assert list(tmp_path.iterdir()) == []


def noisy_engine(folder: Path, lines: int = 50) -> str:
    """An engine (the example's greedy one) that writes ``lines`` on stderr before each game:
    its log."""
    script = folder / "noisy.py"
    script.write_text(
        "import runpy,sys\n"
        f"sys.stderr.write('thinking\\n'*{lines});sys.stderr.flush()\n"
        f"runpy.run_path({str(EXAMPLES / 'greedy_engine.py')!r},run_name='__main__')\n"
    )
    return f"exec:{PY} {shlex.quote(str(script))}"


def test_an_engine_s_log_that_cannot_be_made_on_a_full_disk_loses_no_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The logs go to --record-dir: a disk full there made each later game "unavailable", and
    # the row of the games played before was dropped with them (exit 2, nothing measured).
    real_mkstemp = tempfile.mkstemp
    logs = []

    def full_after_two_logs(*args: object, **kwargs: object) -> tuple[int, str]:
        if str(kwargs.get("prefix", "")).startswith("engine-"):
            logs.append(kwargs)
            if len(logs) > 2:
                raise OSError(errno.ENOSPC, NO_SPACE)
        return real_mkstemp(*args, **kwargs)  # type: ignore[call-overload,no-any-return]

    monkeypatch.setattr(tempfile, "mkstemp", full_after_two_logs)
    ai = noisy_engine(tmp_path)
    record = tmp_path / "rec"
    args = ["bench", "--ai", ai, "--size", "5x5", "--games", "4", "--json"]
    assert cli.main([*args, "--record-dir", str(record)]) == 0
    out, err = capsys.readouterr()
    (row,) = json.loads(out)
    assert row["games"] == 4 and row["deaths"] + row["wins"] + row["stalls"] == 4
    # Said once, of the first game without a log; the games went on (exit 0, as before).
    where = repr(str(record))
    assert err == (
        f"termsnake bench: warning: cannot make the engine's log in {where}: {NO_SPACE}; "
        f"its stderr was dropped ({LOG_LOST})\n"
    )
    assert len(logs) == 4  # one engine a game: two logs kept, two games without one
    assert sorted(p.name.partition("-")[0] for p in record.iterdir()).count("engine") == 2


# -- a real full file system ----------------------------------------------------------------------


def bench_into(record: Path, ai: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``termsnake bench --json`` of ``ai``, its replays into ``record``."""
    termsnake = shutil.which("termsnake") or str(Path(sys.executable).parent / "termsnake")
    return subprocess.run(
        [termsnake, "bench", "--ai", ai, *args, "--json", "--record-dir", str(record)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow  # a bench writing until a tmpfs fills: CPU-heavy
def test_a_real_full_disk(small_tmpfs: Path) -> None:
    record = small_tmpfs / "D"
    done = bench_into(record, "greedy", "--games", "20", "--size", "8x8")
    assert done.returncode == 1, done.stderr
    (row,) = json.loads(done.stdout)
    assert row["games"] == 20
    kept = sorted(record.iterdir(), key=lambda p: int(p.stem.rpartition("seed")[2]))
    assert 0 < len(kept) < 20  # the disk filled during the run
    # The replays kept are the first games', whole (no temporary file left behind).
    assert [p.name for p in kept] == [
        f"greedy-open-8x8-len1-seed{s}.json" for s in range(1, len(kept) + 1)
    ]
    for path in kept:
        assert verify(load_replay(path)).steps > 0
    failed = record / f"greedy-open-8x8-len1-seed{len(kept) + 1}.json"
    assert done.stderr == f"termsnake bench: error: cannot write {failed}: {NO_SPACE}; {STOPPED}\n"


@pytest.mark.parametrize("small_tmpfs", ["size=1m,nr_inodes=5"], indirect=True)
def test_a_real_full_disk_with_an_engine(small_tmpfs: Path, tmp_path: Path) -> None:
    # Room for three new files (the folder is one inode): two replays and a log, then none.
    done = bench_into(small_tmpfs, noisy_engine(tmp_path), "--games", "6", "--size", "5x5")
    assert done.returncode == 1, done.stderr
    (row,) = json.loads(done.stdout)
    assert row["games"] == 6
    # Each said once, in the order of the games they came with (which, --jobs may decide).
    logs, replays = sorted(done.stderr.splitlines(), key=lambda line: "error:" in line)
    assert replays.startswith("termsnake bench: error: cannot write "), done.stderr
    assert replays.endswith(f": {NO_SPACE}; {STOPPED}"), done.stderr
    where = repr(str(small_tmpfs))
    assert logs == (
        f"termsnake bench: warning: cannot make the engine's log in {where}: {NO_SPACE}; "
        f"its stderr was dropped ({LOG_LOST})"
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_real_full_disk_cuts_an_engine_s_log_and_says_so_once(
    small_tmpfs: Path, tmp_path: Path, jobs: str
) -> None:
    # The logs' folder (made in TMPDIR) filled up with the first game's log: the logs were cut,
    # and not a word said. Each game's engine writes more than the disk holds.
    termsnake = shutil.which("termsnake") or str(Path(sys.executable).parent / "termsnake")
    ai = noisy_engine(tmp_path, lines=10_000)
    args = ["bench", "--ai", ai, "--size", "5x5", "--games", "4", "--jobs", jobs, "--json"]
    done = subprocess.run(
        [termsnake, *args],
        env={**os.environ, "TMPDIR": str(small_tmpfs)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr  # as before: the log is no output asked for
    (row,) = json.loads(done.stdout)
    assert row["games"] == 4 and row["wins"] + row["deaths"] + row["stalls"] == 4
    (folder,) = small_tmpfs.glob("termsnake-engines-*")
    warning, where = done.stderr.splitlines()
    said = warning.removeprefix("termsnake bench: warning: cannot write the engine's log '")
    assert said.startswith(f"{folder}/engine-"), warning
    assert said.endswith(f".log': {NO_SPACE}; the rest of its stderr was dropped ({LOG_LOST})")
    assert where == f"termsnake bench: engine logs are in {folder}"
