"""How the termsnake command ends once its work is done: as Python's exit does (threads waited
for, every atexit handler run, the output flushed, the command's code), but without tearing
down the modules it loaded, which only frees memory the process's end frees anyway."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from plugin_folders import finished, plugins_in
from pty_harness import quiet_env, termsnake_command


def test_the_modules_loaded_are_not_torn_down_but_the_atexit_handlers_run(
    tmp_path: Path,
) -> None:
    # The teardown was a good part of a server's stop (asyncssh, numpy's threads) and of every
    # command's end, and nothing in it is seen but a __del__ such as this one's.
    torn, ran = tmp_path / "torn down", tmp_path / "atexit ran"
    code = (
        "import atexit, pathlib\n\n\nclass Torn:\n"
        f"    def __del__(self, touch=pathlib.Path({str(torn)!r}).touch):\n        touch()\n\n\n"
        f"KEPT = Torn()\natexit.register(pathlib.Path({str(ran)!r}).touch)\n"
    )
    proc = subprocess.Popen(
        [termsnake_command(), "solvers"],
        env={**quiet_env(tmp_path), "PYTHONPATH": str(plugins_in(tmp_path, {"torn": code}))},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = finished(proc)
    assert proc.returncode == 0 and "zztorn" in out and err == ""
    assert ran.exists()
    assert not torn.exists()


def test_a_handler_registered_before_the_command_began_still_runs(tmp_path: Path) -> None:
    # As coverage's, which a .pth file registers as Python starts: the end that skips the
    # teardown would skip it too, so such a process ends as Python ends it.
    ran = tmp_path / "ran"
    script = (
        f"import atexit, pathlib, sys\natexit.register(pathlib.Path({str(ran)!r}).touch)\n"
        "sys.argv = ['termsnake', '--version']\nfrom termsnake.__main__ import main\n"
        "sys.exit(main())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env=quiet_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("termsnake ") and proc.stderr == ""
    assert ran.exists()
