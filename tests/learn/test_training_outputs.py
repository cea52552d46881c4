"""`train --out`: nothing the user made is replaced, --jobs and the sizes are capped, Ctrl-C
names the generation the checkpoint really holds, and paths reach the terminal escaped."""

from __future__ import annotations

import errno
import os
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from termsnake.commands import cli
from termsnake.formats import fileio
from termsnake.learn import training
from termsnake.learn.curve import HEIGHT, chart
from termsnake.learn.evolve import step

TRAIN = ["train", "neuro", "--size", "6x6", "--population", "2", "--games", "1"]


def train(out: Path | str, *more: str) -> int:
    return cli.main([*TRAIN, "--generations", "1", "--out", str(out), *more])


@pytest.mark.parametrize("suffix", ["", ".checkpoint.json", ".curve.csv", ".lock"])
def test_a_users_file_at_any_of_the_four_paths_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    out = tmp_path / "notes.txt"
    mine = tmp_path / f"notes.txt{suffix}"
    mine.write_text("my notes\n")
    assert train(out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another --out" in err and "delete" in err
    assert mine.read_text() == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [mine.name]  # nothing else written


def test_pipes_devices_folders_and_links_to_files_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "null").symlink_to("/dev/null")
    (tmp_path / "folder").mkdir()
    (tmp_path / "target.txt").write_text("kept\n")
    (tmp_path / "link").symlink_to("target.txt")
    for name, kind in [("fifo", "a FIFO"), ("null", "a device"), ("folder", "a folder")]:
        assert train(tmp_path / name) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and kind in err
    assert train(tmp_path / "link") == 2
    assert (tmp_path / "target.txt").read_text() == "kept\n"
    assert (tmp_path / "link").is_symlink() and (tmp_path / "null").is_symlink()
    assert not list(tmp_path.glob("*.json")) and not list(tmp_path.glob("*.csv"))


