"""The ``termsnake check FILE...`` and ``termsnake levels`` commands."""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from termsnake.commands import args as cliargs
from termsnake.commands.args import Subparsers
from termsnake.core.board import Board
from termsnake.core.level import Level
from termsnake.exits import EXIT_USAGE
from termsnake.formats.diagnostics import LevelError
from termsnake.formats.levelfile import MAX_FILE_BYTES, load_level_file
from termsnake.formats.presets import DEFAULT_LEVEL, load_level, load_preset, preset_names
from termsnake.formats.text import clip, columns, encoding_of, pad, printable, shorten, shown
from termsnake.solvers.hampath import DEFAULT_BUDGET, NODES_PER_SECOND, Limit, find_cycle

CYCLE_WORDS: Final = {"found": "yes", "none": "no", "unknown": "unknown"}
# The largest --budget: a day of search a board (a budget of 1 is about a second). The search
# turns the budget into round(budget x NODES_PER_SECOND) positions, which a non-finite or
# huge float cannot be.
MAX_BUDGET: Final = 86_400.0


def describe(level: Level) -> str:
    """A one-line summary of a level: name, size, free cells, snake, wrap."""
    board = level.board
    parts = [
        f"'{printable(level.name)}'",
        f"{board.width}x{board.height}",
        f"{board.free_count} free cells",
        f"snake of {len(level.body)} heading {level.direction.name.lower()}",
    ]
    if board.wrap:
        parts.append("wraps around")
    return ", ".join(parts)


def add_parsers(sub: Subparsers) -> None:
    """``termsnake levels`` and ``termsnake check``."""
    check = sub.add_parser(
        "check",
        help="validate level files",
        description="Check level files; each problem is printed as path:line:col: error: message.",
        epilog=f"Files over {MAX_FILE_BYTES // 1024 // 1024} MiB are refused. "
        "Exit status: 0 when every file is good, 2 otherwise.",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="a level file to check")
    check.set_defaults(run=run_check)
    levels = sub.add_parser(
        "levels",
        help="list the preset levels, or the levels given (your own files too)",
        description="List the preset levels, or the presets and level files given. The cycle "
        "column says "
        "whether the board has a "
        "Hamiltonian cycle (a closed path through every free cell): yes, no, or unknown "
        "when the search gives up within its budget. The answer is the same on every machine, "
        "and the same one --ai hamilton gets.",
    )
    levels.add_argument(
        "files",
        nargs="*",
        metavar="NAME|PATH",
        help="a preset or a level file of your own (as --level takes it), listed instead of "
        "every preset",
    )
    levels.add_argument(
        "--budget",
        type=budget,
        default=DEFAULT_BUDGET,
        metavar="N",
        help=f"effort of the cycle search on each board: N x {NODES_PER_SECOND:,} positions, "
        f"about N seconds on an ordinary machine; more than 0, at most {MAX_BUDGET:g} "
        f"(default: {DEFAULT_BUDGET:g}, as --ai hamilton)",
    )
    levels.set_defaults(run=run_levels)


