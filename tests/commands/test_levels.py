"""Tests of ``termsnake check`` and ``termsnake levels``, mostly through the installed command."""

from __future__ import annotations

import os
import subprocess
import unicodedata
from pathlib import Path

import pytest
from pty_harness import termsnake_command

from termsnake.commands import cli
from termsnake.commands import levels as levelcmd
from termsnake.commands.levels import PresetRow, preset_lines
from termsnake.formats.presets import DEFAULT_LEVEL, load_preset, preset_names, preset_path
from termsnake.solvers.hamilton import HamiltonSolver
from termsnake.solvers.hampath import DEFAULT_BUDGET, DEFAULT_LIMIT, Limit, find_cycle

GOOD = "name: Good one\nlength: 2\n\n#####\n#.>.#\n#...#\n#####\n"
BROKEN = "nmae: x\nwrap: maybe\n\n#####\n#.>>#\n#..\t#\n#####\n"
BROKEN_LINES = [
    "1:1: error: unknown header key 'nmae'; did you mean 'name'? "
    "(or start your own keys with 'x-')",
    "2:7: error: wrap must be yes or no, not 'maybe'",
    "5:4: error: a second head; the first is at line 5 col 3, and a level has one snake",
    "6:4: error: unknown map character '\\t' (U+0009, a tab); "
    "the map uses # wall, . floor, > < ^ v head, % food",
]


def run(*args: str, columns: int = 200) -> subprocess.CompletedProcess[str]:
    """Run the installed command; COLUMNS fixes the table width since stdout is a pipe."""
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run(
        [termsnake_command(), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    good, broken = tmp_path / "good.txt", tmp_path / "broken.txt"
    good.write_text(GOOD)
    broken.write_text(BROKEN)
    return good, broken


# -- termsnake check ------------------------------------------------------------------------------


def test_check_good_files_exits_0_with_one_ok_line_each(files: tuple[Path, Path]) -> None:
    good, _ = files
    presets = [preset_path(name) for name in preset_names()]
    result = run("check", str(good), *presets)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + len(presets)
    assert lines[0] == (f"{good}: ok: 'Good one', 5x4, 6 free cells, snake of 2 heading right")
    assert all(
        line.startswith(f"{path}: ok: ") for line, path in zip(lines[1:], presets, strict=True)
    )


def test_check_broken_file_prints_every_error_and_exits_2(files: tuple[Path, Path]) -> None:
    good, broken = files
    result = run("check", str(broken), str(good))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"{broken}:{line}" for line in BROKEN_LINES]
    assert result.stdout.splitlines() == [
        f"{good}: ok: 'Good one', 5x4, 6 free cells, snake of 2 heading right"
    ]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("name", "message"),
    [("missing.txt", "no such file"), ("", "is a directory, not a level file")],
    ids=["missing", "directory"],
)
def test_check_bad_paths(
    tmp_path: Path, name: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name if name else tmp_path
    assert cli.main(["check", str(path)]) == 2
    assert capsys.readouterr() == ("", f"{path}:1:1: error: {message}\n")


def test_check_invalid_utf8_and_empty_files(tmp_path: Path) -> None:
    latin, empty = tmp_path / "latin.txt", tmp_path / "empty.txt"
    latin.write_bytes(b"name: caf\xe9\n#..>.#\n")
    empty.write_bytes(b"")
    result = run("check", str(latin), str(empty))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"{latin}:1:10: error: invalid UTF-8 (bytes 0xe9); save the file as UTF-8",
        f"{empty}:1:1: error: empty file: a level needs a map of # . and a head > < ^ v",
    ]


def test_check_without_files_is_bad_usage() -> None:
    result = run("check")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "termsnake check: error: " in result.stderr
    assert "Traceback" not in result.stderr


def test_check_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", "--help"]) == 0
    assert "path:line:col: error: message" in capsys.readouterr().out