@pytest.mark.parametrize(
    ("kept", "resume"),
    [
        ((".checkpoint.json", ".curve.csv", ""), True),
        (("",), False),  # a finished run's weights, its checkpoint deleted
        ((".checkpoint.json",), True),
        ((".curve.csv",), False),
    ],
    ids=["a whole run", "finished weights", "a checkpoint", "a curve"],
)
def test_a_new_run_keeps_an_earlier_runs_files(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kept: tuple[str, ...],
    resume: bool,
) -> None:
    # Typing the command again without --resume replaced the earlier run's weights and
    # checkpoint once the new run's first generation was done.
    out = tmp_path / "w.json"
    assert cli.main([*TRAIN, "--generations", "2", "--out", str(out)]) == 0
    for suffix in {"", ".checkpoint.json", ".curve.csv"} - set(kept):
        (tmp_path / f"w.json{suffix}").unlink()
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    played: list[int] = []

    def stepping(*a: Any) -> Any:
        played.append(1)
        return step(*a)

    monkeypatch.setattr(training, "step", stepping)
    assert train(out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and not played
    assert all(f"w.json{suffix}" in err for suffix in kept)
    assert ("--resume" in err) == resume and "another --out" in err and "delete" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_resuming_replaces_a_runs_own_files_and_writes_through_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.json"
    assert train(out) == 0
    assert cli.main([*TRAIN, "--generations", "2", "--out", str(out), "--resume"]) == 0
    assert train(tmp_path / "other.json", "--seed", "5") == 0
    (tmp_path / "kept.json").write_bytes((tmp_path / "other.json").read_bytes())
    (tmp_path / "link.json").symlink_to("kept.json")
    (tmp_path / "link.json.checkpoint.json").write_bytes(
        (tmp_path / "w.json.checkpoint.json").read_bytes()
    )
    link = str(tmp_path / "link.json")
    assert cli.main([*TRAIN, "--generations", "3", "--out", link, "--resume"]) == 0
    assert "generation 2" in capsys.readouterr().out
    assert cli.main([*TRAIN, "--generations", "3", "--out", str(out), "--resume"]) == 0
    assert (tmp_path / "link.json").is_symlink()
    assert (tmp_path / "kept.json").read_bytes() == out.read_bytes()
    assert out.read_bytes() != (tmp_path / "other.json").read_bytes()
    (tmp_path / "new.json").symlink_to("made.json")  # a link to no file yet: a new run's
    assert train(tmp_path / "new.json") == 0
    assert (tmp_path / "new.json").is_symlink() and (tmp_path / "made.json").is_file()


def test_a_run_started_meanwhile_into_the_same_out_is_not_replaced(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.json"

    def other_run_saves(*a: Any) -> Any:
        out.write_text("the other run's weights\n")
        return step(*a)

    monkeypatch.setattr(training, "step", other_run_saves)
    assert train(out) == 2
    assert capsys.readouterr().err == (
        f"termsnake train: error: cannot write {out}: another run has written it since this one "
        "started; nothing was written\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json", "w.json.lock"]
    assert out.read_text() == "the other run's weights\n"


def test_a_path_is_escaped_in_messages(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert train("nodir\x1b[2J/y") == 2
    assert train("x\x1b[2Jy", "--resume") == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and err.count("\\x1b[2J") == 3 and err.count("\n") == 2
    assert train("w\x07.json") == 0
    assert "\x07" not in capsys.readouterr().out


def test_jobs_are_capped_at_the_cpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pools: list[int] = []

    class FakePool:
        def __init__(self, jobs: int, *args: Any, **kwargs: Any) -> None:
            pools.append(jobs)

        def submit(self, f: Any, *args: Any) -> Future[Any]:
            played: Future[Any] = Future()
            played.set_result(f(*args))
            return played

        def shutdown(self, *args: Any, **kwargs: Any) -> None:
            pass

    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    monkeypatch.setattr(training, "ProcessPoolExecutor", FakePool)
    assert cli.main([*TRAIN, "--population", "8", "--jobs", "1000000", "--generations", "1",
                     "--out", str(tmp_path / "w.json")]) == 0  # fmt: skip
    assert pools == [3]


@pytest.mark.parametrize(
    "option", [["--population", "1000000000"], ["--games", "10000000"], ["--generations", "10" * 9]]
)
def test_sizes_that_allocate_have_a_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    # Parsed only: without the bound, running it would fill the memory.
    with pytest.raises(SystemExit) as info:
        cli.build_parser("train").parse_args([*TRAIN, "--out", str(tmp_path / "w.json"), *option])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected a number from" in err


def stop_at(monkeypatch: pytest.MonkeyPatch, calls: int) -> None:
    """Ctrl-C in the middle of the ``calls``-th generation."""
    done: list[int] = []

    def stepping(*a: Any) -> Any:
        done.append(1)
        if len(done) == calls:
            raise KeyboardInterrupt
        return step(*a)

    monkeypatch.setattr(training, "step", stepping)


def test_ctrl_c_names_the_generation_the_checkpoint_holds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.json"
    stop_at(monkeypatch, 3)
    assert cli.main([*TRAIN, "--generations", "5", "--out", str(out)]) == 130
    err = capsys.readouterr().err
    # Two generations were done: the curve numbers them 0 and 1, and so does the message.
    assert "holds generations 0 to 1: --resume" in err and err.count("\n") == 1
    assert '"generation": 2' in (tmp_path / "w.json.checkpoint.json").read_text()


def test_ctrl_c_before_any_checkpoint_does_not_advise_resume(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stop_at(monkeypatch, 1)
    assert cli.main([*TRAIN, "--generations", "5", "--out", str(tmp_path / "w.json")]) == 130
    err = capsys.readouterr().err
    assert "nothing was written" in err and "--resume" not in err
    assert [p.name for p in tmp_path.iterdir()] == ["w.json.lock"]  # the lock stays, empty
    assert not (tmp_path / "w.json.lock").read_bytes()


def test_a_level_that_cannot_be_had_is_one_located_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "w.json")
    assert cli.main(["train", "neuro", "--level", "nosuch", "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nosuch:1:1: error: no preset or file named 'nosuch'")
    assert err.count("error:") == 1 and err.count("\n") == 1


def test_an_empty_out_path_is_refused_as_such(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["train", "neuro", "--out", ""]) == 2
    assert "--out: give the name of the weights file to write" in capsys.readouterr().err


@pytest.mark.parametrize("out", ["models/", "models/.", "models/..", "models//"])
def test_an_out_path_that_names_a_folder_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str
) -> None:
    # `--out models/` wrote a file named models (and models.checkpoint.json) beside it.
    monkeypatch.chdir(tmp_path)
    assert train(out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out: names a folder" in err and "such as" in err
    assert not list(tmp_path.iterdir())


def test_a_name_too_long_for_the_system_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The check for a link to it raised the OSError: a traceback.
    out = tmp_path / ("a" * 300 + ".json")
    assert train(out) == 2
    err = capsys.readouterr().err
    assert err == f"termsnake train: error: cannot write {out}: File name too long\n"
    assert not list(tmp_path.iterdir())


def test_resuming_to_fewer_generations_than_are_held_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It said nothing, and reported the last generation held as if it had trained to it.
    out = tmp_path / "w.json"
    assert cli.main([*TRAIN, "--generations", "2", "--out", str(out)]) == 0
    weights = out.read_bytes()
    capsys.readouterr()
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(out), "--resume"]) == 0
    err = capsys.readouterr().err
    assert "holds generations 0 to 1: --generations 1 asks for no more" in err
    assert out.read_bytes() == weights


def test_the_chart_shows_the_mean_below_the_best() -> None:
    # Bars of `*` up to the best hid every `.` of the mean, which is never above it.
    curve = [
        {"generation": g, "best": 10.0 + g, "mean": 2.0 + g / 2, "elite": 5.0} for g in range(20)
    ]
    rows = chart(curve)
    grid = [r.split("|", 1)[1] for r in rows[:HEIGHT]]
    for column, p in enumerate(curve):
        marks = "".join(line[column] for line in grid)  # from the top
        best_at = marks.index("*")
        assert marks[best_at + 1 :].lstrip(" ").strip(".") == ""  # below: the mean's bar only
        assert marks.count(".") == int(p["mean"] / 29.0 * HEIGHT + 0.5)
    assert "* best   . mean" in rows[-1]


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_folder_that_takes_no_file_is_refused_before_any_game(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # /proc takes no new file, not even from root, as a read-only folder: it was found out only
    # when the first generation, minutes of games, was saved.
    played: list[int] = []

    def stepping(*a: Any) -> Any:
        played.append(1)
        return step(*a)

    monkeypatch.setattr(training, "step", stepping)
    (tmp_path / "link.json").symlink_to("/proc/w.json")
    for out in ("/proc/w.json", tmp_path / "link.json"):
        assert train(out) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"termsnake train: error: cannot write {out}: ")
        assert err.count("\n") == 1
    assert not played


@pytest.mark.parametrize("generation", [1, 2])
def test_a_file_that_cannot_be_saved_is_the_one_named(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    generation: int,
) -> None:
    # A full disk as the checkpoint was saved: the line named the weights, written a moment
    # before, and not the checkpoint --resume goes on from.
    out = tmp_path / "w.json"
    checkpoint = tmp_path / "w.json.checkpoint.json"
    real = fileio.write_atomic
    saves: list[Path] = []

    def full_at_the_checkpoint(path: Any, data: bytes, **kwargs: Any) -> None:
        saves.append(Path(path))
        if saves.count(checkpoint) == generation:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, data, **kwargs)

    monkeypatch.setattr(training, "write_atomic", full_at_the_checkpoint)
    assert cli.main([*TRAIN, "--generations", "3", "--out", str(out)]) == 1
    held = (
        "" if generation == 1 else f"; {checkpoint} holds generation 0: --resume goes on from there"
    )
    assert capsys.readouterr().err == (
        f"termsnake train: error: cannot write {checkpoint}: No space left on device{held}\n"
    )


def test_an_out_in_a_folder_that_cannot_be_looked_in_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A folder of another user's, mode 700: the check for a link was a PermissionError's
    # traceback. Root looks in any folder, so the system's refusal is played here.
    locked = str(tmp_path / "theirs")
    os.mkdir(locked)

    def refusing(call: Any) -> Any:
        def refused(path: Any, *a: Any, **k: Any) -> Any:
            if isinstance(path, str | os.PathLike) and os.fspath(path).startswith(locked + "/"):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
            return call(path, *a, **k)

        return refused

    for name in ("stat", "lstat", "open"):
        monkeypatch.setattr(os, name, refusing(getattr(os, name)))
    assert train(f"{locked}/w.json") == 2
    assert capsys.readouterr().err == (
        f"termsnake train: error: cannot write {locked}/w.json.lock: Permission denied\n"
    )
    assert os.listdir(locked) == []


def test_an_out_through_a_file_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It said "Not a directory" of the lock beside the weights, naming no culprit.
    (tmp_path / "notes.txt").write_text("")
    assert train(tmp_path / "notes.txt" / "w.json") == 2
    assert capsys.readouterr().err == (
        f"termsnake train: error: cannot write {tmp_path}/notes.txt/w.json.lock: "
        f"'{tmp_path}/notes.txt' is a file, not a folder\n"
    )
