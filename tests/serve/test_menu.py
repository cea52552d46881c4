"""The lobby's menus: keys move, choose and go back; the text fits the terminal."""

from __future__ import annotations

from termsnake.serve.menu import Menu, Pick


def test_keys_move_wrap_choose_and_go_back() -> None:
    menu = Menu("Lobby", ["Play", "Watch", "Quit"])
    assert menu.key("KEY_DOWN") is Pick.MOVED and menu.selected == 1
    assert menu.key("S") is Pick.MOVED and menu.selected == 2  # caps lock on
    assert menu.key("s") is Pick.MOVED and menu.selected == 0  # wraps around
    assert menu.key("k") is Pick.MOVED and menu.selected == 2
    assert menu.key("KEY_ENTER") is Pick.CHOSEN
    assert menu.key("x") is Pick.NOTHING
    assert menu.key("q") is Pick.BACK


def test_lines_keep_the_selection_in_view_within_the_terminal() -> None:
    menu = Menu("Levels", [f"level {i}" for i in range(30)], selected=25)
    lines = menu.lines(width=12, height=10)
    assert len(lines) == 10 and all(len(line) <= 12 for line in lines)
    assert " > level 25" in lines


def test_control_characters_from_names_are_not_drawn() -> None:
    menu = Menu("Watch", ["ada\x1b[31m", "bob\u202e"])
    text = "\n".join(menu.lines(80, 24))
    assert "\x1b" not in text and "\u202e" not in text


def test_a_visitors_key_preset_steers_the_menus_and_their_footer_names_its_keys() -> None:
    # Menus took w/s and q whatever the visitor's keys: on AZERTY z did nothing and x (quit
    # there) did not go back.
    menu = Menu("Lobby", ["Play", "Watch", "Quit"], keys="azerty")
    assert menu.footer == "z/s or arrows move, Enter chooses, x goes back"
    assert menu.key("z") is Pick.MOVED and menu.selected == 2
    assert menu.key("d") is Pick.CHOSEN
    assert menu.key("x") is Pick.BACK and menu.key("q") is Pick.BACK  # quit, and left
    dvorak = Menu("Lobby", ["Play", "Watch", "Quit"], keys="dvorak")
    assert dvorak.key("o") is Pick.MOVED and dvorak.selected == 1
    assert dvorak.key(",") is Pick.MOVED and dvorak.selected == 0
    assert dvorak.key("e") is Pick.CHOSEN
    assert dvorak.footer == ",/o or arrows move, Enter chooses, q goes back"
    assert Menu("Lobby", ["Play"]).footer == "w/s or arrows move, Enter chooses, q goes back"