def test_check_in_process(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    good, broken = files
    assert cli.main(["check", str(good)]) == 0
    assert cli.main(["check", str(good), str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"{broken}:{line}" for line in BROKEN_LINES]


def test_check_escapes_control_characters_in_names(tmp_path: Path) -> None:
    path = tmp_path / "evil\x1b[2J.txt"
    path.write_text("#..>.#\n")
    result = run("check", str(path))
    assert result.returncode == 0
    assert "\x1b" not in result.stdout
    assert result.stdout == f"{tmp_path}/evil\\x1b[2J.txt: ok: 'level', 6x1, 4 free cells, " + (
        "snake of 3 heading right\n"
    )


# -- termsnake levels -----------------------------------------------------------------------------


def test_levels_lists_every_preset_with_computed_columns() -> None:
    result = run("levels")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["name", "size", "free", "wrap", "cycle", "description"]
    rows = {line.split()[0]: line.split() for line in lines[1:] if line and line[0] != "P"}
    assert sorted(rows) == sorted(preset_names())
    for name, cells in rows.items():
        level = load_preset(name)
        board = level.board
        expected_cycle = {"found": "yes", "none": "no", "unknown": "unknown"}[
            find_cycle(board).status
        ]
        assert cells[1:5] == [
            f"{board.width}x{board.height}",
            str(board.free_count),
            "yes" if board.wrap else "no",
            expected_cycle,
        ]
        assert " ".join(cells[5:]) == dict(level.meta)["description"]
    assert rows["dead-end"][4] == "no"
    assert rows[DEFAULT_LEVEL][4] == "yes"
    assert f"plain `termsnake` plays {DEFAULT_LEVEL}" in result.stdout


def test_levels_fits_a_narrow_terminal() -> None:
    result = run("levels", columns=60)
    assert result.returncode == 0
    table = result.stdout.splitlines()[: len(preset_names()) + 1]
    assert all(len(line) <= 60 for line in table)
    assert any(line.endswith("…") for line in table)


# In this process: the installed command's one-line usage error is check's, above.
@pytest.mark.parametrize("args", [["--extra"], ["--budget", "0"], ["--budget", "soon"]])
def test_levels_bad_usage_exits_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["levels", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error: " in err
    assert "(see termsnake" in err and "Traceback" not in err


def test_levels_lists_your_own_files_with_their_cycle(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    # A board's author asks whether hamilton can play it without playing it; a bad file is
    # said as check says it, the others listed all the same.
    good, broken = files
    alcove = tmp_path / "alcove.txt"
    alcove.write_text("description: One cell in the wall.\n\n##.##\n#...#\n#..>#\n#####\n")
    result = run("levels", str(good), str(broken), str(alcove), DEFAULT_LEVEL, "nosuch")
    assert result.returncode == 2
    errors = result.stderr.splitlines()
    assert errors[:-1] == [f"{broken}:{line}" for line in BROKEN_LINES]
    assert errors[-1].startswith("nosuch:1:1: error: no preset or file named 'nosuch'")
    table = [line.split() for line in result.stdout.splitlines()[:4]]
    assert table[:3] == [
        ["name", "size", "free", "wrap", "cycle", "description"],
        [str(good), "5x4", "6", "no", "yes"],
        [str(alcove), "5x4", "7", "no", "no", "One", "cell", "in", "the", "wall."],
    ]
    assert table[3][:5] == [DEFAULT_LEVEL, "24x16", "384", "no", "yes"]
    assert "termsnake --level NAME|PATH" in result.stdout
    assert all(name not in result.stdout for name in preset_names() if name != DEFAULT_LEVEL)


def test_levels_of_good_files_only_exits_0(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    good, _ = files
    assert cli.main(["levels", str(good)]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("budget", ["inf", "-inf", "nan", "1e308", "86401"])
def test_levels_refuses_a_budget_the_search_cannot_take(
    budget: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["levels", f"--budget={budget}"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    finite = budget not in ("inf", "-inf", "nan")  # not decimals: refused as words are
    why = f"must be more than 0 and at most 86400, not {float(budget):g}"
    assert err.splitlines() == [
        f"termsnake levels: error: argument --budget: "
        f"{why if finite else f'expected a number, not {budget!r}'} (see termsnake levels --help)",
    ]


@pytest.mark.parametrize("budget", ["\uff12", " 2", "2 ", "1_0", "\u0663"])
def test_a_budget_is_an_ascii_decimal_as_other_numbers_are(
    budget: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["levels", "--budget", budget]) == 2
    assert "argument --budget: expected a number, not " in capsys.readouterr().err


def test_levels_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["levels", "--budget", "2"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in preset_names())


def test_levels_and_hamilton_search_with_the_same_budget(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    budgets: list[float] = []

    def rows(budget: float) -> tuple[list[PresetRow], list[object]]:
        budgets.append(budget)
        return [PresetRow("a", "8x8", 64, "no", "yes", "")], []

    monkeypatch.setattr(levelcmd, "preset_rows", rows)
    assert cli.main(["levels"]) == 0
    assert budgets == [DEFAULT_BUDGET]
    assert Limit.of_budget(budgets[0]) == HamiltonSolver().limit == DEFAULT_LIMIT
    capsys.readouterr()


def shown(text: str) -> int:
    """The columns a terminal gives ``text`` (wide characters two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def test_a_files_wide_description_is_cut_to_the_columns_it_takes() -> None:
    rows = [
        PresetRow("蛇.txt", "8x5", 18, "no", "yes", "日本語の説明" * 10),
        PresetRow("a.txt", "8x5", 18, "no", "yes", "short"),
    ]
    lines = preset_lines(rows, 60)
    assert [shown(line[: line.index("8x5")]) for line in lines[1:]] == [9, 9]
    assert shown(lines[1]) <= 59 and lines[1].endswith("…")


def test_the_presets_table_aligns_columns_and_cuts_descriptions() -> None:
    rows = [
        PresetRow("a", "8x8", 64, "no", "yes", "short"),
        PresetRow("longer-name", "20x20", 400, "yes", "unknown", "x" * 100),
    ]
    lines = preset_lines(rows, 60)
    assert lines[0] == "name          size  free  wrap  cycle    description"
    assert lines[1] == "a              8x8    64  no    yes      short"
    assert lines[2].startswith("longer-name  20x20   400  yes   unknown  xxx")
    assert len(lines[2]) == 59 and lines[2].endswith("x…")


def test_levels_into_a_pipe_without_columns_keeps_descriptions_whole(tmp_path: Path) -> None:
    description = "A board whose description runs on well past eighty columns, " * 3
    level = tmp_path / "long.txt"
    level.write_text(f"description: {description.strip()}\nlength: 1\n\n####\n#>.#\n#..#\n####\n")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    result = subprocess.run(
        [termsnake_command(), "levels", str(level)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert description.strip() in result.stdout
