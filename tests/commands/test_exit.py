"""How the termsnake command ends once its work is done: as Python's exit does (threads waited
for, every atexit handler run, the output flushed, the command's code), but without tearing
down the modules it loaded, which only frees memory the process's end frees anyway."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from plugin_folders import finished, plugins_in
from pty_harness import quiet_env, termsnake_command


def test_the_modules_loaded_are_not_torn_down_but_the_atexit_handlers_run_and_files_flushed(
    tmp_path: Path,
) -> None:
    # The teardown was a good part of a server's stop (asyncssh, numpy's threads) and of every
    # command's end, and nothing in it is seen but a __del__ such as this one's.
    # What a plugin's files hold unwritten is written still, as the teardown's freeing of them
    # did: a log kept open in a global, text or binary, and a file its atexit handler opened.
    torn, ran = tmp_path / "torn down", tmp_path / "atexit ran"
    logs = [tmp_path / "text.log", tmp_path / "binary.log", tmp_path / "atexit.log"]
    code = (
        "import atexit, pathlib\n\n\nclass Torn:\n"
        f"    def __del__(self, touch=pathlib.Path({str(torn)!r}).touch):\n        touch()\n\n\n"
        f"KEPT = Torn()\natexit.register(pathlib.Path({str(ran)!r}).touch)\n"
        f"TEXT = open({str(logs[0])!r}, 'w')\nTEXT.write('kept')\n"
        f"BINARY = open({str(logs[1])!r}, 'wb')\nBINARY.write(b'kept')\n"
        f"\n\ndef last():\n    global LAST\n    LAST = open({str(logs[2])!r}, 'w')\n"
        "    LAST.write('kept')\n\n\natexit.register(last)\n"
    )
    _solvers_with_plugin(tmp_path, "torn", code)
    assert ran.exists()
    assert not torn.exists()
    assert [log.read_text() for log in logs] == ["kept"] * 3


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


def test_a_plugins_named_temporary_file_left_open_is_deleted_as_the_teardown_did(
    tmp_path: Path,
) -> None:
    # NamedTemporaryFile deletes its file when it is freed; the end that skips the teardown
    # left on disk one a plugin kept open in a global. One made with delete=False stays, its
    # lines written.
    temp = tmp_path / "temp"
    temp.mkdir()
    code = (
        "import tempfile\n"
        f"GONE = tempfile.NamedTemporaryFile('w', dir={str(temp)!r}, prefix='gone-')\n"
        "GONE.write('dropped')\n"
        f"BINARY = tempfile.NamedTemporaryFile(dir={str(temp)!r}, prefix='gone-')\n"
        f"KEPT = tempfile.NamedTemporaryFile('w', dir={str(temp)!r}, prefix='kept-', "
        "delete=False)\nKEPT.write('kept')\n"
    )
    _solvers_with_plugin(tmp_path, "temps", code)
    left = list(temp.iterdir())
    assert [p.name[:5] for p in left] == ["kept-"], left
    assert left[0].read_text() == "kept"


def test_a_temporary_file_is_deleted_at_the_end_but_not_closed_under_a_thread_writing_it(
    tmp_path: Path,
) -> None:
    # The teardown stopped the daemon threads before it freed the files; the end that skips it
    # closed a plugin's NamedTemporaryFile under its daemon thread's writes, which then printed
    # "ValueError: write to closed file" in a traceback as the command ended, now and then. The
    # file is deleted as before, and left open: the process's end closes it.
    code = f"""
import pathlib, tempfile, threading, time
from termsnake.streams import finish_files

LOG = tempfile.NamedTemporaryFile("w", dir={str(tmp_path)!r})
failed, ended = [], threading.Event()
threading.excepthook = failed.append


def write():
    while not ended.is_set():
        LOG.write("x")


writing = threading.Thread(target=write, daemon=True)
writing.start()
finish_files()
time.sleep(0.05)  # writing on after the end began, as a daemon thread does
ended.set()
writing.join()
print(LOG.closed, failed, list(pathlib.Path({str(tmp_path)!r}).iterdir()))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.stdout, done.stderr) == ("False [] []\n", "")


def _solvers_with_plugin(tmp_path: Path, name: str, code: str) -> None:
    """``termsnake solvers`` with a plugin of ``code``: it lists it and ends well, silent."""
    proc = subprocess.Popen(
        [termsnake_command(), "solvers"],
        env={**quiet_env(tmp_path), "PYTHONPATH": str(plugins_in(tmp_path, {name: code}))},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = finished(proc)
    assert proc.returncode == 0 and f"zz{name}" in out and err == ""
