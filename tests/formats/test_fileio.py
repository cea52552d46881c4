"""Files the user names: pipes refused, never overwritten, long names and numbers refused."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from termsnake.formats.diagnostics import LevelError
from termsnake.formats.fileio import check_can_write_new, read_capped, write_atomic, write_new
from termsnake.formats.guarded import describe_os_error
from termsnake.formats.levelfile import parse_level
from termsnake.formats.presets import UnknownLevelError, load_level


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="a pipe, socket or device, not a file"):
        read_capped(fifo, 1000)
    link = tmp_path / "link.txt"
    link.symlink_to(fifo)
    with pytest.raises(LevelError, match="a pipe, socket or device"):
        load_level(str(link))


def test_a_terminal_is_refused_without_waiting_for_a_key(tmp_path: Path) -> None:
    main, other = os.openpty()  # reading the terminal's end would wait for a key for ever
    try:
        link = tmp_path / "level.txt"
        link.symlink_to(os.ttyname(other))
        with pytest.raises(LevelError, match="a pipe, socket or device"):
            load_level(str(link))
    finally:
        os.close(main)
        os.close(other)


def test_a_pipe_where_a_copy_would_go_is_passed_by_unread(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "game.json")
    assert write_new(tmp_path / "game.json", b"one") == tmp_path / "game-2.json"
    assert (tmp_path / "game.json").is_fifo()


def test_write_new_numbers_like_a_second_copy_and_keeps_every_file(tmp_path: Path) -> None:
    first = tmp_path / "game.json"
    assert write_new(first, b"one") == first
    assert write_new(first, b"one") == first  # the same bytes: this data already
    assert write_new(first, b"two") == tmp_path / "game-2.json"
    assert write_new(first, b"three") == tmp_path / "game-3.json"
    assert [first.read_bytes(), (tmp_path / "game-2.json").read_bytes()] == [b"one", b"two"]


def test_write_new_passes_names_taken_and_names_the_file_it_could_not_make(
    tmp_path: Path,
) -> None:
    first = tmp_path / "game.json"
    assert write_new(first, b"one", taken=[str(first)]) == tmp_path / "game-2.json"
    assert not first.exists()
    # The temporary file's name, or none, was the error's: not the file that was not made.
    gone = tmp_path / "gone" / "game.json"
    with pytest.raises(FileNotFoundError) as info:
        write_new(gone, b"two", taken=[gone])
    assert (info.value.filename, info.value.filename2) == (str(gone.with_name("game-2.json")), None)


def test_a_name_near_the_systems_limit_is_written(tmp_path: Path) -> None:
    # The temporary file beside it had the name inside its own, 14 bytes longer: past the
    # limit, so a game's replay was lost at the moment it was saved.
    most = os.pathconf(tmp_path, "PC_NAME_MAX")
    name = "a" * (most - 5) + ".json"
    assert write_new(tmp_path / name, b"one") == tmp_path / name
    assert [p.name for p in tmp_path.iterdir()] == [name]
    # A second game's replay to the same name: NAME-2.json, cut to fit.
    second = write_new(tmp_path / name, b"two")
    assert second.name == "a" * (most - 7) + "-2.json" and second.read_bytes() == b"two"


def test_a_level_name_too_long_for_any_file_is_one_clear_error() -> None:
    with pytest.raises(UnknownLevelError, match="no preset or file named"):
        load_level("a" * 300)


def test_a_length_of_thousands_of_digits_is_a_located_error() -> None:
    with pytest.raises(LevelError, match=r"x\.txt:1:9: error: length must be a whole number"):
        parse_level("length: " + "9" * 5000 + "\n\n..>..\n", "x.txt")


@pytest.mark.parametrize("stop_in", ["close", "link"])
def test_the_write_check_leaves_nothing_behind_when_stopped_half_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop_in: str
) -> None:
    # A Ctrl-C just after the link, or at the close, left a .termsnake-*.tmp file behind.
    real = getattr(os, stop_in)

    def stopped(*args: object) -> None:
        real(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, stop_in, stopped)
    with pytest.raises(KeyboardInterrupt):
        check_can_write_new(tmp_path)
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fails_in", ["open", "fsync", "replace"])
def test_a_failed_write_names_the_file_not_its_temporary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails_in: str
) -> None:
    # A folder that cannot be written named the random temporary file, a new name at each try:
    # the server's log, which says each trouble once, said it again at every game.
    real = getattr(os, fails_in)

    def refused(*args: object, **kwargs: object) -> object:
        if fails_in == "fsync":  # no name: a write that fails
            raise OSError(errno.EPERM, os.strerror(errno.EPERM))
        if str(args[0]).endswith(".tmp"):  # named as the system names them
            names = args[:2] if fails_in == "replace" else args[:1]
            raise OSError(errno.EPERM, os.strerror(errno.EPERM), *names)
        return real(*args, **kwargs)

    target = tmp_path / "scores.json"
    said = set()
    for _ in range(2):
        monkeypatch.setattr(os, fails_in, refused)
        with pytest.raises(OSError) as caught:
            write_atomic(target, b"{}")
        monkeypatch.undo()
        said.add(describe_os_error(caught.value))
    assert said == {f"Operation not permitted: {target}"}
    assert list(tmp_path.iterdir()) == []
