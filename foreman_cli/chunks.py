"""Plain JSON Lines files cut into chunks of whole lines for the workers of `--jobs`, and the file
maps a load takes their records' text from."""

from __future__ import annotations

import io
import mmap
import os
from collections.abc import Iterator

import msgspec

from .errors import InputError
from .reader import BOM, DEFAULT_MAX_RECORD_BYTES, TOO_LONG, WIDE_MARKS, RawRecord, read_layout

WORKER_CHUNK = 4 << 20  # what a worker of `--jobs` reads at a time: the hand-over is per chunk


class LineChunk(msgspec.Struct):
    """Whole lines of a JSON Lines file, found by the reading process for a worker to read itself."""

    source: str
    first_line: int  # the line number of its first line in the file
    offset: int
    size: int
    limit: int
    seen: FileSeen | None = None  # the file as `records` found it

    def records(self, spans: bool = False) -> Iterator[RawRecord]:
        """The chunk's records as `read_records` gives them; `spans`: with where each lies in the file."""
        with open(self.source, "rb") as f:
            if spans:
                self.seen = FileSeen.of(f.fileno())
            f.seek(self.offset)
            data = f.read(self.size)
        return read_layout(io.BytesIO(data), self.source, self.limit, lines=True, first_line=self.first_line,
                            base=self.offset if spans else None)


class FileSeen(msgspec.Struct, frozen=True):
    """What a file was when read (device, inode, size, mtime): a file that differs later was changed."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, fd: int) -> FileSeen:
        """The open file as it is now."""
        st = os.fstat(fd)
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class FileMap:
    """A read-only map of the input file whose records' text a load takes where it lies (ChunkText),
    one file at a time: the files of a load come one after the other. It refuses a file that is no
    longer what the worker that read the records saw, so the text stored is the text replayed."""

    def __init__(self) -> None:
        self.source: str | None = None
        self.seen: FileSeen | None = None
        self.map: mmap.mmap | None = None
        self._fd = -1

    def text(self, source: str, seen: FileSeen) -> mmap.mmap:
        """The map of `source`, checked against `seen` (InputError if the file changed)."""
        if source != self.source:
            self.close()
            try:
                fd = os.open(source, os.O_RDONLY)
            except OSError as e:
                raise InputError(f"{source}: {e.strerror or e}") from None
            self._fd, self.source, self.seen = fd, source, FileSeen.of(fd)
            self.map = mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if self.seen.size else None
        self.check(seen)
        assert self.map is not None  # a file with records in it is not empty
        return self.map

    def check(self, seen: FileSeen) -> None:
        """InputError unless the mapped file is still what `seen` says (and what it was when mapped)."""
        now = FileSeen.of(self._fd)
        if now != seen or now != self.seen:
            was = seen if now == self.seen else self.seen
            raise InputError(f"{self.source}: the file changed while it was being loaded (it was {was.size:,} bytes "
                             f"modified {_when(was.mtime_ns)}, it is {now.size:,} bytes modified {_when(now.mtime_ns)}); "
                             "the games of the transactions committed before are kept",
                             hint="load a copy of it, or load it once nothing writes to it")

    def release(self, start: int, end: int) -> None:
        """Give back the pages of bytes start..end, once read: the file's pages are the system's to keep."""
        if self.map is None or not hasattr(self.map, "madvise"):
            return
        start -= start % mmap.PAGESIZE
        end = min(end + -end % mmap.PAGESIZE, len(self.map))
        if end > start:
            self.map.madvise(mmap.MADV_DONTNEED, start, end - start)

    def close(self) -> None:
        """Unmap and close the file, if one is open."""
        if self.map is not None:
            try:
                self.map.close()
            except BufferError:
                pass  # a view of it is still alive: the map goes when the view does
            self.map = None
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self.source = self.seen = None


def _when(ns: int) -> str:
    from datetime import datetime, timezone
    return datetime.fromtimestamp(ns / 1e9, timezone.utc).isoformat(sep=" ", timespec="microseconds")


class ChunkText(msgspec.Struct, frozen=True):
    """Where the records of a chunk lie in their file, record by record (RawRecord.span), and the
    file as the chunk was read: what a load needs to take their text from the file itself."""

    source: str
    seen: FileSeen
    spans: list[tuple[int, int] | None]


def line_chunks(path: str, limit: int = DEFAULT_MAX_RECORD_BYTES,
                size: int | None = None) -> Iterator[LineChunk | RawRecord]:
    """A plain JSON Lines file as chunks of about `size` bytes of whole lines, which the workers of
    `--jobs` read themselves: the reading process only finds the cuts and counts the lines through
    a memory map. A line too long to read that runs over a cut comes as its record, so no chunk is
    much longer than `size` (WORKER_CHUNK). Near the end of the file the chunks shrink to a share
    of what is left (TAIL_SHARE, down to TAIL_SMALLEST): the workers then end close together."""
    from . import core
    count = core.count_lines or count_lines
    size = size or WORKER_CHUNK
    try:
        f = open(path, "rb")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    with f:
        file_size = os.fstat(f.fileno()).st_size
        if file_size == 0:
            return
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            pos, line, released = 0, 1, 0
            while pos < file_size:
                cut = min(pos + _step(size, file_size, pos), file_size)
                nl = mm.find(b"\n", cut - 1)
                end = file_size if nl < 0 else nl + 1
                start = mm.rfind(b"\n", pos, cut - 1) + 1 or pos  # where the line over the cut starts
                bom = 3 if start == 0 and mm[:3] == BOM else 0
                if end - start - (mm[end - 1] == 10) - bom > limit:
                    if start > pos:
                        yield LineChunk(path, line, pos, start - pos, limit)
                        line += count(mm, pos, start)
                    yield RawRecord(path, line, None, error=TOO_LONG.format(limit=limit))
                    line += 1
                else:
                    yield LineChunk(path, line, pos, end - pos, limit)
                    line += count(mm, pos, end)
                pos = end
                # The pages counted are the workers' to read now: keep them out of this process's size.
                done = pos - pos % mmap.PAGESIZE
                if done > released and hasattr(mm, "madvise"):  # not on every platform
                    mm.madvise(mmap.MADV_DONTNEED, released, done - released)
                    released = done


def _step(size: int, total: int, pos: int) -> int:
    """The bytes of the next chunk at `pos` of a file of `total`: `size`, or near the end less."""
    if total <= size:
        return size  # one chunk: read in one process, sooner than a pool would start
    return max(min(size, (total - pos) // TAIL_SHARE), size // TAIL_SMALLEST, 1)


# Guided self-scheduling (Polychronopoulos and Kuck, 1987): smaller chunks near the end, so that no
# worker waits long for the other's last one.
TAIL_SHARE = 4  # of what is left, the next chunk's share
TAIL_SMALLEST = 8  # the smallest chunk, a part of `size`: 512 KiB of 4 MiB


def count_lines(buf, start: int, end: int) -> int:
    """The newlines in buf[start:end] (the compiled core counts them without the copy)."""
    return buf[start:end].count(b"\n")




def is_plain_lines(path: str) -> bool:
    """A `.jsonl` file that is not gzip data: one that `line_chunks` can cut."""
    if path == "-" or not path.endswith(".jsonl"):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(2) not in (b"\x1f\x8b", *WIDE_MARKS)
    except OSError:
        return False  # read_records says why