def budget(text: str) -> float:
    """The --budget type: more than 0 and at most MAX_BUDGET (a day)."""
    value = cliargs.decimal(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a number, not '{shorten(text, 30)}'")
    if not 0 < value <= MAX_BUDGET:  # also false for nan
        raise argparse.ArgumentTypeError(
            f"must be more than 0 and at most {MAX_BUDGET:g}, not {value:g}"
        )
    return value


def run_check(args: argparse.Namespace) -> int:
    """``termsnake check FILE...``: 0 when every file is a good level, else 2 with the errors."""
    status = 0
    for path in args.files:
        try:
            level = load_level_file(path)
        except LevelError as exc:
            status = EXIT_USAGE
            for diagnostic in exc.diagnostics:
                print(diagnostic, file=sys.stderr)
        else:
            print(f"{printable(path)}: ok: {describe(level)}")
    return status


@dataclass(frozen=True, slots=True)
class PresetRow:
    """One line of ``termsnake levels``."""

    name: str
    size: str
    free: int
    wrap: str
    cycle: str
    description: str


def cycle_word(board: Board, budget: float) -> str:
    """``yes``, ``no`` or ``unknown``: whether the cycle search finds a Hamiltonian cycle."""
    return CYCLE_WORDS.get(find_cycle(board, Limit.of_budget(budget)).status, "unknown")


def level_row(name: str, level: Level, budget: float) -> PresetRow:
    """The row of ``level``, listed as ``name``."""
    board = level.board
    return PresetRow(
        name=printable(name),
        size=f"{board.width}x{board.height}",
        free=board.free_count,
        wrap="yes" if board.wrap else "no",
        cycle=cycle_word(board, budget),
        description=printable(dict(level.meta).get("description", "")),
    )


def preset_rows(budget: float) -> tuple[list[PresetRow], list[LevelError]]:
    """A row for each preset that loads, and the errors of those that do not."""
    rows: list[PresetRow] = []
    errors: list[LevelError] = []
    for name in preset_names():
        try:
            rows.append(level_row(name, load_preset(name), budget))
        except LevelError as exc:
            errors.append(exc)
    return rows, errors


def file_rows(levels: Sequence[str], budget: float) -> tuple[list[PresetRow], list[LevelError]]:
    """A row for each level given (a preset's name or a file's path, as --level takes it) that
    loads, named as given, and the errors of the others."""
    rows: list[PresetRow] = []
    errors: list[LevelError] = []
    for level in levels:
        try:
            rows.append(level_row(level, load_level(level), budget))
        except LevelError as exc:
            errors.append(exc)
    return rows, errors


def preset_lines(rows: Sequence[PresetRow], width: int, encoding: str | None = None) -> list[str]:
    """The rows as an aligned table, descriptions cut to fit ``width`` columns, names and
    descriptions as a stream in ``encoding`` (stdout's when None) shows them."""
    encoding = encoding or encoding_of(sys.stdout)
    rows = [
        replace(r, name=shown(r.name, encoding), description=shown(r.description, encoding))
        for r in rows
    ]
    ellipsis = shown("\u2026", encoding)  # "..." where the encoding has no ellipsis
    header = PresetRow("name", "size", 0, "wrap", "cycle", "description")
    # a file's name or description may hold wide characters: counted as the columns they take
    name_w = max(columns(r.name) for r in (header, *rows))
    size_w = max(len(r.size) for r in (header, *rows))
    free_w = max(len("free"), *(len(str(r.free)) for r in rows))
    cycle_w = max(len("unknown"), len("cycle"))
    lines = []
    for r in (header, *rows):
        free = "free" if r is header else str(r.free)
        left = (
            f"{pad(r.name, name_w)}  {r.size:>{size_w}}  {free:>{free_w}}  "
            f"{r.wrap:<4}  {r.cycle:<{cycle_w}}  "
        )
        room = max(width - 1 - columns(left), 12)
        text = r.description
        if columns(text) > room:
            text = clip(text, room - columns(ellipsis)).rstrip() + ellipsis
        lines.append((left + text).rstrip())
    return lines


def run_levels(args: argparse.Namespace) -> int:
    """``termsnake levels [NAME|PATH...]``: each preset's (or each level named's) size, free
    cells, wrap and Hamiltonian cycle."""
    if args.files:
        rows, errors = file_rows(args.files, args.budget)
        trailer = "Play one with `termsnake --level NAME|PATH`."
    else:
        rows, errors = preset_rows(args.budget)
        trailer = (
            f"Play one with `termsnake --level NAME`; plain `termsnake` plays {DEFAULT_LEVEL}."
        )
    for exc in errors:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
    if rows:
        # piped (no terminal, no COLUMNS): no width to fit, so a script reads descriptions whole
        width = shutil.get_terminal_size((sys.maxsize, 24)).columns
        print("\n".join(preset_lines(rows, width)))
        print(f"\n{trailer}")
    elif not args.files:
        print("termsnake levels: no presets found", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_USAGE if errors else 0
