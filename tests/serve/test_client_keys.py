"""A client's keys whose escape sequences blessed does not know (rxvt's Shift and Ctrl arrows, the
Linux console's function keys) mean nothing over SSH: their letters steered and ended visits."""

from __future__ import annotations

import asyncio

import pytest
from pty_harness import steps_shown
from ssh_client import Server, connect, player, start_classic


def test_a_key_blessed_does_not_know_neither_steers_nor_steps(server: Server) -> None:
    # rxvt's Shift+Left (ESC [ d) was the start of a sequence and a `d`: it stepped the paused
    # snake right; the Linux console's F4 (ESC [ [ D) too, by its `D`. The second comes in two
    # packets, as over a slow link.
    async def go() -> None:
        async with await connect(server.port, "rex") as conn:
            p = await player(conn, term_type="rxvt-unicode-256color")
            await start_classic(p, "rex")
            await p.keys(b"s")
            await p.wait_steps(1)
            await p.keys(b" ")
            steps = steps_shown(await p.wait_for("PAUSED"))
            await p.keys(b"\x1b[d")
            await p.keys(b"\x1b[")
            await asyncio.sleep(0.2)
            await p.keys(b"[D")
            await p.keys(b"j")  # a key after them is still read: a step down
            await p.wait_for(lambda text: steps_shown(text) > steps)
            await p.keys(b"q")
            moves = await p.wait_for("Moves (")
            assert f"Moves ({steps + 1}): {steps + 1}D" in moves, moves

    asyncio.run(go())


def test_a_key_blessed_does_not_know_does_not_end_the_visit_from_the_lobby(
    server: Server,
) -> None:
    # rxvt's Ctrl+Up (ESC O a) was Alt+Shift+O and an `a`, which goes back: the visit ended.
    async def go() -> None:
        async with await connect(server.port, "una") as conn:
            p = await player(conn, term_type="rxvt-unicode-256color")
            await p.wait_for("hello, una")
            await p.keys(b"\x1bOa")
            await p.keys(b"\r")
            await p.wait_for("Play which level?")
            assert b"bye!" not in p.received

    asyncio.run(go())


def test_the_lobby_still_goes_back_on_escape_alone(server: Server) -> None:
    async def go() -> None:
        async with await connect(server.port, "val") as conn:
            p = await player(conn)
            await p.wait_for("hello, val")
            await p.keys(b"\r")
            await p.wait_for("Play which level?")
            await p.keys(b"\x1b")
            await p.wait_for(lambda text: "hello, val" in text and "Play which" not in text)

    asyncio.run(go())


@pytest.mark.parametrize(
    ("term_type", "left", "down"),
    [
        ("xterm-256color", b"\x1b[1;3D", b"\x1b[1;3B"),  # xterm's Alt+Left, Alt+Down
        ("xterm-256color", b"\x1b[1;5D", b"\x1b[1;2B"),  # Ctrl+Left, Shift+Down
        ("rxvt-unicode-256color", b"\x1b\x1b[D", b"\x1b\x1b[B"),  # rxvt's Alt: ESC first
    ],
)
def test_the_menus_take_an_arrow_held_with_alt_shift_or_ctrl_as_the_game_does(
    server: Server, term_type: str, left: bytes, down: bytes
) -> None:
    # A held arrow steers in a game; in a menu it moved nothing and did not go back.
    async def go() -> None:
        async with await connect(server.port, "hal") as conn:
            p = await player(conn, term_type=term_type)
            await p.wait_for("hello, hal")
            await p.keys(down)  # to "Watch a bot"
            await p.wait_for("> Watch a bot")
            await p.keys(b"\r")
            await p.wait_for("Watch which bot?")
            await p.keys(left)
            await p.wait_for(lambda text: "hello, hal" in text and "Watch which" not in text)
            assert b"bye!" not in p.received

    asyncio.run(go())
