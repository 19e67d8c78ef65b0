"""Export of an archive's tables to Parquet files."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ..errors import DatabaseError, OutputError
from ..files import write_atomically
from .schema import TABLES
from .sql import read_archive

EXPORT_ROWS = 65536  # rows a batch while exporting: memory stays flat whatever a table's size


def export_parquet(path: str, out_dir: str) -> dict[str, int]:
    """Write every table as a Parquet dataset, DIR/<table>/data.parquet; return rows per table.

    The archive is read sandboxed (read_archive), so DuckDB itself writes no file: the rows come
    out as Arrow batches and pyarrow writes each file, whole or not at all."""
    if Path(out_dir).exists() and not Path(out_dir).is_dir():
        raise OutputError(f"--parquet {out_dir}: a file, not a folder",
                          hint="name a folder (new or not) to write each table into as DIR/<table>/data.parquet")
    _refuse_other_parquet(Path(out_dir))
    con = read_archive(path)
    rows = {}
    try:
        for name in TABLES:
            folder = Path(out_dir) / name
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise OutputError(f"{folder}: {e.strerror or e}") from None
            write_atomically(folder / "data.parquet", lambda temporary, table=name: rows.update(
                {table: _write_parquet(con, table, temporary)}))
    except duckdb.Error as e:
        raise DatabaseError(f"export failed: {str(e).splitlines()[0]}") from None
    finally:
        con.close()
    return rows


def _refuse_other_parquet(out_dir: Path) -> None:
    """Refuse, before a file is written, a table's folder holding Parquet files of another writer (a
    Spark job's parts, say): whoever reads the folder as a dataset would read both and count twice."""
    for name in TABLES:
        folder = out_dir / name
        others = sorted(p.name for p in folder.glob("*.parquet") if p.name != "data.parquet") if folder.is_dir() else []
        if others:
            shown = ", ".join(others[:3]) + (f" and {len(others) - 3:,} more" if len(others) > 3 else "")
            raise OutputError(f"--parquet {out_dir}: {folder} holds {shown}, which foreman does not write: a reader "
                              f"of the folder would read it with the table's data.parquet; nothing was written",
                              hint="export into a new folder, or remove the other files first")


def _write_parquet(con: duckdb.DuckDBPyConnection, table: str, target: str) -> int:
    """One table's rows into a Parquet file, batch by batch; how many rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    count = 0
    # Opened by Python, which takes any bytes of a name; pyarrow takes a path as UTF-8 text only.
    with con.sql(f"SELECT * FROM {table}").to_arrow_reader(batch_size=EXPORT_ROWS) as reader, \
            open(target, "wb") as sink, pq.ParquetWriter(sink, _plain_schema(reader.schema)) as writer:
        plain = writer.schema
        for batch in reader:
            writer.write_batch(pa.RecordBatch.from_arrays(
                [c.cast(c.type.storage_type) if isinstance(c.type, pa.ExtensionType) else c for c in batch.columns],
                schema=plain))
            count += batch.num_rows
    return count


def _plain_schema(schema):
    """JSON columns come as an Arrow extension type: Parquet and its readers see the text."""
    import pyarrow as pa
    return pa.schema([f.with_type(f.type.storage_type) if isinstance(f.type, pa.ExtensionType) else f for f in schema])
