"""Files foreman writes: whole or not at all, and never over what the command reads or an archive."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import OutputError, UsageError


def write_atomically(path: str | Path, fill: Callable[[str], None], inputs: Iterable[str] = ()) -> None:
    """Have `fill(temporary path)` write the file beside `path`, flushed to disk, then rename it
    into place. On any failure (a full disk, an interrupt) the temporary file is removed and
    whatever was at `path` before is untouched. Never over one of `inputs` or an archive."""
    refuse_writing_over(path, inputs)
    refuse_a_folder_or_a_missing_one(path)
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


def refuse_a_folder_or_a_missing_one(path: str | Path) -> None:
    """Refuse, in words, a path naming a folder or in a folder that is not there: nothing is written."""
    if not str(path):
        raise OutputError("'': an empty name names no file; nothing was written", "give the path of a file to write")
    if Path(path).is_dir():
        raise OutputError(f"{path}: a folder, not a file; nothing was written",
                          "give the path of a file to write (in that folder, say)")
    if not Path(path).parent.is_dir():
        raise OutputError(f"{path}: there is no folder {Path(path).parent}; nothing was written",
                          "make the folder first, or give a file in one that exists")


def refuse_writing_over(path: str | Path, inputs: Iterable[str]) -> None:
    """Refuse an output that would replace one of the command's inputs (a record file, the archive),
    or any DuckDB archive: `report x.json -o x.json` or `--html club.duckdb` would destroy it."""
    target = Path(path)
    if not target.is_file():
        return
    from .reader import SUFFIXES
    for given in inputs:
        try:
            same = given != "-" and os.path.samefile(target, given)
            # a record file in a folder read as input is an input too
            same = same or (os.path.isdir(given) and target.name.endswith(SUFFIXES)
                            and target.resolve().is_relative_to(Path(given).resolve()))
        except OSError:
            continue
        if same:
            raise UsageError(f"{path}: this is one of the command's inputs; writing there would replace it",
                             hint="give the output another name")
    try:
        with open(target, "rb") as f:
            archive = f.read(12)[8:] == b"DUCK"
    except OSError:
        return  # the write says why, if it cannot be made
    if archive:
        raise UsageError(f"{path}: a DuckDB archive is there; writing would replace it",
                         hint="give the output another name")


def _umask() -> int:
    """The process's umask, read where the system tells it without changing it (Linux), else set and put back."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1], 8) for line in f if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError):
        mask = os.umask(0o22)
        os.umask(mask)
        return mask


def write_text_atomically(path: str | Path, text: str, inputs: Iterable[str] = ()) -> None:
    """A text file (UTF-8) written whole or not at all."""
    def fill(temporary: str) -> None:
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(text)
    write_atomically(path, fill, inputs)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
