"""`train --jobs 2` whose worker process dies (kill -9, the out-of-memory killer) stops with one
line, keeping the checkpoint, instead of waiting for ever for the lost worker's games; SIGTERM
and SIGHUP end a run as Ctrl-C does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from lock_trap import run_trapped
from process_tree import children, nohup, own_group, wait_until

TRAIN = ["train", "neuro", "--size", "6x6", "--population", "8", "--games", "2"]


def started(out: Path, jobs: str) -> subprocess.Popen[str]:
    """A long training run into ``out``, once two generations are saved."""
    train = subprocess.Popen(
        [sys.executable, "-m", "termsnake", *TRAIN, "--generations", "100000", "--jobs", jobs,
         "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    curve = out.with_name(out.name + ".curve.csv")
    wait_until(lambda: curve.exists() and curve.read_text().count("\n") >= 3, timeout=60)
    return train


@pytest.mark.parametrize(
    ("signum", "jobs"),
    [pytest.param(signal.SIGTERM, "2", marks=pytest.mark.slow), (signal.SIGHUP, "1")],
)
def test_sigterm_and_sighup_end_a_run_as_ctrl_c_does(
    signum: signal.Signals, jobs: str, tmp_path: Path
) -> None:
    # They ended it by their default action: no word of the checkpoint, and now and then a
    # warning of a leaked semaphore.
    out = tmp_path / "w.json"
    train = started(out, jobs)
    try:
        train.send_signal(signum)
        stdout, stderr = train.communicate(timeout=30)
    finally:
        train.kill()
        train.wait()
    assert train.returncode == 128 + signum and stdout == ""
    done = json.loads((tmp_path / "w.json.checkpoint.json").read_text())["generation"]
    assert stderr == (
        f"termsnake train: stopped by {signum.name}; {out}.checkpoint.json holds "
        f"generations 0 to {done - 1}: --resume goes on from there\n"
    )


@pytest.mark.slow  # a training with workers per signal: CPU-heavy
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_just_after_the_pool_takes_a_lock_ends_the_run(name: str, tmp_path: Path) -> None:
    # Raised there, it left the future's lock taken: the pool's shutdown waited for ever.
    out = tmp_path / "w.json"
    args = [*TRAIN, "--generations", "1000", "--jobs", "2", "--out", str(out)]
    code, stdout, stderr = run_trapped(name, args)
    assert code == 128 + getattr(signal, name), stderr
    why = "interrupted" if name == "SIGINT" else f"stopped by {name}"
    said = f"termsnake train: {why} before a generation was done; nothing was written\n"
    assert stdout == "" and stderr == said
    assert not out.exists()


@pytest.mark.slow  # a training with workers, one killed: CPU-heavy
def test_a_worker_killed_ends_the_run_with_one_line_and_the_checkpoint_kept(
    tmp_path: Path,
) -> None:
    out = tmp_path / "w.json"
    train = started(out, "2")
    try:
        workers = children(train.pid)
        assert len(workers) >= 2, workers  # the two workers (and the resource tracker)
        for worker in workers:
            if "spawn_main" in Path(f"/proc/{worker}/cmdline").read_text():
                os.kill(worker, signal.SIGKILL)
                break
        stdout, stderr = train.communicate(timeout=30)
    finally:
        train.kill()
        train.wait()
    assert train.returncode == 1 and stdout == ""
    done = json.loads((tmp_path / "w.json.checkpoint.json").read_text())["generation"]
    assert stderr == (
        f"termsnake train: error: a worker process died (killed by SIGKILL); {out}.checkpoint.json "
        f"holds generations 0 to {done - 1}: --resume goes on from there\n"
    )
    assert out.exists()


@pytest.mark.slow  # a training with workers through to its end: CPU-heavy
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_run_started_by_nohup_outlives_the_hang_up_of_its_window(tmp_path: Path) -> None:
    # Its own handler replaced the hang-up nohup ignores: the run stopped (129) as the window
    # it was started from closed.
    out = tmp_path / "w.json"
    curve = out.with_name(out.name + ".curve.csv")
    args = [*TRAIN, "--generations", "12", "--jobs", "2", "--out", str(out)]
    with own_group([sys.executable, "-m", "termsnake", *args], preexec_fn=nohup) as train:
        # A generation saved, the resource tracker and the workers there.
        wait_until(lambda: curve.exists() and len(children(train.pid)) >= 3, timeout=60)
        assert train.poll() is None  # the hang-up comes while the workers play
        os.killpg(train.pid, signal.SIGHUP)
        stdout, stderr = train.communicate(timeout=60)
    assert train.returncode == 0, stderr
    assert stderr == "" and "(the best network of generation 11)" in stdout
