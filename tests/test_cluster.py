"""A real local Dask cluster gives exactly the numbers of a local run, relative weights paths
meaning the client's files; bad addresses, a server that is no scheduler, a cluster with no
workers or that loses its scheduler are one line and a prompt exit."""

from __future__ import annotations

import importlib.metadata
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from pty_harness import run_plain

from termsnake import __version__, cluster
from termsnake.bench import remote
from termsnake.bench.progress import Progress
from termsnake.cluster import ClusterError, connect, map_on
from termsnake.commands import cli
from termsnake.core.level import open_level
from termsnake.learn.evolve import Plan, start, step
from termsnake.learn.remote import score
from termsnake.solvers.neuro import Network

if TYPE_CHECKING:
    from distributed import Client

# distributed is imported by the tests that start a cluster, not here: every worker of the
# default run collects this module, most of them to run none of those.

PLAN = Plan(open_level(6, 6, 1), hidden=4, population=6, elite=2, games=2, seed=5)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as started:
        yield started.scheduler_address


def test_training_on_a_cluster_gives_the_local_result(scheduler: str) -> None:
    with connect(scheduler) as client:
        remote = step(
            PLAN,
            step(PLAN, start(PLAN), lambda t: map_on(client, score, t)),
            lambda t: map_on(client, score, t),
        )
    local = step(PLAN, step(PLAN, start(PLAN)))
    assert remote.population == local.population and remote.curve == local.curve


def test_an_unreachable_scheduler_is_one_line_within_seconds() -> None:
    began = time.monotonic()
    with (
        pytest.raises(
            ClusterError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"
        ),
        connect("tcp://127.0.0.1:9", timeout=1.0),
    ):
        pass
    assert time.monotonic() - began < 5


