"""The command group, its --version and the options its commands share; how a command ends: one line, a hint, an exit
code, in one place."""

from __future__ import annotations

import functools
import os
import re
import signal
import sys
import threading
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from . import render
from .errors import ForemanError, UsageError
from .words import must, undecoded_at, undecoded_byte


def typed_text(value: Any) -> Any:
    """A name, an id or SQL as typed (a callback for its option): a byte that is not UTF-8, which
    Python keeps as a lone surrogate, can be neither stored nor written, so it is refused here."""
    for text in value if isinstance(value, (list, tuple)) else (value,):
        at = undecoded_at(text) if isinstance(text, str) else None
        if at is not None:
            raise typer.BadParameter(f"holds the byte {undecoded_byte(text, at):#04x} at character {at + 1}, "
                                     "which is not UTF-8 text")
    return value


def stdin_text(what: str) -> str:
    """All of standard input as UTF-8 text whatever the locale, as records are read; a byte that is
    not UTF-8 is refused with where it is."""
    raw = sys.stdin.buffer.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"{what} on standard input is not UTF-8 text: byte {raw[e.start]:#04x} at byte {e.start + 1}",
                         hint="save it as UTF-8") from None


DbOpt = Annotated[Optional[str], typer.Option(
    "--db", metavar="FILE", help="The DuckDB archive (default: $FOREMAN_DB, else foreman.duckdb here).")]


FromOpt = Annotated[Optional[str], typer.Option(
    "--from", metavar="FORM", help="Read standard input (-) as json or fmn (default: by its first line).")]


RuleOpt = Annotated[Optional[list[str]], typer.Option(
    "--rule", metavar="KEY=VALUE",
    help="Override a house option for every game read, e.g. --rule quota=9-5-2 (repeatable).")]


GameOpt = Annotated[Optional[str], typer.Option(
    "--game", metavar="ID", callback=typed_text, help="The game (if the input has several).")]


JobsOpt = Annotated[Optional[int], typer.Option(
    "--jobs", "-j", min=1, max=1024, metavar="N",
    help="Worker processes (default: the number of cores); output is the same for any number.")]


QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Only the problems: no summary.")]


def argument(metavar: str, text: bool = False) -> Any:
    """A positional argument, described in its command's help text: typer would print a Python type
    beside it in the Arguments table. `text`: a name or SQL, not a path (see typed_text)."""
    return typer.Argument(metavar=metavar, hidden=True, callback=typed_text if text else None)


PathsArg = Annotated[list[str], argument("PATH")]
PathArg = Annotated[str, argument("PATH")]


def worker_count(jobs: int | None) -> int:
    """--jobs as given, else one worker a core."""
    return jobs or os.cpu_count() or 1


def inputs(paths: list[str], from_: str | None) -> list[str]:
    """The paths, with '-' to be read as the form --from names, when it names one."""
    if from_ is None or not paths:
        return paths
    if from_ not in ("json", "fmn"):
        raise UsageError(f"--from {from_!r}: write json or fmn")
    from .reader import Stdin
    return [Stdin(from_) if p == "-" else p for p in paths]


