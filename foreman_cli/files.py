"""Files foreman writes: whole or not at all, never a half-written file in place of a good one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from .errors import OutputError


def write_atomically(path: str | Path, fill: Callable[[str], None]) -> None:
    """Have `fill(temporary path)` write the file beside `path`, flushed to disk, then rename it
    into place. On any failure (a full disk, an interrupt) the temporary file is removed and
    whatever was at `path` before is untouched."""
    target = Path(path)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent or ".")
        os.close(fd)
    except OSError as e:
        raise OutputError(f"{path}: {e.strerror or e}") from None
    try:
        fill(temporary)
        with open(temporary, "rb+") as f:
            os.fsync(f.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # what a file opened for writing would have had, not mkstemp's 0600
        os.replace(temporary, target)
    except OSError as e:
        _remove(temporary)
        raise OutputError(f"{path}: {e.strerror or e} (nothing was written; the file there before is untouched)") \
            from None
    except BaseException:
        _remove(temporary)
        raise


def _umask() -> int:
    """The process's umask, read where the system tells it without changing it (Linux), else set and put back."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1], 8) for line in f if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError):
        mask = os.umask(0o22)
        os.umask(mask)
        return mask


def write_text_atomically(path: str | Path, text: str) -> None:
    """A text file (UTF-8) written whole or not at all."""
    def fill(temporary: str) -> None:
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(text)
    write_atomically(path, fill)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
