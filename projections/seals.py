"""Seals on the read model's checkpoint files (issue 28): a checkpoint file is used only if the
reader that wrote it vouches for it.

A checkpoint file (`VIEW.db.checkpoints/POSITION.db`) lies in the server's folder, where anyone
who can write there can replace it with a model of their making; an as-known-at read caught up
from such a file would answer what the file says. So the reader that writes a checkpoint seals
it: an HMAC-SHA256, under a secret kept in the reader's keyring folder (outside the server's
folder, `ledger.evidence.signing.keyring_path`; made on first use, mode 0600), over the SHA-256
of the file's bytes, the ledger's identity, the position, the chain link at that position and the
model's kind (its rules family and what-if) and layout, stored beside it (`POSITION.db.seal`).
A read copies the file, hashing the bytes it copies (what it checks is what it opens: a file
changed after the check is not the one read), re-reads the link from the chain, and uses the
copy only if the seal matches; otherwise one warning line names the file and the read falls
back to an older good checkpoint, or to the verified log from the start.
A reader without the secret (an auditor's machine) replays from the log.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from ledger.evidence.reads import link_at
from ledger.evidence.signing import keyring_path
from ledger.reading import Readable, ledger_id
from projections import SCHEMA_VERSION

SECRET = "checkpoint-seals.secret"  # in the keyring folder, beside the actors' NAME.key files
SECRET_BYTES = 32
CHUNK = 1 << 20  # bytes read and written at a time while a checkpoint file is copied
SEAL = "ratings-ledger checkpoint seal 1"
Sealer = Callable[[Path, Path], None]
"""Seals a checkpoint: (the file written, the checkpoint's name) -> None (`Seals.sealer`)."""


def warn(line: str) -> None:
    """One warning line on standard error (the CLI's and the web server's)."""
    print(f"warning: {line}", file=sys.stderr)


def seal_file(checkpoint: Path) -> Path:
    """Where the seal of `checkpoint` is kept: beside it, `POSITION.db.seal`."""
    return checkpoint.with_name(checkpoint.name + ".seal")


class Seals:
    """The seals of one ledger's checkpoint files, under this reader's secret."""

    def __init__(
        self,
        ledger: Readable,
        keyring: Path | str | None = None,
        report: Callable[[str], None] = warn,
    ) -> None:
        self.ledger = ledger
        self.secret_file = keyring_path(keyring) / SECRET
        self.report = report

    def sealer(self, position: int, model: str) -> Sealer:
        """What seals the checkpoint file of `position` of a read model of kind `model`
        (`View.kind`), the ledger's part of the seal (its identity, the link at `position`)
        read now, in the caller's thread: a function of the file written (complete, under its
        temporary name) and the checkpoint's name, which writes the seal of that name from the
        written file's bytes (the secret made if this reader has none); OSError if it cannot
        (the copy is then dropped: never linked in unsealed)."""
        where = self._where(position)

        def seal(written: Path, checkpoint: Path) -> None:
            key = self._secret(create=True)
            if key is None:
                raise OSError(0, f"{self.secret_file} is not a checkpoint seal secret")
            said = self._mac(key, _digest(written), position, model, where)
            temporary = checkpoint.with_name(temporary_name(seal_file(checkpoint).name))
            temporary.write_text(said + "\n")
            os.replace(temporary, seal_file(checkpoint))

        return seal

    def restore(self, found: Sequence[tuple[int, Path]], target: Path, model: str) -> int:
        """The newest of `found` (position, checkpoint file of a model of kind `model`), newest
        first, whose seal matches, copied to `target`; its position, or 0 if none does (each
        refused in one line)."""
        if not found:
            return 0
        key = self._secret(create=False)
        if key is None:
            self.report(
                f"checkpoint file {found[0][1]} cannot be checked: this reader has no "
                f"checkpoint seal secret ({self.secret_file}): not used, read from the log"
            )
            return 0
        for position, checkpoint in found:
            why = self._copy_checked(key, (checkpoint, position, model), target)
            if why is None:
                return position
            target.unlink(missing_ok=True)
            self.report(f"checkpoint file {checkpoint} {why}: not used")
        return 0

    def refused(self, found: Sequence[tuple[int, Path]], model: str) -> list[str] | None:
        """Why each of `found` (position, checkpoint file of a model of kind `model`) that a
        read would refuse is refused, a line each; None if this reader cannot tell (it holds
        no secret)."""
        key = self._secret(create=False)
        if key is None:
            return None
        whys = ((f, self._copy_checked(key, (f, p, model), None)) for p, f in found)
        return [f"checkpoint file {f} {why}" for f, why in whys if why is not None]

    def _copy_checked(
        self, key: bytes, file: tuple[Path, int, str], target: Path | None
    ) -> str | None:
        """Copy the checkpoint `file` (its path, position and model kind) to `target` (None:
        nowhere), hashing what is copied; None if the seal matches."""
        checkpoint, position, model = file
        try:
            said = seal_file(checkpoint).read_text().strip()
        except OSError:
            return "has no seal"
        except ValueError:
            return "does not match its seal"
        try:
            digest = _digest(checkpoint, target)
        except OSError as exc:
            return f"cannot be read ({exc.strerror})"
        if not hmac.compare_digest(said, self._mac(key, digest, position, model)):
            return "does not match its seal"
        return None

    def _where(self, position: int) -> tuple[str | None, str | None]:
        """What a seal names of the ledger: its identity and the chain link at `position`."""
        return ledger_id(self.ledger), link_at(self.ledger, position)

    def _mac(
        self,
        key: bytes,
        digest: bytes,
        position: int,
        model: str,
        where: tuple[str | None, str | None] | None = None,
    ) -> str:
        """The seal of a file with SHA-256 `digest`, checkpointed at `position` of this ledger
        (`where`, read now if not given) by a read model of kind `model` in this layout
        (SCHEMA_VERSION)."""
        ledger, link = where or self._where(position)
        message = [SEAL, digest.hex(), ledger, position, model, SCHEMA_VERSION, link]
        text = json.dumps(message, separators=(",", ":")).encode()
        return hmac.new(key, text, hashlib.sha256).hexdigest()

    def _secret(self, create: bool) -> bytes | None:
        """This reader's secret: read, or (with `create`) made once, mode 0600."""
        try:
            key = self.secret_file.read_bytes()
        except FileNotFoundError:
            if not create:
                return None
            self._make_secret()
            key = self.secret_file.read_bytes()
        except OSError:
            if not create:
                return None  # unreadable here: as good as none, the read replays the log
            raise
        return key if len(key) == SECRET_BYTES else None

    def _make_secret(self) -> None:
        """Write a new secret whole, then link it in (never over one another reader made)."""
        self.secret_file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = self.secret_file.with_name(f".{SECRET}.{os.getpid()}.{secrets.token_hex(4)}")
        try:
            with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
                out.write(secrets.token_bytes(SECRET_BYTES))
                out.flush()
                os.fsync(out.fileno())
            os.link(temporary, self.secret_file)
        except FileExistsError:
            pass  # another reader made it meanwhile: theirs is the secret
        finally:
            temporary.unlink(missing_ok=True)


def temporary_name(name: str) -> str:
    """A temporary name for a file `name` of the checkpoints' folder, this process's own
    (`NAME.PID.HEX.tmp`: removed by a later copy once its process is gone)."""
    return f"{name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"


def drop_abandoned(folder: Path) -> None:
    """Remove the temporary files of copies whose process is gone (killed mid-copy)."""
    for f in folder.glob("*.tmp"):
        parts = f.name.split(".")  # NAME.PID.HEX.tmp (another name: left alone)
        if len(parts) > 3 and parts[-3].isdigit() and not _alive(int(parts[-3])):
            f.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether process `pid` runs (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _digest(path: Path, target: Path | None = None) -> bytes:
    """SHA-256 of the file at `path`, copied to `target` as it is read (what is hashed is
    what is copied)."""
    h = hashlib.sha256()
    with open(path, "rb") as source, open(target or os.devnull, "wb") as out:
        while chunk := source.read(CHUNK):
            h.update(chunk)
            out.write(chunk)
    return h.digest()