def test_bench_and_train_on_a_cluster_print_the_local_numbers(
    scheduler: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["bench", "--ai", "greedy,hamilton", "--size", "6x6", "--games", "3", "--json"]
    assert cli.main(args) == 0
    here = json.loads(capsys.readouterr().out)
    assert cli.main([*args, "--scheduler", scheduler]) == 0
    there, err = capsys.readouterr()
    assert "--jobs" not in err
    # DESIGN lets --jobs be given beside --scheduler: it goes unused, and one line says so.
    assert cli.main([*args, "--jobs", "2", "--scheduler", scheduler]) == 0
    also, err = capsys.readouterr()
    assert err.splitlines()[0] == (
        "termsnake bench: note: --jobs is not used with --scheduler "
        "(the cluster's workers play the games)"
    )
    rows = [json.loads(out) for out in (there, also)]
    for row in (*here, *rows[0], *rows[1]):
        row.pop("ms_per_move")
    assert here == rows[0] == rows[1]
    train = ["train", "neuro", "--size", "6x6", "--generations", "2", "--population", "4"]
    train += ["--games", "1", "--seed", "3"]
    assert cli.main([*train, "--out", str(tmp_path / "a.json")]) == 0
    cluster = ["--jobs", "0", "--scheduler", scheduler]
    assert cli.main([*train, "--out", str(tmp_path / "b.json"), *cluster]) == 0
    assert "termsnake train: note: --jobs is not used with --scheduler" in capsys.readouterr().err
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()


@pytest.mark.slow  # a bench on a cluster of its own: CPU-heavy
def test_a_level_file_is_the_clients_as_it_is_now(
    scheduler: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A worker kept the board it had first read for a path, run after run, and read a relative
    # path in its own folder.
    boards = {  # one name, 28 and 27 free cells
        "A": "name: swap\n#########\n#.......#\n#.>.....#\n#.......#\n#.......#\n#########\n",
        "B": "name: swap\n###########\n#.........#\n#.>.......#\n#.........#\n###########\n",
    }
    monkeypatch.chdir(tmp_path)
    for name, level in (("A", tmp_path / "lv.txt"), ("B", tmp_path / "lv.txt"), ("A", "rel.txt")):
        Path(level).write_text(boards[name])
        args = ["bench", "--ai", "greedy", "--level", str(level), "--games", "8", "--json"]
        rows = []
        for where in ([], ["--scheduler", scheduler]):
            assert cli.main([*args, *where]) == 0
            (row,) = json.loads(capsys.readouterr().out)
            row.pop("ms_per_move")
            rows.append(row)
        assert rows[0] == rows[1] and rows[0]["free_cells"] == {"A": 28, "B": 27}[name]


BENCH = ["bench", "--ai", "greedy", "--size", "6x6", "--games", "2"]


@pytest.mark.parametrize(
    "address",
    ["nonsense", "127.0.0.1", "http://127.0.0.1:1", "tcp://[::1", "inproc://x",
     "tls://127.0.0.1:1", "ucx://127.0.0.1:1", "tcp://127.0.0.1:0", "tcp://h:99999"],
)  # fmt: skip
def test_a_malformed_address_is_one_line_at_once(
    address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    began = time.monotonic()
    assert cli.main([*BENCH, "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "wants tcp://HOST:PORT" in err
    assert time.monotonic() - began < 1


@pytest.mark.parametrize("command", ["bench", "train"])
def test_a_malformed_address_beside_jobs_is_the_only_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The note that --jobs goes unused came first, as if the run were to go on.
    train = ["train", "neuro", "--size", "6x6", "--out", str(tmp_path / "w.json")]
    argv = [*(BENCH if command == "bench" else train), "--jobs", "2", "--scheduler", "BAD"]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == (
        f"termsnake {command}: error: --scheduler wants tcp://HOST:PORT (as `dask scheduler` "
        "prints it), not 'BAD'\n"
    )
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["bench", "train"])
def test_a_missing_cluster_extra_beside_jobs_is_the_only_line(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # As if the cluster extra were not installed (None there: the import raises). The note
    # that --jobs goes unused came first, as if the run were to go on.
    monkeypatch.setitem(sys.modules, "distributed", None)
    train = ["train", "neuro", "--size", "6x6", "--out", str(tmp_path / "w.json")]
    argv = [*(BENCH if command == "bench" else train), "--jobs", "2"]
    assert cli.main([*argv, "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert capsys.readouterr().err == (
        f"termsnake {command}: error: --scheduler needs the cluster extra: "
        "pip install 'termsnake[cluster]'\n"
    )
    assert not list(tmp_path.iterdir())


def test_a_control_character_in_the_address_is_escaped_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The address was escaped, then quoted with repr: its ESC showed as \\x1b, not \x1b.
    assert cli.main([*BENCH, "--scheduler", "tcp://a\x1b[2Jb:1"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "termsnake bench: error: --scheduler wants tcp://HOST:PORT (as `dask scheduler` "
        "prints it), not 'tcp://a\\x1b[2Jb:1'\n"
    )


@pytest.mark.parametrize("host", ["a" * 64, "a..b", ".a", "a." * 130 + "b", "x" * 100_000])
def test_a_host_name_dns_would_refuse_is_said_so_short(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python's resolver raised, and the message said nothing answered like a scheduler; it
    # also printed the whole address, 100,000 characters of it.
    assert cli.main([*BENCH, "--scheduler", f"tcp://{host}:8786"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a host name" in err and len(err) < 200


@pytest.fixture
def junk_server() -> Iterator[int]:
    """A TCP server that answers like a web server, not a Dask scheduler."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    answered: list[socket.socket] = []  # held open, as a server that waits for more would

    def serve() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            answered.append(conn)
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in answered:
        conn.close()
    server.close()


@pytest.mark.slow  # seconds of waiting on a cluster
def test_a_server_that_is_no_scheduler_is_one_line_and_a_clean_exit(junk_server: int) -> None:
    argv = [sys.executable, "-m", "termsnake", *BENCH, "--scheduler"]
    began = time.monotonic()
    done = subprocess.run(
        [*argv, f"tcp://127.0.0.1:{junk_server}"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"termsnake bench: error: cannot use tcp://127.0.0.1:{junk_server}: "
        "what answers there is not a Dask scheduler\n"
    )
    # No client left to hang the exit (it waited its timeouts out); a loaded machine takes
    # seconds to start Python and Dask alone.
    assert time.monotonic() - began < 15


@pytest.mark.slow  # seconds of waiting on a cluster
def test_a_server_that_never_speaks_is_given_up_on() -> None:
    # The kernel completes the connection to a listening socket nobody accepts on: Dask's
    # connect timeout passed, and its handshake then waited for ever.
    with socket.create_server(("127.0.0.1", 0)) as silent:
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        began = time.monotonic()
        with pytest.raises(cluster.ClusterError, match="timed out"), cluster.connect(address, 1):
            pass
        assert time.monotonic() - began < 10


@pytest.mark.slow  # seconds of waiting on a cluster
def test_a_cluster_without_workers_stops_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from distributed import LocalCluster

    monkeypatch.setattr(cluster, "NO_WORKERS_TIMEOUT", 0.5)
    with LocalCluster(n_workers=0, processes=True, dashboard_address=":0") as empty:
        began = time.monotonic()
        assert cli.main([*BENCH, "--scheduler", empty.scheduler_address]) == 2
        assert time.monotonic() - began < 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has had no worker for 0.5 s" in err


@pytest.mark.slow  # a scheduler of its own, started and killed
def test_a_lost_scheduler_stops_the_run_with_one_line(tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "scheduler.log"
    with log.open("w") as log_file:
        scheduler = subprocess.Popen(
            ["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=subprocess.DEVNULL,
            stderr=log_file,
        )
    try:
        _wait_for_port(port)
        bench = subprocess.Popen(
            [sys.executable, "-m", "termsnake", *BENCH, "--scheduler", f"tcp://127.0.0.1:{port}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # Killed only once the bench is connected (and waiting for a worker): on a busy
        # machine its start can take seconds.
        deadline = time.monotonic() + 30
        while "Receive client connection" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        scheduler.send_signal(signal.SIGKILL)
        began = time.monotonic()
        out, err = bench.communicate(timeout=30)
    finally:
        scheduler.kill()
        scheduler.wait()
    assert bench.returncode == 2 and out == ""
    assert (
        err
        == f"termsnake bench: error: lost the connection to the Dask scheduler at tcp://127.0.0.1:{port}\n"
    )
    assert time.monotonic() - began < 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the scheduler did not start")


@pytest.mark.slow  # a bench twice, here and on the cluster: seconds of CPU
def test_relative_weights_are_the_clients_file(
    scheduler: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rel").mkdir()
    network = Network.from_vector(np.random.default_rng(3).normal(size=Network.size(4)), 4)
    (tmp_path / "rel" / "wts.json").write_text(network.to_json())
    args = ["bench", "--ai", "neuro:rel/wts.json,greedy", "--size", "6x6", "--games", "3"]
    args += ["--json", "--record-dir", "replays"]
    assert cli.main(args) == 0
    here = json.loads(capsys.readouterr().out)
    kept = {p.name: p.read_bytes() for p in (tmp_path / "replays").iterdir()}
    assert cli.main([*args, "--scheduler", scheduler]) == 0
    there = json.loads(capsys.readouterr().out)
    for row in (*here, *there):
        row.pop("ms_per_move")
    assert here == there and here[0]["solver"] == "neuro:rel/wts.json"
    assert {p.name: p.read_bytes() for p in (tmp_path / "replays").iterdir()} == kept


# As tests/commands/test_bench.py's without_numpy does it, in a worker's process: importing
# numpy fails, and neuro's module is imported anew.
WITHOUT_NUMPY = (
    "import sys; sys.modules['numpy'] = None; sys.modules.pop('termsnake.solvers.neuro', None)"
)


@pytest.mark.slow  # workers of its own, started and lost: seconds of CPU
@pytest.mark.parametrize("neuro", ["neuro", "neuro:w.json"])
def test_a_worker_without_numpy_says_neuro_is_unavailable_and_the_others_play(
    neuro: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # It was a crash there (exit 1, 'failed (seed 1): ValueError: ...'), where a local run
    # says neuro is unavailable in one line and measures the rest. neuro:PATH's weights, sent
    # as numpy's arrays, stopped the run with "cannot send the games' data to the Dask
    # cluster: ModuleNotFoundError("No module named 'numpy'")".
    from distributed import LocalCluster

    monkeypatch.chdir(tmp_path)
    network = Network.from_vector(np.random.default_rng(3).normal(size=Network.size(4)), 4)
    (tmp_path / "w.json").write_text(network.to_json())
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as lone:
        with connect(lone.scheduler_address) as client:
            client.run(exec, WITHOUT_NUMPY, {})
        args = ["bench", "--ai", f"{neuro},greedy", "--size", "6x6", "--games", "2", "--json"]
        assert cli.main([*args, "--scheduler", lone.scheduler_address]) == 0
        with connect(lone.scheduler_address) as client:
            assert len(client.scheduler_info(n_workers=-1)["workers"]) == 1
    out, err = capsys.readouterr()
    assert [row["solver"] for row in json.loads(out)] == ["greedy"]
    assert err == (
        f"termsnake bench: {neuro} on open-6x6: unavailable: neuro needs numpy, which is not "
        "installed (pip install 'termsnake[learn]') (on a Dask worker)\n"
    )


@pytest.mark.slow  # a worker of its own: seconds of CPU
def test_training_on_a_worker_without_numpy_is_one_line_and_the_worker_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Reading a task of evolve's own imported numpy outside any task: the worker closed, and
    # the run said after 20 s that the cluster had had no worker.
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as lone:
        with connect(lone.scheduler_address) as client:
            client.run(
                exec, f"{WITHOUT_NUMPY}; sys.modules.pop('termsnake.learn.evolve', None)", {}
            )
        args = ["train", "neuro", "--size", "4x4", "--population", "2", "--games", "1"]
        args += ["--out", str(tmp_path / "w.json"), "--scheduler", lone.scheduler_address]
        began = time.monotonic()
        assert cli.main(args) == 2
        assert time.monotonic() - began < 10
        with connect(lone.scheduler_address) as client:
            assert len(client.scheduler_info(n_workers=-1)["workers"]) == 1
    assert capsys.readouterr().err == (
        "termsnake train: error: the games on the Dask cluster failed: a Dask worker cannot "
        "train: numpy is not installed there (pip install 'termsnake[learn]' on every worker)\n"
    )


# A worker's preload, run before it joins: numpy missing as Dask's list of versions says it
# too (None), not only to imports (Dask reads the versions from the installed files).
WITHOUT_NUMPY_AS_DASK_SEES_IT = f"""
import distributed.versions as v

if not hasattr(v, "_real_version"):  # the preload may run twice in one process
    v._real_version = v._version_cached
    v._version_cached = lambda package: None if package == "numpy" else v._real_version(package)
{WITHOUT_NUMPY}
"""


@pytest.mark.slow  # a worker of its own: seconds of CPU
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["bench", "--ai", "neuro,greedy", "--size", "6x6", "--games", "2", "--json"],
         "termsnake bench: neuro on open-6x6: unavailable: neuro needs numpy, which is not "
         "installed (pip install 'termsnake[learn]') (on a Dask worker)\n"),
        (["train", "neuro", "--size", "4x4", "--population", "2", "--games", "1", "--out",
          "w.json"],
         "termsnake train: error: the games on the Dask cluster failed: a Dask worker cannot "
         "train: numpy is not installed there (pip install 'termsnake[learn]' on every "
         "worker)\n"),
    ],
)  # fmt: skip
def test_a_worker_without_numpy_is_termsnakes_one_line_not_dasks_table(
    args: list[str], said: str, tmp_path: Path
) -> None:
    # Dask's VersionMismatchWarning came first: 8 lines, a table of the packages that differ
    # (numpy, None on the workers) and the line of Dask's code that warned.
    from distributed import LocalCluster

    preload = tmp_path / "without_numpy.py"
    preload.write_text(WITHOUT_NUMPY_AS_DASK_SEES_IT)
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
        preload=[str(preload)],
    ) as lone:  # fmt: skip
        done = run_plain(tmp_path, *args, "--scheduler", lone.scheduler_address)
    assert done.stderr == said
    assert done.returncode == (0 if args[0] == "bench" else 2)


@pytest.mark.slow  # runs on a cluster of its own: CPU-heavy
def test_the_boards_and_weights_are_sent_once_a_run_whatever_its_batches(
    scheduler: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # They went with every batch of games: 400 KB a 200x200 board, again and again.
    from distributed import Client

    sent: list[object] = []
    scatter = Client.scatter

    def counted(self: Client, data: Any, *args: Any, **kwargs: Any) -> Any:
        sent.extend(data)
        return scatter(self, data, *args, **kwargs)

    monkeypatch.setattr(Client, "scatter", counted)
    monkeypatch.setattr(remote, "CLUSTER_BATCH", 2)
    args = ["bench", "--ai", "greedy,hamilton", "--size", "4x4", "--size", "6x4", "--games", "3"]
    args += ["--json"]
    assert cli.main(args) == 0
    here = json.loads(capsys.readouterr().out)
    assert cli.main([*args, "--scheduler", scheduler]) == 0  # 12 games: 6 batches
    there = json.loads(capsys.readouterr().out)
    for row in (*here, *there):
        row.pop("ms_per_move")
    assert here == there
    assert [type(value).__name__ for value in sent] == ["Kit"]


@pytest.mark.slow  # workers of its own, started and lost: seconds of CPU
def test_the_kit_is_sent_again_once_every_worker_that_held_it_is_gone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Sent once a run, it was lost with the last worker holding it: the next batch failed with
    # "lost its workers and their data", though the nanny had started a new worker.
    real_map_on = map_on
    batches: list[int] = []

    def then_kill_the_worker(client: Client, *args: Any, **kwargs: Any) -> Any:
        out = real_map_on(client, *args, **kwargs)
        if not batches:
            old = set(client.run(os.getpid).values())
            for pid in old:
                os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # the nanny starts another
                time.sleep(0.2)
                try:
                    now = set(client.run(os.getpid).values())
                except Exception:  # none yet
                    continue
                if now and not now & old:
                    break
        batches.append(len(out))
        return out

    args = ["bench", "--ai", "greedy", "--size", "4x4", "--games", "4", "--json"]
    assert cli.main(args) == 0
    here = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(remote, "map_on", then_kill_the_worker)
    monkeypatch.setattr(remote, "CLUSTER_BATCH", 2)
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as one:
        assert cli.main([*args, "--scheduler", one.scheduler_address]) == 0
    there = json.loads(capsys.readouterr().out)
    for row in (*here, *there):
        row.pop("ms_per_move")
    assert batches == [2, 2] and here == there


@pytest.mark.slow  # workers of its own, started and lost: seconds of CPU
def test_a_batch_whose_kit_is_lost_half_way_is_played_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The one worker killed (out of memory, say) while its batch was under way: the kit went
    # with it, every game of the batch was cancelled, and the run stopped with "lost its
    # workers and their data", though the nanny had a new worker up within a second.
    real_map_on = map_on
    killed: list[int] = []

    def kill_on_first_game(
        client: Client, fn: Any, items: Any, told: Callable[[int], None], **kwargs: Any
    ) -> Any:
        def done(n: int) -> None:
            if not killed:
                killed.extend(client.run(os.getpid).values())
                for pid in killed:
                    os.kill(pid, signal.SIGKILL)
            told(n)

        return real_map_on(client, fn, items, done, **kwargs)

    reported: list[int] = []
    real_done = Progress.done

    def counted(self: Progress, games: int) -> None:
        reported.append(games)
        real_done(self, games)

    args = ["bench", "--ai", "greedy", "--size", "6x6", "--games", "6", "--json"]
    assert cli.main(args) == 0
    here = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(remote, "map_on", kill_on_first_game)
    monkeypatch.setattr(Progress, "done", counted)
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as one:
        assert cli.main([*args, "--scheduler", one.scheduler_address]) == 0
    out, err = capsys.readouterr()
    there = json.loads(out)
    for row in (*here, *there):
        row.pop("ms_per_move")
    assert killed and here == there and err == ""
    assert sum(reported) == 6  # the games played again are not counted twice


@pytest.mark.slow  # workers of its own, started and lost: seconds of CPU
def test_sigterm_ends_a_run_on_a_cluster_as_it_ends_a_local_one(
    scheduler: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # It was taken for the cluster's failure: "the games on the Dask cluster failed: SIGTERM",
    # exit 2, and train did not say what its checkpoint held.
    real_wait_all = cluster._wait_all
    calls: list[int] = []

    def terminated_in_the_second(*args: Any) -> None:
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGTERM)  # its handler raises as the games are waited on
        real_wait_all(*args)

    monkeypatch.setattr(cluster, "_wait_all", terminated_in_the_second)
    monkeypatch.setattr(remote, "CLUSTER_BATCH", 1)
    assert cli.main([*BENCH, "--scheduler", scheduler]) == 128 + signal.SIGTERM
    out, err = capsys.readouterr()
    assert out == "" and err == "termsnake bench: stopped by SIGTERM\n"
    calls.clear()
    out_path = tmp_path / "w.json"
    train = ["train", "neuro", "--size", "6x6", "--generations", "3", "--population", "2"]
    train += ["--games", "1", "--out", str(out_path), "--scheduler", scheduler]
    assert cli.main(train) == 128 + signal.SIGTERM
    assert capsys.readouterr().err == (
        f"termsnake train: stopped by SIGTERM; {out_path}.checkpoint.json holds generation 0: "
        "--resume goes on from there\n"
    )


class _Workers:
    """A client's answers about its workers: the termsnake each has (None: not installed)."""

    def __init__(self, installed: dict[str, str | None]) -> None:
        self.installed = installed
        self.asked: list[str] = []

    def scheduler_info(self, n_workers: int) -> dict[str, Any]:
        return {"workers": dict.fromkeys(self.installed)}

    def run(self, fn: Callable[..., str], *args: Any, workers: list[str], on_error: str) -> Any:
        # Asked by name, a question a worker without termsnake can read.
        assert (fn, args, on_error) == (importlib.metadata.version, ("termsnake",), "return")
        self.asked += workers
        return {
            address: self.installed[address] or importlib.metadata.PackageNotFoundError(*args)
            for address in workers
        }


@pytest.mark.parametrize(
    ("theirs", "said"),
    [
        (None, "the Dask worker at tcp://b:1 has no termsnake: install termsnake {} on every "
               "worker"),
        ("0.0.9", "the Dask worker at tcp://b:1 has termsnake 0.0.9, not {} as here: install "
                  "the same version on every worker"),
    ],
)  # fmt: skip
def test_a_worker_without_this_termsnake_is_one_line_and_each_is_asked_once(
    theirs: str | None, said: str
) -> None:
    # Nothing was asked: a worker without termsnake closed as it read train's games (the run
    # said 20 s later that the cluster had no worker), bench said Dask's ModuleNotFoundError.
    client = _Workers({"tcp://a:1": __version__})
    cluster._same_termsnake(client)  # type: ignore[arg-type]
    client.installed["tcp://b:1"] = theirs
    with pytest.raises(ClusterError) as caught:
        cluster._same_termsnake(client)  # type: ignore[arg-type]
    assert str(caught.value) == said.format(__version__)
    assert client.asked == ["tcp://a:1", "tcp://b:1"]


@pytest.mark.slow  # a worker of its own: seconds of CPU
@pytest.mark.parametrize("command", ["bench", "train"])
def test_a_worker_with_another_termsnake_is_one_line_and_stays(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The games were sent as they were: a worker with other code may fail to read them, or
    # play them otherwise, and one without termsnake closed (train's).
    from distributed import LocalCluster

    monkeypatch.setattr(cluster, "__version__", "0.0.9")  # here, not on the worker
    if command == "bench":
        args = ["bench", "--ai", "greedy", "--size", "6x6", "--games", "2"]
    else:
        args = ["train", "neuro", "--size", "4x4", "--population", "2", "--games", "1"]
        args += ["--out", str(tmp_path / "w.json")]
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as lone:
        assert cli.main([*args, "--scheduler", lone.scheduler_address]) == 2
        with connect(lone.scheduler_address) as client:
            worker = list(client.scheduler_info(n_workers=-1)["workers"])
            assert len(worker) == 1
    assert capsys.readouterr().err == (
        f"termsnake {command}: error: the Dask worker at {worker[0]} has termsnake "
        f"{importlib.metadata.version('termsnake')}, not 0.0.9 as here: install the same "
        "version on every worker\n"
    )
