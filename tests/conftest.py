"""pytest settings shared by the whole suite."""

from __future__ import annotations

import os

import pytest


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than cores. Many tests wait on child processes and
    pseudo-terminals, and the extra worker keeps the cores busy meanwhile."""
    return (os.cpu_count() or 1) + 1
