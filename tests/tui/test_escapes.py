"""Escape sequences blessed does not know are read whole, as one key that means nothing: their
letters steered (rxvt's Ctrl+Left, ``ESC O d``, turned the snake right)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from functools import partial

import pytest
from pty_harness import Pty, on_a_pty

from termsnake.serve.terminal import ChannelOutput, ChannelTerminal
from termsnake.tui.controllers import KEY_PRESETS, key_name
from termsnake.tui.escapes import sequence_end
from termsnake.tui.terminal import UNKNOWN_KEY, make_terminal

QUICK = 0.05  # esc_delay in the reads below: the same path as the default's, sooner
# esc_delay where the rest of a known key is fed from another thread, which a busy machine may
# start late, past QUICK: the read ends as the key does, not after waiting it out.
PATIENT = 2.0


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("\x1b[A", 3),
        ("\x1b[1;5X", 6),
        ("\x1b[99Aw", 5),
        ("\x1b[ q", 4),  # an intermediate byte before the final
        ("\x1b[[D", 4),  # the Linux console's F4
        ("\x1bOd", 3),
        ("\x1bO5A", 4),
        ("\x1ba", 2),
        ("\x1b\x1b[A", 4),  # Alt+Up on rxvt
        ("\x1b\x1b\x1b[A", 2),  # the third ESC begins the next sequence
        ("\x1b\x1bx", 2),  # Alt+Escape, then x
        ("\x1b\x1b\r", 2),
        ("\x1b[\x1b[A", 2),  # a byte the grammar does not allow there ends it, unread
        ("\x1b[1;\r", 4),
        ("\x1b", None),
        ("\x1b[", None),
        ("\x1b[1;5", None),
        ("\x1b[[", None),
        ("\x1bO", None),
        ("\x1b\x1b", None),
        ("\x9bA", 2),  # an 8-bit CSI
        ("\x9b1;3Dw", 5),
        ("\x9b1;", None),
    ],
)
def test_a_sequence_ends_where_ecma_48s_grammar_says(text: str, end: int | None) -> None:
    assert sequence_end(text) == end


def terminal() -> ChannelTerminal:
    return ChannelTerminal(ChannelOutput(lambda text: None, lambda: 0, 1 << 20), (80, 24))


def in_turn(pause: float, *steps: Callable[[], object]) -> threading.Thread:
    """A started thread that runs ``steps`` in their order, ``pause`` before each: what a
    terminal sends while a read waits for it. A timer for each could run them out of order
    on a busy machine."""

    def run() -> None:
        for step in steps:
            time.sleep(pause)
            step()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def read_all(term: ChannelTerminal, esc_delay: float = QUICK) -> list[str]:
    """The names of the keys read until none comes within a moment."""
    names = []
    while key := term.inkey(timeout=0.2, esc_delay=esc_delay):
        names.append(key_name(key))
    return names


UNKNOWN = [
    b"\x1b[d",  # rxvt's Shift+Left
    b"\x1b[a",  # rxvt's Shift+Up
    b"\x1bOd",  # rxvt's Ctrl+Left
    b"\x1bOa",  # rxvt's Ctrl+Up
    b"\x1b[[A",  # the Linux console's F1
    b"\x1b[[D",  # and F4
    b"\x1b[99A",
    b"\x1bO5A",
    b"\x1b[1;5X",
    b"\x1b\x1b[d",
]


@pytest.mark.parametrize("seq", UNKNOWN)
def test_a_sequence_blessed_does_not_know_is_one_key_that_means_nothing(seq: bytes) -> None:
    term = terminal()
    term.feed(seq + b"w")
    assert read_all(term) == [UNKNOWN_KEY, "w"]  # were KEY_ESCAPE or CSI and loose letters
    for preset in KEY_PRESETS.values():
        assert UNKNOWN_KEY not in preset.directions and UNKNOWN_KEY not in preset.commands


@pytest.mark.parametrize(
    ("typed", "names"),
    [
        (b"\x1b[A", ["KEY_UP"]),
        (b"\x1bOA", ["KEY_UP"]),  # in the application cursor mode
        (b"\x1b[D\x1bOD", ["KEY_LEFT", "KEY_LEFT"]),
        (b"\x1b[1;5A", ["KEY_CTRL_UP"]),
        (b"\x1b", ["KEY_ESCAPE"]),
        (b"\x1b[27u", ["KEY_ESCAPE"]),  # kitty's Escape
        (b"\x1ba", ["KEY_ALT_A"]),
        (b"\x1b\x1b", ["KEY_ALT_ESCAPE"]),
        (b"\x1b\x1bd", ["KEY_ALT_ESCAPE", "d"]),  # was one unknown key, the d swallowed
        (b"\x1bO", ["KEY_ALT_SHIFT_O"]),  # nothing more came: not a sequence cut short
        (b"wasdWASD q", list("wasdWASD q")),  # pasted, and with caps lock on
        (b"\x1b[\x1b[B", ["CSI", "KEY_DOWN"]),  # a sequence cut off by the next one
        (b"\x1b[1;3A", ["KEY_ALT_UP"]),  # xterm's Alt+Up, which steers as Up
    ],
)
def test_the_keys_blessed_knows_are_read_as_before(typed: bytes, names: list[str]) -> None:
    term = terminal()
    term.feed(typed)
    assert read_all(term) == names


STAND_FOR = [
    (b"\x1b\x1b[A", "KEY_ALT_UP"),  # rxvt's Alt+Up: it was one key that means nothing
    (b"\x1b\x1bOD", "KEY_ALT_LEFT"),  # the same in the application cursor mode
    (b"\x1b\x1bOP", "KEY_ALT_F1"),
    (b"\xc2\x9bA", "KEY_UP"),  # an 8-bit CSI (U+009B): it was C1, then A (left, as a)
    (b"\xc2\x9b1;3D", "KEY_ALT_LEFT"),
    (b"\xc2\x9b99A", UNKNOWN_KEY),
]


def test_rxvts_alt_and_an_8_bit_csi_are_read_as_the_keys_they_stand_for() -> None:
    term = terminal()  # all in one read: each waits for a key that does not come
    term.feed(b"".join(typed for typed, _ in STAND_FOR) + b"w")
    assert read_all(term) == [*(name for _, name in STAND_FOR), "w"]


@pytest.mark.parametrize(
    ("first", "rest"),
    [(b"\x1b[", b"d"), (b"\x1bO", b"a"), (b"\x1b[1;", b"5X"), (b"\x1b\x1b[", b"d")],
)
def test_a_sequence_split_across_reads_is_still_one_key(first: bytes, rest: bytes) -> None:
    # An SSH packet or a slow pty: the rest comes within esc_delay, while blessed waits for it
    # after an ESC, or (ESC ESC: Alt+Escape to blessed, which then waits no more) the terminal.
    delay = 0.2  # waited out whole after a key that means nothing: PATIENT would cost time
    term = terminal()
    term.feed(first)
    later = threading.Timer(QUICK, term.feed, (rest + b"w",))
    later.start()
    try:
        assert read_all(term, delay) == [UNKNOWN_KEY, "w"]
    finally:
        later.join()


@pytest.mark.parametrize(
    ("first", "name"),
    [(b"\x1b[", "KEY_UP"), (b"\x1bO", "KEY_UP"), (b"\x1b[1;5", "KEY_CTRL_UP")],
)
def test_a_known_key_split_across_reads_keeps_its_name(first: bytes, name: str) -> None:
    # A window change cuts blessed's wait after the ESC short, and it hands back what it has;
    # the rest, coming within esc_delay, completes a key blessed knows. It was one unknown key.
    term = terminal()
    term.feed(first)
    typed = in_turn(2 * QUICK, partial(term.resize, 80, 24), partial(term.feed, b"Aw"))
    try:
        assert read_all(term, PATIENT) == [name, "w"]
    finally:
        typed.join()


@pytest.mark.parametrize(
    ("typed", "name"),
    [(b"\x1b[", "CSI"), (b"\x1bO", "KEY_ALT_SHIFT_O"), (b"\x1b[1;5", UNKNOWN_KEY)],
)
def test_what_comes_alone_is_read_once_blessed_has_waited_for_more(typed: bytes, name: str) -> None:
    # Alt+[ and Alt+Shift+O are ESC [ and ESC O: they were waited for twice, blessed's esc_delay
    # then as long again.
    delay = 1.0  # long beside how late a busy machine ends a wait: twice it is the fault's
    term = terminal()
    term.feed(typed)
    start = time.monotonic()
    key = term.inkey(timeout=5, esc_delay=delay)
    took = time.monotonic() - start
    assert (key_name(key), str(key)) == (name, typed.decode())
    assert delay <= took < 2 * delay  # waited for once


def test_escape_twice_then_a_letter_within_esc_delay_are_alt_escape_and_the_letter() -> None:
    term = terminal()
    term.feed(b"\x1b")
    typed = in_turn(QUICK / 4, partial(term.feed, b"\x1b"), partial(term.feed, b"d"))
    try:
        assert read_all(term, PATIENT) == ["KEY_ALT_ESCAPE", "d"]  # was one unknown key
    finally:
        typed.join()


def test_escape_alone_then_a_letter_later_are_two_keys() -> None:
    term = terminal()
    term.feed(b"\x1b")
    assert key_name(term.inkey(timeout=0.2, esc_delay=QUICK)) == "KEY_ESCAPE"
    term.feed(b"d")  # once the wait for more has ended: a key of its own
    assert read_all(term) == ["d"]


ARROWS = b"\x1bOA\x1bOB\x1bOC\x1bOD\x1b[A\x1b[D"


@pytest.mark.parametrize("kind", ["linux", "ansi", "rxvt", "xterm-256color", "vt100"])
def test_the_arrows_in_application_mode_are_arrows_on_every_term(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # blessed's key table takes them from TERM's entry: linux's, ansi's and rxvt's arrows are
    # ESC [ A, so ESC O A (what a terminal in the application cursor mode sends) meant nothing.
    monkeypatch.setenv("TERM", kind)
    with on_a_pty(monkeypatch) as master:
        term = make_terminal()  # the game's terminal, on this process's own pty
        names = []
        with term.cbreak():
            os.write(master, ARROWS + b"w")
            while key := term.inkey(timeout=0.2, esc_delay=QUICK):
                names.append(key_name(key))
    assert names == ["KEY_UP", "KEY_DOWN", "KEY_RIGHT", "KEY_LEFT", "KEY_UP", "KEY_LEFT", "w"]


@pytest.mark.parametrize(("kind", "key", "dy"), [("linux", "A", -1), ("ansi", "B", 1)])
def test_a_game_on_the_linux_console_starts_and_steers_with_ss3_arrows(
    run: Callable[..., Pty], kind: str, key: str, dy: int
) -> None:
    t = run("--size", "20x10", "--seed", "1", "--speed", "3", env={"TERM": kind})
    t.wait_for("a direction key starts")
    head = t.find("@")
    assert head is not None
    t.send(f"\x1bO{key}")  # it waited for a direction key for ever
    t.wait_for(lambda: (p := t.find("@")) is not None and (p[1] - head[1]) * dy > 0)
    t.send("q")
    assert t.wait_exit() == 0
