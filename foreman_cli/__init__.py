"""foreman: audit, settle and query records of the trick-taking game Foreman."""

__version__ = "0.1.0"
