"""The command line is parsed with only the module of the command it runs."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from termsnake.commands import args, cli

LINES = [
    ([], ""),
    (["--ai", "best", "--speed", "40"], ""),
    (["--level", "bench"], ""),  # a level that happens to be called like a command
    (["--seed", "3", "bench", "--ai", "bfs", "--games", "2"], "bench"),
    (["bench", "--ai", "greedy", "--size", "6x6"], "bench"),
    (["check", "a.txt"], "check"),
    (["levels"], "levels"),
    (["replay", "r.json", "--speed", "9"], "replay"),
    (["scores", "--level", "maze"], "scores"),
    (["bench", "--help"], "*"),
    (["-h"], "*"),
    (["--speed", "0"], "*"),  # an error: every command, so the message is the one it always was
    (["bnch"], "*"),
]


@pytest.mark.parametrize(("argv", "named"), LINES)
def test_the_command_a_line_names_is_found_by_argparse_s_own_rules(
    argv: list[str], named: str
) -> None:
    assert cli.named_command(argv) == named


@pytest.mark.parametrize(
    "argv", [a for a, named in LINES if named != "*"], ids=lambda a: " ".join(a) or "play"
)
def test_a_line_parses_the_same_with_placeholders_for_the_other_commands(
    argv: list[str],
) -> None:
    whole = cli.build_parser().parse_args(argv)
    lean = cli.build_parser(cli.named_command(argv)).parse_args(argv)
    assert vars(lean) == vars(whole)


def loaded(argv: list[str]) -> list[str]:
    """The termsnake commands' modules that parsing ``argv`` loads, and blessed and
    importlib.metadata if it loads them (a game, or a plugin's name, needs them)."""
    script = (
        "import sys\n"
        "from termsnake.commands import cli\n"
        f"argv = {argv!r}\n"
        "cli.build_parser(cli.named_command(argv)).parse_args(argv)\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith("
        "('termsnake.commands.', 'blessed', 'importlib.metadata')))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return [m.removeprefix("termsnake.commands.") for m in out.split()]


def test_a_line_loads_only_its_command_and_only_a_game_loads_the_terminal_code() -> None:
    assert loaded(["--ai", "best", "--level", "bench"]) == ["args", "cli", "play_options"]
    assert loaded(["levels"]) == ["args", "cli", "levels", "play_options"]
    assert loaded(["bench", "--ai", "bfs", "--size", "4x4"]) == [
        "args",
        "bench",
        "cli",
        "play_options",
    ]


@pytest.mark.parametrize(
    "text", ["+5", "+0", "-0", "-00", " 5", "5 ", "5\n", "1_000", "\u0663", "\uff15", "0x10"]
)
def test_a_whole_number_is_ascii_digits_with_no_sign(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # int() takes every one of these; DESIGN and README say numbers are ASCII digits.
    for kind in (args.seed, args.positive_int, args.int_at_least(0, 10)):
        with pytest.raises(argparse.ArgumentTypeError, match=r"^expected a whole number, not "):
            kind(text)
    assert cli.main(["--seed", text]) == 2
    assert capsys.readouterr().err.startswith("termsnake: error: argument --seed: expected a whole")


def test_a_negative_number_is_named_by_the_range_it_is_out_of() -> None:
    with pytest.raises(
        argparse.ArgumentTypeError, match=r"^expected a number of at least 0, not -1$"
    ):
        args.seed("-1")
    assert args.seed("007") == 7


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--speed", "-1"], "--speed: expected moves per second from 0.1 to 1000, not -1"),
        (["replay", "x.json", "--speed", "-0.5"], "from 0.1 to 1000, not -0.5"),
        (["--speed", "-0"], "from 0.1 to 1000, not -0"),
        (["bench", "--engine-timeout", "-1"], "must be at least 0.001 and at most 3600, not -1"),
        (
            ["serve", "--idle=-2.5e1"],
            "--idle: must be at least 0.001 and at most 3600, not -2.5e1",
        ),
        (["levels", "--budget", "-1"], "must be more than 0 and at most 86400, not -1"),
    ],
)
def test_a_negative_decimal_is_named_by_the_range_it_is_out_of(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # As --games -1 is: the line said "expected a number, not '-1'" of a number.
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "expected a number, not" not in err


@pytest.mark.parametrize("text", ["1_0", "\u0663", "nan", "inf", "0x10", "1.5.2", ""])
def test_a_speed_or_a_time_is_an_ascii_decimal_as_a_whole_number_is(text: str) -> None:
    for kind in (args.speed, args.seconds):
        with pytest.raises(argparse.ArgumentTypeError):
            kind(text)


def test_decimals_in_every_spelling_float_has_for_them_are_read() -> None:
    assert [args.speed(t) for t in ["1.5", ".5", "5.", "1e2", "1e+2"]] == [
        1.5, 0.5, 5.0, 100.0, 100.0,
    ]  # fmt: skip
    # As whole numbers with spaces or a '+' are refused (the README: numbers have no sign); a
    # negative one is out of every range.
    for refused in (" 2", "2 ", " 2 ", "+3", "-0.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            args.speed(refused)
        with pytest.raises(argparse.ArgumentTypeError):
            args.seconds(refused)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["levels", "--extra"], "termsnake levels"),
        (["bench", "--ai", "bfs", "--size", "4x4", "--nope"], "termsnake bench"),
        (["--size", "5x5", "--nope"], "termsnake"),
        (["--nope", "replay", "game.json"], "termsnake"),  # before the subcommand: termsnake's
    ],
)
def test_an_unknown_argument_names_the_help_of_the_command_it_follows(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{named}: error: unrecognized arguments: ") and err.count("\n") == 1
    assert err.endswith(f"(see {named} --help)\n")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--seed", "5", "bench", "--ai", "bfs"], "--seed goes after bench, not before it"),
        (["--record", "x.json", "levels"], "--record is an option of the game, which levels"),
        (["--ai", "bfs", "scores"], "--ai is an option of the game, which scores does not"),
        (["--budget", "2"], "--budget is an option of levels: put it after the subcommand"),
        (["--games", "3", "bench"], "--games is an option of bench and train: put it after"),
        (["--json", "bench", "--ai", "bfs"], "--json is an option of bench: put it after"),
    ],
)
def test_an_option_before_a_subcommand_that_it_would_not_read_is_refused(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before, the subcommand ran without it (bench played seed 1), or the value after an option
    # only a subcommand has was taken for the subcommand ("invalid choice: '2'").
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"termsnake: error: {said}") and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["--version", "bench"],
        ["--version", "--seed", "3", "bench"],
        ["--level", "bench"],
        ["--seed", "3"],
        ["bench", "--help"],
    ],
)
def test_the_game_s_options_and_the_top_ones_are_not_taken_for_misplaced(argv: list[str]) -> None:
    assert cli._misplaced(argv) is None


