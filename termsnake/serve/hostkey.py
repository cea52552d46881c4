"""The server's host key: made on first run (mode 0600) in the data directory, then reused."""

from __future__ import annotations

import os
from pathlib import Path

import asyncssh

from termsnake.formats.places import data_dir

KEY_NAME = "ssh_host_ed25519_key"


def default_path() -> Path:
    """Where the host key lives unless --host-key says otherwise."""
    return data_dir() / KEY_NAME


def load_or_create(path: Path) -> asyncssh.SSHKey:
    """The key at ``path``; a new ed25519 key written there first if there is none."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        key = asyncssh.generate_private_key("ssh-ed25519")
        tmp = path.with_name(f".{path.name}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key.export_private_key())
        os.replace(tmp, path)
    return asyncssh.read_private_key(str(path))