class OneLineErrors(TyperGroup):
    """foreman's command group: a usage error typer finds (a bad option value, a missing argument)
    is one line and a hint naming the command's help, exit 2, like every other error of foreman."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not args:
            kwargs.setdefault("prog_name", "foreman")  # also under python -m foreman_cli
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except TyperException as e:
            ctx = getattr(e, "ctx", None)
            if ctx is not None and e.format_message() == ctx.get_help():  # the command alone: its help
                render.plain(ctx.get_help())
                return 0 if not standalone_mode else sys.exit(0)
            where = ctx.command_path if ctx is not None else "foreman"
            command = where.partition(" ")[2]
            message = e.format_message()
            if isinstance(e, typer.BadParameter):
                given = kwargs.get("args", args[0] if args else None)  # what typer parsed: argv by default
                message = _with_value_given(message, e.param, sys.argv[1:] if given is None else list(given))
            render.error(f"{command + ': ' if command else ''}{message}", f"see '{where} --help'")
            code = 2
        except typer.Abort:
            render.error("aborted")
            code = 1
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)


def _with_value_given(message: str, param: Any, argv: list[str]) -> str:
    """A bad option value's message in foreman's words, quoting the value as given (typer's does not)."""
    message = must(message)
    opts = getattr(param, "opts", None) or ()
    given = None
    for i, arg in enumerate(argv):
        if arg in opts and i + 1 < len(argv):
            given = argv[i + 1]
        elif arg.startswith("--") and "=" in arg and arg.partition("=")[0] in opts:
            given = arg.partition("=")[2]
    if given is None:
        return message
    # A byte that is not UTF-8 (kept as U+DC00 + b) is shown as Python shows bytes: \xf6, not \udcf6.
    return f"{message}, got " + re.sub(r"\\udc([89a-f][0-9a-f])", r"\\x\1", repr(given))


def guarded(fn):
    """Turn ForemanError into a one-line message with a hint and an exit code (the only place)."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        # From here on a Ctrl-C is an exception the command can end cleanly (the start-up's handler
        # in __main__ only exits).
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if kwargs.get("json_out") or kwargs.get("csv_out"):  # output for programs: its formats' encoding
            render.utf8_stdout()
        try:
            return fn(*args, **kwargs)
        except ForemanError as e:
            # A usage error names the help of the command it came from.
            hint = f"see 'foreman {fn.__name__} --help'" if e.hint == UsageError.hint else e.hint
            render.error(e.message, hint)
            raise typer.Exit(e.exit_code) from None
        except BrokenPipeError:
            # The reader of our output went away (e.g. `| head`): not an error of ours.
            sys.stderr.close()
            raise typer.Exit(0) from None
        except KeyboardInterrupt:
            render.error("interrupted")
            raise typer.Exit(130) from None
        except typer.Exit:
            raise
        except (RecursionError, MemoryError) as e:
            render.error(f"{fn.__name__}: the input is too large or nested too deep to handle ({type(e).__name__})",
                         "one record nested thousands deep, or far beyond the rules' sizes, is the usual cause")
            raise typer.Exit(2) from None
        except Exception as e:  # noqa: BLE001 - a bug of ours: one line and exit 2, never a traceback
            render.error(*(_unwritable(e, fn.__name__) or (
                f"{fn.__name__}: internal error: {type(e).__name__}: {e}",
                "this is a bug in foreman; please report it with the command that caused it")))
            raise typer.Exit(2) from None

    return run


def _unwritable(e: Exception, command: str) -> tuple[str, str] | None:
    """The message and hint when standard output's encoding cannot write a character (a player's
    name, a suit symbol): the environment's limit, not a bug. None for any other error."""
    import codecs
    encoding = getattr(sys.stdout, "encoding", None)
    if not isinstance(e, UnicodeEncodeError) or encoding is None:
        return None
    try:
        if codecs.lookup(e.encoding).name != codecs.lookup(encoding).name:
            return None
    except LookupError:
        return None
    chars = e.object[e.start:e.end][:3]
    if any("\ud800" <= char <= "\udfff" for char in chars):  # an undecoded byte: foreman's to show, not the terminal's
        return None
    unwritten = " ".join(f"U+{ord(char):04X}" for char in chars)
    return (f"{command}: standard output is written in {encoding}, which cannot write {unwritten}",
            "set a UTF-8 locale (LANG=C.UTF-8) or PYTHONIOENCODING=utf-8")


APP_OPTIONS = dict(
    name="foreman",
    cls=OneLineErrors,
    help="Audit, settle and query records of the trick-taking game Foreman (formats foreman/1, 1.1 and 1.2; .fmn notation).\n\n"
         "Example: foreman validate samples/   then   foreman settle samples/\n\n"
         "Each command has its own help: foreman COMMAND --help.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app = typer.Typer(**APP_OPTIONS)


def version_text() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("foreman-cli")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without install
        return "unknown"


def _version(value: bool) -> None:
    if value:
        from . import core
        render.plain(f"foreman {version_text()} (core: {core.NAME})")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the version and which core runs the searches (C or Python).")] = False,
) -> None:
    """The command group's options (its help text is APP_OPTIONS')."""


def run_app() -> None:
    """Run the command line (its commands registered by importing cli).

    typer builds the parser of every command on each run, a good part of the start-up; when the
    first argument names a command, only that one is built (the same command, so the same
    options, help and messages). Anything else, and shell completion, gets the whole app.
    """
    args = sys.argv[1:]
    one = None
    if args and not args[0].startswith("-") and "_FOREMAN_COMPLETE" not in os.environ:
        one = only_command(args[0])
    (one or app)()


def only_command(name: str) -> typer.Typer | None:
    """The app with the one command `name` (and the --version callback), or None if there is none."""
    from typer.main import get_command_name
    infos = [ci for ci in app.registered_commands if (ci.name or get_command_name(ci.callback.__name__)) == name]
    if len(infos) != 1:
        return None
    one = typer.Typer(**APP_OPTIONS)
    one.registered_callback = app.registered_callback
    one.registered_commands = infos
    return one
