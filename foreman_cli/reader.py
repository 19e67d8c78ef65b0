"""Reading inputs: files, directories, stdin, gzip; one game object, a JSON array or JSON Lines."""

from __future__ import annotations

import codecs
import io
import json
import os
import stat
import re
import sys
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import msgspec

from .errors import InputError
from .words import shown_text

SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz", ".fmn")
DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024  # a 20-deal game is about 25 KB
CHUNK = 1 << 20
_WS = re.compile(r"[ \t\n\r]*")
BOM = b"\xef\xbb\xbf"
WIDE_MARKS = (b"\xff\xfe", b"\xfe\xff")  # how UTF-16 (and UTF-32) text begins, as some Windows tools save it


class RawRecord(msgspec.Struct):
    """One game's text as read, with where it starts; or a syntax problem found while reading."""

    source: str
    line: int
    text: str | None
    error: str | None = None  # the syntax problem, when the text could not be cut out
    column: int | None = None
    span: tuple[int, int] | None = None  # where the text lies in its file (offset, bytes): a load maps it
    notation: str | None = None  # a notation game's own lines: where a field was written is read from them again
    game_id: str | None = None  # a notation game's id when its text could not be read but its `game` line was

    @property
    def where(self) -> str:
        """'FILE:LINE', the file's name as output can hold it (words.shown_text)."""
        return f"{shown_text(self.source)}:{self.line}"


class Stdin(str):
    """Standard input, '-', to be read as `form` ('json' or 'fmn') instead of by its first line."""

    def __new__(cls, form: str) -> Stdin:
        path = super().__new__(cls, "-")
        path.form = form
        return path


class Unreadable(msgspec.Struct, frozen=True):
    """An entry of a folder that cannot be read as records: reported as such, and the run goes on."""

    path: str
    reason: str

    def record(self) -> RawRecord:
        """The entry as an unreadable record of its own (RECORD_SYNTAX, no line)."""
        return RawRecord(self.path, 0, None, error=f"{self.path} cannot be read: {self.reason}")


def expand(paths: Iterable[str]) -> list[str | Unreadable]:
    """Resolve paths: '-' stays, a folder becomes its record files in sorted order; an entry of it
    that cannot be read (a broken link, a FIFO, no permission) is an Unreadable in its place."""
    out: list[str | Unreadable] = []
    for p in paths:
        if p == "-":
            out.append(p)
            continue
        if not p:  # Path('') is the current folder: an empty shell variable would read it all
            raise InputError("'': an empty path names no file")
        path = Path(p)
        if path.is_dir():
            out.extend(_folder(p))
        elif path.exists():
            if not os.access(path, os.R_OK):
                raise InputError(f"{p}: permission denied")
            if not (path.is_file() or path.is_fifo()):  # a device named on the command line is never read
                raise InputError(f"{p}: not a file of records (a device or a socket)")
            out.append(p)
        else:
            raise InputError(f"{p}: no such file or directory")
    return out


def _folder(folder: str) -> list[str | Unreadable]:
    """A folder's record files, sorted; each entry that cannot be read as an Unreadable."""
    found: list[str | Unreadable] = []

    def unlistable(e: OSError) -> None:
        found.append(Unreadable(e.filename or folder, f"a folder that cannot be listed ({e.strerror or e})"))

    for root, dirs, files in os.walk(folder, onerror=unlistable):
        dirs.sort()
        for name in files:
            if name.endswith(SUFFIXES):
                found.append(_entry(os.path.join(root, name)))
    return sorted(found, key=lambda e: e.path if isinstance(e, Unreadable) else e)


def _entry(path: str) -> str | Unreadable:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return Unreadable(path, "a link to nothing")
    except OSError as e:
        return Unreadable(path, e.strerror or str(e))
    if not stat.S_ISREG(mode):
        return Unreadable(path, "not a regular file (a FIFO, device or socket in a folder is never opened)")
    if not os.access(path, os.R_OK):
        return Unreadable(path, "permission denied")
    return path


def read_records(paths: Iterable[str], max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
                 stdin: BinaryIO | None = None) -> Iterator[RawRecord]:
    """Yield every game's raw text (or syntax problem) from the given paths, in input order."""
    for p in expand(paths):
        if isinstance(p, Unreadable):
            yield p.record()
        elif p == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            stream = stream if hasattr(stream, "peek") else io.BufferedReader(stream)  # type: ignore[arg-type]
            yield from read_named(stream, "<stdin>", max_record_bytes, getattr(p, "form", None))
        else:
            try:
                f = open(p, "rb", buffering=CHUNK)  # fewer, larger reads: lines are ~25 kB
            except OSError as e:
                raise InputError(f"{p}: {e.strerror or e}") from None
            with f:
                yield from read_named(f, p, max_record_bytes)


