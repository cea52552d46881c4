"""The solvers one ``--ai`` names: split at its commas (bar those an engine's command holds),
each made canonical, with a hint where a comma seems to have cut an engine's command."""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from termsnake.solvers.enginetext import PREFIX as ENGINE
from termsnake.solvers.registry import resolve_name


def solver_names(text: str) -> list[str]:
    """``--ai A,B``'s names: split at the commas, bar those an engine's command holds in quotes
    or after a backslash, as a shell would read them (``exec:bot --mode 'a,b'``)."""
    names, name, quote, escaped = [], "", "", False
    for ch in text:
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            names.append(name)
            name = ""
            continue
        name += ch
    return [*names, name]


def resolved_names(names: list[str]) -> Iterator[str]:
    """The canonical names of one ``--ai``'s ``names`` (blanks skipped). One not known after an
    engine's command with arguments may be one of them, split off at a comma: the error says how
    to keep it (after a bare ``exec:./bot`` it is a typo as any other)."""
    for i, name in enumerate(names):
        if not name.strip():
            continue
        try:
            resolved = resolve_name(name)
        except ValueError as e:
            if not any(_with_arguments(n) for n in names[:i]):
                raise
            how = "a comma in an engine's command goes in quotes or after a backslash"
            raise ValueError(f"{e}; --ai splits at commas: {how} (exec:./bot 'x,y')") from None
        yield resolved


def _with_arguments(name: str) -> bool:
    """Whether ``name`` is an engine's command with words after its program."""
    if not name.startswith(ENGINE):
        return False
    try:
        return len(shlex.split(name.removeprefix(ENGINE))) > 1
    except ValueError:  # an unended quote: a comma may well have cut it
        return True
