"""The server's keys: its host key, made on first run (mode 0600) in the data directory and then
reused, and the public keys it may admit; both read as any file of the user's is (capped, no
pipes or devices), with one-line errors."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import asyncssh
from asyncssh.public_key import decode_ssh_certificate, decode_ssh_public_key

from termsnake.formats.fileio import TooLarge, read_capped, write_atomic
from termsnake.formats.places import data_dir
from termsnake.formats.text import describe_char, shorten

KEY_NAME: Final = "ssh_host_ed25519_key"
MAX_KEY_BYTES: Final = 64 * 1024  # far above any private key asyncssh reads
MAX_AUTHORIZED_BYTES: Final = 1024 * 1024


class HostKeyError(Exception):
    """A key file that cannot be used, and why (one line)."""


def default_path() -> Path:
    """Where the host key lives unless --host-key says otherwise."""
    return data_dir() / KEY_NAME


def load_or_create(path: Path) -> tuple[asyncssh.SSHKey, bool]:
    """The key at ``path``, and whether it was made: a new ed25519 key is written there first
    if there is none (through a symbolic link that points nowhere yet: the link is the user's,
    and stays)."""
    try:
        if not _exists(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            key = asyncssh.generate_private_key("ssh-ed25519")
            write_atomic(path, key.export_private_key(), mode=0o600)
            return key, True
        data = _read(path, MAX_KEY_BYTES, "a private key")
        with _quiet_patterns():
            return asyncssh.import_private_key(data), False
    except (asyncssh.KeyImportError, ValueError, re.error) as e:
        raise HostKeyError(f"not a private key asyncssh can read ({_why(e)})") from None
    except OSError as e:
        raise HostKeyError(e.strerror or str(e)) from None


def _exists(path: Path) -> bool:
    """Whether a file is there; OSError where that cannot be told (a loop of symbolic links,
    which Path.exists calls missing: the key made then would replace the user's link)."""
    try:
        path.stat()
    except FileNotFoundError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class AuthorizedKeys:
    """The keys of an --authorized-keys file, and the lines of it asyncssh cannot read."""

    keys: asyncssh.SSHAuthorizedKeys
    read: int  # entries read (keys, certificates, subjects)
    skipped: tuple[int, ...]  # the numbers of the lines left out, from 1
    why: str  # what asyncssh said of the first of them ("" if no more than that it cannot)

    def warning(self) -> str | None:
        """The line that says which were left out, if any were."""
        if not self.skipped:
            return None
        lines = "1 line" if len(self.skipped) == 1 else f"{len(self.skipped)} lines"
        keys = "1 key" if self.read == 1 else f"{self.read} keys"
        why = f": {self.why}" if self.why else ""
        return (f"skipped {lines} asyncssh cannot read (the first, line {self.skipped[0]}{why}); "
                f"admitting the {keys} it read")  # fmt: skip


def read_authorized_keys(path: Path) -> AuthorizedKeys:
    """The public keys listed in ``path`` (OpenSSH's authorized_keys format). asyncssh skips
    a line it cannot read without a word, and reads a file with none as admitting no one:
    the lines are tried one by one, and a file without a key is refused."""
    try:
        text = _read(path, MAX_AUTHORIZED_BYTES, "a list of keys").decode("utf-8")
    except UnicodeDecodeError as e:
        byte = e.object[e.start]
        raise HostKeyError(f"not UTF-8 (byte {byte:#04x} at offset {e.start})") from None
    except OSError as e:
        raise HostKeyError(e.strerror or str(e)) from None
    good: list[str] = []
    skipped: list[int] = []
    why = ""
    # Lines end at "\n" (a "\r" before it dropped), as OpenSSH and an editor count them.
    for number, line in enumerate(text.split("\n"), 1):
        entry = line.removesuffix("\r").strip()
        if not entry or entry.startswith("#"):
            continue
        try:
            if len(entry.splitlines()) > 1:
                # asyncssh would read it as two or more (at \f, \r, U+2028...): a second key
                # in what OpenSSH reads as one line's comment would be admitted.
                raise ValueError("a character asyncssh takes for the end of a line")
            with _quiet_patterns():
                asyncssh.import_authorized_keys(entry)
        except (asyncssh.KeyImportError, ValueError, re.error) as e:
            why = (_why(e) or _unsaid(entry)) if not skipped else why
            skipped.append(number)
        else:
            good.append(entry)
    if not good:
        others = len(skipped) - 1
        more = f"; {others} more line{'s' * (others > 1)} it cannot read" if others > 0 else ""
        said = f"line {skipped[0]}{why and ': '}{why}{more}" if skipped else "the file has none"
        raise HostKeyError(f"no public keys asyncssh can read ({said})")
    with _quiet_patterns():
        keys = asyncssh.import_authorized_keys("\n".join(good))
    return AuthorizedKeys(keys, len(good), tuple(skipped), why)


@contextmanager
def _quiet_patterns() -> Iterator[None]:
    """No warnings while asyncssh parses a file: it makes regular expressions of the file's PEM
    headers, and Python warns about some of those (``[[``: a possible set difference)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _why(e: Exception) -> str:
    """asyncssh's reason, escaped and cut: it may quote the file. A PEM header holding regular
    expression syntax (``-----BEGIN (PUBLIC KEY-----``) fails in its pattern (re.error).
    Nothing when asyncssh says only that the line holds no entry it reads: it says so of a
    real key with a comment that is not ASCII, or after a byte order mark, as of junk."""
    if isinstance(e, re.error):
        return "a malformed PEM header"
    if str(e) == "No valid entries found":
        return ""
    return shorten(str(e), 120)


def _unsaid(entry: str) -> str:
    """What asyncssh does not say of a line it reads no entry from: a real key may have a
    byte order mark before it, or a character that is not ASCII (in its comment: OpenSSH
    takes either); its holder would otherwise be kept out with no word of why."""
    if entry.startswith("\ufeff"):
        return "a byte order mark before it: save the file without one"
    odd = next((c for c in entry if not c.isascii()), None)
    if odd is None:
        return ""
    return f"it holds {describe_char(odd)}, and asyncssh reads no key whose comment is not ASCII"


def _read(path: Path, limit: int, what: str) -> bytes:
    try:
        return read_capped(path, limit)
    except TooLarge as e:
        raise HostKeyError(e.describe(what)) from None


def note_login_key(conn: asyncssh.SSHServerConnection, noted: Callable[[str], None]) -> None:
    """Call ``noted`` with the key ``conn`` logs in with, as the log names it: its SHA256
    fingerprint as ``ssh-keygen -l`` prints it, and its type. asyncssh keeps no record of which
    key of --authorized-keys it admitted: its check of each key offered, looked up on the
    connection, is wrapped (a key offered but not used, or refused, is not noted)."""
    validate = conn.validate_public_key

    async def validated(username: str, key_data: bytes, msg: bytes, signature: bytes) -> bool:
        admitted = await validate(username, key_data, msg, signature)
        if admitted and msg:  # signed, and the signature checked: this key logs in
            noted(_named(key_data))
        return admitted

    setattr(conn, "validate_public_key", validated)  # noqa: B010


def _named(key_data: bytes) -> str:
    """A public key or certificate as the log names it (no text of the client's: a type
    asyncssh knows, and a fingerprint)."""
    try:
        key = decode_ssh_public_key(key_data)
    except asyncssh.KeyImportError:
        key = decode_ssh_certificate(key_data).key  # a certificate: the key it certifies
        return f"{key.get_fingerprint()} ({key.get_algorithm()}, certified)"
    return f"{key.get_fingerprint()} ({key.get_algorithm()})"