@pytest.mark.parametrize(
    ("argv", "named", "refused"),
    [
        (["serve", "--log", "x"], "termsnake serve", "--log x"),  # was: not a login-timeout
        (["--lev", "maze"], "termsnake", "--lev"),
        (["--spe", "x"], "termsnake", "--spe"),
        (["--he"], "termsnake", "--he"),  # was the help, exit 0
        (["--seed", "5", "--he", "check", "x"], "termsnake", "--he"),
        (["bench", "--ai", "bfs", "--gam", "x"], "termsnake bench", "--gam x"),
        (["levels", "--bud", "x"], "termsnake levels", "--bud ("),  # x is a level to list
        (["train", "neuro", "--gen", "x", "--out", "w"], "termsnake train", "--gen x"),
        (["scores", "--pl", "x"], "termsnake scores", "--pl x"),
    ],
)
def test_an_option_is_not_taken_by_the_start_of_its_name(
    argv: list[str], named: str, refused: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse took the start of a long option for the option: an option added later would
    # change what an old command line means, and `--log x` was said to be a bad login-timeout.
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"{named}: error: unrecognized arguments: {refused}")
    assert err.count("\n") == 1


def test_no_parser_of_the_command_line_takes_the_start_of_an_option() -> None:
    top = cli.build_parser()
    subcommands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    parsers = [top, *subcommands.choices.values()]
    assert len(parsers) == 1 + len(cli._COMMANDS)
    assert all(not p.allow_abbrev for p in parsers)


@pytest.mark.parametrize(
    "argv",
    [
        ["--level", ""],
        ["bench", "--ai", "bfs", "--level", ""],
        ["train", "--level", "", "--out", "w"],
    ],
)
def test_an_empty_level_name_is_refused_as_an_argument(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # It was looked for as a file: ":1:1: error: no such file".
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "argument --level: give a preset name or a level file, not an empty string" in err


def test_the_usage_line_shows_the_subcommand_as_optional(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Plain `termsnake` plays; argparse wrote `SUBCOMMAND ...` as if one were required.
    assert cli.main(["--help"]) == 0
    usage, _, rest = capsys.readouterr().out.partition("\n\n")
    assert usage.startswith("usage: termsnake [-h] [--version] ")
    assert usage.endswith(" [SUBCOMMAND ...]") and usage.count("SUBCOMMAND") == 1
    assert "\nsubcommands:\n  SUBCOMMAND\n" in rest  # the listing below is as it was


def test_a_speed_too_slow_to_see_a_move_is_refused_by_its_range() -> None:
    # 1e-320 passed "above 0": the status line said 9.99989e-321/s and the snake never moved.
    assert args.speed("0.1") == 0.1
    for slow in ("1e-320", "0.05", "0"):
        with pytest.raises(argparse.ArgumentTypeError, match=r"^expected moves per second from"):
            args.speed(slow)


def test_serve_help_names_its_numbers_as_the_readme_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The usage said [--max-sessions MAX_SESSIONS] where DESIGN and the README say N, and the
    # time limits' defaults read 600.0 and 10800.0 seconds.
    assert cli.main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert "[--max-sessions N]" in out and "[--max-per-address N]" in out
    assert "MAX_SESSIONS" not in out and "MAX_PER_ADDRESS" not in out
    for default in ("600", "10800", "30"):
        assert f"(default {default})" in " ".join(out.split())
    assert ".0)" not in out


def test_replay_help_names_its_default_speed_as_the_game_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # It said "the usual watching speed, about 8", where the replay plays at config.toml's
    # speed when the file sets one, as a game does.
    assert cli.main(["replay", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(default 8, or config.toml's speed)" in out
    assert "about 8" not in out
