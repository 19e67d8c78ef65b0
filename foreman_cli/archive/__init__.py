"""The DuckDB archive: its schema, loads, read-only queries, reports and export, as plain calls."""

from .export import export_parquet
from .loading import TRANSACTION_GAMES, LoadReport, archive_rows, load, load_paths
from .sql import QueryResult, bounded_query_process, open_query, query, read_archive
from .schema import ANALYSIS_TABLES, DEFAULT_DB, STORED, TABLES, connect, counts, db_path
from .staging import code_column, deal_codes, finding_row
from .reports import Stats, dealt_hands, ratings, stats, won_games

__all__ = ["ANALYSIS_TABLES", "DEFAULT_DB", "STORED", "TABLES", "TRANSACTION_GAMES", "LoadReport", "QueryResult", "Stats", "archive_rows",
           "bounded_query_process", "code_column", "connect", "counts", "db_path", "deal_codes", "dealt_hands",
           "export_parquet", "finding_row", "load", "load_paths", "open_query", "query", "ratings", "read_archive", "stats", "won_games"]
