"""The scorer's journal: a `.fmn` file written a line at a time, each line on disk before it is acknowledged."""

from __future__ import annotations

import io
import os
from pathlib import Path

from .errors import InputError, OutputError, UsageError
from .files import refuse_a_folder_or_a_missing_one, write_atomically


class Journal:
    """The lines of one notation file. `append` writes a line and forces it to disk (fsync) before
    returning, so a line the scorer has acknowledged survives a killed process or a power cut;
    `take_back` removes the last line that says something by rewriting the file atomically."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.repaired: str | None = None  # what opening the file had to drop, in words
        self._held = None  # the open file whose lock says this scorer keeps it
        _refuse_a_json_name(self.path)
        refuse_a_folder_or_a_missing_one(self.path)
        self._held = self._hold()
        try:
            self.lines = self._read()
        except BaseException:
            self.close()
            raise

    def _hold(self):
        """Lock the file against a second scorer before reading it: two writing it at once would
        lose each other's lines (an `undo` rewrites it from one scorer's lines). The file locked
        must still be the one at the path: an undo may have put a new one there meanwhile."""
        try:
            import fcntl
        except ImportError:  # no flock here: the table keeps to one scorer
            return None
        while True:
            try:
                held = open(self.path, "rb")
            except FileNotFoundError:
                self._create()
                continue
            except OSError as e:
                raise InputError(f"{self.path}: {e.strerror or e}") from None
            _lock(held, self.path)
            now = _identity(self.path)
            if now == _identity(held.fileno()):
                return held
            held.close()  # replaced (or removed) between the open and the lock: lock the file there now

    def close(self) -> None:
        """Let another scorer keep the file."""
        if self._held is not None:
            self._held.close()
            self._held = None

    def _read(self) -> list[str]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            self._create()
            return []
        except OSError as e:
            raise InputError(f"{self.path}: {e.strerror or e}") from None
        try:
            text = data.rstrip(b"\0").decode("utf-8-sig")  # a power cut may leave zeros past the last write
        except UnicodeDecodeError as e:
            raise InputError(f"{self.path}: not UTF-8 text (byte {e.start})",
                             "foreman record keeps its journal in .fmn notation, UTF-8") from None
        from .reader import is_notation
        lines = [line.rstrip("\n") for line in io.StringIO(text, newline=None)]  # line ends as a file read
        if not is_notation(data) and any(not _is_comment(line) for line in lines):  # a file of JSON, say
            raise InputError(f"{self.path}: not a notation file: its first line that says something is not a "
                             "'game' line; nothing in it was changed",
                             "give a new file name, or make one from these records: foreman convert FILE -o NEW.fmn")
        if text and not text.endswith("\n"):
            self._repair(lines)
        return lines

    def _repair(self, lines: list[str]) -> None:
        """Finish a last line written without its newline: a line the scorer wrote but a crash cut
        short is dropped when it no longer reads as a whole trick; a line an editor left without a
        newline is kept."""
        from .notation import KEYWORDS, NotationError, tokens
        last = lines[-1]
        try:
            words = [t for t in tokens(last) if not t.text.endswith((".", ":"))]
            cut = bool(words) and words[0].text not in KEYWORDS and len(words) < 3
        except NotationError:
            cut = True
        if cut:
            lines.pop()
            self.repaired = f"the last line was cut short when the file was last written ({last.strip()!r}): dropped"
        self._rewrite(lines)

    def _create(self) -> None:
        try:
            self.path.touch()
        except OSError as e:
            raise OutputError(f"{self.path}: {e.strerror or e}") from None
        _sync_folder(self.path)

    def append(self, line: str) -> None:
        """Write one line at the end and force it to disk."""
        try:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            raise OutputError(f"{self.path}: {e.strerror or e} (the line {line!r} was not kept)") from None
        self.lines.append(line)

    def take_back(self) -> str | None:
        """Remove the last line that is not blank nor a comment (and anything after it); the line, or None."""
        from .notation import NotationError, tokens
        for i in range(len(self.lines) - 1, -1, -1):
            try:
                said = bool(tokens(self.lines[i]))
            except NotationError:
                said = True
            if said:
                line = self.lines[i]
                self._rewrite(self.lines[:i])
                return line
        return None

    def _rewrite(self, lines: list[str]) -> None:
        text = "".join(f"{line}\n" for line in lines)
        fresh = []

        def fill(temporary: str) -> None:
            with open(temporary, "w", encoding="utf-8") as f:
                f.write(text)
            if self._held is not None:  # locked before it takes the file's name: never a moment unlocked
                fresh.append(open(temporary, "rb"))
                _lock(fresh[0], self.path)

        try:
            write_atomically(self.path, fill)
        except BaseException:
            for f in fresh:
                f.close()
            raise
        _sync_folder(self.path)
        self.lines = list(lines)
        if fresh:
            self._held.close()
            self._held = fresh[0]


def _refuse_a_json_name(path: Path) -> None:
    if path.name.endswith((".json", ".jsonl", ".gz")):  # foreman would read it back as JSON, or as gzip
        said = "a compressed file (.gz)" if path.name.endswith(".gz") else "one foreman reads as JSON"
        raise UsageError(f"{path}: foreman record keeps a plain notation file, and this name is {said}",
                         hint=f"name it {path.name.split('.')[0] or 'evening'}.fmn")


def _lock(held, path: Path) -> None:
    """Lock an open file for this scorer, or say who keeps it."""
    import fcntl
    try:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        held.close()
        raise InputError(f"{path} is being kept by another foreman record",
                         "one scorer at a time: finish the other (quit or Ctrl-D), then go on here") from None


def _identity(file: Path | int) -> tuple[int, int] | None:
    """The device and inode of a path or an open file; None when the path is gone."""
    try:
        st = os.stat(file)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def _is_comment(line: str) -> bool:
    return not line.split("#", 1)[0].strip()


def _sync_folder(path: Path) -> None:
    """Force the folder's entry for `path` (a new file, a rename) to disk; not every system can."""
    try:
        fd = os.open(path.parent if str(path.parent) else ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
