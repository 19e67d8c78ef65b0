"""The `foreman` command's entry: `python -m foreman_cli` and the console script."""

import sys


def run() -> None:
    """Start the CLI; a Ctrl-C before its own handling is in place is still one line and exit 130."""
    try:
        from .cli import main  # the heavy imports: a Ctrl-C may land in them
        main()
    except KeyboardInterrupt:
        sys.stderr.write("foreman: interrupted\n")
        sys.exit(130)


if __name__ == "__main__":
    run()
