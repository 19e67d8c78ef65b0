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


# Installed as this entry module loads, so no moment of foreman's own start-up is left to Python's traceback.
signal.signal(signal.SIGINT, _interrupted_early)


def run() -> None:
    """Start the CLI; a Ctrl-C before a command runs is one line and exit 130, like one during it."""
    signal.signal(signal.SIGINT, _interrupted_early)
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
