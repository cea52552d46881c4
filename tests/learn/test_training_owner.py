"""Two `train` runs into the same --out at once: one owns the files, and the other stops at
once with one line, whether it starts while the first holds the lock or at the same moment."""

from __future__ import annotations

import errno
import fcntl
import subprocess
import sys
from pathlib import Path

import filelock
import pytest

from termsnake.commands import cli
from termsnake.learn.owner import owned

TRAIN = ["train", "neuro", "--size", "6x6", "--population", "2", "--games", "1"]
SUFFIXES = ("", ".checkpoint.json", ".curve.csv")


def command(out: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "termsnake", *TRAIN, "--out", str(out), *more]


def started(argv: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def files(out: Path) -> dict[str, bytes | None]:
    """The run's three files by name, None for one that is not there."""
    paths = [out.with_name(out.name + suffix) for suffix in SUFFIXES]
    return {p.name: p.read_bytes() if p.exists() else None for p in paths}


@pytest.mark.parametrize(
    "resume", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["new", "resumed"]
)
def test_a_run_whose_lock_another_holds_stops_before_any_game(
    resume: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.json"
    more = ["--generations", "2"]
    if resume:
        assert cli.main([*TRAIN, "--generations", "1", "--out", str(out)]) == 0
        capsys.readouterr()
        more.append("--resume")
    before = files(out)
    # Held by this process, as a run started a moment earlier holds it.
    with filelock.FileLock(tmp_path / "w.json.lock", timeout=0):
        refused = subprocess.run(command(out, *more), capture_output=True, text=True, timeout=60)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        f"termsnake train: error: another run is training into {out} (it holds {out}.lock): "
        "wait for it to end, or give another --out\n"
    )
    assert files(out) == before
    # Once it is let go, the same command runs (here in this process).
    assert cli.main([*TRAIN, "--out", str(out), *more]) == 0
    capsys.readouterr()


@pytest.mark.slow  # two trainings at once: CPU-heavy
@pytest.mark.parametrize("other", ["w.json", "b.json"], ids=["into-the-file", "another-link"])
def test_a_run_through_a_link_stops_while_another_writes_the_file_it_leads_to(
    other: str, tmp_path: Path
) -> None:
    # The lock was only beside the link's name: runs through a.json and b.json (or into w.json
    # itself), both leading to w.json, each held a lock of its own and wrote one weights file.
    (tmp_path / "a.json").symlink_to("w.json")
    (tmp_path / "b.json").symlink_to("w.json")
    out, target = tmp_path / "a.json", tmp_path / "w.json"
    assert subprocess.run(command(out), capture_output=True, timeout=60).returncode == 0
    before = files(out) | files(target)
    more = ["--generations", "2", "--resume"]
    # Held by this process as the other run, started a moment earlier, holds its locks.
    with owned(tmp_path / other):
        refused = subprocess.run(command(out, *more), capture_output=True, text=True, timeout=60)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        f"termsnake train: error: another run is training into {target}, which {out} links to "
        f"(it holds {target}.lock): wait for it to end, or give another --out\n"
    )
    assert files(out) | files(target) == before
    assert subprocess.run(command(out, *more), capture_output=True, timeout=60).returncode == 0
    assert out.is_symlink() and files(target) != before


def test_a_link_to_its_own_lock_is_refused_with_nothing_left_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Taking w.json's lock made w.json.lock, the file the link leads to, then its own lock
    # w.json.lock.lock; the run then refused w.json (an empty file) and left both there.
    out = tmp_path / "w.json"
    out.symlink_to("w.json.lock")
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(out)]) == 2
    said = capsys.readouterr()
    assert (said.out, said.err) == (
        "",
        f"termsnake train: error: {out} and {out}.lock, the weights and the lock of a run "
        f"into {out}, are one file (through a link): give another --out\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json"] and out.is_symlink()
    # The other way round: the lock is the link, and says so as well.
    other = tmp_path / "v.json"
    (tmp_path / "v.json.lock").symlink_to("v.json")
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(other)]) == 2
    assert "are one file (through a link)" in capsys.readouterr().err


FILES = {
    "weights": "w.json",
    "checkpoint": "w.json.checkpoint.json",
    "curve": "w.json.curve.csv",
    "lock": "w.json.lock",
}


@pytest.mark.parametrize(
    ("link", "to"),
    [
        ("weights", "checkpoint"),
        ("weights", "curve"),
        ("checkpoint", "weights"),
        ("curve", "weights"),
        ("curve", "checkpoint"),
        ("checkpoint", "lock"),
        ("curve", "lock"),
    ],
)
def test_a_link_from_one_of_the_run_s_files_to_another_is_refused(
    link: str, to: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # helper-137's: the link dangling, the run wrote one file over the other and exited 0,
    # leaving weights that `neuro:` could not read (or a checkpoint --resume could not).
    out = tmp_path / "w.json"
    (tmp_path / FILES[link]).symlink_to(FILES[to])
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(out)]) == 2
    said = capsys.readouterr()
    first, second = sorted((link, to), key=list(FILES).index)
    what = {"weights": "the weights", "checkpoint": "the checkpoint", "lock": "the lock"}
    what["curve"] = "the learning curve"
    assert (said.out, said.err) == (
        "",
        f"termsnake train: error: {tmp_path / FILES[first]} and {tmp_path / FILES[second]}, "
        f"{what[first]} and {what[second]} of a run into {out}, are one file (through a link): "
        "give another --out\n",
    )
    assert [p.name for p in tmp_path.iterdir()] == [FILES[link]]  # nothing written


