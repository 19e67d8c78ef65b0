"""Whether a repeated game's two records say the same: their canonical JSON, read again from their files."""

from __future__ import annotations

import os

from .certificate import record_hash
from .reader import read_records


class RecordsReadAgain:
    """The canonical hash of each record of a file, by where it was read ('FILE:LINE'), made the
    first time a repeat needs one of them. Byte hashes tell most repeats apart at no cost; this
    is for the copies whose texts differ (a game kept as JSON and as its notation, or re-indented),
    and costs one more reading of each file that holds such a copy."""

    def __init__(self) -> None:
        self.files: dict[str, dict[str, str | None]] = {}

    def same_record(self, first: str, where: str, text: str | None = None) -> bool | None:
        """True when the records read at `first` and at `where` (its text, if still held) are one
        record written two ways; False when they differ; None when either cannot be read again
        (standard input, a pipe, a file changed since, a record without JSON text)."""
        one = self.canonical_hash(first)
        other = self.canonical_hash(where, text) if one is not None else None
        return None if other is None else one == other

    def canonical_hash(self, where: str, text: str | None = None) -> str | None:
        """The canonical hash of the record read at `where` (of `text`, when it is still held)."""
        if text is not None:
            return record_hash(text)
        path = where.rpartition(":")[0]
        if path not in self.files:
            self.files[path] = _hashes(path)
        return self.files[path].get(where)


def _hashes(path: str) -> dict[str, str | None]:
    """The canonical hash of every record of the file at `path` by where it was read; none when
    it is no regular file (standard input is '-', a pipe reads once)."""
    if path == "-" or not os.path.isfile(path):
        return {}
    return {raw.where: None if raw.text is None else record_hash(raw.text) for raw in read_records([path])}
