"""The ForemanError hierarchy: failures of the program's environment, never of a record."""

from __future__ import annotations


class ForemanError(Exception):
    """A failure the user can act on: a one-line message, a hint and an exit code."""

    exit_code = 2
    hint = ""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if hint is not None:
            self.hint = hint


class UsageError(ForemanError):
    """A command-line argument or option that cannot be used."""

    hint = "see 'foreman --help'"


class InputError(ForemanError):
    """An input path that cannot be opened or read."""

    hint = "check the path; '-' reads standard input"


class DatabaseError(ForemanError):
    """A database that cannot be opened, is in use, or refused a statement."""

    hint = "see 'foreman load --help'"


class OutputError(ForemanError):
    """An output file or folder that cannot be written."""

    hint = "check the output path and its permissions"