def read_named(stream: io.BufferedReader, name: str, limit: int, form: str | None = None) -> Iterator[RawRecord]:
    """A file's records as its name says; an unknown name (evening.txt) or stdin by its first line, or by `form`."""
    if (mark := stream.peek(2)[:2]) in WIDE_MARKS:  # one error for the file, not one a line
        return iter([RawRecord(name, 1, None, error=f"UTF-16 text (it begins with {mark.hex(' ').upper()}); records "
                               "are UTF-8: save the file as UTF-8 (iconv -f UTF-16 -t UTF-8); it is not read")])
    if form is None and not name.endswith(SUFFIXES):
        form = "fmn" if is_notation(stream.peek(NOTATION_SNIFF)) else "json"
    if name.endswith(".fmn") or form == "fmn":
        return read_notation(stream, name, limit)
    return read_stream(stream, name, limit, lines=name.endswith((".jsonl", ".jsonl.gz")))


NOTATION_SNIFF = 64 << 10  # what standard input shows of itself before it is read as notation or JSON


def is_notation(head: bytes) -> bool:
    """Whether a stream beginning with `head` is notation: its first line not blank nor a comment is a 'game' line."""
    for line in head.removeprefix(BOM).splitlines():
        word = line.split(b"#", 1)[0].strip()
        if word:
            return word == b"game" or word.startswith((b"game ", b"game\t"))
    return False


def read_notation(stream: BinaryIO, name: str, limit: int) -> Iterator[RawRecord]:
    """The games of a `.fmn` stream, each its record's JSON text or its error (one beyond `limit` bytes)."""
    from .notation_stream import read_notation as games  # only for notation
    for g in games(stream, limit, TOO_LONG.format(limit=limit)):
        yield RawRecord(name, g.line, g.text, error=g.error, column=g.column, notation=g.game, game_id=g.id)


def read_stream(stream: BinaryIO, name: str, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
                lines: bool = False) -> Iterator[RawRecord]:
    """The records of one stream, gzip or plain, whatever its layout (`lines`: JSON Lines, whatever)."""
    buffered = stream if hasattr(stream, "peek") else io.BufferedReader(stream)  # type: ignore[arg-type]
    head = buffered.peek(2)[:2]
    src: BinaryIO = buffered
    corrupt: tuple[type[Exception], ...] = (EOFError, zlib.error)
    if head == b"\x1f\x8b":
        import gzip  # loaded for a gzip input only: start-up stays light
        corrupt = (gzip.BadGzipFile, *corrupt)
        damage = _gzip_damage(buffered, corrupt, name)
        if damage is not None:
            yield damage
            return
        src = gzip.GzipFile(fileobj=buffered, mode="rb")
    line = 0
    try:
        if src is not buffered and is_notation(src.peek(NOTATION_SNIFF)):  # one error, not one a line
            yield RawRecord(name, 1, None, error="gzip-compressed notation, not read: gunzip it, then give the .fmn")
            return
        for rec in read_layout(src, name, max_record_bytes, lines):
            line = rec.line
            yield rec
    except corrupt as e:
        yield RawRecord(name, line + 1 if line else 1, None,
                        error=f"corrupt or truncated gzip data ({e}); the rest of the file is not read")
    except OSError as e:
        raise InputError(f"{name}: {e.strerror or e}") from None


def _gzip_damage(buffered: BinaryIO, corrupt: tuple[type[Exception], ...], name: str) -> RawRecord | None:
    """The error for a gzip file whose own checks fail (its CRC and length, or an end before its end),
    found by reading it through once before any record is read; None for a whole file, or for a
    stream that cannot be read twice (a pipe), whose records before the damage are then read.
    A damaged byte can decode into other valid text, so no record of a damaged file is trusted."""
    import gzip
    if not buffered.seekable():
        return None
    start, lines = buffered.tell(), 0
    try:
        with gzip.GzipFile(fileobj=buffered, mode="rb") as whole:
            while chunk := whole.read(CHUNK):
                lines += chunk.count(b"\n")
    except corrupt as e:
        return RawRecord(name, 1, None, error=f"damaged gzip data ({e}; at least {lines} lines came whole before "
                         "it): the file fails its own check, so none of its records is read; 'gzip -dc' recovers the "
                         "text before the damage, to be read knowing that it is unchecked")
    finally:
        buffered.seek(start)
    return None