@pytest.mark.parametrize("files", ["to-a-third", "to-the-target-s-lock"])
def test_two_of_the_run_s_files_linked_to_one_place_are_refused(
    files: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Through a link to a file elsewhere, the run also writes that file, and holds its lock.
    out = tmp_path / "w.json"
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(tmp_path / "x.json")]) == 0
    out.symlink_to("x.json")
    if files == "to-a-third":
        (tmp_path / "w.json.curve.csv").symlink_to("x.json")
    else:
        (tmp_path / "w.json.checkpoint.json").symlink_to("x.json.lock")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    for resume in ([], ["--resume"]):
        assert cli.main([*TRAIN, "--generations", "2", "--out", str(out), *resume]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "are one file (through a link)" in err
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_the_two_locks_of_a_run_through_a_link_are_each_named_by_whose_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Both were "a lock file", which did not say which link to mend.
    out, target = tmp_path / "w.json", tmp_path / "t.json"
    out.symlink_to("t.json")
    (tmp_path / "t.json.lock").symlink_to("w.json.lock")
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(out)]) == 2
    said = capsys.readouterr()
    assert (said.out, said.err) == (
        "",
        f"termsnake train: error: {out}.lock and {target}.lock, the lock and the lock for "
        f"{target} (which {out} links to) of a run into {out}, are one file (through a link): "
        "give another --out\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json.lock", "w.json"]


@pytest.mark.parametrize(
    ("out", "holder", "running"),
    [
        pytest.param("w.json", "w.json", "{out}", id="same-out"),
        pytest.param(
            "a.json",
            "w.json",
            "{target}, which {out} links to",
            id="through-a-link",
            marks=pytest.mark.slow,  # two trainings at once: CPU-heavy
        ),
        pytest.param(
            "a.json",
            "b.json",
            "{target}, which {out} links to",
            id="another-link",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_new_run_into_the_files_of_one_still_going_is_told_it_is_going(
    out: str, holder: str, running: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The files of the run going were found first, and called an earlier run's, to be given
    # --resume; doing so then said another run was training there.
    (tmp_path / "a.json").symlink_to("w.json")
    (tmp_path / "b.json").symlink_to("w.json")
    path, target = tmp_path / out, tmp_path / "w.json"
    assert cli.main([*TRAIN, "--out", str(path)]) == 0  # the run going's files, made here
    capsys.readouterr()
    before = files(path) | files(target)
    with owned(tmp_path / holder):  # as the run going holds its locks
        refused = subprocess.run(command(path), capture_output=True, text=True, timeout=60)
    assert (refused.returncode, refused.stdout) == (2, "")
    into = running.format(target=target, out=path)
    assert refused.stderr == (
        f"termsnake train: error: another run is training into {into} (it holds {target}.lock): "
        "wait for it to end, or give another --out\n"
    )
    assert files(path) | files(target) == before


@pytest.mark.slow  # eight races of two real runs
def test_two_runs_started_together_leave_the_files_of_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Both checked the files were new, and both saved when neither had yet: both ended with
    # exit 0, the files replaced by one then the other, now and then the curve of one beside
    # the weights and checkpoint of the other.
    gens = ["--generations", "3"]
    alone = {}
    for seed in ("1", "2"):
        out = tmp_path / f"alone-{seed}" / "w.json"
        out.parent.mkdir()
        assert cli.main([*TRAIN, *gens, "--seed", seed, "--out", str(out)]) == 0
        alone[seed] = files(out)
    capsys.readouterr()
    for attempt in range(8):
        out = tmp_path / str(attempt) / "w.json"
        out.parent.mkdir()
        runs = {seed: started(command(out, *gens, "--seed", seed)) for seed in ("1", "2")}
        try:
            ended = {seed: (*r.communicate(timeout=60), r.returncode) for seed, r in runs.items()}
        finally:
            for run in runs.values():
                run.kill()
                run.wait()
        owners = [seed for seed, (_, _, code) in ended.items() if code == 0]
        assert len(owners) == 1, ended
        (other,) = set(ended) - set(owners)
        _, err, code = ended[other]
        assert code == 2 and err.count("\n") == 1, err
        assert err.startswith("termsnake train: error: ") and str(out) in err
        assert files(out) == alone[owners[0]]


def _no_flock(fd: int, operation: int) -> None:
    raise OSError(errno.ENOSYS, "Function not implemented")


@pytest.mark.parametrize("resume", [False, True], ids=["new", "resumed"])
def test_a_file_system_without_flock_still_trains(
    resume: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # filelock holds a marker in the lock file there instead, and the check of the files made
    # again under the lock refused the run's own marker; a warning came first.
    monkeypatch.setattr(fcntl, "flock", _no_flock)
    out = tmp_path / "w.json"
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(out)]) == 0
    if resume:
        assert cli.main([*TRAIN, "--generations", "2", "--out", str(out), "--resume"]) == 0
    err = capsys.readouterr().err
    assert "error" not in err and "Warning" not in err
    assert all(content for content in files(out).values())


def test_a_marker_in_the_lock_file_may_be_a_live_run_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Where flock is missing, a run's lock is a marker in the file; the line said it was not
    # termsnake's file and to delete it, which lets two runs write the same files.
    out = tmp_path / "w.json"
    (tmp_path / "w.json.lock").write_text("4242\n")
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a run may be training into" in err
    assert files(out) == dict.fromkeys(files(out))  # nothing written
