"""The `foreman` command's entry: `python -m foreman_cli` and the console script."""

import os
import signal
import sys


def _interrupted_early(signum, frame) -> None:
    # Until a command runs there is nothing to clean up or keep: say so in one line and go.
    # (Typer turns a Ctrl-C during its own argument parsing into a silent exit 130.)
    sys.stderr.write("foreman: interrupted\n")
    sys.stderr.flush()
    os._exit(130)


class _NoNumpy:
    """An import hook that says numpy is not there."""

    @staticmethod
    def find_spec(name: str, path=None, target=None) -> None:
        if name == "numpy" or name.startswith("numpy."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


# Commands whose process never hands numpy anything: there pyarrow and DuckDB, which import it
# where it is installed (the spark extra brings it), go without. Measured on `load`: 0.20-0.61 s
# from the start to the workers' fork, 0.14-0.23 s without, and no BLAS threads spinning.
# Only in the command's own process: a program that imports the library keeps its numpy.
_WITHOUT_NUMPY = ("load",)


# Installed as this entry module loads, so no moment of foreman's own start-up is left to Python's traceback.
signal.signal(signal.SIGINT, _interrupted_early)


def run() -> None:
    """Start the CLI; a Ctrl-C before a command runs is one line and exit 130, like one during it."""
    signal.signal(signal.SIGINT, _interrupted_early)
    if sys.argv[1:2] and sys.argv[1] in _WITHOUT_NUMPY and "numpy" not in sys.modules:
        sys.meta_path.insert(0, _NoNumpy)
    try:
        from .cli import main  # the heavy imports: a Ctrl-C may land in them
        main()
    finally:
        # The command has ended and said so: a Ctrl-C while Python shuts down (its threads, the
        # worker pool's end) would only add a stray "Exception ignored ... KeyboardInterrupt" to
        # stderr, or end the process by the signal, in place of the command's own exit code.
        signal.signal(signal.SIGINT, signal.SIG_IGN)


if __name__ == "__main__":
    run()