TOO_LONG = "the record is longer than {limit} bytes (--max-record-bytes); it is not read"


def read_layout(src: BinaryIO, name: str, limit: int, lines: bool = False, first_line: int = 1,
                 base: int | None = None) -> Iterator[RawRecord]:
    """The records of a stream; with `base` (JSON Lines only: src starts `base` bytes into its
    file), each with its span in the file."""
    lineno = first_line - 1
    first = not lines
    pushed: list[bytes] = []
    start = None
    while True:
        if base is not None:
            start = base + src.tell()  # nothing is ever pushed back in JSON Lines
        raw = pushed.pop() if pushed else src.readline(limit + 1)
        if not raw:
            return
        lineno += 1
        if lineno == 1 and raw.startswith(BOM):  # line 1 of the file, not of a chunk
            raw = raw[3:]
            if start is not None:
                start += 3
            if len(raw) == limit - 2 and not raw.endswith(b"\n"):
                raw += src.readline(3)  # the BOM is not the record's: its limit is for what follows
        if first and raw.lstrip()[:1] == b"[":
            # An array: its limit is per element, however long the line holding them.
            yield from _read_values(raw, src, name, lineno, limit)
            return
        if len(raw) > limit and not raw.endswith(b"\n"):
            yield _oversized(src, name, lineno, limit)
            continue
        body = raw.strip()
        if not body:
            continue
        if first:
            first = False
            multi_line = body[:1] == b"["
            if body[:1] == b"{" and not body.endswith(b"}"):
                # One object spread over lines, or a broken first line of JSON Lines: the next
                # non-blank line tells, since a JSON Lines record starts with '{' at column 1.
                ahead = [src.readline(limit + 1)]
                while ahead[-1] and not ahead[-1].strip():
                    ahead.append(src.readline(limit + 1))
                multi_line = not ahead[-1].startswith(b"{")
                if multi_line:
                    raw += b"".join(ahead)
                else:
                    pushed = ahead[::-1]
            if multi_line:
                yield from _read_values(raw, src, name, lineno, limit)
                return
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as e:
            yield _not_utf8(name, lineno, body, e)
            continue
        if start is None:
            yield RawRecord(name, lineno, text)
        else:  # the body starts at the line's first byte that is not white space
            yield RawRecord(name, lineno, text, span=(start + raw.find(body[:1]), len(body)))


def line_record(name: str, lineno: int, line: bytes, limit: int = DEFAULT_MAX_RECORD_BYTES) -> RawRecord | None:
    """One line of JSON Lines already cut elsewhere (Spark's text reader), as its bytes; None if
    blank. As `read_layout` reads a `.jsonl` line: a BOM on line 1 dropped, the byte limit, blank
    lines skipped, a byte that is not UTF-8 that line's problem; a record broken over several lines
    is one problem per line here."""
    if lineno == 1 and line.startswith(BOM):
        line = line[len(BOM):]
    if len(line) > limit:
        return RawRecord(name, lineno, None, error=TOO_LONG.format(limit=limit))
    body = line.strip()
    if not body:
        return None
    try:
        return RawRecord(name, lineno, body.decode("utf-8"))
    except UnicodeDecodeError as e:
        return _not_utf8(name, lineno, body, e)


def _not_utf8(name: str, lineno: int, body: bytes, e: UnicodeDecodeError) -> RawRecord:
    return RawRecord(name, lineno, None, column=e.start + 1, error=f"not UTF-8 text: byte {body[e.start]:#04x}")


def _oversized(src: BinaryIO, name: str, lineno: int, limit: int) -> RawRecord:
    while True:
        rest = src.readline(CHUNK)
        if not rest or rest.endswith(b"\n"):
            break
    return RawRecord(name, lineno, None, error=TOO_LONG.format(limit=limit))


class _TextWindow:
    """A window on a stream's decoded text, with line numbers for positions in it."""

    def __init__(self, first: bytes, src: BinaryIO, first_line: int) -> None:
        self.src = src
        self.dec = codecs.getincrementaldecoder("utf-8")("strict")
        self.buf = self.dec.decode(first)
        self.base_line = first_line  # line number of buf[0]
        self.eof = False

    def more(self, size: int = CHUNK) -> bool:
        if self.eof:
            return False
        data = self.src.read(size)
        if not data:
            self.eof = True
            self.buf += self.dec.decode(b"", final=True)
            return False
        self.buf += self.dec.decode(data)
        return True

    def line_col(self, pos: int) -> tuple[int, int]:
        line = self.base_line + self.buf.count("\n", 0, pos)
        return line, pos - (self.buf.rfind("\n", 0, pos) + 1) + 1

    def drop(self, pos: int) -> int:
        """Forget text before the line holding pos; return the new position."""
        cut = self.buf.rfind("\n", 0, pos) + 1
        if cut > CHUNK:
            self.base_line += self.buf.count("\n", 0, cut)
            self.buf = self.buf[cut:]
            return pos - cut
        return pos

    def skip_ws(self, pos: int) -> int:
        while True:
            pos = _WS.match(self.buf, pos).end()
            if pos < len(self.buf) or not self.more():
                return pos


