"""Whether a repeated game's two records say the same: their JSON values, read again from their files."""

from __future__ import annotations

import os
from hashlib import sha256

import msgspec

from .reader import DEFAULT_MAX_RECORD_BYTES, read_records


def record_digest(text: str) -> bytes:
    """What two copies of a record share when they say the same: a hash of its JSON value written
    with sorted keys and no spaces, its `format` aside (notation gives a game the lowest format that
    holds it, whatever its JSON said); of its text when it is not JSON."""
    try:
        value = msgspec.json.decode(text)
        if isinstance(value, dict):
            value.pop("format", None)
        data = msgspec.json.encode(value, order="sorted")
    except (ValueError, UnicodeError):  # not JSON (msgspec's DecodeError is a ValueError), a lone surrogate
        data = text.encode("utf-8", "surrogatepass")
    return sha256(data).digest()[:16]


class RecordsReadAgain:
    """The digest of each record of a file, by where it was read ('FILE:LINE'), made the first
    time a repeat needs one of them. Byte hashes tell most repeats apart at no cost; this is for
    the copies whose texts differ (a game kept as JSON and as its notation, or re-indented), and
    costs one more reading of each file that holds such a copy."""

    def __init__(self, limit: int = DEFAULT_MAX_RECORD_BYTES) -> None:
        self.limit = limit  # a record's bytes, as the first reading allowed (--max-record-bytes)
        self.files: dict[str, dict[str, bytes | None]] = {}

    def same_record(self, first: str, where: str, text: str | None = None) -> bool | None:
        """True when the records read at `first` and at `where` (its text, if still held) are one
        record written two ways; False when they differ; None when either cannot be read again
        (standard input, a pipe, a file changed since, a record without JSON text)."""
        one = self.digest(first)
        other = self.digest(where, text) if one is not None else None
        return None if other is None else one == other

    def digest(self, where: str, text: str | None = None) -> bytes | None:
        """The digest of the record read at `where` (of `text`, when it is still held)."""
        if text is not None:
            return record_digest(text)
        path = where.rpartition(":")[0]
        if path not in self.files:
            self.files[path] = _digests(path, self.limit)
        return self.files[path].get(where)


def _digests(path: str, limit: int) -> dict[str, bytes | None]:
    """The digest of every record of the file at `path` by where it was read; none when it is no
    regular file (standard input is '-', a pipe reads once)."""
    if path == "-" or not os.path.isfile(path):
        return {}
    return {raw.where: None if raw.text is None else record_digest(raw.text) for raw in read_records([path], limit)}
