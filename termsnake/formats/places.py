"""Where termsnake keeps the user's files: XDG data and config directories, via platformdirs."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import platformdirs

APP_NAME: Final = "termsnake"


def data_dir() -> Path:
    """High scores and the server's host key live here."""
    return platformdirs.user_data_path(APP_NAME)


def config_dir() -> Path:
    """config.toml lives here."""
    return platformdirs.user_config_path(APP_NAME)