_decoder = json.JSONDecoder()


def _json_msg(msg: str) -> str:
    # json's messages end with " at" before the position it appends itself ("... control character at").
    return msg.removesuffix(" at")


def _one_value(text: _TextWindow, start: int, name: str, limit: int,
               in_array: bool) -> tuple[int | RawRecord, int | None]:
    """Decode the value at `start`: (its end, None), or (the problem, where to go on or None to stop)."""
    size = CHUNK
    while True:
        try:
            return _decoder.raw_decode(text.buf, start)[1], None
        except RecursionError:
            line, col = text.line_col(start)
            return RawRecord(name, line, None, column=col, error="not JSON foreman can read: nested too deeply; "
                             "the rest of the file is not read"), None
        except json.JSONDecodeError as e:
            incomplete = e.pos >= len(text.buf) - 16 or e.msg.startswith("Unterminated string")
            if incomplete and len(text.buf) - start <= limit and text.more(size):
                size *= 2
                continue
            line, col = text.line_col(e.pos)
            msg = f"not JSON: {_json_msg(e.msg)}" if len(text.buf) - start <= limit else \
                f"the record is longer than {limit} bytes (--max-record-bytes)"
            if in_array:  # docs/format.md: inside an array a syntax error ends that array
                return RawRecord(name, line, None, error=f"{msg}; the rest of the JSON array is not read",
                                 column=col), None
            # Objects one after another: go on at the next line that starts a record after this
            # one's start (its broken text may have run on over good records: only it is lost).
            nxt = _next_record_line(text, start + 1)
            rest = "" if nxt is not None else "; nothing after it starts a record"
            return RawRecord(name, line, None, error=msg + rest, column=col), nxt


def _next_record_line(text: _TextWindow, pos: int) -> int | None:
    """The position of the next line that starts with '{' (a record), reading on as needed."""
    while True:
        at = text.buf.find("\n{", pos)
        if at >= 0:
            return at + 1
        pos = max(pos, len(text.buf) - 1)
        if not text.more():
            return None


def _read_values(first: bytes, src: BinaryIO, name: str, first_line: int, limit: int) -> Iterator[RawRecord]:
    """Cut top-level values (objects, or the elements of arrays) out of a stream, one at a time."""
    try:
        text = _TextWindow(first, src, first_line)
        pos = 0
        in_array = False
        while True:
            pos = text.drop(text.skip_ws(pos))
            if pos >= len(text.buf):
                if in_array:
                    line, col = text.line_col(pos)
                    yield RawRecord(name, line, None, error="the JSON array is not closed", column=col)
                return
            ch = text.buf[pos]
            if not in_array and ch == "[":
                in_array = True
                pos = text.skip_ws(pos + 1)
                if pos < len(text.buf) and text.buf[pos] == "]":
                    in_array = False
                    pos += 1
                continue
            start = pos
            end, resume = _one_value(text, start, name, limit, in_array)
            if isinstance(end, RawRecord):
                yield end
                if resume is None:
                    return
                pos = resume
                continue
            if end - start > limit:
                line, col = text.line_col(start)
                yield RawRecord(name, line, None, column=col,
                                error=f"the record is longer than {limit} bytes (--max-record-bytes); it is not read")
            else:
                yield RawRecord(name, text.line_col(start)[0], text.buf[start:end])
            pos = text.skip_ws(end)
            if in_array:
                if pos < len(text.buf) and text.buf[pos] == ",":
                    pos += 1
                elif pos < len(text.buf) and text.buf[pos] == "]":
                    in_array = False
                    pos += 1
                else:
                    line, col = text.line_col(pos)
                    got = repr(text.buf[pos]) if pos < len(text.buf) else "the end of the file"
                    error = f"not JSON: expected ',' or ']' in the array, got {got}; the rest of the array is not read"
                    yield RawRecord(name, line, None, column=col, error=error)
                    return
    except UnicodeDecodeError as e:
        yield RawRecord(name, first_line, None, error=f"not UTF-8 text ({e.reason}); the rest of the file is not read")
